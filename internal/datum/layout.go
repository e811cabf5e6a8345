package datum

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// On-disk attribute layout: PostgreSQL's heap/index tuple data area.
//
// Offsets are relative to the start of the data area, which the caller
// places at a MAXALIGN (8-byte) boundary, so alignment relative to the data
// start equals PostgreSQL's pointer alignment. NULL attributes take no space
// (the caller keeps the null bitmap). Values are never compressed or
// TOASTed here: a varlena is always stored inline, with a 1-byte header when
// its storage is not 'p' and header+data <= 127 bytes, else with a 4-byte
// header aligned to typalign.

// MaxAlign rounds n up to a multiple of 8 (PostgreSQL's MAXALIGN).
func MaxAlign(n int) int { return (n + 7) &^ 7 }

// BitmapLen is the size in bytes of a null bitmap for natts attributes.
func BitmapLen(natts int) int { return (natts + 7) >> 3 }

func alignOff(off int, align byte) int {
	switch align {
	case 'i':
		return (off + 3) &^ 3
	case 'd':
		return (off + 7) &^ 7
	case 's':
		return (off + 1) &^ 1
	}
	return off
}

type attr struct {
	len      int16
	align    byte
	enc      byte
	packable bool // storage != 'p': may use a 1-byte varlena header
	kind     Kind // Datum kind of decoded values
	arrayOf  OID  // for encArrayText: the array type
}

func attrOf(t Type) attr {
	p := physOf(t.OID)
	a := attr{len: p.layout.Len, align: p.layout.Align, packable: p.layout.Storage != 'p', enc: p.enc, kind: p.kind}
	if p.enc == encArrayText {
		a.arrayOf = t.OID
	}
	return a
}

// int2vector: array header after the varlena header: ndim, dataoffset,
// elemtype, dim1, lbound1.
const int2VecHdr = 20

func payloadLen(a *attr, d *Datum) int {
	switch a.enc {
	case encInt2Vec:
		return int2VecHdr + len(d.s)
	case encArrayText:
		if d.k == KindStr {
			return len(d.s) // already the stored form (StoredPayload)
		}
		return len(formatArray(a.arrayOf, *d))
	}
	return len(d.s)
}

// addAttrSize advances off past one non-NULL attribute (as
// heap_compute_data_size).
func addAttrSize(off int, a *attr, d *Datum) int {
	if d.k == KindStored {
		// A TOAST pointer is unaligned; a compressed value has a
		// 4-byte header, aligned.
		if d.s[0] == 0x01 {
			return off + len(d.s)
		}
		return alignOff(off, a.align) + len(d.s)
	}
	switch {
	case a.len > 0:
		return alignOff(off, a.align) + int(a.len)
	case a.len == -1:
		n := payloadLen(a, d)
		if a.packable && n+1 <= 127 {
			return off + n + 1
		}
		return alignOff(off, a.align) + n + 4
	default: // cstring
		return off + len(d.s) + 1
	}
}

// DataSize returns the size of the data area holding vals (NULLs skipped),
// not including the tuple header or null bitmap.
func DataSize(types []Type, vals []Datum) int {
	off := 0
	for i := range vals {
		if vals[i].k == KindNull {
			continue
		}
		a := attrOf(types[i])
		off = addAttrSize(off, &a, &vals[i])
	}
	return off
}

