package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// OID is a PostgreSQL object identifier (here: a pg_type OID).
type OID = uint32

// pg_type OIDs of the types known to this package.
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
	Float4OID      OID = 700
	Float8OID      OID = 701
	UnknownOID     OID = 705
	BpcharOID      OID = 1042
	VarcharOID     OID = 1043
	TimestampOID   OID = 1114
	TimestamptzOID OID = 1184
	NumericOID     OID = 1700
	RecordOID      OID = 2249
	AnyOID         OID = 2276
	VoidOID        OID = 2278
)

// Type is a column or expression type: a pg_type OID plus a typmod
// (-1 = none; varchar(n)/char(n): n+4; timestamp(p): p;
// numeric(p,s): ((p<<16)|(s&0x7ff))+4).
type Type struct {
	OID    OID
	Typmod int32
}

// Convenience types with Typmod -1. (The boolean type is called Boolean
// because Bool is the Datum constructor.)
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
	Float4         = Type{Float4OID, -1}
	Float8         = Type{Float8OID, -1}
	Unknown        = Type{UnknownOID, -1}
	BpcharAny      = Type{BpcharOID, -1} // bpchar without length ("bpchar")
	VarcharAny     = Type{VarcharOID, -1}
	Timestamp      = Type{TimestampOID, -1}
	Timestamptz    = Type{TimestamptzOID, -1}
	Numeric        = Type{NumericOID, -1}
	Record         = Type{RecordOID, -1}
	Any            = Type{AnyOID, -1}
	Void           = Type{VoidOID, -1}
)

// VarHdrSz is the size of a 4-byte varlena header; typmods of varchar/bpchar
// include it.
const VarHdrSz = 4

// MaxVarcharLen is PostgreSQL's limit on n in varchar(n)/char(n).
const MaxVarcharLen = 10 * 1024 * 1024

// NameDataLen is PostgreSQL's NAMEDATALEN: name values hold at most 63 bytes.
const NameDataLen = 64

// Varchar returns varchar(n); n <= 0 gives varchar without a length limit.
func Varchar(n int) Type {
	if n <= 0 {
		return VarcharAny
	}
	return Type{VarcharOID, int32(n + VarHdrSz)}
}

// Bpchar returns character(n); n <= 0 gives bpchar without a length.
func Bpchar(n int) Type {
	if n <= 0 {
		return BpcharAny
	}
	return Type{BpcharOID, int32(n + VarHdrSz)}
}

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

type typeInfo struct {
	typname  string
	fmtName  string // format_type name without typmod
	layout   Layout
	category byte
	pref     bool
}

var (
	layChar    = Layout{1, 'c', true, 'p'}
	layInt2    = Layout{2, 's', true, 'p'}
	layInt4    = Layout{4, 'i', true, 'p'}
	layInt8    = Layout{8, 'd', true, 'p'}
	layVarlena = Layout{-1, 'i', false, 'x'}
)

func info(oid OID) *typeInfo {
	switch oid {
	case BoolOID:
		return &infoBool
	case ByteaOID:
		return &infoBytea
	case CharOID:
		return &infoChar
	case NameOID:
		return &infoName
	case Int8OID:
		return &infoInt8
	case Int2OID:
		return &infoInt2
	case Int2VectorOID:
		return &infoInt2Vector
	case Int4OID:
		return &infoInt4
	case TextOID:
		return &infoText
	case OidOID:
		return &infoOid
	case Float4OID:
		return &infoFloat4
	case Float8OID:
		return &infoFloat8
	case UnknownOID:
		return &infoUnknown
	case BpcharOID:
		return &infoBpchar
	case VarcharOID:
		return &infoVarchar
	case TimestampOID:
		return &infoTimestamp
	case TimestamptzOID:
		return &infoTimestamptz
	case NumericOID:
		return &infoNumeric
	case RegtypeOID:
		return &infoRegtype
	case RecordOID:
		return &infoRecord
	case AnyOID:
		return &infoAny
	case VoidOID:
		return &infoVoid
	}
	if ti := newTypeInfo(oid); ti != nil {
		return ti
	}
	return arrayInfo(oid)
}

