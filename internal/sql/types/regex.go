package types

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// The POSIX regular-expression operators and functions (PostgreSQL 15's
// regexp.c interface; the pattern syntax is translated in
// regex_translate.go). Positions and lengths are in characters.

func init() {
	for _, t := range []Type{Text, Name, BpcharAny} {
		for _, op := range []struct {
			name          string
			icase, negate bool
		}{{"~", false, false}, {"!~", false, true}, {"~*", true, false}, {"!~*", true, true}} {
			op := op
			addOp(op.name, &Func{Args: []Type{t, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
				r, err := compilePGRegex(a[1].Str(), reFlags{icase: op.icase})
				if err != nil {
					return Datum{}, err
				}
				return Bool(r.re.MatchString(a[0].Str()) != op.negate), nil
			}})
		}
	}
	regexReplaceFuncs()
	regexSearchFuncs()
	regexSetFuncs()
	fn("pg_relation_is_publishable", []Type{Oid}, Boolean, func([]Datum) (Datum, error) { return Bool(false), nil })
	fn("pg_get_statisticsobjdef_columns", []Type{Oid}, Text, func([]Datum) (Datum, error) { return Datum{}, nil })
}

// regexFor compiles pattern with a flags argument (fn names the function
// for errors).
func regexFor(pattern, flags, fn string, allowGlobal bool) (*pgRegex, reFlags, error) {
	f, err := parseREFlags(flags, fn, allowGlobal)
	if err != nil {
		return nil, f, err
	}
	r, err := compilePGRegex(pattern, f)
	return r, f, err
}

// findAt returns the leftmost match of r in s starting at byte pos or
// later, as a submatch index slice into s (nil: none). As in PostgreSQL
// the text before pos is context for anchors and word boundaries but is
// not searched.
func (r *pgRegex) findAt(s string, pos int) ([]int, error) {
	if pos == 0 || !r.leftContext {
		m := r.re.FindStringSubmatchIndex(s[pos:])
		shiftMatch(m, pos)
		return m, nil
	}
	// Search s[pos:] behind one character of context, so that
	// assertions at pos see what they would in the whole string: Go's
	// assertions ask only whether the previous character is a word
	// character or a newline, so any character of the same kind will do.
	// A match that starts on the context character is not one of ours
	// (and a non-empty one would hide ours): try another character of the
	// kind. After an empty one there, Go's next match is the leftmost
	// from pos.
	prev, _ := utf8.DecodeLastRuneInString(s[:pos])
	for _, c := range contextStandIns(prev) {
		window := string(c) + s[pos:]
		k := utf8.RuneLen(c)
		ms := r.re.FindAllStringSubmatchIndex(window, 2)
		if len(ms) > 0 && ms[0][0] == 0 {
			// Go's next match after one that ends at k skips an empty
			// match at k, which PostgreSQL would take.
			if ms[0][1] > k || ms[0][1] == k && r.matchesEmptyAt(s, pos, prev) {
				continue
			}
			ms = ms[1:]
		}
		if len(ms) == 0 {
			return nil, nil
		}
		shiftMatch(ms[0], pos-k)
		return ms[0], nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "searching for this regular expression (it has anchors or word boundaries) from a start position is not supported here")
}

// contextStandIns are characters that stand for prev as the character
// before a search position: prev itself first, then others that Go's
// assertions cannot tell from it.
func contextStandIns(prev rune) []rune {
	switch {
	case prev == '\n':
		return []rune{'\n'}
	case syntax.IsWordChar(prev):
		return []rune{prev, 'q', 'Z', '7', '_', 'x', 'J'}
	}
	return []rune{prev, '\x01', '~', '\u00a0', '#', '\x7f', '\u2028'}
}

