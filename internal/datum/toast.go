package datum

import (
	"encoding/binary"
	"unsafe"

	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// TOAST at the datum level.
//
// Values are always detoasted when a tuple is decoded: a Datum holds the
// plain bytes, whatever form they had on disk, so no operator, function or
// output routine ever sees a compressed or external value. What the stored
// form was is remembered in the (otherwise unused) integer field of a
// varlena Datum, so that
//
//   - UPDATE can put an unchanged value's TOAST pointer into the new row
//     version instead of storing the value again (PostgreSQL compares the
//     old and new pointers; here the caller also checks that the new
//     Datum's bytes are the very bytes decoded from the old row),
//   - pg_column_size() and pg_column_compression() report the stored form.
//
// The field holds valueid<<32 | va_extinfo for an external value, and
// VARSIZE | method<<30 for an inline compressed one (valueid 0); 0 for a
// value stored plain or computed. Any function that makes a new string
// makes a new Datum, so the field never outlives the bytes it describes.
//
// The other direction, a Datum holding a varlena in its stored form (an
// inline compressed value or a TOAST pointer, header included), is what the
// toaster hands to Form: FillData copies it verbatim. Such Datums (kind
// KindStored) exist only between the toaster and the tuple former.

// Detoaster fetches the payload of an external TOAST value (decompressed).
// The toast package implements it for a table's TOAST relation.
type Detoaster interface {
	Detoast(p varatt.External) ([]byte, error)
}

// StoredVarlena returns a Datum holding a stored-form varlena (an inline
// compressed value or an 18-byte TOAST pointer), for FillData to copy.
func StoredVarlena(b []byte) Datum {
	if len(b) == 0 {
		panic("datum: empty stored varlena")
	}
	return Datum{s: unsafe.String(&b[0], len(b)), k: KindStored}
}

// IsStored reports a Datum made by StoredVarlena.
func (d Datum) IsStored() bool { return d.k == KindStored }

// StoredBytes returns a stored-form Datum's varlena bytes.
func (d Datum) StoredBytes() []byte {
	if d.k != KindStored || d.s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(d.s), len(d.s))
}

// IsExternalStored reports a stored-form Datum that is a TOAST pointer.
func (d Datum) IsExternalStored() bool { return d.k == KindStored && len(d.s) > 0 && d.s[0] == 0x01 }

// ToastPointer returns the TOAST pointer an external value was read
// through (toastRelID is the table's TOAST relation, which the Datum does
// not record), and ok=false for a value that was not stored externally.
func (d Datum) ToastPointer(toastRelID uint32) (varatt.External, bool) {
	if d.k == KindNull || d.k == KindStored || d.k == KindArray || d.i>>32 == 0 || d.i < 0 {
		return varatt.External{}, false // an array's bytes are not its stored payload: stored again
	}
	return varatt.External{RawSize: int32(len(d.s) + varatt.HdrSz), ExtInfo: uint32(d.i), ValueID: uint32(d.i >> 32), ToastRelID: toastRelID}, true
}

// SameBytes reports whether a and b hold the very same string bytes (one
// was copied from the other), not merely equal ones.
func SameBytes(a, b Datum) bool {
	return len(a.s) == len(b.s) && unsafe.StringData(a.s) == unsafe.StringData(b.s) && a.i == b.i
}

// toastMeta encodes the stored form into a Datum's integer field.
func externalMeta(p varatt.External) int64 { return int64(p.ValueID)<<32 | int64(p.ExtInfo) }

func compressedMeta(v []byte) int64 {
	return int64(uint32(varatt.CompressedSize(v)) | uint32(varatt.CompressedMethod(v))<<30)
}

// StoredSize is pg_column_size() of a varlena value: the bytes it
// occupies where it is stored — its external or inline compressed size
// for a value decoded from such a form, its size with a 1-byte header for
// one decoded from that, else the size of the plain varlena with a 4-byte
// header (a computed value).
func (d Datum) StoredSize() int {
	switch {
	case d.k == KindStored:
		if d.s[0] == 0x01 {
			p, _ := varatt.DecodeExternal([]byte(d.s))
			return p.ExtSize()
		}
		return len(d.s)
	case d.i == shortStored:
		return len(d.s) + 1
	case d.i > 0 && (d.k == KindStr || d.k == KindNumeric || d.k == KindArray):
		return int(d.i & 0x3fffffff) // extsize, or VARSIZE of the compressed form
	}
	return len(d.s) + varatt.HdrSz
}

