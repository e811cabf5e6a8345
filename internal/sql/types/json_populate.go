package types

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// json(b)_populate_record(set) and json(b)_to_record(set): JSON objects
// to rows of a composite type (the first argument's) or of the caller's
// column definition list. Each column takes the member of its name (the
// last one of duplicates); a missing member keeps the base record's
// field (populate_record) or is NULL. A member becomes the column's
// value as PostgreSQL's populate_record_field does: JSON null is NULL,
// json/jsonb columns take the member as JSON, arrays take JSON arrays
// (or a string in array-literal form), composites take objects (or a
// record-literal string), anything else is the type's input function
// applied to the string's text or the member's JSON text.

type populateKind struct {
	name   string
	jsonb  bool
	set    bool // …_recordset
	record bool // json(b)_to_record(set): columns from the definition list
}

func init() {
	for _, k := range []populateKind{
		{"json_populate_record", false, false, false}, {"jsonb_populate_record", true, false, false},
		{"json_populate_recordset", false, true, false}, {"jsonb_populate_recordset", true, true, false},
		{"json_to_record", false, false, true}, {"jsonb_to_record", true, false, true},
		{"json_to_recordset", false, true, true}, {"jsonb_to_recordset", true, true, true},
	} {
		k := k
		jt := JSON
		if k.jsonb {
			jt = JSONB
		}
		argLists := [][]Type{{Any, jt}, {Record, jt}} // Any takes no record
		if k.record {
			argLists = [][]Type{{jt}}
		}
		for _, args := range argLists {
			srfs[k.name] = append(srfs[k.name], &SRF{Name: k.name, Args: args, Ret: Record, NonStrict: !k.record,
				Shape: k.shape})
		}
	}
}

// shape makes the SRF for the call's argument types and column
// definition list.
func (k populateKind) shape(call SRFCall) (*SRF, error) {
	st, in, coldef := call.Settings, call.Args, call.ColDef
	cols := coldef
	var comp *Composite
	if !k.record && in[0].OID != RecordOID && in[0].OID != UnknownOID {
		comp = compositeOf(st, in[0])
		if comp == nil {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "first argument of %s must be a row type", k.name)
		}
		if len(coldef) > 0 {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "a column definition list is redundant for a function returning a named composite type")
		}
		cols = nil
		for i, f := range comp.Fields {
			cols = append(cols, SRFColumn{Name: f, Type: comp.Types[i]})
		}
	}
	if len(cols) == 0 && call.TargetList && !k.record {
		return k.recordShaped(st, in), nil
	}
	if len(cols) == 0 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\"")
	}
	jsonArg := 1
	if k.record {
		jsonArg = 0
	}
	jt := JSON
	if k.jsonb {
		jt = JSONB
	}
	args := []Type{jt}
	if !k.record {
		first := in[0]
		if first.OID == UnknownOID {
			first = Record
		}
		args = []Type{first, jt}
	}
	srf := &SRF{Name: k.name, Args: args, Ret: Record, Cols: cols, NonStrict: true}
	srf.FnRows = func(a []Datum) (func() ([]Datum, bool, error), error) {
		if a[jsonArg].IsNull() {
			return noRows, nil
		}
		var base []Datum
		if !k.record && !a[0].IsNull() {
			var bts []Type
			bts, base = RecordFields(a[0])
			if err := checkRowMatch(bts, cols); err != nil {
				return nil, err
			}
		}
		docs, err := k.objects(jsonIn(jsonOID(k.jsonb), a[jsonArg].Str()))
		if err != nil {
			return nil, err
		}
		i := 0
		return func() ([]Datum, bool, error) {
			if i >= len(docs) {
				return nil, false, nil
			}
			i++
			row, err := populateRow(st, k.jsonb, cols, docs[i-1], base)
			return row, err == nil, err
		}, nil
	}
	return srf, nil
}

func noRows() ([]Datum, bool, error) { return nil, false, nil }

func jsonOID(jsonb bool) OID {
	if jsonb {
		return JSONBOID
	}
	return JSONOID
}

// objects is the JSON objects the call makes rows of.
func (k populateKind) objects(v *jsonVal) ([]*jsonVal, error) {
	if !k.set {
		switch v.kind {
		case jObject:
			return []*jsonVal{v}, nil
		case jArray:
			return nil, errJSONB("cannot call populate_composite on an array")
		}
		return nil, errJSONB("cannot call populate_composite on a scalar")
	}
	if v.kind != jArray {
		if k.jsonb {
			return nil, errJSONB("cannot call %s on a non-array", k.name)
		}
		if v.kind == jObject {
			return nil, errJSONB("cannot call %s on an object", k.name)
		}
		return nil, errJSONB("cannot call %s on a scalar", k.name)
	}
	for _, e := range v.arr {
		if e.kind != jObject {
			return nil, errJSONB("argument of %s must be an array of objects", k.name)
		}
	}
	return v.arr, nil
}

func populateRow(st *Settings, jsonb bool, cols []SRFColumn, obj *jsonVal, base []Datum) ([]Datum, error) {
	row := make([]Datum, len(cols))
	for i, c := range cols {
		m := obj.field(c.Name)
		if m == nil {
			if base != nil {
				row[i] = base[i]
			}
			continue
		}
		d, err := populateField(st, jsonb, c.Type, m, c.Name)
		if err != nil {
			return nil, err
		}
		row[i] = d
	}
	return row, nil
}

