package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/tidal-db/tidal/internal/acl"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// UPDATE and DELETE read their target table joined with the FROM (UPDATE)
// or USING (DELETE) items, as PostgreSQL does: the input row is the
// target's columns, its system columns, its TID, then the other items'
// columns. The WHERE clause is planned like a SELECT's over that join. A
// target row that joins several source rows is changed once, by the
// first: the later attempts find the row version already replaced by
// this command (heap.SelfModified) and skip it, which is PostgreSQL's
// behaviour too.

// modifyInput is the planned input of an UPDATE or DELETE.
type modifyInput struct {
	// view is the target view of INSTEAD OF triggers (nil: a table).
	view  *catalog.Relation
	fi    *fromItem // the target table
	sc    *scope    // the columns of the input row
	node  Node
	qual  expr.Expr // the WHERE clause over the input row (EvalPlanQual)
	width int       // the target's part of the row, TID included
}

// planModifyInput plans the rows an UPDATE or DELETE visits: the target
// table rv joined with from, filtered by where.
func (p *Planner) planModifyInput(rv *pg.RangeVar, from []*pg.Node, where *pg.Node) (*modifyInput, error) {
	// A view left here has an INSTEAD OF trigger (the rewrite stopped).
	view, err := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	var fi *fromItem
	if view != nil && view.Kind == catalog.KindView && !view.MatView {
		fi, err = p.insteadFromItem(rv, view)
	} else {
		view = nil
		fi, err = p.planFrom([]*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: rv}}}, true)
	}
	if err != nil {
		return nil, err
	}
	leaves := 1
	for _, n := range from {
		leaves += countLeaves(n)
	}
	sc := &scope{p: p, qualify: leaves > 1}
	// The TID has a place in the scope, under no name, so that the
	// columns of later items line up with the row.
	cols := append(fi.cols, scopeCol{rel: fi.alias, t: types.Int8, hidden: true, dropped: true})
	fi.withTID = true
	t := p.addLeaf(sc, fi, cols)
	if co := where.GetCurrentOfExpr(); co != nil {
		if len(from) > 0 {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "WHERE CURRENT OF with FROM or USING is not supported yet")
		}
		node := currentOfScan(fi, co.CursorName)
		return &modifyInput{view: view, fi: fi, sc: sc, node: node, width: len(cols)}, nil
	}
	for _, n := range from {
		if rv := n.GetRangeVar(); rv != nil {
			if ref, _ := aliasOf(rv.Alias, rv.Relname); ref == fi.alias {
				e := pgerr.Errorf("42712", "table name \"%s\" specified more than once", ref)
				e.Position = rv.Location + 1
				return nil, e
			}
		}
		r, err := p.buildItem(n, sc, t)
		if err != nil {
			return nil, err
		}
		t = &jtree{kind: pg.JoinType_JOIN_INNER, left: t, right: r, offset: t.offset, width: t.width + r.width, lateral: r.lateral}
	}
	var qual expr.Expr
	if where != nil {
		comp := p.compiler(sc)
		noWindowIn(comp, "WHERE")
		if qual, err = comp.Compile(where); err != nil {
			return nil, err
		}
		if qual, err = coerceBoolArg("WHERE", qual); err != nil {
			return nil, err
		}
	}
	node, err := p.planJoinTree(t, qual)
	if err != nil {
		return nil, err
	}
	return &modifyInput{view: view, fi: fi, sc: sc, node: node, qual: qual, width: len(cols)}, nil
}

// withCTEs plans a WITH clause in front of an UPDATE or DELETE; the
// returned function ends its scope.
func (p *Planner) withCTEs(w *pg.WithClause) (func(), error) {
	if w == nil {
		return func() {}, nil
	}
	return p.pushCTEs(w, nil, 0)
}

// PlanUpdate plans UPDATE … SET … [FROM …] WHERE … [RETURNING …].
func (p *Planner) PlanUpdate(s *pg.UpdateStmt) (mt *ModifyTable, err error) {
	err = p.statement(func() (err error) {
		mt, err = p.planUpdate(s)
		return err
	})
	if err == nil && !p.planning {
		mt.afterWith = p.q.modifying
	}
	return mt, err
}

func (p *Planner) planUpdate(s *pg.UpdateStmt) (*ModifyTable, error) {
	p.setDMLAccess(acl.Update)
	s, checks, err := p.rewriteUpdate(s)
	if err != nil {
		return nil, err
	}
	mt, err := p.planTableUpdate(s)
	if err != nil {
		return nil, err
	}
	return mt, p.attachViewChecks(mt, s.Relation, checks)
}

