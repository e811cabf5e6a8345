package xact

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

func mustAssign(t *testing.T, m *Manager, p *Proc) XID {
	t.Helper()
	x, err := m.AssignXid(p)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// A subtransaction's xid is current until it is rolled back; a released
// one stays current and commits with the top level.
func TestSubXactCurrentAndOutcome(t *testing.T) {
	m, _, _ := newMgr(t)
	p, q := m.NewProc(), m.NewProc()
	top := mustAssign(t, m, p)
	m.BeginSubXact(p)
	if p.SubLevel() != 2 || p.CurrentXid() != InvalidXid {
		t.Fatalf("level %d current %d: a new level has no xid", p.SubLevel(), p.CurrentXid())
	}
	s1 := mustAssign(t, m, p)
	if !Precedes(top, s1) || m.TopmostXid(s1) != top {
		t.Fatalf("subxid %d of %d: parent map says %d", s1, top, m.TopmostXid(s1))
	}
	m.ReleaseSubXact(p) // s1 sub-committed into the top level
	m.BeginSubXact(p)
	s2 := mustAssign(t, m, p)
	for _, x := range []XID{top, s1, s2} {
		if !p.IsCurrentXid(x) {
			t.Fatalf("xid %d not current", x)
		}
		if m.State(x) != InProgress {
			t.Fatalf("xid %d: state %d before the end", x, m.State(x))
		}
	}
	// Another backend's snapshot lists them all as running.
	snap := m.GetSnapshot(q)
	for _, x := range []XID{top, s1, s2} {
		if !snap.XidInSnapshot(x) {
			t.Fatalf("xid %d not in another backend's snapshot", x)
		}
	}
	m.RollbackSubXact(p)
	if p.IsCurrentXid(s2) || m.State(s2) != Aborted {
		t.Fatalf("rolled-back subxid: current %v state %d", p.IsCurrentXid(s2), m.State(s2))
	}
	if p.CurrentXid() != top {
		t.Fatalf("after ROLLBACK TO writes go to %d, want the top %d", p.CurrentXid(), top)
	}
	if _, err := m.Commit(nil, p, CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	if m.State(top) != Committed || m.State(s1) != Committed || m.State(s2) != Aborted {
		t.Fatalf("after commit: top %d s1 %d s2 %d", m.State(top), m.State(s1), m.State(s2))
	}
	if p.IsCurrentXid(s1) {
		t.Fatal("a finished transaction's subxid is still current")
	}
}

// The commit record carries the live subxids, so redo alone marks them.
func TestSubXactRedo(t *testing.T) {
	m, _, dir := newMgr(t)
	walDir := filepath.Join(dir, "wal")
	p := m.NewProc()
	top := mustAssign(t, m, p)
	m.BeginSubXact(p)
	kept := mustAssign(t, m, p)
	m.ReleaseSubXact(p)
	m.BeginSubXact(p)
	gone := mustAssign(t, m, p)
	m.RollbackSubXact(p)
	if _, err := m.Commit(nil, p, CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	m2, _, _ := newMgr(t)
	r := wal.NewReader(walDir, wal.FirstLSN)
	defer r.Close()
	for {
		d, err := r.Next()
		if err != nil {
			break
		}
		if d.Rmgr == wal.RmXact {
			m2.RedoXact(d)
		}
	}
	if m2.State(top) != Committed || m2.State(kept) != Committed || m2.State(gone) != Aborted {
		t.Fatalf("replayed: top %d kept %d gone %d", m2.State(top), m2.State(kept), m2.State(gone))
	}
	if m2.NextXid() != Advance(gone) {
		t.Fatalf("next xid %d after replay, want %d", m2.NextXid(), Advance(gone))
	}
}

// Past MaxCachedSubxids a snapshot stops listing a backend's subxids and
// finds them through the parent map instead.
func TestSnapshotSubxidOverflow(t *testing.T) {
	m, _, _ := newMgr(t)
	p, q := m.NewProc(), m.NewProc()
	top := mustAssign(t, m, p)
	var subs []XID
	for i := 0; i < MaxCachedSubxids+10; i++ {
		m.BeginSubXact(p)
		subs = append(subs, mustAssign(t, m, p))
		m.ReleaseSubXact(p)
	}
	snap := m.GetSnapshot(q)
	if !snap.SubOverflowed {
		t.Fatal("snapshot not overflowed")
	}
	if len(snap.Xip) != 1 || snap.Xip[0] != top {
		t.Fatalf("overflowed snapshot lists %v, want only the top %d", snap.Xip, top)
	}
	for _, x := range subs {
		if !snap.XidInSnapshot(x) {
			t.Fatalf("subxid %d not running in an overflowed snapshot", x)
		}
	}
	other := mustAssign(t, m, q)
	if _, err := m.Commit(nil, q, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := m.GetSnapshot(q)
	if fresh.XidInSnapshot(other) {
		t.Fatal("committed top-level xid counted as running")
	}
}

// Locks taken inside a subtransaction are released by rolling it back and
// kept (until transaction end) by releasing it; session locks outlive the
// transaction.
func TestSubXactLocks(t *testing.T) {
	m, _, _ := newMgr(t)
	p, q := m.NewProc(), m.NewProc()
	ctx := context.Background()
	a, b, c := RelationTag(100), RelationTag(101), RelationTag(102)
	tryQ := func(tag LockTag) error { return m.Lock(ctx, q, tag, AccessExclusiveLock, true) }

	if err := m.Lock(ctx, p, a, AccessShareLock, false); err != nil {
		t.Fatal(err)
	}
	m.BeginSubXact(p)
	if err := m.Lock(ctx, p, b, AccessShareLock, false); err != nil {
		t.Fatal(err)
	}
	m.RollbackSubXact(p)
	if err := tryQ(b); err != nil {
		t.Fatalf("lock of a rolled-back subtransaction still held: %v", err)
	}
	m.Abort(q)
	if err := tryQ(a); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Fatalf("the top level's lock was released by the rollback: %v", err)
	}

	m.BeginSubXact(p)
	if err := m.Lock(ctx, p, c, AccessShareLock, false); err != nil {
		t.Fatal(err)
	}
	m.ReleaseSubXact(p)
	if err := tryQ(c); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Fatalf("lock of a released subtransaction was dropped: %v", err)
	}
	adv := LockTag{Kind: LockRelation, A: 999}
	if err := m.LockSession(ctx, p, adv, ExclusiveLock, false); err != nil {
		t.Fatal(err)
	}
	m.Abort(p)
	if err := tryQ(c); err != nil {
		t.Fatalf("transaction end kept a lock: %v", err)
	}
	if err := tryQ(adv); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Fatalf("transaction end dropped a session lock: %v", err)
	}
	m.Abort(q)
	if !m.UnlockSession(p, adv, ExclusiveLock) {
		t.Fatal("session lock not held")
	}
	if err := tryQ(adv); err != nil {
		t.Fatalf("unlocked session lock still held: %v", err)
	}
	m.Abort(q)
}

// A waiter on a subtransaction's rows wakes when it is rolled back, and
// waits on until the top level ends when it is released.
func TestWaitForSubxid(t *testing.T) {
	m, _, _ := newMgr(t)
	p, q := m.NewProc(), m.NewProc()
	mustAssign(t, m, p)
	m.BeginSubXact(p)
	sub := mustAssign(t, m, p)
	done := make(chan error, 1)
	go func() { done <- m.WaitForXid(context.Background(), q, sub) }()
	select {
	case err := <-done:
		t.Fatalf("wait ended while the subtransaction runs: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	m.RollbackSubXact(p)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	m.BeginSubXact(p)
	sub = mustAssign(t, m, p)
	m.ReleaseSubXact(p)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := m.WaitForXid(ctx, q, sub); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait on a released subxid ended before the top level: %v", err)
	}
	if _, err := m.Commit(nil, p, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitForXid(context.Background(), q, sub); err != nil {
		t.Fatal(err)
	}
}

func TestSubTransSpill(t *testing.T) {
	st, err := openSubTrans(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st.maxResident = 2
	for x := XID(10); x < 10+5*xidsPerSubtransPage; x += 7 {
		if err := st.SetParent(x, x-1); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.pages) > 2 {
		t.Fatalf("%d pages resident, limit 2", len(st.pages))
	}
	for x := XID(10); x < 10+5*xidsPerSubtransPage; x += 7 {
		if got := st.Parent(x); got != x-1 {
			t.Fatalf("parent of %d: %d after spilling", x, got)
		}
	}
	st.Truncate(10 + 3*xidsPerSubtransPage)
	if got := st.Parent(17); got != InvalidXid {
		t.Fatalf("truncated page still answers %d", got)
	}
}
