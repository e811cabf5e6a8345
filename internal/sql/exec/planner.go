package exec

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// Lock modes the planner takes on relations (PostgreSQL's numbering).
const (
	lockAccessShare  = int(xact.AccessShareLock)
	lockRowExclusive = int(xact.RowExclusiveLock)
)

// Planner builds plans for one statement.
type Planner struct {
	C *Ctx
	// ParamTypes of $n ($1 first); Unknown entries are inferred.
	ParamTypes []types.Type

	q planState
	// sysMask: the system columns table scans produce; sysWanted: those
	// the statement asked for (syscols.go). planning: a statement is
	// being planned (Planner.statement).
	sysMask, sysWanted uint8
	planning           bool
	// NoParallel keeps the plan serial (a cursor's query). Only a
	// statement that is a SELECT (topSelect) may use parallel workers
	// (parallel_plan.go).
	NoParallel bool
	topSelect  *pg.SelectStmt
	// Uses, when non-nil, collects every relation the plan reads (a
	// view's dependencies, userviews.go).
	Uses map[uint32]bool
	// UsedColumns, when non-nil, collects the table columns the plan
	// references, by table OID.
	UsedColumns map[uint32]map[int16]bool
	// FillMatView lets the plan write a materialized view (REFRESH);
	// PlanOnly marks a plan that is never run (CREATE VIEW's), which
	// may name a materialized view not yet populated.
	FillMatView, PlanOnly bool
	// acc collects the privileges the statement needs (perms.go).
	acc *accessChecks
}

func (p *Planner) compiler(s expr.Scope) *expr.Compiler {
	var st *types.Settings
	if p.C != nil && p.C.Env != nil {
		st = p.C.Env.Settings
	}
	hooks := expr.Hooks{ParamTypes: p.ParamTypes, SubLink: p.subLink, Exists: p.hashedExists, Routine: p.routineCall}
	hooks.FixedParams = p.C != nil && (p.C.routine != nil || p.C.vars != nil)
	if s == nil && hooks.FixedParams {
		s = routineParamScope{p}
	}
	return &expr.Compiler{Scope: s, Hooks: hooks, Settings: st, Domains: p.domainLookup(), UserTypes: p.userTypeLookup()}
}

func rangeVarName(rv *pg.RangeVar) (string, string) { return rv.Schemaname, rv.Relname }

// OpenRelation looks a table up by name and locks it.
func (p *Planner) OpenRelation(rv *pg.RangeVar, lockMode int) (*catalog.Relation, error) {
	schema, name := rangeVarName(rv)
	v := p.C.Eng.Catalog.Version()
	rel, err := p.C.Eng.Catalog.Lookup(p.C.Tx, schema, name)
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.InvalidSchemaName {
		// A query names a relation: a missing schema means a missing
		// relation (parserOpenTable looks it up with missing_ok).
		rel, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rel == nil {
		e := pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, name))
		e.Position = rv.Location + 1
		return nil, e
	}
	if p.C.LockRel != nil {
		if err := p.C.LockRel(rel.OID, lockMode); err != nil {
			return nil, err
		}
		// The relation may have changed while we waited for the lock
		// (committed DDL changes the catalog version).
		if p.C.Tx.Dirty || p.C.Eng.Catalog.Version() != v {
			if r2, err := p.C.Eng.Catalog.Lookup(p.C.Tx, schema, name); err == nil && r2 != nil {
				rel = r2
			}
		}
	}
	if rel.IsTemp() {
		p.C.Tx.AccessedTemp = true
	}
	if p.Uses != nil {
		p.Uses[rel.OID] = true
	}
	p.noteRelAccess(rel, lockMode)
	if (lockMode == lockAccessShare || lockMode == lockRowExclusive) && p.C.Tx.IsOtherTemp(rel) {
		// Their pages are the other session's business (PostgreSQL keeps
		// them in its local buffers).
		return nil, catalog.OtherSessionTempError("access")
	}
	if rel.Kind == catalog.KindSequence {
		// A sequence reads as its one row; it is changed only by the
		// sequence functions.
		switch lockMode {
		case lockAccessShare:
			return rel, nil
		case lockRowExclusive:
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot change sequence \"%s\"", name)
		}
	}
	if rel.Kind == catalog.KindToast && lockMode == lockRowExclusive {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot change TOAST relation \"%s\"", name)
	}
	if rel.Kind == catalog.KindView && (lockMode == lockAccessShare || lockMode == int(xact.RowShareLock)) {
		return rel, nil // read through its query (userviews.go)
	}
	if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindToast {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table", name)
	}
	return rel, nil
}

