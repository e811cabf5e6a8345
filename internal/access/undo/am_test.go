package undo

import (
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

func openAM(t *testing.T, te *testEnv) (tableam.Relation, tableam.Format) {
	am := NewAMOver(te.log)
	rel := am.Open(nil, tableam.RelSpec{File: testRel, Name: "boat", Types: boatTypes})
	f := am.NewFormat(tableam.FormatSpec{Layout: datum.NewDeformer(boatTypes)})
	return rel, f
}

func amRow(f tableam.Format, i int, name string) tableam.Tuple {
	return f.Form([]datum.Datum{datum.Int(int64(i)), datum.Str(name), datum.Float(1)})
}

func TestAMUpdateKindsAndIndexes(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	tid, err := rel.Insert(nil, w, amRow(f, 1, "first"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Fill the first page, so that a row that grows must move.
	for i := 100; ; i++ {
		ftid, err := rel.Insert(nil, w, amRow(f, i, "filler"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ftid.Block != tid.Block {
			break
		}
	}
	te.commit(t, w)

	u := te.begin(t)
	res, err := rel.Update(bg, nil, u, tid, amRow(f, 1, "trade winds"), tableam.UpdateHint{})
	if err != nil || res.Result != tableam.Ok || res.Kind != tableam.UpdateInPlace || res.NewTID != tid {
		t.Fatalf("non-key update: %+v %v", res, err)
	}
	next(u)
	var hint tableam.UpdateHint
	hint.MarkIndexChanged(0)
	res, err = rel.Update(bg, nil, u, tid, amRow(f, 1, "key cha"), hint)
	if err != nil || res.Result != tableam.Ok || res.Kind != tableam.UpdateInPlace || res.NewTID != tid {
		t.Fatalf("key update that fits: %+v %v", res, err)
	}
	next(u)
	res, err = rel.Update(bg, nil, u, tid, amRow(f, 2, "key changed"+strings.Repeat("!", 300)), hint)
	if err != nil || res.Result != tableam.Ok || res.Kind != tableam.UpdateNewVersion || res.NewTID == tid {
		t.Fatalf("key update that does not fit: %+v %v", res, err)
	}
	next(u)
	// The old TID now holds a moved row: its index entries lead nowhere
	// for u, and LatestVisibleTID follows the move.
	if _, _, found, _ := rel.Fetch(nil, u, tid); found {
		t.Fatal("the moved row is still found at its old TID")
	}
	if lt, _ := rel.LatestVisibleTID(nil, u, tid); lt != res.NewTID {
		t.Fatalf("LatestVisibleTID %v, want %v", lt, res.NewTID)
	}
	tup, _, found, err := rel.Fetch(nil, u, res.NewTID)
	if err != nil || !found {
		t.Fatal("new version not found", err)
	}
	out := make([]datum.Datum, 3)
	if err := f.Deform(tup, out); err != nil || out[0].Int() != 2 || !strings.HasPrefix(out[1].Str(), "key changed!") {
		t.Fatalf("new version %v %v", out, err)
	}
	if !rel.InsertedByCommand(tup, &tableam.Txn{Proc: u.Proc, Xid: u.Xid, Cid: u.Cid - 1, Snap: u.Snap}) {
		t.Fatal("InsertedByCommand false for the command's own new version")
	}
	if sys := f.System(tup); sys.Xmin != u.Xid {
		t.Fatalf("xmin %d, want %d", sys.Xmin, u.Xid)
	}
	// A unique check by someone else finds the move in flight.
	o := te.begin(t)
	if st, xid, _, err := rel.CheckUnique(nil, o, res.NewTID); err != nil || st != tableam.RowInFlight || xid != u.Xid {
		t.Fatalf("CheckUnique of an in-flight insert: %v %d %v", st, xid, err)
	}
	te.commit(t, u)
	if st, _, _, _ := rel.CheckUnique(nil, o, res.NewTID); st != tableam.RowLive {
		t.Fatalf("CheckUnique after commit: %v", st)
	}
	if st, _, _, _ := rel.CheckUnique(nil, o, tid); st != tableam.RowDead {
		t.Fatalf("CheckUnique of the moved-away TID: %v", st)
	}
	te.commit(t, o)
	if dead, err := rel.IndexEntryDead(nil, tid, te.x.OldestXmin()); err != nil || !dead {
		t.Fatalf("old TID's index entry dead: %v %v", dead, err)
	}
}

func TestAMLockLatestAndScanFilter(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 20; i++ {
		tid, _ := rel.Insert(nil, w, amRow(f, i, "v0"), nil)
		tids = append(tids, tid)
	}
	te.commit(t, w)
	rc := te.begin(t) // a READ COMMITTED statement's snapshot, taken now
	a := te.begin(t)
	rel.Update(bg, nil, a, tids[3], amRow(f, 3, "by a"), tableam.UpdateHint{})
	te.commit(t, a)
	res, err := rel.Update(bg, nil, rc, tids[3], amRow(f, 3, "by rc"), tableam.UpdateHint{})
	if err != nil || res.Result != tableam.Updated || res.Ctid != tids[3] {
		t.Fatalf("update of a row changed after the snapshot: %+v %v", res, err)
	}
	oc, ltid, tup, err := rel.LockLatest(bg, nil, rc, tids[3], tableam.LockNoKeyExclusive, tableam.WaitBlock)
	if err != nil || oc.Result != tableam.Ok || ltid != tids[3] || !oc.Traversed {
		t.Fatalf("LockLatest: %+v %v %v", oc, ltid, err)
	}
	out := make([]datum.Datum, 3)
	f.Deform(tup, out)
	if out[1].Str() != "by a" {
		t.Fatalf("LockLatest returned %q", out[1].Str())
	}
	// EvalPlanQual's retry on the locked newest version goes through.
	res, err = rel.Update(bg, nil, rc, ltid, amRow(f, 3, "by rc"), tableam.UpdateHint{})
	if err != nil || res.Result != tableam.Ok || res.Kind != tableam.UpdateInPlace {
		t.Fatalf("update of the locked newest version: %+v %v", res, err)
	}
	next(rc)
	// Locked by rc: another writer is refused with NOWAIT, skipped with SKIP LOCKED.
	b := te.begin(t)
	if _, err := rel.Lock(bg, nil, b, tids[3], tableam.LockExclusive, tableam.WaitError, false); err == nil || !strings.Contains(err.Error(), "could not obtain lock on row") {
		t.Fatalf("NOWAIT: %v", err)
	}
	if oc, _ := rel.Lock(bg, nil, b, tids[3], tableam.LockExclusive, tableam.WaitSkip, false); oc.Result != tableam.WouldBlock {
		t.Fatalf("SKIP LOCKED: %+v", oc)
	}
	te.abort(t, b)
	te.commit(t, rc)

	r := te.reader()
	s, err := rel.BeginScan(nil, r, tableam.ScanOptions{Filter: func(tup tableam.Tuple) (bool, error) {
		out := make([]datum.Datum, 1)
		f.DeformUpTo(tup, out, 1)
		return out[0].Int()%2 == 0, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, _, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		n++
	}
	if n != 10 || s.Filtered() != 10 {
		t.Fatalf("scan: %d rows, %d filtered", n, s.Filtered())
	}
}

func TestVacuumReclaimsDeletedRows(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 100; i++ {
		tid, _ := rel.Insert(nil, w, amRow(f, i, "some name of a row"), nil)
		tids = append(tids, tid)
	}
	te.commit(t, w)
	d := te.begin(t)
	for i := 0; i < 50; i++ {
		rel.Delete(bg, nil, d, tids[i])
	}
	old := te.reader() // still sees the deleted rows
	te.commit(t, d)
	vac := rel.Vacuum()
	res, err := vac.VacuumBlock(nil, 0, nil, te.x.OldestXmin(), tableam.FreezeLimits{})
	// The rows nobody deleted are frozen (their insert is visible to
	// all); the deleted ones stay for the old snapshot.
	if err != nil || len(res.DeadItems) != 0 || res.LiveTuples != 100 || res.Frozen != 50 {
		t.Fatalf("with an old snapshot open: %+v %v", res, err)
	}
	te.done(old)
	res, err = vac.VacuumBlock(nil, 0, nil, te.x.OldestXmin(), tableam.FreezeLimits{})
	if err != nil || len(res.DeadItems) != 50 || res.LiveTuples != 50 {
		t.Fatalf("after: %+v %v", res, err)
	}
	before := res.FreeSpace
	free, err := vac.ReapBlock(nil, 0, nil, res.DeadItems, te.x.OldestXmin())
	if err != nil || free <= before {
		t.Fatalf("reap: free %d (before %d) %v", free, before, err)
	}
	if got := rows(t, rel.(*Relation).Table(), te.reader()); len(got) != 50 {
		t.Fatalf("%d rows after vacuum", len(got))
	}
	// The space is used again.
	w2 := te.begin(t)
	tid, err := rel.Insert(nil, w2, amRow(f, 500, "x"), nil)
	if err != nil || tid.Block != 0 {
		t.Fatalf("insert after vacuum went to %v (%v)", tid, err)
	}
	te.commit(t, w2)
}

// TestSharedRowLocks: FOR KEY SHARE and FOR SHARE are held by several
// transactions at once; a non-key update goes past KEY SHARE lockers but
// waits for SHARE; FOR UPDATE waits for every locker; a savepoint's lock
// goes with ROLLBACK TO.
func TestSharedRowLocks(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	tid, _ := rel.Insert(nil, w, amRow(f, 1, "row"), nil)
	te.commit(t, w)
	lock := func(tx *Txn, mode tableam.LockMode, wait tableam.WaitPolicy) tableam.Result {
		t.Helper()
		oc, err := rel.Lock(bg, nil, tx, tid, mode, wait, false)
		if err != nil {
			if strings.Contains(err.Error(), "could not obtain lock") {
				return -1
			}
			t.Fatal(err)
		}
		return oc.Result
	}
	a, b := te.begin(t), te.begin(t)
	if lock(a, tableam.LockKeyShare, tableam.WaitError) != tableam.Ok || lock(b, tableam.LockKeyShare, tableam.WaitError) != tableam.Ok {
		t.Fatal("two KEY SHARE locks conflict")
	}
	c := te.begin(t)
	if res, err := rel.Update(bg, nil, c, tid, amRow(f, 1, "non-key"), tableam.UpdateHint{}); err != nil || res.Result != tableam.Ok {
		t.Fatalf("a non-key update behind KEY SHARE lockers: %+v %v", res, err)
	}
	d := te.begin(t)
	if lock(d, tableam.LockExclusive, tableam.WaitError) != -1 {
		t.Fatal("FOR UPDATE did not conflict with the lockers and the updater")
	}
	if lock(d, tableam.LockKeyShare, tableam.WaitError) != tableam.Ok {
		t.Fatal("KEY SHARE conflicted with a non-key update")
	}
	te.commit(t, c)
	te.commit(t, a)
	te.commit(t, b)
	d.Snap = te.x.GetSnapshot(d.Proc) // READ COMMITTED: a new statement
	if lock(d, tableam.LockShare, tableam.WaitError) != tableam.Ok {
		t.Fatal("FOR SHARE after the others ended")
	}
	e := te.begin(t)
	done := make(chan tableam.Result, 1)
	go func() {
		res, err := rel.Update(bg, nil, e, tid, amRow(f, 1, "after d"), tableam.UpdateHint{})
		if err != nil {
			t.Error(err)
		}
		done <- res.Result
	}()
	select {
	case <-done:
		t.Fatal("a non-key update went past a FOR SHARE lock")
	case <-time.After(50 * time.Millisecond):
	}
	te.commit(t, d)
	if r := <-done; r != tableam.Ok {
		t.Fatalf("update after the SHARE locker ended: %v", r)
	}
	te.commit(t, e)

	g := te.begin(t)
	te.x.BeginSubXact(g.Proc)
	if lock(g, tableam.LockShare, tableam.WaitError) != tableam.Ok {
		t.Fatal("FOR SHARE in a savepoint")
	}
	te.x.RollbackSubXact(g.Proc)
	h := te.begin(t)
	if lock(h, tableam.LockExclusive, tableam.WaitError) != tableam.Ok {
		t.Fatal("a lock taken in a rolled-back savepoint is still held")
	}
	te.commit(t, h)
	te.commit(t, g)
}

func TestCheckStorage(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	a, _ := rel.Insert(nil, w, amRow(f, 1, "a"), nil)
	b, _ := rel.Insert(nil, w, amRow(f, 2, "b"), nil)
	te.commit(t, w)
	u := te.begin(t)
	rel.Update(bg, nil, u, a, amRow(f, 1, "a2"), tableam.UpdateHint{})
	rel.Delete(bg, nil, u, b)
	old := te.reader() // keeps u's undo from being discarded
	te.commit(t, u)
	targets, probs, err := rel.(tableam.Checker).CheckStorage(nil, f, te.x.OldestXmin())
	if err != nil || len(probs) != 0 {
		t.Fatalf("check: %v %v", probs, err)
	}
	if tg := targets[a]; tg.Kind != tableam.TargetRoot || !tg.Live || tg.Vals[1].Str() != "a2" {
		t.Fatalf("target of the updated row: %+v", tg)
	}
	if tg := targets[b]; tg.Kind != tableam.TargetRoot || !tg.Live {
		t.Fatalf("target of the row deleted after an open snapshot: %+v", tg)
	}
	// Corrupt the undo pointer of row a: the check says so.
	buf, _ := te.pool.Read(nil, rel.(*Relation).Table().tag(a.Block), nil)
	te.pool.Lock(buf, true)
	pg := te.pool.Page(buf)
	Tuple(pg.ItemBytes(a.Offset)).setURP(Tuple(pg.ItemBytes(b.Offset)).URP())
	te.pool.UnlockRelease(buf, true)
	if _, probs, _ := rel.(tableam.Checker).CheckStorage(nil, f, te.x.OldestXmin()); len(probs) == 0 {
		t.Fatal("a row pointing at another row's undo passed the check")
	}
	te.done(old)
}

// TestStateEndsWithEveryTransaction: a transaction without an xid that
// opened savepoints leaves no undo state behind.
func TestStateEndsWithEveryTransaction(t *testing.T) {
	te := newTestEnv(t, 64)
	p := te.x.NewProc()
	te.x.BeginSubXact(p)
	te.x.BeginSubXact(p)
	if _, err := te.x.Commit(nil, p, xact.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := te.log.lookup(p); st != nil {
		t.Fatalf("state left after a read-only commit: %+v", st)
	}
}

// TestEvalPlanQualRetry: READ COMMITTED's UPDATE of a row another
// transaction changed since the statement's snapshot: Updated, then the
// executor re-reads the newest version (FetchLatest) and retries on it,
// which goes through — unless yet another change committed meanwhile.
func TestEvalPlanQualRetry(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	tid, _ := rel.Insert(nil, w, amRow(f, 1, "v0"), nil)
	te.commit(t, w)
	rc := te.begin(t)
	change := func(name string) {
		a := te.begin(t)
		if res, err := rel.Update(bg, nil, a, tid, amRow(f, 1, name), tableam.UpdateHint{}); err != nil || res.Result != tableam.Ok {
			t.Fatal(res, err)
		}
		te.commit(t, a)
	}
	change("v1")
	if res, _ := rel.Update(bg, nil, rc, tid, amRow(f, 1, "rc"), tableam.UpdateHint{}); res.Result != tableam.Updated {
		t.Fatalf("first attempt: %+v", res)
	}
	change("v2") // committed after the first attempt was told about v1
	if res, _ := rel.Update(bg, nil, rc, tid, amRow(f, 1, "rc"), tableam.UpdateHint{}); res.Result != tableam.Updated {
		t.Fatalf("retry after another change: %+v", res)
	}
	latest, _, ok, err := rel.FetchLatest(nil, rc, tid)
	out := make([]datum.Datum, 3)
	f.Deform(latest, out)
	if err != nil || !ok || out[1].Str() != "v2" {
		t.Fatalf("FetchLatest: %v %v %v", out, ok, err)
	}
	if res, err := rel.Update(bg, nil, rc, tid, amRow(f, 1, "rc on v2"), tableam.UpdateHint{}); err != nil || res.Result != tableam.Ok {
		t.Fatalf("retry on the re-read version: %+v %v", res, err)
	}
	next(rc)
	if latest, _, _, _ := rel.FetchLatest(nil, rc, tid); true {
		f.Deform(latest, out)
		if out[1].Str() != "rc on v2" {
			t.Fatalf("own change not the newest: %q", out[1].Str())
		}
	}
	other := te.begin(t)
	if latest, _, _, _ := rel.FetchLatest(nil, other, tid); true {
		f.Deform(latest, out)
		if out[1].Str() != "v2" {
			t.Fatalf("another transaction's FetchLatest sees the running change: %q", out[1].Str())
		}
	}
	te.commit(t, rc)
	te.commit(t, other)
}

// TestCheckStorageAddedColumn: rows written before a column was added give
// the checker every column of the relation, the added one as its missing
// value (an index on it is checked against that), as the heap's checker.
func TestCheckStorageAddedColumn(t *testing.T) {
	te := newTestEnv(t, 64)
	rel, f := openAM(t, te)
	w := te.begin(t)
	tid, err := rel.Insert(nil, w, amRow(f, 1, "before"), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, w)
	wider := append(append([]datum.Type(nil), boatTypes...), datum.Int4)
	missing := []datum.Datum{datum.Null(), datum.Null(), datum.Null(), datum.Int(500)}
	f4 := NewAMOver(te.log).NewFormat(tableam.FormatSpec{Layout: datum.NewDeformer(wider), Missing: missing})
	targets, probs, err := rel.(tableam.Checker).CheckStorage(nil, f4, te.x.OldestXmin())
	if err != nil || len(probs) != 0 {
		t.Fatalf("check: %v %v", probs, err)
	}
	if tg := targets[tid]; len(tg.Vals) != 4 || tg.Vals[3].Int() != 500 {
		t.Fatalf("target of a row older than its last column: %+v", tg)
	}
}
