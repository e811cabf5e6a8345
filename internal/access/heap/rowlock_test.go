package heap

import (
	"context"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// rowFixture is a one-row table committed by a transaction of its own.
func rowFixture(t *testing.T) (*testEnv, *Relation, page.ItemPointer) {
	t.Helper()
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	tx := te.begin()
	tid, err := r.Insert(nil, tx, boatRow(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, tx)
	return te, r, tid
}

func lockOK(t *testing.T, r *Relation, tx *Txn, tid page.ItemPointer, mode LockMode) {
	t.Helper()
	oc, err := r.LockTuple(context.Background(), nil, tx, tid, mode, WaitBlock, true)
	if err != nil || oc.Result != Ok {
		t.Fatalf("lock %s: %+v %v", mode, oc, err)
	}
}

// blocked runs f and reports whether it is still running after a while;
// the returned channel yields its error when it ends.
func blocked(f func() error) (bool, chan error) {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		done <- err
		return false, done
	case <-time.After(200 * time.Millisecond):
		return true, done
	}
}

func waitDone(t *testing.T, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still blocked")
	}
}

// PostgreSQL's row-lock conflict table (documentation, "Conflicting Row-Level
// Locks"): KEY SHARE conflicts only with UPDATE; SHARE with NO KEY UPDATE
// and UPDATE; NO KEY UPDATE with all but KEY SHARE; UPDATE with all.
func TestRowLockConflictTable(t *testing.T) {
	want := [4][4]bool{
		{false, false, false, true},
		{false, false, true, true},
		{false, true, true, true},
		{true, true, true, true},
	}
	for held := LockKeyShare; held <= LockExclusive; held++ {
		for req := LockKeyShare; req <= LockExclusive; req++ {
			if RowLocksConflict(held, req) != want[held][req] {
				t.Errorf("%s vs %s: conflict %v", held, req, !want[held][req])
			}
			te, r, tid := rowFixture(t)
			a, b := te.begin(), te.begin()
			lockOK(t, r, a, tid, held)
			oc, err := r.LockTuple(context.Background(), nil, b, tid, req, WaitError, true)
			if want[held][req] {
				if pgerr.Code(err) != pgerr.LockNotAvailable {
					t.Errorf("%s held, NOWAIT %s: %+v %v, want 55P03", held, req, oc, err)
				} else if err.Error() != `could not obtain lock on row in relation "t"` {
					t.Errorf("message %q", err.Error())
				}
				if oc, err := r.LockTuple(context.Background(), nil, b, tid, req, WaitSkip, true); err != nil || oc.Result != WouldBlock {
					t.Errorf("%s held, SKIP LOCKED %s: %+v %v", held, req, oc, err)
				}
			} else if err != nil || oc.Result != Ok {
				t.Errorf("%s held, %s: %+v %v", held, req, oc, err)
			}
			te.abort(a)
			te.abort(b)
		}
	}
}

// Two share lockers make a multixact; an updater waits for both.
func TestShareLockersMultixact(t *testing.T) {
	te, r, tid := rowFixture(t)
	a, b, c := te.begin(), te.begin(), te.begin()
	lockOK(t, r, a, tid, LockShare)
	lockOK(t, r, b, tid, LockShare)
	_, tup := te.item(t, r, tid)
	mask := tup.Infomask()
	if mask&XmaxIsMulti == 0 || mask&XmaxLockOnly == 0 || !shrLocked(mask) {
		t.Fatalf("infomask %#x: want IS_MULTI | LOCK_ONLY | SHR_LOCK", mask)
	}
	members, err := te.x.Multi().Members(tup.Xmax())
	if err != nil || len(members) != 2 || members[0] != (xact.MultiMember{Xid: a.Xid, Status: xact.MultiForShare}) || members[1] != (xact.MultiMember{Xid: b.Xid, Status: xact.MultiForShare}) {
		t.Fatalf("members %v %v", members, err)
	}
	// Our own lock again (or weaker) is not taken again.
	lsn := te.w.InsertPos()
	lockOK(t, r, a, tid, LockKeyShare)
	if te.w.InsertPos() != lsn {
		t.Fatal("a lock already held was logged again")
	}
	isBlocked, done := blocked(func() error {
		_, _, oc, err := r.UpdateKeys(context.Background(), nil, c, tid, boatRow(1), false, false)
		if err == nil && oc.Result != Ok {
			t.Errorf("update: %+v", oc)
		}
		return err
	})
	if !isBlocked {
		t.Fatal("update did not wait for the share lockers")
	}
	te.commit(t, a)
	select {
	case <-done:
		t.Fatal("update went ahead while a share locker was still running")
	case <-time.After(100 * time.Millisecond):
	}
	te.commit(t, b)
	waitDone(t, done)
	te.commit(t, c)
}