func qualName(schema, name string) string {
	if schema != "" {
		return schema + "." + name
	}
	return name
}

// fromItem is a planned FROM entry.
type fromItem struct {
	node  Node
	rel   *catalog.Relation // for tables
	alias string
	cols  []scopeCol
	sys   []sysAttr // a table's system columns in the scan's row
	// withTID: the scan adds the row's TID (the target of UPDATE/DELETE).
	withTID bool
	mark    *rowMark // rows to be locked (SELECT … FOR UPDATE)
	// inh: the tables of an inheritance parent read with it (inherit.go)
	inh []*inhMember
}

func (p *Planner) planFrom(from []*pg.Node, withTID bool) (*fromItem, error) {
	if len(from) == 0 {
		return nil, nil
	}
	if len(from) > 1 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "queries with more than one FROM item are not supported yet")
	}
	n := from[0]
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		mode := lockAccessShare
		if withTID {
			mode = lockRowExclusive
		}
		if view := systemViews[rv.Relname]; view != nil && !withTID && (rv.Schemaname == "" || rv.Schemaname == "pg_catalog") {
			if r, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname); r == nil {
				alias := rv.Relname
				if rv.Alias != nil {
					alias = rv.Alias.Aliasname
				}
				vs := &ViewScan{Name: rv.Relname, Alias: alias, view: view}
				fi := &fromItem{node: vs, alias: alias}
				for i, c := range view.cols {
					fi.cols = append(fi.cols, scopeCol{rel: alias, name: c.Name, t: c.Type, index: i})
				}
				return fi, nil
			}
		}
		rel, err := p.OpenRelation(rv, mode)
		if err != nil {
			return nil, err
		}
		alias := rel.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		fi := &fromItem{rel: rel, alias: alias, sys: p.sysAttrs()}
		for i, a := range rel.Attrs {
			col := tableScopeCol(alias, a, a.Name, i)
			col.table, col.attnum, col.relname = rel.OID, a.Num, rel.Name
			fi.cols = append(fi.cols, col)
		}
		fi.cols = append(fi.cols, sysScopeCols(alias, rel, fi.sys)...)
		if err := p.expandInherited(fi, rv, mode); err != nil {
			return nil, err
		}
		if fi.inh != nil && withTID {
			fi.cols = append(fi.cols, inhJunkScopeCol(alias))
		}
		return fi, nil
	case n.GetRangeFunction() != nil:
		rf := n.GetRangeFunction()
		if fi, ok, err := p.routineFromOnly(rf); ok || err != nil {
			return fi, err
		}
		if len(rf.Functions) != 1 {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ROWS FROM is not supported yet")
		}
		fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
		if fc == nil {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this FROM function is not supported")
		}
		name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
		var args []expr.Expr
		var ts []types.Type
		comp := p.compiler(nil)
		for _, a := range fc.Args {
			e, err := comp.Compile(a)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			ts = append(ts, e.Type())
		}
		srf, err := types.LookupSRF(name, ts)
		if err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = expr.Coerce(args[i], srf.Args[i], types.CastImplicit); err != nil {
				return nil, err
			}
		}
		alias, col := name, name
		if rf.Alias != nil {
			alias = rf.Alias.Aliasname
			col = alias
			if len(rf.Alias.Colnames) > 0 {
				col = rf.Alias.Colnames[0].GetString_().Sval
			}
		}
		fs := &FunctionScan{SRF: srf, Args: args, Alias: alias, Col: col}
		return &fromItem{node: fs, alias: alias, cols: []scopeCol{{rel: alias, name: col, t: srf.Ret, index: 0}}}, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of FROM item is not supported yet")
}

