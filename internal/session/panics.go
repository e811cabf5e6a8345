package session

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/tidal-db/tidal/internal/crit"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// recoverStatement, deferred around a statement step, turns a Go panic in
// it into the step's error: ERROR XX000 with the panic's message when
// nothing the panic unwound through can hold a page lock or a storage
// mutex (crit.Recoverable) — the caller then aborts the transaction as for
// any error, which releases its heavyweight locks — and PANIC otherwise,
// which stops the server as PostgreSQL does when it cannot clean up. The
// panic is logged with its stack either way.
func (s *Session) recoverStatement(err *error) {
	r := recover()
	if r == nil {
		return
	}
	pcs := make([]uintptr, 256)
	pcs = pcs[:runtime.Callers(1, pcs)]
	s.eng.Logf("[%d] LOG:  server process (PID %d) panicked: %v\n%s", s.BackendPID(), s.BackendPID(), r, debug.Stack())
	msg := fmt.Sprint(r)
	if ok, where := crit.Recoverable(pcs, recoverer); !ok {
		*err = &pgerr.Error{Severity: pgerr.SevPanic, Code: pgerr.InternalError, Message: msg}
		s.eng.Panic(fmt.Errorf("a panic in %s may have left shared buffers or locks held: %s", where, msg))
		return
	}
	*err = pgerr.Errorf(pgerr.InternalError, "%s", msg)
}

// recoverer is the function whose deferred recoverStatement recovers.
const recoverer = "github.com/tidal-db/tidal/internal/session.(*Session).recovering"

// recovering runs a statement step with a panic turned into its error.
func (s *Session) recovering(step func() error) (err error) {
	defer s.recoverStatement(&err)
	return step()
}

// SetBeforeStatement is for tests: f runs at the start of every simple-
// protocol statement of the server's sessions, inside the statement's
// panic recovery, so a test can make a statement panic.
func (s *Server) SetBeforeStatement(f func(text string)) { s.beforeStatement.Store(&f) }

func (s *Session) runBeforeStatement(text string) {
	if s.srv == nil {
		return
	}
	if f := s.srv.beforeStatement.Load(); f != nil {
		(*f)(text)
	}
}

// SetParallelWorkerHook is for tests: f runs at the start of every
// parallel worker of the server's parallel queries, inside the worker's
// panic recovery, so a test can make a worker panic or fail.
func (s *Server) SetParallelWorkerHook(f func()) { s.parallelWorker.Store(&f) }

func (s *Session) parallelWorkerHook() func() {
	if s.srv == nil {
		return nil
	}
	if f := s.srv.parallelWorker.Load(); f != nil {
		return *f
	}
	return nil
}
