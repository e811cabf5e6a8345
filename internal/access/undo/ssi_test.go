package undo

import (
	"errors"
	"testing"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/xact/predicate"
)

// beginSerializable starts a SERIALIZABLE writer: its snapshot comes from
// the predicate manager, as the session's does.
func (te *testEnv) beginSerializable(t *testing.T, m *predicate.Manager) *Txn {
	t.Helper()
	p := te.x.NewProc()
	sx, snap := m.Begin(p, int32(p.ID), false)
	xid, err := te.x.AssignXid(p)
	if err != nil {
		t.Fatal(err)
	}
	return &Txn{Proc: p, Xid: xid, Snap: snap, SSI: sx}
}

func (te *testEnv) commitSerializable(t *testing.T, tx *Txn) error {
	t.Helper()
	if err := tx.SSI.PreCommit(); err != nil {
		te.abort(t, tx)
		tx.SSI.Release(false)
		return err
	}
	te.commit(t, tx)
	tx.SSI.Release(true)
	return nil
}

// TestSerializableWriteSkew: two serializable transactions each fetch one
// row and update the other in place; the fetches' tuple locks and the
// updates' conflict checks make the second commit fail with 40001.
func TestSerializableWriteSkew(t *testing.T) {
	te := newTestEnv(t, 64)
	m := predicate.NewManager(te.x, predicate.DefaultLimits)
	tb := te.log.OpenTable(testRel, "boat")
	setup := te.begin(t)
	r1, err := tb.Insert(nil, setup, boatRow(1, "one"))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := tb.Insert(nil, setup, boatRow(2, "two"))
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, setup)
	a, b := te.beginSerializable(t, m), te.beginSerializable(t, m)
	if n, ok := fetchName(t, tb, a, r1); !ok || n != "one" {
		t.Fatalf("a fetched %q %v", n, ok)
	}
	if n, ok := fetchName(t, tb, b, r2); !ok || n != "two" {
		t.Fatalf("b fetched %q %v", n, ok)
	}
	if oc, err := tb.Update(bg, nil, a, r2, boatRow(2, "two by a"), false, false); err != nil || oc.Result != Ok || !oc.InPlace {
		t.Fatalf("a's update: %+v %v", oc, err)
	}
	if oc, err := tb.Update(bg, nil, b, r1, boatRow(1, "one by b"), false, false); err != nil || oc.Result != Ok || !oc.InPlace {
		t.Fatalf("b's update: %+v %v", oc, err)
	}
	if err := te.commitSerializable(t, a); err != nil {
		t.Fatalf("a's commit: %v", err)
	}
	var pe *pgerr.Error
	if err := te.commitSerializable(t, b); !errors.As(err, &pe) || pe.Code != pgerr.SerializationFailure {
		t.Fatalf("b's commit: %v, want 40001", err)
	}
	got := rows(t, tb, te.reader())
	if got[1] != "one" || got[2] != "two by a" {
		t.Fatalf("rows after b's rollback: %v", got)
	}
}

// TestDataVersionPastLocks: the version a writer replaces is named by the
// record of the row's latest data change, not by row locks on top of it,
// and is unknown (0) once the records on the way are discarded.
func TestDataVersionPastLocks(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	tid, err := tb.Insert(nil, w, boatRow(1, "one"))
	if err != nil {
		t.Fatal(err)
	}
	hold := te.reader() // does not see the insert: keeps its record
	te.commit(t, w)
	cur, err := tb.current(nil, tid)
	if err != nil {
		t.Fatal(err)
	}
	inserted := cur.URP()
	if v := te.log.dataVersion(cur); v != inserted || v == 0 {
		t.Fatalf("after the insert: version %d, want %d", v, inserted)
	}
	l := te.begin(t)
	if oc, err := tb.LockRow(bg, nil, l, tid, tableam.LockExclusive, tableam.WaitBlock, false); err != nil || oc.Result != Ok {
		t.Fatalf("lock: %+v %v", oc, err)
	}
	if cur, err = tb.current(nil, tid); err != nil {
		t.Fatal(err)
	}
	if cur.URP() == inserted || te.log.dataVersion(cur) != inserted {
		t.Fatalf("under a row lock: urp %d, version %d, want %d", cur.URP(), te.log.dataVersion(cur), inserted)
	}
	te.commit(t, l)
	te.done(hold)
	te.log.AdvanceDiscard()
	if te.log.Discard() <= cur.URP() {
		t.Fatalf("discard point %d did not pass the lock record %d", te.log.Discard(), cur.URP())
	}
	if v := te.log.dataVersion(cur); v != 0 {
		t.Fatalf("with its records discarded: version %d, want 0", v)
	}
}
