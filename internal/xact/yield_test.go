package xact

import (
	"context"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/interrupt"
)

// TestYieldAfterDeadlockTimeout: a request that waits behind a yielding
// holder asks it to give way once deadlock_timeout has passed — not
// before, and not a holder that does not yield.
func TestYieldAfterDeadlockTimeout(t *testing.T) {
	m, _, _ := newMgr(t)
	holder, waiter := m.NewProc(), m.NewProc()
	tag := RelationTag(4242)
	if err := m.Lock(context.Background(), holder, tag, ShareUpdateExclusiveLock, false); err != nil {
		t.Fatal(err)
	}
	asked := make(chan LockMode, 1)
	holder.SetYield(func(_ LockTag, mode LockMode) {
		asked <- mode
		m.releaseAllForTest(holder) // the autovacuum gives up its lock
	})
	ctx := interrupt.WithDeadlockTimeout(context.Background(), 50*time.Millisecond)
	start := time.Now()
	if err := m.Lock(ctx, waiter, tag, AccessExclusiveLock, false); err != nil {
		t.Fatal(err)
	}
	if mode := <-asked; mode != AccessExclusiveLock {
		t.Fatalf("asked to yield to %v", mode)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("yielded after %v, before deadlock_timeout", waited)
	}
}
