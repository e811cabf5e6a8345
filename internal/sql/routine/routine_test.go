package routine

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func resolveType(tn *pg.TypeName) (types.Type, error) {
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().GetSval())
	}
	t, err := types.LookupTypeName(names, nil)
	if err != nil {
		return t, err
	}
	if len(tn.ArrayBounds) > 0 {
		t, _ = types.ArrayOf(t)
	}
	return t, nil
}

func define(t *testing.T, sql string) (*Definition, error) {
	t.Helper()
	tree, err := pg.Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	return Define(tree.Stmts[0].Stmt.GetCreateFunctionStmt(), resolveType)
}

func mustDefine(t *testing.T, sql string) *catalog.Proc {
	t.Helper()
	d, err := define(t, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	p := d.Proc
	p.Namespace = catalog.PublicNamespace
	for range d.Defaults {
		p.ArgDefaults = append(p.ArgDefaults, "1")
	}
	return &p
}

func TestDefine(t *testing.T) {
	p := mustDefine(t, "CREATE FUNCTION f(a int, OUT b text, INOUT c int DEFAULT 3, VARIADIC d int[] DEFAULT '{}') LANGUAGE sql IMMUTABLE STRICT SECURITY DEFINER COST 5 PARALLEL SAFE SET work_mem = '1MB' AS 'select 1'")
	if p.RetType != types.RecordOID || p.RetSet || p.Volatile != 'i' || !p.Strict || !p.SecDef || p.Cost != 5 || p.Parallel != 's' {
		t.Errorf("options: %+v", p)
	}
	if got := len(p.ArgTypes); got != 3 {
		t.Errorf("input arguments: %d, want 3 (a, c, d)", got)
	}
	if string(p.ArgModes) != "iobv" || p.Variadic != types.Int4OID || len(p.Config) != 1 || p.Config[0] != "work_mem=1MB" {
		t.Errorf("modes %q variadic %d config %v", p.ArgModes, p.Variadic, p.Config)
	}
	if names := p.InputArgNames(); strings.Join(names, ",") != "a,c,d" {
		t.Errorf("input names %v", names)
	}
	tbl := mustDefine(t, "CREATE FUNCTION g(n int) RETURNS TABLE (x int, y text) LANGUAGE sql AS 'select 1, ''a'''")
	if !tbl.RetSet || tbl.RetType != types.RecordOID || tbl.Rows != 1000 || Result(tbl) != "TABLE(x integer, y text)" {
		t.Errorf("RETURNS TABLE: %+v result %q", tbl, Result(tbl))
	}
	for _, tc := range []struct{ sql, code, msg string }{
		{"CREATE FUNCTION f() RETURNS int AS 'select 1'", pgerr.InvalidFunctionDefinition, "no language specified"},
		{"CREATE FUNCTION f() LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, "function result type must be specified"},
		{"CREATE FUNCTION f(a int, a int) RETURNS int LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, `parameter name "a" used more than once`},
		{"CREATE FUNCTION f(a int, OUT a int) LANGUAGE sql AS 'select 1'", "", ""},
		{"CREATE FUNCTION f(a int DEFAULT 1, b int) RETURNS int LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults"},
		{"CREATE FUNCTION f(VARIADIC a int) RETURNS int LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be an array"},
		{"CREATE FUNCTION f(OUT a int, OUT b int) RETURNS int LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, "function result type must be record because of OUT parameters"},
		{"CREATE FUNCTION f() RETURNS int LANGUAGE sql ROWS 5 AS 'select 1'", pgerr.InvalidParameterValue, "ROWS is not applicable when function does not return a set"},
		{"CREATE FUNCTION f(int) RETURNS anyelement LANGUAGE sql AS 'select 1'", pgerr.InvalidFunctionDefinition, "cannot determine result data type"},
		{"CREATE FUNCTION f() RETURNS int LANGUAGE nosuch AS 'x'", pgerr.UndefinedObject, `language "nosuch" does not exist`},
	} {
		_, err := define(t, tc.sql)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
			}
			continue
		}
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: got %v, want %s %q", tc.sql, err, tc.code, tc.msg)
		}
	}
}

func call(args ...any) *Call {
	c := &Call{Name: "f", Location: -1}
	for i := 0; i < len(args); i++ {
		switch a := args[i].(type) {
		case types.Type:
			c.Args = append(c.Args, CallArg{Type: a})
		case string:
			i++
			c.Args = append(c.Args, CallArg{Name: a, Type: args[i].(types.Type)})
		}
	}
	return c
}

func pick(t *testing.T, procs []*catalog.Proc, c *Call) (*Candidate, error) {
	t.Helper()
	return Select(Candidates(procs, c, func(uint32) int { return 1 }), c)
}

func TestResolve(t *testing.T) {
	fInt := mustDefine(t, "CREATE FUNCTION f(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql AS 'select 1'")
	fText := mustDefine(t, "CREATE FUNCTION f(t text) RETURNS int LANGUAGE sql AS 'select 1'")
	fNum := mustDefine(t, "CREATE FUNCTION f(n numeric) RETURNS int LANGUAGE sql AS 'select 1'")
	procs := []*catalog.Proc{fInt, fText, fNum}
	for _, tc := range []struct {
		c     *Call
		want  *catalog.Proc
		slots string
	}{
		{call(types.Int4), fInt, "0"},
		{call(types.Int4, types.Int4), fInt, "01"},
		{call(types.Unknown), fText, "0"},
		{call(types.Int8), fNum, "0"},
		{call("b", types.Int4, "a", types.Int4), fInt, "10"},
		{call(types.Int4, "b", types.Int2), fInt, "01"},
	} {
		got, err := pick(t, procs, tc.c)
		if err != nil || got.Proc != tc.want {
			t.Errorf("%s: got %v, %v", Signature(tc.c), got, err)
			continue
		}
		var slots []byte
		for _, s := range got.Slots {
			slots = append(slots, byte('0'+s))
		}
		if string(slots) != tc.slots {
			t.Errorf("%s: slots %s, want %s", Signature(tc.c), slots, tc.slots)
		}
	}
	for _, tc := range []struct {
		c    *Call
		code string
		msg  string
	}{
		{call(types.Boolean), pgerr.UndefinedFunction, "function f(boolean) does not exist"},
		{call("c", types.Int4), pgerr.UndefinedFunction, "function f(c => integer) does not exist"},
		{call(types.Int2), pgerr.AmbiguousFunction, "function f(smallint) is not unique"},
	} {
		_, err := pick(t, procs, tc.c)
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != tc.code || pe.Message != tc.msg {
			t.Errorf("%s: got %v, want %s %q", Signature(tc.c), err, tc.code, tc.msg)
		}
	}
	// Defaults that make two routines take the same arguments: not unique.
	g1 := mustDefine(t, "CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'select 1'")
	g2 := mustDefine(t, "CREATE FUNCTION f(a int, b text DEFAULT 'x') RETURNS int LANGUAGE sql AS 'select 1'")
	if _, err := pick(t, []*catalog.Proc{g1, g2}, call(types.Int4)); pgerr.Code(err) != pgerr.AmbiguousFunction {
		t.Errorf("defaults overlap: got %v, want 42725", err)
	}
	// A builtin hides a user routine with the same argument types.
	abs := mustDefine(t, "CREATE FUNCTION abs(a int) RETURNS int LANGUAGE sql AS 'select 1'")
	c := &Call{Name: "abs", Args: []CallArg{{Type: types.Int4}}, Location: -1}
	cands := append(BuiltinCandidates(c), Candidates([]*catalog.Proc{abs}, c, func(uint32) int { return 1 })...)
	if got, err := Select(cands, c); err != nil || got.Builtin == nil {
		t.Errorf("abs(integer): got %+v, %v; want the builtin", got, err)
	}
}

func TestResolveVariadicAndPolymorphic(t *testing.T) {
	v := mustDefine(t, "CREATE FUNCTION f(a text, VARIADIC r int[]) RETURNS int LANGUAGE sql AS 'select 1'")
	got, err := pick(t, []*catalog.Proc{v}, call(types.Unknown, types.Int4, types.Int4, types.Int2))
	if err != nil || got.VariadicFrom != 1 || len(got.Types) != 4 || got.Types[3].OID != types.Int4OID {
		t.Fatalf("variadic: %+v %v", got, err)
	}
	if _, err := pick(t, []*catalog.Proc{v}, call(types.Unknown)); pgerr.Code(err) != pgerr.UndefinedFunction {
		t.Errorf("variadic without its arguments: got %v", err)
	}
	intArr, _ := types.ArrayOf(types.Int4)
	kw := call(types.Unknown, intArr)
	kw.Variadic = true
	if got, err := pick(t, []*catalog.Proc{v}, kw); err != nil || got.VariadicFrom != -1 {
		t.Errorf("VARIADIC array: %+v %v", got, err)
	}
	p := mustDefine(t, "CREATE FUNCTION f(anyelement, anyarray) RETURNS anyarray LANGUAGE sql AS 'select $2'")
	if _, err := pick(t, []*catalog.Proc{p}, call(types.Int4, intArr)); err != nil {
		t.Errorf("polymorphic: %v", err)
	}
	if _, err := pick(t, []*catalog.Proc{p}, call(types.Text, intArr)); pgerr.Code(err) != pgerr.UndefinedFunction {
		t.Errorf("inconsistent polymorphic arguments: got %v, want 42883", err)
	}
	b, err := Bind([]types.Type{types.AnyElement, types.AnyArray}, []types.Type{types.Unknown, intArr})
	if err != nil || b.Elem.OID != types.Int4OID {
		t.Fatalf("bind: %+v %v", b, err)
	}
	if r, _ := b.Resolve(types.AnyArray); r.OID != intArr.OID {
		t.Errorf("anyarray resolves to %v", r)
	}
	if _, err := (Binding{}).Resolve(types.AnyElement); pgerr.Code(err) != pgerr.DatatypeMismatch {
		t.Errorf("unbound anyelement: got %v", err)
	}
}

func TestFormat(t *testing.T) {
	p := mustDefine(t, "CREATE FUNCTION f(a int, OUT b text, INOUT c int DEFAULT 3, VARIADIC d int[] DEFAULT '{}') LANGUAGE sql IMMUTABLE STRICT SECURITY DEFINER COST 5 PARALLEL SAFE SET search_path = public, pg_temp AS 'select $function$'")
	p.ArgDefaults = []string{"3", "'{}'::integer[]"}
	if got, want := Arguments(p, false, true), "a integer, OUT b text, INOUT c integer DEFAULT 3, VARIADIC d integer[] DEFAULT '{}'::integer[]"; got != want {
		t.Errorf("arguments:\n got %s\nwant %s", got, want)
	}
	if got, want := IdentityArguments(p), "a integer, OUT b text, INOUT c integer, VARIADIC d integer[]"; got != want {
		t.Errorf("identity arguments: got %s", got)
	}
	want := "CREATE OR REPLACE FUNCTION public.f(a integer, OUT b text, INOUT c integer DEFAULT 3, VARIADIC d integer[] DEFAULT '{}'::integer[])\n" +
		" RETURNS record\n LANGUAGE sql\n IMMUTABLE PARALLEL SAFE STRICT SECURITY DEFINER COST 5\n" +
		" SET search_path TO 'public', 'pg_temp'\nAS $functionx$select $function$$functionx$\n"
	if got := FunctionDef(p, "public"); got != want {
		t.Errorf("functiondef:\n got %q\nwant %q", got, want)
	}
}

func TestUpdateConfig(t *testing.T) {
	cfg := UpdateConfig(nil, ConfigItem{Name: "work_mem", Value: "1MB"})
	cfg = UpdateConfig(cfg, ConfigItem{Name: "search_path", Value: "a, b"})
	cfg = UpdateConfig(cfg, ConfigItem{Name: "work_mem", Value: "2MB"})
	if strings.Join(cfg, ";") != "work_mem=2MB;search_path=a, b" {
		t.Errorf("set: %v", cfg)
	}
	cfg = UpdateConfig(cfg, ConfigItem{Name: "work_mem", Reset: true})
	if strings.Join(cfg, ";") != "search_path=a, b" {
		t.Errorf("reset: %v", cfg)
	}
	if UpdateConfig(cfg, ConfigItem{Reset: true, All: true}) != nil {
		t.Errorf("reset all")
	}
}
