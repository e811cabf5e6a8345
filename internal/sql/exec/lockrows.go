package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// SELECT … FOR UPDATE | NO KEY UPDATE | SHARE | KEY SHARE [OF rel, …]
// [NOWAIT | SKIP LOCKED]: each clause marks tables of the query's FROM
// list (all of them without OF; a subquery in FROM passes the clause on to
// its own tables). A marked table's scan also returns each row's TID, and
// a LockRows node — above the sort, below LIMIT, as in PostgreSQL — locks
// every marked table's row version of each result row before returning
// it. Under READ COMMITTED a row updated concurrently is followed to its
// newest version, which is locked; then the WHERE clause and inner join
// conditions are checked again on the row with the newer version in place
// and the output recomputed (EvalPlanQual); a row that no longer qualifies
// is dropped, its lock kept. Under REPEATABLE READ such a row is a
// serialization failure. For that re-check the projection carries the
// whole query row as hidden columns.

// lockClause is one locking clause of a query level.
type lockClause struct {
	rels     []*pg.RangeVar // nil: every table
	strength pg.LockClauseStrength
	mode     tableam.LockMode
	wait     tableam.WaitPolicy
}

// rowMark says a FROM table's rows are to be locked.
type rowMark struct {
	mode tableam.LockMode
	wait tableam.WaitPolicy
}

// lockRequest is the locking clauses of the query level being planned.
type lockRequest struct {
	clauses []lockClause
	found   map[*pg.RangeVar]bool
}

// lcsString is LCS_asString.
func lcsString(s pg.LockClauseStrength) string {
	switch s {
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		return "FOR KEY SHARE"
	case pg.LockClauseStrength_LCS_FORSHARE:
		return "FOR SHARE"
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "FOR NO KEY UPDATE"
	}
	return "FOR UPDATE"
}

// parseLocking reads a SELECT's locking clauses (nil if none).
func parseLocking(s *pg.SelectStmt) (*lockRequest, error) {
	if len(s.LockingClause) == 0 {
		return nil, nil
	}
	lr := &lockRequest{found: map[*pg.RangeVar]bool{}}
	for _, n := range s.LockingClause {
		lc := n.GetLockingClause()
		if lc == nil {
			continue
		}
		cl := lockClause{strength: lc.Strength}
		switch lc.Strength {
		case pg.LockClauseStrength_LCS_FORKEYSHARE:
			cl.mode = tableam.LockKeyShare
		case pg.LockClauseStrength_LCS_FORSHARE:
			cl.mode = tableam.LockShare
		case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
			cl.mode = tableam.LockNoKeyExclusive
		default:
			cl.mode = tableam.LockExclusive
		}
		switch lc.WaitPolicy {
		case pg.LockWaitPolicy_LockWaitSkip:
			cl.wait = tableam.WaitSkip
		case pg.LockWaitPolicy_LockWaitError:
			cl.wait = tableam.WaitError
		}
		for _, r := range lc.LockedRels {
			rv := r.GetRangeVar()
			if rv.Schemaname != "" || rv.Catalogname != "" {
				e := pgerr.Errorf(pgerr.SyntaxError, "%s must specify unqualified relation names", lcsString(lc.Strength))
				e.Position = rv.Location + 1
				return nil, e
			}
			cl.rels = append(cl.rels, rv)
		}
		lr.clauses = append(lr.clauses, cl)
	}
	return lr, nil
}

// first is the first clause's strength, for messages about the query.
func (lr *lockRequest) first() string { return lcsString(lr.clauses[0].strength) }

// markFor is the row mark for the FROM item called alias: the strongest
// strength and wait policy of the clauses naming it or every table
// (applyLockingClause); named says whether a clause named it.
func (lr *lockRequest) markFor(alias string) (m *rowMark, named *lockClause) {
	for i := range lr.clauses {
		cl := &lr.clauses[i]
		applies := cl.rels == nil
		for _, rv := range cl.rels {
			if rv.Relname == alias {
				applies = true
				lr.found[rv] = true
				named = cl
			}
		}
		if !applies {
			continue
		}
		if m == nil {
			m = &rowMark{mode: cl.mode, wait: cl.wait}
			continue
		}
		m.mode = max(m.mode, cl.mode)
		m.wait = max(m.wait, cl.wait)
	}
	return m, named
}

