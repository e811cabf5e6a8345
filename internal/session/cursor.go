package session

// SQL cursors: DECLARE, FETCH, MOVE, CLOSE, WITH HOLD, pg_cursors and the
// cursor side of WHERE CURRENT OF, with PostgreSQL's portal rules.
//
// A cursor runs its plan with the snapshot and command id of its DECLARE,
// so it never sees later changes, its own transaction's included. It keeps
// PostgreSQL's portal position (atStart, atEnd, portalPos) and moves it
// exactly as DoPortalRunFetch and PortalRunSelect do, so every FETCH and
// MOVE form returns PostgreSQL's rows and counts and refuses a backward
// move of a NO SCROLL cursor at the same points (55000). Below the portal
// position, the rows are read from the plan once: a scrollable cursor keeps
// every row read so far and steps back through them (PostgreSQL would run
// the plan backward or through a Materialize node); a NO SCROLL cursor
// keeps only its current row. Each kept row carries the TID of the table
// row it came from, when the plan is a simply updatable scan of one table,
// for WHERE CURRENT OF.
//
// Lifetime: a cursor belongs to the (sub)transaction that declared it.
// COMMIT drops cursors without HOLD and materializes WITH HOLD cursors (the
// rest of the rows are read into memory inside the committing transaction,
// as PersistHoldablePortal does), which then live until CLOSE or the end of
// the session; ROLLBACK drops every cursor the transaction declared.
// Cursors and protocol portals share one namespace, as in PostgreSQL: a
// Bind cannot take a cursor's name, Execute, Describe and Close of a portal
// reach a cursor of that name, and pg_cursors lists both.

