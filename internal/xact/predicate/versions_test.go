package predicate

import "testing"

// TestVersionedTupleLocks: a tuple lock taken with a version number
// conflicts with the writer of that version or of an unknown one, not with
// writers of newer versions; a plain tuple lock and a page lock made by
// promotion conflict with every writer.
func TestVersionedTupleLocks(t *testing.T) {
	e := newEnv(t)
	const rel = FirstUserRel + 7
	reader := e.begin(false)
	plain := e.begin(false)
	reader.sx.LockTupleSeen(rel, 3, 1, 100)
	reader.sx.LockTupleSeen(rel, 3, 1, 90) // the same version read again keeps 100
	plain.sx.LockTuple(rel, 3, 1)
	writeSince := func(since uint64) *tx {
		w := e.begin(false)
		if _, err := e.xm.AssignXid(w.proc); err != nil {
			t.Fatal(err)
		}
		if err := w.sx.ConflictInSince(rel, 3, 1, since); err != nil {
			t.Fatal(err)
		}
		return w
	}
	edge := func(r, w *tx) bool { _, ok := r.sx.out[w.sx]; return ok }
	for _, c := range []struct {
		since      uint64
		fromReader bool
	}{{100, true}, {50, true}, {0, true}, {101, false}, {5000, false}} {
		w := writeSince(c.since)
		if got := edge(reader, w); got != c.fromReader {
			t.Errorf("writer of version %d: edge from the reader of version ≤ 100 is %v, want %v", c.since, got, c.fromReader)
		}
		if !edge(plain, w) {
			t.Errorf("writer of version %d: no edge from an unversioned tuple lock", c.since)
		}
		w.abort()
	}
	// Promotion to a page lock keeps every reader covered.
	reader.sx.LockTupleSeen(rel, 3, 2, 100)
	reader.sx.LockTupleSeen(rel, 3, 3, 100)
	if _, ok := reader.sx.locks[PageTarget(rel, 3)]; !ok || len(reader.sx.seen) != 0 {
		t.Fatalf("locks %v, versions %v after three tuples on one page", reader.sx.locks, reader.sx.seen)
	}
	if w := writeSince(5000); !edge(reader, w) {
		t.Error("a page lock made by promotion missed the writer of a newer version")
	}
}
