package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// regtype: an oid of pg_type that prints as the type's name, the result
// type of pg_typeof(). Held and stored like oid (an unsigned 32-bit
// integer); its text form is format_type(oid, NULL).

// RegtypeOID is pg_type's OID of regtype.
const RegtypeOID = datum.RegtypeOID

// Regtype is the regtype type.
var Regtype = datum.Regtype

var infoRegtype = typeInfo{"regtype", "regtype", 'N', false}

// parseRegtype is regtypein: a type name, or a numeric OID.
func parseRegtype(s string) (Datum, error) {
	s = strings.TrimFunc(s, isSpaceRune)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		v, err := parseOid(s)
		return Int(v), err
	}
	var names []string
	for _, part := range strings.Split(s, ".") {
		names = append(names, strings.Trim(strings.TrimFunc(part, isSpaceRune), `"`))
	}
	t, err := LookupTypeName(names, nil)
	if err != nil {
		return Datum{}, pgerr.Errorf(pgerr.UndefinedObject, "type %q does not exist", s)
	}
	return Int(int64(t.OID)), nil
}

// parseRegtypeWith is parseRegtype that also knows the session's
// user-defined types.
func parseRegtypeWith(st *Settings, s string) (Datum, error) {
	d, err := parseRegtype(s)
	if err == nil || st == nil || st.UserTypes == nil {
		return d, err
	}
	var names []string
	for _, part := range strings.Split(strings.TrimFunc(s, isSpaceRune), ".") {
		names = append(names, strings.Trim(strings.TrimFunc(part, isSpaceRune), `"`))
	}
	if oid := st.UserTypes.TypeOID(names); oid != 0 {
		return Int(int64(oid)), nil
	}
	return d, err
}

// appendRegtypeWith is appendRegtype that also knows the session's
// user-defined types.
func appendRegtypeWith(st *Settings, dst []byte, oid int64) []byte {
	if _, ok := TypeByOID(OID(oid)); !ok && oid != 0 && st != nil && st.UserTypes != nil {
		if n := st.UserTypes.TypeName(OID(oid)); n != "" {
			return append(dst, n...)
		}
	}
	return appendRegtype(dst, oid)
}

// FormatTypeWith is FormatType that also knows the session's
// user-defined types.
func FormatTypeWith(st *Settings, oid OID, typmod int32) string {
	if _, ok := TypeByOID(oid); !ok && oid != 0 && st != nil && st.UserTypes != nil {
		if n := st.UserTypes.TypeName(oid); n != "" {
			return n
		}
	}
	return FormatType(oid, typmod)
}

// appendRegtype is regtypeout: the type's format_type name, or the number
// when the OID is no known type ("-" for 0).
func appendRegtype(dst []byte, oid int64) []byte {
	if oid == 0 {
		return append(dst, '-')
	}
	if t, ok := TypeByOID(OID(oid)); ok {
		return append(dst, t.String()...)
	}
	return strconv.AppendInt(dst, oid, 10)
}

// regtypeCastContext is pg_cast for regtype: to and from oid (binary
// coercible), from integers implicitly, to integers on assignment.
func regtypeCastContext(from, to OID) (CastContext, bool) {
	switch {
	case to == RegtypeOID:
		switch from {
		case OidOID, Int4OID, Int8OID, Int2OID:
			return CastImplicit, true
		}
	case from == RegtypeOID:
		switch to {
		case OidOID, Int8OID:
			return CastImplicit, true
		case Int4OID:
			return CastAssignment, true
		}
	}
	return 0, false
}

func init() {
	typeNames["regtype"] = RegtypeOID
	// pg_typeof is not strict: pg_typeof(NULL) is unknown.
	addFunc("pg_typeof", &Func{Args: []Type{Any}, Ret: Regtype, Stable: true, keepUnknown: true, poly: func(actual []Type) *Func {
		oid := actual[0].OID
		return &Func{Name: "pg_typeof", Args: actual, Ret: Regtype, Stable: true, Fn: func([]Datum) (Datum, error) {
			return Int(int64(oid)), nil
		}}
	}})
}