import (
	"context"
	"math"
	"sort"
	"strconv"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// DECLARE options (PostgreSQL's CURSOR_OPT_* bits, as the parser sets them).
const (
	cursorOptBinary      = 0x01
	cursorOptScroll      = 0x02
	cursorOptNoScroll    = 0x04
	cursorOptInsensitive = 0x08
	cursorOptAsensitive  = 0x10
	cursorOptHold        = 0x20
)

// fetchAll is FETCH ALL's count (PostgreSQL's FETCH_ALL, LONG_MAX).
const fetchAll = math.MaxInt64

const (
	codeInvalidCursorState      = "24000"
	codeInvalidCursorDefinition = "42P11"
)

// cursor is one DECLAREd cursor.
type cursor struct {
	name      string
	statement string // the query string that declared it (pg_cursors)
	created   int64  // µs since 2000-01-01
	binary    bool
	hold      bool
	scroll    bool
	// level is the subtransaction nesting level of the DECLARE (1: the
	// top transaction); 0 once held over from a committed transaction.
	level int
	cols  []exec.Column
	// failed: an error happened while it ran; it can only be closed.
	failed bool

	// PostgreSQL's portal position: portalPos counts the rows up to and
	// including the current one.
	atStart, atEnd bool
	pos            int64

	src cursorRows
}

// cursorRows is what the portal position moves over: the cursor's rows in
// order, read from its plan as needed. at is the row last returned: 0
// before the first, n+1 past the last (once the plan is done).
type cursorRows struct {
	c    *exec.Ctx
	ctx  *stmtContext
	sink *noticeSink
	node exec.Node // nil once the plan is closed
	// opened: the plan was started, at the first read (as PostgreSQL runs
	// a Sort or an aggregate at the first FETCH, not at DECLARE)
	opened bool
	snap   *xact.Snapshot
	cid    uint32
	// source names the table rows behind each row, for WHERE CURRENT OF
	// (nil when the plan is neither FOR UPDATE nor a simply updatable
	// scan); refs holds them per kept row.
	source *exec.CursorRowSource

	keep  bool // keep every row read (scrollable)
	rows  []exec.Row
	refs  [][]exec.RowRef
	first int64 // rows[0] is row first+1
	n     int64 // rows read from the plan
	done  bool  // the plan returned its last row
	at    int64
}

// boundParams are the parameters an Execute of a utility statement was
// bound with: a DECLARE through the extended protocol passes them to its
// query (psycopg's server-side cursors send DECLARE … $1).
type boundParams struct {
	vals  []types.Datum
	types []types.Type
}

// stmtContext is the context a cursor's plan runs under: the current
// statement's (FETCH, COMMIT), swapped in before each use, so that its
// statement_timeout and cancellation apply to the plan and its lock waits.
type stmtContext struct{ context.Context }

// noticeSink sends a cursor plan's notices to the statement running it.
type noticeSink struct{ w pgwire.ResultWriter }

func (n *noticeSink) RowDescription([]pgwire.FieldDesc) error { return nil }
func (n *noticeSink) DataRow([][]byte) error                  { return nil }
func (n *noticeSink) CommandComplete(string) error            { return nil }
func (n *noticeSink) EmptyQuery() error                       { return nil }
func (n *noticeSink) Notice(e *pgerr.Error) error {
	if n.w != nil {
		return n.w.Notice(e)
	}
	return nil
}

// cursorSet is the session's cursors by name.
type cursorSet struct {
	byName map[string]*cursor
}

func (cs *cursorSet) get(name string) *cursor {
	return cs.byName[name]
}

func (cs *cursorSet) add(cur *cursor) {
	if cs.byName == nil {
		cs.byName = map[string]*cursor{}
	}
	cs.byName[cur.name] = cur
}

func (cs *cursorSet) drop(cur *cursor) {
	cur.src.closePlan()
	delete(cs.byName, cur.name)
}

// dropIf drops the cursors for which f is true.
func (cs *cursorSet) dropIf(f func(*cursor) bool) {
	for _, cur := range cs.byName {
		if f(cur) {
			cs.drop(cur)
		}
	}
}

// atSubAbort drops the cursors declared inside a subtransaction that rolled
// back: those declared deeper than level, the nesting level of the
// (sub)transaction that goes on.
func (cs *cursorSet) atSubAbort(level int) {
	cs.dropIf(func(c *cursor) bool { return c.level > level })
}

// atSubCommit hands the cursors of a released subtransaction to its parent,
// whose nesting level is level.
func (cs *cursorSet) atSubCommit(level int) {
	for _, cur := range cs.byName {
		if cur.level > level {
			cur.level = level
		}
	}
}

// sorted lists the cursors in the order they were declared.
func (cs *cursorSet) sorted() []*cursor {
	out := make([]*cursor, 0, len(cs.byName))
	for _, cur := range cs.byName {
		out = append(out, cur)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].created != out[j].created {
			return out[i].created < out[j].created
		}
		return out[i].name < out[j].name
	})
	return out
}

// subxactLevel is the nesting level of the running (sub)transaction: 1
// for the top transaction, one more per open savepoint.
func (s *Session) subxactLevel() int { return 1 + len(s.savepoints) }

func undefinedCursor(name string) error {
	return pgerr.Errorf(codeInvalidCursorName, "cursor \"%s\" does not exist", name)
}

func noScrollError() error {
	return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
		WithHint("Declare it with SCROLL option to enable backward scan.")
}

// nameTaken reports whether a cursor or a protocol portal has the name.
func (s *Session) nameTaken(name string) bool {
	if s.cursors.get(name) != nil {
		return true
	}
	return s.extended != nil && s.extended.portals[name] != nil
}

