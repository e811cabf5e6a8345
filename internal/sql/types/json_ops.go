package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// json/jsonb operators and functions.

func jsonTypeName(k jsonKind) string {
	return [...]string{"null", "string", "number", "boolean", "array", "object"}[k]
}

// jsonIn parses a json or jsonb datum for an operator.
func jsonIn(t OID, s string) *jsonVal {
	if t == JSONBOID {
		return jsonbOf(s)
	}
	v, err := parseJSONValue(s, false)
	if err != nil {
		return &jsonVal{kind: jNull, raw: "null"}
	}
	return v
}

// jsonOut renders a sub-value as the operator's result type.
func jsonOut(t OID, v *jsonVal) Datum {
	if t == JSONOID {
		return Str(v.raw)
	}
	return jsonbDatum(v)
}

// jsonText is the ->> / #>> result: strings unquoted, null as SQL NULL.
func jsonText(t OID, v *jsonVal) Datum {
	switch v.kind {
	case jNull:
		return Datum{}
	case jString:
		return Str(v.str)
	case jNumber, jBool:
		if t == JSONOID {
			return Str(v.raw)
		}
		return Str(v.str)
	}
	if t == JSONOID {
		return Str(v.raw)
	}
	return Str(string(appendJSONB(nil, v)))
}

func (v *jsonVal) field(k string) *jsonVal {
	if v.kind != jObject {
		return nil
	}
	// json keeps duplicates: the last one wins, as PostgreSQL's json ->
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == k {
			return v.vals[i]
		}
	}
	return nil
}

func (v *jsonVal) index(i int64) *jsonVal {
	if v.kind != jArray {
		return nil
	}
	if i < 0 {
		i += int64(len(v.arr))
	}
	if i < 0 || i >= int64(len(v.arr)) {
		return nil
	}
	return v.arr[i]
}