// conjuncts splits an AND tree.
func conjuncts(e expr.Expr) []expr.Expr {
	if b, ok := e.(*expr.BoolOp); ok && b.Op == "AND" {
		var out []expr.Expr
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}

func andOf(es []expr.Expr) expr.Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return &expr.BoolOp{Op: "AND", Args: es}
}

func isConstant(e expr.Expr) bool {
	switch x := e.(type) {
	case *expr.Const, *expr.Param:
		return true
	case *expr.Cast:
		return isConstant(x.Arg)
	case *expr.Func:
		if x.Fn.Volatile {
			return false
		}
		for _, a := range x.Args {
			if !isConstant(a) {
				return false
			}
		}
		return true
	}
	return false
}

var commute = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// indexable reports a conjunct "col op constant" on column index col.
func indexable(e expr.Expr) (col int, op string, val expr.Expr, ok bool) {
	f, isF := e.(*expr.Func)
	if !isF || len(f.Args) != 2 {
		return 0, "", nil, false
	}
	if _, known := commute[f.Op]; !known {
		return 0, "", nil, false
	}
	if v, isV := f.Args[0].(*expr.Var); isV && isConstant(f.Args[1]) && v.T.OID == f.Fn.Args[0].OID {
		return v.Index, f.Op, f.Args[1], true
	}
	if v, isV := f.Args[1].(*expr.Var); isV && isConstant(f.Args[0]) && v.T.OID == f.Fn.Args[1].OID {
		return v.Index, commute[f.Op], f.Args[0], true
	}
	return 0, "", nil, false
}

// scanFor picks a sequential or index scan for a table and qual.
func (p *Planner) scanFor(fi *fromItem, qual expr.Expr, withTID bool) Node {
	rel := fi.rel
	if p.methodEnabled("enable_tidscan") {
		if ts := tidScanFor(fi, qual, withTID); ts != nil {
			return ts
		}
	}
	if qual != nil && p.indexPathsEnabled() {
		cs := conjuncts(qual)
		var best *IndexScan
		bestScore := 0
		for _, ir := range rel.Indexes {
			keys := ir.Index.Keys
			used := map[int]bool{}
			var lower, upper []expr.Expr
			lowerIn, upperIn := true, true
			var conds []string
			score := 0
			for ki, k := range keys {
				eqFound := false
				for ci, cj := range cs {
					col, op, val, ok := indexable(cj)
					if !ok || col != int(k-1) || used[ci] {
						continue
					}
					if op == "=" {
						lower = append(lower, val)
						upper = append(upper, val)
						used[ci] = true
						conds = append(conds, cj.String())
						eqFound = true
						score += 10
						break
					}
				}
				if eqFound {
					continue
				}
				// A range on this column ends the usable prefix.
				for ci, cj := range cs {
					col, op, val, ok := indexable(cj)
					if !ok || col != int(k-1) || used[ci] {
						continue
					}
					switch op {
					case ">", ">=":
						if len(lower) == ki {
							lower = append(lower, val)
							lowerIn = op == ">="
							used[ci] = true
							conds = append(conds, cj.String())
							score += 3
						}
					case "<", "<=":
						if len(upper) == ki {
							upper = append(upper, val)
							upperIn = op == "<="
							used[ci] = true
							conds = append(conds, cj.String())
							score += 3
						}
					}
				}
				break
			}
			if score > bestScore {
				var rest []expr.Expr
				for ci, cj := range cs {
					if !used[ci] {
						rest = append(rest, cj)
					}
				}
				cond := strings.Join(conds, " AND ")
				if len(conds) > 1 {
					cond = "(" + cond + ")"
				}
				is := &IndexScan{Rel: rel, Alias: fi.alias, Index: ir, Cond: cond, Qual: andOf(rest), Sys: fi.sys, WithTID: withTID, LowerIn: lowerIn, UpperIn: upperIn}
				if len(lower) > 0 {
					is.Lower = lower
				}
				if len(upper) > 0 {
					is.Upper = upper
				}
				best, bestScore = is, score
			}
		}
		if best != nil {
			return best
		}
	}
	return &SeqScan{Rel: rel, Alias: fi.alias, Qual: qual, Sys: fi.sys, WithTID: withTID}
}

