package heap

import (
	"testing"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// A tuple formed before ALTER TABLE ADD COLUMN stores fewer attributes
// (natts in t_infomask2) than the descriptor it is read with: the extra
// attributes read as their missing value, or NULL without one, whatever
// the decoding entry point.
func TestDeformMissingAttributes(t *testing.T) {
	old := []types.Type{types.Int4, types.Text}
	now := []types.Type{types.Int4, types.Text, types.Int4, types.Text, types.Int8}
	tup := Form(old, []types.Datum{types.Int(7), types.Str("seven")})
	if tup.Natts() != 2 {
		t.Fatalf("natts %d, want 2", tup.Natts())
	}
	missing := []types.Datum{types.Null(), types.Null(), types.Int(42), types.Null(), types.Int(-1)}
	want := []string{"7", "seven", "42", "NULL", "-1"}
	wantNoMissing := []string{"7", "seven", "NULL", "NULL", "NULL"}
	show := func(ts []types.Type, ds []types.Datum) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			if d.IsNull() {
				out[i] = "NULL"
			} else {
				out[i] = types.FormatText(ts[i], d)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		missing []types.Datum
		want    []string
	}{
		{"missing values", missing, want},
		{"no missing values", nil, wantNoMissing},
	} {
		d := NewDeformer(now).WithMissing(tc.missing)
		decoders := map[string]func(out []types.Datum) error{
			"Deform":         func(out []types.Datum) error { return d.Deform(tup, out) },
			"DeformUpTo":     func(out []types.Datum) error { return d.DeformUpTo(tup, out, len(out)) },
			"DeformSkipping": func(out []types.Datum) error { return d.DeformSkipping(tup, out, len(out), 0) },
		}
		for name, dec := range decoders {
			out := make([]types.Datum, len(now))
			for i := range out {
				out[i] = types.Int(999) // must be overwritten
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
	full := Form(now, []types.Datum{types.Int(1), types.Str("one"), types.Null(), types.Str("x"), types.Int(5)})
	out := make([]types.Datum, len(now))
	if err := NewDeformer(now).WithMissing(missing).Deform(full, out); err != nil {
		t.Fatal(err)
	}
	if got := show(now, out); got[2] != "NULL" || got[4] != "5" {
		t.Errorf("stored attributes: got %v", got)
	}
}