func (v *jsonVal) path(elems []Datum) *jsonVal {
	cur := v
	for _, e := range elems {
		if e.IsNull() {
			return nil
		}
		switch cur.kind {
		case jObject:
			cur = cur.field(e.Str())
		case jArray:
			n, err := strconv.ParseInt(strings.TrimSpace(e.Str()), 10, 64)
			if err != nil {
				return nil
			}
			cur = cur.index(n)
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

// jsonbContains is @>: b's structure is found in a.
func jsonbContains(a, b *jsonVal, top bool) bool {
	if a.kind != b.kind {
		if top && a.kind == jArray && b.kind != jObject && b.kind != jArray {
			for _, e := range a.arr {
				if compareJSONVals(e, b) == 0 {
					return true
				}
			}
		}
		return false
	}
	switch a.kind {
	case jObject:
		for i, k := range b.keys {
			av := a.field(k)
			if av == nil || !jsonbContains(av, b.vals[i], false) {
				return false
			}
		}
		return true
	case jArray:
		for _, be := range b.arr {
			found := false
			for _, ae := range a.arr {
				if ae.kind == be.kind && jsonbContains(ae, be, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return compareJSONVals(a, b) == 0
}

func jsonbHasKey(v *jsonVal, k string) bool {
	switch v.kind {
	case jObject:
		return v.field(k) != nil
	case jArray:
		for _, e := range v.arr {
			if e.kind == jString && e.str == k {
				return true
			}
		}
	case jString:
		return v.str == k
	}
	return false
}

func jsonbConcat(a, b *jsonVal) *jsonVal {
	if a.kind == jObject && b.kind == jObject {
		out := &jsonVal{kind: jObject, keys: append([]string{}, a.keys...), vals: append([]*jsonVal{}, a.vals...)}
		out.keys = append(out.keys, b.keys...)
		out.vals = append(out.vals, b.vals...)
		normalizeJSONB(out)
		return out
	}
	elems := func(v *jsonVal) []*jsonVal {
		if v.kind == jArray {
			return v.arr
		}
		return []*jsonVal{v}
	}
	out := &jsonVal{kind: jArray}
	out.arr = append(append(out.arr, elems(a)...), elems(b)...)
	return out
}

func errJSONB(format string, args ...any) *pgerr.Error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, format, args...)
}

func jsonbDeleteKeys(v *jsonVal, keys []string) (*jsonVal, error) {
	switch v.kind {
	case jObject:
		out := &jsonVal{kind: jObject}
		for i, k := range v.keys {
			drop := false
			for _, d := range keys {
				if d == k {
					drop = true
				}
			}
			if !drop {
				out.keys = append(out.keys, k)
				out.vals = append(out.vals, v.vals[i])
			}
		}
		return out, nil
	case jArray:
		out := &jsonVal{kind: jArray}
		for _, e := range v.arr {
			drop := false
			for _, d := range keys {
				if e.kind == jString && e.str == d {
					drop = true
				}
			}
			if !drop {
				out.arr = append(out.arr, e)
			}
		}
		return out, nil
	}
	return nil, errJSONB("cannot delete from scalar")
}

// toJSON converts a SQL value to a JSON value (to_json/to_jsonb and the
// build functions): numbers stay numbers, booleans booleans, json is
// embedded, date/time values are ISO 8601 strings, arrays become arrays,
// everything else is its text output as a string.
func toJSON(st *Settings, t Type, d Datum, jsonb bool) (*jsonVal, error) {
	if d.IsNull() {
		return &jsonVal{kind: jNull, raw: "null", str: ""}, nil
	}
	switch {
	case t.OID == JSONBOID:
		v := jsonbOf(d.Str())
		if !jsonb {
			v.raw = string(jsonbText(nil, d.Str())) // json output embeds jsonb's text
		}
		return v, nil
	case t.OID == JSONOID:
		v, err := parseJSONValue(d.Str(), jsonb)
		if err != nil {
			return nil, err
		}
		if jsonb {
			normalizeJSONB(v)
		}
		return v, nil
	case t.OID == BoolOID:
		s := "false"
		if d.Bool() {
			s = "true"
		}
		return &jsonVal{kind: jBool, str: s, raw: s}, nil
	case IsInteger(t) || t.OID == OidOID:
		s := string(AppendText(nil, t, d))
		return &jsonVal{kind: jNumber, str: s, raw: s}, nil
	case t.OID == NumericOID:
		s := string(AppendText(nil, t, d))
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return &jsonVal{kind: jString, str: s}, nil
		}
		return &jsonVal{kind: jNumber, str: s, raw: s}, nil
	case IsFloat(t):
		s := string(AppendText(nil, t, d))
		f := d.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return &jsonVal{kind: jString, str: s}, nil
		}
		n := s
		if jsonb {
			var err error
			if n, err = jsonbNumber(s); err != nil {
				return nil, err
			}
		}
		return &jsonVal{kind: jNumber, str: n, raw: s}, nil
	case t.OID == TimestampOID, t.OID == TimestamptzOID, t.OID == DateOID:
		return &jsonVal{kind: jString, str: jsonDateTime(st, t, d)}, nil
	case t.OID == RecordOID || compositeOf(st, t) != nil:
		return recordToJSON(st, t, d, jsonb, ",")
	case IsArray(t):
		et, _ := ElemType(t)
		out := &jsonVal{kind: jArray}
		for _, e := range d.Elems() {
			v, err := toJSON(st, et, e, jsonb)
			if err != nil {
				return nil, err
			}
			out.arr = append(out.arr, v)
		}
		return out, nil
	}
	return &jsonVal{kind: jString, str: string(AppendTextWith(st, nil, t, d))}, nil
}

// jsonDateTime is JsonEncodeDateTime: ISO 8601 with a T and, for
// timestamptz, a full +hh:mm offset.
func jsonDateTime(st *Settings, t Type, d Datum) string {
	switch t.OID {
	case DateOID:
		return string(appendDate(nil, int32(d.Int())))
	case TimestampOID:
		if isInfTS(d.Int()) {
			return string(appendTimestamp(nil, d.Int(), false))
		}
		s := string(appendTimestampIn(nil, d.Int(), nil))
		return strings.Replace(s, " ", "T", 1)
	}
	if isInfTS(d.Int()) {
		return string(appendTimestamp(nil, d.Int(), false))
	}
	z := st.zone()
	off := z.OffsetAt(d.Int())
	s := string(appendTimestampIn(nil, d.Int(), nil))
	local := string(appendTimestampIn(nil, d.Int()+int64(off)*usecsPerSec, nil))
	_ = s
	bc := strings.HasSuffix(local, " BC")
	local = strings.TrimSuffix(local, " BC")
	local = strings.Replace(local, " ", "T", 1)
	var b []byte
	b = append(b, local...)
	abs := off
	if abs < 0 {
		b = append(b, '-')
		abs = -abs
	} else {
		b = append(b, '+')
	}
	b = append2(b, abs/3600)
	b = append(b, ':')
	b = append2(b, abs/60%60)
	if abs%60 != 0 {
		b = append(b, ':')
		b = append2(b, abs%60)
	}
	if bc {
		b = append(b, " BC"...)
	}
	return string(b)
}

// appendJSONText writes a built value as json text (json_build_object's
// "key" : value spacing; embedded json stays verbatim).
func appendJSONText(dst []byte, v *jsonVal, objSep string) []byte {
	switch v.kind {
	case jNull:
		return append(dst, "null"...)
	case jString:
		if v.raw != "" {
			return append(dst, v.raw...)
		}
		return appendJSONString(dst, v.str)
	case jNumber, jBool:
		if v.raw != "" {
			return append(dst, v.raw...)
		}
		return append(dst, v.str...)
	}
	if v.raw != "" {
		return append(dst, v.raw...)
	}
	if v.kind == jArray {
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONText(dst, e, objSep)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range v.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, objSep...)
		dst = appendJSONText(dst, v.vals[i], objSep)
	}
	return append(dst, '}')
}

// variadicJSON resolves json(b)_build_object / json(b)_build_array, which
// take any number of arguments of any types.
func variadicJSON(name string, in []Type) *Func {
	jsonb := strings.HasPrefix(name, "jsonb")
	isObj := strings.HasSuffix(name, "_object")
	if name != "json_build_object" && name != "jsonb_build_object" && name != "json_build_array" && name != "jsonb_build_array" {
		return nil
	}
	ts := append([]Type(nil), in...)
	for i, t := range ts {
		if t.OID == UnknownOID {
			ts[i] = Text
		}
		if t.OID == VoidOID {
			return nil
		}
	}
	ret := JSON
	if jsonb {
		ret = JSONB
	}
	f := func(st *Settings, a []Datum) (Datum, error) {
		if isObj && len(a)%2 != 0 {
			return Datum{}, pgerr.Errorf(pgerr.InvalidParameterValue, "argument list must have even number of elements").
				WithHint("The arguments of %s() must consist of alternating keys and values.", name)
		}
		out := &jsonVal{kind: jArray}
		if isObj {
			out.kind = jObject
		}
		for i := 0; i < len(a); i++ {
			if isObj && i%2 == 0 {
				if a[i].IsNull() && jsonb {
					return Datum{}, errJSONB("argument %d: key must not be null", i+1)
				}
				if a[i].IsNull() {
					return Datum{}, errJSONB("argument %d cannot be null", i+1).WithHint("Object keys should be text.")
				}
				k, err := jsonKey(st, ts[i], a[i])
				if err != nil {
					return Datum{}, err
				}
				out.keys = append(out.keys, k)
				continue
			}
			v, err := toJSON(st, ts[i], a[i], jsonb)
			if err != nil {
				return Datum{}, err
			}
			if isObj {
				out.vals = append(out.vals, v)
			} else {
				out.arr = append(out.arr, v)
			}
		}
		if jsonb {
			normalizeJSONB(out)
			return jsonbResult(out)
		}
		if !isObj {
			var b []byte
			b = append(b, '[')
			for i, e := range out.arr {
				if i > 0 {
					b = append(b, ", "...)
				}
				b = appendJSONText(b, e, " : ")
			}
			return Str(string(append(b, ']'))), nil
		}
		return Str(string(appendJSONText(nil, out, " : "))), nil
	}
	return &Func{Name: name, Args: ts, Ret: ret, Stable: true, FnWith: f, Fn: func(a []Datum) (Datum, error) { return f(nil, a) }}
}

func init() {
	for _, jt := range []Type{JSON, JSONB} {
		jt := jt
		t := jt.OID
		addOp("->", &Func{Args: []Type{jt, Text}, Ret: jt, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).field(a[1].Str()); v != nil {
				return jsonOut(t, v), nil
			}
			return Datum{}, nil
		}})
		addOp("->", &Func{Args: []Type{jt, Int4}, Ret: jt, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).index(a[1].Int()); v != nil {
				return jsonOut(t, v), nil
			}
			return Datum{}, nil
		}})
		addOp("->>", &Func{Args: []Type{jt, Text}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).field(a[1].Str()); v != nil {
				return jsonText(t, v), nil
			}
			return Datum{}, nil
		}})
		addOp("->>", &Func{Args: []Type{jt, Int4}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).index(a[1].Int()); v != nil {
				return jsonText(t, v), nil
			}
			return Datum{}, nil
		}})
		textArr := Type{OID: TextArrayOID, Typmod: -1}
		addOp("#>", &Func{Args: []Type{jt, textArr}, Ret: jt, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).path(a[1].Elems()); v != nil {
				return jsonOut(t, v), nil
			}
			return Datum{}, nil
		}})
		addOp("#>>", &Func{Args: []Type{jt, textArr}, Ret: Text, Fn: func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).path(a[1].Elems()); v != nil {
				return jsonText(t, v), nil
			}
			return Datum{}, nil
		}})
		prefix := "json"
		if t == JSONBOID {
			prefix = "jsonb"
		}
		fn(prefix+"_typeof", []Type{jt}, Text, func(a []Datum) (Datum, error) {
			return Str(jsonTypeName(jsonIn(t, a[0].Str()).kind)), nil
		})
		fn(prefix+"_array_length", []Type{jt}, Int4, func(a []Datum) (Datum, error) {
			v := jsonIn(t, a[0].Str())
			switch v.kind {
			case jArray:
				return Int(int64(len(v.arr))), nil
			case jObject:
				return Datum{}, errJSONB("cannot get array length of a non-array")
			}
			return Datum{}, errJSONB("cannot get array length of a scalar")
		})
		fn(prefix+"_extract_path", []Type{jt, textArr}, jt, func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).path(a[1].Elems()); v != nil {
				return jsonOut(t, v), nil
			}
			return Datum{}, nil
		})
		fn(prefix+"_extract_path_text", []Type{jt, textArr}, Text, func(a []Datum) (Datum, error) {
			if v := jsonIn(t, a[0].Str()).path(a[1].Elems()); v != nil {
				return jsonText(t, v), nil
			}
			return Datum{}, nil
		})
		jsonb := t == JSONBOID
		toPoly := func(actual []Type) *Func {
			at := actual[0]
			f := func(st *Settings, a []Datum) (Datum, error) {
				v, err := toJSON(st, at, a[0], jsonb)
				if err != nil {
					return Datum{}, err
				}
				if jsonb {
					return jsonbResult(v)
				}
				return Str(string(appendJSONText(nil, v, " : "))), nil
			}
			return &Func{Name: "to_" + prefix, Args: actual, Ret: jt, Strict: true, Stable: true, FnWith: f,
				Fn: func(a []Datum) (Datum, error) { return f(nil, a) }}
		}
		addFunc("to_"+prefix, &Func{Args: []Type{Any}, Ret: jt, poly: toPoly})
		addFunc("to_"+prefix, &Func{Args: []Type{Record}, Ret: jt, poly: toPoly})
		elemsSRF := func(name string, asText bool) {
			ret := jt
			if asText {
				ret = Text
			}
			srfs[name] = append(srfs[name], &SRF{Name: name, Args: []Type{jt}, Ret: ret, OutName: "value", Fn: func(x []Datum) (func() (Datum, bool, error), error) {
				v := jsonIn(t, x[0].Str())
				switch v.kind {
				case jArray:
				case jObject:
					return nil, errJSONB("cannot extract elements from an object")
				default:
					return nil, errJSONB("cannot extract elements from a scalar")
				}
				i := 0
				return func() (Datum, bool, error) {
					if i >= len(v.arr) {
						return Datum{}, false, nil
					}
					i++
					if asText {
						return jsonText(t, v.arr[i-1]), true, nil
					}
					return jsonOut(t, v.arr[i-1]), true, nil
				}, nil
			}})
		}
		elemsSRF(prefix+"_array_elements", false)
		elemsSRF(prefix+"_array_elements_text", true)
		keysName := prefix + "_object_keys"
		srfs[keysName] = append(srfs[keysName], &SRF{Name: keysName, Args: []Type{jt}, Ret: Text, Fn: func(x []Datum) (func() (Datum, bool, error), error) {
			v := jsonIn(t, x[0].Str())
			switch v.kind {
			case jObject:
			case jArray:
				return nil, errJSONB("cannot call %s on an array", keysName)
			default:
				return nil, errJSONB("cannot call %s on a scalar", keysName)
			}
			keys := v.keys
			if !jsonb {
				// json: every key once, in order of first appearance
				seen := map[string]bool{}
				keys = nil
				for _, k := range v.keys {
					if !seen[k] {
						seen[k] = true
						keys = append(keys, k)
					}
				}
			}
			i := 0
			return func() (Datum, bool, error) {
				if i >= len(keys) {
					return Datum{}, false, nil
				}
				i++
				return Str(keys[i-1]), true, nil
			}, nil
		}})
	}

	// jsonb only
	cmpOps(JSONB, JSONB, func(a, b Datum) int { return compareJSONB(a.Str(), b.Str()) })
	addOp("@>", &Func{Args: []Type{JSONB, JSONB}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return Bool(jsonbContains(jsonbOf(a[0].Str()), jsonbOf(a[1].Str()), true)), nil
	}})
	addOp("<@", &Func{Args: []Type{JSONB, JSONB}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return Bool(jsonbContains(jsonbOf(a[1].Str()), jsonbOf(a[0].Str()), true)), nil
	}})
	addOp("?", &Func{Args: []Type{JSONB, Text}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return Bool(jsonbHasKey(jsonbOf(a[0].Str()), a[1].Str())), nil
	}})
	textArr := Type{OID: TextArrayOID, Typmod: -1}
	addOp("?|", &Func{Args: []Type{JSONB, textArr}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return Bool(jsonbHasAny(jsonbOf(a[0].Str()), a[1].Elems())), nil
	}})
	addOp("?&", &Func{Args: []Type{JSONB, textArr}, Ret: Boolean, Fn: func(a []Datum) (Datum, error) {
		return Bool(jsonbHasAll(jsonbOf(a[0].Str()), a[1].Elems())), nil
	}})
	addOp("||", &Func{Args: []Type{JSONB, JSONB}, Ret: JSONB, Fn: func(a []Datum) (Datum, error) {
		return jsonbResult(jsonbConcat(jsonbOf(a[0].Str()), jsonbOf(a[1].Str())))
	}})
	addOp("-", &Func{Args: []Type{JSONB, Text}, Ret: JSONB, Fn: func(a []Datum) (Datum, error) {
		return jsonbDeleteKeysDatum(jsonbOf(a[0].Str()), a[1:2])
	}})
	addOp("-", &Func{Args: []Type{JSONB, textArr}, Ret: JSONB, Fn: func(a []Datum) (Datum, error) {
		return jsonbDeleteKeysDatum(jsonbOf(a[0].Str()), a[1].Elems())
	}})
	addOp("-", &Func{Args: []Type{JSONB, Int4}, Ret: JSONB, Fn: func(a []Datum) (Datum, error) {
		return jsonbDeleteIndex(jsonbOf(a[0].Str()), a[1].Int())
	}})
	fn("jsonb_pretty", []Type{JSONB}, Text, func(a []Datum) (Datum, error) {
		return Str(string(appendJSONBPretty(nil, jsonbOf(a[0].Str()), 0))), nil
	})
}

