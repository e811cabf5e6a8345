package btree

import (
	"math/rand"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// BenchmarkCompareKeys measures the in-place comparison of search keys
// with a stored tuple (the binary search's inner step).
func BenchmarkCompareKeys(b *testing.B) {
	for _, tc := range []struct {
		name  string
		types []datum.Type
		keys  []datum.Datum
	}{
		{"int4", []datum.Type{datum.Int4}, []datum.Datum{datum.Int(12345)}},
		{"int4-int8", []datum.Type{datum.Int4, datum.Int8}, []datum.Datum{datum.Int(7), datum.Int(12345)}},
		{"text", []datum.Type{datum.Text}, []datum.Datum{datum.Str("c4ca4238a0b923820dcc509a6f75849b")}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ix := Open(&Env{}, 1, Options{Name: "bench", KeyTypes: tc.types})
			t := ix.formTuple(tc.keys, page.ItemPointer{Block: 1, Offset: 1})
			scratch := make([]datum.Datum, len(tc.keys))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if c, err := ix.cmpKeys(tc.keys, t, len(tc.keys), scratch); c != 0 || err != nil {
					b.Fatal(c, err)
				}
			}
		})
	}
}

// BenchmarkBuildRandomInt4 is CREATE INDEX over 100,000 int4 keys in
// random order: the sort's comparisons through the column's comparator
// dominate.
func BenchmarkBuildRandomInt4(b *testing.B) {
	te := newTestEnv(b, 4096)
	keys := rand.New(rand.NewSource(1)).Perm(100000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bld := NewBuilder(te.env, smgr.RelFileNumber(1000+i), int4Opts("bench"))
		for j, k := range keys {
			if err := bld.Add([]datum.Datum{datum.Int(int64(k))}, tidOf(j)); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bld.Finish(nil, 1); err != nil {
			b.Fatal(err)
		}
	}
}
