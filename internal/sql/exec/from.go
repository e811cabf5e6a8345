package exec

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// queryState is one query level being planned.
type queryState struct {
	level int
	// refs are the levels below this one that the query refers to.
	refs map[int]bool
}

func (q *queryState) correlated() bool { return len(q.refs) > 0 }

// cteDef is a WITH query, planned once and materialized on first use.
type cteDef struct {
	name string
	node Node
	cols []Column
	mat  *cteState
	// work: a recursive query's self-reference while its recursive term
	// is planned (it reads the working table); lazy: the query is read
	// as its readers need rows (recursive.go).
	work *workTable
	lazy bool
	// round: the query is planned inside a recursive term, whose working
	// table it may read, so its rows are good for one round only.
	round *workTable
	// modifying: an INSERT, UPDATE or DELETE (modifyingcte.go), which
	// runs once; returning: it has RETURNING rows to read.
	modifying, returning bool
}

// planState is the planner's state across the query levels of a statement.
type planState struct {
	stack    []*queryState
	ctes     []map[string]*cteDef
	nextSub  int
	subplans []*expr.SubqueryPlan
	// locks are the locking clauses of the query level whose FROM list
	// is being built (nil: none).
	locks *lockRequest
	// tlistSRFs are FROM functions that stand for a set-returning
	// function of the target list (tlistsrf.go): a row result is one
	// record column there.
	tlistSRFs map[*pg.RangeFunction]bool
	// rounds are the working tables of the recursive terms being planned,
	// innermost last (recursive.go).
	rounds []*workTable
	// modifying are the statement's data-modifying WITH queries.
	modifying []*cteDef
}

// markOuterRef notes that a reference to level lvl was made: every query
// being planned at a deeper level is correlated with it.
func (p *Planner) markOuterRef(lvl int) {
	for _, q := range p.q.stack {
		if q.level > lvl {
			if q.refs == nil {
				q.refs = map[int]bool{}
			}
			q.refs[lvl] = true
		}
	}
}

func (p *Planner) curLevel() int {
	if n := len(p.q.stack); n > 0 {
		return p.q.stack[n-1].level
	}
	return 0
}

// planQuery plans a SELECT (with WITH and set operations) at a level.
func (p *Planner) planQuery(s *pg.SelectStmt, parent levelScope, level int) (Node, []Column, *queryState, error) {
	if s == nil {
		return nil, nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of subquery is not supported yet")
	}
	if err := refuseUnsupportedSelect(s); err != nil {
		return nil, nil, nil, err
	}
	qs := &queryState{level: level}
	p.q.stack = append(p.q.stack, qs)
	defer func() { p.q.stack = p.q.stack[:len(p.q.stack)-1] }()
	if w := s.WithClause; w != nil {
		pop, err := p.pushCTEs(w, parent, level)
		if err != nil {
			return nil, nil, nil, err
		}
		defer pop()
	}
	var node Node
	var cols []Column
	var err error
	if s.Op != pg.SetOperation_SETOP_NONE && len(s.LockingClause) > 0 {
		lr, err := parseLocking(s)
		if err != nil {
			return nil, nil, nil, err
		}
		return nil, nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", lr.first())
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		node, cols, err = p.planSetOp(s, parent, level)
	} else {
		node, cols, err = p.planSimple(s, parent, level)
	}
	return node, cols, qs, err
}

