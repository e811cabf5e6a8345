package types

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestArrayShapesText(t *testing.T) {
	ia, _ := ArrayOf(Int4)
	ta, _ := ArrayOf(Text)
	for _, tc := range []struct {
		t       Type
		in, out string
		dims    []int
	}{
		{ia, "{{1,2,3},{4,5,6}}", "{{1,2,3},{4,5,6}}", []int{2, 3}},
		{ia, "[0:2]={1,2,3}", "[0:2]={1,2,3}", []int{3}},
		{ia, "[1:3]={1,2,3}", "{1,2,3}", []int{3}},
		{ia, " [-1:0][2:2] = { {1} , {2} } ", "[-1:0][2:2]={{1},{2}}", []int{2, 1}},
		{ia, "{{{1}}}", "{{{1}}}", []int{1, 1, 1}},
		{ta, `{{" a ",b\ },{"",NULL}}`, `{{" a ","b "},{"",NULL}}`, []int{2, 2}},
		{ta, `{ x  y ,\NULL}`, `{"x  y","NULL"}`, []int{2}},
	} {
		d, err := Parse(tc.t, tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := FormatText(tc.t, d); got != tc.out {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.out)
		}
		if dims, _ := d.ArrayDims(); !sameInts(dims, tc.dims) {
			t.Errorf("%q: dims %v, want %v", tc.in, dims, tc.dims)
		}
		bin := AppendBinary(nil, tc.t, d)
		back, err := ParseBinary(tc.t, bin)
		if err != nil || FormatText(tc.t, back) != tc.out {
			t.Errorf("%q: binary round trip gives %s, %v", tc.in, FormatText(tc.t, back), err)
		}
	}
}

func TestArrayTextErrors(t *testing.T) {
	ta, _ := ArrayOf(Text)
	for _, tc := range []struct{ in, code, detail string }{
		{"{{1,{2}},{2,3}}", pgerr.InvalidTextRepresentation, `Unexpected "{" character.`},
		{"{{},{}}", pgerr.InvalidTextRepresentation, `Unexpected "}" character.`},
		{`{{1,2},\{2,3}}`, pgerr.InvalidTextRepresentation, `Unexpected "\" character.`},
		{`{{"1 2" x},{3}}`, pgerr.InvalidTextRepresentation, "Unexpected array element."},
		{"{}}", pgerr.InvalidTextRepresentation, "Junk after closing right brace."},
		{"{ }}", pgerr.InvalidTextRepresentation, "Junk after closing right brace."},
		{"{{1,2},{3}}", pgerr.InvalidTextRepresentation, "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{"{1,2", pgerr.InvalidTextRepresentation, "Unexpected end of input."},
		{"1,2", pgerr.InvalidTextRepresentation, `Array value must start with "{" or dimension information.`},
		{"[1:2]={1}", pgerr.InvalidTextRepresentation, "Specified array dimensions do not match array contents."},
		{"[1:2]{1,2}", pgerr.InvalidTextRepresentation, `Missing "=" after array dimensions.`},
		{"[2:1]={}", pgerr.ArraySubscriptError, ""},
		{"{{{{{{{1}}}}}}}", pgerr.ProgramLimitExceeded, ""},
	} {
		_, err := Parse(ta, tc.in)
		pe := pgerr.From(err)
		if err == nil || pe.Code != tc.code || (tc.detail != "" && pe.Detail != tc.detail) {
			t.Errorf("%q: got %v (detail %q), want %s %q", tc.in, err, pe.Detail, tc.code, tc.detail)
		}
	}
}

func mustArray(t *testing.T, typ Type, s string) Datum {
	t.Helper()
	d, err := Parse(typ, s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return d
}

func TestArrayCatShapes(t *testing.T) {
	ia, _ := ArrayOf(Int4)
	for _, tc := range []struct{ a, b, want string }{
		{"{1,2}", "{3}", "{1,2,3}"},
		{"{{1,2}}", "{3,4}", "{{1,2},{3,4}}"},
		{"{3,4}", "{{1,2}}", "{{3,4},{1,2}}"},
		{"[0:1]={1,2}", "{3}", "[0:2]={1,2,3}"},
		{"{}", "[5:5]={1}", "[5:5]={1}"},
	} {
		got, err := ArrayCat(mustArray(t, ia, tc.a), mustArray(t, ia, tc.b))
		if err != nil || FormatText(ia, got) != tc.want {
			t.Errorf("%s || %s = %s, %v; want %s", tc.a, tc.b, FormatText(ia, got), err, tc.want)
		}
	}
	_, err := ArrayCat(mustArray(t, ia, "{{1,2}}"), mustArray(t, ia, "{1,2,3}"))
	if pgerr.From(err).Code != pgerr.ArraySubscriptError {
		t.Errorf("incompatible concatenation: %v", err)
	}
}

func TestArrayCompareShapes(t *testing.T) {
	ia, _ := ArrayOf(Int4)
	a, b := mustArray(t, ia, "{1,2}"), mustArray(t, ia, "[0:1]={1,2}")
	if Compare(ia, a, b) == 0 || Equal(ia, a, b) {
		t.Error("arrays with different lower bounds compare equal")
	}
	if Compare(ia, mustArray(t, ia, "{{1,2}}"), mustArray(t, ia, "{1,2}")) <= 0 {
		t.Error("a 2-D array sorts after a 1-D array with the same elements")
	}
	if Compare(ia, mustArray(t, ia, "{1,NULL}"), mustArray(t, ia, "{1,2}")) <= 0 {
		t.Error("NULL elements sort last")
	}
}

func TestArrayResolvePolymorphic(t *testing.T) {
	ia, _ := ArrayOf(Int4)
	i8a, _ := ArrayOf(Int8)
	ta, _ := ArrayOf(Text)
	for _, tc := range []struct {
		op       string
		l, r     Type
		wantLeft Type
	}{
		{"||", ia, Int4, ia},
		{"||", ia, Int8, i8a},
		{"||", Unknown, Int4, Text}, // 'a' || 1 is text concatenation
		{"||", ta, Unknown, ta},
	} {
		f, err := LookupOperator(tc.op, tc.l, tc.r)
		if err != nil {
			t.Errorf("%s %s %s: %v", tc.l, tc.op, tc.r, err)
			continue
		}
		if f.Args[0].OID != tc.wantLeft.OID {
			t.Errorf("%s %s %s resolved to %s", tc.l, tc.op, tc.r, f.Args[0])
		}
	}
}
