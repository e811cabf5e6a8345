package undo

import (
	"errors"
	"testing"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestKeyChangeInPlaceUniqueAndVacuum: an in-place update that changes a
// key (1 → 2) while it runs makes both keys in flight for others' unique
// checks and its own view the new key's; once committed only the new key
// is live; an old snapshot still fetches the old key's version at the
// same TID. VACUUM keeps both entries while a snapshot may need the old
// version, then removes the old key's and clears the new key's mark; a
// rolled-back key change (2 → 3) leaves 3's entry removable and 2's mark
// clearable.
func TestKeyChangeInPlaceUniqueAndVacuum(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	kc := rel.(tableam.KeyedUniqueChecker)
	mc := rel.(tableam.MarkedEntryChecker)
	hasKey := func(k int64) func(tableam.Tuple) (bool, error) {
		return func(tup tableam.Tuple) (bool, error) {
			out := make([]datum.Datum, 3)
			if err := f.Deform(tup, out); err != nil {
				return false, err
			}
			return out[0].Int() == k, nil
		}
	}
	unique := func(tx *Txn, tid tableam.TID, k int64) (tableam.UniqueState, uint32) {
		t.Helper()
		st, xid, _, err := kc.CheckUniqueKey(nil, tx, tid, hasKey(k))
		if err != nil {
			t.Fatal(err)
		}
		return st, uint32(xid)
	}
	marked := func(tid tableam.TID, k int64) tableam.MarkedVerdict {
		t.Helper()
		v, err := mc.MarkedEntryState(nil, tid, te.x.OldestXmin(), hasKey(k))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	w := te.begin(t)
	tid, err := rel.Insert(nil, w, amRow(f, 1, "one"), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, w)
	old := te.reader()

	u := te.begin(t)
	var hint tableam.UpdateHint
	hint.MarkIndexChanged(0)
	res, err := rel.Update(bg, nil, u, tid, amRow(f, 2, "two"), hint)
	if err != nil || res.Kind != tableam.UpdateInPlace || res.NewTID != tid {
		t.Fatalf("key update: %+v %v", res, err)
	}
	next(u)
	o := te.begin(t)
	for _, k := range []int64{1, 2} {
		if st, xid := unique(o, tid, k); st != tableam.RowInFlight || xid != uint32(u.Xid) {
			t.Fatalf("others' unique check of key %d during the update: %v %d", k, st, xid)
		}
	}
	if st, _ := unique(o, tid, 3); st != tableam.RowDead {
		t.Fatalf("key 3: %v", st)
	}
	if st, _ := unique(u, tid, 2); st != tableam.RowLive {
		t.Fatalf("own unique check of the new key: %v", st)
	}
	if st, _ := unique(u, tid, 1); st != tableam.RowDead {
		t.Fatalf("own unique check of the old key: %v", st)
	}
	if v := marked(tid, 1); v != tableam.MarkedKeep {
		t.Fatalf("VACUUM during the update: %v", v)
	}
	te.commit(t, u)
	te.done(o)

	n := te.begin(t)
	if st, _ := unique(n, tid, 1); st != tableam.RowDead {
		t.Fatalf("old key after commit: %v", st)
	}
	if st, _ := unique(n, tid, 2); st != tableam.RowLive {
		t.Fatalf("new key after commit: %v", st)
	}
	te.done(n)
	// The old snapshot reaches the old version through the same TID.
	tup, _, found, err := rel.Fetch(nil, old, tid)
	out := make([]datum.Datum, 3)
	if err != nil || !found || f.Deform(tup, out) != nil || out[0].Int() != 1 {
		t.Fatalf("old snapshot's version: %v %v %v", out, found, err)
	}
	if v := marked(tid, 1); v != tableam.MarkedKeep {
		t.Fatalf("VACUUM while an old snapshot is open: %v", v)
	}
	te.done(old)
	if v := marked(tid, 1); v != tableam.MarkedRemove {
		t.Fatalf("VACUUM of the old key's entry: %v", v)
	}
	if v := marked(tid, 2); v != tableam.MarkedClear {
		t.Fatalf("VACUUM of the new key's entry: %v", v)
	}

	r := te.begin(t)
	if _, err := rel.Update(bg, nil, r, tid, amRow(f, 3, "three"), hint); err != nil {
		t.Fatal(err)
	}
	te.abort(t, r)
	if v := marked(tid, 3); v != tableam.MarkedRemove {
		t.Fatalf("VACUUM of a rolled-back key's entry: %v", v)
	}
	if v := marked(tid, 2); v != tableam.MarkedClear {
		t.Fatalf("VACUUM of the key a rollback restored: %v", v)
	}
	d := te.begin(t)
	if oc, err := rel.Delete(bg, nil, d, tid); err != nil || oc.Result != tableam.Ok {
		t.Fatalf("delete: %+v %v", oc, err)
	}
	te.commit(t, d)
	if v := marked(tid, 2); v != tableam.MarkedRemove {
		t.Fatalf("VACUUM of a deleted row's entry: %v", v)
	}
}

// TestKeyChangeInPlaceLockStrength: an in-place update that changes a
// unique key holds FOR UPDATE, so FOR KEY SHARE cannot be had while it
// runs; one that changes only a non-unique indexed column holds FOR NO KEY
// UPDATE, which FOR KEY SHARE does not conflict with.
func TestKeyChangeInPlaceLockStrength(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	tid, err := rel.Insert(nil, w, amRow(f, 1, "one"), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, w)
	for _, unique := range []bool{true, false} {
		u := te.begin(t)
		hint := tableam.UpdateHint{KeysUpdated: unique}
		hint.MarkIndexChanged(0)
		if res, err := rel.Update(bg, nil, u, tid, amRow(f, 2, "two"), hint); err != nil || res.Kind != tableam.UpdateInPlace {
			t.Fatalf("update: %+v %v", res, err)
		}
		o := te.begin(t)
		oc, err := rel.Lock(bg, nil, o, tid, tableam.LockKeyShare, tableam.WaitError, false)
		if unique {
			var pe *pgerr.Error
			if !errors.As(err, &pe) || pe.Code != pgerr.LockNotAvailable {
				t.Fatalf("FOR KEY SHARE NOWAIT during a unique key change: %+v %v", oc, err)
			}
		} else if err != nil || oc.Result != tableam.Ok {
			t.Fatalf("FOR KEY SHARE during a non-unique key change: %+v %v", oc, err)
		}
		te.abort(t, o)
		te.abort(t, u)
	}
}
