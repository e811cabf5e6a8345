package types

import "testing"

func TestArrayTextRoundTrip(t *testing.T) {
	ta, _ := ArrayOf(Text)
	ia, _ := ArrayOf(Int4)
	for _, tc := range []struct {
		t       Type
		in, out string
	}{
		{ia, "{1,2,3}", "{1,2,3}"},
		{ia, " { 1 , NULL } ", "{1,NULL}"},
		{ia, "{}", "{}"},
		{ta, `{a,"b c","",NULL,"null","x\"y","a\\b",{}}`, ""},
		{ta, `{a,"b c","","NULL",x}`, `{a,"b c","","NULL",x}`},
		{ta, `{"q\"r","s\\t"}`, `{"q\"r","s\\t"}`},
	} {
		d, err := Parse(tc.t, tc.in)
		if tc.out == "" {
			if err == nil {
				t.Errorf("%q: want error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := FormatText(tc.t, d); got != tc.out {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.out)
		}
	}
	if _, err := Parse(ia, "{1,x}"); err == nil {
		t.Error("{1,x}::int[] should fail")
	}
	na, _ := ArrayOf(Name)
	arr, _ := Parse(na, "{pg_catalog,public}")
	pos, err := LookupFunction("array_position", []Type{na, Name})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := pos.Fn([]Datum{arr, Str("public")}); p.Int() != 2 {
		t.Errorf("array_position = %v", p)
	}
	if Compare(ia, Array([]Datum{Int(1), Int(2)}), Array([]Datum{Int(1), Int(3)})) >= 0 {
		t.Error("array order")
	}
}
