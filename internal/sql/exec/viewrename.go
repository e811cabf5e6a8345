package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/sql/parser"
)

// ViewRename describes a rename a view's stored query must follow, as
// PostgreSQL's stored parse trees do by holding OIDs and attribute
// numbers: table Rel renamed from OldTable to NewTable, or its column
// OldCol to NewCol.
type ViewRename struct {
	Rel                uint32
	OldTable, NewTable string
	OldCol, NewCol     string
	alias              string // the renamed table's alias when its new name is taken
	// pin: the query has a USING/NATURAL join or a star, which name
	// columns without a qualifier; a renamed column's table then gets
	// column aliases with the old names instead (as ruleutils prints).
	pin bool
}

// renameItem is a FROM item of a query being renamed in: the name that
// qualifies its columns and the relation it is (0: another kind).
type renameItem struct {
	name    string
	rel     uint32
	aliased bool
	renamed bool // the renamed table, unaliased: named by its new name
	pinned  bool // given column aliases that keep the old column names
}

type renameScope struct {
	items  []renameItem
	parent *renameScope
	ctes   map[string]bool
}

func (s *renameScope) isCTE(name string) bool {
	for ; s != nil; s = s.parent {
		if s.ctes[name] {
			return true
		}
	}
	return false
}

// renamedItem is the innermost renamed table in scope.
func (s *renameScope) renamedItem() *renameItem {
	for ; s != nil; s = s.parent {
		for i := range s.items {
			if s.items[i].renamed {
				return &s.items[i]
			}
		}
	}
	return nil
}

// resolve finds the item qualifier q names, innermost query first.
func (s *renameScope) resolve(q string) *renameItem {
	for ; s != nil; s = s.parent {
		for i := range s.items {
			if s.items[i].name == q {
				return &s.items[i]
			}
		}
	}
	return nil
}

// RenameInViewQuery rewrites a view's stored query in place for r. It
// runs before the catalog changes, so names still resolve to r.Rel.
func (p *Planner) RenameInViewQuery(sel *pg.SelectStmt, r ViewRename) {
	if r.NewTable != "" {
		r.alias = uniqueName(sel, r.NewTable)
	}
	if r.OldCol != "" {
		r.pin = namesColumnsUnqualified(sel)
	}
	p.renameSelect(sel, nil, r)
}

// uniqueName is name, or when the query already uses it for a FROM item
// name_1, name_2, …: the alias a renamed table needs so references to it
// stay distinct (as ruleutils' set_rtable_names chooses).
func uniqueName(sel *pg.SelectStmt, name string) string {
	used := map[string]bool{}
	parser.Walk(sel, func(m proto.Message) bool {
		switch n := m.(type) {
		case *pg.RangeVar:
			used[n.Relname] = true
		case *pg.Alias:
			used[n.Aliasname] = true
		case *pg.CommonTableExpr:
			used[n.Ctename] = true
		}
		return true
	})
	if !used[name] {
		return ""
	}
	for i := 1; ; i++ {
		if c := name + "_" + itoa(i); !used[c] {
			return c
		}
	}
}

func (p *Planner) renameSelect(s *pg.SelectStmt, parent *renameScope, r ViewRename) {
	if s == nil {
		return
	}
	sc := &renameScope{parent: parent}
	if w := s.WithClause; w != nil {
		sc.ctes = map[string]bool{}
		for _, n := range w.Ctes {
			ce := n.GetCommonTableExpr()
			p.renameSelect(ce.Ctequery.GetSelectStmt(), sc, r)
			sc.ctes[ce.Ctename] = true
		}
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		p.renameSelect(s.Larg, sc, r)
		p.renameSelect(s.Rarg, sc, r)
		p.renameExprs(s.SortClause, sc, r)
		return
	}
	for _, f := range s.FromClause {
		p.renameFrom(f, sc, r)
	}
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); rt.Name == "" && r.OldCol != "" && cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
			// The output keeps the name it had (a query above may use it).
			rt.Name = normTargetName(rt)
		}
		p.renameExpr(rt.Val, sc, r)
	}
	for _, list := range [][]*pg.Node{s.GroupClause, s.SortClause, s.DistinctClause, {s.WhereClause, s.HavingClause, s.LimitCount, s.LimitOffset}} {
		p.renameExprs(list, sc, r)
	}
	for _, row := range s.ValuesLists {
		p.renameExprs(row.GetList().GetItems(), sc, r)
	}
}

