package datum

import "strconv"

// OID is a PostgreSQL object identifier (here: a pg_type OID).
type OID = uint32

// pg_type OIDs of the builtin types.
const (
	BoolOID        OID = 16
	ByteaOID       OID = 17
	CharOID        OID = 18 // "char", the 1-byte internal type
	NameOID        OID = 19
	Int8OID        OID = 20
	Int2OID        OID = 21
	Int2VectorOID  OID = 22
	Int4OID        OID = 23
	TextOID        OID = 25
	OidOID         OID = 26
	TidOID         OID = 27
	XidOID         OID = 28
	CidOID         OID = 29
	JSONOID        OID = 114
	Float4OID      OID = 700
	Float8OID      OID = 701
	UnknownOID     OID = 705
	BpcharOID      OID = 1042
	VarcharOID     OID = 1043
	DateOID        OID = 1082
	TimeOID        OID = 1083
	TimestampOID   OID = 1114
	TimestamptzOID OID = 1184
	IntervalOID    OID = 1186
	NumericOID     OID = 1700
	RegtypeOID     OID = 2206
	RecordOID      OID = 2249
	AnyOID         OID = 2276
	VoidOID        OID = 2278
	UUIDOID        OID = 2950
	JSONBOID       OID = 3802
	JSONPathOID    OID = 4072
)

// Pseudo-types that function declarations may name; never the type of a
// stored value.
const (
	CstringOID               OID = 2275
	AnyArrayOID              OID = 2277
	TriggerOID               OID = 2279
	InternalOID              OID = 2281
	AnyElementOID            OID = 2283
	AnyNonArrayOID           OID = 2776
	AnyCompatibleOID         OID = 5077
	AnyCompatibleArrayOID    OID = 5078
	AnyCompatibleNonArrayOID OID = 5079
)

// Array type OIDs (pg_type.typarray of the element types).
const (
	JSONArrayOID        OID = 199
	BoolArrayOID        OID = 1000
	ByteaArrayOID       OID = 1001
	CharArrayOID        OID = 1002
	NameArrayOID        OID = 1003
	Int2ArrayOID        OID = 1005
	Int2VectorArrayOID  OID = 1006
	Int4ArrayOID        OID = 1007
	TextArrayOID        OID = 1009
	TidArrayOID         OID = 1010
	XidArrayOID         OID = 1011
	CidArrayOID         OID = 1012
	BpcharArrayOID      OID = 1014
	VarcharArrayOID     OID = 1015
	Int8ArrayOID        OID = 1016
	Float4ArrayOID      OID = 1021
	Float8ArrayOID      OID = 1022
	OidArrayOID         OID = 1028
	TimestampArrayOID   OID = 1115
	DateArrayOID        OID = 1182
	TimeArrayOID        OID = 1183
	TimestamptzArrayOID OID = 1185
	IntervalArrayOID    OID = 1187
	NumericArrayOID     OID = 1231
	UUIDArrayOID        OID = 2951
	JSONBArrayOID       OID = 3807
	JSONPathArrayOID    OID = 4073
)

// VarHdrSz is the size of a 4-byte varlena header; typmods of varchar/bpchar
// include it.
const VarHdrSz = 4

// NameDataLen is PostgreSQL's NAMEDATALEN: name values hold at most 63 bytes.
const NameDataLen = 64

// Type is a column or expression type: a pg_type OID plus a typmod
// (-1 = none; varchar(n)/char(n): n+4; timestamp(p): p;
// numeric(p,s): ((p<<16)|(s&0x7ff))+4).
type Type struct {
	OID    OID
	Typmod int32
}

// Types with typmod -1. (The boolean type is called Boolean because Bool
// is the Datum constructor.)
var (
	Boolean        = Type{BoolOID, -1}
	Bytea          = Type{ByteaOID, -1}
	Char           = Type{CharOID, -1}
	Name           = Type{NameOID, -1}
	Int2           = Type{Int2OID, -1}
	Int4           = Type{Int4OID, -1}
	Int8           = Type{Int8OID, -1}
	Int2VectorType = Type{Int2VectorOID, -1}
	Text           = Type{TextOID, -1}
	Oid            = Type{OidOID, -1}
	Tid            = Type{TidOID, -1}
	Xid            = Type{XidOID, -1}
	Cid            = Type{CidOID, -1}
	Float4         = Type{Float4OID, -1}
	Float8         = Type{Float8OID, -1}
	Unknown        = Type{UnknownOID, -1}
	BpcharAny      = Type{BpcharOID, -1} // bpchar without length ("bpchar")
	VarcharAny     = Type{VarcharOID, -1}
	Date           = Type{DateOID, -1}
	Time           = Type{TimeOID, -1}
	Timestamp      = Type{TimestampOID, -1}
	Timestamptz    = Type{TimestamptzOID, -1}
	Interval       = Type{IntervalOID, -1}
	Numeric        = Type{NumericOID, -1}
	Regtype        = Type{RegtypeOID, -1}
	Record         = Type{RecordOID, -1}
	Any            = Type{AnyOID, -1}
	Void           = Type{VoidOID, -1}
	UUID           = Type{UUIDOID, -1}
	JSON           = Type{JSONOID, -1}
	JSONB          = Type{JSONBOID, -1}
	JSONPath       = Type{JSONPathOID, -1}
	AnyElement     = Type{AnyElementOID, -1}
	AnyArray       = Type{AnyArrayOID, -1}
)

