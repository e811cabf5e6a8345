package types

import "github.com/tidal-db/tidal/internal/pgerr"

// The results of json_agg, jsonb_agg, json_object_agg and
// jsonb_object_agg over the values (and keys) the executor collected:
// NULL values are JSON nulls; a NULL key is refused as the row arrives
// (ErrJSONAggNullKey). json keeps PostgreSQL's text layout: "[1, 2]",
// a newline before each later array or composite element, and
// "{ "k" : v, "k2" : v2 }".

// ErrJSONAggNullKey is json(b)_object_agg's error for a NULL key.
func ErrJSONAggNullKey() error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, "field name must not be null")
}

// IsJSONAgg reports whether name is one of the JSON aggregates, and
// whether it takes a key and a value.
func IsJSONAgg(name string) (ok, object bool) {
	switch name {
	case "json_agg", "jsonb_agg":
		return true, false
	case "json_object_agg", "jsonb_object_agg":
		return true, true
	}
	return false, false
}

// JSONAggResultType is the aggregate's result type.
func JSONAggResultType(name string) Type {
	if name == "jsonb_agg" || name == "jsonb_object_agg" {
		return JSONB
	}
	return JSON
}

// JSONAggResult builds the aggregate's result.
func JSONAggResult(st *Settings, name string, kt, vt Type, keys, vals []Datum) (Datum, error) {
	jsonb := JSONAggResultType(name).OID == JSONBOID
	_, object := IsJSONAgg(name)
	var b []byte
	out := &jsonVal{kind: jArray}
	if object {
		out.kind = jObject
		b = append(b, "{ "...)
	} else {
		b = append(b, '[')
	}
	structured := IsArray(vt) || vt.OID == RecordOID || compositeOf(st, vt) != nil
	for i, d := range vals {
		v, err := toJSON(st, vt, d, jsonb)
		if err != nil {
			return Datum{}, err
		}
		if object {
			k, err := jsonKey(st, kt, keys[i])
			if err != nil {
				return Datum{}, err
			}
			out.keys, out.vals = append(out.keys, k), append(out.vals, v)
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONString(b, k)
			b = append(b, " : "...)
			b = appendJSONText(b, v, " : ")
			continue
		}
		out.arr = append(out.arr, v)
		if i > 0 {
			b = append(b, ", "...)
			if structured && !d.IsNull() {
				b = append(b, "\n "...)
			}
		}
		b = appendJSONText(b, v, " : ")
	}
	if jsonb {
		normalizeJSONB(out)
		return jsonbResult(out)
	}
	if object {
		return Str(string(append(b, " }"...))), nil
	}
	return Str(string(append(b, ']'))), nil
}

// jsonKey is an object key made of a SQL value: its text; arrays,
// composites and JSON are refused.
func jsonKey(st *Settings, t Type, d Datum) (string, error) {
	if IsArray(t) || t.OID == RecordOID || t.OID == JSONOID || t.OID == JSONBOID || compositeOf(st, t) != nil {
		return "", errJSONB("key value must be scalar, not array, composite, or json")
	}
	v, err := toJSON(st, t, d, false)
	if err != nil {
		return "", err
	}
	if v.kind == jString {
		return v.str, nil
	}
	return string(AppendTextWith(st, nil, t, d)), nil
}
