package heap

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Heap tuple header layout (HeapTupleHeaderData), 23 bytes + null bitmap.
const (
	offXmin      = 0
	offXmax      = 4
	offCid       = 8
	offCtid      = 12
	offInfomask2 = 18
	offInfomask  = 20
	offHoff      = 22
	// HeaderSize is SizeofHeapTupleHeader.
	HeaderSize = 23
)

// t_infomask bits.
const (
	HasNull        = 0x0001
	HasVarWidth    = 0x0002
	HasExternal    = 0x0004 // an attribute is a TOAST pointer
	XmaxKeyShrLock = 0x0010
	ComboCid       = 0x0020
	XmaxExclLock   = 0x0040
	XmaxLockOnly   = 0x0080
	XminCommitted  = 0x0100
	XminInvalid    = 0x0200
	XminFrozen     = XminCommitted | XminInvalid
	XmaxCommitted  = 0x0400
	XmaxInvalid    = 0x0800
	XmaxIsMulti    = 0x1000
	HeapUpdated    = 0x2000
)

// t_infomask2 bits.
const (
	NattsMask   = 0x07FF
	KeysUpdated = 0x2000
	HotUpdated  = 0x4000
	HeapOnly    = 0x8000
)

// MaxTuplesPerPage is MaxHeapTuplesPerPage for 8 KiB pages.
const MaxTuplesPerPage = 291

// Tuple is a heap tuple's bytes (header + data); it may alias a page (then
// it is read under the page's content lock) or be a private copy.
type Tuple []byte

func (t Tuple) Xmin() uint32           { return binary.LittleEndian.Uint32(t[offXmin:]) }
func (t Tuple) Xmax() uint32           { return binary.LittleEndian.Uint32(t[offXmax:]) }
func (t Tuple) RawCid() uint32         { return binary.LittleEndian.Uint32(t[offCid:]) }
func (t Tuple) Ctid() page.ItemPointer { return page.GetItemPointer(t[offCtid:]) }
func (t Tuple) Infomask() uint16       { return binary.LittleEndian.Uint16(t[offInfomask:]) }
func (t Tuple) Infomask2() uint16      { return binary.LittleEndian.Uint16(t[offInfomask2:]) }
func (t Tuple) Hoff() int              { return int(t[offHoff]) }
func (t Tuple) Natts() int             { return int(t.Infomask2() & NattsMask) }

// IsHeapOnly reports a HOT tuple (no index entries point at it).
func (t Tuple) IsHeapOnly() bool { return t.Infomask2()&HeapOnly != 0 }

// IsHotUpdated reports that the tuple's successor is a heap-only tuple.
func (t Tuple) IsHotUpdated() bool { return t.Infomask2()&HotUpdated != 0 }

// Form builds a tuple for values (the header's transaction fields are set
// by the caller before it goes on a page).
func Form(ts []datum.Type, vals []datum.Datum) Tuple {
	return NewDeformer(ts).Form(vals)
}

// Deformer forms and decodes the tuples of one row type, with the
// attribute layout worked out once (PostgreSQL's attcacheoff): the heap
// tuple header here, the data area and missing attributes by
// datum.Deformer.
type Deformer struct {
	td *datum.Deformer
}

// WithMissing sets the values of attributes that tuples written before
// the attributes were added do not store (PostgreSQL 11's fast default;
// datum.Deformer.WithMissing).
func (d *Deformer) WithMissing(missing []datum.Datum) *Deformer {
	d.td = d.td.WithMissing(missing)
	return d
}

// NewDeformer prepares a row type.
func NewDeformer(ts []datum.Type) *Deformer { return &Deformer{td: datum.NewDeformer(ts)} }

// NewDeformerFrom wraps an attribute layout (for descriptors whose
// storage differs from their types', as NewDeformerStorage builds).
func NewDeformerFrom(td *datum.Deformer) *Deformer {
	return &Deformer{td: td}
}

// WithDetoaster returns a Deformer like d that fetches external (TOAST)
// values through dt.
func (d *Deformer) WithDetoaster(dt datum.Detoaster) *Deformer {
	c := *d
	c.td = d.td.WithDetoaster(dt)
	return &c
}

// HasExternalValues reports a tuple holding a TOAST pointer.
func (t Tuple) HasExternalValues() bool { return t.Infomask()&HasExternal != 0 }

// Deformer returns the attribute layout (to find TOAST pointers in a
// tuple's data).
func (d *Deformer) Layout() *datum.Deformer { return d.td }

// Data returns the tuple's null bitmap (nil without NULLs) and data area.
func (t Tuple) Data() (bitmap, data []byte) {
	if t.Infomask()&HasNull != 0 {
		bitmap = t[HeaderSize:t.Hoff()]
	}
	return bitmap, t[t.Hoff():]
}

// Form builds a tuple for vals.
func (d *Deformer) Form(vals []datum.Datum) Tuple {
	hasNull, hasExternal := false, false
	for i := range vals {
		if vals[i].IsNull() {
			hasNull = true
		} else if vals[i].IsExternalStored() {
			hasExternal = true
		}
	}
	hoff := HeaderSize
	if hasNull {
		hoff += (len(vals) + 7) / 8
	}
	hoff = page.MaxAlignUp(hoff)
	dataLen := d.td.DataSize(vals)
	t := make(Tuple, hoff+dataLen)
	_, varw := d.td.FillData(t[hoff:], vals)
	var mask uint16
	if hasNull {
		mask |= HasNull
		datum.FillNullBitmap(t[HeaderSize:hoff], vals)
	}
	if varw {
		mask |= HasVarWidth
	}
	if hasExternal {
		mask |= HasExternal
	}
	mask |= XmaxInvalid
	binary.LittleEndian.PutUint16(t[offInfomask:], mask)
	binary.LittleEndian.PutUint16(t[offInfomask2:], uint16(len(vals))&NattsMask)
	t[offHoff] = byte(hoff)
	return t
}

// Deform decodes the first len(out) attributes; attributes the tuple does
// not store (added by a later ALTER TABLE) come back as their missing
// value, or NULL.
func (d *Deformer) Deform(t Tuple, out []datum.Datum) error {
	return d.DeformUpTo(t, out, len(out))
}

// DeformUpTo decodes only the first upTo attributes (a scan that needs only
// leading columns stops early); the rest of out is left untouched.
func (d *Deformer) DeformUpTo(t Tuple, out []datum.Datum, upTo int) error {
	bitmap, data := t.Data()
	return d.td.DeformTuple(data, bitmap, t.Natts(), out, upTo, 0)
}

// DeformSkipping decodes the first upTo attributes except those whose bit
// is set in skip (returned NULL), for callers that need a few columns.
func (d *Deformer) DeformSkipping(t Tuple, out []datum.Datum, upTo int, skip uint64) error {
	bitmap, data := t.Data()
	return d.td.DeformTuple(data, bitmap, t.Natts(), out, upTo, skip)
}
