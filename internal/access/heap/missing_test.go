package heap

import (
	"strconv"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
)

// A tuple formed before ALTER TABLE ADD COLUMN stores fewer attributes
// (natts in t_infomask2) than the descriptor it is read with: the extra
// attributes read as their missing value, or NULL without one, whatever
// the decoding entry point.
func TestDeformMissingAttributes(t *testing.T) {
	old := []datum.Type{datum.Int4, datum.Text}
	now := []datum.Type{datum.Int4, datum.Text, datum.Int4, datum.Text, datum.Int8}
	tup := Form(old, []datum.Datum{datum.Int(7), datum.Str("seven")})
	if tup.Natts() != 2 {
		t.Fatalf("natts %d, want 2", tup.Natts())
	}
	missing := []datum.Datum{datum.Null(), datum.Null(), datum.Int(42), datum.Null(), datum.Int(-1)}
	want := []string{"7", "seven", "42", "NULL", "-1"}
	wantNoMissing := []string{"7", "seven", "NULL", "NULL", "NULL"}
	show := func(ts []datum.Type, ds []datum.Datum) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			if d.IsNull() {
				out[i] = "NULL"
			} else if ts[i].OID == datum.TextOID {
				out[i] = d.Str()
			} else {
				out[i] = strconv.FormatInt(d.Int(), 10)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		missing []datum.Datum
		want    []string
	}{
		{"missing values", missing, want},
		{"no missing values", nil, wantNoMissing},
	} {
		d := NewDeformer(now).WithMissing(tc.missing)
		decoders := map[string]func(out []datum.Datum) error{
			"Deform":         func(out []datum.Datum) error { return d.Deform(tup, out) },
			"DeformUpTo":     func(out []datum.Datum) error { return d.DeformUpTo(tup, out, len(out)) },
			"DeformSkipping": func(out []datum.Datum) error { return d.DeformSkipping(tup, out, len(out), 0) },
		}
		for name, dec := range decoders {
			out := make([]datum.Datum, len(now))
			for i := range out {
				out[i] = datum.Int(999) // must be overwritten
			}
			if err := dec(out); err != nil {
				t.Fatalf("%s/%s: %v", tc.name, name, err)
			}
			got := show(now, out)
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("%s/%s: attribute %d = %s, want %s", tc.name, name, i+1, got[i], tc.want[i])
				}
			}
		}
	}
	// A tuple with every attribute ignores the missing values.
	full := Form(now, []datum.Datum{datum.Int(1), datum.Str("one"), datum.Null(), datum.Str("x"), datum.Int(5)})
	out := make([]datum.Datum, len(now))
	if err := NewDeformer(now).WithMissing(missing).Deform(full, out); err != nil {
		t.Fatal(err)
	}
	if got := show(now, out); got[2] != "NULL" || got[4] != "5" {
		t.Errorf("stored attributes: got %v", got)
	}
}
