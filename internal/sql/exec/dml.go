package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/tidal-db/tidal/internal/acl"
	"slices"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// defaultExpr compiles a column's default (NULL if none).
func (p *Planner) defaultExpr(a catalog.Attr) (expr.Expr, error) {
	def, err := domainDefault(p.C, a)
	if err != nil {
		return nil, err
	}
	a.Default = def
	if a.Default == "" {
		return &expr.Const{Val: types.Null(), T: a.Type}, nil
	}
	tree, err := parser.Parse("SELECT " + a.Default)
	if err != nil {
		return nil, err
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	e, err := p.compiler(nil).Compile(sel.TargetList[0].GetResTarget().Val)
	if err != nil {
		return nil, err
	}
	return assignCoerce(e, a.Type)
}

func (p *Planner) returning(rel *catalog.Relation, list []*pg.Node) ([]expr.Expr, []Column, error) {
	return p.returningAs(rel, rel.Name, list)
}

// returningAs compiles a RETURNING list over rel's columns, which are
// qualified by refname (the table's alias, if it has one).
func (p *Planner) returningAs(rel *catalog.Relation, refname string, list []*pg.Node) ([]expr.Expr, []Column, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	sc := &scope{}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(refname, a, a.Name, i))
	}
	comp := p.compiler(sc)
	noWindowIn(comp, "RETURNING")
	var exprs []expr.Expr
	var cols []Column
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			for i, a := range rel.Attrs {
				if a.Dropped {
					continue
				}
				exprs = append(exprs, &expr.Var{Index: i, T: a.Type, Name: a.Name})
				cols = append(cols, Column{Name: a.Name, Type: a.Type, Table: rel.OID, Attr: a.Num})
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

// PlanInsert plans INSERT … VALUES / SELECT.
func (p *Planner) PlanInsert(s *pg.InsertStmt) (mt *ModifyTable, err error) {
	err = p.statement(func() (err error) {
		mt, err = p.planInsert(s)
		return err
	})
	if err == nil && !p.planning {
		mt.afterWith = p.q.modifying
	}
	return mt, err
}

func (p *Planner) planInsert(s *pg.InsertStmt) (*ModifyTable, error) {
	p.setDMLAccess(acl.Insert)
	s, checks, err := p.rewriteInsert(s)
	if err != nil {
		return nil, err
	}
	mt, err := p.planTableInsert(s)
	if err != nil {
		return nil, err
	}
	return mt, p.attachViewChecks(mt, s.Relation, checks)
}

func (p *Planner) planTableInsert(s *pg.InsertStmt) (*ModifyTable, error) {
	pop, err := p.withCTEs(s.WithClause)
	if err != nil {
		return nil, err
	}
	defer pop()
	rel, err := p.insteadView(s.Relation, catalog.TriggerTypeInsert)
	if err == nil && rel == nil {
		rel, err = p.OpenRelation(s.Relation, lockRowExclusive)
	}
	if err != nil {
		return nil, err
	}
	refname := rel.Name
	if s.Relation.Alias != nil {
		refname = s.Relation.Alias.Aliasname
	}
	var conflict *OnConflict
	if s.OnConflictClause != nil {
		if conflict, err = p.planOnConflict(rel, refname, s.OnConflictClause); err != nil {
			return nil, err
		}
	}
	// Target columns.
	var targets []int
	var indirect []*expr.AssignIndirection // per target: col[…], or nil
	if len(s.Cols) == 0 {
		targets = rel.VisibleAttrs()
	} else {
		seen := map[int]bool{}
		for _, c := range s.Cols {
			rt := c.GetResTarget()
			i := rel.AttrByName(rt.Name)
			if i < 0 {
				e := pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, rel.Name)
				e.Position = rt.Location + 1
				return nil, e
			}
			var ai *expr.AssignIndirection
			if len(rt.Indirection) > 0 {
				if ai, err = p.compiler(nil).CompileAssignIndirection(rt.Name, rel.Attrs[i].Type, rt.Indirection); err != nil {
					return nil, atTarget(err, rt)
				}
			}
			if seen[i] && (ai == nil || indirect[slices.Index(targets, i)] == nil) {
				return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", rt.Name)
			}
			seen[i] = true
			targets = append(targets, i)
			indirect = append(indirect, ai)
		}
	}
	for _, i := range targets {
		p.noteColumnWrite(rel, acl.Insert, rel.Attrs[i].Num)
	}
	if err := p.applyIdentityOverride(rel, targets, s); err != nil {
		return nil, err
	}
	want := make([]types.Type, len(targets))
	for i, t := range targets {
		want[i] = rel.Attrs[t].Type
		if indirect != nil && indirect[i] != nil {
			want[i] = indirect[i].Src
		}
	}
	var src Node
	var srcCols []Column
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil {
		// INSERT … DEFAULT VALUES
		src = &Result{}
		targets = nil
	} else if len(sel.ValuesLists) > 0 {
		src, srcCols, err = p.planValuesWith(sel.ValuesLists, want, func(i int, e expr.Expr) (expr.Expr, error) {
			if i < len(indirect) && indirect[i] != nil {
				out, err := indirect[i].CoerceSource(e)
				return out, atTarget(err, s.Cols[i].GetResTarget())
			}
			return assignCoerce(e, want[i])
		})
		if err != nil {
			return nil, err
		}
		for _, r := range src.(*Values).Rows {
			if len(r) > len(targets) {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
			}
			if len(r) < len(targets) && len(s.Cols) > 0 {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
			}
			for i := range r {
				if r[i] == nil {
					if r[i], err = p.defaultExpr(rel.Attrs[targets[i]]); err != nil {
						return nil, err
					}
				}
			}
		}
	} else {
		src, srcCols, err = p.PlanSelect(sel)
		if err != nil {
			return nil, err
		}
	}
	if sel != nil && len(srcCols) > len(targets) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if sel != nil && len(srcCols) < len(targets) {
		targets = targets[:len(srcCols)]
	}
	// Map source columns to a full table row.
	row := make([]expr.Expr, len(rel.Attrs))
	for i, t := range targets {
		var e expr.Expr = &expr.Var{Index: i, T: srcCols[i].Type, Name: srcCols[i].Name}
		if indirect != nil && indirect[i] != nil {
			base := row[t]
			if base == nil {
				base = &expr.Const{Val: types.Null(), T: rel.Attrs[t].Type}
			}
			if row[t], err = indirect[i].Apply(base, e); err != nil {
				return nil, atTarget(err, s.Cols[i].GetResTarget())
			}
			continue
		}
		if e, err = assignCoerce(e, rel.Attrs[t].Type); err != nil {
			return nil, err
		}
		row[t] = e
	}
	for i := range row {
		if row[i] == nil {
			if row[i], err = p.defaultExpr(rel.Attrs[i]); err != nil {
				return nil, err
			}
		}
	}
	// Dropped columns get NULL (defaultExpr: they have no default), so a
	// table with one never takes the identity shortcut.
	identity := len(targets) == len(rel.Attrs)
	for i, t := range targets {
		if i != t {
			identity = false
		}
		if v, ok := row[t].(*expr.Var); !ok || v.Index != i {
			identity = false
		}
	}
	if !identity {
		cols := make([]Column, len(rel.Attrs))
		for i, a := range rel.Attrs {
			cols[i] = Column{Name: a.Name, Type: a.Type}
		}
		src = &Project{Input: src, Exprs: row, Cols: cols}
	}
	ret, retCols, err := p.returningAs(rel, refname, s.ReturningList)
	if err != nil {
		return nil, err
	}
	return &ModifyTable{Kind: "Insert", Rel: rel, Input: src, Returning: ret, RetCols: retCols, Conflict: conflict, Alias: refname}, nil
}