// pushCTEs plans the queries of a WITH clause and makes them visible to
// what is planned until the returned function is called.
func (p *Planner) pushCTEs(w *pg.WithClause, parent levelScope, level int) (func(), error) {
	m := map[string]*cteDef{}
	p.q.ctes = append(p.q.ctes, m)
	pop := func() { p.q.ctes = p.q.ctes[:len(p.q.ctes)-1] }
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		if m[ce.Ctename] != nil {
			pop()
			return nil, pgerr.Errorf("42712", "WITH query name \"%s\" specified more than once", ce.Ctename)
		}
		if def, ok, err := p.planModifyingCTE(ce, level, parent); ok {
			if err != nil {
				pop()
				return nil, err
			}
			m[ce.Ctename] = def
			continue
		}
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			pop()
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of WITH query is not supported yet")
		}
		if w.Recursive && referencesName(ce.Ctequery, ce.Ctename) {
			def, err := p.planRecursiveCTE(ce, parent, level, m)
			if err != nil {
				pop()
				return nil, err
			}
			def.round = p.currentRound()
			m[ce.Ctename] = def
			continue
		}
		node, cols, _, err := p.planQuery(sel, parent, level)
		if err != nil {
			pop()
			return nil, err
		}
		if err := checkCTEColumnCount(ce, len(cols)); err != nil {
			pop()
			return nil, err
		}
		cols = renameCols(cols, ce.Aliascolnames)
		m[ce.Ctename] = &cteDef{name: ce.Ctename, node: node, cols: cols, mat: &cteState{}, round: p.currentRound()}
	}
	return pop, nil
}

