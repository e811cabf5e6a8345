package types

import "github.com/tidal-db/tidal/internal/pgerr"

// The jsonpath type's datum is its canonical text (jsonpath_out of the
// parsed path), not PostgreSQL's binary tree: a jsonpath column stores
// those bytes as a varlena. The jsonb_path_* functions and the @? and @@
// operators parse it again to evaluate it.

func parseJSONPathDatum(s string) (Datum, error) {
	p, err := parseJSONPath(s)
	if err != nil {
		return Datum{}, err
	}
	return Str(p.String()), nil
}

// jsonPathCall evaluates a[1] (jsonpath) on a[0] with optional vars a[2]
// and silent a[3]; silent soft errors give ok=false.
func jsonPathCall(a []Datum) (res []*jsonVal, ok bool, err error) {
	path, err := parseJSONPath(a[1].Str())
	if err != nil {
		return nil, false, err
	}
	var vars *jsonVal
	if len(a) > 2 {
		vars = jsonbOf(a[2].Str())
	}
	silent := len(a) > 3 && a[3].Bool()
	res, err = runJSONPath(path, jsonbOf(a[0].Str()), vars)
	if se, soft := err.(jpSoftError); soft {
		if silent {
			return res, false, nil // the items found before the error
		}
		return nil, false, se.err
	}
	return res, err == nil, err
}

func jsonPathExists(a []Datum) (Datum, error) {
	res, ok, err := jsonPathCall(a)
	if err != nil || !ok {
		return Datum{}, err
	}
	return Bool(len(res) > 0), nil
}

func jsonPathMatch(a []Datum) (Datum, error) {
	res, _, err := jsonPathCall(a)
	if err != nil {
		return Datum{}, err
	}
	if len(res) == 1 {
		switch res[0].kind {
		case jBool:
			return Bool(res[0].str == "true"), nil
		case jNull:
			return Datum{}, nil
		}
	}
	if len(a) > 3 && a[3].Bool() {
		return Datum{}, nil
	}
	return Datum{}, errSingleBoolean()
}

func errSingleBoolean() error {
	return pgerr.Errorf(errJSONSingletonNeeded, "single boolean result is expected")
}

func init() {
	jp := []Type{JSONB, JSONPath}
	full := []Type{JSONB, JSONPath, JSONB, Boolean}
	for _, suffix := range []string{"", "_tz"} {
		for n := 2; n <= 4; n++ {
			args := full[:n]
			fn("jsonb_path_exists"+suffix, args, Boolean, jsonPathExists)
			fn("jsonb_path_match"+suffix, args, Boolean, jsonPathMatch)
			fn("jsonb_path_query_array"+suffix, args, JSONB, func(a []Datum) (Datum, error) {
				res, _, err := jsonPathCall(a)
				if err != nil {
					return Datum{}, err
				}
				return jsonbResult(&jsonVal{kind: jArray, arr: res})
			})
			fn("jsonb_path_query_first"+suffix, args, JSONB, func(a []Datum) (Datum, error) {
				res, _, err := jsonPathCall(a)
				if err != nil || len(res) == 0 {
					return Datum{}, err
				}
				return jsonbResult(res[0])
			})
			name := "jsonb_path_query" + suffix
			srfs[name] = append(srfs[name], &SRF{Name: name, Args: args, Ret: JSONB,
				Fn: func(a []Datum) (func() (Datum, bool, error), error) {
					res, _, err := jsonPathCall(a)
					if err != nil {
						return nil, err
					}
					i := 0
					return func() (Datum, bool, error) {
						if i >= len(res) {
							return Datum{}, false, nil
						}
						i++
						d, err := jsonbResult(res[i-1])
						return d, err == nil, err
					}, nil
				}})
		}
		for _, f := range []string{"exists", "match", "query", "query_array", "query_first"} {
			defineParams("jsonb_path_"+f+suffix, param("target", JSONB), param("path", JSONPath),
				paramDef("vars", JSONB, "{}"), paramDef("silent", Boolean, "false"))
		}
	}
	silent := func(f func([]Datum) (Datum, error)) func([]Datum) (Datum, error) {
		return func(a []Datum) (Datum, error) {
			return f([]Datum{a[0], a[1], jsonbDatum(&jsonVal{kind: jObject}), Bool(true)})
		}
	}
	addOp("@?", &Func{Args: jp, Ret: Boolean, Fn: silent(jsonPathExists)})
	addOp("@@", &Func{Args: jp, Ret: Boolean, Fn: silent(jsonPathMatch)})
}
