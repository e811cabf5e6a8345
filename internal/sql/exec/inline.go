package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Inlining of simple SQL functions, as PostgreSQL's inline_function: a
// call of a function whose body is SELECT <one expression> (no FROM,
// WHERE, grouping, sorting, LIMIT, set operation or subquery) becomes
// that expression with the arguments in place of the parameters, so it
// costs no call at all. Conditions, as PostgreSQL's: LANGUAGE sql, not
// SECURITY DEFINER, no SET clauses, not set-returning, a scalar result;
// the expression no more volatile than the function; for a STRICT
// function only strict constructs, every parameter used; a parameter
// used twice only with a cheap, non-volatile argument. A function being
// inlined is not inlined again inside itself (recursion stays a call).

// ArgExprs and WithArgs make a call's arguments reachable to expression
// rewrites (expr.ExternalNode).
func (r *RoutineCall) ArgExprs() []expr.Expr { return r.Args }

func (r *RoutineCall) WithArgs(args []expr.Expr) expr.Expr {
	c := *r
	c.Args = args
	c.compiled = nil
	return &c
}

// inlined is the call's inlined expression, or nil when the function
// cannot be inlined.
func (p *Planner) inlined(rc *RoutineCall) expr.Expr {
	proc := rc.Proc
	if proc.Lang != catalog.LangSQL || proc.SecDef || proc.RetSet || len(proc.Config) > 0 ||
		rc.Cols != nil || rc.Ret.OID == types.RecordOID {
		return nil
	}
	for _, o := range p.C.inlining {
		if o == proc.OID {
			return nil
		}
	}
	body, err := parseSQLBody(proc)
	if err != nil || len(body.stmts) != 1 {
		return nil
	}
	target := inlinableTarget(body.stmts[0].Stmt)
	if target == nil {
		return nil
	}
	ic := *p.C
	ic.routine = newRoutineFrame(proc, rc.ArgTypes)
	ic.inlining = append(append([]uint32(nil), p.C.inlining...), proc.OID)
	ip := &Planner{C: &ic, ParamTypes: append([]types.Type(nil), rc.ArgTypes...)}
	e, err := ip.compiler(nil).Compile(target)
	if err != nil {
		return nil
	}
	if e, err = expr.Coerce(e, rc.Ret, types.CastAssignment); err != nil {
		return nil
	}
	if !inlineSafe(proc, e, rc.Args) {
		return nil
	}
	out, ok := expr.MapParams(e, func(pr *expr.Param) expr.Expr { return rc.Args[pr.N-1] })
	if !ok {
		return nil
	}
	return out
}

// inlinableTarget is the one expression of a body SELECT PostgreSQL
// would inline, or nil.
func inlinableTarget(n *pg.Node) *pg.Node {
	s := n.GetSelectStmt()
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || len(s.TargetList) != 1 || len(s.FromClause) > 0 ||
		s.WhereClause != nil || len(s.GroupClause) > 0 || s.HavingClause != nil || len(s.WindowClause) > 0 ||
		len(s.DistinctClause) > 0 || len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil ||
		s.WithClause != nil || s.IntoClause != nil || len(s.LockingClause) > 0 || len(s.ValuesLists) > 0 {
		return nil
	}
	rt := s.TargetList[0].GetResTarget()
	if rt == nil || rt.Val == nil {
		return nil
	}
	bad := false
	parser.Walk(rt.Val, func(m proto.Message) bool {
		switch x := m.(type) {
		case *pg.SubLink:
			bad = true
		case *pg.FuncCall:
			if x.AggStar || x.AggDistinct || x.AggFilter != nil || len(x.AggOrder) > 0 || x.Over != nil || types.IsSRF(lastName(x.Funcname)) {
				bad = true
			}
		}
		return !bad
	})
	if bad {
		return nil
	}
	return rt.Val
}

func lastName(names []*pg.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// inlineSafe checks the volatility, strictness and parameter-use rules.
func inlineSafe(proc *catalog.Proc, e expr.Expr, args []expr.Expr) bool {
	vol := volatility(e)
	if vol == 0 || (proc.Volatile == catalog.VolatileImmutable && vol != catalog.VolatileImmutable) ||
		(proc.Volatile == catalog.VolatileStable && vol == catalog.VolatileVolatile) {
		return false
	}
	if proc.Strict && !strictOnly(e) {
		return false
	}
	uses := make([]int, len(args))
	walkCall(e, func(x expr.Expr) bool {
		if pr, ok := x.(*expr.Param); ok && pr.N <= len(uses) {
			uses[pr.N-1]++
		}
		return true
	})
	for i, n := range uses {
		switch {
		case n == 0 && proc.Strict:
			return false
		case n > 1 && !cheapArg(args[i]):
			return false
		}
	}
	return true
}

// volatility is the most volatile of e's functions ('i', 's', 'v'), or
// 0 when e holds a node whose volatility is not known.
func volatility(e expr.Expr) byte {
	out := byte(catalog.VolatileImmutable)
	raise := func(v byte) {
		if v == catalog.VolatileVolatile || (v == catalog.VolatileStable && out == catalog.VolatileImmutable) {
			out = v
		}
	}
	known := walkCall(e, func(x expr.Expr) bool {
		switch f := x.(type) {
		case *expr.Func:
			switch {
			case f.Fn.Volatile:
				raise(catalog.VolatileVolatile)
			case f.Fn.Stable:
				raise(catalog.VolatileStable)
			}
		case *RoutineCall:
			raise(f.Proc.Volatile)
		case *expr.CatalogCall, *expr.CatalogFunc:
			raise(catalog.VolatileVolatile)
		case *expr.Cast:
			if types.DependsOnSettings(f.Arg.Type(), f.To) {
				raise(catalog.VolatileStable)
			}
		}
		return true
	})
	if !known {
		return 0
	}
	return out
}

// strictOnly: every node of e gives NULL for a NULL input (no AND/OR,
// CASE, COALESCE, IS NULL, non-strict functions).
func strictOnly(e expr.Expr) bool {
	ok := true
	known := walkCall(e, func(x expr.Expr) bool {
		switch f := x.(type) {
		case *expr.Func:
			ok = ok && f.Fn.Strict
		case *RoutineCall:
			ok = ok && f.Proc.Strict
		case *expr.Var, *expr.Param, *expr.Const, *expr.Cast:
		default:
			ok = false
		}
		return ok
	})
	return known && ok
}

// walkCall is expr.Walk that also goes into routine calls' arguments.
func walkCall(e expr.Expr, fn func(expr.Expr) bool) bool {
	if e == nil || !fn(e) {
		return true
	}
	kids, ok := expr.Children(e)
	if rc, isCall := e.(*RoutineCall); isCall {
		kids, ok = rc.Args, true
	}
	if !ok {
		return false
	}
	for _, k := range kids {
		if !walkCall(k, fn) {
			return false
		}
	}
	return true
}

// cheapArg: an argument a parameter used more than once may repeat.
func cheapArg(a expr.Expr) bool {
	switch a.(type) {
	case *expr.Const, *expr.Var, *expr.Param, *expr.OuterVar:
		return true
	}
	return false
}
