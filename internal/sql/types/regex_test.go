package types

import (
	"errors"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// similar_to_escape's output, from PostgreSQL 15's strings.out (EXPLAIN
// prints it).
func TestSimilarToRegexAsPostgreSQL(t *testing.T) {
	for _, c := range []struct{ pattern, esc, want string }{
		{`_[_[:alpha:]_]_`, `\`, `^(?:.[_[:alpha:]_].)$`},
		{`%[%[:alnum:]%]%`, `\`, `^(?:.*[%[:alnum:]%].*)$`},
		{`.[.[:alnum:].].`, `\`, `^(?:\.[.[:alnum:].]\.)$`},
		{`$[$[:alnum:]$]$`, `\`, `^(?:\$[$[:alnum:]$]\$)$`},
		{`()[([:alnum:](]()`, `\`, `^(?:(?:)[([:alnum:](](?:))$`},
		{`^[^[:alnum:]^[^^][[^^]][\^][[\^]]\^]^`, `\`, `^(?:\^[^[:alnum:]^[^^][[^^]][\^][[\^]]\^]\^)$`},
		{`[]%][^]%][^%]%`, `\`, `^(?:[]%][^]%][^%].*)$`},
		{`[^^]^`, `\`, `^(?:[^^]\^)$`},
		{`[|a]%`, `|`, `^(?:[\a].*)$`},
		{`a#"(b_d)#"%`, `#`, `^(?:a){1,1}?((?:b.d)){1,1}(?:.*)$`},
	} {
		got, err := similarToRegex(c.pattern, c.esc)
		if err != nil || got != c.want {
			t.Errorf("similar_to_escape(%q, %q) = %q, %v; want %q", c.pattern, c.esc, got, err, c.want)
		}
	}
	if _, err := similarToRegex(`a#"b#"c#"d`, `#`); err == nil {
		t.Error("three separators accepted")
	}
	if _, err := similarToRegex(`a`, `##`); err == nil {
		t.Error("two-character escape accepted")
	}
}

func TestTranslateARE(t *testing.T) {
	for _, c := range []struct {
		pattern string
		f       reFlags
		want    string
		greedy  bool
	}{
		{`a.b`, reFlags{}, `(?s)a.b`, true},
		{`a.b`, reFlags{newline: 'n'}, `(?m)a.b`, true},
		{`a.b`, reFlags{icase: true}, `(?is)a.b`, true},
		{`\ybar\y`, reFlags{}, `(?s)\bbar\b`, true},
		{`x*?y+`, reFlags{}, `(?s)x*?y+`, false},
		{`(?i)ABC`, reFlags{}, `(?is)ABC`, true},
		{`***=a.b`, reFlags{}, `(?s)a\.b`, true},
		{`a b # c` + "\n" + `d`, reFlags{expanded: true}, `(?s)abd`, true},
		// a lazily quantified group matches as little as it can
		{`(a*){1,1}?(.*)`, reFlags{}, `(?s)(a*?){1,1}?(.*)`, false},
		{`[[:alpha:]\d]`, reFlags{}, `(?s)[[:alpha:]\d]`, true},
	} {
		got, greedy, _, err := translateARE(c.pattern, c.f)
		if err != nil || got != c.want || greedy != c.greedy {
			t.Errorf("translateARE(%q) = %q greedy=%v %v; want %q greedy=%v", c.pattern, got, greedy, err, c.want, c.greedy)
		}
	}
	for _, p := range []string{`(.)\1`, `a(?=b)`, `a(?!b)`, `(?<=a)b`} {
		_, _, _, err := translateARE(p, reFlags{})
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.FeatureNotSupported {
			t.Errorf("%q: %v, want 0A000", p, err)
		}
	}
}

// A search from an offset sees the text before it as context.
func TestRegexSearchFromOffsetKeepsContext(t *testing.T) {
	r, err := compilePGRegex(`\yab`, reFlags{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := r.matchesFrom("ab ab ab", 1, -1)
	if err != nil || len(ms) != 2 || ms[0][0] != 3 || ms[1][0] != 6 {
		t.Fatalf("matches from 1: %v %v", ms, err)
	}
	r, err = compilePGRegex(`^a`, reFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := r.matchesFrom("aaa", 1, -1); err != nil || len(ms) != 0 {
		t.Fatalf("^a from 1 matched %v %v", ms, err)
	}
}

// \m and \M next to \d or \w (explain.sql's explain_filter) are word
// boundaries; next to an optional atom they stay refused.
func TestWordBoundaryNextToClassEscape(t *testing.T) {
	r, err := compilePGRegex(`-?\m\d+\M`, reFlags{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := r.matchesFrom("cost=0.00..35.50 rows=2550 x12", 0, -1)
	if err != nil || len(ms) != 5 { // 0, 00, 35, 50, 2550; not the 12 of x12
		t.Fatalf("matches %v %v", ms, err)
	}
	if _, err := compilePGRegex(`\m\d*`, reFlags{}); err == nil {
		t.Fatal(`\m\d* compiled`)
	}
	if _, err := compilePGRegex(`\m\w+kB\M`, reFlags{}); err != nil {
		t.Fatal(err)
	}
}