// declareCursor runs DECLARE.
func (s *Session) declareCursor(ctx context.Context, ds *pg.DeclareCursorStmt, w pgwire.ResultWriter) error {
	opts := ds.Options
	if opts&cursorOptScroll != 0 && opts&cursorOptNoScroll != 0 {
		return pgerr.Errorf(codeInvalidCursorDefinition, "cannot specify both SCROLL and NO SCROLL")
	}
	if opts&cursorOptAsensitive != 0 && opts&cursorOptInsensitive != 0 {
		return pgerr.Errorf(codeInvalidCursorDefinition, "cannot specify both ASENSITIVE and INSENSITIVE")
	}
	sel := ds.Query.GetSelectStmt()
	if sel == nil {
		return pgerr.Errorf(pgerr.SyntaxError, "DECLARE CURSOR must be a SELECT")
	}
	if err := checkCursorLocking(sel, opts); err != nil {
		return err
	}
	dc := &stmtContext{ctx}
	sink := &noticeSink{w: w}
	c := s.newCtx(dc, sink)
	c.Env.Exec = c
	c.Env.Params = s.boundParams.vals
	node, cols, err := (&exec.Planner{C: c, ParamTypes: s.boundParams.types, NoParallel: true}).PlanSelect(sel)
	if err != nil {
		return err
	}
	if ds.Portalname == "" {
		return pgerr.Errorf(codeInvalidCursorName, "invalid cursor name: must not be empty")
	}
	if opts&cursorOptHold == 0 && !s.inTransactionBlock() {
		return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if s.nameTaken(ds.Portalname) {
		return pgerr.Errorf(codeDuplicateCursor, "cursor \"%s\" already exists", ds.Portalname)
	}
	scroll := opts&cursorOptScroll != 0
	if opts&(cursorOptScroll|cursorOptNoScroll) == 0 {
		scroll = len(sel.LockingClause) == 0 && exec.SupportsBackwardScan(node)
	}
	cur := &cursor{
		name: ds.Portalname, statement: s.queryString, created: types.TimestampFromTime(time.Now().UTC()),
		binary: opts&cursorOptBinary != 0, hold: opts&cursorOptHold != 0, scroll: scroll,
		level: s.subxactLevel(), cols: cols, atStart: true,
		src: cursorRows{c: c, ctx: dc, sink: sink, node: node, snap: s.htx.Snap, cid: s.htx.Cid, keep: scroll},
	}
	cur.src.source = exec.CursorSource(node)
	s.cursors.add(cur)
	s.keepCursorSnapshots()
	return w.CommandComplete("DECLARE CURSOR")
}

// checkCursorLocking refuses FOR UPDATE/SHARE where PostgreSQL does
// (transformDeclareCursorStmt).
func checkCursorLocking(sel *pg.SelectStmt, opts int32) error {
	if len(sel.LockingClause) == 0 {
		return nil
	}
	lc := sel.LockingClause[0].GetLockingClause()
	what := "FOR UPDATE"
	if lc != nil {
		what = lockingName(lc.Strength)
	}
	switch {
	case opts&cursorOptHold != 0:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "DECLARE CURSOR WITH HOLD ... %s is not supported", what).
			WithDetail("Holdable cursors must be READ ONLY.")
	case opts&cursorOptScroll != 0:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "DECLARE SCROLL CURSOR ... %s is not supported", what).
			WithDetail("Scrollable cursors must be READ ONLY.")
	case opts&cursorOptInsensitive != 0:
		return pgerr.Errorf(codeInvalidCursorDefinition, "DECLARE INSENSITIVE CURSOR ... %s is not valid", what).
			WithDetail("Insensitive cursors must be READ ONLY.")
	}
	return nil
}