var aggNames = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "bool_and": true, "bool_or": true, "every": true, "string_agg": true, "array_agg": true,
	"json_agg": true, "jsonb_agg": true, "json_object_agg": true, "jsonb_object_agg": true,
	"variance": true, "var_samp": true, "var_pop": true, "stddev": true, "stddev_samp": true, "stddev_pop": true}

// hasAggregates reports whether the target list or HAVING uses aggregates.
func hasAggregates(nodes ...*pg.Node) bool {
	found := false
	visit := func(m proto.Message) bool {
		if found {
			return false
		}
		switch n := m.(type) {
		case *pg.FuncCall:
			name := n.Funcname[len(n.Funcname)-1].GetString_().Sval
			// a window call (OVER) is no aggregate (compiling it refuses
			// it), but its arguments may hold one
			if n.Over == nil && (aggNames[name] || n.AggStar) {
				found = true
				return false
			}
		case *pg.SelectStmt:
			// a sub-select's aggregates belong to the sub-select
			return false
		}
		return true
	}
	for _, n := range nodes {
		parser.Walk(n, visit)
	}
	return found
}

// groupedExprHook lets an expression above an aggregation use a GROUP BY
// expression that is more than a column (GROUP BY a + 1, lower(b), 1):
// a node that compiles, in the input scope, to the same expression as a
// group key becomes a reference to that key, as PostgreSQL matches
// grouped expressions. Plain columns are matched by aggScope already;
// nodes holding a sub-select are left alone (compiling one plans it).
func groupedExprHook(input *expr.Compiler, groups []expr.Expr) func(*pg.Node) (expr.Expr, bool, error) {
	var keys []string
	idx := map[string]int{}
	for i, g := range groups {
		if _, isVar := g.(*expr.Var); isVar {
			continue
		}
		k := g.String()
		if _, dup := idx[k]; !dup {
			idx[k] = i
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return func(n *pg.Node) (expr.Expr, bool, error) {
		if n.GetColumnRef() != nil || n.GetAConst() != nil || n.GetSubLink() != nil {
			return nil, false, nil
		}
		hasSub := false
		parser.Walk(n, func(m proto.Message) bool {
			if _, ok := m.(*pg.SubLink); ok {
				hasSub = true
			}
			return !hasSub
		})
		if hasSub {
			return nil, false, nil
		}
		e, err := input.Compile(n)
		if err != nil {
			// e.g. it holds an aggregate: compile it above the Agg
			return nil, false, nil
		}
		if i, ok := idx[e.String()]; ok {
			return &expr.Var{Index: i, T: groups[i].Type(), Name: groups[i].String()}, true, nil
		}
		return nil, false, nil
	}
}

// aggScope resolves columns above an Agg node: only grouped expressions.
type aggScope struct {
	input  *scope
	groups []expr.Expr
	p      *Planner
}

func targetName(rt *pg.ResTarget, e expr.Expr) string {
	if rt.Name != "" {
		return rt.Name
	}
	if name, strength := figureColname(rt.Val); strength > 0 {
		return name
	}
	return "?column?"
}

// PlanSelect plans a SELECT.
func (p *Planner) PlanSelect(s *pg.SelectStmt) (node Node, cols []Column, err error) {
	if !p.planning {
		// The statement is this SELECT (not one INSERT … SELECT plans).
		p.topSelect = s
	}
	err = p.statement(func() (err error) {
		node, cols, _, err = p.planQuery(s, nil, 0)
		return err
	})
	if err == nil && !p.planning {
		node = p.withModifying(node)
	}
	return node, cols, err
}

// planSimple plans a SELECT without set operations or WITH, whose scope
// is nested in parent (for correlated references) at the given level.
func (p *Planner) planSimple(s *pg.SelectStmt, parent levelScope, level int) (Node, []Column, error) {
	lr, err := parseLocking(s)
	if err != nil {
		return nil, nil, err
	}
	if len(s.ValuesLists) > 0 {
		if lr != nil {
			return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s cannot be applied to VALUES", lr.first())
		}
		node, cols, err := p.planValues(s.ValuesLists, nil)
		if err != nil {
			return nil, nil, err
		}
		return p.orderByOutputColumns(node, cols, s)
	}
	if lr != nil {
		if err := checkSelectLocking(s, lr, false); err != nil {
			return nil, nil, err
		}
	}
	if r := srfOnlySelect(s, p.isUserSRF); r != nil {
		s = r
		p.noteTargetListSRF(r)
	}
	outerLocks := p.q.locks
	p.q.locks = lr
	defer func() { p.q.locks = outerLocks }()
	sc := &scope{parent: parent, level: level, p: p}
	jt, err := p.buildFrom(s.FromClause, sc)
	if err != nil {
		return nil, nil, err
	}
	comp := p.compiler(sc)
	noWindowIn(comp, "WHERE")
	var qual expr.Expr
	if s.WhereClause != nil {
		if qual, err = comp.Compile(s.WhereClause); err != nil {
			return nil, nil, err
		}
		if qual, err = coerceBoolArg("WHERE", qual); err != nil {
			return nil, nil, err
		}
	}
	var recheck expr.Expr
	if lr != nil && jt != nil {
		recheck = andOf(recheckQuals(jt, false, conjunctsOf(qual)))
	}
	var input Node
	if jt != nil {
		if input, err = p.planJoinTree(jt, qual); err != nil {
			return nil, nil, err
		}
		qual = nil
	}

	// HAVING alone makes the query an aggregate one (a single group).
	agg := len(s.GroupClause) > 0 || s.HavingClause != nil || hasAggregates(s.TargetList...)
	var lockRows *LockRows
	if lr != nil {
		if lockRows, err = p.planLockRows(s, lr, jt, agg, recheck); err != nil {
			return nil, nil, err
		}
	}
	var targetScope expr.Scope = sc
	var aggNode *Agg
	if agg {
		if input == nil {
			input = &Result{}
		}
		aggNode = &Agg{Input: input}
		noWindowIn(comp, "GROUP BY")
		if err = p.planGroupClause(comp, s, aggNode); err != nil {
			return nil, nil, err
		}
		targetScope = &aggScope{input: sc, groups: aggNode.GroupBy, p: p}
	}
	tcomp := p.compiler(targetScope)
	if agg {
		tcomp.Hooks.Node = groupingFuncHook(comp, aggNode, groupedExprHook(comp, aggNode.GroupBy))
		tcomp.Hooks.Func = func(fc *pg.FuncCall) (expr.Expr, bool, error) {
			name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
			if !aggNames[name] && !fc.AggStar {
				return nil, false, nil
			}
			call, err := planAggCall(comp, name, fc)
			if err != nil {
				return nil, true, err
			}
			aggNode.Aggs = append(aggNode.Aggs, call)
			return &expr.Var{Index: len(aggNode.GroupBy) + len(aggNode.Aggs) - 1, T: call.T, Name: call.String()}, true, nil
		}
	}
	var win *windowPlanner
	if hasWindowCalls(append(append([]*pg.Node{}, s.TargetList...), s.SortClause...)...) {
		if win, err = newWindowPlanner(p, tcomp, s); err != nil {
			return nil, nil, err
		}
		tcomp.Hooks.Window = win.call
		if input == nil {
			input = &Result{}
		}
	}
	var exprs []expr.Expr
	var cols []Column
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if agg {
				return nil, nil, pgerr.Errorf(pgerr.GroupingError, "SELECT * is not allowed with GROUP BY or aggregates")
			}
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			n := 0
			for _, c := range sc.cols {
				if c.system {
					continue
				}
				if (qual == "" && !c.hidden) || (qual != "" && c.rel == qual && !c.dropped) {
					if c.table != 0 && c.attnum > 0 {
						p.noteColumnRead(c.table, c.attnum)
					}
					exprs = append(exprs, &expr.Var{Index: c.index, T: c.t, Name: sc.display(c)})
					cols = append(cols, Column{Name: c.name, Type: c.t, Table: c.table, Attr: c.attnum})
					n++
				}
			}
			if n == 0 && qual != "" && !sc.hasRel(qual) {
				return nil, nil, pgerr.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual)
			}
			if jt == nil {
				return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "SELECT * with no tables specified is not valid")
			}
			continue
		}
		e, err := tcomp.Compile(rt.Val)
		if err != nil {
			return nil, nil, err
		}
		if e.Type().OID == types.UnknownOID {
			e, _ = expr.Coerce(e, types.Text, types.CastImplicit)
		}
		exprs = append(exprs, e)
		col := Column{Name: targetName(rt, e), Type: e.Type()}
		if v, ok := e.(*expr.Var); ok && !agg {
			for _, c := range sc.cols {
				if c.index == v.Index {
					col.Table, col.Attr = c.table, c.attnum
				}
			}
		}
		cols = append(cols, col)
	}
	var node Node
	if agg {
		for _, g := range aggNode.GroupBy {
			aggNode.Cols = append(aggNode.Cols, Column{Name: g.String(), Type: g.Type()})
		}
		for _, a := range aggNode.Aggs {
			aggNode.Cols = append(aggNode.Cols, Column{Name: a.Name, Type: a.T})
		}
		node = aggNode
		if s.HavingClause != nil {
			h, err := compileWithoutWindows(tcomp, "HAVING", s.HavingClause)
			if err != nil {
				return nil, nil, err
			}
			aggNode.Cols = nil
			for _, g := range aggNode.GroupBy {
				aggNode.Cols = append(aggNode.Cols, Column{Name: g.String(), Type: g.Type()})
			}
			for _, a := range aggNode.Aggs {
				aggNode.Cols = append(aggNode.Cols, Column{Name: a.Name, Type: a.T})
			}
			node = &Filter{Input: aggNode, Qual: h}
		}
	} else if input == nil {
		res := &Result{Exprs: exprs, Qual: qual}
		for _, c := range cols {
			res.Names = append(res.Names, c.Name)
		}
		node = res
		exprs = nil
	} else {
		node = input
		if lockRows == nil {
			node = p.parallelizeScan(node)
		}
	}

	// ORDER BY: sort keys are computed as hidden columns of the projection.
	var sortKeys []SortKey
	hidden := 0
	for _, sb := range s.SortClause {
		by := sb.GetSortBy()
		var ke expr.Expr
		if ac := by.Node.GetAConst(); ac != nil && ac.GetIval() != nil {
			pos := int(ac.GetIval().Ival)
			if pos < 1 || pos > len(cols) {
				e := pgerr.Errorf(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos)
				e.Position = ac.Location + 1
				return nil, nil, e
			}
			ke = &expr.Var{Index: pos - 1, T: cols[pos-1].Type, Name: cols[pos-1].Name}
		} else if cr := by.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && matchTarget(cols, cr.Fields[0].GetString_().GetSval()) >= 0 {
			i := matchTarget(cols, cr.Fields[0].GetString_().Sval)
			ke = &expr.Var{Index: i, T: cols[i].Type, Name: exprName(exprs, i, cols)}
		} else {
			e, err := tcomp.Compile(by.Node)
			if err != nil {
				return nil, nil, err
			}
			if exprs == nil {
				return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ORDER BY on an expression without FROM is not supported")
			}
			for i := range cols {
				if sameOutputExpr(exprs[i], e) {
					ke = &expr.Var{Index: i, T: cols[i].Type, Name: e.String()}
					break
				}
			}
			if ke == nil {
				if s.DistinctClause != nil {
					// DISTINCT groups on the output columns only; a hidden
					// sort column would have no single value per group.
					return nil, nil, pgerr.Errorf(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
				}
				exprs = append(exprs, e)
				hidden++
				ke = &expr.Var{Index: len(exprs) - 1, T: e.Type(), Name: e.String()}
			}
		}
		k, err := sortKeyFor(by, ke)
		if err != nil {
			return nil, nil, err
		}
		sortKeys = append(sortKeys, k)
	}
	if win != nil {
		node = win.build(node, sortKeyExprs(exprs, sortKeys), groupKeys(aggNode))
	}
	if exprs != nil {
		pcols := append([]Column{}, cols...)
		for i := len(cols); i < len(exprs); i++ {
			pcols = append(pcols, Column{Name: "?sort?", Type: exprs[i].Type()})
		}
		if lockRows != nil {
			// The query row rides along for the re-check of newer versions.
			lockRows.RawOff, lockRows.Exprs = len(exprs), exprs
			all := append([]expr.Expr{}, exprs...)
			for i, c := range sc.cols {
				all = append(all, &expr.Var{Index: i, T: c.t, Name: c.name})
				pcols = append(pcols, Column{Name: "?row?", Type: c.t})
			}
			node = &Project{Input: node, Exprs: all, Cols: pcols}
			lockRows.cols = pcols
		} else if !isIdentity(exprs, node) {
			node = &Project{Input: node, Exprs: exprs, Cols: pcols}
		}
	}
	if aggNode != nil && lockRows == nil {
		narrowAggScan(aggNode)
		p.parallelizeAgg(aggNode)
	}
	if s.DistinctClause != nil {
		var gb []expr.Expr
		for i, c := range cols {
			gb = append(gb, &expr.Var{Index: i, T: c.Type, Name: c.Name})
		}
		node = &Agg{Input: node, GroupBy: gb, Cols: cols, distinct: true}
	}
	if len(sortKeys) > 0 {
		node = &Sort{Input: node, Keys: sortKeys}
	}
	if lockRows != nil {
		lockRows.Input = node
		node = lockRows
	}
	if hidden > 0 || lockRows != nil {
		var trim []expr.Expr
		for i, c := range cols {
			trim = append(trim, &expr.Var{Index: i, T: c.Type, Name: c.Name})
		}
		node = &Project{Input: node, Exprs: trim, Cols: cols}
	}
	if s.LimitCount != nil || s.LimitOffset != nil {
		l := &Limit{Input: node}
		c0 := p.compiler(nil)
		if s.LimitCount != nil {
			e, err := c0.Compile(s.LimitCount)
			if err != nil {
				return nil, nil, err
			}
			if l.Count, err = expr.Coerce(e, types.Int8, types.CastAssignment); err != nil {
				return nil, nil, err
			}
		}
		if s.LimitOffset != nil {
			e, err := c0.Compile(s.LimitOffset)
			if err != nil {
				return nil, nil, err
			}
			if l.Offset, err = expr.Coerce(e, types.Int8, types.CastAssignment); err != nil {
				return nil, nil, err
			}
		}
		node = l
	}
	return node, cols, nil
}