// fillAttr writes one non-NULL attribute at off (zeroing alignment padding)
// and returns the new offset.
func fillAttr(dst []byte, off int, a *attr, d *Datum) int {
	if d.k == KindStored {
		if d.s[0] != 0x01 {
			al := alignOff(off, a.align)
			clear(dst[off:al])
			off = al
		}
		return off + copy(dst[off:], d.s)
	}
	if a.len != -1 || !a.packable || payloadLen(a, d)+1 > 127 {
		if a.len != -2 {
			al := alignOff(off, a.align)
			for off < al {
				dst[off] = 0
				off++
			}
		}
	}
	switch a.enc {
	case encInt8:
		dst[off] = byte(d.i)
		return off + 1
	case encInt16:
		binary.LittleEndian.PutUint16(dst[off:], uint16(d.i))
		return off + 2
	case encInt32, encUint32:
		binary.LittleEndian.PutUint32(dst[off:], uint32(d.i))
		return off + 4
	case encInt64, encFloat8:
		binary.LittleEndian.PutUint64(dst[off:], uint64(d.i))
		return off + 8
	case encFloat4:
		binary.LittleEndian.PutUint32(dst[off:], math.Float32bits(float32(d.Float())))
		return off + 4
	case encName:
		n := copy(dst[off:off+NameDataLen-1], d.s)
		clear(dst[off+n : off+NameDataLen])
		return off + NameDataLen
	case encCString:
		n := copy(dst[off:], d.s)
		dst[off+n] = 0
		return off + n + 1
	case encTid:
		putTid(dst[off:], *d)
		return off + 6
	case encFixedBytes:
		n := copy(dst[off:off+int(a.len)], d.s)
		clear(dst[off+n : off+int(a.len)])
		return off + int(a.len)
	}
	if a.len > 0 {
		// unsupported fixed-length type: zeros
		clear(dst[off : off+int(a.len)])
		return off + int(a.len)
	}
	n := payloadLen(a, d)
	if a.packable && n+1 <= 127 {
		dst[off] = byte((n+1)<<1 | 1)
		off++
	} else {
		binary.LittleEndian.PutUint32(dst[off:], uint32(n+4)<<2)
		off += 4
	}
	if a.enc == encInt2Vec {
		binary.LittleEndian.PutUint32(dst[off:], 1)                     // ndim
		binary.LittleEndian.PutUint32(dst[off+4:], 0)                   // dataoffset
		binary.LittleEndian.PutUint32(dst[off+8:], Int2OID)             // elemtype
		binary.LittleEndian.PutUint32(dst[off+12:], uint32(len(d.s)/2)) // dim1
		binary.LittleEndian.PutUint32(dst[off+16:], 0)                  // lbound1
		off += int2VecHdr
	}
	if a.enc == encArrayText && d.k != KindStr {
		return off + copy(dst[off:], formatArray(a.arrayOf, *d))
	}
	return off + copy(dst[off:], d.s)
}

// FillData writes the data area for vals into dst[:DataSize(types, vals)]
// (padding bytes are zeroed) and reports whether any value is NULL
// (HEAP_HASNULL) and whether any non-NULL value is variable-length
// (HEAP_HASVARWIDTH).
func FillData(dst []byte, types []Type, vals []Datum) (hasNulls bool, hasVarWidth bool) {
	off := 0
	for i := range vals {
		if vals[i].k == KindNull {
			hasNulls = true
			continue
		}
		a := attrOf(types[i])
		if a.len < 0 {
			hasVarWidth = true
		}
		off = fillAttr(dst, off, &a, &vals[i])
	}
	return
}

// FillNullBitmap sets bit i of bitmap (LSB first) when vals[i] is not NULL
// and clears it otherwise, as PostgreSQL's t_bits. bitmap must hold at
// least BitmapLen(len(vals)) bytes; bits beyond len(vals) in the last byte
// are cleared.
func FillNullBitmap(bitmap []byte, vals []Datum) {
	n := BitmapLen(len(vals))
	clear(bitmap[:n])
	for i := range vals {
		if vals[i].k != KindNull {
			bitmap[i>>3] |= 1 << (i & 7)
		}
	}
}

// AttIsNull reports whether attribute i is NULL according to bitmap
// (nil = no NULLs).
func AttIsNull(bitmap []byte, i int) bool {
	return bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0
}

// formatArray and parseArray are the stored (text) form of an array
// value: array_out and array_in of the SQL layer.
func formatArray(t OID, d Datum) string {
	if typeSystem == nil {
		panic("datum: an array value is stored without the SQL type system")
	}
	return typeSystem.FormatArray(Type{t, -1}, d)
}

func parseArray(t OID, s string) (Datum, error) {
	if typeSystem == nil {
		return Datum{}, corrupt("array value of type %d read without the SQL type system", t)
	}
	return typeSystem.ParseArray(Type{t, -1}, s)
}

func corrupt(format string, args ...any) error {
	return pgerr.Errorf(pgerr.DataCorrupted, format, args...)
}