func lockingName(s pg.LockClauseStrength) string {
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

// fetchStmt runs FETCH and MOVE.
func (s *Session) fetchStmt(ctx context.Context, fs *pg.FetchStmt, w pgwire.ResultWriter) error {
	cur := s.cursors.get(fs.Portalname)
	if cur == nil {
		return undefinedCursor(fs.Portalname)
	}
	if cur.failed {
		return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", cur.name)
	}
	var emit func(exec.Row) error
	if !fs.Ismove {
		// As exec_simple_query: a BINARY cursor's rows go out in binary,
		// unless the extended protocol chose the formats.
		formats := make([]int16, len(cur.cols))
		if _, extended := w.(*captureWriter); cur.binary && !extended {
			for i := range formats {
				formats[i] = 1
			}
		}
		if err := w.RowDescription(fieldDescs(cur.cols, formats)); err != nil {
			return err
		}
		emit = s.rowSender(cur.cols, formats, w)
	}
	n, err := s.cursorFetch(ctx, cur, fs.Direction, fs.HowMany, fs.Ismove, emit)
	if err != nil {
		cur.failed = true
		return err
	}
	tag := "FETCH "
	if fs.Ismove {
		tag = "MOVE "
	}
	return w.CommandComplete(tag + strconv.FormatInt(n, 10))
}

// rowSender encodes rows in the given formats and sends them.
func (s *Session) rowSender(cols []exec.Column, formats []int16, w pgwire.ResultWriter) func(exec.Row) error {
	st := s.typeSettings()
	vals := make([][]byte, len(cols))
	var buf []byte
	return func(row exec.Row) error {
		buf = encodeRow(st, buf[:0], vals, cols, formats, row)
		return w.DataRow(vals)
	}
}

// closeCursorStmt runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursorStmt(cs *pg.ClosePortalStmt, w pgwire.ResultWriter) error {
	if cs.Portalname == "" {
		s.cursors.dropIf(func(*cursor) bool { return true })
		// Protocol portals go too, but not one that is running (the one
		// executing this CLOSE ALL).
		s.dropPortals(func(p *portal) bool { return p.w != nil })
		s.keepCursorSnapshots()
		return w.CommandComplete("CLOSE CURSOR ALL")
	}
	if cur := s.cursors.get(cs.Portalname); cur != nil {
		s.cursors.drop(cur)
		s.keepCursorSnapshots()
		return w.CommandComplete("CLOSE CURSOR")
	}
	if s.extended != nil {
		if p := s.extended.portals[cs.Portalname]; p != nil {
			if p.w != nil {
				return pgerr.Errorf(codeInvalidCursorState, "cannot drop active portal \"%s\"", cs.Portalname)
			}
			p.close()
			delete(s.extended.portals, cs.Portalname)
			return w.CommandComplete("CLOSE CURSOR")
		}
	}
	return undefinedCursor(cs.Portalname)
}

// executeCursor runs Execute on a portal that is a cursor: the next
// maxRows rows (0: all), as PortalRun does for a cursor's portal.
func (s *Session) executeCursor(ctx context.Context, cur *cursor, maxRows int, w pgwire.ResultWriter) (bool, error) {
	if cur.failed {
		return false, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", cur.name)
	}
	count := int64(maxRows)
	if count <= 0 {
		count = fetchAll
	}
	var n int64
	err := s.withStatement(ctx, func(ctx context.Context) error {
		var err error
		n, err = s.runSelect(ctx, cur, true, count, s.rowSender(cur.cols, make([]int16, len(cur.cols)), w))
		return err
	})
	if err != nil {
		cur.failed = true
		return false, err
	}
	if !cur.atEnd {
		return true, nil
	}
	return false, w.CommandComplete("SELECT " + strconv.FormatInt(n, 10))
}

// cursorFetch moves the cursor as FETCH or MOVE direction count says and
// returns the number of rows fetched or skipped (DoPortalRunFetch); emit
// receives the rows a FETCH returns (nil for MOVE).
func (s *Session) cursorFetch(ctx context.Context, cur *cursor, dir pg.FetchDirection, count int64, move bool, emit func(exec.Row) error) (int64, error) {
	switch dir {
	case pg.FetchDirection_FETCH_FORWARD:
		if count < 0 {
			dir, count = pg.FetchDirection_FETCH_BACKWARD, -count
		}
	case pg.FetchDirection_FETCH_BACKWARD:
		if count < 0 {
			dir, count = pg.FetchDirection_FETCH_FORWARD, -count
		}
	case pg.FetchDirection_FETCH_ABSOLUTE:
		return s.fetchAbsolute(ctx, cur, count, emit)
	case pg.FetchDirection_FETCH_RELATIVE:
		if count != 0 {
			return s.fetchRelative(ctx, cur, count, emit)
		}
		dir = pg.FetchDirection_FETCH_FORWARD // RELATIVE 0 is FORWARD 0
	}
	forward := dir == pg.FetchDirection_FETCH_FORWARD
	if count == 0 {
		// FETCH 0 returns the current row again, if there is one.
		onRow := !cur.atStart && !cur.atEnd
		if move {
			if onRow {
				return 1, nil
			}
			return 0, nil
		}
		if onRow {
			if _, err := s.runSelect(ctx, cur, false, 1, nil); err != nil {
				return 0, err
			}
			count, forward = 1, true
		}
	}
	if !forward && count == fetchAll && move {
		// MOVE BACKWARD ALL is a rewind.
		n := cur.pos
		if n > 0 && !cur.atEnd {
			n--
		}
		return n, cur.rewind()
	}
	return s.runSelect(ctx, cur, forward, count, emit)
}