// refuseNamed refuses a locking clause that names a FROM item that is not
// a table or subquery (what says which kind).
func (lr *lockRequest) refuseNamed(alias, what string) error {
	if lr == nil {
		return nil
	}
	if _, named := lr.markFor(alias); named != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "%s cannot be applied to %s", lcsString(named.strength), what)
	}
	return nil
}

// notFound refuses names in OF that match no FROM item.
func (lr *lockRequest) notFound() error {
	for _, cl := range lr.clauses {
		for _, rv := range cl.rels {
			if !lr.found[rv] {
				e := pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" in %s clause not found in FROM clause", rv.Relname, lcsString(cl.strength))
				e.Position = rv.Location + 1
				return e
			}
		}
	}
	return nil
}

// checkSelectLocking refuses locking clauses on queries whose rows are
// not table rows (CheckSelectLocking).
func checkSelectLocking(s *pg.SelectStmt, lr *lockRequest, agg bool) error {
	what := ""
	switch {
	case len(s.DistinctClause) > 0:
		what = "DISTINCT clause"
	case len(s.GroupClause) > 0:
		what = "GROUP BY clause"
	case s.HavingClause != nil:
		what = "HAVING clause"
	case agg:
		what = "aggregate functions"
	case hasWindowFunc(s):
		what = "window functions"
	case srfOnlySelect(s, noUserSRF) != nil:
		what = "set-returning functions in the target list"
	default:
		return nil
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not allowed with %s", lr.first(), what)
}

func hasWindowFunc(s *pg.SelectStmt) bool {
	found := false
	for _, t := range s.TargetList {
		WalkExpr(t, func(n *pg.Node) {
			if fc := n.GetFuncCall(); fc != nil && fc.Over != nil {
				found = true
			}
		})
	}
	return found
}

// lockSubquery is the subquery of a FROM item the locking clauses apply
// to, with an all-tables clause of the mark's strength added (PostgreSQL
// pushes the clause down into the subquery).
func lockSubquery(sel *pg.SelectStmt, m *rowMark, strength pg.LockClauseStrength) *pg.SelectStmt {
	c := proto.Clone(sel).(*pg.SelectStmt)
	wait := pg.LockWaitPolicy_LockWaitBlock
	switch m.wait {
	case tableam.WaitSkip:
		wait = pg.LockWaitPolicy_LockWaitSkip
	case tableam.WaitError:
		wait = pg.LockWaitPolicy_LockWaitError
	}
	c.LockingClause = append(c.LockingClause, &pg.Node{Node: &pg.Node_LockingClause{LockingClause: &pg.LockingClause{Strength: strengthOf(m.mode, strength), WaitPolicy: wait}}})
	return c
}

func strengthOf(mode tableam.LockMode, def pg.LockClauseStrength) pg.LockClauseStrength {
	switch mode {
	case tableam.LockKeyShare:
		return pg.LockClauseStrength_LCS_FORKEYSHARE
	case tableam.LockShare:
		return pg.LockClauseStrength_LCS_FORSHARE
	case tableam.LockNoKeyExclusive:
		return pg.LockClauseStrength_LCS_FORNOKEYUPDATE
	case tableam.LockExclusive:
		return pg.LockClauseStrength_LCS_FORUPDATE
	}
	return def
}

// tidScopeCol is the hidden column a marked table's scan adds: the row
// version's TID (no name, in no *).
func tidScopeCol(alias string) scopeCol {
	return scopeCol{rel: alias, t: types.Int8, hidden: true, dropped: true}
}

// lockedLeaves lists the marked tables of a FROM tree, refusing marks on
// the nullable side of an outer join.
func lockedLeaves(t *jtree, nullable bool, lr *lockRequest, out []*jtree) ([]*jtree, error) {
	if t == nil {
		return out, nil
	}
	if t.fi != nil {
		if t.fi.mark != nil {
			if nullable {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s cannot be applied to the nullable side of an outer join", lr.first())
			}
			out = append(out, t)
		}
		return out, nil
	}
	ln := nullable || t.kind == pg.JoinType_JOIN_RIGHT || t.kind == pg.JoinType_JOIN_FULL
	rn := nullable || t.kind == pg.JoinType_JOIN_LEFT || t.kind == pg.JoinType_JOIN_FULL
	out, err := lockedLeaves(t.left, ln, lr, out)
	if err != nil {
		return nil, err
	}
	return lockedLeaves(t.right, rn, lr, out)
}

// recheckQuals are the conditions EvalPlanQual re-checks: the WHERE
// clause's and those of inner joins above no nullable side, in query-row
// indexes (collected before they are placed on plan nodes).
func recheckQuals(t *jtree, nullable bool, out []expr.Expr) []expr.Expr {
	if t == nil || t.fi != nil {
		return out
	}
	if t.kind == pg.JoinType_JOIN_INNER && !nullable {
		out = append(out, t.on...)
	}
	ln := nullable || t.kind == pg.JoinType_JOIN_RIGHT || t.kind == pg.JoinType_JOIN_FULL
	rn := nullable || t.kind == pg.JoinType_JOIN_LEFT || t.kind == pg.JoinType_JOIN_FULL
	return recheckQuals(t.right, rn, recheckQuals(t.left, ln, out))
}

// LockRows locks the marked tables' row versions of each row (ExecLockRows).
type LockRows struct {
	nodeBase
	Input Node
	Marks []*lockedTable
	// RawOff is where the query row starts in the input's rows; before it
	// are the projection's columns, which Exprs recompute from the query
	// row after a re-check.
	RawOff int
	Exprs  []expr.Expr
	// Qual is re-checked on rows whose newer version was locked.
	Qual expr.Expr
	cols []Column
	// last is, per mark, the version locked for the row returned last
	// (WHERE CURRENT OF a FOR UPDATE cursor acts on it).
	last []RowRef
}

// lockedTable is a marked table's place in the query row.
type lockedTable struct {
	Rel      *catalog.Relation
	Alias    string
	Mode     tableam.LockMode
	Wait     tableam.WaitPolicy
	Offset   int       // first column
	Sys      []sysAttr // system columns after the table's
	TIDIndex int       // where the row version's TID is (the leaf's last column)
	natts    int
	deformer tableam.Format
	// members: an inheritance parent's tables; a row's member OID is just
	// before its TID (inherit.go).
	members []*lockedMember
}

func (l *LockRows) Columns() []Column { return l.cols }

func (l *LockRows) Open(c *Ctx) error {
	xid, err := c.Eng.Xact.AssignXid(c.Tx.Heap.Proc)
	if err != nil {
		return err
	}
	c.Tx.Heap.Xid = xid
	for _, m := range l.Marks {
		if m.deformer == nil {
			m.deformer = m.Rel.NewDeformer()
			m.natts = len(m.Rel.Attrs)
		}
		for _, mm := range m.members {
			if mm.deformer == nil {
				mm.deformer = mm.Rel.NewDeformer()
			}
		}
	}
	return Open(c, l.Input)
}

func (l *LockRows) Close(c *Ctx) { Close(c, l.Input) }

func (l *LockRows) Next(c *Ctx) (Row, error) {
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		row, err := Next(c, l.Input)
		if err != nil || row == nil {
			return row, err
		}
		raw := append(Row(nil), row[l.RawOff:]...)
		ok, changed, err := l.lockRow(c, raw)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		l.noteTIDs(raw)
		if !changed {
			return row, nil
		}
		if l.Qual != nil {
			pass, err := expr.IsTrue(c.Env, l.Qual, raw)
			if err != nil {
				return nil, err
			}
			if !pass {
				continue
			}
		}
		out := make(Row, len(row))
		for i, e := range l.Exprs {
			if out[i], err = e.Eval(c.Env, raw); err != nil {
				return nil, err
			}
		}
		copy(out[l.RawOff:], raw)
		return out, nil
	}
}

