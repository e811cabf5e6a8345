package session

// CALL, DO, and the subtransactions of PL/pgSQL exception blocks
// (exec.SubTransactions).

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	// LANGUAGE plpgsql registers its handler with exec.
	_ "github.com/tidal-db/tidal/internal/sql/plpgsql"
)

var (
	_ exec.SubTransactions = (*Session)(nil)
	_ exec.RoutineCaches   = (*Session)(nil)
)

// RoutineCache implements exec.RoutineCaches: the session's compiled
// routines, which their language validates against the catalog version
// before each use.
func (s *Session) RoutineCache() map[string]any {
	if s.routineCache == nil {
		s.routineCache = map[string]any{}
	}
	return s.routineCache
}

// callStmt runs CALL: the procedure's output parameters, if any, come
// back as one row.
func (s *Session) callStmt(c *exec.Ctx, cs *pg.CallStmt, w pgwire.ResultWriter) error {
	rc, err := exec.PlanCall(c, cs)
	if err != nil {
		return err
	}
	if err := exec.CheckExecute(c, rc.Proc); err != nil {
		return err
	}
	if rc.Cols == nil {
		if err := exec.RunCall(c, rc, nil); err != nil {
			return err
		}
		return w.CommandComplete("CALL")
	}
	_, err = sendRows(s.typeSettings(), w, rc.Cols, func(emit func(exec.Row) error) error {
		return exec.RunCall(c, rc, emit)
	})
	if err != nil {
		return err
	}
	return w.CommandComplete("CALL")
}

func (s *Session) doStmt(c *exec.Ctx, ds *pg.DoStmt, w pgwire.ResultWriter) error {
	if err := exec.RunDo(c, ds); err != nil {
		return err
	}
	return w.CommandComplete("DO")
}

// BeginSubTransaction implements exec.SubTransactions: an unnamed
// savepoint (no SAVEPOINT name can refer to it) that end releases or
// rolls back. The body that began it ends it before anything else ends
// its enclosing level.
func (s *Session) BeginSubTransaction() func(commit bool) {
	s.beginSubXact("")
	depth := len(s.savepoints)
	sp := s.savepoints[depth-1]
	return func(commit bool) {
		if len(s.savepoints) != depth || s.savepoints[depth-1] != sp {
			return // the transaction ended meanwhile
		}
		if commit {
			s.portalsAtSubCommit(s.proc.SubLevel())
			s.eng.Xact.ReleaseSubXact(s.proc)
			s.gucReleaseLevel()
			s.savepoints = s.savepoints[:depth-1]
			s.atSubCommit(s.subxactLevel())
		} else {
			s.abortSubXact(sp)
			s.savepoints = s.savepoints[:depth-1]
		}
		s.syncXid()
	}
}
