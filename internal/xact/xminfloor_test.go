package xact

import "testing"

// TestXminFloor: a backend without an xid that keeps an old snapshot (a
// cursor's) holds the pruning horizon at that snapshot's xmin while it
// takes newer snapshots and resets its xmin between statements.
func TestXminFloor(t *testing.T) {
	m, _, _ := newMgr(t)
	writer, reader := m.NewProc(), m.NewProc()
	x := mustXid(m, writer)
	old := m.GetSnapshot(reader) // sees x running
	m.SetXminFloor(reader, old.Xmin)
	if _, err := m.Commit(nil, writer, CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	m.ResetXmin(reader)
	if h := m.OldestXmin(); h != x {
		t.Fatalf("horizon %d after ResetXmin, want the kept snapshot's xmin %d", h, x)
	}
	if s := m.GetSnapshot(reader); s.Xmin == x || m.OldestXmin() != x {
		t.Fatalf("new snapshot xmin %d, horizon %d: want a newer snapshot and the horizon kept at %d", s.Xmin, m.OldestXmin(), x)
	}
	m.SetXminFloor(reader, 0)
	m.ResetXmin(reader)
	if h := m.OldestXmin(); h != m.NextXid() {
		t.Fatalf("horizon %d once the floor is gone, want %d", h, m.NextXid())
	}
}
