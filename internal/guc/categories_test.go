package guc

import (
	"strings"
	"testing"
)

// Every parameter tidal defines shows in pg_settings under one of
// PostgreSQL's categories, with a description: a new parameter without
// PostgreSQL's documentation entry needs its own (pgDocs, Def.Desc).
func TestEveryParameterHasCategoryAndDescription(t *testing.T) {
	for _, n := range Names() {
		d, _ := Lookup(n)
		if !d.Shown() {
			continue
		}
		if c := d.Category(); c == "Customized Options" && !strings.Contains(n, ".") {
			t.Errorf("%s: no pg_settings category", n)
		}
		if d.ShortDesc() == "" {
			t.Errorf("%s: no short_desc", n)
		}
	}
}

func TestNamesSortRegardlessOfCase(t *testing.T) {
	names := Names()
	for i := 1; i < len(names); i++ {
		if strings.ToLower(names[i-1]) > strings.ToLower(names[i]) {
			t.Fatalf("%s before %s", names[i-1], names[i])
		}
	}
}

func TestBoundsAsPgSettingsShowsThem(t *testing.T) {
	for _, c := range []struct{ name, lo, hi string }{
		{"work_mem", "64", "2147483647"},
		{"random_page_cost", "0", "1.79769e+308"},
		{"cursor_tuple_fraction", "0", "1"},
		{"jit_above_cost", "-1", "1.79769e+308"},
	} {
		d, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, ok := d.Bounds()
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("%s: bounds %q %q %v, want %q %q", c.name, lo, hi, ok, c.lo, c.hi)
		}
	}
	if d, _ := Lookup("enable_seqscan"); d != nil {
		if _, _, ok := d.Bounds(); ok {
			t.Error("bool parameter has bounds")
		}
	}
}
