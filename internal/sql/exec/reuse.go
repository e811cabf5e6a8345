package exec

import "github.com/tidal-db/tidal/internal/sql/expr"

// Plan reuse: a session may run the plan of a prepared statement again
// for the statement's next execution (new parameter values come through
// the Env, which expressions read when they are evaluated), instead of
// planning it every time. The session decides when a plan is still valid
// (catalog version, settings, relation locks); this file says which plans
// can run more than once at all.

// Reusable reports whether plan n may run again — Open, Next…, Close once
// more, under a new Ctx — for another execution of its statement. That
// holds for the node kinds below, whose Open resets all their execution
// state (TestReusableNodeFields lists the fields this relies on), as long
// as their expressions hold no subquery: a SubPlan keeps results between
// evaluations. Every other plan is planned afresh for each execution.
func Reusable(n Node) bool {
	ok := true
	walkReusable(n, func(n Node, exprs []expr.Expr) {
		if n == nil {
			ok = false
			return
		}
		for _, e := range exprs {
			if !plainExpr(e) {
				ok = false
			}
		}
	})
	return ok
}

// ResetInstrumentation clears the EXPLAIN counters of a reusable plan's
// nodes before it runs again.
func ResetInstrumentation(n Node) {
	walkReusable(n, func(n Node, _ []expr.Expr) {
		if n != nil {
			n.base().instr = Instr{}
		}
	})
}

// walkReusable calls fn for each node of the plan with the node's
// expressions; for a node of a kind that cannot be reused it calls
// fn(nil, nil) and does not descend.
func walkReusable(n Node, fn func(Node, []expr.Expr)) {
	switch x := n.(type) {
	case *ModifyTable:
		if x.Conflict != nil || len(x.afterWith) > 0 {
			fn(nil, nil) // ON CONFLICT: not checked for reuse; a data-modifying WITH query runs once
			return
		}
		exprs := append(append([]expr.Expr{x.Qual}, x.NewRow...), x.Returning...)
		for _, k := range x.viewChecks {
			exprs = append(exprs, k.e) // compiled at planning, read-only after
		}
		fn(x, exprs)
		walkReusable(x.Input, fn)
	case *IndexScan:
		fn(x, append(append([]expr.Expr{x.Qual}, x.Lower...), x.Upper...))
	case *SeqScan:
		fn(x, []expr.Expr{x.Qual})
	case *Project:
		fn(x, x.Exprs)
		walkReusable(x.Input, fn)
	case *Filter:
		fn(x, []expr.Expr{x.Qual})
		walkReusable(x.Input, fn)
	case *Limit:
		fn(x, []expr.Expr{x.Count, x.Offset})
		walkReusable(x.Input, fn)
	case *Result:
		fn(x, append([]expr.Expr{x.Qual}, x.Exprs...))
	case *Values:
		var exprs []expr.Expr
		for _, r := range x.Rows {
			exprs = append(exprs, r...)
		}
		fn(x, exprs)
	default:
		fn(nil, nil)
	}
}

// plainExpr: every node of e is one the expr package knows, and none is
// a subquery.
func plainExpr(e expr.Expr) bool {
	plain := true
	known := expr.Walk(e, func(x expr.Expr) bool {
		if _, ok := x.(*expr.SubPlan); ok {
			plain = false
		}
		return plain
	})
	return known && plain
}