// checkCTEColumnCount refuses more column names than a WITH query has.
func checkCTEColumnCount(ce *pg.CommonTableExpr, n int) error {
	if len(ce.Aliascolnames) > n {
		return at(pgerr.Errorf(pgerr.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", ce.Ctename, n, len(ce.Aliascolnames)), ce.Location)
	}
	return nil
}

func renameCols(cols []Column, names []*pg.Node) []Column {
	if len(names) == 0 {
		return cols
	}
	out := append([]Column{}, cols...)
	for i, n := range names {
		if i < len(out) {
			out[i].Name = n.GetString_().GetSval()
		}
	}
	return out
}

func (p *Planner) lookupCTE(name string) *cteDef {
	for i := len(p.q.ctes) - 1; i >= 0; i-- {
		if d := p.q.ctes[i][name]; d != nil {
			return d
		}
	}
	return nil
}

// subLink plans a subquery of an expression compiled in scope outer.
func (p *Planner) subLink(sub *pg.Node, outer expr.Scope) (*expr.SubqueryPlan, error) {
	ls, _ := outer.(levelScope)
	level := p.curLevel() + 1
	if ls != nil {
		level = ls.lvl() + 1
	}
	node, cols, qs, err := p.planQuery(sub.GetSelectStmt(), ls, level)
	if err != nil {
		return nil, err
	}
	p.q.nextSub++
	sp := &expr.SubqueryPlan{ID: p.q.nextSub, Correlated: qs.correlated(), Levels: qs.refs, Node: node, Run: p.runner(node)}
	for _, c := range cols {
		sp.Types = append(sp.Types, c.Type)
	}
	p.q.subplans = append(p.q.subplans, sp)
	return sp, nil
}

// runner runs a subquery's plan for expr.SubPlan.
func (p *Planner) runner(node Node) func(env *expr.Env, fn func([]types.Datum) (bool, error)) error {
	fallback := p.C
	return func(env *expr.Env, fn func([]types.Datum) (bool, error)) error {
		c := fallback
		if x, ok := env.Exec.(*Ctx); ok {
			c = x
		}
		if c.Env != env {
			cc := *c
			cc.Env = env
			c = &cc
		}
		if err := Open(c, node); err != nil {
			Close(c, node)
			return err
		}
		defer Close(c, node)
		for {
			if err := c.checkCancel(); err != nil {
				return err
			}
			r, err := Next(c, node)
			if err != nil || r == nil {
				return err
			}
			more, err := fn(r)
			if err != nil || !more {
				return err
			}
		}
	}
}

// jtree is the FROM clause as a tree of joins over leaves. Every node
// covers a contiguous range [offset, offset+width) of the query's row.
type jtree struct {
	fi            *fromItem // a leaf
	kind          pg.JoinType
	left, right   *jtree
	offset, width int
	on            []expr.Expr // ON conditions (query row indexes)
	quals         []expr.Expr // leaf filters / inner join conditions
	filter        []expr.Expr // conditions above an outer join
	lateral       bool        // the right side reads the left row
}

func countLeaves(n *pg.Node) int {
	if j := n.GetJoinExpr(); j != nil {
		return countLeaves(j.Larg) + countLeaves(j.Rarg)
	}
	return 1
}

// buildFrom builds the FROM tree, filling sc with its columns.
func (p *Planner) buildFrom(from []*pg.Node, sc *scope) (*jtree, error) {
	leaves := 0
	for _, n := range from {
		leaves += countLeaves(n)
	}
	sc.qualify = leaves > 1
	var t *jtree
	for _, n := range from {
		r, err := p.buildItem(n, sc, t)
		if err != nil {
			return nil, err
		}
		if t == nil {
			t = r
		} else {
			t = &jtree{kind: pg.JoinType_JOIN_INNER, left: t, right: r, offset: t.offset, width: t.width + r.width, lateral: r.lateral}
		}
	}
	return t, nil
}

// lateralScope is the scope a LATERAL item sees: the columns of left,
// indexed as in left's rows, one level up.
func (p *Planner) lateralScope(sc *scope, left *jtree) *scope {
	ls := &scope{parent: sc.parent, level: sc.level, p: p, qualify: sc.qualify}
	for _, c := range sc.cols[left.offset : left.offset+left.width] {
		c.index -= left.offset
		ls.cols = append(ls.cols, c)
	}
	return ls
}

func (p *Planner) addLeaf(sc *scope, fi *fromItem, cols []scopeCol) *jtree {
	off := len(sc.cols)
	for i, c := range cols {
		c.index = off + i
		sc.cols = append(sc.cols, c)
	}
	fi.cols = cols
	return &jtree{fi: fi, offset: off, width: len(cols)}
}

func aliasOf(a *pg.Alias, def string) (string, []string) {
	if a == nil {
		return def, nil
	}
	var names []string
	for _, n := range a.Colnames {
		names = append(names, n.GetString_().GetSval())
	}
	return a.Aliasname, names
}

func (p *Planner) buildItem(n *pg.Node, sc *scope, left *jtree) (*jtree, error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		alias, colAliases := aliasOf(rv.Alias, rv.Relname)
		if rv.Schemaname == "" {
			if d := p.lookupCTE(rv.Relname); d != nil {
				if err := d.checkReadable(rv.Location); err != nil {
					return nil, err
				}
				if err := p.q.locks.refuseNamed(alias, "a WITH query"); err != nil {
					return nil, err
				}
				var cs Node = &CTEScan{def: d, Alias: alias}
				if d.work != nil {
					cs = &WorkTableScan{work: d.work, Name: d.name, Alias: alias, cols: d.cols}
				}
				var cols []scopeCol
				for i, c := range d.cols {
					name := c.Name
					if i < len(colAliases) {
						name = colAliases[i]
					}
					cols = append(cols, scopeCol{rel: alias, name: name, t: c.Type})
				}
				return p.addLeaf(sc, &fromItem{node: cs, alias: alias}, cols), nil
			}
		}
		if tt := p.C.transitions[rv.Relname]; tt != nil && rv.Schemaname == "" {
			return p.addTransitionLeaf(sc, rv.Relname, tt, alias, colAliases), nil
		}
		if view := p.systemView(rv); view != nil {
			if err := p.q.locks.refuseNamed(alias, "a function"); err != nil {
				return nil, err
			}
			vs := &ViewScan{Name: rv.Relname, Alias: alias, view: view}
			var cols []scopeCol
			for i, c := range view.cols {
				name := c.Name
				if i < len(colAliases) {
					name = colAliases[i]
				}
				cols = append(cols, scopeCol{rel: alias, name: name, t: c.Type})
			}
			return p.addLeaf(sc, &fromItem{node: vs, alias: alias}, cols), nil
		}
		if j, ok, err := p.infoSchemaView(rv, sc); ok {
			return j, err
		}
		var mark *rowMark
		if p.q.locks != nil {
			// A table is named by its alias, or its own name.
			mark, _ = p.q.locks.markFor(alias)
		}
		rel, err := p.OpenRelation(rv, lockRelMode(mark))
		if err != nil {
			return nil, err
		}
		if rel.Kind == catalog.KindView {
			return p.expandView(rel, rv, sc, mark)
		}
		if err := p.checkPopulated(rel); err != nil {
			return nil, err
		}
		if mark != nil && rel.MatView {
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot lock rows in materialized view \"%s\"", rel.Name)
		}
		if rv.Alias == nil {
			alias = rel.Name
		}
		var cols []scopeCol
		visible := 0
		for i, a := range rel.Attrs {
			name := a.Name
			if !a.Dropped {
				if visible < len(colAliases) {
					name = colAliases[visible]
				}
				visible++
			}
			col := tableScopeCol(alias, a, name, i)
			col.table, col.attnum, col.relname = rel.OID, a.Num, rel.Name
			cols = append(cols, col)
		}
		sys := p.sysAttrs()
		cols = append(cols, sysScopeCols(alias, rel, sys)...)
		fi := &fromItem{rel: rel, alias: alias, sys: sys, mark: mark, withTID: mark != nil}
		if err := p.expandInherited(fi, rv, lockRelMode(mark)); err != nil {
			return nil, err
		}
		if mark != nil {
			if fi.inh != nil {
				cols = append(cols, inhJunkScopeCol(alias))
			}
			// The row's TID, for LockRows.
			cols = append(cols, tidScopeCol(alias))
		}
		return p.addLeaf(sc, fi, cols), nil

	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Alias == nil {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery in FROM must have an alias").
				WithHint("For example, FROM (SELECT ...) [AS] foo.")
		}
		alias, colAliases := aliasOf(rs.Alias, "")
		sel := rs.Subquery.GetSelectStmt()
		if lr := p.q.locks; lr != nil && sel != nil {
			// A VALUES subquery has no table rows: nothing to lock there.
			if m, _ := lr.markFor(alias); m != nil && len(sel.ValuesLists) == 0 {
				sel = lockSubquery(sel, m, lr.clauses[0].strength)
			}
		}
		// The subquery's own FROM list has its own locking clauses.
		outerLocks := p.q.locks
		p.q.locks = nil
		defer func() { p.q.locks = outerLocks }()
		var node Node
		var cols []Column
		lateral := false
		if rs.Lateral && left != nil {
			ls := p.lateralScope(sc, left)
			nd, cs, qs, err := p.planQuery(sel, ls, sc.level+1)
			if err != nil {
				return nil, err
			}
			if qs.refs[sc.level] {
				node, cols, lateral = nd, cs, true
			}
		}
		if node == nil {
			var err error
			if node, cols, _, err = p.planQuery(sel, sc.parent, sc.level); err != nil {
				return nil, err
			}
		}
		if len(colAliases) > len(cols) {
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, len(cols), len(colAliases))
		}
		var scols []scopeCol
		var outCols []Column
		for i, c := range cols {
			name := c.Name
			if i < len(colAliases) {
				name = colAliases[i]
			}
			scols = append(scols, scopeCol{rel: alias, name: name, t: c.Type})
			outCols = append(outCols, Column{Name: name, Type: c.Type})
		}
		ss := &SubqueryScan{Input: node, Alias: alias, Cols: outCols}
		t := p.addLeaf(sc, &fromItem{node: ss, alias: alias}, scols)
		t.lateral = lateral
		return t, nil

	case n.GetRangeFunction() != nil:
		rf := n.GetRangeFunction()
		if rf.Alias != nil {
			if err := p.q.locks.refuseNamed(rf.Alias.Aliasname, "a function"); err != nil {
				return nil, err
			}
		}
		if t, ok, err := p.routineFromItem(rf, sc, left); ok || err != nil {
			return t, err
		}
		if len(rf.Functions) != 1 || rf.IsRowsfrom {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ROWS FROM is not supported yet")
		}
		fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
		if fc == nil {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this FROM function is not supported")
		}
		name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
		compileArgs := func(s expr.Scope) ([]expr.Expr, error) {
			var args []expr.Expr
			comp := p.compiler(s)
			if args, named, err := comp.NamedBuiltinArgs(fc, name); named || err != nil {
				return args, err
			}
			for _, a := range fc.Args {
				e, err := comp.Compile(a)
				if err != nil {
					return nil, err
				}
				args = append(args, e)
			}
			return args, nil
		}
		var args []expr.Expr
		lateral := false
		if left != nil {
			qs := &queryState{level: sc.level + 1}
			p.q.stack = append(p.q.stack, qs)
			a, err := compileArgs(&scope{parent: p.lateralScope(sc, left), level: sc.level + 1, p: p})
			p.q.stack = p.q.stack[:len(p.q.stack)-1]
			if err != nil {
				return nil, err
			}
			if qs.refs[sc.level] {
				args, lateral = a, true
			}
		}
		if !lateral {
			var err error
			if args, err = compileArgs(&scope{parent: sc.parent, level: sc.level, p: p}); err != nil {
				return nil, err
			}
		}
		var ts []types.Type
		for _, a := range args {
			ts = append(ts, a.Type())
		}
		srf, err := types.LookupSRF(name, ts)
		if err != nil && !types.IsSRF(name) {
			srf, err = types.ScalarAsSRF(name, ts)
		}
		if err != nil {
			return nil, err
		}
		if srf, err = p.shapeSRF(srf, ts, rf, fc); err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = expr.Coerce(args[i], srf.Args[i], types.CastImplicit); err != nil {
				return nil, err
			}
		}
		alias, colAliases := aliasOf(rf.Alias, name)
		col := alias
		if rf.Alias == nil {
			col = name
		}
		tlist := p.q.tlistSRFs[rf]
		if srf.OutName != "" && !tlist {
			col = srf.OutName
		}
		if len(colAliases) > 0 {
			col = colAliases[0]
		}
		fs := &FunctionScan{SRF: srf, Args: args, Alias: alias, Col: col}
		cols := []scopeCol{{rel: alias, name: col, t: srf.Ret}}
		ordAlias := 1
		switch {
		case len(srf.Cols) > 1 && tlist:
			fs.AsRecord = true // SELECT jsonb_each(j): one record column (one OUT column is its own type)
			cols[0].t = types.Record
		case len(srf.Cols) > 0:
			cols, fs.ColNames = srfColumns(srf, alias, colAliases)
			ordAlias = len(srf.Cols)
		}
		if rf.Ordinality {
			ocol := "ordinality"
			if len(colAliases) > ordAlias {
				ocol = colAliases[ordAlias]
			}
			fs.Ordinality = ocol
			cols = append(cols, scopeCol{rel: alias, name: ocol, t: types.Int8})
		}
		t := p.addLeaf(sc, &fromItem{node: fs, alias: alias}, cols)
		t.lateral = lateral
		return t, nil

	case n.GetJoinExpr() != nil:
		je := n.GetJoinExpr()
		l, err := p.buildItem(je.Larg, sc, nil)
		if err != nil {
			return nil, err
		}
		r, err := p.buildItem(je.Rarg, sc, l)
		if err != nil {
			return nil, err
		}
		kind := je.Jointype
		switch kind {
		case pg.JoinType_JOIN_INNER, pg.JoinType_JOIN_LEFT, pg.JoinType_JOIN_RIGHT, pg.JoinType_JOIN_FULL:
		default:
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "join type %s is not supported", kind)
		}
		if r.lateral && keepsUnmatchedInner(kind) {
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry").
				WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
		}
		t := &jtree{kind: kind, left: l, right: r, offset: l.offset, width: l.width + r.width, lateral: r.lateral}
		js := &scope{cols: sc.cols[t.offset : t.offset+t.width], parent: sc.parent, level: sc.level, p: p, qualify: sc.qualify}
		using := je.UsingClause
		var usingNames []string
		for _, u := range using {
			usingNames = append(usingNames, u.GetString_().GetSval())
		}
		if je.IsNatural {
			for _, lc := range sc.cols[l.offset : l.offset+l.width] {
				if lc.hidden || lc.system {
					continue
				}
				for _, rc := range sc.cols[r.offset : r.offset+r.width] {
					if rc.name == lc.name && !rc.hidden && !rc.system {
						usingNames = append(usingNames, lc.name)
					}
				}
			}
		}
		for _, name := range usingNames {
			find := func(side *jtree, what string) (int, error) {
				found := -1
				for i := side.offset; i < side.offset+side.width; i++ {
					if sc.cols[i].name == name && !sc.cols[i].hidden && !sc.cols[i].system {
						if found >= 0 {
							return 0, pgerr.Errorf(pgerr.AmbiguousColumn, "common column name \"%s\" appears more than once in %s table", name, what)
						}
						found = i
					}
				}
				if found < 0 {
					return 0, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, what)
				}
				return found, nil
			}
			li, err := find(l, "left")
			if err != nil {
				return nil, err
			}
			ri, err := find(r, "right")
			if err != nil {
				return nil, err
			}
			lc, rc := sc.cols[li], sc.cols[ri]
			for _, c := range []scopeCol{lc, rc} {
				if c.table != 0 && c.attnum > 0 {
					p.noteColumnRead(c.table, c.attnum)
				}
			}
			eq, err := expr.Binary("=", &expr.Var{Index: lc.index, T: lc.t, Name: sc.display(lc)}, &expr.Var{Index: rc.index, T: rc.t, Name: sc.display(rc)})
			if err != nil {
				return nil, err
			}
			t.on = append(t.on, eq)
			if kind == pg.JoinType_JOIN_RIGHT {
				sc.cols[li].hidden = true
			} else {
				sc.cols[ri].hidden = true
			}
		}
		if je.Quals != nil {
			comp := p.compiler(js)
			noWindowIn(comp, "JOIN conditions")
			q, err := comp.Compile(je.Quals)
			if err != nil {
				return nil, err
			}
			if q, err = coerceBoolArg("JOIN/ON", q); err != nil {
				return nil, err
			}
			t.on = append(t.on, conjuncts(q)...)
		}
		if je.Alias != nil {
			if err := p.q.locks.refuseNamed(je.Alias.Aliasname, "a join"); err != nil {
				return nil, err
			}
			alias, names := aliasOf(je.Alias, "")
			k := 0
			for i := t.offset; i < t.offset+t.width; i++ {
				if sc.cols[i].hidden || sc.cols[i].system {
					continue
				}
				sc.cols[i].rel = alias
				if k < len(names) {
					sc.cols[i].name = names[k]
				}
				k++
			}
		}
		return t, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of FROM item is not supported yet")
}