// fetchAbsolute is FETCH ABSOLUTE count.
func (s *Session) fetchAbsolute(ctx context.Context, cur *cursor, count int64, emit func(exec.Row) error) (int64, error) {
	skip := func(forward bool, n int64) error {
		_, err := s.runSelect(ctx, cur, forward, n, nil)
		return err
	}
	switch {
	case count > 0:
		// Rewind and skip count-1 rows, or get there from the current
		// position when that is nearer.
		if cur.pos == math.MaxInt64 || count-1 < cur.pos/2 {
			if err := cur.rewind(); err != nil {
				return 0, err
			}
			if count > 1 {
				if err := skip(true, count-1); err != nil {
					return 0, err
				}
			}
		} else {
			pos := cur.pos
			if cur.atEnd {
				pos++ // one more step to get back from past the end
			}
			if count <= pos {
				if err := skip(false, pos-count+1); err != nil {
					return 0, err
				}
			} else if count > pos+1 {
				if err := skip(true, count-pos-1); err != nil {
					return 0, err
				}
			}
		}
		return s.runSelect(ctx, cur, true, 1, emit)
	case count < 0:
		// To the end, back abs(count)-1 rows, and the row before.
		if err := skip(true, fetchAll); err != nil {
			return 0, err
		}
		if count < -1 {
			if err := skip(false, -count-1); err != nil {
				return 0, err
			}
		}
		return s.runSelect(ctx, cur, false, 1, emit)
	}
	if err := cur.rewind(); err != nil {
		return 0, err
	}
	return s.runSelect(ctx, cur, true, 0, emit)
}

// fetchRelative is FETCH RELATIVE count, count != 0: skip abs(count)-1
// rows in its direction and return the next.
func (s *Session) fetchRelative(ctx context.Context, cur *cursor, count int64, emit func(exec.Row) error) (int64, error) {
	forward := count > 0
	if !forward {
		count = -count
	}
	if count > 1 {
		if _, err := s.runSelect(ctx, cur, forward, count-1, nil); err != nil {
			return 0, err
		}
	}
	return s.runSelect(ctx, cur, forward, 1, emit)
}

// rewind goes back before the first row (DoPortalRewind).
func (cur *cursor) rewind() error {
	if cur.atStart && !cur.atEnd {
		return nil
	}
	if !cur.scroll {
		return noScrollError()
	}
	cur.src.at = 0
	cur.atStart, cur.atEnd, cur.pos = true, false, 0
	return nil
}

// runSelect reads up to count rows (fetchAll: all) forward or backward and
// updates the portal position (PortalRunSelect).
func (s *Session) runSelect(ctx context.Context, cur *cursor, forward bool, count int64, emit func(exec.Row) error) (int64, error) {
	if !forward && !cur.scroll {
		return 0, noScrollError()
	}
	if count <= 0 || (forward && cur.atEnd) || (!forward && cur.atStart) {
		return 0, nil // no movement
	}
	var n int64
	for count == fetchAll || n < count {
		if err := ctx.Err(); err != nil {
			return n, s.interruptedError(ctx, err)
		}
		row, err := s.cursorStep(ctx, cur, forward)
		if err != nil {
			return n, err
		}
		if row == nil {
			break
		}
		n++
		if emit != nil {
			if err := emit(row); err != nil {
				return n, err
			}
		}
	}
	all := count == fetchAll || n < count
	if forward {
		if n > 0 {
			cur.atStart = false
		}
		if all {
			cur.atEnd = true
		}
		cur.pos += n
		return n, nil
	}
	if n > 0 && cur.atEnd {
		cur.atEnd = false
		cur.pos++
	}
	if all {
		cur.atStart, cur.pos = true, 0
	} else {
		cur.pos -= n
	}
	return n, nil
}