func (p *Planner) planTableUpdate(s *pg.UpdateStmt) (*ModifyTable, error) {
	pop, err := p.withCTEs(s.WithClause)
	if err != nil {
		return nil, err
	}
	defer pop()
	in, err := p.planModifyInput(s.Relation, s.FromClause, s.WhereClause)
	if err != nil {
		return nil, err
	}
	rel := in.fi.rel
	if in.view != nil {
		rel = in.view
	}
	newRow, err := p.setTargets(rel, in.sc, s.TargetList)
	if err != nil {
		return nil, err
	}
	ret, retCols, err := p.returningIn(in.sc, s.ReturningList)
	if err != nil {
		return nil, err
	}
	mt := &ModifyTable{Kind: "Update", Rel: rel, Input: in.node, NewRow: newRow, Qual: in.qual, Sys: in.fi.sys,
		TargetWidth: in.width, Returning: ret, RetCols: retCols, Alias: aliasIfAny(s.Relation), SetCols: setColumns(rel, s.TargetList)}
	planInheritTargets(mt, in.fi)
	return mt, nil
}

// PlanDelete plans DELETE … [USING …] WHERE … [RETURNING …].
func (p *Planner) PlanDelete(s *pg.DeleteStmt) (mt *ModifyTable, err error) {
	err = p.statement(func() (err error) {
		mt, err = p.planDelete(s)
		return err
	})
	if err == nil && !p.planning {
		mt.afterWith = p.q.modifying
	}
	return mt, err
}

func (p *Planner) planDelete(s *pg.DeleteStmt) (*ModifyTable, error) {
	p.setDMLAccess(acl.Delete)
	s, err := p.rewriteDelete(s)
	if err != nil {
		return nil, err
	}
	pop, err := p.withCTEs(s.WithClause)
	if err != nil {
		return nil, err
	}
	defer pop()
	in, err := p.planModifyInput(s.Relation, s.UsingClause, s.WhereClause)
	if err != nil {
		return nil, err
	}
	ret, retCols, err := p.returningIn(in.sc, s.ReturningList)
	if err != nil {
		return nil, err
	}
	rel := in.fi.rel
	if in.view != nil {
		rel = in.view
	}
	mt := &ModifyTable{Kind: "Delete", Rel: rel, Input: in.node, Qual: in.qual, Sys: in.fi.sys,
		TargetWidth: in.width, Returning: ret, RetCols: retCols, Alias: aliasIfAny(s.Relation)}
	planInheritTargets(mt, in.fi)
	return mt, nil
}

func aliasIfAny(rv *pg.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return ""
}

// setTargets compiles the SET list of UPDATE or ON CONFLICT DO UPDATE into
// the new row version's columns, computed from the row of scope sc (rel's
// columns first): unassigned columns keep their value, a dropped column
// gets NULL.
func (p *Planner) setTargets(rel *catalog.Relation, sc *scope, targets []*pg.Node) ([]expr.Expr, error) {
	comp := p.compiler(sc)
	newRow := make([]expr.Expr, len(rel.Attrs))
	for i, a := range rel.Attrs {
		if a.Dropped {
			newRow[i] = &expr.Const{Val: types.Null(), T: a.Type}
			continue
		}
		newRow[i] = &expr.Var{Index: i, T: a.Type, Name: a.Name}
	}
	set := map[int]bool{}
	var multi *multiAssign
	for _, t := range targets {
		rt := t.GetResTarget()
		if len(rt.Indirection) > 0 {
			// a jsonb column's subscripts edit its document; an array's
			// elements are assigned below
			if i := rel.AttrByName(rt.Name); i >= 0 && rel.Attrs[i].Type.OID == types.JSONBOID {
				if err := p.subscriptAssign(comp, rel, rt, newRow, set); err != nil {
					return nil, err
				}
				continue
			}
		}
		i := rel.AttrByName(rt.Name)
		if i < 0 {
			e := pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, rel.Name)
			e.Position = rt.Location + 1
			return nil, e
		}
		if len(rt.Indirection) > 0 {
			// SET a[i] = v: several may assign into the same column
			e, err := p.assignIndirection(comp, rel.Attrs[i], rt, newRow[i])
			if err != nil {
				return nil, err
			}
			newRow[i] = e
			continue
		}
		if set[i] {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name)
		}
		set[i] = true
		p.noteColumnWrite(rel, acl.Update, rel.Attrs[i].Num)
		val := rt.Val
		if ma := val.GetMultiAssignRef(); ma != nil {
			if ma.Colno == 1 {
				var err error
				if multi, err = p.compileMultiAssign(comp, sc, ma); err != nil {
					return nil, err
				}
			}
			if val = multi.element(ma.Colno); val == nil {
				e, err := multi.field(ma.Colno)
				if err != nil {
					return nil, err
				}
				if newRow[i], err = assignCoerce(e, rel.Attrs[i].Type); err != nil {
					return nil, err
				}
				continue
			}
		}
		if err := checkIdentityUpdate(rel.Attrs[i], val); err != nil {
			return nil, err
		}
		var e expr.Expr
		var err error
		if val.GetSetToDefault() != nil {
			e, err = p.defaultExpr(rel.Attrs[i])
		} else if e, err = comp.Compile(val); err == nil {
			e, err = assignCoerce(e, rel.Attrs[i].Type)
		}
		if err != nil {
			return nil, err
		}
		newRow[i] = e
	}
	return newRow, nil
}

