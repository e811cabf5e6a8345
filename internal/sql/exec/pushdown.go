package exec

import "github.com/tidal-db/tidal/internal/sql/expr"

// simpleExpr reports whether e uses only self-contained nodes (columns,
// constants, parameters, functions and operators, boolean logic, casts…):
// such an expression may be evaluated while a page's content lock is held,
// because it cannot read any page itself.
func simpleExpr(e expr.Expr) bool {
	ok := true
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		if !ok {
			return
		}
		switch x := e.(type) {
		case nil, *expr.Var, *expr.Const, *expr.Param:
		case *expr.Func:
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.BoolOp:
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.NullTest:
			walk(x.Arg)
		case *expr.Cast:
			walk(x.Arg)
		case *expr.Like:
			walk(x.Arg)
			walk(x.Pattern)
		case *expr.InList:
			walk(x.Arg)
			for _, a := range x.Eqs {
				walk(a)
			}
		case *expr.Case:
			for i := range x.Whens {
				walk(x.Whens[i])
				walk(x.Thens[i])
			}
			walk(x.Else)
		case *expr.Coalesce:
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.RowValue:
			for _, a := range x.Fields {
				walk(a)
			}
		case *expr.RowCompare:
			for i := range x.Left {
				walk(x.Left[i])
				walk(x.Right[i])
			}
		default:
			ok = false
		}
	}
	walk(e)
	return ok
}