// matchesEmptyAt reports whether r can match the empty string at byte pos
// of s (prev is the character before it): whether its program reaches a
// match from the start through instructions that consume nothing and
// assertions that hold there.
func (r *pgRegex) matchesEmptyAt(s string, pos int, prev rune) bool {
	next := rune(-1)
	if pos < len(s) {
		next, _ = utf8.DecodeRuneInString(s[pos:])
	}
	ctx := syntax.EmptyOpContext(prev, next)
	prog := r.program()
	if prog == nil {
		return true // cannot tell: the caller does not rely on it
	}
	seen := make([]bool, len(prog.Inst))
	var reach func(pc uint32) bool
	reach = func(pc uint32) bool {
		if seen[pc] {
			return false
		}
		seen[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			return reach(in.Out) || reach(in.Arg)
		case syntax.InstNop, syntax.InstCapture:
			return reach(in.Out)
		case syntax.InstEmptyWidth:
			return syntax.EmptyOp(in.Arg)&^ctx == 0 && reach(in.Out)
		}
		return false
	}
	return reach(uint32(prog.Start))
}

// program is r's compiled RE2 program (nil if it cannot be built).
func (r *pgRegex) program() *syntax.Prog {
	r.progOnce.Do(func() {
		re, err := syntax.Parse(r.pattern, syntax.Perl)
		if err != nil {
			return
		}
		r.prog, _ = syntax.Compile(re.Simplify())
	})
	return r.prog
}

func shiftMatch(m []int, by int) {
	for i := range m {
		if m[i] >= 0 {
			m[i] += by
		}
	}
}

// eachMatch calls yield for the successive matches of r from byte off
// (PostgreSQL's loop: after an empty match the search moves on by one
// character, after another one to its end) until yield returns false.
func (r *pgRegex) eachMatch(s string, off int, yield func(m []int) bool) error {
	for pos := off; pos <= len(s); {
		m, err := r.findAt(s, pos)
		if err != nil || m == nil {
			return err
		}
		if !yield(m) {
			return nil
		}
		if m[0] == m[1] {
			if m[1] >= len(s) {
				return nil
			}
			_, sz := utf8.DecodeRuneInString(s[m[1]:])
			pos = m[1] + sz
		} else {
			pos = m[1]
		}
	}
	return nil
}

// matchesFrom returns up to n (n < 0: all) successive matches from byte
// offset off.
func (r *pgRegex) matchesFrom(s string, off, n int) ([][]int, error) {
	var out [][]int
	err := r.eachMatch(s, off, func(m []int) bool {
		out = append(out, m)
		return n < 0 || len(out) < n
	})
	return out, err
}

// startOffset checks a 1-based character start argument and returns its
// byte offset in s.
func startOffset(s string, start int64) (int, error) {
	if start <= 0 {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "start", start)
	}
	if start-1 > int64(len(s)) {
		return len(s) + 1, nil // past the end: nothing matches
	}
	return byteOffset(s, int(start-1)), nil
}

func charPos(s string, b int) int { return utf8.RuneCountInString(s[:b]) }