func appendJSONBPretty(dst []byte, v *jsonVal, indent int) []byte {
	pad := func(n int) {
		dst = append(dst, '\n')
		for i := 0; i < n; i++ {
			dst = append(dst, "    "...)
		}
	}
	switch v.kind {
	case jArray:
		if len(v.arr) == 0 {
			return append(dst, "[\n"+strings.Repeat("    ", indent)+"]"...)
		}
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			pad(indent + 1)
			dst = appendJSONBPretty(dst, e, indent+1)
		}
		pad(indent)
		return append(dst, ']')
	case jObject:
		if len(v.keys) == 0 {
			return append(dst, "{\n"+strings.Repeat("    ", indent)+"}"...)
		}
		dst = append(dst, '{')
		for i, k := range v.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			pad(indent + 1)
			dst = appendJSONString(dst, k)
			dst = append(dst, ": "...)
			dst = appendJSONBPretty(dst, v.vals[i], indent+1)
		}
		pad(indent)
		return append(dst, '}')
	}
	return appendJSONB(dst, v)
}

// json(b)_each and json(b)_each_text: one (key, value) row per member of
// an object.
func init() {
	for _, jt := range []Type{JSON, JSONB} {
		jt := jt
		t := jt.OID
		prefix := "json"
		if t == JSONBOID {
			prefix = "jsonb"
		}
		for _, asText := range []bool{false, true} {
			asText := asText
			name := prefix + "_each"
			vt := jt
			if asText {
				name += "_text"
				vt = Text
			}
			srfs[name] = append(srfs[name], &SRF{Name: name, Args: []Type{jt}, Ret: Record,
				Cols: []SRFColumn{{"key", Text}, {"value", vt}},
				FnRows: func(x []Datum) (func() ([]Datum, bool, error), error) {
					v := jsonIn(t, x[0].Str())
					if v.kind != jObject {
						what := "a scalar"
						if v.kind == jArray {
							what = "an array"
						}
						return nil, errJSONB("cannot call %s on %s", name, what)
					}
					i := 0
					return func() ([]Datum, bool, error) {
						if i >= len(v.keys) {
							return nil, false, nil
						}
						i++
						val := jsonOut(t, v.vals[i-1])
						if asText {
							val = jsonText(t, v.vals[i-1])
						}
						return []Datum{Str(v.keys[i-1]), val}, true, nil
					}, nil
				}})
		}
	}
}

