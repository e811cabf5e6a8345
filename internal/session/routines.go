package session

// What routine bodies need of the session (exec.RoutineSession): the
// snapshot a VOLATILE routine's statement runs with, and utility
// statements of a body (DECLARE CURSOR, CREATE TABLE, SET, …).

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

var _ exec.RoutineSession = (*Session)(nil)

// nextCommand is CommandCounterIncrement between statements: the next
// statement's command id is past every one used so far, including those
// of routines' statements (catalog.Txn.CommandHigh).
func (s *Session) nextCommand() {
	s.htx.Cid = max(s.htx.Cid, s.ctx.CommandHigh) + 1
	s.ctx.CommandHigh = s.htx.Cid
}

// RoutineSnapshot implements exec.RoutineSession: READ COMMITTED takes a
// new snapshot (GetTransactionSnapshot), REPEATABLE READ keeps the
// transaction's. While the routine runs, the backend's xmin may not pass
// the snapshot of the statement that called it (which still reads):
// the xmin floor holds it until done.
func (s *Session) RoutineSnapshot() (*xact.Snapshot, func()) {
	if s.usesTxSnapshot() && s.snapshot != nil {
		snap := *s.snapshot
		snap.Own = s.htx.Xid
		return &snap, func() {}
	}
	prev := s.routineFloor
	floor := prev
	if floor == 0 {
		floor = s.xminFloor
	}
	if outer := s.htx.Snap; outer != nil && outer.Xmin != xact.InvalidXid && (floor == 0 || xact.Precedes(outer.Xmin, floor)) {
		floor = outer.Xmin
	}
	s.routineFloor = floor
	s.eng.Xact.SetXminFloor(s.proc, floor)
	snap := s.eng.Xact.GetSnapshot(s.proc)
	return snap, func() {
		s.routineFloor = prev
		f := prev
		if f == 0 {
			f = s.xminFloor
		}
		s.eng.Xact.SetXminFloor(s.proc, f)
	}
}

// RunUtility implements exec.RoutineSession: a utility statement of a
// routine body runs as the client's would, with the routine's arguments
// as its parameters ($1 of a DECLARE's query) and the body as its query
// text (pg_cursors.statement); its notices reach the client.
func (s *Session) RunUtility(c *exec.Ctx, stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type) error {
	if err := s.checkReadOnlyInRoutine(stmt); err != nil {
		return err
	}
	// Not a top-level statement (PostgreSQL's isTopLevel false): it may
	// run as inside a transaction block (DECLARE, SET LOCAL without a
	// warning), as the implicit block of a multi-statement message does.
	saveParams, saveText, saveMulti := s.boundParams, s.queryString, s.multiStatement
	s.boundParams = boundParams{vals: params, types: paramTypes}
	s.queryString, s.multiStatement = source, true
	defer func() { s.boundParams, s.queryString, s.multiStatement = saveParams, saveText, saveMulti }()
	return s.execute(c.Context, stmt, source, &routineWriter{notice: c.Notice})
}

// RunUtilityRows implements exec.RowUtilitySession: RunUtility, with the
// statement's result rows (text) handed to each.
func (s *Session) RunUtilityRows(c *exec.Ctx, stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type, each func([]exec.Column, exec.Row) (bool, error)) (int64, error) {
	if err := s.checkReadOnlyInRoutine(stmt); err != nil {
		return 0, err
	}
	saveParams, saveText, saveMulti := s.boundParams, s.queryString, s.multiStatement
	s.boundParams = boundParams{vals: params, types: paramTypes}
	s.queryString, s.multiStatement = source, true
	defer func() { s.boundParams, s.queryString, s.multiStatement = saveParams, saveText, saveMulti }()
	w := &routineWriter{notice: c.Notice, each: each}
	err := s.execute(c.Context, stmt, source, w)
	if err == nil {
		err = w.err
	}
	return w.rows, err
}

// CheckReadOnly implements exec.RoutineSession for a routine's data
// changes: 25006 in a read-only transaction.
func (s *Session) CheckReadOnly(stmt *pg.Node) error { return s.checkReadOnlyInRoutine(stmt) }

func (s *Session) checkReadOnlyInRoutine(stmt *pg.Node) error {
	if !s.readOnly {
		return nil
	}
	snap := s.htx.Snap
	defer func() { s.htx.Snap = snap }() // the temp-table check takes a snapshot
	return s.checkReadOnly(stmt)
}

// routineWriter is where a body's utility statements write: results go
// nowhere, notices to the client.
// With each, the rows go to each as text (RunUtilityRows).
type routineWriter struct {
	notice func(*pgerr.Error)
	each   func([]exec.Column, exec.Row) (bool, error)
	cols   []exec.Column
	rows   int64
	done   bool  // each said no more
	err    error // each's error
}

func (r *routineWriter) RowDescription(fields []pgwire.FieldDesc) error {
	r.cols = r.cols[:0]
	for _, f := range fields {
		r.cols = append(r.cols, exec.Column{Name: f.Name, Type: types.Text})
	}
	return nil
}

func (r *routineWriter) DataRow(vals [][]byte) error {
	if r.each == nil || r.done || r.err != nil {
		return nil
	}
	r.rows++
	row := make(exec.Row, len(vals))
	for i, v := range vals {
		if v == nil {
			row[i] = types.Null()
		} else {
			row[i] = types.Str(string(v))
		}
	}
	more, err := r.each(r.cols, row)
	r.done, r.err = !more, err
	return nil
}
func (r *routineWriter) CommandComplete(string) error { return nil }
func (r *routineWriter) EmptyQuery() error            { return nil }
func (r *routineWriter) Notice(e *pgerr.Error) error {
	if r.notice != nil {
		r.notice(e)
	}
	return nil
}

// ApplyRoutineConfig implements exec.RoutineSession: the SET clauses
// take effect on a GUC level of their own, as SET LOCAL would; done
// closes it. After a successful call a plain SET the body made of one of
// those settings stays (PostgreSQL: it overrides the SET clause); every
// other change of the level is undone.
func (s *Session) ApplyRoutineConfig(cfg []string) (*types.Settings, func(bool), error) {
	s.gucBegin()
	depth := len(s.gucs)
	for _, item := range cfg {
		name, value, _ := strings.Cut(item, "=")
		if err := s.set(name, value, true); err != nil {
			s.gucAbortLevel()
			return nil, nil, err
		}
	}
	return s.typeSettings(), func(ok bool) {
		if len(s.gucs) != depth {
			return // the transaction ended meanwhile
		}
		if !ok {
			s.gucAbortLevel()
			return
		}
		lvl := s.gucs[depth-1]
		for k, e := range lvl {
			if e.hasSession {
				s.putSetting(k, e.session)
			} else {
				s.putSetting(k, e.prior)
				delete(lvl, k)
			}
		}
		s.gucReleaseLevel()
	}, nil
}
