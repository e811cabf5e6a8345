package session

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/interrupt"
)

// signals is how a session is interrupted: the state its long loops
// check, the running statement's cancel function, and its entry in the
// engine's backend registry (pg_backend_pid, pg_cancel_backend,
// pg_terminate_backend).
type signals struct {
	state interrupt.State

	mu          sync.Mutex
	cancel      context.CancelCauseFunc // the running statement's, or nil
	onTerminate func()                  // set by the wire layer: end the connection
	terminated  atomic.Bool
	backend     *interrupt.Backend
}

func (s *Session) registerBackend(pid int32, role uint32) {
	s.sig.backend = s.eng.Backends.Register(pid, role, s.signal)
}

func (s *Session) unregisterBackend() {
	s.eng.Backends.Unregister(s.sig.backend)
}

// BackendPID is the session's process ID: the one in BackendKeyData,
// pg_backend_pid() and pg_stat_activity.pid.
func (s *Session) BackendPID() int32 { return s.sig.backend.PID }

// OnTerminate implements pgwire.Terminable: f ends the connection, as a
// shutdown does, when pg_terminate_backend names this session.
func (s *Session) OnTerminate(f func()) {
	s.sig.mu.Lock()
	s.sig.onTerminate = f
	s.sig.mu.Unlock()
}

// signal interrupts the session: QueryCancel stops the running statement
// (if none runs it is ignored, as PostgreSQL ignores a cancel that
// arrives while it waits for a command); Terminate also ends the session.
func (s *Session) signal(r interrupt.Reason) {
	s.sig.mu.Lock()
	defer s.sig.mu.Unlock()
	if r == interrupt.Terminate {
		s.sig.terminated.Store(true)
		if s.sig.onTerminate != nil {
			s.sig.onTerminate()
		}
	}
	if s.sig.cancel != nil {
		s.sig.state.Raise(r)
		s.sig.cancel(r)
	}
}

// statementContext sets a statement step up to be interrupted: ctx's
// cancel cause is the interrupt.Reason (statement_timeout, a cancel or
// terminate signal; the wire layer's ClientGone comes from the parent),
// it carries lock_timeout for lock waits, and the session's interrupt
// state watches it. end must be called when the step is over.
func (s *Session) statementContext(parent context.Context) (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancelCause(parent)
	var timer *time.Timer
	if ms := s.intSetting("statement_timeout"); ms > 0 {
		timer = time.AfterFunc(time.Duration(ms)*time.Millisecond, func() { cancel(interrupt.StatementTimeout) })
	}
	ctx = interrupt.WithLockTimeout(ctx, time.Duration(s.intSetting("lock_timeout"))*time.Millisecond)
	ctx = interrupt.WithDeadlockTimeout(ctx, time.Duration(s.intSetting("deadlock_timeout"))*time.Millisecond)
	release := s.sig.state.Watch(ctx)
	s.sig.mu.Lock()
	s.sig.cancel = cancel
	s.sig.mu.Unlock()
	if s.sig.terminated.Load() {
		cancel(interrupt.Terminate)
	}
	return ctx, func() {
		s.sig.mu.Lock()
		s.sig.cancel = nil
		s.sig.mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
		release()
		cancel(nil)
	}
}

// interruptedError is the error a statement step that ran under ctx ends
// with: a wait or loop that noticed ctx's cancellation reports it in its
// own way (a context error, an older 57014), and the statement must end
// with the interrupt's own SQLSTATE and wording — the gravest one pending
// (a terminate that arrives after a timeout still ends the session).
func (s *Session) interruptedError(ctx context.Context, err error) error {
	if !interrupt.Interrupted(ctx, err) {
		return err
	}
	return max(interrupt.ReasonOf(ctx), s.sig.state.Pending()).Err()
}
