package btree

import (
	"cmp"
	"math/rand"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/tuplesort"
)

// TestBuildAbbreviations: an abbreviated key never contradicts the
// column's order (a < b by key implies a < b), and equal values have
// equal keys, for integer and text first columns.
func TestBuildAbbreviations(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	str := func() datum.Datum {
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = byte(rng.Intn(4)) // zero bytes and shared prefixes
		}
		return datum.Str(string(b))
	}
	for _, tc := range []struct {
		typ  datum.Type
		gen  func() datum.Datum
		name string
	}{
		{datum.Int4, func() datum.Datum { return datum.Int(int64(rng.Intn(200) - 100)) }, "int4"},
		{datum.Int8, func() datum.Datum { return datum.Int(rng.Int63() - rng.Int63()) }, "int8"},
		{datum.Text, str, "text"},
	} {
		c := datum.DefaultComparator(tc.typ)
		ab := abbreviator(c)
		if ab == nil {
			t.Fatalf("%s: no abbreviation", tc.name)
		}
		for i := 0; i < 20000; i++ {
			a, b := tc.gen(), tc.gen()
			ka, _ := ab(tuplesort.Tuple{a})
			kb, _ := ab(tuplesort.Tuple{b})
			order := c.Compare(a, b)
			if k := cmp.Compare(ka, kb); k != 0 && k != order {
				t.Fatalf("%s: %v vs %v: keys order %d, values %d", tc.name, a, b, k, order)
			}
			if order == 0 && ka != kb {
				t.Fatalf("%s: equal values %v, %v with keys %x, %x", tc.name, a, b, ka, kb)
			}
		}
	}
	if abbreviator(datum.DefaultComparator(datum.Float8)) != nil {
		t.Error("float8 abbreviated (-0 = 0 and NaN need care)")
	}
}
