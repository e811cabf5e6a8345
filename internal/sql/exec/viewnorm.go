package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/sql/parser"
)

// A view's query is stored normalized, as PostgreSQL's stored parse tree
// behaves: every * is expanded to the columns it meant at CREATE VIEW
// (columns added to a table later do not appear in the view) and every
// column reference is qualified by the FROM item it resolved to, so the
// text reads the same columns however the naming query is later planned,
// and pg_get_viewdef prints references as PostgreSQL 15 does (t.a).

// normItem is a FROM item as the normalizer sees it: the name its
// columns are qualified with, and those columns.
type normItem struct {
	name string
	cols []string
}

type normScope struct {
	items  []normItem
	parent *normScope
	ctes   map[string][]string
	// starCols are the columns * stands for, in order: each FROM
	// item's, a join's merged USING columns first (qual "" when no side
	// can name one: FULL JOIN).
	starCols []colEntry
}

// colEntry is one column of a FROM item's output: the qualifier that
// names it and its name.
type colEntry struct{ qual, name string }

func (s *normScope) cte(name string) ([]string, bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.ctes[name]; ok {
			return c, true
		}
	}
	return nil, false
}

// NormalizeViewQuery rewrites sel in place into its stored form and
// returns its output column names as the normalizer sees them.
func (p *Planner) NormalizeViewQuery(sel *pg.SelectStmt) []string {
	return p.normSelect(sel, nil)
}

func (p *Planner) normSelect(s *pg.SelectStmt, parent *normScope) []string {
	sc := &normScope{parent: parent}
	if w := s.WithClause; w != nil {
		sc.ctes = map[string][]string{}
		if w.Recursive {
			// A recursive query's own name, inside it, means the WITH
			// query, never a relation (which would be stored qualified).
			for _, n := range w.Ctes {
				sc.ctes[n.GetCommonTableExpr().Ctename] = nil
			}
		}
		for _, n := range w.Ctes {
			ce := n.GetCommonTableExpr()
			if q := ce.Ctequery.GetSelectStmt(); q != nil {
				cols := p.normSelect(q, sc)
				sc.ctes[ce.Ctename] = renameNames(cols, ce.Aliascolnames)
			}
		}
	}
	if s.Op != pg.SetOperation_SETOP_NONE {
		out := p.normSelect(s.Larg, sc)
		p.normSelect(s.Rarg, sc)
		return out
	}
	if len(s.ValuesLists) > 0 {
		var out []string
		for _, row := range s.ValuesLists {
			p.normExprs(row.GetList().GetItems(), sc)
			if out == nil {
				for i := range row.GetList().GetItems() {
					out = append(out, "column"+itoa(i+1))
				}
			}
		}
		return out
	}
	for _, f := range s.FromClause {
		sc.starCols = append(sc.starCols, p.normFromItem(f, sc)...)
	}
	s.TargetList = p.expandStars(s.TargetList, sc)
	var out []string
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		p.normExpr(rt.Val, sc)
		out = append(out, normTargetName(rt))
	}
	p.normExpr(s.WhereClause, sc)
	p.normExpr(s.HavingClause, sc)
	outputs := map[string]*pg.Node{}
	for i, n := range out {
		if _, dup := outputs[n]; !dup {
			outputs[n] = s.TargetList[i].GetResTarget().Val
		}
	}
	// ORDER BY prefers an output column's name, GROUP BY an input
	// column's; a name meaning an output column becomes its expression.
	inputCol := func(name string) bool {
		probe := &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}}}
		qualifyRef(probe, sc)
		return len(probe.Fields) == 2
	}
	for li, list := range [][]*pg.Node{s.GroupClause, s.SortClause, s.DistinctClause} {
		for _, e := range list {
			if name := bareColumn(e); name != "" && outputs[name] != nil && (li == 1 || !inputCol(name)) {
				target := e
				if sb := e.GetSortBy(); sb != nil {
					target = sb.Node
				}
				target.Node = proto.Clone(outputs[name]).(*pg.Node).Node
				continue
			}
			p.normExpr(e, sc)
		}
	}
	p.normExpr(s.LimitCount, sc)
	p.normExpr(s.LimitOffset, sc)
	return out
}

