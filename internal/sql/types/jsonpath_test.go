package types

import (
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Canonical text of jsonpath input, as PostgreSQL 15's jsonpath_out
// prints it (cases from its jsonpath regression test).
func TestJSONPathOut(t *testing.T) {
	cases := []struct{ in, out string }{
		{"$", "$"},
		{"strict $", "strict $"},
		{"lax $", "$"},
		{"$.a", `$."a"`},
		{`$."a\"b"`, `$."a\"b"`},
		{"$.a.v", `$."a"."v"`},
		{"$.a.*", `$."a".*`},
		{"$.*[*]", "$.*[*]"},
		{"$.a[*]", `$."a"[*]`},
		{"$[*][0]", "$[*][0]"},
		{"$.a[1,2 to 3, last - 1]", `$."a"[1,2 to 3,last - 1]`},
		{"$.**{2 to last}", "$.**{2 to last}"},
		{"$.**{last}", "$.**{last}"},
		{"$.**{0 to last}", "$.**"},
		{"$.a ? (@ > 1 && @ < 5)", `$."a"?(@ > 1 && @ < 5)`},
		{"$ == 1", "($ == 1)"},
		{"1 + 2 * 3", "(1 + 2 * 3)"},
		{"(1 + 2) * 3", "((1 + 2) * 3)"},
		{"-$.a", `(-$."a")`},
		{"- -1", "1"},
		{"$.g ? (exists (@.x))", `$."g"?(exists (@."x"))`},
		{"$ ? (!(@ == 1))", "$?(!(@ == 1))"},
		{"$ ? ((@ == 1) is unknown)", "$?((@ == 1) is unknown)"},
		{`$ ? (@ like_regex "a" flag "ix")`, "error"},
		{`$ ? (@ like_regex "a" flag "qi")`, `$?(@ like_regex "a" flag "iq")`},
		{`$ ? (@ starts with "x")`, `$?(@ starts with "x")`},
		{"1 + ($.a.b > 2).c.d", `(1 + ($."a"."b" > 2)."c"."d")`},
		{"$.a.type()", `$."a".type()`},
		{"$.datetime()", "$.datetime()"},
		{`$.datetime("HH24")`, `$.datetime("HH24")`},
		{"1.e3", "1000"},
		{"1.5", "1.5"},
		{"$var", `$"var"`},
		{`$.foo\x50\u0067\u{53}`, `$."fooPgS"`},
		{"1a", "error"},
		{"00", "error"},
		{"1.type()", "error"},
		{"@", "error"},
		{"last", "error"},
		{"$ && $", "error"},
		{"", "error"},
		{`"\ud83d"`, "error"},
	}
	for _, c := range cases {
		p, err := parseJSONPath(c.in)
		got := "error"
		if err == nil {
			got = p.String()
		}
		if got != c.out {
			t.Errorf("jsonpath %q: got %q, want %q (err %v)", c.in, got, c.out, err)
		}
	}
}

func runPath(t *testing.T, doc, path string) (string, error) {
	t.Helper()
	p, err := parseJSONPath(path)
	if err != nil {
		t.Fatalf("parse %q: %v", path, err)
	}
	d, err := parseJSONB(doc)
	if err != nil {
		t.Fatalf("doc %q: %v", doc, err)
	}
	res, err := runJSONPath(p, jsonbOf(d.Str()), nil)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, r := range res {
		parts = append(parts, string(appendJSONB(nil, r)))
	}
	return strings.Join(parts, " | "), nil
}

// Lax and strict evaluation (results as PostgreSQL 15 gives them).
func TestJSONPathEval(t *testing.T) {
	cases := []struct{ doc, path, want string }{
		{`{"a": [1, 2, 3]}`, "$.a[*] ? (@ >= 2)", "2 | 3"},
		{`{"a": [1, 2, 3]}`, "$.a[last]", "3"},
		{`{"a": [1, 2, 3]}`, "$.a[0 to 1]", "1 | 2"},
		{`{"a": [1, 2, 3]}`, "$.a.size()", "3"},
		{`[{"a": 1}, {"a": 2}]`, "$.a", "1 | 2"},           // lax unwraps arrays for .key
		{`{"a": 1}`, "$[0].a", "1"},                        // lax wraps scalars for [0]
		{`{"a": 1}`, "$.b", ""},                            // lax ignores a missing key
		{`{"a": {"b": [1, {"c": 2}]}}`, "$.**.c", "2 | 2"}, // lax: the array and its element both give c
		{`{"a": 2}`, "$.a * 3 + 1", "7"},
		{`{"a": 1}`, "$.a == 1", "true"},
		{`{"a": "x"}`, "$.a == 1", "null"}, // not comparable: unknown
		{`{"a": null}`, "$.a != 1", "true"},
		{`[1, "a", null]`, "$[*].type()", `"number" | "string" | "null"`},
		{`{"s": "abc"}`, `$.s like_regex "B" flag "i"`, "true"},
		{`-1.5`, "$.abs().floor()", "1"},
		{`"1.5"`, "$.double()", "1.5"},
		{`{"a": 1}`, "exists($.b)", "false"},
		{`{"s": "ab\nadc"}`, `$.s like_regex "^ab.*c" flag "m"`, "false"}, // m without s: . stops at newlines
		{`{"s": "ab\nadc"}`, `$.s like_regex "^ab.*c" flag "s"`, "true"},
	}
	for _, c := range cases {
		got, err := runPath(t, c.doc, c.path)
		if err != nil || got != c.want {
			t.Errorf("%s on %s: got %q (err %v), want %q", c.path, c.doc, got, err, c.want)
		}
	}
	errs := []struct{ doc, path, code string }{
		{`{"a": 1}`, "strict $.b", "2203A"},
		{`{"a": 1}`, "strict $[0]", "22039"},
		{`[1, 2]`, "strict $[5]", "22033"},
		{`[1, 2]`, "$ + 1", "22038"},
		{`1`, "$ / 0", "22012"},
		{`{"a": "x"}`, "$.a.abs()", "22036"},
		{`{}`, "$x", "42704"},
	}
	for _, c := range errs {
		_, err := runPath(t, c.doc, c.path)
		if se, ok := err.(jpSoftError); ok {
			err = se.err
		}
		if pgerr.Code(err) != c.code {
			t.Errorf("%s on %s: got %v, want SQLSTATE %s", c.path, c.doc, err, c.code)
		}
	}
}

func jsonbOfText(t *testing.T, s string) *jsonVal {
	t.Helper()
	d, err := parseJSONB(s)
	if err != nil {
		t.Fatal(err)
	}
	return jsonbOf(d.Str())
}

// setPath's operations: jsonb_set, jsonb_insert, #- and subscript
// assignment (fill gaps), as PostgreSQL 15's setPath.
func TestSetPath(t *testing.T) {
	cases := []struct {
		doc  string
		path []string
		val  string
		op   pathOp
		want string
	}{
		{`{"a": [1, 2]}`, []string{"a", "1"}, `9`, pathCreate, `{"a": [1, 9]}`},
		{`{"a": [1, 2]}`, []string{"a", "5"}, `9`, pathCreate, `{"a": [1, 2, 9]}`},
		{`{"a": [1, 2]}`, []string{"a", "-5"}, `9`, pathCreate, `{"a": [9, 1, 2]}`},
		{`{"a": [1, 2]}`, []string{"b"}, `9`, pathReplace, `{"a": [1, 2]}`},
		{`{"a": [1, 2]}`, []string{"a", "0"}, `9`, pathInsertBefore, `{"a": [9, 1, 2]}`},
		{`{"a": [1, 2]}`, []string{"a", "0"}, `9`, pathInsertAfter, `{"a": [1, 9, 2]}`},
		{`{"a": [1, 2]}`, []string{"a", "0"}, ``, pathDelete, `{"a": [2]}`},
		{`{"a": 1}`, []string{"b", "c", "1"}, `9`, pathCreate | pathFillGaps, `{"a": 1, "b": {"c": [null, 9]}}`},
		{`[]`, []string{"2"}, `9`, pathCreate | pathFillGaps, `[null, null, 9]`},
		{`[1]`, []string{"3"}, `9`, pathCreate | pathFillGaps, `[1, null, null, 9]`},
	}
	for _, c := range cases {
		var path []Datum
		for _, p := range c.path {
			path = append(path, Str(p))
		}
		var nv *jsonVal
		if c.val != "" {
			nv = jsonbOfText(t, c.val)
		}
		r, err := setPath(jsonbOfText(t, c.doc), path, 0, nv, c.op)
		if err != nil {
			t.Errorf("%s %v: %v", c.doc, c.path, err)
			continue
		}
		if got := string(appendJSONB(nil, r)); got != c.want {
			t.Errorf("%s %v op %d: got %s, want %s", c.doc, c.path, c.op, got, c.want)
		}
	}
	if _, err := setPath(jsonbOfText(t, `{"a": 1}`), []Datum{Str("a"), Str("b")}, 0, jsonbOfText(t, "1"), pathCreate|pathFillGaps); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("assigning below a scalar: got %v, want 22023", err)
	}
	if _, err := setPath(jsonbOfText(t, `{"a": 1}`), []Datum{Str("a")}, 0, jsonbOfText(t, "1"), pathInsertBefore); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("jsonb_insert over a key: got %v, want 22023", err)
	}
}