// Deformer decodes tuples of one descriptor. Build it once per tuple
// descriptor with NewDeformer; it caches the offsets of the leading
// fixed-length attributes (PostgreSQL's attcacheoff). A Deformer is
// immutable and safe for concurrent use.
type Deformer struct {
	types    []Type
	attrs    []attr
	cacheOff []int32 // fixed offset of attribute i, or -1
	nfixed   int     // attributes [0, nfixed) have cached offsets
	// dt fetches external values; nil where there is no TOAST relation
	// (index tuples, catalogs), so a TOAST pointer there is an error.
	dt Detoaster
	// missing holds, per attribute, the value a tuple that stores fewer
	// attributes reads for it (pg_attribute.attmissingval); nil, or a
	// NULL entry, means NULL.
	missing []Datum
}

// WithMissing returns a Deformer like d for which a tuple written before
// attributes were added (storing fewer attributes than the descriptor)
// reads missing[i] for each attribute i it does not store, NULL without
// one: PostgreSQL 11's fast default for ALTER TABLE ADD COLUMN.
func (d *Deformer) WithMissing(missing []Datum) *Deformer {
	c := *d
	c.missing = missing
	return &c
}

// DeformTuple decodes attributes [0, upTo) of a tuple that stores natts
// attributes (its header's count) into out: the stored ones from the data
// area src (null bitmap bitmap, nil without NULLs), skipping those whose
// bit is set in skip as DeformSkipping does, the others as their missing
// value (WithMissing) or NULL. upTo is clamped to len(out); the rest of
// out is left untouched. Every table access method's deform is this after
// reading its own tuple header.
func (d *Deformer) DeformTuple(src, bitmap []byte, natts int, out []Datum, upTo int, skip uint64) error {
	upTo = min(upTo, len(out))
	n := min(natts, upTo, len(d.attrs))
	var err error
	if skip == 0 {
		err = d.Deform(src, bitmap, out, n)
	} else {
		err = d.DeformSkipping(src, bitmap, out, n, skip)
	}
	if err != nil {
		return err
	}
	for i := n; i < upTo; i++ {
		if i < len(d.missing) {
			out[i] = d.missing[i]
		} else {
			out[i] = Datum{}
		}
	}
	return nil
}

// WithDetoaster returns a Deformer like d that fetches external values
// through dt.
func (d *Deformer) WithDetoaster(dt Detoaster) *Deformer {
	c := *d
	c.dt = dt
	return &c
}

// NewDeformer prepares a Deformer for a tuple descriptor.
func NewDeformer(types []Type) *Deformer { return NewDeformerStorage(types, nil) }

// NewDeformerStorage is NewDeformer for columns whose storage
// (pg_attribute.attstorage: 'p', 'm', 'x' or 'e') may differ from their
// type's: storage[i] 0 keeps the type's. A column with storage 'p' never
// gets a 1-byte header (PostgreSQL's TOAST tables store their chunks so).
func NewDeformerStorage(types []Type, storage []byte) *Deformer {
	d := &Deformer{types: append([]Type(nil), types...), attrs: make([]attr, len(types)), cacheOff: make([]int32, len(types))}
	off := 0
	cacheable := true
	for i, t := range types {
		d.attrs[i] = attrOf(t)
		a := &d.attrs[i]
		if i < len(storage) && storage[i] != 0 && a.len == -1 {
			a.packable = storage[i] != 'p'
		}
		if cacheable && a.len > 0 {
			off = alignOff(off, a.align)
			d.cacheOff[i] = int32(off)
			off += int(a.len)
			d.nfixed = i + 1
		} else {
			cacheable = false
			d.cacheOff[i] = -1
		}
	}
	return d
}

// Types returns the descriptor's types.
func (d *Deformer) Types() []Type { return d.types }

// DeformSkipping is Deform that does not decode the attributes whose bit
// is set in skip (they come back NULL): a caller that needs one column
// behind a text column does not pay for copying the text.
func (d *Deformer) DeformSkipping(src []byte, bitmap []byte, out []Datum, upTo int, skip uint64) error {
	if upTo > len(out) {
		upTo = len(out)
	}
	if upTo > len(d.attrs) {
		upTo = len(d.attrs)
	}
	return deformSkip(src, bitmap, d.attrs[:upTo], out[:upTo], 0, 0, skip, d.dt)
}

