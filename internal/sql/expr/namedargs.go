package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// builtinNamedArgs puts a call of a builtin with named parameters into
// positional order, filling the parameters not given with their defaults.
// ok is false when the call does not fit the parameter list (an unknown
// or repeated name, too many arguments): the caller then reports that no
// such function exists.
func (c *Compiler) builtinNamedArgs(fc *pg.FuncCall, p *types.BuiltinParams) (args []Expr, ok bool, err error) {
	args = make([]Expr, len(p.Names))
	seenNamed := false
	for i, a := range fc.Args {
		arg, slot := a, i
		if na := a.GetNamedArgExpr(); na != nil {
			arg, slot, seenNamed = na.Arg, -1, true
			for j, n := range p.Names {
				if n == na.Name {
					slot = j
				}
			}
		} else if seenNamed {
			return nil, false, nil
		}
		if slot < 0 || slot >= len(args) || args[slot] != nil {
			return nil, false, nil
		}
		if args[slot], err = c.Compile(arg); err != nil {
			return nil, false, err
		}
	}
	for i := range args {
		if args[i] == nil {
			args[i] = &Const{Val: p.Defaults[i], T: p.Types[i]}
		}
	}
	return args, true, nil
}

func orErr(err error, otherwise func() error) error {
	if err != nil {
		return err
	}
	return otherwise()
}

// typeNameCall is PostgreSQL's reading of typename(x) when no function of
// that name takes x: an explicit cast of x to the type (float8(1::int8),
// text(1)), except a row to a string type. handled is false when the
// name is no type or no such cast exists.
func typeNameCall(name string, args []Expr) (e Expr, handled bool, err error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	t, terr := types.LookupTypeName([]string{name}, nil)
	if terr != nil || types.IsArray(t) {
		return nil, false, nil
	}
	from := args[0].Type()
	if from.OID == types.RecordOID || types.IsUserType(from) ||
		(from.OID != types.UnknownOID && !types.CanCast(from, t, types.CastExplicit)) {
		return nil, false, nil
	}
	// a value the cast rejects has no position, as in PostgreSQL (an
	// unknown literal's input error keeps the literal's own)
	e, err = ExplicitCast(args[0], t, -1)
	return e, true, err
}