// refInfo describes which columns of the query row an expression reads.
type refInfo struct {
	lo, hi   int
	hasVars  bool
	pushable bool // no correlated subquery (which reads the whole row)
	hasOuter bool // outer references (depend on the outer-row stack)
}

func refsOf(e expr.Expr) refInfo {
	ri := refInfo{lo: 1 << 30, hi: -1, pushable: true}
	known := expr.Walk(e, func(x expr.Expr) bool {
		switch v := x.(type) {
		case *expr.Var:
			ri.hasVars = true
			ri.lo = min(ri.lo, v.Index)
			ri.hi = max(ri.hi, v.Index)
		case *expr.OuterVar:
			ri.hasOuter = true
		case *expr.SubPlan:
			if v.Plan.Correlated {
				ri.pushable = false
			}
		}
		return true
	})
	if !known {
		ri.pushable = false
	}
	return ri
}

func (t *jtree) covers(ri refInfo) bool {
	if !ri.hasVars {
		return true
	}
	return ri.lo >= t.offset && ri.hi < t.offset+t.width
}

// place puts a WHERE-level condition as deep in the tree as it can go.
func (p *Planner) place(t *jtree, q expr.Expr, ri refInfo) {
	if t.fi != nil {
		t.quals = append(t.quals, q)
		return
	}
	if ri.pushable {
		inner := t.kind == pg.JoinType_JOIN_INNER
		if t.left.covers(ri) && (inner || t.kind == pg.JoinType_JOIN_LEFT) {
			p.place(t.left, q, ri)
			return
		}
		if ri.hasVars && t.right.covers(ri) && (inner || t.kind == pg.JoinType_JOIN_RIGHT) && !(t.lateral && ri.hasOuter) {
			p.place(t.right, q, ri)
			return
		}
	}
	if t.kind == pg.JoinType_JOIN_INNER {
		t.quals = append(t.quals, q)
	} else {
		t.filter = append(t.filter, q)
	}
}

