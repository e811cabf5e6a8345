package xact

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestConflictTable checks the matrix against PostgreSQL's documented
// table ("Conflicting Lock Modes", explicit-locking.html): X marks a
// conflict; rows and columns in mode order AccessShare … AccessExclusive.
func TestConflictTable(t *testing.T) {
	pg := [8]string{
		".......X", // ACCESS SHARE
		"......XX", // ROW SHARE
		"....XXXX", // ROW EXCLUSIVE
		"...XXXXX", // SHARE UPDATE EXCLUSIVE
		"..XX.XXX", // SHARE
		"..XXXXXX", // SHARE ROW EXCLUSIVE
		".XXXXXXX", // EXCLUSIVE
		"XXXXXXXX", // ACCESS EXCLUSIVE
	}
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			a, b := LockMode(i+1), LockMode(j+1)
			if Conflicts(a, b) != (pg[i][j] == 'X') {
				t.Errorf("%v vs %v: %v", a, b, Conflicts(a, b))
			}
			if Conflicts(a, b) != Conflicts(b, a) {
				t.Errorf("asymmetric %v %v", a, b)
			}
		}
		if Conflicts(NoLock, LockMode(i+1)) {
			t.Error("NoLock conflicts")
		}
	}
	if AccessExclusiveLock.String() != "AccessExclusiveLock" || AccessExclusiveLock != 8 {
		t.Fatal("mode numbering")
	}
}

type lockEnv struct {
	t *testing.T
	m *Manager
}

// async starts a lock request and returns a channel with its result.
func (e lockEnv) async(ctx context.Context, p *Proc, tag LockTag, mode LockMode) chan error {
	ch := make(chan error, 1)
	go func() { ch <- e.m.Lock(ctx, p, tag, mode, false) }()
	return ch
}

func pending(ch chan error) bool {
	select {
	case err := <-ch:
		ch <- err
		return false
	case <-time.After(20 * time.Millisecond):
		return true
	}
}

func mustGet(t *testing.T, ch chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("lock request never finished")
		return nil
	}
}