// cursorStep returns the next row in the direction, or nil at either end.
func (s *Session) cursorStep(ctx context.Context, cur *cursor, forward bool) (exec.Row, error) {
	r := &cur.src
	if !forward {
		if r.at <= 1 {
			r.at = 0
			return nil, nil
		}
		r.at--
		return r.rows[r.at-r.first-1], nil
	}
	if r.at < r.n {
		r.at++
		return r.rows[r.at-r.first-1], nil
	}
	if r.done {
		r.at = r.n + 1
		return nil, nil
	}
	row, err := s.cursorPull(ctx, cur)
	if err != nil {
		return nil, err
	}
	if row == nil {
		r.at = r.n + 1
		return nil, nil
	}
	r.at = r.n
	if !r.keep {
		// Backward moves are refused: only the current row is needed.
		r.rows, r.refs, r.first = r.rows[len(r.rows)-1:], r.refs[len(r.refs)-1:], r.n-1
	}
	return row, nil
}

// cursorPull reads the plan's next row into the kept rows, with the
// cursor's snapshot and command id; nil at the end (the plan is closed).
func (s *Session) cursorPull(ctx context.Context, cur *cursor) (exec.Row, error) {
	r := &cur.src
	if r.node == nil {
		r.done = true
		return nil, nil
	}
	saveSnap, saveCid := s.htx.Snap, s.htx.Cid
	s.htx.Snap, s.htx.Cid = r.snap, r.cid
	r.ctx.Context = ctx
	var err error
	if !r.opened {
		r.opened = true
		err = exec.Open(r.c, r.node)
	}
	var row exec.Row
	if err == nil {
		row, err = exec.Next(r.c, r.node)
	}
	s.htx.Snap, s.htx.Cid = saveSnap, saveCid
	if err != nil {
		return nil, err
	}
	if row == nil {
		r.done = true
		r.closePlan()
		s.keepCursorSnapshots()
		return nil, nil
	}
	var refs []exec.RowRef
	if r.source != nil {
		refs = r.source.Current()
	}
	r.rows = append(r.rows, row)
	r.refs = append(r.refs, refs)
	r.n++
	return row, nil
}

// closePlan ends the cursor's plan (at the end of its rows, when it is
// materialized or closed).
func (r *cursorRows) closePlan() {
	if r.node == nil {
		return
	}
	if r.opened {
		exec.Close(r.c, r.node)
	}
	r.node, r.c = nil, nil
}

// materialize reads the rest of a WITH HOLD cursor's rows at commit, while
// its transaction and snapshot still exist (PersistHoldablePortal).
func (s *Session) materialize(ctx context.Context, cur *cursor) error {
	r := &cur.src
	for !r.done {
		if err := ctx.Err(); err != nil {
			return s.interruptedError(ctx, err)
		}
		row, err := s.cursorPull(ctx, cur)
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
	}
	r.closePlan()
	r.source = nil
	cur.level = 0
	return nil
}

// keepCursorSnapshots keeps the backend's xmin at or below the oldest
// snapshot an open cursor plan still reads with, so that pruning and
// VACUUM leave the rows it may return.
func (s *Session) keepCursorSnapshots() {
	var floor xact.XID
	for _, cur := range s.cursors.byName {
		if cur.src.node == nil || cur.src.snap == nil {
			continue
		}
		if x := cur.src.snap.Xmin; floor == 0 || xact.Precedes(x, floor) {
			floor = x
		}
	}
	if floor != s.xminFloor {
		s.xminFloor = floor
		s.eng.Xact.SetXminFloor(s.proc, floor)
	}
}

