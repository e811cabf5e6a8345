package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// EXISTS as a hashed semi join. PostgreSQL pulls EXISTS and NOT EXISTS up
// into semi and anti joins and hashes them; a correlated SubPlan instead
// rescans the subquery for every outer row (O(n·m), and a nested one
// O(n·m·k)). tidal gets the same effect inside expressions: the
// subquery's WHERE is split into
//
//   - local quals, which read only the subquery's own rows: they stay in
//     the subquery, which no longer depends on the outer row and runs once;
//   - key equalities inner = outer (hashable types): the subquery returns
//     the inner sides, hashed; the outer sides probe (expr.HashedExists);
//   - pseudo-constant quals, which read no column of the subquery: they
//     leave it, EXISTS(S WHERE Q AND P) being (P IS TRUE) AND EXISTS(S WHERE Q).
//
// The outer sides and pseudo-constant quals are compiled again in the outer
// query's scope, where they resolve to the same columns (they name none of
// the subquery's), so the planner can push them down like any condition —
// a NOT EXISTS that reads only one table filters that table's scan, as
// PostgreSQL's anti join would. Anything else (a correlated qual that is no
// equality, volatile functions, aggregates, LIMIT, set operations) keeps
// the SubPlan.

// existsQual is one conjunct of the subquery's WHERE, classified.
type existsQual struct {
	ast        *pg.Node
	kind       int
	inner      *pg.Node // key: the side that reads the subquery
	outer      *pg.Node // key: the side that reads the outer query
	innerFirst bool     // key: inner is the operator's left operand
}

const (
	qualLocal = iota
	qualKey
	qualPseudo
)

// hashedExists is the Hooks.Exists of the planner.
func (p *Planner) hashedExists(sub *pg.Node, outer expr.Scope) (expr.Expr, bool, error) {
	sel := sub.GetSelectStmt()
	ls, _ := outer.(levelScope)
	if ls == nil || !existsPullable(sel) {
		return nil, false, nil
	}
	quals, ok := p.classifyExistsQuals(sel, ls)
	if !ok {
		return nil, false, nil
	}
	return p.buildHashedExists(sel, ls, quals)
}

// existsPullable: a plain SELECT … FROM … WHERE whose number of rows is
// that of its FROM and WHERE (no aggregate, LIMIT, grouping or
// set-returning function in the target list).
func existsPullable(s *pg.SelectStmt) bool {
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || s.WithClause != nil || len(s.FromClause) == 0 || s.WhereClause == nil ||
		len(s.GroupClause) > 0 || s.HavingClause != nil || s.LimitCount != nil || s.LimitOffset != nil ||
		len(s.WindowClause) > 0 || len(s.LockingClause) > 0 || len(s.ValuesLists) > 0 {
		return false
	}
	for _, t := range s.TargetList {
		found := false
		WalkExpr(t.GetResTarget().GetVal(), func(n *pg.Node) {
			found = found || n.GetFuncCall() != nil || n.GetSubLink() != nil
		})
		if found {
			return false
		}
	}
	return true
}

