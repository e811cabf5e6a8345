package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// The function forms of jsonb's operators (jsonb_contains is @>, …), the
// path editors (jsonb_insert, jsonb_set_lax, jsonb_delete_path),
// json(b)_object and json_strip_nulls.

var textArrayType = Type{OID: TextArrayOID, Typmod: -1}

func jsonbArgs(a []Datum, i int) *jsonVal { return jsonbOf(a[i].Str()) }

func jsonbHasAny(v *jsonVal, keys []Datum) bool {
	for _, e := range keys {
		if !e.IsNull() && jsonbHasKey(v, e.Str()) {
			return true
		}
	}
	return false
}

func jsonbHasAll(v *jsonVal, keys []Datum) bool {
	for _, e := range keys {
		if !e.IsNull() && !jsonbHasKey(v, e.Str()) {
			return false
		}
	}
	return true
}

// jsonbDeleteIndex is jsonb - integer.
func jsonbDeleteIndex(v *jsonVal, i int64) (Datum, error) {
	switch v.kind {
	case jArray:
	case jObject:
		return Datum{}, errJSONB("cannot delete from object using integer index")
	default:
		return Datum{}, errJSONB("cannot delete from scalar")
	}
	if i < 0 {
		i += int64(len(v.arr))
	}
	out := &jsonVal{kind: jArray}
	for j, e := range v.arr {
		if int64(j) != i {
			out.arr = append(out.arr, e)
		}
	}
	return jsonbResult(out)
}

func jsonbDeleteKeysDatum(v *jsonVal, keys []Datum) (Datum, error) {
	var ks []string
	for _, e := range keys {
		if !e.IsNull() {
			ks = append(ks, e.Str())
		}
	}
	r, err := jsonbDeleteKeys(v, ks)
	if err != nil {
		return Datum{}, err
	}
	return jsonbResult(r)
}

// jsonbDeletePath is #- and jsonb_delete_path.
func jsonbDeletePath(a []Datum) (Datum, error) {
	v := jsonbArgs(a, 0)
	if v.kind != jObject && v.kind != jArray {
		return Datum{}, errJSONB("cannot delete path in scalar")
	}
	path := a[1].Elems()
	if len(path) == 0 || (v.kind == jObject && len(v.keys) == 0) || (v.kind == jArray && len(v.arr) == 0) {
		return a[0], nil
	}
	r, err := setPath(v, path, 0, nil, pathDelete)
	if err != nil {
		return Datum{}, err
	}
	return jsonbResult(r)
}

func jsonbInsert(a []Datum) (Datum, error) {
	v := jsonbArgs(a, 0)
	if v.kind != jObject && v.kind != jArray {
		return Datum{}, errJSONB("cannot set path in scalar")
	}
	path := a[1].Elems()
	if len(path) == 0 {
		return a[0], nil
	}
	op := pathInsertBefore
	if len(a) > 3 && a[3].Bool() {
		op = pathInsertAfter
	}
	r, err := setPath(v, path, 0, jsonbArgs(a, 2), op)
	if err != nil {
		return Datum{}, err
	}
	return jsonbResult(r)
}

func jsonbSetDatum(a []Datum, op pathOp) (Datum, error) {
	v := jsonbArgs(a, 0)
	if v.kind != jObject && v.kind != jArray {
		return Datum{}, errJSONB("cannot set path in scalar")
	}
	if len(a[1].Elems()) == 0 {
		return a[0], nil // an empty path changes nothing
	}
	r, err := setPath(v, a[1].Elems(), 0, jsonbArgs(a, 2), op)
	if err != nil {
		return Datum{}, err
	}
	return jsonbResult(r)
}

func errNullValueTreatment() error {
	return errJSONB(`null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`)
}

// jsonbSetLax is jsonb_set_lax(target, path, new_value, create_if_missing,
// null_value_treatment): jsonb_set, except for what an SQL NULL new value
// does.
func jsonbSetLax(a []Datum) (Datum, error) {
	if a[0].IsNull() || a[1].IsNull() || a[3].IsNull() {
		return Datum{}, nil
	}
	if a[4].IsNull() {
		return Datum{}, errNullValueTreatment()
	}
	op := pathCreate
	if !a[3].Bool() {
		op = pathReplace
	}
	if !a[2].IsNull() {
		return jsonbSetDatum(a, op)
	}
	switch a[4].Str() {
	case "raise_exception":
		return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "JSON value must not be null").
			WithDetail(`Exception was raised because null_value_treatment is "raise_exception".`).
			WithHint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")
	case "use_json_null":
		b := append([]Datum(nil), a...)
		b[2] = jsonbDatum(&jsonVal{kind: jNull})
		return jsonbSetDatum(b, op)
	case "delete_key":
		return jsonbDeletePath(a)
	case "return_target":
		return a[0], nil
	}
	return Datum{}, errNullValueTreatment()
}

