package datum

import (
	"cmp"
	"encoding/binary"
	"math"
	"strings"
)

// Comparator is a B-tree operator class's ordering of one type: what
// PostgreSQL's btree support function 1 (BTORDER_PROC) and its sortsupport
// shortcut give nbtree. An index compares keys only through its columns'
// Comparators, never through the SQL layer's type code.
//
// Compare orders two non-NULL values: negative, zero or positive. The
// caller orders NULLs.
//
// CompareStored, when not nil, orders a non-NULL value a against a
// non-NULL value stored in a tuple's data area, read in place without
// decoding (Deformer.StoredAttr): for a fixed-length type, stored is the
// attribute's typlen bytes; for a varlena or name, the bytes Deform would
// put in the Datum's string field (payload without header; a name up to
// its NUL). It must agree with Compare on the decoded value.
//
// SignedInt says that Compare is the signed order of the integer field
// (Datum.Int), so a caller may compare inline instead of calling it, as
// PostgreSQL 15's tuplesort specializes ssup_datum_signed_cmp.
type Comparator struct {
	Compare       func(a, b Datum) int
	CompareStored func(a Datum, stored []byte) int
	SignedInt     bool
	// Bytewise: Compare is the byte order of the values' Str (text,
	// varchar, bytea, name in the C collation), so a sort may abbreviate
	// them by their first bytes.
	Bytewise bool
}

// DefaultComparator returns the ordering of t's default B-tree operator
// class. The builtin scalar types' orderings are this package's (they
// depend only on the stored form): integers, floats (NaN last), text-like
// types bytewise (tidal's only collation is C), bpchar without trailing
// spaces, numeric. Every other type is ordered by the SQL layer's
// comparison (TypeSystem.Compare); a program without the SQL layer orders
// such values by their kind.
func DefaultComparator(t Type) Comparator {
	if c, ok := builtinComparator(t.OID); ok {
		return c
	}
	if typeSystem != nil {
		ts := typeSystem
		return Comparator{Compare: func(a, b Datum) int { return ts.Compare(t, a, b) }}
	}
	return Comparator{Compare: compareByKind}
}

var (
	cmpInts = func(a, b Datum) int { return cmp.Compare(a.i, b.i) }
	cmpStrs = func(a, b Datum) int { return strings.Compare(a.s, b.s) }

	comparatorUint8 = Comparator{Compare: cmpInts, SignedInt: true,
		CompareStored: func(a Datum, p []byte) int { return cmp.Compare(a.i, int64(p[0])) }}
	comparatorInt16 = Comparator{Compare: cmpInts, SignedInt: true,
		CompareStored: func(a Datum, p []byte) int {
			return cmp.Compare(a.i, int64(int16(binary.LittleEndian.Uint16(p))))
		}}
	comparatorInt32 = Comparator{Compare: cmpInts, SignedInt: true,
		CompareStored: func(a Datum, p []byte) int {
			return cmp.Compare(a.i, int64(int32(binary.LittleEndian.Uint32(p))))
		}}
	// oid is held as a non-negative int64, so signed order is unsigned order.
	comparatorUint32 = Comparator{Compare: cmpInts, SignedInt: true,
		CompareStored: func(a Datum, p []byte) int {
			return cmp.Compare(a.i, int64(binary.LittleEndian.Uint32(p)))
		}}
	comparatorInt64 = Comparator{Compare: cmpInts, SignedInt: true,
		CompareStored: func(a Datum, p []byte) int {
			return cmp.Compare(a.i, int64(binary.LittleEndian.Uint64(p)))
		}}
	comparatorFloat4 = Comparator{Compare: compareFloats,
		CompareStored: func(a Datum, p []byte) int {
			return CompareFloat(a.Float(), float64(math.Float32frombits(binary.LittleEndian.Uint32(p))))
		}}
	comparatorFloat8 = Comparator{Compare: compareFloats,
		CompareStored: func(a Datum, p []byte) int {
			return CompareFloat(a.Float(), math.Float64frombits(binary.LittleEndian.Uint64(p)))
		}}
	comparatorBytes = Comparator{Compare: cmpStrs, Bytewise: true,
		CompareStored: func(a Datum, p []byte) int { return strings.Compare(a.s, bytesString(p)) }}
	comparatorBpchar = Comparator{
		Compare: func(a, b Datum) int { return strings.Compare(TrimBlankPadding(a.s), TrimBlankPadding(b.s)) },
		CompareStored: func(a Datum, p []byte) int {
			return strings.Compare(TrimBlankPadding(a.s), TrimBlankPadding(bytesString(p)))
		}}
	comparatorNumeric = Comparator{
		Compare:       func(a, b Datum) int { return CompareNumeric(a.s, b.s) },
		CompareStored: func(a Datum, p []byte) int { return CompareNumeric(a.s, bytesString(p)) }}
	// unknown is a cstring and int2vector carries an array header on
	// disk: neither is read in place.
	comparatorCString = Comparator{Compare: cmpStrs}
	comparatorInt2Vec = Comparator{Compare: func(a, b Datum) int { return CompareInt2Vector(a.s, b.s) }}
)

// builtinComparator returns the comparator of a builtin scalar type whose
// order this package defines.
func builtinComparator(oid OID) (Comparator, bool) {
	switch oid {
	case BoolOID, CharOID:
		return comparatorUint8, true
	case Int2OID:
		return comparatorInt16, true
	case Int4OID:
		return comparatorInt32, true
	case OidOID:
		return comparatorUint32, true
	case Int8OID, TimestampOID, TimestamptzOID:
		return comparatorInt64, true
	case Float4OID:
		return comparatorFloat4, true
	case Float8OID:
		return comparatorFloat8, true
	case TextOID, VarcharOID, ByteaOID, NameOID:
		return comparatorBytes, true
	case BpcharOID:
		return comparatorBpchar, true
	case NumericOID:
		return comparatorNumeric, true
	case UnknownOID:
		return comparatorCString, true
	case Int2VectorOID:
		return comparatorInt2Vec, true
	}
	return Comparator{}, false
}

func compareInt(a, b int64) int { return cmp.Compare(a, b) }

func compareFloats(a, b Datum) int { return CompareFloat(a.Float(), b.Float()) }

// CompareFloat is PostgreSQL's float8_cmp_internal: NaN sorts after every
// other value and equals itself; -0 equals 0.
func CompareFloat(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	if a == b {
		return 0
	}
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// TrimBlankPadding drops a bpchar value's trailing spaces, which are not
// significant in comparisons.
func TrimBlankPadding(s string) string {
	n := len(s)
	for n > 0 && s[n-1] == ' ' {
		n--
	}
	return s[:n]
}

// CompareInt2Vector orders two int2vector values (their string fields)
// element by element, then by length.
func CompareInt2Vector(a, b string) int {
	for i := 0; i+1 < len(a) && i+1 < len(b); i += 2 {
		x := int16(uint16(a[i]) | uint16(a[i+1])<<8)
		y := int16(uint16(b[i]) | uint16(b[i+1])<<8)
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return cmp.Compare(len(a), len(b))
}

// CompareByKind orders two non-NULL values of a type this package has no
// ordering for by how they are held: floats as CompareFloat, the string
// field bytewise, else the integer field.
func CompareByKind(a, b Datum) int { return compareByKind(a, b) }

func compareByKind(a, b Datum) int {
	switch a.k {
	case KindFloat:
		return CompareFloat(a.Float(), b.Float())
	case KindStr:
		return strings.Compare(a.s, b.s)
	case KindVec:
		return CompareInt2Vector(a.s, b.s)
	}
	return cmp.Compare(a.i, b.i)
}