// cursorsPreCommit runs just before the transaction commits: WITH HOLD
// cursors declared in it are materialized, the others are dropped.
func (s *Session) cursorsPreCommit() error {
	var hold []*cursor
	for _, cur := range s.cursors.byName {
		if cur.level == 0 {
			continue
		}
		if !cur.hold || cur.failed {
			s.cursors.drop(cur)
			continue
		}
		hold = append(hold, cur)
	}
	if len(hold) > 0 {
		err := s.withStatement(context.Background(), func(ctx context.Context) error {
			for _, cur := range hold {
				if err := s.materialize(ctx, cur); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	s.keepCursorSnapshots()
	return nil
}

// cursorsAtAbort drops the cursors the aborted transaction declared.
func (s *Session) cursorsAtAbort() {
	s.cursors.dropIf(func(c *cursor) bool { return c.level > 0 })
	s.keepCursorSnapshots()
}

// cursorsClose drops every cursor (the session ends).
func (s *Session) cursorsClose() {
	s.cursors.dropIf(func(*cursor) bool { return true })
	s.keepCursorSnapshots()
}

// CurrentOf implements exec.SessionHooks (PostgreSQL's execCurrentOf).
func (s *Session) CurrentOf(name string, rel *catalog.Relation) (page.ItemPointer, bool, error) {
	cur := s.cursors.get(name)
	if cur == nil {
		return page.ItemPointer{}, false, undefinedCursor(name)
	}
	if cur.level == 0 {
		return page.ItemPointer{}, false, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" is held from a previous transaction", name)
	}
	ref, err := cursorReference(cur, rel)
	if err != nil {
		return page.ItemPointer{}, false, err
	}
	if cur.atStart || cur.atEnd {
		return page.ItemPointer{}, false, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" is not positioned on a row", name)
	}
	refs := cur.src.refs[cur.pos-cur.src.first-1]
	if ref >= len(refs) || refs[ref].Table != rel.OID || !refs[ref].TID.Valid() {
		// Another member of the inheritance tree has the row.
		return page.ItemPointer{}, false, nil
	}
	return refs[ref].TID, true, nil
}

// cursorReference finds which of the cursor's row references can name a
// row of rel, or PostgreSQL's error when none or several can.
func cursorReference(cur *cursor, rel *catalog.Relation) (int, error) {
	src := cur.src.source
	if src == nil {
		return 0, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" is not a simply updatable scan of table \"%s\"", cur.name, rel.Name)
	}
	found, n := 0, 0
	for i, tables := range src.Tables {
		for _, t := range tables {
			if t == rel.OID {
				found, n = i, n+1
			}
		}
	}
	switch {
	case src.Locked && n == 0:
		return 0, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" does not have a FOR UPDATE/SHARE reference to table \"%s\"", cur.name, rel.Name)
	case src.Locked && n > 1:
		return 0, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" has multiple FOR UPDATE/SHARE references to table \"%s\"", cur.name, rel.Name)
	case n != 1:
		return 0, pgerr.Errorf(codeInvalidCursorState, "cursor \"%s\" is not a simply updatable scan of table \"%s\"", cur.name, rel.Name)
	}
	return found, nil
}

// Cursors implements exec.SessionHooks: pg_cursors lists the cursors and
// the protocol's portals.
func (s *Session) Cursors() []exec.CursorInfo {
	var out []exec.CursorInfo
	for _, cur := range s.cursors.sorted() {
		out = append(out, exec.CursorInfo{Name: cur.name, Statement: cur.statement, Holdable: cur.hold,
			Binary: cur.binary, Scrollable: cur.scroll, Created: cur.created})
	}
	if s.extended != nil {
		var ps []exec.CursorInfo
		for _, p := range s.extended.portals {
			ps = append(ps, exec.CursorInfo{Name: p.name, Statement: p.ps.text, Created: p.created})
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
		out = append(out, ps...)
	}
	return out
}

// dropUnnamedPortal: a simple Query runs in the unnamed portal, replacing
// the protocol's (exec_simple_query), so that one is gone afterwards.
func (s *Session) dropUnnamedPortal() {
	if s.extended == nil {
		return
	}
	if p := s.extended.portals[""]; p != nil {
		p.close()
		delete(s.extended.portals, "")
	}
}

// cursorColumns are the result columns of FETCH from the named cursor, if
// it exists (a statement's description at Parse).
func (s *Session) cursorColumns(name string) []exec.Column {
	if cur := s.cursors.get(name); cur != nil {
		return cur.cols
	}
	return nil
}