// An update that keeps the key goes ahead of a key-share locker, which
// stays a locker of both versions: deleting the new version waits for it.
func TestKeyShareSurvivesNonKeyUpdate(t *testing.T) {
	te, r, tid := rowFixture(t)
	fk, upd, del := te.begin(), te.begin(), te.begin()
	lockOK(t, r, fk, tid, LockKeyShare)
	ntid, _, oc, err := r.UpdateKeys(context.Background(), nil, upd, tid, boatRow(1), false, false)
	if err != nil || oc.Result != Ok {
		t.Fatalf("non-key update waited or failed: %+v %v", oc, err)
	}
	_, old := te.item(t, r, tid)
	if old.Infomask()&XmaxIsMulti == 0 || lockedOnly(old.Infomask()) || UpdateXid(te.x, old) != upd.Xid {
		t.Fatalf("old version xmax %d infomask %#x", old.Xmax(), old.Infomask())
	}
	_, nt := te.item(t, r, ntid)
	if nt.Xmax() != fk.Xid || !keyShrLocked(nt.Infomask()) || nt.Infomask()&XmaxLockOnly == 0 {
		t.Fatalf("new version xmax %d infomask %#x: want the key-share locker", nt.Xmax(), nt.Infomask())
	}
	// A key update must wait for the key-share locker.
	if oc, err := r.LockTuple(context.Background(), nil, del, tid, LockExclusive, WaitError, true); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Fatalf("FOR UPDATE NOWAIT of the old version: %+v %v", oc, err)
	}
	te.commit(t, upd)
	del.Snap = te.x.GetSnapshot(del.Proc)
	isBlocked, done := blocked(func() error {
		oc, err := r.Delete(context.Background(), nil, del, ntid)
		if err == nil && oc.Result != Ok {
			t.Errorf("delete: %+v", oc)
		}
		return err
	})
	if !isBlocked {
		t.Fatal("delete of the new version did not wait for the key-share locker")
	}
	te.commit(t, fk)
	waitDone(t, done)
	te.commit(t, del)
}

