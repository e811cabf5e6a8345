package types

import (
	"encoding/binary"
	"math"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Enum types (CREATE TYPE … AS ENUM) are catalog state, so this package
// learns of them only through a session's Settings.UserTypes. Their
// values must still order, compare and hash without it (sorts, B-tree
// comparators and hash tables see only the type OID), so an enum value
// carries its own order: the datum is 13 bytes, a marker 0xff (no
// record datum starts so: composite values are record datums), the
// label's sort order (pg_enum.enumsortorder, a float8 here) encoded so
// that bytewise order is numeric order, then the label's pg_enum OID. Sort orders of a type
// are distinct and never change once assigned (ADD VALUE … BEFORE takes
// a value between its neighbours'), so bytewise comparison is enum
// order, and equality is identity. The text form needs the catalog: the
// label is looked up by OID, so RENAME VALUE renames stored values too.

// FirstUserOID is PostgreSQL's FirstNormalObjectId: every builtin type
// has a smaller OID, every user-defined one a larger.
const FirstUserOID OID = 16384

// IsUserType reports whether t is a user-defined type this package has
// no rules of its own for (an enum).
func IsUserType(t Type) bool { return t.OID >= FirstUserOID && info(t.OID) == nil && !IsArray(t) }

// Enum is an enum type: its labels in sort order.
type Enum struct {
	OID    OID
	Name   string // format_type name, for messages
	Labels []EnumLabel
}

// EnumLabel is one pg_enum row.
type EnumLabel struct {
	OID   OID
	Order float64
	Label string
}

// EnumDatum is the value of label l.
func EnumDatum(l EnumLabel) Datum {
	var b [13]byte
	bits := math.Float64bits(l.Order)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	b[0] = enumMarker
	binary.BigEndian.PutUint64(b[1:9], bits)
	binary.BigEndian.PutUint32(b[9:], uint32(l.OID))
	return Str(string(b[:]))
}

// EnumLabelOID is the pg_enum OID of an enum value (0 if d is not one).
func EnumLabelOID(d Datum) OID {
	if !isEnumDatum(d) {
		return 0
	}
	return OID(binary.BigEndian.Uint32([]byte(d.Str()[9:])))
}

const enumMarker = 0xff

func isEnumDatum(d Datum) bool { s := d.Str(); return len(s) == 13 && s[0] == enumMarker }

// Parse is enum_in.
func (e *Enum) Parse(s string) (Datum, error) {
	for _, l := range e.Labels {
		if l.Label == s {
			return EnumDatum(l), nil
		}
	}
	return Datum{}, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input value for enum %s: \"%s\"", e.Name, s)
}

// Label is enum_out.
func (e *Enum) Label(d Datum) (string, bool) {
	oid := EnumLabelOID(d)
	for _, l := range e.Labels {
		if l.OID == oid {
			return l.Label, true
		}
	}
	return "", false
}

// Datums are the type's values in order (enum_range).
func (e *Enum) Datums() []Datum {
	out := make([]Datum, len(e.Labels))
	for i, l := range e.Labels {
		out[i] = EnumDatum(l)
	}
	return out
}

// enumOf is the enum t names, if the session knows it.
func enumOf(st *Settings, t Type) *Enum {
	if st == nil || st.UserTypes == nil || !IsUserType(t) {
		return nil
	}
	return st.UserTypes.Enum(t.OID)
}

// parseUserType is the input function of a user-defined type.
func parseUserType(st *Settings, t Type, s string) (Datum, error, bool) {
	if !IsUserType(t) {
		return Datum{}, nil, false
	}
	if e := enumOf(st, t); e != nil {
		d, err := e.Parse(s)
		return d, err, true
	}
	if c := compositeOf(st, t); c != nil {
		d, err := c.parse(st, s)
		return d, err, true
	}
	return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "input of type %d is not supported here", t.OID), true
}

// appendUserType is the output function of a user-defined type.
func appendUserType(st *Settings, dst []byte, t Type, d Datum) ([]byte, bool) {
	if !IsUserType(t) {
		return dst, false
	}
	if !isEnumDatum(d) {
		return appendRecordText(st, dst, d), true // a composite value
	}
	if e := enumOf(st, t); e != nil {
		if l, ok := e.Label(d); ok {
			return append(dst, l...), true
		}
	}
	// No catalog at hand (or the label is gone): the value's pg_enum OID.
	return append(dst, "enum value "+FormatType(OID(EnumLabelOID(d)), -1)...), true
}

// castUserType converts to and from a user-defined type through its text
// form (PostgreSQL's I/O conversion casts): to a string type in
// assignment context, from one explicitly, from unknown implicitly.
func castUserType(st *Settings, d Datum, from, to Type, ctx CastContext) (Datum, error, bool) {
	switch {
	case IsUserType(to) && from.OID == RecordOID:
		if c := compositeOf(st, to); c != nil {
			v, err := c.fromRecord(st, d, ctx)
			return v, err, true
		}
		return Datum{}, cannotCast(from, to), true
	case IsUserType(to) && (from.OID == UnknownOID || (IsString(from) && ctx == CastExplicit)):
		v, err, _ := parseUserType(st, to, TrimBlankPadding(d.Str()))
		return v, err, true
	case IsUserType(from) && IsString(to) && ctx >= CastAssignment:
		text, _ := appendUserType(st, nil, from, d)
		v, err := CastWith(st, Str(string(text)), Text, to, ctx)
		return v, err, true
	case IsUserType(from) || IsUserType(to):
		return Datum{}, cannotCast(from, to), true
	}
	return Datum{}, nil, false
}

// UserTypeCast reports whether a cast between from and to, one of them
// user-defined, exists in context ctx (see castUserType).
func UserTypeCast(from, to Type, ctx CastContext) bool {
	switch {
	case from.OID == to.OID:
		return true
	case IsUserType(to):
		return from.OID == UnknownOID || from.OID == RecordOID || (IsString(from) && ctx == CastExplicit)
	case IsUserType(from):
		return IsString(to) && ctx >= CastAssignment
	}
	return false
}
