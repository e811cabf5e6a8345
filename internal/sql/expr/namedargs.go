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
