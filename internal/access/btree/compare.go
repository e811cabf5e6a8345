package btree

import "github.com/tidal-db/tidal/internal/datum"

// Key comparison goes through the key columns' comparators
// (datum.Comparator: an operator class's ordering support function, as
// nbtree's BTORDER_PROC), never through the SQL layer's types.
//
// The general path (Index.deform, then Comparator.Compare per column)
// decodes the tuple into Datums, which copies string values out of the
// page. The hot paths (binary search, high-key checks, scans' upper bound,
// the unique check) instead read the tuple's attributes in place
// (datum.Deformer.StoredAttr) and compare each with Comparator.CompareStored, for
// as long as the columns have one: the builtin integer, float, boolean,
// text-like and numeric types. A column without one, a TOAST pointer or a
// compressed value sends the comparison back to the general path; both
// paths order identically (CompareStored agrees with Compare).

// cmpKeysFast compares keys[:n] with the first n key attributes of tuple t
// (which stores at least n) in place, NULLS LAST. ok is false when some
// attribute cannot be compared in place; the caller then uses the general
// path. n must not exceed ix.lay.fast.
func (ix *Index) cmpKeysFast(keys []datum.Datum, t []byte, n int) (c int, ok bool) {
	info := tupInfo(t)
	var bitmap []byte
	start := tupleHeaderSize
	if info&infoHasNulls != 0 {
		bitmap = t[tupleHeaderSize : tupleHeaderSize+nullBitmapSize]
		start = dataOffset(info)
	}
	end := keyEnd(t)
	if end > len(t) {
		end = len(t)
	}
	if start > end {
		return 0, false
	}
	src := t[start:end]
	def, cmps, cached := ix.lay.def, ix.lay.cmps, ix.lay.cached
	off := 0
	for i := 0; i < n; i++ {
		k := &keys[i]
		if bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0 {
			// the stored value is NULL (and takes no space)
			if !k.IsNull() {
				return -1, true
			}
			continue
		}
		var v []byte
		if ca := &cached[i]; bitmap == nil && ca.end > 0 {
			if ca.end > len(src) {
				return 0, false
			}
			v, off = src[ca.off:ca.end], ca.end
		} else {
			var ok bool
			if v, off, ok = def.StoredAttr(src, i, off); !ok {
				return 0, false
			}
		}
		if k.IsNull() {
			return 1, true // a NULL key sorts after a value
		}
		if c := cmps[i].CompareStored(*k, v); c != 0 {
			return c, true
		}
	}
	return 0, true
}

// cmpKeys compares keys[:n] with the first n key attributes of t (which
// stores at least n): negative when the keys sort first, 0 when equal.
func (ix *Index) cmpKeys(keys []datum.Datum, t []byte, n int, scratch []datum.Datum) (int, error) {
	if n == 0 {
		return 0, nil
	}
	if n <= ix.lay.fast {
		if c, ok := ix.cmpKeysFast(keys, t, n); ok {
			return c, nil
		}
	}
	vals := scratch[:n]
	if err := ix.deform(t, vals, n); err != nil {
		return 0, err
	}
	for i := 0; i < n; i++ {
		if c := ix.cmpCol(i, keys[i], vals[i]); c != 0 {
			return c, nil
		}
	}
	return 0, nil
}