// The update xid inside a multixact decides visibility; lockers do not.
func TestMultixactXmaxVisibility(t *testing.T) {
	te, r, tid := rowFixture(t)
	fk, upd := te.begin(), te.begin()
	lockOK(t, r, fk, tid, LockKeyShare)
	before := te.reader()
	if _, _, oc, err := r.UpdateKeys(context.Background(), nil, upd, tid, boatRow(2), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	if got := scanIDs(t, r, before); len(got) != 1 || got[1] != tid {
		t.Fatalf("before the update commits: %v", got)
	}
	te.commit(t, upd)
	if got := scanIDs(t, r, before); len(got) != 1 || got[1] != tid {
		t.Fatalf("old snapshot: %v", got)
	}
	after := te.reader()
	if got := scanIDs(t, r, after); len(got) != 1 || got[2] == (page.ItemPointer{}) {
		t.Fatalf("new snapshot: %v", got)
	}
	te.commit(t, fk)
}

// Row locks and subtransactions (PostgreSQL's rules): a row locked by the
// top level and then updated in a subtransaction keeps the parent's lock
// in a multixact, so rolling the subtransaction back restores the lock;
// a row updated by a rolled-back subtransaction can be locked again.
func TestRowLocksAcrossSubtransactions(t *testing.T) {
	te, r, tid := rowFixture(t)
	a, b := te.begin(), te.begin()
	lockOK(t, r, a, tid, LockExclusive)
	te.x.BeginSubXact(a.Proc)
	sub := mustXid(te.x, a.Proc)
	a.Xid, a.Cid = sub, 1
	ntid, _, oc, err := r.UpdateKeys(context.Background(), nil, a, tid, boatRow(1), false, false)
	if err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	_, old := te.item(t, r, tid)
	members, _ := te.x.Multi().Members(old.Xmax())
	if old.Infomask()&XmaxIsMulti == 0 || len(members) != 2 || members[0].Xid != a.Proc.Xid() || members[0].Status != xact.MultiForUpdate || members[1].Xid != sub || !members[1].Status.IsUpdate() {
		t.Fatalf("old version xmax %d (%v): want the parent's FOR UPDATE and the subtransaction's update", old.Xmax(), members)
	}
	te.x.RollbackSubXact(a.Proc)
	a.Xid, a.Cid = a.Proc.Xid(), 2
	a.Snap = te.x.GetSnapshot(a.Proc)
	if got := scanIDs(t, r, a); got[1] != tid {
		t.Fatalf("after ROLLBACK TO the old version is the row again: %v", got)
	}
	if oc, err := r.LockTuple(context.Background(), nil, b, tid, LockKeyShare, WaitError, true); pgerr.Code(err) != pgerr.LockNotAvailable {
		t.Fatalf("the parent's FOR UPDATE lock is gone after ROLLBACK TO: %+v %v", oc, err)
	}
	// Our own lock is still held at FOR UPDATE strength: not re-taken.
	lsn := te.w.InsertPos()
	lockOK(t, r, a, tid, LockExclusive)
	if te.w.InsertPos() != lsn {
		t.Fatal("FOR UPDATE held through a multixact was taken again")
	}
	if _, nt := te.item(t, r, ntid); nt == nil {
		t.Fatal("aborted version vanished early")
	}
	te.commit(t, a)
	lockOK(t, r, b, tid, LockKeyShare)
	te.commit(t, b)

	// Updated by a subtransaction that rolls back: lockable again, by the
	// same transaction and then by others once it ends.
	c, d := te.begin(), te.begin()
	te.x.BeginSubXact(c.Proc)
	c.Xid = mustXid(te.x, c.Proc)
	if _, _, oc, err := r.UpdateKeys(context.Background(), nil, c, tid, boatRow(1), false, true); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	te.x.RollbackSubXact(c.Proc)
	c.Xid, c.Cid = c.Proc.Xid(), 1
	lockOK(t, r, c, tid, LockExclusive)
	if _, tup := te.item(t, r, tid); tup.Xmax() != c.Proc.Xid() || !exclLocked(tup.Infomask()) {
		t.Fatalf("xmax %d infomask %#x after locking a row our aborted subtransaction updated", tup.Xmax(), tup.Infomask())
	}
	te.commit(t, c)
	lockOK(t, r, d, tid, LockExclusive)
	te.commit(t, d)
}

// A lock upgrade by the same transaction keeps one xid (no multixact).
func TestLockUpgradeKeepsPlainXid(t *testing.T) {
	te, r, tid := rowFixture(t)
	a := te.begin()
	lockOK(t, r, a, tid, LockShare)
	lockOK(t, r, a, tid, LockExclusive)
	_, tup := te.item(t, r, tid)
	if tup.Xmax() != a.Xid || tup.Infomask()&XmaxIsMulti != 0 || !exclLocked(tup.Infomask()) || tup.Infomask2()&KeysUpdated == 0 {
		t.Fatalf("xmax %d infomask %#x/%#x: want FOR UPDATE by %d", tup.Xmax(), tup.Infomask(), tup.Infomask2(), a.Xid)
	}
	te.commit(t, a)
}

// VACUUM FREEZE replaces a multixact by its surviving updater or clears
// it, so relminmxid can move past it.
func TestFreezeMultixactXmax(t *testing.T) {
	te, r, tid := rowFixture(t)
	a, b := te.begin(), te.begin()
	lockOK(t, r, a, tid, LockShare)
	lockOK(t, r, b, tid, LockShare)
	te.commit(t, a)
	te.commit(t, b)
	horizon := te.x.OldestXmin()
	limits := FreezeLimits{Xid: horizon, Multi: te.x.OldestMulti()}
	freezePage(t, te, r, tid.Block, horizon, limits)
	_, tup := te.item(t, r, tid)
	if tup.Infomask()&XmaxInvalid == 0 || tup.Infomask()&XmaxIsMulti != 0 {
		t.Fatalf("finished lockers' multixact not cleared: xmax %d infomask %#x", tup.Xmax(), tup.Infomask())
	}

	// A running locker and a committed updater: the updater stays alone
	// once the locker is gone, as a plain xid.
	c, upd := te.begin(), te.begin()
	lockOK(t, r, c, tid, LockKeyShare)
	if _, _, oc, err := r.UpdateKeys(context.Background(), nil, upd, tid, boatRow(1), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	hold := te.reader() // keeps the old version recently dead
	te.commit(t, upd)
	te.commit(t, c)
	horizon = te.x.OldestXmin()
	freezePage(t, te, r, tid.Block, horizon, FreezeLimits{Xid: horizon, Multi: te.x.OldestMulti()})
	_, tup = te.item(t, r, tid)
	if tup.Infomask()&XmaxIsMulti != 0 || tup.Xmax() != upd.Xid {
		t.Fatalf("updater not kept alone: xmax %d infomask %#x, want %d", tup.Xmax(), tup.Infomask(), upd.Xid)
	}
	te.done(hold)
}

func freezePage(t *testing.T, te *testEnv, r *Relation, blk page.BlockNumber, horizon xact.XID, limits FreezeLimits) {
	t.Helper()
	b, err := te.pool.Read(nil, r.tag(blk), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.pool.Release(b)
	if _, err := r.VacuumScanPage(nil, b, blk, horizon, limits); err != nil {
		t.Fatal(err)
	}
}