var (
	infoBool        = typeInfo{"bool", "boolean", layChar, 'B', true}
	infoBytea       = typeInfo{"bytea", "bytea", layVarlena, 'U', false}
	infoChar        = typeInfo{"char", `"char"`, layChar, 'Z', false}
	infoName        = typeInfo{"name", "name", Layout{NameDataLen, 'c', false, 'p'}, 'S', false}
	infoInt8        = typeInfo{"int8", "bigint", layInt8, 'N', false}
	infoInt2        = typeInfo{"int2", "smallint", layInt2, 'N', false}
	infoInt2Vector  = typeInfo{"int2vector", "int2vector", Layout{-1, 'i', false, 'p'}, 'A', false}
	infoInt4        = typeInfo{"int4", "integer", layInt4, 'N', false}
	infoText        = typeInfo{"text", "text", layVarlena, 'S', true}
	infoOid         = typeInfo{"oid", "oid", layInt4, 'N', false}
	infoFloat4      = typeInfo{"float4", "real", layInt4, 'N', false}
	infoFloat8      = typeInfo{"float8", "double precision", layInt8, 'N', true}
	infoUnknown     = typeInfo{"unknown", "unknown", Layout{-2, 'c', false, 'p'}, 'X', false}
	infoBpchar      = typeInfo{"bpchar", "character", layVarlena, 'S', false}
	infoVarchar     = typeInfo{"varchar", "character varying", layVarlena, 'S', false}
	infoTimestamp   = typeInfo{"timestamp", "timestamp without time zone", layInt8, 'D', false}
	infoTimestamptz = typeInfo{"timestamptz", "timestamp with time zone", layInt8, 'D', true}
	infoNumeric     = typeInfo{"numeric", "numeric", Layout{-1, 'i', false, 'm'}, 'N', false}
	infoRecord      = typeInfo{"record", "record", Layout{-1, 'd', false, 'x'}, 'P', false}
	infoAny         = typeInfo{"any", `"any"`, layInt4, 'P', false}
	infoVoid        = typeInfo{"void", "void", layInt4, 'P', false}
)

// TypeByOID returns the type (typmod -1) for a pg_type OID known here.
func TypeByOID(oid OID) (Type, bool) {
	if info(oid) == nil {
		return Type{}, false
	}
	return Type{oid, -1}, true
}

// Known reports whether t's OID is one this package knows.
func (t Type) Known() bool { return info(t.OID) != nil }

// TypName returns pg_type.typname ("int4", "varchar", "bpchar", ...).
func (t Type) TypName() string {
	if ti := info(t.OID); ti != nil {
		return ti.typname
	}
	return "???"
}

// String returns format_type(oid, typmod): "integer", "character varying(10)",
// "timestamp without time zone", "bpchar" (bpchar without length), ...
func (t Type) String() string {
	ti := info(t.OID)
	if ti == nil {
		return "???"
	}
	if s, ok := newTypeString(t); ok {
		return s
	}
	switch t.OID {
	case VarcharOID:
		if t.Typmod >= VarHdrSz {
			return "character varying(" + strconv.Itoa(int(t.Typmod-VarHdrSz)) + ")"
		}
	case BpcharOID:
		if t.Typmod >= VarHdrSz {
			return "character(" + strconv.Itoa(int(t.Typmod-VarHdrSz)) + ")"
		}
		return "bpchar"
	case NumericOID:
		if validNumTypmod(t.Typmod) {
			p, s := numTypmodPrecScale(t.Typmod)
			return "numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")"
		}
	case TimestampOID:
		if t.Typmod >= 0 {
			return "timestamp(" + strconv.Itoa(int(t.Typmod)) + ") without time zone"
		}
	case TimestamptzOID:
		if t.Typmod >= 0 {
			return "timestamp(" + strconv.Itoa(int(t.Typmod)) + ") with time zone"
		}
	}
	return ti.fmtName
}

// BaseName is format_type_be(oid): the type name without typmod, as used in
// PostgreSQL's "operator does not exist" / "function ... does not exist"
// messages ("character", "character varying", "integer").
func (t Type) BaseName() string {
	if ti := info(t.OID); ti != nil {
		return ti.fmtName
	}
	return "???"
}

// Layout returns the pg_type typlen/typalign/typbyval/typstorage of t.
func (t Type) Layout() Layout {
	if ti := info(t.OID); ti != nil {
		return ti.layout
	}
	return Layout{-1, 'i', false, 'x'}
}

// Category returns pg_type.typcategory: 'B' boolean, 'N' numeric, 'S' string,
// 'D' date/time, 'U' user-defined (bytea), 'X' unknown, 'A' array
// (int2vector), 'Z' internal ("char"), 'P' pseudo-types.
func Category(t Type) byte {
	if ti := info(t.OID); ti != nil {
		return ti.category
	}
	return 'U'
}

// IsPreferred reports pg_type.typispreferred (bool, text, float8, timestamptz).
func IsPreferred(t Type) bool {
	if ti := info(t.OID); ti != nil {
		return ti.pref
	}
	return false
}

// IsInteger reports whether t is int2, int4 or int8.
func IsInteger(t Type) bool {
	return t.OID == Int2OID || t.OID == Int4OID || t.OID == Int8OID
}