// DataSize is DataSize for this descriptor.
func (d *Deformer) DataSize(vals []Datum) int {
	off := 0
	for i := range vals {
		if vals[i].k == KindNull {
			continue
		}
		off = addAttrSize(off, &d.attrs[i], &vals[i])
	}
	return off
}

// FillData is FillData for this descriptor.
func (d *Deformer) FillData(dst []byte, vals []Datum) (hasNulls bool, hasVarWidth bool) {
	off := 0
	for i := range vals {
		if vals[i].k == KindNull {
			hasNulls = true
			continue
		}
		a := &d.attrs[i]
		if a.len < 0 {
			hasVarWidth = true
		}
		off = fillAttr(dst, off, a, &vals[i])
	}
	return
}

// Deform decodes attributes [0, upTo) of the data area src into out[:upTo]
// (upTo is clamped to len(out) and the number of attributes). bitmap is the
// tuple's null bitmap, nil when the tuple has no NULLs. Attributes the
// tuple does not store (natts smaller than the descriptor) must not be
// requested: the caller sets them NULL. String values are copied out of src
// (one allocation per tuple).
func (d *Deformer) Deform(src []byte, bitmap []byte, out []Datum, upTo int) error {
	if upTo > len(out) {
		upTo = len(out)
	}
	if upTo > len(d.attrs) {
		upTo = len(d.attrs)
	}
	i, off := 0, 0
	if bitmap == nil {
		// fast path over the leading fixed-length attributes
		n := min(upTo, d.nfixed)
		for ; i < n; i++ {
			o := int(d.cacheOff[i])
			a := &d.attrs[i]
			if o+int(a.len) > len(src) {
				return corrupt("tuple data too short for attribute %d", i+1)
			}
			if a.enc == encName {
				break // needs the string path
			}
			out[i] = decodeFixed(src[o:], a)
			off = o + int(a.len)
		}
	}
	if i == upTo {
		return nil
	}
	return deformSkip(src, bitmap, d.attrs[:upTo], out[:upTo], i, off, 0, d.dt)
}

// DeformData decodes len(out) leading attributes of the data area src (see
// Deformer.Deform, which is faster when called repeatedly).
func DeformData(src []byte, types []Type, bitmap []byte, out []Datum) error {
	n := len(out)
	if n > len(types) {
		return corrupt("more attributes requested (%d) than types given (%d)", n, len(types))
	}
	var buf [16]attr
	var attrs []attr
	if n <= len(buf) {
		attrs = buf[:n]
	} else {
		attrs = make([]attr, n)
	}
	for i := range attrs {
		attrs[i] = attrOf(types[i])
	}
	return deformSkip(src, bitmap, attrs, out, 0, 0, 0, nil)
}

func decodeFixed(p []byte, a *attr) Datum {
	switch a.enc {
	case encInt8:
		return Datum{i: int64(p[0]), k: a.kind}
	case encInt16:
		return Datum{i: int64(int16(binary.LittleEndian.Uint16(p))), k: KindInt}
	case encInt32:
		return Datum{i: int64(int32(binary.LittleEndian.Uint32(p))), k: KindInt}
	case encUint32:
		return Datum{i: int64(binary.LittleEndian.Uint32(p)), k: KindInt}
	case encInt64, encFloat8:
		return Datum{i: int64(binary.LittleEndian.Uint64(p)), k: a.kind}
	case encFloat4:
		return Float(float64(math.Float32frombits(binary.LittleEndian.Uint32(p))))
	case encTid:
		return getTid(p)
	case encFixedBytes:
		return Datum{s: string(p[:a.len]), k: KindStr}
	}
	return Datum{}
}

type span struct {
	idx        int32
	start, end int32
}

