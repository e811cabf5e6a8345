package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// OID is a PostgreSQL object identifier (here: a pg_type OID).
type OID = datum.OID

// pg_type OIDs of the types known to this package.
const (
	BoolOID        = datum.BoolOID
	ByteaOID       = datum.ByteaOID
	CharOID        = datum.CharOID // "char", the 1-byte internal type
	NameOID        = datum.NameOID
	Int8OID        = datum.Int8OID
	Int2OID        = datum.Int2OID
	Int2VectorOID  = datum.Int2VectorOID
	Int4OID        = datum.Int4OID
	TextOID        = datum.TextOID
	OidOID         = datum.OidOID
	Float4OID      = datum.Float4OID
	Float8OID      = datum.Float8OID
	UnknownOID     = datum.UnknownOID
	BpcharOID      = datum.BpcharOID
	VarcharOID     = datum.VarcharOID
	TimestampOID   = datum.TimestampOID
	TimestamptzOID = datum.TimestamptzOID
	NumericOID     = datum.NumericOID
	RecordOID      = datum.RecordOID
	AnyOID         = datum.AnyOID
	VoidOID        = datum.VoidOID
)

// Type is a column or expression type: a pg_type OID plus a typmod
// (datum.Type; -1 = none; varchar(n)/char(n): n+4; timestamp(p): p;
// numeric(p,s): ((p<<16)|(s&0x7ff))+4). Its String, TypName and BaseName
// methods are this package's (typeSystem).
type Type = datum.Type

// Convenience types with Typmod -1. (The boolean type is called Boolean
// because Bool is the Datum constructor.)
var (
	Boolean        = datum.Boolean
	Bytea          = datum.Bytea
	Char           = datum.Char
	Name           = datum.Name
	Int2           = datum.Int2
	Int4           = datum.Int4
	Int8           = datum.Int8
	Int2VectorType = datum.Int2VectorType
	Text           = datum.Text
	Oid            = datum.Oid
	Float4         = datum.Float4
	Float8         = datum.Float8
	Unknown        = datum.Unknown
	BpcharAny      = datum.BpcharAny // bpchar without length ("bpchar")
	VarcharAny     = datum.VarcharAny
	Timestamp      = datum.Timestamp
	Timestamptz    = datum.Timestamptz
	Numeric        = datum.Numeric
	Record         = datum.Record
	Any            = datum.Any
	Void           = datum.Void
)

// VarHdrSz is the size of a 4-byte varlena header; typmods of varchar/bpchar
// include it.
const VarHdrSz = datum.VarHdrSz

// MaxVarcharLen is PostgreSQL's limit on n in varchar(n)/char(n).
const MaxVarcharLen = 10 * 1024 * 1024

// NameDataLen is PostgreSQL's NAMEDATALEN: name values hold at most 63 bytes.
const NameDataLen = datum.NameDataLen

// Varchar returns varchar(n); n <= 0 gives varchar without a length limit.
func Varchar(n int) Type {
	if n <= 0 {
		return VarcharAny
	}
	return Type{OID: VarcharOID, Typmod: int32(n + VarHdrSz)}
}

// Bpchar returns character(n); n <= 0 gives bpchar without a length.
func Bpchar(n int) Type {
	if n <= 0 {
		return BpcharAny
	}
	return Type{OID: BpcharOID, Typmod: int32(n + VarHdrSz)}
}