func errObjectKeyNull() error {
	return pgerr.Errorf(pgerr.NullValueNotAllowed, "null value not allowed for object key")
}

// jsonObjectPairs is json(b)_object's pairs: one array of alternating keys
// and values, or an array of keys and one of values.
func jsonObjectPairs(a []Datum) (*jsonVal, error) {
	out := &jsonVal{kind: jObject}
	var keys, vals []Datum
	if len(a) == 1 {
		e := a[0].Elems()
		if len(e)%2 != 0 {
			return nil, pgerr.Errorf(errArraySubscript, "array must have even number of elements")
		}
		for i := 0; i < len(e); i += 2 {
			keys, vals = append(keys, e[i]), append(vals, e[i+1])
		}
	} else {
		keys, vals = a[0].Elems(), a[1].Elems()
		if (len(keys) == 0) != (len(vals) == 0) {
			return nil, pgerr.Errorf(errArraySubscript, "wrong number of array subscripts")
		}
		if len(keys) != len(vals) {
			return nil, pgerr.Errorf(errArraySubscript, "mismatched array dimensions")
		}
	}
	for i, k := range keys {
		if k.IsNull() {
			return nil, errObjectKeyNull()
		}
		v := &jsonVal{kind: jNull}
		if !vals[i].IsNull() {
			v = &jsonVal{kind: jString, str: vals[i].Str()}
		}
		out.keys = append(out.keys, k.Str())
		out.vals = append(out.vals, v)
	}
	return out, nil
}

// appendJSONObjectText writes json_object's text: {"k" : "v", "k2" : null}.
func appendJSONObjectText(dst []byte, v *jsonVal) []byte {
	dst = append(dst, '{')
	for i, k := range v.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, " : "...)
		if v.vals[i].kind == jNull {
			dst = append(dst, "null"...)
		} else {
			dst = appendJSONString(dst, v.vals[i].str)
		}
	}
	return append(dst, '}')
}

// appendJSONStripped writes json_strip_nulls' output: the document
// without object members whose value is null, compact, duplicates kept.
func appendJSONStripped(dst []byte, v *jsonVal) []byte {
	switch v.kind {
	case jObject:
		dst = append(dst, '{')
		n := 0
		for i, k := range v.keys {
			if v.vals[i].kind == jNull {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSONStripped(dst, v.vals[i])
		}
		return append(dst, '}')
	case jArray:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONStripped(dst, e)
		}
		return append(dst, ']')
	case jString:
		return appendJSONString(dst, v.str)
	}
	return append(dst, strings.TrimSpace(v.raw)...)
}

func init() {
	jj := []Type{JSONB, JSONB}
	fn("jsonb_contains", jj, Boolean, func(a []Datum) (Datum, error) {
		return Bool(jsonbContains(jsonbArgs(a, 0), jsonbArgs(a, 1), true)), nil
	})
	fn("jsonb_contained", jj, Boolean, func(a []Datum) (Datum, error) {
		return Bool(jsonbContains(jsonbArgs(a, 1), jsonbArgs(a, 0), true)), nil
	})
	fn("jsonb_exists", []Type{JSONB, Text}, Boolean, func(a []Datum) (Datum, error) {
		return Bool(jsonbHasKey(jsonbArgs(a, 0), a[1].Str())), nil
	})
	fn("jsonb_exists_any", []Type{JSONB, textArrayType}, Boolean, func(a []Datum) (Datum, error) {
		return Bool(jsonbHasAny(jsonbArgs(a, 0), a[1].Elems())), nil
	})
	fn("jsonb_exists_all", []Type{JSONB, textArrayType}, Boolean, func(a []Datum) (Datum, error) {
		return Bool(jsonbHasAll(jsonbArgs(a, 0), a[1].Elems())), nil
	})
	fn("jsonb_delete", []Type{JSONB, Text}, JSONB, func(a []Datum) (Datum, error) {
		return jsonbDeleteKeysDatum(jsonbArgs(a, 0), a[1:2])
	})
	fn("jsonb_delete", []Type{JSONB, textArrayType}, JSONB, func(a []Datum) (Datum, error) {
		return jsonbDeleteKeysDatum(jsonbArgs(a, 0), a[1].Elems())
	})
	fn("jsonb_delete", []Type{JSONB, Int4}, JSONB, func(a []Datum) (Datum, error) {
		return jsonbDeleteIndex(jsonbArgs(a, 0), a[1].Int())
	})
	addOp("#-", &Func{Args: []Type{JSONB, textArrayType}, Ret: JSONB, Fn: jsonbDeletePath})
	fn("jsonb_delete_path", []Type{JSONB, textArrayType}, JSONB, jsonbDeletePath)
	fn("jsonb_concat", jj, JSONB, func(a []Datum) (Datum, error) {
		return jsonbResult(jsonbConcat(jsonbArgs(a, 0), jsonbArgs(a, 1)))
	})
	fn("jsonb_insert", []Type{JSONB, textArrayType, JSONB}, JSONB, jsonbInsert)
	fn("jsonb_insert", []Type{JSONB, textArrayType, JSONB, Boolean}, JSONB, jsonbInsert)
	lax := func(a []Datum) (Datum, error) {
		b := append([]Datum(nil), a...)
		if len(b) < 4 {
			b = append(b, Bool(true))
		}
		if len(b) < 5 {
			b = append(b, Str("use_json_null"))
		}
		return jsonbSetLax(b)
	}
	for _, args := range [][]Type{
		{JSONB, textArrayType, JSONB},
		{JSONB, textArrayType, JSONB, Boolean},
		{JSONB, textArrayType, JSONB, Boolean, Text},
	} {
		addFunc("jsonb_set_lax", &Func{Args: args, Ret: JSONB, Fn: lax})
	}
	fn("json_strip_nulls", []Type{JSON}, JSON, func(a []Datum) (Datum, error) {
		return Str(string(appendJSONStripped(nil, jsonIn(JSONOID, a[0].Str())))), nil
	})
	for _, args := range [][]Type{{textArrayType}, {textArrayType, textArrayType}} {
		fn("json_object", args, JSON, func(a []Datum) (Datum, error) {
			v, err := jsonObjectPairs(a)
			if err != nil {
				return Datum{}, err
			}
			return Str(string(appendJSONObjectText(nil, v))), nil
		})
		fn("jsonb_object", args, JSONB, func(a []Datum) (Datum, error) {
			v, err := jsonObjectPairs(a)
			if err != nil {
				return Datum{}, err
			}
			normalizeJSONB(v)
			return jsonbResult(v)
		})
	}
}

