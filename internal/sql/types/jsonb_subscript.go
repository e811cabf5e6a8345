package types

import "github.com/tidal-db/tidal/internal/pgerr"

// jsonb subscripting (j['a'][0], UPDATE … SET j['a'] = …) compiles to
// calls of these two functions on the subscripts collected as text[]
// (integer subscripts as their text): fetching is #>, assigning is
// setPath with PostgreSQL's JB_PATH_CREATE | JB_PATH_FILL_GAPS.

// JSONBSubscriptFetch and JSONBSubscriptAssign are the function names the
// compiler calls.
const (
	JSONBSubscriptFetch  = "tidal_jsonb_subscript_fetch"
	JSONBSubscriptAssign = "tidal_jsonb_subscript_assign"
)

func init() {
	fn(JSONBSubscriptFetch, []Type{JSONB, textArrayType}, JSONB, func(a []Datum) (Datum, error) {
		if v := jsonbOf(a[0].Str()).path(a[1].Elems()); v != nil {
			return jsonbDatum(v), nil
		}
		return Datum{}, nil
	})
	// (source, path, new value, first subscript is an integer): a NULL
	// source starts as an empty array or object, a NULL value is JSON null.
	addFunc(JSONBSubscriptAssign, &Func{Args: []Type{JSONB, textArrayType, JSONB, Boolean}, Ret: JSONB,
		Fn: func(a []Datum) (Datum, error) {
			path := a[1].Elems()
			for _, p := range path {
				if p.IsNull() {
					return Datum{}, pgerr.Errorf(pgerr.NullValueNotAllowed, "jsonb subscript in assignment must not be null")
				}
			}
			src := &jsonVal{kind: jObject}
			if a[3].Bool() {
				src = &jsonVal{kind: jArray}
			}
			if !a[0].IsNull() {
				src = jsonbOf(a[0].Str())
			}
			nv := &jsonVal{kind: jNull}
			if !a[2].IsNull() {
				nv = jsonbOf(a[2].Str())
			}
			r, err := setPath(src, path, 0, nv, pathCreate|pathFillGaps)
			if err != nil {
				return Datum{}, err
			}
			return jsonbResult(r)
		}})
}
