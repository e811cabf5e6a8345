package types

import (
	"encoding/binary"
	"math"
)

type kind uint8

const (
	kNull kind = iota
	kInt
	kFloat
	kBool
	kStr
	kTime
	kVec
)

// Datum is one SQL value. The zero value is SQL NULL. See the package
// documentation for how each type is represented. A Datum is 32 bytes and
// never allocates for numbers, booleans or timestamps.
type Datum struct {
	s string
	i int64 // ints, float bits, bool 0/1, timestamps
	k kind
}

// Null returns the SQL NULL (the zero Datum).
func Null() Datum { return Datum{} }

// Int returns an integer datum (int2, int4, int8, oid, "char").
func Int(v int64) Datum { return Datum{i: v, k: kInt} }

// Float returns a float4/float8 datum.
func Float(v float64) Datum { return Datum{i: int64(math.Float64bits(v)), k: kFloat} }

// Bool returns a boolean datum.
func Bool(b bool) Datum {
	if b {
		return Datum{i: 1, k: kBool}
	}
	return Datum{k: kBool}
}

// Str returns a datum for text, varchar, bpchar, name, unknown (the string)
// or bytea (the raw bytes).
func Str(s string) Datum { return Datum{s: s, k: kStr} }

// TimestampMicros returns a timestamp datum: microseconds since
// 2000-01-01 00:00:00 (math.MinInt64/MaxInt64 are -infinity/infinity).
func TimestampMicros(us int64) Datum { return Datum{i: us, k: kTime} }

// Int2Vector returns an int2vector datum.
func Int2Vector(v []int16) Datum {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return Datum{s: string(b), k: kVec}
}

// IsNull reports whether d is SQL NULL.
func (d Datum) IsNull() bool { return d.k == kNull }

// Int returns the value of an integer datum.
func (d Datum) Int() int64 { return d.i }

// Float returns the value of a float datum.
func (d Datum) Float() float64 { return math.Float64frombits(uint64(d.i)) }

// Bool returns the value of a boolean datum.
func (d Datum) Bool() bool { return d.i != 0 }

// Str returns the string (or bytea bytes) of a string datum.
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

// Timestamp infinities, as PostgreSQL's DT_NOBEGIN / DT_NOEND.
const (
	TimestampNegInfinity int64 = math.MinInt64
	TimestampInfinity    int64 = math.MaxInt64
)

// Kind returns d's representation kind.
func (d Datum) Kind() kind { return d.k }

// StrOfKind returns a datum of kind k held in the string field.
func StrOfKind(k kind, s string) Datum { return Datum{s: s, k: k} }

// IntOfKind returns a datum of kind k held in the integer field.
func IntOfKind(k kind, v int64) Datum { return Datum{i: v, k: k} }
