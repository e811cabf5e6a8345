package expr

import (
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// VariadicCall is a call of a builtin with a variadic parameter given as
// VARIADIC array (format('%s %s', VARIADIC ARRAY['a', 'b']), concat(VARIADIC
// …)): the array's elements are the variadic arguments, so the function
// is resolved for their number when the call runs. A NULL array passes no
// arguments to format and makes the others NULL.
type VariadicCall struct {
	Name  string
	Fixed []Expr
	Arr   Expr
	Elem  types.Type
	T     types.Type

	mu    sync.Mutex
	byLen map[int]*types.Func
}

func (v *VariadicCall) Type() types.Type { return v.T }
func (v *VariadicCall) String() string {
	parts := make([]string, 0, len(v.Fixed)+1)
	for _, a := range v.Fixed {
		parts = append(parts, a.String())
	}
	parts = append(parts, "VARIADIC "+v.Arr.String())
	return v.Name + "(" + strings.Join(parts, ", ") + ")"
}

// ArgExprs and WithArgs make VariadicCall an ExternalNode (MapVars).
func (v *VariadicCall) ArgExprs() []Expr { return append(append([]Expr{}, v.Fixed...), v.Arr) }
func (v *VariadicCall) WithArgs(args []Expr) Expr {
	n := len(args) - 1
	return &VariadicCall{Name: v.Name, Fixed: args[:n], Arr: args[n], Elem: v.Elem, T: v.T}
}

// resolve is the builtin for n variadic arguments.
func (v *VariadicCall) resolve(n int) (*types.Func, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if f := v.byLen[n]; f != nil {
		return f, nil
	}
	ts := make([]types.Type, 0, len(v.Fixed)+n)
	for _, a := range v.Fixed {
		ts = append(ts, a.Type())
	}
	for i := 0; i < n; i++ {
		ts = append(ts, v.Elem)
	}
	f, err := types.LookupFunction(v.Name, ts)
	if err != nil {
		return nil, err
	}
	if v.byLen == nil {
		v.byLen = map[int]*types.Func{}
	}
	v.byLen[n] = f
	return f, nil
}

func (v *VariadicCall) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	var args []types.Datum
	var from []types.Type
	for _, a := range v.Fixed {
		d, err := a.Eval(env, row)
		if err != nil {
			return d, err
		}
		args, from = append(args, d), append(from, a.Type())
	}
	arr, err := v.Arr.Eval(env, row)
	if err != nil {
		return arr, err
	}
	if arr.IsNull() && v.Name != "format" {
		return types.Null(), nil
	}
	for _, e := range arr.Elems() {
		args, from = append(args, e), append(from, v.Elem)
	}
	if len(args) == len(v.Fixed) && (v.Name == "concat" || v.Name == "concat_ws") {
		if v.Name == "concat_ws" && args[0].IsNull() {
			return types.Null(), nil
		}
		return types.Str(""), nil // no arguments to concatenate
	}
	f, err := v.resolve(len(args) - len(v.Fixed))
	if err != nil {
		return types.Null(), err
	}
	st := env.settings()
	for i := range args {
		if args[i].IsNull() {
			if f.Strict {
				return types.Null(), nil
			}
			continue
		}
		if to := f.Args[i]; to.OID != types.AnyOID && to.OID != from[i].OID && from[i].OID != types.UnknownOID {
			if args[i], err = types.CastWith(st, args[i], from[i], to, types.CastImplicit); err != nil {
				return types.Null(), err
			}
		}
	}
	if f.FnWith != nil {
		return f.FnWith(st, args)
	}
	return f.Fn(args)
}

// compileVariadicCall compiles name(args…, VARIADIC arr) of a builtin.
func (c *Compiler) compileVariadicCall(name string, fc *pg.FuncCall) (Expr, error) {
	var args []Expr
	for _, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			return nil, c.namedArgCallError(fc, name)
		}
		e, err := c.Compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	n := len(args) - 1
	last := args[n]
	if last.Type().OID == types.UnknownOID {
		var err error
		if last, err = Coerce(last, types.Type{OID: types.TextArrayOID, Typmod: -1}, types.CastImplicit); err != nil {
			return nil, withPos(err, fc.Location)
		}
	}
	et, ok := types.ElemType(last.Type())
	if !ok {
		return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "VARIADIC argument must be an array"), fc.Location)
	}
	v := &VariadicCall{Name: name, Fixed: args[:n], Arr: last, Elem: et}
	f, err := v.resolve(1)
	if err != nil || !variadicBuiltins[name] {
		var sig []string
		for _, a := range args {
			sig = append(sig, a.Type().BaseName())
		}
		return nil, withPos(types.FuncNotFound(name, strings.Join(sig, ", "), false), fc.Location)
	}
	v.T = f.Ret
	return v, nil
}

// variadicBuiltins are the builtins PostgreSQL declares with a VARIADIC
// parameter (the others take no VARIADIC argument).
var variadicBuiltins = map[string]bool{
	"format": true, "concat": true, "concat_ws": true, "num_nulls": true, "num_nonnulls": true,
	"json_build_array": true, "json_build_object": true, "jsonb_build_array": true, "jsonb_build_object": true,
	"json_extract_path": true, "json_extract_path_text": true, "jsonb_extract_path": true, "jsonb_extract_path_text": true,
}