func regexReplaceFuncs() {
	replace := func(a []Datum, start, nth int64, flags string) (Datum, error) {
		s := a[0].Str()
		r, f, err := regexFor(a[1].Str(), flags, "regexp_replace", true)
		if err != nil {
			return Datum{}, err
		}
		if f.global && nth < 0 {
			nth = 0
		}
		if nth < 0 {
			nth = 1 // no N and no g: the first match
		}
		off, err := startOffset(s, start)
		if err != nil {
			return Datum{}, err
		}
		if off > len(s) {
			return a[0], nil
		}
		limit := -1
		if nth > 0 {
			limit = int(nth)
		}
		ms, err := r.matchesFrom(s, off, limit)
		if err != nil {
			return Datum{}, err
		}
		if nth > 0 {
			if len(ms) < int(nth) {
				return a[0], nil
			}
			ms = ms[nth-1:]
		}
		var b strings.Builder
		prev := 0
		for _, m := range ms {
			b.WriteString(s[prev:m[0]])
			appendReplacement(&b, a[2].Str(), s, m)
			prev = m[1]
		}
		b.WriteString(s[prev:])
		return Str(b.String()), nil
	}
	checkN := func(n int64) error {
		if n < 0 {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", n)
		}
		return nil
	}
	// N < 0 stands for "not given": then the g flag means every match.
	fn("regexp_replace", []Type{Text, Text, Text}, Text, func(a []Datum) (Datum, error) { return replace(a, 1, -1, "") })
	fn("regexp_replace", []Type{Text, Text, Text, Text}, Text, func(a []Datum) (Datum, error) { return replace(a, 1, -1, a[3].Str()) })
	fn("regexp_replace", []Type{Text, Text, Text, Int4}, Text, func(a []Datum) (Datum, error) { return replace(a, a[3].Int(), -1, "") })
	fn("regexp_replace", []Type{Text, Text, Text, Int4, Int4}, Text, func(a []Datum) (Datum, error) {
		if err := checkN(a[4].Int()); err != nil {
			return Datum{}, err
		}
		return replace(a, a[3].Int(), a[4].Int(), "")
	})
	fn("regexp_replace", []Type{Text, Text, Text, Int4, Int4, Text}, Text, func(a []Datum) (Datum, error) {
		if err := checkN(a[4].Int()); err != nil {
			return Datum{}, err
		}
		return replace(a, a[3].Int(), a[4].Int(), a[5].Str())
	})
}

// appendReplacement writes a replacement text: \1 … \9 are the
// parenthesised subexpressions' matches, \& the whole match, \\ a
// backslash; any other backslash is copied as it is.
func appendReplacement(b *strings.Builder, repl, s string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		e := repl[i+1]
		switch {
		case e >= '1' && e <= '9':
			g := int(e - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(s[m[2*g]:m[2*g+1]])
			}
			i++
		case e == '&':
			b.WriteString(s[m[0]:m[1]])
			i++
		case e == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte('\\')
		}
	}
}