// TestLockGrantMatrix: for every pair of modes, a second backend gets the
// lock at once iff the modes do not conflict; otherwise it waits until the
// first releases.
func TestLockGrantMatrix(t *testing.T) {
	m, _, _ := newMgr(t)
	a, b := m.NewProc(), m.NewProc()
	tag := RelationTag(16384)
	for i := AccessShareLock; i <= AccessExclusiveLock; i++ {
		for j := AccessShareLock; j <= AccessExclusiveLock; j++ {
			if err := m.Lock(context.Background(), a, tag, i, false); err != nil {
				t.Fatal(err)
			}
			err := m.Lock(context.Background(), b, tag, j, true)
			if Conflicts(i, j) {
				if pgerr.Code(err) != pgerr.LockNotAvailable {
					t.Fatalf("%v then %v NOWAIT: %v", i, j, err)
				}
			} else if err != nil {
				t.Fatalf("%v then %v: %v", i, j, err)
			} else {
				m.Unlock(b, tag, j)
			}
			m.Unlock(a, tag, i)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.locks.locks) != 0 {
		t.Fatalf("lock table not empty: %v", m.locks.locks)
	}
}

// TestLockQueueOrder: a request that conflicts with a queued one waits
// behind it even if the holder would allow it (no starvation of the
// strong lock), and waiters are granted in queue order.
func TestLockQueueOrder(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b, c, d := m.NewProc(), m.NewProc(), m.NewProc(), m.NewProc()
	tag := RelationTag(1)
	ctx := context.Background()
	if err := m.Lock(ctx, a, tag, AccessShareLock, false); err != nil {
		t.Fatal(err)
	}
	chB := e.async(ctx, b, tag, AccessExclusiveLock)
	waitQueued(t, m, tag, 1)
	chC := e.async(ctx, c, tag, AccessShareLock) // compatible with a, but behind b
	waitQueued(t, m, tag, 2)
	if !pending(chB) || !pending(chC) {
		t.Fatal("not waiting")
	}
	// a already holds a lock on the object: it may take more without queueing.
	if err := m.Lock(ctx, a, tag, RowShareLock, true); err != nil {
		t.Fatalf("holder's second lock: %v", err)
	}
	m.Unlock(a, tag, RowShareLock)
	m.Unlock(a, tag, AccessShareLock)
	if err := mustGet(t, chB); err != nil {
		t.Fatal(err)
	}
	if !pending(chC) {
		t.Fatal("c granted while b holds AccessExclusive")
	}
	chD := e.async(ctx, d, tag, AccessShareLock)
	waitQueued(t, m, tag, 2)
	m.releaseAllForTest(b)
	// c and d (both AccessShare) are granted together.
	if err := mustGet(t, chC); err != nil {
		t.Fatal(err)
	}
	if err := mustGet(t, chD); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(c)
	m.releaseAllForTest(d)
}

func (m *Manager) releaseAllForTest(p *Proc) { m.locks.releaseAll(p) }

func TestDeadlockTwo(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b := m.NewProc(), m.NewProc()
	l1, l2 := RelationTag(1), RelationTag(2)
	ctx := context.Background()
	m.Lock(ctx, a, l1, AccessExclusiveLock, false)
	m.Lock(ctx, b, l2, AccessExclusiveLock, false)
	chA := e.async(ctx, a, l2, AccessShareLock)
	waitQueued(t, m, l2, 1)
	err := m.Lock(ctx, b, l1, AccessShareLock, false)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.DeadlockDetected || pe.Message != "deadlock detected" {
		t.Fatalf("b: %v", err)
	}
	if b.waiting != nil {
		t.Fatal("victim still marked waiting")
	}
	m.releaseAllForTest(b)
	if err := mustGet(t, chA); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(a)
}

func TestDeadlockThree(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b, c := m.NewProc(), m.NewProc(), m.NewProc()
	l1, l2, l3 := RelationTag(1), RelationTag(2), RelationTag(3)
	ctx := context.Background()
	m.Lock(ctx, a, l1, ExclusiveLock, false)
	m.Lock(ctx, b, l2, ExclusiveLock, false)
	m.Lock(ctx, c, l3, ExclusiveLock, false)
	chA := e.async(ctx, a, l2, ShareLock)
	waitQueued(t, m, l2, 1)
	chB := e.async(ctx, b, l3, ShareLock)
	waitQueued(t, m, l3, 1)
	if err := m.Lock(ctx, c, l1, ShareLock, false); pgerr.Code(err) != pgerr.DeadlockDetected {
		t.Fatalf("c: %v", err)
	}
	m.releaseAllForTest(c)
	if err := mustGet(t, chB); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(b)
	if err := mustGet(t, chA); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(a)
}

// TestDeadlockThroughQueue: a cycle that runs through a queued (not yet
// granted) request is a deadlock too. a holds l1 shared; b queues for l1
// exclusively (waits for a); c holds l2 and queues for l1 shared behind b
// (a soft edge c → b); a then asks for l2: a → c → b → a.
func TestDeadlockThroughQueue(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b, c := m.NewProc(), m.NewProc(), m.NewProc()
	l1, l2 := RelationTag(1), RelationTag(2)
	ctx := context.Background()
	m.Lock(ctx, a, l1, AccessShareLock, false)
	m.Lock(ctx, c, l2, AccessExclusiveLock, false)
	chB := e.async(ctx, b, l1, AccessExclusiveLock)
	waitQueued(t, m, l1, 1)
	chC := e.async(ctx, c, l1, AccessShareLock)
	waitQueued(t, m, l1, 2)
	if err := m.Lock(ctx, a, l2, AccessShareLock, false); pgerr.Code(err) != pgerr.DeadlockDetected {
		t.Fatalf("a: %v", err)
	}
	m.releaseAllForTest(a)
	if err := mustGet(t, chB); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(b)
	if err := mustGet(t, chC); err != nil {
		t.Fatal(err)
	}
	m.releaseAllForTest(c)
}

// TestLockCancel: a waiter whose context ends gives up with ctx.Err(),
// leaves the queue, and no longer blocks requests behind it.
func TestLockCancel(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b, c := m.NewProc(), m.NewProc(), m.NewProc()
	tag := RelationTag(7)
	m.Lock(context.Background(), a, tag, AccessShareLock, false)
	ctx, cancel := context.WithCancel(context.Background())
	chB := e.async(ctx, b, tag, AccessExclusiveLock)
	waitQueued(t, m, tag, 1)
	chC := e.async(context.Background(), c, tag, AccessShareLock)
	waitQueued(t, m, tag, 2)
	cancel()
	if err := mustGet(t, chB); !errors.Is(err, context.Canceled) {
		t.Fatalf("b: %v", err)
	}
	if err := mustGet(t, chC); err != nil { // woken when b left the queue
		t.Fatal(err)
	}
	if len(b.held) != 0 || b.waiting != nil {
		t.Fatal("cancelled waiter holds state")
	}
	// A timeout behaves the same.
	tctx, tcancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer tcancel()
	if err := m.Lock(tctx, b, tag, AccessExclusiveLock, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	m.releaseAllForTest(a)
	m.releaseAllForTest(c)
}

// TestLockStress: many backends take random locks on a few objects in
// random order, always in one transaction-like unit, under -race; every
// request ends granted, deadlocked (then the unit rolls back) or never
// hangs.
func TestLockStress(t *testing.T) {
	m, _, _ := newMgr(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	deadlocks := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			p := m.NewProc()
			for i := 0; i < 200; i++ {
				for k := 0; k < 3; k++ {
					tag := RelationTag(uint32((g*7 + i*3 + k*5) % 4))
					mode := LockMode(1 + (g+i+k)%8)
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					err := m.Lock(ctx, p, tag, mode, false)
					cancel()
					if err != nil {
						if pgerr.Code(err) != pgerr.DeadlockDetected {
							t.Error(err)
						}
						mu.Lock()
						deadlocks++
						mu.Unlock()
						break
					}
				}
				m.locks.releaseAll(p)
			}
		}(g)
	}
	wg.Wait()
	t.Logf("%d deadlocks", deadlocks)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.locks.locks) != 0 {
		t.Fatalf("%d lock entries left", len(m.locks.locks))
	}
}