func bareColumn(n *pg.Node) string {
	if sb := n.GetSortBy(); sb != nil {
		n = sb.Node
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		return cr.Fields[0].GetString_().GetSval()
	}
	return ""
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func renameNames(cols []string, names []*pg.Node) []string {
	out := append([]string(nil), cols...)
	for i, n := range names {
		if i < len(out) {
			out[i] = n.GetString_().GetSval()
		}
	}
	return out
}

// normFromItem adds f's items to sc, normalizing sub-selects and join
// conditions on the way.
func (p *Planner) normFromItem(f *pg.Node, sc *normScope) []colEntry {
	switch {
	case f.GetRangeVar() != nil:
		rv := f.GetRangeVar()
		name := rv.Relname
		if rv.Alias != nil {
			name = rv.Alias.Aliasname
		}
		var cols []string
		if c, ok := sc.cte(rv.Relname); ok && rv.Schemaname == "" {
			cols = c
		} else if rel, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname); rel != nil {
			// Stored qualified, so that the view reads this relation
			// whatever the search path when it is used.
			rv.Schemaname = p.C.Eng.Catalog.NamespaceName(rel.Namespace)
			for _, a := range rel.Attrs {
				if !a.Dropped {
					cols = append(cols, a.Name)
				}
			}
		}
		if rv.Alias != nil {
			cols = renameNames(cols, rv.Alias.Colnames)
		}
		sc.items = append(sc.items, normItem{name: name, cols: cols})
		return entriesOf(name, cols)
	case f.GetRangeSubselect() != nil:
		rs := f.GetRangeSubselect()
		parent := sc.parent
		if rs.Lateral {
			parent = sc
		}
		var cols []string
		if q := rs.Subquery.GetSelectStmt(); q != nil {
			cols = p.normSelect(q, &normScope{parent: parent})
		}
		name := ""
		if rs.Alias != nil {
			name = rs.Alias.Aliasname
			cols = renameNames(cols, rs.Alias.Colnames)
		}
		sc.items = append(sc.items, normItem{name: name, cols: cols})
		return entriesOf(name, cols)
	case f.GetRangeFunction() != nil:
		rf := f.GetRangeFunction()
		p.normExprs(rf.Functions, sc)
		name, cols := "", []string(nil)
		if len(rf.Functions) == 1 {
			if fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall(); fc != nil {
				name = fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
				cols = []string{name}
			}
		}
		if rf.Alias != nil {
			name = rf.Alias.Aliasname
			if len(rf.Alias.Colnames) > 0 {
				cols = nil
				for _, c := range rf.Alias.Colnames {
					cols = append(cols, c.GetString_().GetSval())
				}
			} else if len(cols) == 1 {
				cols = []string{name}
			}
		}
		if rf.Ordinality {
			cols = append(cols, "ordinality")
		}
		sc.items = append(sc.items, normItem{name: name, cols: cols})
		return entriesOf(name, cols)
	case f.GetJoinExpr() != nil:
		j := f.GetJoinExpr()
		first := len(sc.items)
		left := p.normFromItem(j.Larg, sc)
		right := p.normFromItem(j.Rarg, sc)
		p.normExpr(j.Quals, sc)
		out := joinEntries(j, left, right)
		if j.Alias != nil {
			var cols []string
			for _, e := range out {
				cols = append(cols, e.name)
			}
			cols = renameNames(cols, j.Alias.Colnames)
			sc.items = append(sc.items[:first], normItem{name: j.Alias.Aliasname, cols: cols})
			return entriesOf(j.Alias.Aliasname, cols)
		}
		return out
	}
	return nil
}

func entriesOf(qual string, cols []string) []colEntry {
	out := make([]colEntry, len(cols))
	for i, c := range cols {
		out[i] = colEntry{qual, c}
	}
	return out
}

