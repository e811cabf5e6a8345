package datum

import "encoding/binary"

// ReadableInPlace reports whether attribute i's values can be read in
// place (StoredAttr) when they are stored plain: fixed-length
// attributes and plain varlenas, but not cstrings, int2vectors (an array
// header precedes the elements) or arrays (stored as text).
func (d *Deformer) ReadableInPlace(i int) bool {
	a := &d.attrs[i]
	switch {
	case a.len > 0:
		return a.enc != encUnsupported
	case a.len == -1:
		return a.enc == encVarlena
	}
	return false
}

// StoredAttr reads non-NULL attribute i of the data area src in place,
// without decoding or copying it, at data offset off (where the previous
// attribute ended: 0 for the first, NULLs take no space): what a B-tree
// search needs to compare its keys with a stored tuple
// (Comparator.CompareStored). v is, for a fixed-length type, its typlen
// bytes; for a varlena or name, the bytes Deform would put in the Datum's
// string field (the payload without its header; a name up to its NUL); it
// aliases src. next is the offset after the attribute. ok is false when
// the attribute cannot be read in place — a TOAST pointer, a compressed
// value, a type ReadableInPlace refuses, data too short; the caller
// decodes the tuple instead (which reports any corruption).
func (d *Deformer) StoredAttr(src []byte, i, off int) (v []byte, next int, ok bool) {
	a := &d.attrs[i]
	if a.len > 0 {
		off = alignOff(off, a.align)
		end := off + int(a.len)
		if end > len(src) || a.enc == encUnsupported {
			return nil, 0, false
		}
		next = end
		if a.enc == encName {
			n := 0
			for n < NameDataLen && src[off+n] != 0 {
				n++
			}
			end = off + n
		}
		return src[off:end], next, true
	}
	if a.len != -1 || a.enc != encVarlena || off >= len(src) {
		return nil, 0, false
	}
	if src[off] == 0 {
		// padding before an aligned 4-byte header
		off = alignOff(off, a.align)
		if off >= len(src) {
			return nil, 0, false
		}
	}
	var start, end int
	switch b0 := src[off]; {
	case b0 == 0x01: // TOAST pointer
		return nil, 0, false
	case b0&1 == 1:
		start, end = off+1, off+int(b0>>1)
	case b0&3 == 2: // inline compressed
		return nil, 0, false
	default:
		if off+4 > len(src) {
			return nil, 0, false
		}
		n := int(binary.LittleEndian.Uint32(src[off:]) >> 2)
		if n < 4 {
			return nil, 0, false
		}
		start, end = off+4, off+n
	}
	if end > len(src) || start > end {
		return nil, 0, false
	}
	return src[start:end], end, true
}

// CachedAttr returns where attribute i lies in a data area that has no
// NULLs, when that is known without reading the tuple (PostgreSQL's
// attcacheoff: every attribute before it is fixed-length) and its stored
// value is its typlen bytes (not a name, which StoredAttr trims): then
// src[off:off+length] is what StoredAttr would return. ok is false
// otherwise.
func (d *Deformer) CachedAttr(i int) (off, length int, ok bool) {
	if i >= d.nfixed || d.attrs[i].enc == encName || d.attrs[i].enc == encUnsupported {
		return 0, 0, false
	}
	return int(d.cacheOff[i]), int(d.attrs[i].len), true
}
