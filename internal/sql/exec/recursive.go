package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// WITH RECURSIVE, as PostgreSQL evaluates it: a recursive query is
// `non-recursive-term UNION [ALL] recursive-term`; the non-recursive term's
// rows seed a working table, the recursive term is run again and again
// over the previous round's new rows (its self-reference reads the working
// table, a WorkTable Scan), and every new row is returned; UNION without
// ALL drops rows seen before. It stops when a round adds no rows. The CTE
// is read lazily (CTEScan with cteDef.lazy), so `LIMIT n` on a recursion
// that never ends stops after n rows, as in PostgreSQL.

// workTable is the previous round's rows, read by the recursive term.
type workTable struct {
	rows *rowStore // nil before the first round
	// gen counts the rounds: a WITH query planned inside the recursive
	// term (cteDef.round) is computed again when it changes.
	gen int
}

// currentRound is the working table of the innermost recursive term being
// planned, nil outside one.
func (p *Planner) currentRound() *workTable {
	if n := len(p.q.rounds); n > 0 {
		return p.q.rounds[n-1]
	}
	return nil
}

// freshFor reports whether a WITH query's computed rows still hold: for
// one inside a recursive term, only within the round they were computed in.
func (d *cteDef) freshFor(m *cteState) bool {
	return d.round == nil || m.gen == d.round.gen
}

func (d *cteDef) roundGen() int {
	if d.round == nil {
		return 0
	}
	return d.round.gen
}

// WorkTableScan reads the working table of a recursive query.
type WorkTableScan struct {
	nodeBase
	work  *workTable
	Name  string
	Alias string
	cols  []Column
	cur   *rowCursor
}

func (s *WorkTableScan) Columns() []Column { return s.cols }
func (s *WorkTableScan) Open(c *Ctx) error {
	s.Close(c)
	if s.work.rows != nil {
		s.cur = s.work.rows.cursor()
	}
	return nil
}
func (s *WorkTableScan) Next(c *Ctx) (Row, error) {
	if s.cur == nil {
		return nil, nil
	}
	return s.cur.next()
}
func (s *WorkTableScan) Close(c *Ctx) {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}

// RecursiveUnion produces a recursive query's rows round by round.
type RecursiveUnion struct {
	nodeBase
	NonRecursive, Recursive Node
	All                     bool
	Cols                    []Column
	work                    *workTable

	seen      map[string]bool // UNION: every row returned so far
	next      *rowStore       // this round's new rows
	recursing bool            // the current input is the recursive term
	done      bool
}

func (u *RecursiveUnion) Columns() []Column { return u.Cols }
func (u *RecursiveUnion) Open(c *Ctx) error {
	u.dropRounds()
	u.next, u.recursing, u.done = newRowStore(c), false, false
	u.work.gen++
	if !u.All {
		u.seen = map[string]bool{}
	}
	return Open(c, u.NonRecursive)
}

func (u *RecursiveUnion) input() Node {
	if u.recursing {
		return u.Recursive
	}
	return u.NonRecursive
}

func (u *RecursiveUnion) Next(c *Ctx) (Row, error) {
	for !u.done {
		r, err := Next(c, u.input())
		if err != nil {
			return nil, err
		}
		if r != nil {
			if u.seen != nil {
				k := rowKey(u.Cols, r)
				if u.seen[k] {
					continue
				}
				u.seen[k] = true
			}
			r = append(Row(nil), r...) // the input may reuse its row
			if err := u.next.add(c, r); err != nil {
				return nil, err
			}
			return r, nil
		}
		// The round is over: its rows are the next round's working table.
		Close(c, u.input())
		if u.next.Len() == 0 {
			u.done = true
			break
		}
		if u.work.rows != nil {
			u.work.rows.close()
		}
		u.work.rows, u.next, u.recursing = u.next, newRowStore(c), true
		u.work.gen++
		if err := Open(c, u.Recursive); err != nil {
			u.done = true
			return nil, err
		}
	}
	return nil, nil
}

func (u *RecursiveUnion) Close(c *Ctx) {
	if !u.done {
		Close(c, u.input())
		u.done = true
	}
	u.dropRounds()
	u.seen = nil
}

// dropRounds removes the working table and the round being collected.
func (u *RecursiveUnion) dropRounds() {
	for _, s := range []*rowStore{u.work.rows, u.next} {
		if s != nil {
			s.close()
		}
	}
	u.work.rows, u.next = nil, nil
}