// StoredMethod is pg_column_compression(): the method a value decoded from
// a tuple was compressed with, ok=false when it was not compressed.
func (d Datum) StoredMethod() (varatt.Method, bool) {
	if (d.k != KindStr && d.k != KindNumeric && d.k != KindArray) || d.i <= 0 {
		return 0, false
	}
	if d.i>>32 != 0 {
		if d.k == KindArray {
			return 0, false // see ColumnCompression
		}
		p, _ := d.ToastPointer(0)
		return p.Method(), p.Compressed()
	}
	return varatt.Method(uint32(d.i) >> 30), true
}

// ColumnCompression is pg_column_compression() of a value of type t: an
// external array value was compressed when its stored size is under its
// text form's (the Datum's bytes are not that payload), otherwise as
// StoredMethod.
func ColumnCompression(t Type, d Datum) (varatt.Method, bool) {
	a := attrOf(t)
	if a.enc == encArrayText && d.k == KindArray && d.i > 0 && d.i>>32 != 0 {
		p := varatt.External{ExtInfo: uint32(d.i), RawSize: int32(payloadLen(&a, &d) + varatt.HdrSz)}
		return p.Method(), p.Compressed()
	}
	return d.StoredMethod()
}

// VarlenaSize is the in-memory varlena size of a value (tai_size): its
// payload plus a 4-byte header, or the stored form's length.
func VarlenaSize(d Datum) int {
	if d.k == KindStored {
		return len(d.s)
	}
	return len(d.s) + varatt.HdrSz
}

// Payload returns the bytes of a varlena value (text, bytea, jsonb,
// numeric…) without copying; the caller must not modify them.
func Payload(d Datum) []byte {
	if d.s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(d.s), len(d.s))
}

// Toastable reports whether values of t are variable-length with a
// storage other than plain (candidates for compression or TOAST).
func Toastable(t Type) bool {
	a := attrOf(t)
	return a.len == -1 && a.packable && a.enc == encVarlena
}

// decodeToasted decodes an attribute in external or compressed form at
// src[off:], returning the Datum and the offset after it.
func decodeToasted(src []byte, off int, a *attr, dt Detoaster, attno int) (Datum, int, error) {
	if src[off] == 0x01 {
		if off+2 > len(src) || src[off+1] != varatt.TagOnDisk {
			return Datum{}, 0, corrupt("unrecognized TOAST pointer in attribute %d", attno)
		}
		end := off + varatt.PointerSize
		if end > len(src) {
			return Datum{}, 0, corrupt("tuple data too short for attribute %d", attno)
		}
		p, err := varatt.DecodeExternal(src[off:end])
		if err != nil {
			return Datum{}, 0, corrupt("%v in attribute %d", err, attno)
		}
		if dt == nil {
			return Datum{}, 0, pgerr.Errorf(pgerr.FeatureNotSupported, "TOAST pointer without a TOAST table (attribute %d)", attno)
		}
		raw, err := dt.Detoast(p)
		if err != nil {
			return Datum{}, 0, err
		}
		return toastedValue(a, raw, externalMeta(p), end, attno)
	}
	if off+varatt.CompHdrSz > len(src) {
		return Datum{}, 0, corrupt("tuple data too short for attribute %d", attno)
	}
	n := int(binary.LittleEndian.Uint32(src[off:]) >> 2)
	end := off + n
	if n < varatt.CompHdrSz || end > len(src) {
		return Datum{}, 0, corrupt("invalid compressed varlena length %d for attribute %d", n, attno)
	}
	raw, err := Decompress(src[off:end])
	if err != nil {
		return Datum{}, 0, err
	}
	return toastedValue(a, raw, compressedMeta(src[off:end]), end, attno)
}

