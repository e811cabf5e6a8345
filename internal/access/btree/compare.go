package btree

import (
	"cmp"
	"encoding/binary"
	"math"
	"strings"
	"unsafe"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// Allocation-free comparison of search keys against stored tuples.
//
// The general path (Index.deform, then types.Compare per column) decodes
// the tuple into Datums, which copies string values out of the page. The
// hot paths (binary search, high-key checks, scans' upper bound, the unique
// check) instead walk the tuple's data area in place, column by column,
// for as long as the columns have a "fast" kind: fixed-width integers,
// floats and booleans, the text-like types, which compare bytewise
// (tidal's only collation is C), and numeric, whose stored payload
// types.CompareNumeric reads in place. The walk follows the attribute layout of
// types.FillData (alignment, 1- and 4-byte varlena headers, NULLs taking
// no space), and decodes each value exactly as types.Deformer does, so both
// paths order identically. A column of any other type, a TOAST pointer or a
// compressed value sends the comparison back to the general path.

// colKind is how a key column is compared in place.
type colKind uint8

const (
	ckGeneral colKind = iota // decode to a Datum (types.Compare)
	ckUint8                  // bool, "char": 1 byte, unsigned
	ckInt16                  // int2
	ckInt32                  // int4
	ckUint32                 // oid
	ckInt64                  // int8, timestamp, timestamptz
	ckFloat4                 // float4 (compared as float8, as decoded)
	ckFloat8                 // float8
	ckBytes                  // text, varchar, bytea: varlena, bytewise
	ckBpchar                 // bpchar: varlena, bytewise ignoring trailing spaces
	ckName                   // name: NUL-padded 64 bytes, bytewise
	ckNumeric                // numeric: varlena, types.CompareNumeric on the payload
)

// colDesc describes one key column for the in-place walk.
type colDesc struct {
	kind  colKind
	len   int // > 0 fixed width; -1 varlena
	align int // 1, 2, 4 or 8
}

func newColDesc(t types.Type) colDesc {
	l := t.Layout()
	c := colDesc{len: int(l.Len), align: 1}
	switch l.Align {
	case 's':
		c.align = 2
	case 'i':
		c.align = 4
	case 'd':
		c.align = 8
	}
	switch t.OID {
	case types.BoolOID, types.CharOID:
		c.kind = ckUint8
	case types.Int2OID:
		c.kind = ckInt16
	case types.Int4OID:
		c.kind = ckInt32
	case types.OidOID:
		c.kind = ckUint32
	case types.Int8OID, types.TimestampOID, types.TimestamptzOID:
		c.kind = ckInt64
	case types.Float4OID:
		c.kind = ckFloat4
	case types.Float8OID:
		c.kind = ckFloat8
	case types.TextOID, types.VarcharOID, types.ByteaOID:
		c.kind = ckBytes
	case types.BpcharOID:
		c.kind = ckBpchar
	case types.NameOID:
		c.kind = ckName
	case types.NumericOID:
		c.kind = ckNumeric
	}
	// Guard against a layout that does not match what the walk expects.
	switch c.kind {
	case ckUint8:
		if c.len != 1 {
			c.kind = ckGeneral
		}
	case ckInt16:
		if c.len != 2 {
			c.kind = ckGeneral
		}
	case ckInt32, ckUint32, ckFloat4:
		if c.len != 4 {
			c.kind = ckGeneral
		}
	case ckInt64, ckFloat8:
		if c.len != 8 {
			c.kind = ckGeneral
		}
	case ckBytes, ckBpchar, ckNumeric:
		if c.len != -1 {
			c.kind = ckGeneral
		}
	case ckName:
		if c.len != types.NameDataLen {
			c.kind = ckGeneral
		}
	}
	return c
}

func alignUp(off, a int) int { return (off + a - 1) &^ (a - 1) }

// bytesString views b as a string without copying; the result must not
// outlive b's current contents (it is only compared).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// cmpKeysFast compares keys[:n] with the first n key attributes of tuple t
// (which stores at least n) in place, NULLS LAST. ok is false when some
// attribute cannot be compared in place; the caller then uses the general
// path. n must not exceed ix.lay.fast.
func (ix *Index) cmpKeysFast(keys []types.Datum, t []byte, n int) (c int, ok bool) {
	info := tupInfo(t)
	var bitmap []byte
	start := tupleHeaderSize
	if info&infoHasNulls != 0 {
		bitmap = t[tupleHeaderSize : tupleHeaderSize+nullBitmapSize]
		start = dataOffset(info)
	}
	end := int(info & infoSizeMask)
	if end > len(t) {
		end = len(t)
	}
	if start > end {
		return 0, false
	}
	src := t[start:end]
	off := 0
	cols := ix.lay.cols
	for i := 0; i < n; i++ {
		k := &keys[i]
		if bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0 {
			// the stored value is NULL (and takes no space)
			if !k.IsNull() {
				return -1, true
			}
			continue
		}
		cd := &cols[i]
		var vs string // value of a string-like column
		if cd.len > 0 {
			off = alignUp(off, cd.align)
			if off+cd.len > len(src) {
				return 0, false
			}
		} else {
			// varlena (see types' deform)
			if off >= len(src) {
				return 0, false
			}
			if src[off] == 0 {
				off = alignUp(off, cd.align)
				if off >= len(src) {
					return 0, false
				}
			}
			b0 := src[off]
			var s, e int
			if b0&1 == 1 {
				if b0 == 1 {
					return 0, false // TOAST pointer: let the general path report it
				}
				s, e = off+1, off+int(b0>>1)
			} else {
				if b0&3 == 2 || off+4 > len(src) {
					return 0, false
				}
				l := int(binary.LittleEndian.Uint32(src[off:]) >> 2)
				if l < 4 {
					return 0, false
				}
				s, e = off+4, off+l
			}
			if e > len(src) || s > e {
				return 0, false
			}
			vs = bytesString(src[s:e])
			off = e
		}
		if k.IsNull() {
			return 1, true // NULL key sorts after a value
		}
		p := src[off:]
		switch cd.kind {
		case ckUint8:
			c = cmp.Compare(k.Int(), int64(p[0]))
		case ckInt16:
			c = cmp.Compare(k.Int(), int64(int16(binary.LittleEndian.Uint16(p))))
		case ckInt32:
			c = cmp.Compare(k.Int(), int64(int32(binary.LittleEndian.Uint32(p))))
		case ckUint32:
			c = cmp.Compare(k.Int(), int64(binary.LittleEndian.Uint32(p)))
		case ckInt64:
			c = cmp.Compare(k.Int(), int64(binary.LittleEndian.Uint64(p)))
		case ckFloat4:
			c = types.CompareFloat(k.Float(), float64(math.Float32frombits(binary.LittleEndian.Uint32(p))))
		case ckFloat8:
			c = types.CompareFloat(k.Float(), math.Float64frombits(binary.LittleEndian.Uint64(p)))
		case ckName:
			e := 0
			for e < types.NameDataLen && p[e] != 0 {
				e++
			}
			c = strings.Compare(k.Str(), bytesString(p[:e]))
		case ckBytes:
			c = strings.Compare(k.Str(), vs)
		case ckBpchar:
			c = strings.Compare(types.TrimBlankPadding(k.Str()), types.TrimBlankPadding(vs))
		case ckNumeric:
			c = types.CompareNumeric(k.Str(), vs)
		default:
			return 0, false
		}
		if cd.len > 0 {
			off += cd.len
		}
		if c != 0 {
			return c, true
		}
	}
	return 0, true
}

// cmpKeys compares keys[:n] with the first n key attributes of t (which
// stores at least n): negative when the keys sort first, 0 when equal.
func (ix *Index) cmpKeys(keys []types.Datum, t []byte, n int, scratch []types.Datum) (int, error) {
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