// joinEntries is a join's output columns as PostgreSQL orders them: the
// merged USING (or NATURAL) columns first, named by the side that
// supplies them (none for FULL JOIN), then the others of each side.
func joinEntries(j *pg.JoinExpr, left, right []colEntry) []colEntry {
	var using []string
	if j.IsNatural {
		inRight := map[string]bool{}
		for _, e := range right {
			inRight[e.name] = true
		}
		for _, e := range left {
			if inRight[e.name] {
				using = append(using, e.name)
			}
		}
	}
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().GetSval())
	}
	if len(using) == 0 {
		return append(append([]colEntry(nil), left...), right...)
	}
	merged := map[string]bool{}
	var out []colEntry
	find := func(side []colEntry, name string) colEntry {
		for _, e := range side {
			if e.name == name {
				return e
			}
		}
		return colEntry{"", name}
	}
	for _, u := range using {
		merged[u] = true
		switch j.Jointype {
		case pg.JoinType_JOIN_FULL:
			out = append(out, colEntry{"", u})
		case pg.JoinType_JOIN_RIGHT:
			out = append(out, find(right, u))
		default:
			out = append(out, find(left, u))
		}
	}
	for _, side := range [][]colEntry{left, right} {
		for _, e := range side {
			if !merged[e.name] {
				out = append(out, e)
			}
		}
	}
	return out
}

// expandStars replaces * and t.* in a target list with the columns they
// stand for now. A star over a FULL JOIN's merged column stays (no side
// names it).
func (p *Planner) expandStars(list []*pg.Node, sc *normScope) []*pg.Node {
	var out []*pg.Node
	for _, t := range list {
		rt := t.GetResTarget()
		cr := rt.GetVal().GetColumnRef()
		if cr == nil || cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
			out = append(out, t)
			continue
		}
		var cols []colEntry
		if len(cr.Fields) == 1 {
			cols = sc.starCols
		} else if len(cr.Fields) == 2 {
			q := cr.Fields[0].GetString_().GetSval()
			for _, it := range sc.items {
				if it.name == q {
					cols = entriesOf(it.name, it.cols)
				}
			}
		}
		expandable := len(cols) > 0
		for _, e := range cols {
			expandable = expandable && e.qual != ""
		}
		if !expandable {
			out = append(out, t)
			continue
		}
		for _, e := range cols {
			out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{
				Val: columnRefNode(e.qual, e.name), Location: -1}}})
		}
	}
	return out
}

func columnRefNode(qual, name string) *pg.Node {
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{
		{Node: &pg.Node_String_{String_: &pg.String{Sval: qual}}},
		{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}},
	}, Location: -1}}}
}

func (p *Planner) normExprs(list []*pg.Node, sc *normScope) {
	for _, e := range list {
		p.normExpr(e, sc)
	}
}

// normExpr qualifies the column references of an expression, and
// normalizes the sub-selects in it with sc as their parent scope.
func (p *Planner) normExpr(e *pg.Node, sc *normScope) {
	if e == nil {
		return
	}
	parser.Walk(e, func(m proto.Message) bool {
		switch n := m.(type) {
		case *pg.SelectStmt:
			p.normSelect(n, sc)
			return false
		case *pg.ColumnRef:
			qualifyRef(n, sc)
			return false
		}
		return true
	})
}

func qualifyRef(cr *pg.ColumnRef, sc *normScope) {
	if len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return
	}
	name := cr.Fields[0].GetString_().Sval
	for s := sc; s != nil; s = s.parent {
		var found []normItem
		for _, it := range s.items {
			for _, c := range it.cols {
				if c == name {
					found = append(found, it)
					break
				}
			}
		}
		if len(found) == 1 && found[0].name != "" {
			cr.Fields = columnRefNode(found[0].name, name).GetColumnRef().Fields
			return
		}
		if len(found) > 0 {
			return
		}
	}
}

// normTargetName is the column name a target gets without planning.
func normTargetName(rt *pg.ResTarget) string {
	if rt.Name != "" {
		return rt.Name
	}
	if name, strength := figureColname(rt.Val); strength > 0 {
		return name
	}
	return "?column?"
}

// DeparseSelect is a SELECT's SQL text (the stored form of a view).
func DeparseSelect(sel *pg.SelectStmt) (string, error) {
	return deparseStmt(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}})
}