// placeOn distributes the ON conditions of every join in t.
func (p *Planner) placeOn(t *jtree) {
	if t.fi != nil {
		return
	}
	p.placeOn(t.left)
	p.placeOn(t.right)
	for _, q := range t.on {
		ri := refsOf(q)
		switch {
		case t.kind == pg.JoinType_JOIN_INNER:
			p.place(t, q, ri)
		case ri.pushable && ri.hasVars && t.kind == pg.JoinType_JOIN_LEFT && t.right.covers(ri) && !(t.lateral && ri.hasOuter):
			p.place(t.right, q, ri)
		case ri.pushable && ri.hasVars && t.kind == pg.JoinType_JOIN_RIGHT && t.left.covers(ri):
			p.place(t.left, q, ri)
		default:
			t.quals = append(t.quals, q)
		}
	}
	t.on = nil
}

// planJoinTree places WHERE and ON conditions and builds the plan.
func (p *Planner) planJoinTree(t *jtree, where expr.Expr) (Node, error) {
	p.placeOn(t)
	if where != nil {
		for _, q := range conjuncts(where) {
			ri := refsOf(q)
			if !ri.pushable {
				// A correlated subquery sees the whole query row.
				if t.fi != nil || t.kind == pg.JoinType_JOIN_INNER {
					t.quals = append(t.quals, q)
				} else {
					t.filter = append(t.filter, q)
				}
				continue
			}
			p.place(t, q, ri)
		}
	}
	return p.buildNode(t)
}

