package types

import (
	"cmp"
	"math"
	"math/bits"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
)

// Compare returns -1, 0 or +1 ordering a before, equal to or after b in the
// type's default btree order. Neither value may be NULL: the caller orders
// NULLs (PostgreSQL: NULLS LAST for ASC). Text-like types compare bytewise
// (C collation); bpchar ignores trailing spaces; float NaN sorts after every
// other value and equals itself, -0 equals 0; oid compares unsigned.
func Compare(t Type, a, b Datum) int {
	switch t.OID {
	case Int4OID, Int8OID, Int2OID, TimestampOID, TimestamptzOID, BoolOID, OidOID, CharOID:
		// oid and "char" are stored as non-negative int64, so signed order is right
		return cmpInt(a.Int(), b.Int())
	case TextOID, VarcharOID, NameOID, ByteaOID, UnknownOID:
		return strings.Compare(a.Str(), b.Str())
	case BpcharOID:
		return strings.Compare(TrimBlankPadding(a.Str()), TrimBlankPadding(b.Str()))
	case Float8OID, Float4OID:
		return CompareFloat(a.Float(), b.Float())
	case Int2VectorOID:
		return datum.CompareInt2Vector(a.Str(), b.Str())
	case NumericOID:
		return CompareNumeric(a.Str(), b.Str())
	case RecordOID:
		return compareRecords(a, b)
	}
	if c, ok := compareNewType(t, a, b); ok {
		return c
	}
	if IsUserType(t) && !isEnumDatum(a) {
		return compareRecords(a, b) // a composite value
	}
	if a.Kind() == kArr {
		return compareArrays(t, a, b)
	}
	return compareByKind(a, b)
}

func compareByKind(a, b Datum) int { return datum.CompareByKind(a, b) }

func cmpInt(a, b int64) int { return cmp.Compare(a, b) }

// CompareFloat is PostgreSQL's float8_cmp_internal (datum.CompareFloat).
func CompareFloat(a, b float64) int { return datum.CompareFloat(a, b) }

// TrimBlankPadding drops a bpchar value's trailing spaces, which are not
// significant in comparisons.
func TrimBlankPadding(s string) string { return datum.TrimBlankPadding(s) }

// Equal reports whether a and b (not NULL) are equal under t's equality
// operator (consistent with Compare == 0).
func Equal(t Type, a, b Datum) bool {
	switch t.OID {
	case Int4OID, Int8OID, Int2OID, TimestampOID, TimestamptzOID, BoolOID, OidOID, CharOID:
		return a.Int() == b.Int()
	case TextOID, VarcharOID, NameOID, ByteaOID, UnknownOID, Int2VectorOID:
		return a.Str() == b.Str()
	case BpcharOID:
		return TrimBlankPadding(a.Str()) == TrimBlankPadding(b.Str())
	case Float8OID, Float4OID:
		x, y := a.Float(), b.Float()
		return x == y || (x != x && y != y)
	case NumericOID:
		return CompareNumeric(a.Str(), b.Str()) == 0
	}
	if c, ok := compareNewType(t, a, b); ok {
		return c == 0
	}
	if IsUserType(t) && !isEnumDatum(a) {
		return compareRecords(a, b) == 0
	}
	if a.Kind() == kArr {
		return compareArrays(t, a, b) == 0
	}
	return compareByKind(a, b) == 0
}

const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// HashInt64 is the hash of an integer value (all integer types hash alike,
// so int2/int4/int8 join keys are compatible).
func HashInt64(v int64) uint64 {
	return mix(uint64(v)^hashK0, hashK1)
}

// HashString hashes bytes (wyhash-style; deterministic across processes).
func HashString(s string) uint64 {
	h := uint64(hashK0) ^ uint64(len(s))*hashK2
	for len(s) >= 16 {
		a := le64(s[:8])
		b := le64(s[8:16])
		h = mix(a^hashK1, b^h)
		s = s[16:]
	}
	var a, b uint64
	switch {
	case len(s) >= 8:
		a = le64(s[:8])
		b = le64(s[len(s)-8:])
	case len(s) >= 4:
		a = uint64(le32(s[:4]))
		b = uint64(le32(s[len(s)-4:]))
	case len(s) > 0:
		a = uint64(s[0])<<16 | uint64(s[len(s)>>1])<<8 | uint64(s[len(s)-1])
	}
	return mix(hashK1^uint64(len(s)), mix(a^hashK1, b^h))
}

// Hash returns a hash of d (not NULL) consistent with Equal for type t:
// bpchar ignores trailing spaces, float -0 and 0 hash alike and all NaNs
// hash alike. All integer types hash the same for the same value, and
// float4/float8 hash the same for the same value. The hash is deterministic
// (the same in every process), so it may be stored.
func Hash(t Type, d Datum) uint64 {
	switch t.OID {
	case Int4OID, Int8OID, Int2OID, TimestampOID, TimestamptzOID, BoolOID, OidOID, CharOID:
		return HashInt64(d.Int())
	case TextOID, VarcharOID, NameOID, ByteaOID, UnknownOID, Int2VectorOID:
		return HashString(d.Str())
	case BpcharOID:
		return HashString(TrimBlankPadding(d.Str()))
	case Float8OID, Float4OID:
		f := d.Float()
		if f == 0 {
			return HashInt64(0) ^ hashK2
		}
		if f != f {
			return HashInt64(int64(math.Float64bits(math.NaN()))) ^ hashK2
		}
		return HashInt64(int64(math.Float64bits(f))) ^ hashK2
	case NumericOID:
		return hashNumeric(d.Str())
	}
	if h, ok := hashNewType(t, d); ok {
		return h
	}
	if IsUserType(t) && !isEnumDatum(d) {
		return hashRecord(d)
	}
	if d.Kind() == kStr || d.Kind() == kVec || d.Kind() == kArr {
		return HashString(d.Str())
	}
	return HashInt64(d.Int())
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