func jsonbStripNulls(v *jsonVal) *jsonVal {
	switch v.kind {
	case jObject:
		out := &jsonVal{kind: jObject}
		for i, k := range v.keys {
			if v.vals[i].kind == jNull {
				continue
			}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, jsonbStripNulls(v.vals[i]))
		}
		return out
	case jArray:
		out := &jsonVal{kind: jArray}
		for _, e := range v.arr {
			out.arr = append(out.arr, jsonbStripNulls(e))
		}
		return out
	}
	return v
}

func init() {
	textArr := Type{OID: TextArrayOID, Typmod: -1}
	set := func(a []Datum) (Datum, error) {
		v := jsonbOf(a[0].Str())
		if v.kind != jObject && v.kind != jArray {
			return Datum{}, errJSONB("cannot set path in scalar")
		}
		op := pathCreate
		if len(a) == 4 && !a[3].Bool() {
			op = pathReplace
		}
		if len(a[1].Elems()) == 0 {
			return a[0], nil // an empty path changes nothing
		}
		r, err := setPath(v, a[1].Elems(), 0, jsonbOf(a[2].Str()), op)
		if err != nil {
			return Datum{}, err
		}
		return jsonbResult(r)
	}
	fn("jsonb_set", []Type{JSONB, textArr, JSONB}, JSONB, set)
	fn("jsonb_set", []Type{JSONB, textArr, JSONB, Boolean}, JSONB, set)
	fn("jsonb_strip_nulls", []Type{JSONB}, JSONB, func(a []Datum) (Datum, error) {
		return jsonbResult(jsonbStripNulls(jsonbOf(a[0].Str())))
	})
}