// JSON aggregates' text layout (json) and normalization (jsonb).
func TestJSONAggResult(t *testing.T) {
	vals := []Datum{Int(1), Datum{}, Int(3)}
	keys := []Datum{Str("b"), Str("a"), Str("b")}
	check := func(name, want string) {
		t.Helper()
		d, err := JSONAggResult(nil, name, Text, Int4, keys, vals)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Str()
		if JSONAggResultType(name).OID == JSONBOID {
			got = string(jsonbText(nil, got))
		}
		if got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	check("json_agg", "[1, null, 3]")
	check("jsonb_agg", "[1, null, 3]")
	check("json_object_agg", `{ "b" : 1, "a" : null, "b" : 3 }`)
	check("jsonb_object_agg", `{"a": null, "b": 3}`)
}

// silent => true keeps the items found before a soft error
// (jsonb_path_query_first('[{"a": 1}, {}]', 'strict $[*].a', silent => true) is 1).
func TestJSONPathSilentPartial(t *testing.T) {
	doc, _ := parseJSONB(`[{"a": 1}, {"a": 2}, {}]`)
	path, _ := parseJSONPathDatum("strict $[*].a")
	vars, _ := parseJSONB("{}")
	res, ok, err := jsonPathCall([]Datum{doc, path, vars, Bool(true)})
	if err != nil || ok || len(res) != 2 || res[0].str != "1" {
		t.Fatalf("got %v ok=%v err=%v, want [1 2] and not ok", res, ok, err)
	}
	if _, _, err := jsonPathCall([]Datum{doc, path, vars, Bool(false)}); pgerr.Code(err) != "2203A" {
		t.Fatalf("not silent: got %v, want 2203A", err)
	}
}