// toastedValue is the Datum of a detoasted payload; an array's payload is
// its stored text form. meta records the stored form (pg_column_size).
func toastedValue(a *attr, raw []byte, meta int64, end, attno int) (Datum, int, error) {
	if a.enc == encArrayText {
		d, err := parseArray(a.arrayOf, string(raw))
		if err != nil {
			return Datum{}, 0, corrupt("invalid array in attribute %d: %v", attno, err)
		}
		d.i = meta
		return d, end, nil
	}
	return Datum{s: bytesString(raw), k: a.kind, i: meta}, end, nil
}

// StoredPayload is the value the toaster compresses or moves out for
// attribute i: an array's stored text form (a string Datum, which the
// tuple former stores as it is), any other value itself.
func (d *Deformer) StoredPayload(i int, v Datum) Datum {
	if i < len(d.attrs) && d.attrs[i].enc == encArrayText && v.k == KindArray {
		return Datum{s: formatArray(d.attrs[i].arrayOf, v), k: KindStr}
	}
	return v
}

// Decompress returns the payload of an inline compressed varlena, with
// PostgreSQL's error for corrupt data.
func Decompress(v []byte) ([]byte, error) {
	raw, err := varatt.Decompress(v)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "%v", err)
	}
	return raw, nil
}

func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ExternalPointers calls fn for every attribute among the first natts of
// the data area src (with null bitmap bitmap, nil without NULLs) that is a
// TOAST pointer, without decoding anything else: what a DELETE or UPDATE
// needs to find the TOAST values an old row version references.
func (d *Deformer) ExternalPointers(src, bitmap []byte, natts int, fn func(attno int, p varatt.External) error) error {
	off := 0
	for i := 0; i < natts && i < len(d.attrs); i++ {
		if bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0 {
			continue
		}
		a := &d.attrs[i]
		switch {
		case a.len > 0:
			off = alignOff(off, a.align) + int(a.len)
		case a.len == -1:
			if off >= len(src) {
				return corrupt("tuple data too short for attribute %d", i+1)
			}
			if src[off] == 0 {
				off = alignOff(off, a.align)
				if off >= len(src) {
					return corrupt("tuple data too short for attribute %d", i+1)
				}
			}
			switch b0 := src[off]; {
			case b0 == 0x01:
				if off+varatt.PointerSize > len(src) {
					return corrupt("tuple data too short for attribute %d", i+1)
				}
				p, err := varatt.DecodeExternal(src[off : off+varatt.PointerSize])
				if err != nil {
					return corrupt("%v in attribute %d", err, i+1)
				}
				if err := fn(i, p); err != nil {
					return err
				}
				off += varatt.PointerSize
			case b0&1 == 1:
				off += int(b0 >> 1)
			default:
				if off+4 > len(src) {
					return corrupt("tuple data too short for attribute %d", i+1)
				}
				off += int(binary.LittleEndian.Uint32(src[off:]) >> 2)
			}
		default:
			for off < len(src) && src[off] != 0 {
				off++
			}
			off++
		}
	}
	return nil
}

// shortStored marks (in the integer field) a value decoded from a 1-byte
// varlena header, for pg_column_size.
const shortStored = int64(-1) << 63

// ColumnSize is pg_column_size() of a value of type t.
func ColumnSize(t Type, d Datum) int {
	a := attrOf(t)
	switch {
	case a.len > 0:
		return int(a.len)
	case a.len == -2 || a.enc == encCString:
		return len(d.s) + 1
	case a.enc == encInt2Vec:
		return payloadLen(&a, &d) + varatt.HdrSz
	case a.enc == encArrayText && d.i == 0:
		return payloadLen(&a, &d) + varatt.HdrSz
	case a.enc == encArrayText && d.i == shortStored:
		return payloadLen(&a, &d) + 1
	}
	return d.StoredSize()
}

// CheckAllocSize applies PostgreSQL's limit on one value (MaxAllocSize,
// 1 GB - 1, header included) to a computed varlena: a result over it
// fails as PostgreSQL's palloc does (XX000 "invalid memory alloc request
// size"), so no value that PostgreSQL could not hold is ever stored.
func CheckAllocSize(d Datum) error {
	if (d.k == KindStr || d.k == KindNumeric) && len(d.s) > varatt.MaxAllocSize-varatt.HdrSz {
		return pgerr.Errorf(pgerr.InternalError, "invalid memory alloc request size %d", len(d.s)+varatt.HdrSz)
	}
	return nil
}