// referencesName reports whether the query n reads a relation called name
// without a schema (a self-reference of a WITH query).
func referencesName(n *pg.Node, name string) bool {
	found := false
	parser.Walk(n, func(m proto.Message) bool {
		if rv, ok := m.(*pg.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
		return !found
	})
	return found
}

func recursiveFormErr(name string, loc int32) error {
	return at(pgerr.Errorf("42P19", "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", name), loc)
}

// at gives e the error cursor of parse location loc.
func at(e *pgerr.Error, loc int32) *pgerr.Error {
	if loc >= 0 && e.Position == 0 {
		e.Position = loc + 1
	}
	return e
}

// planRecursiveCTE plans a WITH RECURSIVE query that refers to itself.
func (p *Planner) planRecursiveCTE(ce *pg.CommonTableExpr, parent levelScope, level int, m map[string]*cteDef) (*cteDef, error) {
	name := ce.Ctename
	if ce.SearchClause != nil || ce.CycleClause != nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "SEARCH and CYCLE clauses of WITH RECURSIVE are not supported yet")
	}
	sel := ce.Ctequery.GetSelectStmt()
	if sel == nil || sel.Op != pg.SetOperation_SETOP_UNION {
		return nil, recursiveFormErr(name, ce.Location)
	}
	if referencesName(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel.Larg}}, name) {
		return nil, at(pgerr.Errorf("42P19", "recursive reference to query \"%s\" must not appear within its non-recursive term", name), ce.Location)
	}
	if len(sel.SortClause) > 0 {
		return nil, at(pgerr.Errorf(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented"), parser.Location(sel.SortClause[0]))
	}
	if sel.LimitCount != nil || sel.LimitOffset != nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented")
	}
	if len(sel.LockingClause) > 0 {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	if err := checkRecursiveTerm(sel.Rarg, name); err != nil {
		return nil, err
	}
	seed, seedCols, _, err := p.planQuery(sel.Larg, parent, level)
	if err != nil {
		return nil, err
	}
	cols := make([]Column, len(seedCols))
	for i, c := range seedCols {
		cols[i] = c
		if c.Type.OID == types.UnknownOID {
			cols[i].Type = types.Text
		}
	}
	if seed, err = coerceCols(seed, seedCols, cols); err != nil {
		return nil, err
	}
	if len(ce.Aliascolnames) > len(cols) {
		return nil, pgerr.Errorf("42P10", "WITH query \"%s\" has %d columns available but %d columns specified", name, len(cols), len(ce.Aliascolnames))
	}
	cols = renameCols(cols, ce.Aliascolnames)
	work := &workTable{}
	def := &cteDef{name: name, cols: cols, mat: &cteState{}, work: work}
	m[name] = def // the recursive term's self-reference reads the working table
	p.q.rounds = append(p.q.rounds, work)
	rec, recCols, _, err := p.planQuery(sel.Rarg, parent, level)
	p.q.rounds = p.q.rounds[:len(p.q.rounds)-1]
	delete(m, name)
	if err != nil {
		return nil, err
	}
	if hasAggregate(rec) {
		loc := int32(-1)
		parser.Walk(sel.Rarg, func(m proto.Message) bool {
			if fc, ok := m.(*pg.FuncCall); ok && loc < 0 {
				loc = fc.Location
			}
			return loc < 0
		})
		return nil, at(pgerr.Errorf("42P19", "aggregate functions are not allowed in a recursive query's recursive term"), loc)
	}
	if len(recCols) != len(cols) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	for i := range cols {
		if recCols[i].Type.OID != cols[i].Type.OID {
			if recCols[i].Type.OID != types.UnknownOID {
				loc := int32(-1)
				if tl := sel.Larg.GetTargetList(); i < len(tl) {
					loc = parser.Location(tl[i].GetResTarget().GetVal())
				}
				return nil, at(pgerr.Errorf(pgerr.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", name, i+1, cols[i].Type, commonTypeName(cols[i].Type, recCols[i].Type)), loc).
					WithHint("Cast the output of the non-recursive term to the correct type.")
			}
		}
	}
	if rec, err = coerceCols(rec, recCols, cols); err != nil {
		return nil, err
	}
	union := &RecursiveUnion{NonRecursive: seed, Recursive: rec, All: sel.All, Cols: cols, work: work}
	return &cteDef{name: name, node: union, cols: cols, mat: &cteState{}, lazy: true}, nil
}

// commonTypeName is the type a UNION of a and b resolves to, for the
// error above.
func commonTypeName(a, b types.Type) types.Type {
	if t, ok := types.CommonType(a, b); ok {
		return t
	}
	return b
}

// openLazy starts or joins the reading of a lazily evaluated WITH query:
// its rows are computed as its readers need them and kept for the others.
func (s *CTEScan) openLazy(c *Ctx) error {
	m := s.def.mat
	if m.env != c.Env || c.Env == nil || !m.producing && !m.done || !s.def.freshFor(m) {
		if m.producing {
			Close(c, s.def.node)
		}
		m.fresh(c)
		m.done, m.producing = false, false
		if err := Open(c, s.def.node); err != nil {
			Close(c, s.def.node)
			return err
		}
		m.producing, m.env, m.gen = true, c.Env, s.def.roundGen()
	}
	m.readers++
	return nil
}

// produce computes one more row of a lazily read WITH query for its
// readers; false when there are no more (always, for one computed whole
// at Open).
func (s *CTEScan) produce(c *Ctx) (bool, error) {
	m := s.def.mat
	if !s.def.lazy || !m.producing {
		return false, nil
	}
	r, err := Next(c, s.def.node)
	if err != nil {
		return false, err
	}
	if r == nil {
		Close(c, s.def.node)
		m.producing, m.done = false, true
		return false, nil
	}
	return true, m.store.add(c, r)
}

// closeLazy: when the last reader stops before the end, the computation
// stops too (a later reader starts it again).
func (s *CTEScan) closeLazy(c *Ctx) {
	m := s.def.mat
	if m.readers > 0 {
		m.readers--
	}
	if m.readers == 0 && m.producing {
		Close(c, s.def.node)
		m.producing = false
		m.env = nil
	}
}

// checkRecursiveTerm applies PostgreSQL's rules for where a recursive
// term may read its own query: exactly once, not inside a subquery, not
// on the nullable side of an outer join, and not with FOR UPDATE/SHARE.
func checkRecursiveTerm(term *pg.SelectStmt, name string) error {
	if len(term.LockingClause) > 0 {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	refErr := func(rv *pg.RangeVar, where string) error {
		return at(pgerr.Errorf("42P19", "recursive reference to query \"%s\" must not appear %s", name, where), rv.Location)
	}
	// firstRef is the first self-reference in the subtree m, or nil.
	firstRef := func(m proto.Message) *pg.RangeVar {
		var ref *pg.RangeVar
		parser.Walk(m, func(n proto.Message) bool {
			if rv, ok := n.(*pg.RangeVar); ok && ref == nil && rv.Schemaname == "" && rv.Relname == name {
				ref = rv
			}
			return ref == nil
		})
		return ref
	}
	var err error
	count := 0
	parser.Walk(term, func(m proto.Message) bool {
		if err != nil {
			return false
		}
		switch n := m.(type) {
		case *pg.SubLink:
			if rv := firstRef(n.Subselect); rv != nil {
				err = refErr(rv, "within a subquery")
			}
			return false
		case *pg.RangeSubselect:
			if rv := firstRef(n.Subquery); rv != nil {
				err = refErr(rv, "within a subquery")
			}
			return false
		case *pg.JoinExpr:
			var nullable []*pg.Node
			switch n.Jointype {
			case pg.JoinType_JOIN_LEFT:
				nullable = []*pg.Node{n.Rarg}
			case pg.JoinType_JOIN_RIGHT:
				nullable = []*pg.Node{n.Larg}
			case pg.JoinType_JOIN_FULL:
				nullable = []*pg.Node{n.Larg, n.Rarg}
			}
			for _, side := range nullable {
				if rv := firstRef(side); rv != nil {
					err = refErr(rv, "within an outer join")
					return false
				}
			}
		case *pg.RangeVar:
			if n.Schemaname == "" && n.Relname == name {
				count++
				if count > 1 {
					err = refErr(n, "more than once")
				}
			}
		}
		return true
	})
	return err
}

// hasAggregate reports an aggregation in the plan of one query level.
func hasAggregate(n Node) bool {
	if _, ok := n.(*Agg); ok {
		return true
	}
	var e explainer
	for _, c := range e.children(n) {
		if hasAggregate(c) {
			return true
		}
	}
	return false
}
