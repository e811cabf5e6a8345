package types

import (
	"math"

	"github.com/tidal-db/tidal/internal/datum"
)

// Values, type ids and the on-disk attribute layout are package datum's
// (the layer below the access methods); this package gives them their SQL
// behaviour. The names below keep the SQL layer's code unchanged.

// Datum is one SQL value (datum.Datum). The zero value is SQL NULL.
type Datum = datum.Datum

type kind = datum.Kind

const (
	kNull   = datum.KindNull
	kInt    = datum.KindInt
	kFloat  = datum.KindFloat
	kBool   = datum.KindBool
	kStr    = datum.KindStr
	kTime   = datum.KindTime
	kVec    = datum.KindVec
	kArr    = datum.KindArray
	kNum    = datum.KindNumeric
	kStored = datum.KindStored
)

// Null returns the SQL NULL (the zero Datum).
func Null() Datum { return Datum{} }

// Int returns an integer datum (int2, int4, int8, oid, "char").
func Int(v int64) Datum { return datum.Int(v) }

// Float returns a float4/float8 datum.
func Float(v float64) Datum { return datum.Float(v) }

// Bool returns a boolean datum.
func Bool(b bool) Datum { return datum.Bool(b) }

// Str returns a datum for text, varchar, bpchar, name, unknown (the string)
// or bytea (the raw bytes).
func Str(s string) Datum { return datum.Str(s) }

// TimestampMicros returns a timestamp datum: microseconds since
// 2000-01-01 00:00:00 (math.MinInt64/MaxInt64 are -infinity/infinity).
func TimestampMicros(us int64) Datum { return datum.TimestampMicros(us) }

// Int2Vector returns an int2vector datum.
func Int2Vector(v []int16) Datum { return datum.Int2Vector(v) }

// StrOfKind returns a datum of kind k held in the string field.
func StrOfKind(k kind, s string) Datum { return datum.StrOfKind(k, s) }

// IntOfKind returns a datum of kind k held in the integer field.
func IntOfKind(k kind, v int64) Datum { return datum.IntOfKind(k, v) }

// Array returns an array datum holding elems.
func Array(elems []Datum) Datum { return datum.Array(elems) }

// TidDatum returns the tid (block, offset).
func TidDatum(block uint32, offset uint16) Datum { return datum.TidDatum(block, offset) }

// TidParts returns the block and offset of a tid datum.
func TidParts(d Datum) (uint32, uint16) { return datum.TidParts(d) }

// Timestamp infinities, as PostgreSQL's DT_NOBEGIN / DT_NOEND.
const (
	TimestampNegInfinity int64 = math.MinInt64
	TimestampInfinity    int64 = math.MaxInt64
)

// The on-disk attribute layout (datum's).
type (
	Layout    = datum.Layout
	Deformer  = datum.Deformer
	Detoaster = datum.Detoaster
)

// MaxAlign rounds n up to a multiple of 8 (PostgreSQL's MAXALIGN).
func MaxAlign(n int) int { return datum.MaxAlign(n) }

// BitmapLen is the size in bytes of a null bitmap for natts attributes.
func BitmapLen(natts int) int { return datum.BitmapLen(natts) }

// DataSize returns the size of the data area holding vals.
func DataSize(types []Type, vals []Datum) int { return datum.DataSize(types, vals) }

// FillData writes the data area for vals (see datum.FillData).
func FillData(dst []byte, types []Type, vals []Datum) (hasNulls bool, hasVarWidth bool) {
	return datum.FillData(dst, types, vals)
}

// FillNullBitmap sets the null bitmap for vals (see datum.FillNullBitmap).
func FillNullBitmap(bitmap []byte, vals []Datum) { datum.FillNullBitmap(bitmap, vals) }

// AttIsNull reports whether attribute i is NULL according to bitmap.
func AttIsNull(bitmap []byte, i int) bool { return datum.AttIsNull(bitmap, i) }

// NewDeformer prepares a Deformer for a tuple descriptor.
func NewDeformer(types []Type) *Deformer { return datum.NewDeformer(types) }

// NewDeformerStorage is NewDeformer with per-column storage.
func NewDeformerStorage(types []Type, storage []byte) *Deformer {
	return datum.NewDeformerStorage(types, storage)
}

// DeformData decodes len(out) leading attributes of the data area src.
func DeformData(src []byte, types []Type, bitmap []byte, out []Datum) error {
	return datum.DeformData(src, types, bitmap, out)
}

// StoredVarlena returns a Datum holding a stored-form varlena.
func StoredVarlena(b []byte) Datum { return datum.StoredVarlena(b) }

// SameBytes reports whether a and b hold the very same string bytes.
func SameBytes(a, b Datum) bool { return datum.SameBytes(a, b) }

// VarlenaSize is the in-memory varlena size of a value (tai_size).
func VarlenaSize(d Datum) int { return datum.VarlenaSize(d) }

// Payload returns the bytes of a varlena value without copying.
func Payload(d Datum) []byte { return datum.Payload(d) }

// Toastable reports whether values of t are candidates for compression or TOAST.
func Toastable(t Type) bool { return datum.Toastable(t) }

// Decompress returns the payload of an inline compressed varlena.
func Decompress(v []byte) ([]byte, error) { return datum.Decompress(v) }

// CheckAllocSize applies PostgreSQL's limit on one value (MaxAllocSize).
func CheckAllocSize(d Datum) error { return datum.CheckAllocSize(d) }