func regexSearchFuncs() {
	// regexp_like(string, pattern [, flags])
	like := func(a []Datum, flags string) (Datum, error) {
		r, _, err := regexFor(a[1].Str(), flags, "regexp_like", false)
		if err != nil {
			return Datum{}, err
		}
		return Bool(r.re.MatchString(a[0].Str())), nil
	}
	fn("regexp_like", []Type{Text, Text}, Boolean, func(a []Datum) (Datum, error) { return like(a, "") })
	fn("regexp_like", []Type{Text, Text, Text}, Boolean, func(a []Datum) (Datum, error) { return like(a, a[2].Str()) })

	// regexp_count(string, pattern [, start [, flags]])
	count := func(a []Datum, start int64, flags string) (Datum, error) {
		s := a[0].Str()
		r, _, err := regexFor(a[1].Str(), flags, "regexp_count", false)
		if err != nil {
			return Datum{}, err
		}
		off, err := startOffset(s, start)
		if err != nil || off > len(s) {
			return Int(0), err
		}
		ms, err := r.matchesFrom(s, off, -1)
		return Int(int64(len(ms))), err
	}
	fn("regexp_count", []Type{Text, Text}, Int4, func(a []Datum) (Datum, error) { return count(a, 1, "") })
	fn("regexp_count", []Type{Text, Text, Int4}, Int4, func(a []Datum) (Datum, error) { return count(a, a[2].Int(), "") })
	fn("regexp_count", []Type{Text, Text, Int4, Text}, Int4, func(a []Datum) (Datum, error) { return count(a, a[2].Int(), a[3].Str()) })

	// nthMatch finds the nth match at or after start and the span of
	// subexpression sub (0: the whole match); ok=false when there is none.
	nthMatch := func(fnName, s, pattern string, start, nth int64, flags string, sub int64) (lo, hi int, ok bool, err error) {
		if nth <= 0 {
			return 0, 0, false, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", nth)
		}
		if sub < 0 {
			return 0, 0, false, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "subexpr", sub)
		}
		r, _, err := regexFor(pattern, flags, fnName, false)
		if err != nil {
			return 0, 0, false, err
		}
		off, err := startOffset(s, start)
		if err != nil || off > len(s) {
			return 0, 0, false, err
		}
		ms, err := r.matchesFrom(s, off, int(nth))
		if err != nil || len(ms) < int(nth) {
			return 0, 0, false, err
		}
		m := ms[nth-1]
		if int(2*sub+1) >= len(m) || m[2*sub] < 0 {
			return 0, 0, false, nil
		}
		return m[2*sub], m[2*sub+1], true, nil
	}
	// regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]])
	instr := func(a []Datum) (Datum, error) {
		start, nth, endopt, flags, sub := int64(1), int64(1), int64(0), "", int64(0)
		if len(a) > 2 {
			start = a[2].Int()
		}
		if len(a) > 3 {
			nth = a[3].Int()
		}
		if len(a) > 4 {
			endopt = a[4].Int()
			if endopt != 0 && endopt != 1 {
				return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "endoption", endopt)
			}
		}
		if len(a) > 5 {
			flags = a[5].Str()
		}
		if len(a) > 6 {
			sub = a[6].Int()
		}
		s := a[0].Str()
		lo, hi, ok, err := nthMatch("regexp_instr", s, a[1].Str(), start, nth, flags, sub)
		if err != nil || !ok {
			return Int(0), err
		}
		if endopt == 1 {
			return Int(int64(charPos(s, hi)) + 1), nil
		}
		return Int(int64(charPos(s, lo)) + 1), nil
	}
	instrArgs := []Type{Text, Text, Int4, Int4, Int4, Text, Int4}
	for n := 2; n <= len(instrArgs); n++ {
		fn("regexp_instr", instrArgs[:n], Int4, instr)
	}
	// regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]])
	substr := func(a []Datum) (Datum, error) {
		start, nth, flags, sub := int64(1), int64(1), "", int64(0)
		if len(a) > 2 {
			start = a[2].Int()
		}
		if len(a) > 3 {
			nth = a[3].Int()
		}
		if len(a) > 4 {
			flags = a[4].Str()
		}
		if len(a) > 5 {
			sub = a[5].Int()
		}
		s := a[0].Str()
		lo, hi, ok, err := nthMatch("regexp_substr", s, a[1].Str(), start, nth, flags, sub)
		if err != nil || !ok {
			return Datum{}, err
		}
		return Str(s[lo:hi]), nil
	}
	substrArgs := []Type{Text, Text, Int4, Int4, Text, Int4}
	for n := 2; n <= len(substrArgs); n++ {
		fn("regexp_substr", substrArgs[:n], Text, substr)
	}
	// regexp_match(string, pattern [, flags]): the first match's
	// subexpressions (or the whole match) as text[].
	match := func(a []Datum, flags string) (Datum, error) {
		r, _, err := regexFor(a[1].Str(), flags, "regexp_match", false)
		if err != nil {
			return Datum{}, err
		}
		m := r.re.FindStringSubmatchIndex(a[0].Str())
		if m == nil {
			return Datum{}, nil
		}
		return matchArray(a[0].Str(), m), nil
	}
	textArray := Type{OID: TextArrayOID, Typmod: -1}
	fn("regexp_match", []Type{Text, Text}, textArray, func(a []Datum) (Datum, error) { return match(a, "") })
	fn("regexp_match", []Type{Text, Text, Text}, textArray, func(a []Datum) (Datum, error) { return match(a, a[2].Str()) })
	// substring(string from pattern): the first parenthesised
	// subexpression's match, else the whole match.
	fn("substring", []Type{Text, Text}, Text, func(a []Datum) (Datum, error) {
		r, err := compilePGRegex(a[1].Str(), reFlags{})
		if err != nil {
			return Datum{}, err
		}
		return regexSubstring(r, a[0].Str()), nil
	})
	// substring(string similar pattern escape escape)
	fn("substring", []Type{Text, Text, Text}, Text, func(a []Datum) (Datum, error) {
		p, err := similarToRegex(a[1].Str(), a[2].Str())
		if err != nil {
			return Datum{}, err
		}
		r, err := compilePGRegex(p, reFlags{})
		if err != nil {
			return Datum{}, err
		}
		return regexSubstring(r, a[0].Str()), nil
	})
}