// andArgs splits an AND tree of parse nodes.
func andArgs(n *pg.Node) []*pg.Node {
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range be.Args {
			out = append(out, andArgs(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// classifyExistsQuals compiles each conjunct of the subquery's WHERE in a
// trial scope to see which levels it reads, then forgets the trial (the
// subplans it planned are dropped again).
func (p *Planner) classifyExistsQuals(sel *pg.SelectStmt, ls levelScope) ([]existsQual, bool) {
	level := ls.lvl() + 1
	nextSub, nsubs := p.q.nextSub, len(p.q.subplans)
	p.q.stack = append(p.q.stack, &queryState{level: level})
	defer func() {
		p.q.stack = p.q.stack[:len(p.q.stack)-1]
		p.q.nextSub, p.q.subplans = nextSub, p.q.subplans[:nsubs]
	}()
	sc := &scope{parent: ls, level: level, p: p}
	if _, err := p.buildFrom(sel.FromClause, sc); err != nil {
		return nil, false
	}
	comp := p.compiler(sc)
	var quals []existsQual
	correlated := false
	for _, n := range andArgs(sel.WhereClause) {
		e, err := comp.Compile(n)
		if err != nil {
			return nil, false
		}
		r := levelRefsOf(e, level)
		switch {
		case !r.known || r.volatile:
			return nil, false
		case !r.outer:
			quals = append(quals, existsQual{ast: n, kind: qualLocal})
		case !r.inner:
			quals = append(quals, existsQual{ast: n, kind: qualPseudo})
			correlated = true
		default:
			q, ok := keyQual(n, e, level)
			if !ok {
				return nil, false
			}
			quals = append(quals, q)
			correlated = true
		}
	}
	return quals, correlated
}

// keyQual recognises inner = outer among the conjuncts that read both.
func keyQual(n *pg.Node, e expr.Expr, level int) (existsQual, bool) {
	ae := n.GetAExpr()
	f, isFunc := e.(*expr.Func)
	if ae == nil || ae.Kind != pg.A_Expr_Kind_AEXPR_OP || !isFunc || f.Op != "=" || len(f.Args) != 2 {
		return existsQual{}, false
	}
	l, r := levelRefsOf(f.Args[0], level), levelRefsOf(f.Args[1], level)
	if !hashableEquality(f.Args[0].Type(), f.Args[1].Type()) {
		return existsQual{}, false
	}
	switch {
	case l.inner && !l.outer && r.outer && !r.inner:
		return existsQual{ast: n, kind: qualKey, inner: ae.Lexpr, outer: ae.Rexpr, innerFirst: true}, true
	case r.inner && !r.outer && l.outer && !l.inner:
		return existsQual{ast: n, kind: qualKey, inner: ae.Rexpr, outer: ae.Lexpr}, true
	}
	return existsQual{}, false
}

// hashableEquality: equal values of a and b hash alike (types.Hash) and
// their equality needs no time zone or collation.
func hashableEquality(a, b types.Type) bool {
	if a.OID == b.OID {
		return hashable(a, b)
	}
	return types.IsInteger(a) && types.IsInteger(b) || types.IsString(a) && types.IsString(b) && a.OID != types.BpcharOID && b.OID != types.BpcharOID
}

// levelRefs says which query levels an expression compiled at level reads.
type levelRefs struct {
	inner, outer, volatile bool
	known                  bool
}

func levelRefsOf(e expr.Expr, level int) levelRefs {
	var r levelRefs
	r.known = expr.Walk(e, func(x expr.Expr) bool {
		switch v := x.(type) {
		case *expr.Var:
			r.inner = true
		case *expr.OuterVar:
			r.outer = true
		case *expr.SubPlan:
			for l := range v.Plan.Levels {
				if l >= level {
					r.inner = true
				} else {
					r.outer = true
				}
			}
		case *expr.Func:
			r.volatile = r.volatile || v.Fn.Volatile
		case *expr.CatalogCall, *expr.CatalogFunc:
			r.volatile = true // nextval, pg_sleep …
		}
		return true
	})
	return r
}

// buildHashedExists plans the subquery with its local quals, returning the
// inner keys, and compiles the outer keys and pseudo-constant quals in the
// outer scope.
func (p *Planner) buildHashedExists(sel *pg.SelectStmt, ls levelScope, quals []existsQual) (expr.Expr, bool, error) {
	inner := proto.Clone(sel).(*pg.SelectStmt)
	inner.TargetList, inner.WhereClause, inner.SortClause = nil, nil, nil
	var locals []*pg.Node
	var keys []existsQual
	for _, q := range quals {
		switch q.kind {
		case qualLocal:
			locals = append(locals, q.ast)
		case qualKey:
			keys = append(keys, q)
			inner.TargetList = append(inner.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: q.inner}}})
		}
	}
	if len(keys) == 0 {
		inner.TargetList = []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: pg.MakeAConstIntNode(1, -1)}}}}
	}
	switch len(locals) {
	case 0:
	case 1:
		inner.WhereClause = locals[0]
	default:
		inner.WhereClause = pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, locals, -1)
	}
	node, cols, qs, err := p.planQuery(inner, ls, ls.lvl()+1)
	if err != nil {
		return nil, true, err
	}
	if qs.correlated() {
		return nil, false, nil // cannot happen: local quals read no outer row
	}
	p.q.nextSub++
	sp := &expr.SubqueryPlan{ID: p.q.nextSub, Node: node, Run: p.runner(node)}
	for _, c := range cols {
		sp.Types = append(sp.Types, c.Type)
	}
	p.q.subplans = append(p.q.subplans, sp)

	comp := p.compiler(ls)
	var outerKeys, tests []expr.Expr
	for i, k := range keys {
		ok, err := comp.Compile(k.outer)
		if err != nil {
			return nil, true, err
		}
		outerKeys = append(outerKeys, ok)
		ov := &expr.Var{Index: i, T: ok.Type(), Name: ok.String()}
		iv := &expr.Var{Index: len(keys) + i, T: sp.Types[i], Name: cols[i].Name}
		l, r := expr.Expr(ov), expr.Expr(iv)
		if k.innerFirst {
			l, r = iv, ov
		}
		t, err := expr.Binary("=", l, r)
		if err != nil {
			return nil, true, err
		}
		tests = append(tests, t)
	}
	test := andOf(tests)
	if test == nil {
		test = &expr.Const{Val: types.Bool(true), T: types.Boolean}
	}
	out := []expr.Expr{}
	for _, q := range quals {
		if q.kind != qualPseudo {
			continue
		}
		e, err := comp.Compile(q.ast)
		if err != nil {
			return nil, true, err
		}
		out = append(out, isTrue(e))
	}
	out = append(out, expr.NewHashedExists(sp, outerKeys, test))
	return andOf(out), true, nil
}

// isTrue is e IS TRUE for a boolean e (COALESCE(e, false)), or e itself
// when it is never NULL.
func isTrue(e expr.Expr) expr.Expr {
	x := e
	if b, ok := x.(*expr.BoolOp); ok && b.Op == "NOT" && len(b.Args) == 1 {
		x = b.Args[0]
	}
	switch s := x.(type) {
	case *expr.HashedExists:
		return e
	case *expr.SubPlan:
		if s.Kind == expr.SubExists {
			return e
		}
	}
	return &expr.Coalesce{Args: []expr.Expr{e, &expr.Const{Val: types.Bool(false), T: types.Boolean}}, T: types.Boolean, Name: "COALESCE"}
}
