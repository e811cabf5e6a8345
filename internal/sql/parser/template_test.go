package parser

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func mustParse(t *testing.T, sql string) *pg.ParseResult {
	t.Helper()
	tree, err := pg.Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	return tree
}

// TestTemplateBind: a template made from the first text, bound to the
// second, equals the second text's own parse tree.
func TestTemplateBind(t *testing.T) {
	cases := []struct{ first, second string }{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 48213;", "SELECT abalance FROM pgbench_accounts WHERE aid = 7;"},
		{"UPDATE pgbench_accounts SET abalance = abalance + -4021 WHERE aid = 55;", "UPDATE pgbench_accounts SET abalance = abalance + -3 WHERE aid = 123456;"},
		{"UPDATE t SET x = x - 5 WHERE id=-1", "UPDATE t SET x = x - 17 WHERE id=-2000000000"},
		{"INSERT INTO h (tid, bid, aid, delta, mtime) VALUES (1, 2, 3, -4, CURRENT_TIMESTAMP)", "INSERT INTO h (tid, bid, aid, delta, mtime) VALUES (10, 20, 30, -40, CURRENT_TIMESTAMP)"},
		{"SELECT 'it''s', 'x', 1.5, .5e3, 3000000000", "SELECT 'plain', 'it''s a ''quote''', 2.25, 7.0e-1, 99999999999999999999"},
		{"SELECT - 1.5, -'x'::int, - 3", "SELECT - 10.25, -'y'::int, - 2147483647"},
		{"select * from t where a in (1, 2, 3) and b between 4 and 5 -- comment 'x'\n order by 1 limit 10 offset 2", "select * from t where a in (9, 8, 7) and b between 6 and 700 -- comment 'x'\n order by 2 limit 1 offset 0"},
		{"SELECT interval '1 day', date '2020-01-01', '5'::numeric(10,2), 'a' || $1", "SELECT interval '2 hours', date '1999-12-31', '6.5'::numeric(12,3), 'bcd' || $1"},
		{`SELECT "we""ird", 1 /* nested /* 'comment' */ 2 */ FROM "t'x"`, `SELECT "we""ird", 99 /* nested /* 'comment' */ 2 */ FROM "t'x"`},
		{"SELECT CASE WHEN a > 0 THEN 'pos' ELSE 'neg' END, coalesce(b, 0), substring('abc' from 2 for 1)", "SELECT CASE WHEN a > 10 THEN 'p' ELSE 'n' END, coalesce(b, 1), substring('xyz' from 1 for 3)"},
	}
	for _, c := range cases {
		s1, ok1 := ScanShape(c.first)
		s2, ok2 := ScanShape(c.second)
		if !ok1 || !ok2 {
			t.Fatalf("%q / %q: scan failed (%v, %v)", c.first, c.second, ok1, ok2)
		}
		if s1.Key != s2.Key {
			t.Fatalf("%q / %q: shapes differ:\n%q\n%q", c.first, c.second, s1.Key, s2.Key)
		}
		tmpl := NewTemplate(c.first, s1, mustParse(t, c.first))
		if tmpl == nil {
			t.Fatalf("%q: no template", c.first)
		}
		tmpl.Bind(s2)
		got, want := tmpl.Tree, mustParse(t, c.second)
		if !EqualIgnoringLocations(got, want) {
			t.Errorf("%q bound with %q:\ngot  %v\nwant %v", c.first, c.second, got, want)
		}
		// Binding the first text again gives its tree back.
		tmpl.Bind(s1)
		if !EqualIgnoringLocations(tmpl.Tree, mustParse(t, c.first)) {
			t.Errorf("%q: rebinding its own literals does not restore the tree", c.first)
		}
	}
}

// TestShapeKeys: texts that must not share a shape, and texts the scanner
// must leave to the real lexer.
func TestShapeKeys(t *testing.T) {
	differ := [][2]string{
		{"SELECT 1", "SELECT 3000000000"},      // int4 vs numeric literal: different node kinds
		{"SELECT 1", "SELECT 1.0"},             // integer vs numeric
		{"SELECT 1", "SELECT '1'"},             // integer vs string
		{"SELECT a FROM t", "SELECT b FROM t"}, // identifiers are part of the shape
		{"SELECT 'a' -- x\n", "SELECT 'a' -- y\n"},
	}
	for _, d := range differ {
		a, _ := ScanShape(d[0])
		b, _ := ScanShape(d[1])
		if a.Key == b.Key {
			t.Errorf("%q and %q share a shape", d[0], d[1])
		}
	}
	refused := []string{
		"SELECT E'a\\nb'", "SELECT e'x'", "SELECT B'101'", "SELECT X'1F'", "SELECT N'x'", "SELECT U&'d\\0061t'",
		"SELECT U&\"a\"", "SELECT $$dollar$$", "SELECT $tag$x$tag$", "SELECT 'a'\n'b'", "SELECT 1_000",
		"SELECT 0x1F", "SELECT 123abc", "SELECT 1e", "SELECT 1..2", "SELECT 'unterminated", "SELECT \"unterminated",
		"SELECT 1 /* unterminated", "SELECT $1abc", "SELECT 1\x00",
	}
	for _, q := range refused {
		if _, ok := ScanShape(q); ok {
			t.Errorf("%q: scanned, want refused", q)
		}
	}
}

// TestTemplateRefused: literals the grammar uses for something other than
// an A_Const make no template.
func TestTemplateRefused(t *testing.T) {
	for _, q := range []string{
		"SELECT 1::float(24)",  // float(p) picks float4 or float8
		"SELECT '{1}'::int[3]", // array bounds are plain integers
		"SELECT - -5",          // two folded minus signs
	} {
		s, ok := ScanShape(q)
		if !ok {
			t.Fatalf("%q: scan failed", q)
		}
		if NewTemplate(q, s, mustParse(t, q)) != nil {
			t.Errorf("%q: got a template, want none", q)
		}
	}
}

func TestMapPosition(t *testing.T) {
	first := "  SELECT nosuch + 1, 'ab' || x FROM t WHERE y = 'q' ; "
	second := "  SELECT nosuch + 12345, 'abcdef' || x FROM t WHERE y = '' ; "
	s1, _ := ScanShape(first)
	s2, _ := ScanShape(second)
	tmpl := NewTemplate(first, s1, mustParse(t, first))
	if tmpl == nil {
		t.Fatal("no template")
	}
	for _, tok := range []string{"nosuch", "x FROM", "t WHERE", "y =", "'ab"} {
		from := strings.Index(first, tok) + 1
		want := strings.Index(second, tok) + 1
		if tok == "'ab" {
			want = strings.Index(second, "'abcdef") + 1
		}
		if got := tmpl.MapPosition(int32(from), s2); got != int32(want) {
			t.Errorf("%q: position %d mapped to %d, want %d", tok, from, got, want)
		}
	}
	if start, end := tmpl.StmtRange(len(second)); strings.TrimSpace(second[start:end]) != "SELECT nosuch + 12345, 'abcdef' || x FROM t WHERE y = ''" {
		t.Errorf("StmtRange: %q", second[start:end])
	}
}