func matchTarget(cols []Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func exprName(exprs []expr.Expr, i int, cols []Column) string {
	if exprs != nil && i < len(exprs) {
		return exprs[i].String()
	}
	return cols[i].Name
}

// isIdentity: the projection would return the input row unchanged.
func isIdentity(exprs []expr.Expr, input Node) bool {
	in := input.Columns()
	if len(exprs) != len(in) {
		return false
	}
	for i, e := range exprs {
		v, ok := e.(*expr.Var)
		if !ok || v.Index != i {
			return false
		}
	}
	return true
}

func (p *Planner) groupExpr(comp *expr.Compiler, g *pg.Node, targets []*pg.Node) (expr.Expr, error) {
	if ac := g.GetAConst(); ac != nil && ac.GetIval() != nil {
		pos := int(ac.GetIval().Ival)
		if pos < 1 || pos > len(targets) {
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", pos)
		}
		return comp.Compile(targets[pos-1].GetResTarget().Val)
	}
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		name := cr.Fields[0].GetString_().GetSval()
		if e, err := comp.Compile(g); err == nil {
			return e, nil
		}
		for _, t := range targets {
			if rt := t.GetResTarget(); rt.Name == name {
				return comp.Compile(rt.Val)
			}
		}
	}
	return comp.Compile(g)
}

