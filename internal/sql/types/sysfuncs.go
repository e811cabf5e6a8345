package types

import (
	"strconv"
	"strings"
)

// VersionString is what version() returns.
const VersionString = "PostgreSQL 17.0 (tidal 0.1) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

// FormatType is format_type(oid, typmod).
func FormatType(oid OID, typmod int32) string {
	if oid == 0 {
		return "-"
	}
	t := Type{OID: oid, Typmod: typmod}
	if !t.Known() {
		return "???"
	}
	if typmod < 0 {
		// format_type without a typmod prints bpchar as "character".
		if oid == BpcharOID {
			return "character"
		}
	}
	return t.String()
}

// The system information functions that psql, pgbench and drivers call.
// Functions that need the catalog live in the executor.
func init() {
	nameArr, _ := ArrayOf(Name)
	fn("current_schemas", []Type{Boolean}, nameArr, func(a []Datum) (Datum, error) {
		if a[0].Bool() {
			return Array([]Datum{Str("pg_catalog"), Str("public")}), nil
		}
		return Array([]Datum{Str("public")}), nil
	})
	fn("current_schema", nil, Name, func([]Datum) (Datum, error) { return Str("public"), nil })
	fn("current_database", nil, Name, func([]Datum) (Datum, error) { return Str("postgres"), nil })
	fn("version", nil, Text, func([]Datum) (Datum, error) { return Str(VersionString), nil })
	addFunc("format_type", &Func{Args: []Type{Oid, Int4}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Datum{}, nil
		}
		tm := int32(-1)
		if !a[1].IsNull() {
			tm = int32(a[1].Int())
		}
		return Str(FormatType(OID(a[0].Int()), tm)), nil
	}, FnWith: func(st *Settings, a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Datum{}, nil
		}
		tm := int32(-1)
		if !a[1].IsNull() {
			tm = int32(a[1].Int())
		}
		return Str(FormatTypeWith(st, OID(a[0].Int()), tm)), nil
	}})
	fn("pg_get_userbyid", []Type{Oid}, Name, func(a []Datum) (Datum, error) {
		if a[0].Int() == 10 {
			return Str("postgres"), nil
		}
		return Str("unknown (OID=" + strconv.FormatInt(a[0].Int(), 10) + ")"), nil
	})
	fn("pg_encoding_to_char", []Type{Int4}, Name, func(a []Datum) (Datum, error) {
		if a[0].Int() == 6 {
			return Str("UTF8"), nil
		}
		if a[0].Int() == 0 {
			return Str("SQL_ASCII"), nil
		}
		return Str(""), nil
	})
	fn("pg_char_to_encoding", []Type{Name}, Int4, func(a []Datum) (Datum, error) {
		if strings.EqualFold(a[0].Str(), "UTF8") {
			return Int(6), nil
		}
		return Int(-1), nil
	})
	fn("getdatabaseencoding", nil, Name, func([]Datum) (Datum, error) { return Str("UTF8"), nil })
	fn("pg_is_in_recovery", nil, Boolean, func([]Datum) (Datum, error) { return Bool(false), nil })
	for _, visible := range []string{"pg_type_is_visible", "pg_function_is_visible", "pg_opclass_is_visible", "pg_collation_is_visible", "pg_ts_config_is_visible", "pg_statistics_obj_is_visible"} {
		fn(visible, []Type{Oid}, Boolean, func([]Datum) (Datum, error) { return Bool(true), nil })
	}
	null := func([]Datum) (Datum, error) { return Datum{}, nil }
	fn("obj_description", []Type{Oid, Name}, Text, null)
	fn("obj_description", []Type{Oid}, Text, null)
	fn("shobj_description", []Type{Oid, Name}, Text, null)
	fn("col_description", []Type{Oid, Int4}, Text, null)
	// pg_get_expr: tidal stores expressions (pg_attrdef.adbin) as SQL text.
	fn("pg_get_expr", []Type{Text, Oid}, Text, func(a []Datum) (Datum, error) { return a[0], nil })
	fn("pg_get_expr", []Type{Text, Oid, Boolean}, Text, func(a []Datum) (Datum, error) { return a[0], nil })
	fn("quote_ident", []Type{Text}, Text, func(a []Datum) (Datum, error) { return Str(QuoteIdent(a[0].Str())), nil })
	fn("pg_postmaster_start_time", nil, Timestamptz, func([]Datum) (Datum, error) { return TimestampMicros(0), nil })
	fn("inet_server_port", nil, Int4, func([]Datum) (Datum, error) { return Datum{}, nil })
	fn("pg_tablespace_location", []Type{Oid}, Text, func([]Datum) (Datum, error) { return Str(""), nil })
	fn("array_to_string", []Type{Int2VectorType, Text}, Text, func(a []Datum) (Datum, error) {
		var parts []string
		for _, v := range a[0].Int2Vector() {
			parts = append(parts, strconv.Itoa(int(v)))
		}
		return Str(strings.Join(parts, a[1].Str())), nil
	})
}

// QuoteIdent quotes an identifier when needed, as quote_ident: unless it
// is lower-case letters, digits and underscores, not starting with a
// digit, and no keyword but an unreserved one.
func QuoteIdent(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || (i > 0 && c >= '0' && c <= '9')) {
			safe = false
		}
	}
	if safe && !isQuotedKeyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