// IsFloat reports whether t is float4 or float8.
func IsFloat(t Type) bool { return t.OID == Float4OID || t.OID == Float8OID }

// IsString reports whether t is text, varchar, bpchar or name.
func IsString(t Type) bool {
	switch t.OID {
	case TextOID, VarcharOID, BpcharOID, NameOID:
		return true
	}
	return false
}

// typeNames maps the (lower-case) names accepted by LookupTypeName.
var typeNames = map[string]OID{
	"bool": BoolOID, "boolean": BoolOID,
	"bytea": ByteaOID,
	"char":  CharOID,
	"name":  NameOID,
	"int8":  Int8OID, "bigint": Int8OID,
	"int2": Int2OID, "smallint": Int2OID,
	"int2vector": Int2VectorOID,
	"int4":       Int4OID, "int": Int4OID, "integer": Int4OID,
	"text":   TextOID,
	"oid":    OidOID,
	"float4": Float4OID, "real": Float4OID,
	"float8": Float8OID, "double precision": Float8OID, "float": Float8OID,
	"unknown": UnknownOID,
	"bpchar":  BpcharOID, "character": BpcharOID,
	"varchar": VarcharOID, "character varying": VarcharOID,
	"timestamp": TimestampOID, "timestamp without time zone": TimestampOID,
	"timestamptz": TimestamptzOID, "timestamp with time zone": TimestamptzOID,
	"numeric": NumericOID, "decimal": NumericOID,
	"record": RecordOID,
	"any":    AnyOID,
	"void":   VoidOID,
}

// LookupTypeName resolves a type name as pg_query gives it in
// TypeName.Names (e.g. ["pg_catalog","int4"], ["text"], ["integer"]) with
// the integer typmods of TypeName.Typmods (e.g. [10] for varchar(10)).
//
// PostgreSQL's grammar already turns "char"/"character" without a length
// into bpchar with typmods [1]; here ["character"] without typmods also gives
// character(1), while ["bpchar"] without typmods is bpchar without a length
// limit and ["char"] (quoted "char" in SQL) is the 1-byte "char" type.
// numeric(p) / numeric(p,s) get PostgreSQL's typmod ((p<<16)|s)+4.
func LookupTypeName(names []string, typmods []int32) (Type, error) {
	if len(names) == 0 {
		return Type{}, pgerr.Errorf(pgerr.SyntaxError, "empty type name")
	}
	name := names[len(names)-1]
	if len(names) > 1 {
		if len(names) > 3 || names[len(names)-2] != "pg_catalog" {
			return Type{}, pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", strings.Join(names, "."))
		}
	}
	lname := strings.ToLower(name)
	oid, ok := typeNames[lname]
	if !ok {
		return Type{}, pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	t := Type{oid, -1}
	if nt, err, handled := lookupNewTypeMods(t, typmods); handled {
		return nt, err
	}
	switch oid {
	case VarcharOID, BpcharOID:
		label := "varchar"
		if oid == BpcharOID {
			label = "char"
		}
		if len(typmods) > 1 {
			return Type{}, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier")
		}
		if len(typmods) == 1 {
			n := typmods[0]
			if n < 1 {
				return Type{}, pgerr.Errorf(pgerr.InvalidParameterValue, "length for type %s must be at least 1", label)
			}
			if n > MaxVarcharLen {
				return Type{}, pgerr.Errorf(pgerr.InvalidParameterValue, "length for type %s cannot exceed %d", label, MaxVarcharLen)
			}
			t.Typmod = n + VarHdrSz
		} else if lname == "character" {
			t.Typmod = 1 + VarHdrSz
		}
	case TimestampOID, TimestamptzOID:
		if len(typmods) > 1 {
			return Type{}, pgerr.Errorf(pgerr.SyntaxError, "invalid type modifier")
		}
		if len(typmods) == 1 {
			p := typmods[0]
			if p < 0 {
				return Type{}, pgerr.Errorf(pgerr.InvalidParameterValue, "TIMESTAMP(%d) precision must not be negative", p)
			}
			if p > 6 {
				// PostgreSQL warns and reduces to the maximum.
				p = 6
			}
			t.Typmod = p
		}
	case NumericOID:
		if len(typmods) > 0 {
			m, err := NumericTypmod(typmods)
			if err != nil {
				return Type{}, err
			}
			t.Typmod = m
		}
	default:
		if len(typmods) > 0 {
			return Type{}, pgerr.Errorf(pgerr.SyntaxError, "type modifier is not allowed for type %q", t.TypName())
		}
	}
	return t, nil
}