// planValues plans a VALUES list, coercing to want (column types) if given.
func (p *Planner) planValues(lists []*pg.Node, want []types.Type) (Node, []Column, error) {
	return p.planValuesWith(lists, want, func(i int, e expr.Expr) (expr.Expr, error) { return assignCoerce(e, want[i]) })
}

// planValuesWith is planValues with the coercion of column i's values to
// want[i] given.
func (p *Planner) planValuesWith(lists []*pg.Node, want []types.Type, coerce func(i int, e expr.Expr) (expr.Expr, error)) (Node, []Column, error) {
	comp := p.compiler(nil)
	v := &Values{}
	ncol := -1
	for _, l := range lists {
		items := l.GetList().Items
		if ncol >= 0 && len(items) != ncol {
			return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		ncol = len(items)
		var row []expr.Expr
		for i, it := range items {
			if it.GetSetToDefault() != nil {
				row = append(row, nil)
				continue
			}
			e, err := comp.Compile(it)
			if err != nil {
				return nil, nil, err
			}
			if want != nil && i < len(want) {
				if e, err = coerce(i, e); err != nil {
					return nil, nil, err
				}
			}
			row = append(row, e)
		}
		v.Rows = append(v.Rows, row)
	}
	for i := 0; i < ncol; i++ {
		t := types.Unknown
		if want != nil && i < len(want) {
			t = want[i]
		} else {
			for _, r := range v.Rows {
				if r[i] != nil {
					t = unifyTypes(t, r[i].Type())
				}
			}
			if t.OID == types.UnknownOID {
				t = types.Text
			}
			for _, r := range v.Rows {
				if r[i] != nil {
					var err error
					if r[i], err = expr.Coerce(r[i], t, types.CastImplicit); err != nil {
						return nil, nil, err
					}
				}
			}
		}
		v.Cols = append(v.Cols, Column{Name: fmt.Sprintf("column%d", i+1), Type: t})
	}
	return v, v.Cols, nil
}

func unifyTypes(a, b types.Type) types.Type {
	if a.OID == types.UnknownOID {
		return b
	}
	if b.OID == types.UnknownOID {
		return a
	}
	if t, ok := types.CommonType(a, b); ok {
		return t
	}
	return a
}

// assignCoerce converts a value for storing in a column of type t.
func assignCoerce(e expr.Expr, t types.Type) (expr.Expr, error) {
	if p, ok := e.(*expr.Param); ok && p.T.OID == types.UnknownOID {
		p.Infer(t)
		return p, nil
	}
	out, err := expr.Coerce(e, t, types.CastAssignment)
	if err != nil && pgerr.Code(err) == pgerr.DatatypeMismatch {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "column is of type %s but expression is of type %s", t, e.Type()).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return out, err
}
