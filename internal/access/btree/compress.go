package btree

import (
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
)

// Index tuples hold no TOAST pointers (values reach the index detoasted),
// but, as PostgreSQL's index_form_tuple, a key value of a compressible
// type (storage extended or main) whose varlena exceeds TOAST_INDEX_TARGET
// is stored inline compressed when that makes it shorter. Decoding a tuple
// decompresses it again, so comparisons and returned keys see plain values.

// compressKeys returns keys with large values in compressed form (keys
// itself when none is).
func (ix *Index) compressKeys(keys []datum.Datum) []datum.Datum {
	var out []datum.Datum
	for i := range keys {
		d := keys[i]
		if d.IsNull() || d.IsStored() || !ix.lay.compressible[i] || datum.VarlenaSize(d) <= varatt.IndexTarget {
			continue
		}
		m := varatt.PGLZ
		if i < len(ix.opt.KeyCompression) {
			if cm, ok := varatt.MethodByAttCode(ix.opt.KeyCompression[i]); ok {
				m = cm
			}
		}
		cv := varatt.Compress(m, datum.Payload(d))
		if cv == nil {
			continue
		}
		if out == nil {
			out = append([]datum.Datum(nil), keys...)
		}
		out[i] = datum.StoredVarlena(cv)
	}
	if out == nil {
		return keys
	}
	return out
}
