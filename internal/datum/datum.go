package datum

import (
	"encoding/binary"
	"math"
)

// Kind is how a Datum holds its value. Datums do not carry their SQL
// type; the kind says which field holds the value and how the generic
// code paths (array elements, ordering by kind) read it.
type Kind uint8

const (
	KindNull  Kind = iota // SQL NULL: the zero Datum
	KindInt               // integer field: int2, int4, int8, oid, "char", date, time, tid, xid, cid, regtype
	KindFloat             // integer field holds the float64 bits: float4, float8
	KindBool              // integer field 0 or 1
	KindStr               // string field: text-like types, bytea, uuid, interval, json, jsonb
	KindTime              // integer field, microseconds: timestamp, timestamptz
	KindVec               // string field, little-endian int16s: int2vector

	KindArray   Kind = 100 // string field, the encoded elements (Array, Elems)
	KindNumeric Kind = 101 // string field, PostgreSQL's numeric payload (base-10000 digits)
	// KindStored: string field holding a varlena in its stored form, header
	// included (an inline compressed value or a TOAST pointer); such Datums
	// exist only between the toaster and the tuple former (StoredVarlena).
	KindStored Kind = 102
)

// Datum is one SQL value. The zero value is SQL NULL. A Datum is 32
// bytes and never allocates for numbers, booleans or timestamps. Values
// held in the string field are never modified: a function that makes a
// new value makes a new Datum.
type Datum struct {
	s string
	i int64 // ints, float bits, bool 0/1, timestamps; for varlenas the stored form (toast.go)
	k Kind
}

// Null returns the SQL NULL (the zero Datum).
func Null() Datum { return Datum{} }

// Int returns an integer datum (int2, int4, int8, oid, "char").
func Int(v int64) Datum { return Datum{i: v, k: KindInt} }

// Float returns a float4/float8 datum.
func Float(v float64) Datum { return Datum{i: int64(math.Float64bits(v)), k: KindFloat} }

// Bool returns a boolean datum.
func Bool(b bool) Datum {
	if b {
		return Datum{i: 1, k: KindBool}
	}
	return Datum{k: KindBool}
}

// Str returns a datum for text, varchar, bpchar, name, unknown (the string)
// or bytea (the raw bytes).
func Str(s string) Datum { return Datum{s: s, k: KindStr} }

// TimestampMicros returns a timestamp datum: microseconds since
// 2000-01-01 00:00:00 (math.MinInt64/MaxInt64 are -infinity/infinity).
func TimestampMicros(us int64) Datum { return Datum{i: us, k: KindTime} }

// StrOfKind returns a datum of kind k held in the string field (numeric
// payloads, encoded arrays, int2vectors).
func StrOfKind(k Kind, s string) Datum { return Datum{s: s, k: k} }

// IntOfKind returns a datum of kind k held in the integer field.
func IntOfKind(k Kind, v int64) Datum { return Datum{i: v, k: k} }

// Int2Vector returns an int2vector datum.
func Int2Vector(v []int16) Datum {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return Datum{s: string(b), k: KindVec}
}

// TidDatum returns the tid (block, offset), held as block<<16 | offset so
// that integer order is TID order.
func TidDatum(block uint32, offset uint16) Datum {
	return Datum{i: int64(block)<<16 | int64(offset), k: KindInt}
}

// TidParts returns the block and offset of a tid datum.
func TidParts(d Datum) (uint32, uint16) { return uint32(d.i >> 16), uint16(d.i & 0xFFFF) }

// IsNull reports whether d is SQL NULL.
func (d Datum) IsNull() bool { return d.k == KindNull }

// Kind returns how d holds its value.
func (d Datum) Kind() Kind { return d.k }

// Int returns the integer field: the value of an integer datum (and, for
// other kinds, the raw field: float bits, bool 0/1, microseconds).
func (d Datum) Int() int64 { return d.i }

// Float returns the value of a float datum.
func (d Datum) Float() float64 { return math.Float64frombits(uint64(d.i)) }

// Bool returns the value of a boolean datum.
func (d Datum) Bool() bool { return d.i != 0 }

// Str returns the string field: the string (or bytea bytes) of a string
// datum, a numeric's payload, an array's encoded elements.
func (d Datum) Str() string { return d.s }

// Micros returns the microseconds of a timestamp datum.
func (d Datum) Micros() int64 { return d.i }

// Int2Vector returns the elements of an int2vector datum (a new slice).
func (d Datum) Int2Vector() []int16 {
	v := make([]int16, len(d.s)/2)
	for i := range v {
		v[i] = int16(uint16(d.s[2*i]) | uint16(d.s[2*i+1])<<8)
	}
	return v
}