// shift re-bases an expression's Vars from the query row to a node's row
// starting at offset.
func shift(e expr.Expr, offset int) (expr.Expr, error) {
	if e == nil || offset == 0 {
		return e, nil
	}
	out, ok := expr.MapVars(e, func(v *expr.Var) expr.Expr {
		return &expr.Var{Index: v.Index - offset, T: v.T, Name: v.Name}
	})
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "a correlated subquery is not supported in this join condition")
	}
	return out, nil
}

// hashable reports whether equal values of a and b hash alike.
func hashable(a, b types.Type) bool {
	class := func(t types.Type) int {
		switch t.OID {
		case types.Int2OID, types.Int4OID, types.Int8OID, types.OidOID, types.CharOID, types.BoolOID, types.TimestampOID, types.TimestamptzOID:
			return 1
		case types.Float4OID, types.Float8OID:
			return 2
		case types.TextOID, types.VarcharOID, types.NameOID, types.ByteaOID:
			return 3
		}
		return 100 + int(t.OID)
	}
	return class(a) == class(b)
}

func (p *Planner) buildNode(t *jtree) (Node, error) {
	if t.fi != nil {
		q, err := shift(andOf(t.quals), t.offset)
		if err != nil {
			return nil, err
		}
		fi := t.fi
		if fi.inh != nil {
			return p.inheritScan(fi, q, fi.withTID), nil
		}
		if fi.rel != nil {
			return p.scanFor(fi, q, fi.withTID), nil
		}
		switch n := fi.node.(type) {
		case *FunctionScan:
			n.Qual = q
		case *ViewScan:
			n.Qual = q
		case *SubqueryScan:
			n.Qual = q
		case *CTEScan:
			n.Qual = q
		default:
			if q != nil {
				return &Filter{Input: fi.node, Qual: q}, nil
			}
		}
		return fi.node, nil
	}
	ln, err := p.buildNode(t.left)
	if err != nil {
		return nil, err
	}
	rn, err := p.buildNode(t.right)
	if err != nil {
		return nil, err
	}
	cols := append(append([]Column{}, ln.Columns()...), rn.Columns()...)
	var node Node
	var hashL, hashR []expr.Expr
	var eqs []*types.Func
	var conds []string
	var rest []expr.Expr
	hashJoinable := p.methodEnabled("enable_hashjoin")
	for _, q := range t.quals {
		f, ok := q.(*expr.Func)
		if ok && hashJoinable && !t.lateral && f.Op == "=" && len(f.Args) == 2 && hashable(f.Args[0].Type(), f.Args[1].Type()) {
			a, b := refsOf(f.Args[0]), refsOf(f.Args[1])
			if a.pushable && b.pushable && a.hasVars && b.hasVars {
				l, r := f.Args[0], f.Args[1]
				if t.right.covers(a) && t.left.covers(b) {
					l, r, a, b = r, l, b, a
				}
				if t.left.covers(a) && t.right.covers(b) {
					lk, err1 := shift(l, t.left.offset)
					rk, err2 := shift(r, t.right.offset)
					if err1 == nil && err2 == nil {
						if l != f.Args[0] {
							// keep the operator's argument order
							eqs = append(eqs, swapArgs(f.Fn))
						} else {
							eqs = append(eqs, f.Fn)
						}
						hashL, hashR = append(hashL, lk), append(hashR, rk)
						conds = append(conds, f.String())
						continue
					}
				}
			}
		}
		rest = append(rest, q)
	}
	jq, err := shift(andOf(rest), t.offset)
	if err != nil {
		return nil, err
	}
	if len(hashL) > 0 {
		node = &HashJoin{Left: ln, Hash: &Hash{Input: rn}, Kind: t.kind, LeftKeys: hashL, RightKeys: hashR, Eqs: eqs, Conds: conds, Qual: jq, cols: cols}
	} else {
		node = &NestLoop{Left: ln, Right: rn, Kind: t.kind, Lateral: t.lateral, Qual: jq, cols: cols}
	}
	if len(t.filter) > 0 {
		fq, err := shift(andOf(t.filter), t.offset)
		if err != nil {
			return nil, err
		}
		node = &Filter{Input: node, Qual: fq}
	}
	return node, nil
}

// swapArgs returns f with its two arguments swapped (for a = b used as
// b = a); f's Args are the same type for the hashable operators.
func swapArgs(f *types.Func) *types.Func {
	return &types.Func{Name: f.Name, Args: []types.Type{f.Args[1], f.Args[0]}, Ret: f.Ret, Strict: f.Strict,
		Fn: func(a []types.Datum) (types.Datum, error) { return f.Fn([]types.Datum{a[1], a[0]}) }}
}

var _ = fmt.Sprint

// subLinkName is the column name PostgreSQL gives a subquery or array
// expression in a select list (FigureColname).
func subLinkName(n *pg.Node) string {
	if n.GetAArrayExpr() != nil {
		return "array"
	}
	sl := n.GetSubLink()
	if sl == nil {
		return ""
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return "exists"
	case pg.SubLinkType_ARRAY_SUBLINK:
		return "array"
	case pg.SubLinkType_EXPR_SUBLINK:
		if sel := sl.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			rt := sel.TargetList[0].GetResTarget()
			if name := targetName(rt, nil); name != "?column?" {
				return name
			}
		}
	}
	return ""
}