func regexSubstring(r *pgRegex, s string) Datum {
	m := r.re.FindStringSubmatchIndex(s)
	if m == nil {
		return Datum{}
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return Datum{}
		}
		return Str(s[m[2]:m[3]])
	}
	return Str(s[m[0]:m[1]])
}

// matchArray is regexp_match's result for one match: the
// subexpressions' matches (NULL for one that did not take part), or the
// whole match when the pattern has none.
func matchArray(s string, m []int) Datum {
	if len(m) == 2 {
		return Array([]Datum{Str(s[m[0]:m[1]])})
	}
	elems := make([]Datum, 0, len(m)/2-1)
	for g := 1; g < len(m)/2; g++ {
		if m[2*g] < 0 {
			elems = append(elems, Datum{})
		} else {
			elems = append(elems, Str(s[m[2*g]:m[2*g+1]]))
		}
	}
	return Array(elems)
}

func regexSetFuncs() {
	textArray := Type{OID: TextArrayOID, Typmod: -1}
	// regexp_matches(string, pattern [, flags]): one row per match with
	// g, else at most one.
	matches := func(a []Datum) (func() (Datum, bool, error), error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].Str()
		}
		r, f, err := regexFor(a[1].Str(), flags, "regexp_matches", true)
		if err != nil {
			return nil, err
		}
		s := a[0].Str()
		n := 1
		if f.global {
			n = -1
		}
		ms, err := r.matchesFrom(s, 0, n)
		if err != nil {
			return nil, err
		}
		i := 0
		return func() (Datum, bool, error) {
			if i >= len(ms) {
				return Datum{}, false, nil
			}
			i++
			return matchArray(s, ms[i-1]), true, nil
		}, nil
	}
	for _, args := range [][]Type{{Text, Text}, {Text, Text, Text}} {
		srfs["regexp_matches"] = append(srfs["regexp_matches"], &SRF{Name: "regexp_matches", Args: args, Ret: textArray, Fn: matches})
	}
	split := func(fnName string, a []Datum) ([]string, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].Str()
		}
		r, _, err := regexFor(a[1].Str(), flags, fnName, false)
		if err != nil {
			return nil, err
		}
		return regexSplit(r, a[0].Str())
	}
	table := func(a []Datum) (func() (Datum, bool, error), error) {
		parts, err := split("regexp_split_to_table", a)
		if err != nil {
			return nil, err
		}
		i := 0
		return func() (Datum, bool, error) {
			if i >= len(parts) {
				return Datum{}, false, nil
			}
			i++
			return Str(parts[i-1]), true, nil
		}, nil
	}
	for _, args := range [][]Type{{Text, Text}, {Text, Text, Text}} {
		srfs["regexp_split_to_table"] = append(srfs["regexp_split_to_table"], &SRF{Name: "regexp_split_to_table", Args: args, Ret: Text, Fn: table})
		fn("regexp_split_to_array", args, textArray, func(a []Datum) (Datum, error) {
			parts, err := split("regexp_split_to_array", a)
			if err != nil {
				return Datum{}, err
			}
			elems := make([]Datum, len(parts))
			for i, p := range parts {
				elems[i] = Str(p)
			}
			return Array(elems), nil
		})
	}
}

// regexSplit splits s at the matches of r as PostgreSQL does: a match
// that starts at the end of s, or ends no later than the previous one
// (an empty match at the start or right after a match), does not split.
func regexSplit(r *pgRegex, s string) ([]string, error) {
	var parts []string
	piece, prevEnd := 0, 0
	err := r.eachMatch(s, 0, func(m []int) bool {
		if m[0] < len(s) && m[1] > prevEnd {
			parts = append(parts, s[piece:m[0]])
			piece = m[1]
		}
		prevEnd = m[1]
		return true
	})
	return append(parts, s[piece:]), err
}