// CharLen returns n of varchar(n)/char(n), or -1 when there is no limit.
func (t Type) CharLen() int {
	if (t.OID == VarcharOID || t.OID == BpcharOID) && t.Typmod >= VarHdrSz {
		return int(t.Typmod - VarHdrSz)
	}
	return -1
}

// Layout is pg_type's physical description of a type.
type Layout struct {
	Len     int16 // > 0 fixed length; -1 varlena; -2 NUL-terminated cstring
	Align   byte  // 'c', 's', 'i', 'd'
	ByVal   bool
	Storage byte // 'p' plain, 'x' extended, 'm' main
}

// Layout returns the pg_type typlen/typalign/typbyval/typstorage of t
// (a varlena with storage 'x' for an OID this package does not know).
func (t Type) Layout() Layout { return physOf(t.OID).layout }

// IsArray reports whether t is an array type.
func IsArray(t Type) bool { _, ok := elemOf[t.OID]; return ok }

// ArrayOf returns the array type whose elements are t.
func ArrayOf(t Type) (Type, bool) {
	a, ok := arrayOf[t.OID]
	return Type{a, -1}, ok
}

// ElemType returns the element type of an array type.
func ElemType(t Type) (Type, bool) {
	e, ok := elemOf[t.OID]
	return Type{e, -1}, ok
}

// EachArrayType calls fn for every array type and its element type.
func EachArrayType(fn func(elem, array OID)) {
	for e, a := range arrayOf {
		fn(e, a)
	}
}

// TypeSystem is what this package needs from the SQL type system above
// it: the names of types (format_type and pg_type.typname belong to the
// SQL layer), the text form of arrays, which is how an array column is
// stored (see encArrayText), and the default ordering of the types whose
// order is not this package's (DefaultComparator). The SQL layer installs it once, while its
// package initializes (UseTypeSystem); it is code, the same for every
// engine in the process, not state.
type TypeSystem interface {
	Known(Type) bool        // the type exists
	TypName(Type) string    // pg_type.typname: "int4", "varchar"
	FormatType(Type) string // format_type(oid, typmod): "character varying(10)"
	BaseName(Type) string   // format_type_be(oid): "character varying"
	FormatArray(Type, Datum) string
	ParseArray(Type, string) (Datum, error)
	Compare(t Type, a, b Datum) int // two non-NULL values in t's default btree order
}

var typeSystem TypeSystem

// UseTypeSystem installs the SQL layer's type system. Call it from a
// package initializer only.
func UseTypeSystem(ts TypeSystem) { typeSystem = ts }

// Known reports whether t is a type the engine knows.
func (t Type) Known() bool {
	if typeSystem == nil {
		return Registered(t)
	}
	return typeSystem.Known(t)
}

// TypName returns pg_type.typname ("int4", "varchar", "bpchar", ...).
func (t Type) TypName() string {
	if typeSystem == nil {
		return t.fallbackName()
	}
	return typeSystem.TypName(t)
}

// String returns format_type(oid, typmod): "integer", "character varying(10)",
// "timestamp without time zone", "bpchar" (bpchar without length), ...
func (t Type) String() string {
	if typeSystem == nil {
		return t.fallbackName()
	}
	return typeSystem.FormatType(t)
}

// BaseName is format_type_be(oid): the type name without typmod, as used in
// PostgreSQL's "operator does not exist" / "function ... does not exist"
// messages ("character", "character varying", "integer").
func (t Type) BaseName() string {
	if typeSystem == nil {
		return t.fallbackName()
	}
	return typeSystem.BaseName(t)
}

// fallbackName names a type in a program without the SQL layer (storage
// tests): its OID.
func (t Type) fallbackName() string { return "type " + strconv.FormatUint(uint64(t.OID), 10) }