// deformSkip decodes attributes [i, len(attrs)) starting at data offset
// off, stepping over (not decoding) the attributes whose bit is set in
// skip; they come back as NULL. Compressed and external values are
// detoasted (external ones through dt).
func deformSkip(src []byte, bitmap []byte, attrs []attr, out []Datum, i, off int, skip uint64, dt Detoaster) error {
	var spanBuf [16]span
	spans := spanBuf[:0]
	total := 0
	for ; i < len(attrs); i++ {
		if bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0 {
			out[i] = Datum{}
			continue
		}
		a := &attrs[i]
		var start, end int
		var meta int64
		switch {
		case a.len > 0:
			off = alignOff(off, a.align)
			if off+int(a.len) > len(src) {
				return corrupt("tuple data too short for attribute %d", i+1)
			}
			if a.enc != encName {
				out[i] = decodeFixed(src[off:], a)
				off += int(a.len)
				continue
			}
			start, end = off, off
			for end < off+NameDataLen && src[end] != 0 {
				end++
			}
			off += NameDataLen
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
			b0 := src[off]
			if b0 == 1 || b0&3 == 2 {
				if i < 64 && skip&(1<<uint(i)) != 0 {
					// Step over without fetching or decompressing.
					n := varatt.PointerSize
					if b0 != 1 {
						if off+4 > len(src) {
							return corrupt("tuple data too short for attribute %d", i+1)
						}
						n = int(binary.LittleEndian.Uint32(src[off:]) >> 2)
					}
					out[i] = Datum{}
					off += n
					continue
				}
				d, next, err := decodeToasted(src, off, a, dt, i+1)
				if err != nil {
					return err
				}
				out[i] = d
				off = next
				continue
			}
			if b0&1 == 1 {
				n := int(b0 >> 1)
				start, end = off+1, off+n
				meta = shortStored // for pg_column_size
			} else {
				if off+4 > len(src) {
					return corrupt("tuple data too short for attribute %d", i+1)
				}
				n := int(binary.LittleEndian.Uint32(src[off:]) >> 2)
				if n < 4 {
					return corrupt("invalid varlena length %d for attribute %d", n, i+1)
				}
				start, end = off+4, off+n
			}
			if end > len(src) {
				return corrupt("tuple data too short for attribute %d", i+1)
			}
			off = end
			if a.enc == encInt2Vec {
				if end-start < int2VecHdr {
					return corrupt("invalid int2vector for attribute %d", i+1)
				}
				start += int2VecHdr
			}
		default: // cstring
			start, end = off, off
			for end < len(src) && src[end] != 0 {
				end++
			}
			if end >= len(src) {
				return corrupt("unterminated cstring in attribute %d", i+1)
			}
			off = end + 1
		}
		k := a.kind
		if i < 64 && skip&(1<<uint(i)) != 0 {
			out[i] = Datum{}
			continue
		}
		if a.enc == encArrayText {
			d, err := parseArray(a.arrayOf, string(src[start:end]))
			if err != nil {
				return corrupt("invalid array in attribute %d: %v", i+1, err)
			}
			d.i = meta // for pg_column_size
			out[i] = d
			continue
		}
		if len(spans) < cap(spans) {
			out[i] = Datum{k: k, i: meta}
			spans = append(spans, span{int32(i), int32(start), int32(end)})
			total += end - start
		} else {
			out[i] = Datum{s: string(src[start:end]), k: k, i: meta}
		}
	}
	if total > 0 {
		buf := make([]byte, total)
		p := 0
		for _, sp := range spans {
			n := copy(buf[p:], src[sp.start:sp.end])
			if n > 0 {
				out[sp.idx].s = unsafe.String(&buf[p], n)
				p += n
			}
		}
	}
	return nil
}

// putTid and getTid are the on-disk ItemPointerData: the block as two
// uint16 halves (high first), then the offset.
func putTid(dst []byte, d Datum) {
	blk, off := TidParts(d)
	binary.LittleEndian.PutUint16(dst, uint16(blk>>16))
	binary.LittleEndian.PutUint16(dst[2:], uint16(blk))
	binary.LittleEndian.PutUint16(dst[4:], off)
}

func getTid(p []byte) Datum {
	blk := uint32(binary.LittleEndian.Uint16(p))<<16 | uint32(binary.LittleEndian.Uint16(p[2:]))
	return TidDatum(blk, binary.LittleEndian.Uint16(p[4:]))
}