// recordToJSON is composite_to_json: an object of the record's fields
// (f1, f2, … for an anonymous record), keeping the compact json text
// PostgreSQL writes ({"f1":1,"f2":"a"}, fields separated by sep).
func recordToJSON(st *Settings, t Type, d Datum, jsonb bool, sep string) (*jsonVal, error) {
	fts, vals := RecordFields(d)
	var names []string
	if comp := compositeOf(st, t); comp != nil {
		names = comp.Fields
	}
	out := &jsonVal{kind: jObject}
	raw := []byte{'{'}
	for i, v := range vals {
		name := "f" + strconv.Itoa(i+1)
		if i < len(names) {
			name = names[i]
		}
		jv, err := toJSON(st, fts[i], v, jsonb)
		if err != nil {
			return nil, err
		}
		out.keys, out.vals = append(out.keys, name), append(out.vals, jv)
		if i > 0 {
			raw = append(raw, sep...)
		}
		raw = append(appendJSONString(raw, name), ':')
		raw = appendJSONText(raw, jv, ":")
	}
	out.raw = string(append(raw, '}'))
	if jsonb {
		normalizeJSONB(out)
	}
	return out, nil
}

// rowArrayJSONCall resolves row_to_json(record [, pretty]) and
// array_to_json(anyarray [, pretty]); pretty puts a newline after each
// top-level comma.
func rowArrayJSONCall(lname string, in []Type) *Func {
	if (lname != "row_to_json" && lname != "array_to_json") || len(in) < 1 || len(in) > 2 {
		return nil
	}
	t := in[0]
	if lname == "row_to_json" && t.OID != RecordOID && !IsUserType(t) || lname == "array_to_json" && !IsArray(t) {
		return nil
	}
	if len(in) == 2 && in[1].OID != BoolOID && in[1].OID != UnknownOID {
		return nil
	}
	args := []Type{t}
	if len(in) == 2 {
		args = append(args, Boolean)
	}
	f := func(st *Settings, a []Datum) (Datum, error) {
		sep := ","
		if len(a) == 2 && a[1].Bool() {
			sep = ",\n "
		}
		if lname == "row_to_json" {
			v, err := recordToJSON(st, t, a[0], false, sep)
			if err != nil {
				return Datum{}, err
			}
			return Str(v.raw), nil
		}
		v, err := toJSON(st, t, a[0], false)
		if err != nil {
			return Datum{}, err
		}
		b := []byte{'['}
		for i, e := range v.arr {
			if i > 0 {
				b = append(b, sep...)
			}
			b = appendJSONText(b, e, ":")
		}
		return Str(string(append(b, ']'))), nil
	}
	return &Func{Name: lname, Args: args, Ret: JSON, Strict: true, Stable: true, FnWith: f,
		Fn: func(a []Datum) (Datum, error) { return f(nil, a) }}
}