// TestLockTableFull: a full lock table refuses a backend's request for a
// lock it does not hold yet with PostgreSQL's 53200 and hint, still grants
// more modes of locks already held, and has room again once locks are
// released.
func TestLockTableFull(t *testing.T) {
	m, _, _ := newMgr(t)
	m.SetLockTableSize(3)
	a, b := m.NewProc(), m.NewProc()
	ctx := context.Background()
	for oid := uint32(1); oid <= 2; oid++ {
		if err := m.Lock(ctx, a, RelationTag(oid), AccessShareLock, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Lock(ctx, b, RelationTag(1), AccessShareLock, false); err != nil {
		t.Fatal(err) // the third (backend, lock) pair fits
	}
	err := m.Lock(ctx, a, RelationTag(3), AccessShareLock, false)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory || pe.Message != "out of shared memory" ||
		pe.Hint != "You might need to increase max_locks_per_transaction." {
		t.Fatalf("fourth lock: %v", err)
	}
	if err := m.Lock(ctx, b, RelationTag(1), RowExclusiveLock, false); err != nil {
		t.Fatalf("another mode of a held lock: %v", err)
	}
	m.locks.releaseAll(b)
	if err := m.Lock(ctx, a, RelationTag(3), AccessShareLock, false); err != nil {
		t.Fatalf("after b released its locks: %v", err)
	}
	m.locks.releaseAll(a)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks.held != 0 || len(m.locks.locks) != 0 {
		t.Fatalf("table not empty: %d pairs, %v", m.locks.held, m.locks.locks)
	}
}
