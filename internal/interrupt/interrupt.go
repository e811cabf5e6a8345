// Package interrupt is tidal's CHECK_FOR_INTERRUPTS: how a running
// statement learns that it must stop (statement_timeout, a CancelRequest,
// pg_cancel_backend, pg_terminate_backend, the client going away), and
// the registry through which one backend signals another.
//
// A statement runs under a context whose cancel cause is a Reason. The
// backend's State watches that context and turns its cancellation into a
// flag that long loops read with Check — one atomic load when nothing is
// pending, so it can sit in every loop that may run long (PostgreSQL puts
// CHECK_FOR_INTERRUPTS in the same places: per tuple in scans and joins,
// per comparison batch in sorts, per digit loop in numeric functions).
// Code that blocks (lock waits, pg_sleep) selects on the context instead.
package interrupt

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Reason says why a statement is interrupted. It is an error so that it
// can be a context's cancel cause.
type Reason uint32

const (
	None Reason = iota
	// QueryCancel: a CancelRequest, pg_cancel_backend, or the caller's
	// own context (the embedded driver) was cancelled.
	QueryCancel
	// StatementTimeout: statement_timeout passed.
	StatementTimeout
	// ClientGone: the client's connection closed while the statement ran.
	ClientGone
	// Terminate: pg_terminate_backend or server shutdown; the session ends.
	Terminate
)

func (r Reason) Error() string {
	if e := r.Err(); e != nil {
		return e.Error()
	}
	return "no interrupt"
}

// Err returns the error a statement interrupted for r ends with, with
// PostgreSQL's SQLSTATE, severity and wording (ProcessInterrupts).
func (r Reason) Err() error {
	switch r {
	case QueryCancel:
		return pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to user request")
	case StatementTimeout:
		return pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to statement timeout")
	case ClientGone:
		return &pgerr.Error{Severity: pgerr.SevFatal, Code: connectionFailure, Message: "connection to client lost"}
	case Terminate:
		return &pgerr.Error{Severity: pgerr.SevFatal, Code: pgerr.AdminShutdown, Message: "terminating connection due to administrator command"}
	}
	return nil
}

const connectionFailure = "08006"

// ReasonOf says why ctx was cancelled: the Reason given as its cause, or
// QueryCancel for any other cancellation (a caller's deadline or cancel
// in the embedded driver). None if ctx is not done.
func ReasonOf(ctx context.Context) Reason {
	if ctx.Err() == nil {
		return None
	}
	var r Reason
	if errors.As(context.Cause(ctx), &r) && r != None {
		return r
	}
	return QueryCancel
}

// Err returns the error a statement running under ctx must end with if
// ctx was cancelled, else nil: the check for code that has a context but
// no State (VACUUM, lock waits).
func Err(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return ReasonOf(ctx).Err()
}

// Interrupted reports whether err is the way a wait or loop reports that
// ctx was cancelled (a context error, or 57014 from an older check), so
// that the statement should end with ReasonOf(ctx).Err() instead.
func Interrupted(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var r Reason
	if errors.As(err, &r) {
		return true
	}
	code := pgerr.Code(err)
	return code == "" || code == pgerr.QueryCanceled
}

// State is one backend's pending interrupt (PostgreSQL's InterruptPending
// and friends). The zero value is ready; a nil *State never reports one.
type State struct {
	pending atomic.Uint32 // a Reason

	mu       sync.Mutex
	gen      uint64 // bumped by each Watch and its release
	watching bool   // a statement is being watched
}

// Check returns the interrupt error if one is pending, else nil.
func (s *State) Check() error {
	if s == nil {
		return nil
	}
	if r := Reason(s.pending.Load()); r != None {
		return r.Err()
	}
	return nil
}

// Pending returns the pending reason (None if there is none).
func (s *State) Pending() Reason {
	if s == nil {
		return None
	}
	return Reason(s.pending.Load())
}

// Watch arms s for a statement that runs under ctx: once ctx is
// cancelled, Check reports ReasonOf(ctx). The returned release disarms it
// and clears what is pending; a late cancellation of ctx after release
// is ignored.
func (s *State) Watch(ctx context.Context) (release func()) {
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.watching = true
	s.pending.Store(uint32(None))
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		if r := ReasonOf(ctx); s.gen == gen && Reason(s.pending.Load()) < r {
			s.pending.Store(uint32(r))
		}
		s.mu.Unlock()
	})
	return func() {
		stop()
		s.mu.Lock()
		if s.gen == gen {
			s.gen++
			s.watching = false
			s.pending.Store(uint32(None))
		}
		s.mu.Unlock()
	}
}

// Raise makes r pending at once for the statement s is watching (if
// any), without waiting for its context's cancellation to be delivered:
// a backend that cancels itself must see it at its next Check.
func (s *State) Raise(r Reason) {
	s.mu.Lock()
	if s.watching && Reason(s.pending.Load()) < r {
		s.pending.Store(uint32(r))
	}
	s.mu.Unlock()
}

// Sleep waits for d or until ctx is cancelled, and then returns the
// cancellation's error (pg_sleep).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return ReasonOf(ctx).Err()
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ReasonOf(ctx).Err()
	}
}

type lockTimeoutKey struct{}

// WithLockTimeout returns ctx carrying lock_timeout: a lock wait under it
// gives up after d (0: wait as long as ctx lasts).
func WithLockTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

// LockTimeout is the lock_timeout ctx carries (0 if none).
func LockTimeout(ctx context.Context) time.Duration {
	d, _ := ctx.Value(lockTimeoutKey{}).(time.Duration)
	return d
}

// LockTimeoutError is how a lock wait that passed lock_timeout ends.
func LockTimeoutError() error {
	return pgerr.Errorf(pgerr.LockNotAvailable, "canceling statement due to lock timeout")
}

type deadlockTimeoutKey struct{}

// WithDeadlockTimeout returns ctx carrying deadlock_timeout: how long a
// lock wait lasts before it cancels a blocking autovacuum (PostgreSQL
// checks for that, as for deadlocks, once the wait is that old).
func WithDeadlockTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, deadlockTimeoutKey{}, d)
}

// DeadlockTimeout is the deadlock_timeout ctx carries, or PostgreSQL's
// default (1 s).
func DeadlockTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(deadlockTimeoutKey{}).(time.Duration); ok {
		return d
	}
	return time.Second
}