func (p *Planner) renameFrom(f *pg.Node, sc *renameScope, r ViewRename) {
	switch {
	case f.GetRangeVar() != nil:
		rv := f.GetRangeVar()
		it := renameItem{name: rv.Relname, aliased: rv.Alias != nil}
		if it.aliased {
			it.name = rv.Alias.Aliasname
		}
		if rv.Schemaname != "" || !sc.isCTE(rv.Relname) {
			if rel, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname); rel != nil {
				it.rel = rel.OID
			}
		}
		if it.rel == r.Rel && r.pin {
			p.pinColumnNames(rv)
			it.name, it.aliased, it.pinned = rv.Alias.Aliasname, true, true
		}
		if it.rel == r.Rel && r.NewTable != "" {
			rv.Relname = r.NewTable
			if !it.aliased {
				it.name, it.renamed = r.NewTable, true
				if r.alias != "" {
					rv.Alias = &pg.Alias{Aliasname: r.alias}
					it.name = r.alias
				}
			}
		}
		sc.items = append(sc.items, it)
	case f.GetRangeSubselect() != nil:
		rs := f.GetRangeSubselect()
		parent := sc.parent
		if rs.Lateral {
			parent = sc
		}
		p.renameSelect(rs.Subquery.GetSelectStmt(), parent, r)
		if rs.Alias != nil {
			sc.items = append(sc.items, renameItem{name: rs.Alias.Aliasname})
		}
	case f.GetRangeFunction() != nil:
		p.renameExprs(f.GetRangeFunction().Functions, sc, r)
	case f.GetJoinExpr() != nil:
		j := f.GetJoinExpr()
		p.renameFrom(j.Larg, sc, r)
		p.renameFrom(j.Rarg, sc, r)
		p.renameExpr(j.Quals, sc, r)
		if j.Alias != nil {
			sc.items = append(sc.items, renameItem{name: j.Alias.Aliasname})
		}
	}
}

func (p *Planner) renameExprs(list []*pg.Node, sc *renameScope, r ViewRename) {
	for _, e := range list {
		p.renameExpr(e, sc, r)
	}
}

// renameExpr renames the references of an expression: the qualifier of
// an unaliased renamed table, the column name of a renamed column.
func (p *Planner) renameExpr(e *pg.Node, sc *renameScope, r ViewRename) {
	if e == nil {
		return
	}
	parser.Walk(e, func(m proto.Message) bool {
		switch n := m.(type) {
		case *pg.SelectStmt:
			p.renameSelect(n, sc, r)
			return false
		case *pg.ColumnRef:
			renameRef(n, sc, r)
			return false
		}
		return true
	})
}

func renameRef(cr *pg.ColumnRef, sc *renameScope, r ViewRename) {
	f := cr.Fields
	if len(f) < 2 || f[len(f)-2].GetString_() == nil {
		return
	}
	q := f[len(f)-2].GetString_()
	it := sc.resolve(q.Sval)
	if r.NewTable != "" && q.Sval == r.OldTable {
		// The renamed table's old name: its item now has another.
		if it := sc.renamedItem(); it != nil {
			q.Sval = it.name
		}
		return
	}
	if it == nil || it.rel != r.Rel || it.pinned {
		return
	}
	if col := f[len(f)-1].GetString_(); col != nil && r.OldCol != "" && col.Sval == r.OldCol {
		col.Sval = r.NewCol
	}
}

// namesColumnsUnqualified: the query has a star or a USING/NATURAL join.
func namesColumnsUnqualified(sel *pg.SelectStmt) bool {
	found := false
	parser.Walk(sel, func(m proto.Message) bool {
		switch n := m.(type) {
		case *pg.JoinExpr:
			found = found || len(n.UsingClause) > 0 || n.IsNatural
		case *pg.ColumnRef:
			found = found || n.Fields[len(n.Fields)-1].GetAStar() != nil
		}
		return !found
	})
	return found
}

// pinColumnNames gives rv column aliases naming every column as it is
// named now, so a rename of one changes nothing the query sees.
func (p *Planner) pinColumnNames(rv *pg.RangeVar) {
	if rv.Alias == nil {
		rv.Alias = &pg.Alias{Aliasname: rv.Relname}
	}
	rel, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname)
	if rel == nil {
		return
	}
	n := 0
	for _, a := range rel.Attrs {
		if a.Dropped {
			continue
		}
		if n >= len(rv.Alias.Colnames) {
			rv.Alias.Colnames = append(rv.Alias.Colnames, &pg.Node{Node: &pg.Node_String_{String_: &pg.String{Sval: a.Name}}})
		}
		n++
	}
}