// lockRow locks the row versions of the query row raw. ok=false drops the
// row (skipped, deleted, changed by our own command); changed says a newer
// version was locked and put in raw.
func (l *LockRows) lockRow(c *Ctx, raw Row) (ok, changed bool, err error) {
	rr := c.repeatableRead()
	for _, m := range l.Marks {
		tidx := m.TIDIndex
		if raw[tidx].IsNull() {
			continue
		}
		tid := DatumTID(raw[tidx])
		rel, member := m.Rel, m.memberOf(raw)
		if member != nil {
			rel = member.Rel
		}
		var oc tableam.Outcome
		var t tableam.Tuple
		if rr {
			oc, err = rel.Table.Lock(c.Context, c.U(), c.Tx.Heap, tid, m.Mode, m.Wait, true)
		} else {
			oc, tid, t, err = rel.Table.LockLatest(c.Context, c.U(), c.Tx.Heap, tid, m.Mode, m.Wait)
		}
		if err != nil {
			return false, false, err
		}
		switch oc.Result {
		case tableam.Ok:
			if oc.Traversed {
				if err := m.deformInto(raw, member, t); err != nil {
					return false, false, err
				}
				f := m.deformer
				if member != nil {
					f = member.deformer
				}
				fillSysAttrs(raw[m.Offset+m.natts:], m.Sys, rel, f, t, tid)
				raw[tidx] = TIDDatum(tid)
				changed = true
			}
		case tableam.Updated, tableam.Deleted:
			if rr {
				return false, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
			}
			return false, false, nil
		case tableam.Invisible:
			return false, false, pgerr.Errorf(pgerr.InternalError, "attempted to lock invisible tuple")
		default: // WouldBlock (SKIP LOCKED), SelfModified
			return false, false, nil
		}
	}
	return true, changed, nil
}

