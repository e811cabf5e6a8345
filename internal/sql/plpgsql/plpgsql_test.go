package plpgsql

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func TestSplitAssign(t *testing.T) {
	cases := []struct{ in, lhs, rhs string }{
		{"x := x + 1", "x", "x + 1"},
		{"x = 1", "x", "1"},
		{"r.f := 'a:=b'", "r.f", "'a:=b'"},
		{"a[i] := a[i] = 2", "a[i]", "a[i] = 2"},
		{`"we:ird" := 3`, `"we:ird"`, "3"},
	}
	for _, c := range cases {
		l, r := splitAssign(c.in)
		if l != c.lhs || r != c.rhs {
			t.Errorf("splitAssign(%q) = %q, %q; want %q, %q", c.in, l, r, c.lhs, c.rhs)
		}
	}
}

func TestMatches(t *testing.T) {
	cases := []struct {
		conds []string
		code  string
		want  bool
	}{
		{[]string{"division_by_zero"}, "22012", true},
		{[]string{"data_exception"}, "22012", true}, // a class catches its members
		{[]string{"unique_violation"}, "22012", false},
		{[]string{"others"}, "22012", true},
		{[]string{"others"}, "57014", false}, // a cancel is not caught by OTHERS
		{[]string{"query_canceled"}, "57014", true},
		{[]string{"others"}, codeAssertFailure, false},
		{[]string{"22012"}, "22012", true}, // SQLSTATE '22012'
		{[]string{"string_data_right_truncation"}, "22001", true},
	}
	for _, c := range cases {
		if got := matches(c.conds, c.code); got != c.want {
			t.Errorf("matches(%v, %s) = %v, want %v", c.conds, c.code, got, c.want)
		}
	}
}

func TestConditionCode(t *testing.T) {
	if c, err := conditionCode("no_data_found"); err != nil || c != codeNoDataFound {
		t.Fatalf("no_data_found: %q %v", c, err)
	}
	if _, err := conditionCode("no_such_condition"); err == nil {
		t.Fatal("an unknown condition name must fail")
	}
}

// parseDo parses a DO block the way Inline does.
func parseDo(t *testing.T, src string) *program {
	t.Helper()
	js, err := pg.ParsePlPgSqlToJSON("DO " + dollarQuote(src))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseTree(js)
	if err != nil {
		t.Fatal(err)
	}
	return buildProgram(f, "inline_code_block", src, nil, "")
}

// The parser's tree does not say which block declares what: the
// scopes rebuilt from the datums' order must give nested blocks their
// own variables, shadowing the outer ones.
func TestBlockScopes(t *testing.T) {
	p := parseDo(t, `
<<outer>>
DECLARE
  x int := 1;
  y text;
BEGIN
  FOR i IN 1..3 LOOP
    DECLARE
      x int := 2;
    BEGIN
      RAISE NOTICE '%', x;
    END;
  END LOOP;
  RAISE NOTICE '%', x;
END`)
	root := p.root
	if root.Lineno == 0 { // the parser's wrapper around a labelled block
		root = root.Body[0]
	}
	if got := len(p.blockVars[root]); got != 2 {
		t.Fatalf("outer block declares %d datums, want 2 (x, y)", got)
	}
	fori := root.Body[0]
	inner := fori.Body[0]
	if got := len(p.blockVars[inner]); got != 1 {
		t.Fatalf("inner block declares %d datums, want 1", got)
	}
	outerX, innerX := p.blockVars[root][0], p.blockVars[inner][0]
	if outerX == innerX {
		t.Fatal("inner x must be a datum of its own")
	}
	raiseInner := inner.Body[0]
	sc := p.exprScope[raiseInner.Params[0].e]
	if d, _ := sc.lookup("x"); d != innerX {
		t.Errorf("x inside the inner block resolves to datum %d, want %d", d, innerX)
	}
	if d, ok := sc.lookup("i"); !ok || d != p.loopVar[fori] {
		t.Errorf("the loop variable is not visible in the loop body")
	}
	raiseOuter := root.Body[1]
	if d, _ := p.exprScope[raiseOuter.Params[0].e].lookup("x"); d != outerX {
		t.Errorf("x after the loop resolves to datum %d, want %d", d, outerX)
	}
	if s := p.exprScope[raiseOuter.Params[0].e].labelled("outer"); s == nil || s.names["x"] != outerX {
		t.Error("outer.x does not name the outer block's x")
	}
}

func TestHandlerScope(t *testing.T) {
	p := parseDo(t, `BEGIN
  PERFORM 1;
EXCEPTION WHEN others THEN
  RAISE NOTICE '% %', sqlstate, sqlerrm;
END`)
	top := p.root
	if top.Exc == nil {
		top = top.Body[0]
	}
	h := top.Exc.Handlers[0]
	sc := p.handlerScope[h]
	if _, ok := sc.names["sqlstate"]; !ok {
		t.Fatal("a handler sees SQLSTATE")
	}
	if _, ok := p.handlerScope[h].parent.lookup("sqlstate"); ok {
		t.Error("SQLSTATE must not be visible outside the handler")
	}
}

func TestCompileErrorPlacement(t *testing.T) {
	_, err := parseBody("DO $$ BEGIN x := 1; END $$", " BEGIN x := 1; END ")
	ce, ok := err.(*compileErr)
	if !ok {
		t.Fatalf("want a compileErr, got %T %v", err, err)
	}
	if ce.pe.Message != `"x" is not a known variable` || ce.line != 1 || ce.token != "x" {
		t.Errorf("got %q line %d token %q", ce.pe.Message, ce.line, ce.token)
	}
}
