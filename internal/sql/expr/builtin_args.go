package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// namedBuiltinCall compiles a call in named or mixed notation of a
// builtin whose parameters have names (types.BuiltinParams). It returns
// nil, nil for a call without names or of a builtin without parameter
// names.
func (c *Compiler) namedBuiltinCall(fc *pg.FuncCall, name string) (Expr, error) {
	args, named, err := c.NamedBuiltinArgs(fc, name)
	if !named || err != nil {
		return nil, err
	}
	return c.BuiltinCall(name, args, fc.Location)
}

// NamedBuiltinArgs compiles the arguments of a call in named or mixed
// notation of a builtin with parameter names: each goes to its
// parameter's position, omitted trailing ones take their defaults.
// named is false (and nothing compiled) for a call without names or of a
// builtin without parameter names.
func (c *Compiler) NamedBuiltinArgs(fc *pg.FuncCall, name string) (args []Expr, named bool, err error) {
	hasNamed := false
	for _, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			hasNamed = true
		}
	}
	params := types.BuiltinParams(name)
	fills := types.BuiltinFillsDefaults(name)
	if params == nil || !hasNamed && !(fills && len(fc.Args) < len(params)) {
		return nil, false, nil
	}
	slots := make([]*pg.Node, len(params))
	for i, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			if i >= len(slots) {
				return nil, true, c.namedArgCallError(fc, name)
			}
			slots[i] = a
			continue
		}
		found := false
		for j, p := range params {
			if p.Name == na.Name {
				if slots[j] != nil {
					return nil, true, withPos(pgerr.Errorf(pgerr.SyntaxError, "argument name \"%s\" used more than once", na.Name), na.Location)
				}
				slots[j], found = na.Arg, true
			}
		}
		if !found {
			return nil, true, c.namedArgCallError(fc, name)
		}
	}
	n := len(slots)
	for !fills && n > 0 && slots[n-1] == nil && params[n-1].HasDef {
		n--
	}
	for i := 0; i < n; i++ {
		if slots[i] == nil {
			p := params[i]
			if !p.HasDef {
				return nil, true, c.namedArgCallError(fc, name)
			}
			d, err := types.Parse(p.Type, p.Default)
			if err != nil {
				return nil, true, err
			}
			args = append(args, &Const{Val: d, T: p.Type, Loc: -1})
			continue
		}
		e, err := c.Compile(slots[i])
		if err != nil {
			return nil, true, err
		}
		args = append(args, e)
	}
	return args, true, nil
}