// lockRelMode is the relation lock a FROM table is opened with: RowShare
// for a table whose rows are locked.
func lockRelMode(m *rowMark) int {
	if m != nil {
		return int(xact.RowShareLock)
	}
	return lockAccessShare
}

// conjunctsOf splits a qual into its AND-ed parts (none for nil).
func conjunctsOf(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	return conjuncts(e)
}

// planLockRows checks a query level's locking clauses against it and
// makes the LockRows node for its marked tables (nil when it has none:
// FOR UPDATE of a query without tables locks nothing). Its input and row
// layout are filled in once the projection is planned.
func (p *Planner) planLockRows(s *pg.SelectStmt, lr *lockRequest, jt *jtree, agg bool, recheck expr.Expr) (*LockRows, error) {
	if err := checkSelectLocking(s, lr, agg); err != nil {
		return nil, err
	}
	if err := lr.notFound(); err != nil {
		return nil, err
	}
	leaves, err := lockedLeaves(jt, false, lr, nil)
	if err != nil || len(leaves) == 0 {
		return nil, err
	}
	l := &LockRows{Qual: recheck}
	for _, t := range leaves {
		lt := &lockedTable{Rel: t.fi.rel, Alias: t.fi.alias, Mode: t.fi.mark.mode, Wait: t.fi.mark.wait,
			Offset: t.offset, Sys: t.fi.sys, TIDIndex: t.offset + t.width - 1}
		for _, m := range t.fi.inh {
			lt.members = append(lt.members, &lockedMember{inhMember: m})
		}
		l.Marks = append(l.Marks, lt)
	}
	return l, nil
}

func (l *LockRows) noteTIDs(raw Row) {
	if l.last == nil {
		l.last = make([]RowRef, len(l.Marks))
	}
	for i, m := range l.Marks {
		if d := raw[m.TIDIndex]; !d.IsNull() {
			table := m.Rel.OID
			if mm := m.memberOf(raw); mm != nil {
				table = mm.Rel.OID
			}
			l.last[i] = RowRef{table, DatumTID(d)}
		}
	}
}

// cursorSource: WHERE CURRENT OF a FOR UPDATE cursor acts on the row
// versions LockRows locked, one per marked FROM item.
func (l *LockRows) cursorSource() *CursorRowSource {
	src := &CursorRowSource{Locked: true, Current: func() []RowRef {
		return append([]RowRef(nil), l.last...)
	}}
	for _, m := range l.Marks {
		tables := []uint32{m.Rel.OID}
		if m.members != nil {
			tables = tables[:0]
			for _, mm := range m.members {
				tables = append(tables, mm.Rel.OID)
			}
		}
		src.Tables = append(src.Tables, tables)
	}
	return src
}