// multiAssign is the source of SET (a, b, …) = source: a row constructor
// (whose elements are assigned one by one) or a sub-SELECT (one row,
// whose columns are assigned; no row sets them all to NULL).
type multiAssign struct {
	elems []*pg.Node
	sub   expr.Expr // the sub-SELECT's row, as a record
	types []types.Type
}

func (p *Planner) compileMultiAssign(comp *expr.Compiler, sc *scope, ma *pg.MultiAssignRef) (*multiAssign, error) {
	src := ma.Source
	if re := src.GetRowExpr(); re != nil {
		m := &multiAssign{}
		for _, a := range re.Args {
			if cr := a.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
				m.elems = append(m.elems, starColumns(sc, cr)...)
				continue
			}
			m.elems = append(m.elems, a)
		}
		if len(m.elems) != int(ma.Ncolumns) {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "number of columns does not match number of values")
		}
		return m, nil
	}
	if sl := src.GetSubLink(); sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
		plan, err := p.subLink(sl.Subselect, sc)
		if err != nil {
			return nil, err
		}
		if len(plan.Types) != int(ma.Ncolumns) {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "number of columns does not match number of values")
		}
		return &multiAssign{sub: &expr.SubPlan{Kind: expr.SubRow, Plan: plan, T: types.Record}, types: plan.Types}, nil
	}
	return nil, pgerr.Errorf(pgerr.SyntaxError, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression")
}

// element is the row constructor's colno'th element (nil for a sub-SELECT).
func (m *multiAssign) element(colno int32) *pg.Node {
	if m.elems == nil {
		return nil
	}
	return m.elems[colno-1]
}

// field is the sub-SELECT's colno'th column.
func (m *multiAssign) field(colno int32) (expr.Expr, error) {
	return &expr.FieldSelect{Arg: m.sub, Field: int(colno - 1), T: m.types[colno-1]}, nil
}

// starColumns expands rel.* (or *) into references to its columns.
func starColumns(sc *scope, cr *pg.ColumnRef) []*pg.Node {
	qual := ""
	if len(cr.Fields) > 1 {
		qual = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	}
	var out []*pg.Node
	for _, c := range sc.cols {
		if c.system || (qual == "" && c.hidden) || (qual != "" && (c.rel != qual || c.dropped)) {
			continue
		}
		out = append(out, &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{
			{Node: &pg.Node_String_{String_: &pg.String{Sval: c.rel}}}, {Node: &pg.Node_String_{String_: &pg.String{Sval: c.name}}},
		}, Location: cr.Location}}})
	}
	return out
}

// returningIn compiles a RETURNING list over the scope of an UPDATE's or
// DELETE's input row (the target's columns hold the new values after an
// UPDATE).
func (p *Planner) returningIn(sc *scope, list []*pg.Node) ([]expr.Expr, []Column, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	comp := p.compiler(sc)
	noWindowIn(comp, "RETURNING")
	var exprs []expr.Expr
	var cols []Column
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
				if !sc.hasRel(qual) {
					return nil, nil, pgerr.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual)
				}
			}
			for _, c := range sc.cols {
				if c.system || (qual == "" && c.hidden) || (qual != "" && (c.rel != qual || c.dropped)) {
					continue
				}
				exprs = append(exprs, &expr.Var{Index: c.index, T: c.t, Name: sc.display(c)})
				cols = append(cols, Column{Name: c.name, Type: c.t, Table: c.table, Attr: c.attnum})
			}
			continue
		}
		e, err := comp.Compile(rt.Val)
		if err != nil {
			return nil, nil, err
		}
		exprs = append(exprs, e)
		cols = append(cols, Column{Name: targetName(rt, e), Type: e.Type()})
	}
	return exprs, cols, nil
}
