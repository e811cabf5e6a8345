package btree

import (
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
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