// populateField converts member v (of key name) to type t.
func populateField(st *Settings, jsonb bool, t Type, v *jsonVal, name string) (Datum, error) {
	if v.kind == jNull && t.OID != JSONOID && t.OID != JSONBOID {
		return Datum{}, nil
	}
	switch {
	case t.OID == JSONOID:
		if jsonb {
			return Str(string(appendJSONB(nil, v))), nil
		}
		return Str(v.raw), nil
	case t.OID == JSONBOID:
		normalizeJSONB(v)
		return jsonbResult(v)
	}
	if et, ok := ElemType(t); ok && t.OID != Int2VectorOID {
		if v.kind == jString {
			return ParseWith(st, t, v.str)
		}
		if v.kind != jArray {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "expected JSON array").
				WithHint("See the value of key \"%s\".", name)
		}
		dims := jsonArrayDims(v)
		if err := checkJSONArrayShape(v, dims, 0, "", name); err != nil {
			return Datum{}, err
		}
		if len(dims) > 1 {
			return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported yet")
		}
		var elems []Datum
		for _, e := range v.arr {
			d, err := populateField(st, jsonb, et, e, name)
			if err != nil {
				return Datum{}, err
			}
			elems = append(elems, d)
		}
		return Array(elems), nil
	}
	if comp := compositeOf(st, t); comp != nil {
		if v.kind == jString {
			return ParseWith(st, t, v.str)
		}
		if v.kind != jObject {
			what := "an array"
			if v.kind != jArray {
				what = "a scalar"
			}
			return Datum{}, errJSONB("cannot call populate_composite on %s", what)
		}
		var cols []SRFColumn
		for i, f := range comp.Fields {
			cols = append(cols, SRFColumn{Name: f, Type: comp.Types[i]})
		}
		row, err := populateRow(st, jsonb, cols, v, nil)
		if err != nil {
			return Datum{}, err
		}
		return RecordValue(comp.Types, row), nil
	}
	text := v.str
	switch {
	case v.kind == jString:
	case jsonb && (v.kind == jArray || v.kind == jObject):
		text = string(appendJSONB(nil, v))
	case !jsonb:
		text = strings.TrimSpace(v.raw)
	}
	return ParseWith(st, t, text)
}

// recordShaped is json(b)_populate_record(set) of an anonymous record in
// a target list: each row is a record of the argument's fields (f1, f2,
// …), known only when the call runs.
func (k populateKind) recordShaped(st *Settings, in []Type) *SRF {
	jt := JSON
	if k.jsonb {
		jt = JSONB
	}
	return &SRF{Name: k.name, Args: []Type{Record, jt}, Ret: Record, NonStrict: true,
		Fn: func(a []Datum) (func() (Datum, bool, error), error) {
			if a[0].IsNull() {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "could not determine row type for result of %s", k.name).
					WithHint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list.")
			}
			if a[1].IsNull() {
				return func() (Datum, bool, error) { return Datum{}, false, nil }, nil
			}
			ts, base := RecordFields(a[0])
			cols := make([]SRFColumn, len(ts))
			for i, t := range ts {
				cols[i] = SRFColumn{Name: "f" + strconv.Itoa(i+1), Type: t}
			}
			docs, err := k.objects(jsonIn(jsonOID(k.jsonb), a[1].Str()))
			if err != nil {
				return nil, err
			}
			i := 0
			return func() (Datum, bool, error) {
				if i >= len(docs) {
					return Datum{}, false, nil
				}
				i++
				row, err := populateRow(st, k.jsonb, cols, docs[i-1], base)
				if err != nil {
					return Datum{}, false, err
				}
				return RecordValue(ts, row), true, nil
			}, nil
		}}
}

// checkRowMatch refuses a base record whose fields are not the columns
// the query expects.
func checkRowMatch(ts []Type, cols []SRFColumn) error {
	mismatch := func() *pgerr.Error {
		return pgerr.Errorf(pgerr.DatatypeMismatch, "function return row and query-specified return row do not match")
	}
	if len(ts) != len(cols) {
		return mismatch().WithDetail("Returned row contains %d attributes, but query expects %d.", len(ts), len(cols))
	}
	for i, t := range ts {
		if t.OID != cols[i].Type.OID {
			return mismatch().WithDetail("Returned type %s at ordinal position %d, but query expects %s.", t, i+1, cols[i].Type)
		}
	}
	return nil
}

// jsonArrayDims is the shape a JSON array gives an SQL array: the lengths
// along its first elements, as PostgreSQL reads them.
func jsonArrayDims(v *jsonVal) []int {
	var dims []int
	for v.kind == jArray {
		dims = append(dims, len(v.arr))
		if len(v.arr) == 0 {
			break
		}
		v = v.arr[0]
	}
	return dims
}

// checkJSONArrayShape refuses a JSON array whose sub-arrays do not all
// have the shape of the first, with PostgreSQL's messages.
func checkJSONArrayShape(v *jsonVal, dims []int, level int, at, key string) error {
	if level == len(dims) {
		return nil // an element; a JSON array here goes to the element type's input as text
	}
	if v.kind != jArray {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "expected JSON array").
			WithHint("See the array element %s of key \"%s\".", at, key)
	}
	if len(v.arr) != dims[level] {
		return pgerr.Errorf(pgerr.InvalidTextRepresentation, "malformed JSON array").
			WithDetail("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	for i, e := range v.arr {
		if err := checkJSONArrayShape(e, dims, level+1, at+"["+strconv.Itoa(i)+"]", key); err != nil {
			return err
		}
	}
	return nil
}
