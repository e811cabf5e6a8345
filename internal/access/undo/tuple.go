package undo

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// HeaderSize is the undo tuple header: a 40-bit undo pointer, natts with
// three layout flags, and one byte of change flags (README "Tuple header").
const HeaderSize = 8

// Layout bits, in the 16-bit word at offset 5 above the attribute count.
const (
	nattsMask   = 0x07FF
	HasNull     = 0x0800
	HasVarWidth = 0x1000
	HasExternal = 0x2000
)

// Change flags, byte 7: what the change at the tuple's urp did.
const (
	FlagDeleted = 0x01 // the change deleted the row
	FlagMoved   = 0x02 // … by an update that put the new version elsewhere
	FlagLocked  = 0x04 // the change only locked the row
	FlagInplace = 0x08 // the change updated the row in place
)

// MaxTuplesPerPage caps line pointers per page, as the heap's.
const MaxTuplesPerPage = 291

// Tuple is an undo tuple's bytes: header, null bitmap, data. A Tuple handed
// out by this package is always a private copy.
type Tuple []byte

// URP returns the undo record of the tuple's latest change (0: none).
func (t Tuple) URP() URP { return getURP(t[0:]) }

func (t Tuple) setURP(u URP) { putURP(t[0:], u) }

func (t Tuple) layout() uint16 { return binary.LittleEndian.Uint16(t[5:]) }

// Natts is the number of attributes stored.
func (t Tuple) Natts() int { return int(t.layout() & nattsMask) }

// Flags are the change flags.
func (t Tuple) Flags() uint8 { return t[7] }

func (t Tuple) setFlags(f uint8) { t[7] = f }

// IsDeleted reports a row deleted by the tuple's latest change.
func (t Tuple) IsDeleted() bool { return t[7]&FlagDeleted != 0 }

// HasExternalValues reports a TOAST pointer among the values.
func (t Tuple) HasExternalValues() bool { return t.layout()&HasExternal != 0 }

// Hoff is where the data area starts.
func (t Tuple) Hoff() int {
	if t.layout()&HasNull == 0 {
		return HeaderSize
	}
	return page.MaxAlignUp(HeaderSize + (t.Natts()+7)/8)
}

// Data returns the null bitmap (nil without NULLs) and the data area.
func (t Tuple) Data() (bitmap, data []byte) {
	h := t.Hoff()
	if t.layout()&HasNull != 0 {
		bitmap = t[HeaderSize:h]
	}
	return bitmap, t[h:]
}

// Deformer forms and decodes the tuples of one row type. It is immutable.
type Deformer struct {
	td *datum.Deformer
	n  int
	// missing holds, per attribute, what tuples formed before the
	// attribute was added read (pg_attribute.attmissingval); nil: NULL.
	missing []datum.Datum
}

// WithMissing returns d reading missing values for absent attributes.
func (d *Deformer) WithMissing(missing []datum.Datum) *Deformer {
	c := *d
	c.missing = missing
	return &c
}

// WithDetoaster returns d fetching external values through dt.
func (d *Deformer) WithDetoaster(dt datum.Detoaster) *Deformer {
	c := *d
	c.td = d.td.WithDetoaster(dt)
	return &c
}

// Layout is the attribute layout.
func (d *Deformer) Layout() *datum.Deformer { return d.td }

// NewDeformer prepares a row type.
func NewDeformer(ts []datum.Type) *Deformer {
	return &Deformer{td: datum.NewDeformer(ts), n: len(ts)}
}

// NewDeformerFrom wraps an attribute layout built elsewhere.
func NewDeformerFrom(td *datum.Deformer) *Deformer { return &Deformer{td: td, n: len(td.Types())} }

// Form builds a tuple for vals with no undo pointer and no flags.
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
		hoff = page.MaxAlignUp(HeaderSize + (len(vals)+7)/8)
	}
	t := make(Tuple, hoff+d.td.DataSize(vals))
	_, varw := d.td.FillData(t[hoff:], vals)
	lay := uint16(len(vals)) & nattsMask
	if hasNull {
		lay |= HasNull
		datum.FillNullBitmap(t[HeaderSize:hoff], vals)
	}
	if varw {
		lay |= HasVarWidth
	}
	if hasExternal {
		lay |= HasExternal
	}
	binary.LittleEndian.PutUint16(t[5:], lay)
	return t
}

// Deform decodes the tuple's attributes into out; attributes it does not
// store (added later) come back as their missing value or NULL.
func (d *Deformer) Deform(t Tuple, out []datum.Datum) error { return d.DeformUpTo(t, out, len(out)) }

// DeformUpTo decodes only the first upTo attributes.
func (d *Deformer) DeformUpTo(t Tuple, out []datum.Datum, upTo int) error {
	return d.DeformSkipping(t, out, upTo, 0)
}

// DeformSkipping decodes the first upTo attributes except those whose bit
// is set in skip (they come back NULL).
func (d *Deformer) DeformSkipping(t Tuple, out []datum.Datum, upTo int, skip uint64) error {
	upTo = min(upTo, len(out))
	// One read of the layout word: a sequential scan's qual decodes a
	// column or two of every row through here.
	lay := t.layout()
	n := min(int(lay&nattsMask), upTo, d.n)
	var bitmap, data []byte
	if lay&HasNull == 0 {
		data = t[HeaderSize:]
	} else {
		bitmap, data = t.Data()
	}
	var err error
	if skip == 0 {
		err = d.td.Deform(data, bitmap, out, n)
	} else {
		err = d.td.DeformSkipping(data, bitmap, out, n, skip)
	}
	if err != nil {
		return err
	}
	for i := n; i < upTo; i++ {
		out[i] = datum.Null()
		if i < len(d.missing) {
			out[i] = d.missing[i]
		}
	}
	return nil
}
