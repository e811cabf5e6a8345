package xact

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

func TestXidOrderWrapsAround(t *testing.T) {
	cases := []struct {
		a, b XID
		less bool
	}{
		{3, 4, true},
		{4, 3, false},
		{0xFFFFFFF0, 5, true}, // 5 is after the wrap
		{5, 0xFFFFFFF0, false},
		{3, 3 + 1<<31 - 1, true},         // the farthest future
		{3, 3 + 1<<31 + 1, false},        // past half the circle: the past
		{BootstrapXid, 0xFFFFFFF0, true}, // special ids are oldest
		{FrozenXid, 3, true},
		{0xFFFFFFF0, FrozenXid, false},
	}
	for _, c := range cases {
		if got := Precedes(c.a, c.b); got != c.less {
			t.Errorf("Precedes(%d, %d) = %v, want %v", c.a, c.b, got, c.less)
		}
	}
	if Advance(0xFFFFFFFF) != FirstNormalXid || Advance(7) != 8 {
		t.Fatal("Advance must skip the special ids on wraparound")
	}
	if Retreat(10, 20) < FirstNormalXid || !Precedes(Retreat(10, 20), 10) {
		t.Fatalf("Retreat(10, 20) = %d", Retreat(10, 20))
	}
}

func TestSnapshotAcrossWraparound(t *testing.T) {
	s := &Snapshot{Xmin: 0xFFFFFFF0, Xmax: 10, Xip: []XID{0xFFFFFFF5, 4}}
	for xid, running := range map[XID]bool{
		0xFFFFFFEF: false, // finished before xmin
		0xFFFFFFF5: true,  // in progress
		0xFFFFFFF7: false, // finished
		4:          true,  // in progress, after the wrap
		5:          false,
		10:         true, // not yet started
		20:         true,
	} {
		if got := s.XidInSnapshot(xid); got != running {
			t.Errorf("XidInSnapshot(%d) = %v, want %v", xid, got, running)
		}
	}
}

// AssignXid refuses new ids close to wraparound of the oldest relfrozenxid,
// with PostgreSQL's error, and a VACUUM that advances it lifts the limit.
func TestAssignXidStopsBeforeWraparound(t *testing.T) {
	dir := t.TempDir()
	w, err := wal.Open(dir+"/wal", wal.FirstLSN, 0, wal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	oldest := XID(1000)
	stop := oldest + wrapHorizon - stopDistance
	m, err := Open(dir+"/xact", w, stop-2)
	if err != nil {
		t.Fatal(err)
	}
	m.SetWrapLimit(oldest)
	if left := m.XidsLeft(); left != 2 {
		t.Fatalf("XidsLeft = %d, want 2", left)
	}
	for i := 0; i < 2; i++ {
		p := m.NewProc()
		if _, err := m.AssignXid(p); err != nil {
			t.Fatalf("xid %d: %v", i, err)
		}
		m.Abort(p)
	}
	p := m.NewProc()
	_, err = m.AssignXid(p)
	if pgerr.Code(err) != pgerr.ProgramLimitExceeded {
		t.Fatalf("at the stop limit: %v, want 54000", err)
	}
	m.SetWrapLimit(oldest + 10_000_000) // VACUUM advanced relfrozenxid
	if _, err := m.AssignXid(p); err != nil {
		t.Fatalf("after the limit moved: %v", err)
	}
	m.Abort(p)
}

// A committed-hint must wait for an asynchronous commit's record to be
// durable.
func TestHintSafeWaitsForAsyncCommitFlush(t *testing.T) {
	dir := t.TempDir()
	w, err := wal.Open(dir+"/wal", wal.FirstLSN, 0, wal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m, err := Open(dir+"/xact", w, FirstNormalXid)
	if err != nil {
		t.Fatal(err)
	}
	p := m.NewProc()
	x, err := m.AssignXid(p)
	if err != nil {
		t.Fatal(err)
	}
	end, err := m.Commit(nil, p, CommitOptions{Sync: false})
	if err != nil {
		t.Fatal(err)
	}
	if w.FlushedLSN() >= end {
		t.Fatalf("the commit record was already durable (flushed to %d, end %d): nothing to test", w.FlushedLSN(), end)
	}
	if m.HintSafe(x) {
		t.Fatal("hint allowed before the async commit record is durable")
	}
	if err := w.Flush(end); err != nil {
		t.Fatal(err)
	}
	if !m.HintSafe(x) {
		t.Fatal("hint refused after the flush")
	}
}
