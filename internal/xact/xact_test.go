package xact

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

func newMgr(t testing.TB) (*Manager, *wal.WAL, string) {
	t.Helper()
	dir := t.TempDir()
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.FirstLSN, 0, wal.Options{Fsync: false, FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	m, err := Open(filepath.Join(dir, "xact"), w, 3)
	if err != nil {
		t.Fatal(err)
	}
	return m, w, dir
}

func TestCLOGChunks(t *testing.T) {
	dir := t.TempDir()
	c, err := openCLOG(dir)
	if err != nil {
		t.Fatal(err)
	}
	xids := []XID{3, 4, 5, 6, 7, xidsPerChunk - 1, xidsPerChunk, xidsPerChunk + 1, 3*xidsPerChunk + 2, 0xFFFFFFFF}
	want := map[XID]Status{}
	for i, x := range xids {
		s := []Status{Committed, Aborted, InProgress}[i%3]
		c.Set(x, s)
		want[x] = s
	}
	// Neighbours in the same byte are independent.
	c.Set(5, Committed)
	want[5] = Committed
	c.Set(5, Aborted)
	want[5] = Aborted
	for x, s := range want {
		if c.Get(x) != s {
			t.Fatalf("xid %d: %d, want %d", x, c.Get(x), s)
		}
	}
	if c.Get(1000) != InProgress || c.Get(2*xidsPerChunk) != InProgress {
		t.Fatal("unset xid")
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	// 256 KiB files named by chunk in 4 hex digits, like pg_xact/0000.
	if len(names) != 4 || names[0] != "0000" || names[3] != "0FFF" {
		t.Fatalf("files %v", names)
	}
	if st, _ := os.Stat(filepath.Join(dir, "0000")); st.Size() != 256<<10 {
		t.Fatalf("chunk size %d", st.Size())
	}
	c2, err := openCLOG(dir)
	if err != nil {
		t.Fatal(err)
	}
	for x, s := range want {
		if c2.Get(x) != s {
			t.Fatalf("after reopen xid %d: %d, want %d", x, c2.Get(x), s)
		}
	}
	// Changes after the last Flush are not on disk (WAL replay restores them).
	c2.Set(8, Committed)
	if c3, _ := openCLOG(dir); c3.Get(8) != InProgress {
		t.Fatal("unflushed status on disk")
	}
	os.WriteFile(filepath.Join(dir, "0001"), []byte{1, 2, 3}, 0o600)
	if _, err := openCLOG(dir); err == nil {
		t.Fatal("short commit log file accepted")
	}
}

func TestXidInSnapshot(t *testing.T) {
	s := &Snapshot{Xmin: 10, Xmax: 20, Xip: []XID{10, 13, 17}}
	for x := XID(3); x < 25; x++ {
		want := x >= 20 || x == 10 || x == 13 || x == 17
		if s.XidInSnapshot(x) != want {
			t.Fatalf("xid %d: %v", x, !want)
		}
	}
}

// TestCommitOrdering: a snapshot taken while a transaction runs keeps
// treating it as running after it commits; later snapshots see it
// committed; the commit log and the running set agree at every step.
func TestCommitOrdering(t *testing.T) {
	m, w, _ := newMgr(t)
	a, b, c := m.NewProc(), m.NewProc(), m.NewProc()
	xa := mustXid(m, a)
	xb := mustXid(m, b)
	if xa != 3 || xb != 4 || mustXid(m, a) != xa || a.Xid() != xa {
		t.Fatal("xid assignment")
	}
	s1 := m.GetSnapshot(c)
	if s1.Xmin != 3 || s1.Xmax != 5 || len(s1.Xip) != 2 || s1.Own != 0 {
		t.Fatalf("snapshot %+v", s1)
	}
	sa := m.GetSnapshot(a)
	if sa.Own != xa || len(sa.Xip) != 1 || sa.Xip[0] != xb || sa.XidInSnapshot(xa) {
		t.Fatalf("own snapshot %+v", sa)
	}
	if m.State(xa) != InProgress || !m.IsRunning(xa) {
		t.Fatal("running")
	}
	if m.OldestXmin() != 3 {
		t.Fatalf("oldest xmin %d", m.OldestXmin())
	}
	before := w.InsertPos()
	end, err := m.Commit(nil, a, CommitOptions{Sync: true, DropRels: []uint32{16384, 16390}})
	if err != nil {
		t.Fatal(err)
	}
	if w.FlushedLSN() < end {
		t.Fatal("synchronous commit not flushed")
	}
	d, err := wal.ReadAt(filepath.Join(filepath.Dir(m.clog.dir), "wal"), before)
	if err != nil || d.Rmgr != wal.RmXact || d.Info != InfoCommit || d.Xid != xa {
		t.Fatalf("commit record %+v %v", d, err)
	}
	if rels := DecodeRels(d.Main); len(rels) != 2 || rels[1] != 16390 {
		t.Fatalf("rels %v", rels)
	}
	if a.Xid() != InvalidXid || m.IsRunning(xa) || m.State(xa) != Committed || !m.DidCommit(xa) {
		t.Fatal("after commit")
	}
	if !s1.XidInSnapshot(xa) {
		t.Fatal("old snapshot sees the commit")
	}
	s2 := m.GetSnapshot(c)
	if s2.XidInSnapshot(xa) || !s2.XidInSnapshot(xb) || s2.Xmin != xb {
		t.Fatalf("new snapshot %+v", s2)
	}
	m.Abort(b)
	if m.State(xb) != Aborted || m.IsRunning(xb) {
		t.Fatal("abort")
	}
	// A transaction that was running at a crash (never recorded) is
	// aborted; special xids are as PostgreSQL's.
	if m.State(1000) != Aborted || m.State(BootstrapXid) != Committed || m.State(FrozenXid) != Committed || m.State(InvalidXid) != Aborted {
		t.Fatal("special states")
	}
	// A transaction that never wrote commits without a record.
	pos := w.InsertPos()
	if _, err := m.Commit(nil, c, CommitOptions{Sync: true}); err != nil || w.InsertPos() != pos {
		t.Fatal("read-only commit wrote WAL")
	}
	m.ResetXmin(c)
	if m.OldestXmin() != m.NextXid() {
		t.Fatalf("horizon %d with nothing running, next %d", m.OldestXmin(), m.NextXid())
	}
}

// TestRedoXact: commit and abort records rebuild the commit log and push
// nextXid past every replayed xid.
func TestRedoXact(t *testing.T) {
	m, _, dir := newMgr(t)
	p := m.NewProc()
	x1 := mustXid(m, p)
	m.Commit(nil, p, CommitOptions{Sync: true})
	x2 := mustXid(m, p)
	m.Abort(p)
	m.wal.Flush(m.wal.InsertPos())
	m2, err := Open(filepath.Join(dir, "xact2"), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := wal.NewReader(filepath.Join(dir, "wal"), wal.FirstLSN)
	defer r.Close()
	for {
		d, err := r.Next()
		if err != nil {
			break
		}
		m2.RedoXact(d)
	}
	if m2.State(x1) != Committed || m2.State(x2) != Aborted || m2.NextXid() != x2+1 {
		t.Fatalf("after redo: %d %d next %d", m2.State(x1), m2.State(x2), m2.NextXid())
	}
}

// TestWaitForXid: a waiter sleeps until the transaction ends and then sees
// its final state; waiting on a finished xid returns at once.
func TestWaitForXid(t *testing.T) {
	m, _, _ := newMgr(t)
	a, b := m.NewProc(), m.NewProc()
	xa := mustXid(m, a)
	done := make(chan Status, 1)
	go func() {
		if err := m.WaitForXid(context.Background(), b, xa); err != nil {
			t.Error(err)
		}
		done <- m.State(xa)
	}()
	select {
	case <-done:
		t.Fatal("did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	m.Commit(nil, a, CommitOptions{})
	select {
	case s := <-done:
		if s != Committed {
			t.Fatalf("woke to state %d", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not woken")
	}
	if err := m.WaitForXid(context.Background(), b, xa); err != nil {
		t.Fatal(err)
	}
	// The waiter holds nothing afterwards.
	if len(b.held) != 0 {
		t.Fatalf("waiter still holds %v", b.held)
	}
	// Two transactions waiting for each other: one gets 40P01.
	xa = mustXid(m, a)
	xb := mustXid(m, b)
	errA := make(chan error, 1)
	go func() { errA <- m.WaitForXid(context.Background(), a, xb) }()
	waitQueued(t, m, XactLockTag(xb), 1)
	err := m.WaitForXid(context.Background(), b, xa)
	if pgerr.Code(err) != pgerr.DeadlockDetected {
		t.Fatalf("b: %v", err)
	}
	m.Abort(b) // the victim rolls back; a wakes
	if err := <-errA; err != nil {
		t.Fatal(err)
	}
	m.Commit(nil, a, CommitOptions{})
}

// waitQueued waits until n requests are queued on tag.
func waitQueued(t testing.TB, m *Manager, tag LockTag, n int) {
	t.Helper()
	for i := 0; i < 5000; i++ {
		m.mu.Lock()
		st := m.locks.locks[tag]
		q := 0
		if st != nil {
			q = len(st.waiters)
		}
		m.mu.Unlock()
		if q >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d waiters never queued on %v", n, tag)
}

func mustXid(m interface {
	AssignXid(*Proc) (XID, error)
}, p *Proc) XID {
	x, err := m.AssignXid(p)
	if err != nil {
		panic(err)
	}
	return x
}