// typeInfo is the SQL side of a pg_type row; the physical side (typlen,
// typalign, typbyval, typstorage) is datum's (Type.Layout).
type typeInfo struct {
	typname  string
	fmtName  string // format_type name without typmod
	category byte
	pref     bool
}

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
	infoBool        = typeInfo{"bool", "boolean", 'B', true}
	infoBytea       = typeInfo{"bytea", "bytea", 'U', false}
	infoChar        = typeInfo{"char", `"char"`, 'Z', false}
	infoName        = typeInfo{"name", "name", 'S', false}
	infoInt8        = typeInfo{"int8", "bigint", 'N', false}
	infoInt2        = typeInfo{"int2", "smallint", 'N', false}
	infoInt2Vector  = typeInfo{"int2vector", "int2vector", 'A', false}
	infoInt4        = typeInfo{"int4", "integer", 'N', false}
	infoText        = typeInfo{"text", "text", 'S', true}
	infoOid         = typeInfo{"oid", "oid", 'N', false}
	infoFloat4      = typeInfo{"float4", "real", 'N', false}
	infoFloat8      = typeInfo{"float8", "double precision", 'N', true}
	infoUnknown     = typeInfo{"unknown", "unknown", 'X', false}
	infoBpchar      = typeInfo{"bpchar", "character", 'S', false}
	infoVarchar     = typeInfo{"varchar", "character varying", 'S', false}
	infoTimestamp   = typeInfo{"timestamp", "timestamp without time zone", 'D', false}
	infoTimestamptz = typeInfo{"timestamptz", "timestamp with time zone", 'D', true}
	infoNumeric     = typeInfo{"numeric", "numeric", 'N', false}
	infoRecord      = typeInfo{"record", "record", 'P', false}
	infoAny         = typeInfo{"any", `"any"`, 'P', false}
	infoVoid        = typeInfo{"void", "void", 'P', false}
)

// TypeByOID returns the type (typmod -1) for a pg_type OID known here.
func TypeByOID(oid OID) (Type, bool) {
	if info(oid) == nil {
		return Type{}, false
	}
	return Type{OID: oid, Typmod: -1}, true
}

// typeSystem is this package's side of datum.Type: names (format_type,
// typname) and the stored text form of arrays.
type typeSystem struct{}

// installed before any init function of this package runs (some name
// types while they register operators).
var _ = func() bool { datum.UseTypeSystem(typeSystem{}); return true }()

// Compare is the default btree order of the types whose ordering is not
// package datum's (Compare).
func (typeSystem) Compare(t Type, a, b Datum) int { return Compare(t, a, b) }

// Known reports whether t's OID is one this package knows.
func (typeSystem) Known(t Type) bool { return info(t.OID) != nil }

// TypName is pg_type.typname ("int4", "varchar", "bpchar", ...).
func (typeSystem) TypName(t Type) string {
	if ti := info(t.OID); ti != nil {
		return ti.typname
	}
	return "???"
}

// FormatType is format_type(oid, typmod), Type.String: "integer", "character varying(10)",
// "timestamp without time zone", "bpchar" (bpchar without length), ...
func (typeSystem) FormatType(t Type) string {
	ti := info(t.OID)
	if ti == nil {
		return "???"
	}
	if s, ok := newTypeString(t); ok {
		return s
	}
	if et, ok := ElemType(t); ok && t.Typmod >= 0 {
		et.Typmod = t.Typmod // varchar(5)[]: the typmod is the element's
		return et.String() + "[]"
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
func (typeSystem) BaseName(t Type) string {
	if ti := info(t.OID); ti != nil {
		return ti.fmtName
	}
	return "???"
}

// FormatArray is array_out, the stored form of an array value.
func (typeSystem) FormatArray(t Type, d Datum) string { return FormatText(t, d) }

// ParseArray is array_in, reading an array value's stored form.
func (typeSystem) ParseArray(t Type, s string) (Datum, error) { return Parse(t, s) }

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
	if !ok && strings.HasPrefix(lname, "_") && len(typmods) == 0 {
		// _int4 is int4[]: an array type's own name (pg_type.typname)
		if eoid, isElem := typeNames[lname[1:]]; isElem && !strings.Contains(lname[1:], " ") {
			if at, hasArr := ArrayOf(Type{OID: eoid, Typmod: -1}); hasArr {
				return at, nil
			}
		}
	}
	if !ok {
		return Type{}, pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	t := Type{OID: oid, Typmod: -1}
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
