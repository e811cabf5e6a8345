package heap

import (
	"context"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
)

func TestFormDeform(t *testing.T) {
	ts := []datum.Type{datum.Int4, datum.Text, datum.Float8, datum.Int8, datum.Boolean}
	d := NewDeformer(ts)
	rows := [][]datum.Datum{
		{datum.Int(1), datum.Str("x"), datum.Float(2.5), datum.Int(-7), datum.Bool(true)},
		{datum.Null(), datum.Str(""), datum.Null(), datum.Int(1 << 40), datum.Bool(false)},
		{datum.Int(-1), datum.Null(), datum.Float(-0.5), datum.Null(), datum.Null()},
		{datum.Int(3), datum.Str(string(make([]byte, 300))), datum.Float(1e300), datum.Int(0), datum.Bool(true)},
	}
	for i, vals := range rows {
		tup := d.Form(vals)
		// HEAP_HASVARWIDTH: some variable-width value is present (not NULL).
		hasNull, varw := false, !vals[1].IsNull()
		for _, v := range vals {
			hasNull = hasNull || v.IsNull()
		}
		// 23-byte header, null bitmap (1 byte for 5 columns), MAXALIGNed.
		if tup.Hoff() != 24 || tup.Natts() != 5 {
			t.Fatalf("row %d: hoff %d natts %d", i, tup.Hoff(), tup.Natts())
		}
		if (tup.Infomask()&HasNull != 0) != hasNull || (tup.Infomask()&HasVarWidth != 0) != varw || tup.Infomask()&XmaxInvalid == 0 {
			t.Fatalf("row %d: infomask %#x", i, tup.Infomask())
		}
		out := make([]datum.Datum, len(ts))
		if err := d.Deform(tup, out); err != nil {
			t.Fatal(err)
		}
		for j := range ts {
			if vals[j].IsNull() != out[j].IsNull() || !vals[j].IsNull() && datum.DefaultComparator(ts[j]).Compare(vals[j], out[j]) != 0 {
				t.Fatalf("row %d col %d: %v != %v", i, j, out[j], vals[j])
			}
		}
		// Columns added later (more output slots than stored) are NULL.
		wide := NewDeformer(append(ts, datum.Int4))
		out = make([]datum.Datum, 6)
		out[5] = datum.Int(9)
		if err := wide.Deform(tup, out); err != nil || !out[5].IsNull() {
			t.Fatalf("row %d: added column %v %v", i, out[5], err)
		}
	}
	// Nine columns need a two-byte bitmap: 23+2 = 25 → hoff 32.
	nine := make([]datum.Type, 9)
	vals := make([]datum.Datum, 9)
	for i := range nine {
		nine[i] = datum.Int4
		vals[i] = datum.Int(int64(i))
	}
	vals[8] = datum.Null()
	if h := Form(nine, vals).Hoff(); h != 32 {
		t.Fatalf("hoff %d", h)
	}
}

// TestBoatRowsPerPage: seed 003's rows (int4, 32-character text, float8)
// are 72-byte tuples; 107 fit on a page, as in PostgreSQL (500,000 rows
// in 4,673 pages).
func TestBoatRowsPerPage(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "boat", boatTypes, 100)
	if n := len(boatRow(1)); n != 72 {
		t.Fatalf("tuple of %d bytes", n)
	}
	tx := te.begin()
	perBlock := map[page.BlockNumber]int{}
	for i := 1; i <= 500; i++ {
		tid, err := r.Insert(nil, tx, boatRow(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		perBlock[tid.Block]++
	}
	te.commit(t, tx)
	if perBlock[0] != 107 || perBlock[1] != 107 || len(perBlock) != 5 {
		t.Fatalf("rows per block %v", perBlock)
	}
	// fillfactor 50 leaves half of each page free.
	r2 := Open(te.env, 16385, "boat50", boatTypes, 50)
	tx = te.begin()
	perBlock = map[page.BlockNumber]int{}
	for i := 1; i <= 200; i++ {
		tid, _ := r2.Insert(nil, tx, boatRow(i), nil)
		perBlock[tid.Block]++
	}
	te.commit(t, tx)
	// PostgreSQL: room while free space ≥ 72 + 4096.
	if perBlock[0] < 53 || perBlock[0] > 55 {
		t.Fatalf("fillfactor 50: %d rows on block 0", perBlock[0])
	}
	if _, err := r.Insert(nil, te.begin(), make(Tuple, 8200), nil); err == nil {
		t.Fatal("oversized tuple accepted")
	}
}

// TestCommandAndTransactionVisibility: a row is invisible to the command
// that inserted it, visible to later commands of its transaction, and to
// other transactions only after commit and only for snapshots taken after
// it; a delete by an earlier command of the same transaction (combo cid)
// hides it.
func TestCommandAndTransactionVisibility(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	tid, err := r.Insert(nil, tx, boatRow(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(scanIDs(t, r, tx)) != 0 {
		t.Fatal("visible to its own command")
	}
	tx.Cid = 1
	if len(scanIDs(t, r, tx)) != 1 {
		t.Fatal("invisible to the next command")
	}
	other := te.reader()
	if len(scanIDs(t, r, other)) != 0 {
		t.Fatal("uncommitted row visible to another transaction")
	}
	if oc, err := r.Delete(ctx, nil, tx, tid); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	_, tup := te.item(t, r, tid)
	if tup.Infomask()&ComboCid == 0 {
		t.Fatal("no combo cid for insert+delete in one transaction")
	}
	if len(scanIDs(t, r, tx)) != 1 {
		t.Fatal("deleting command sees its own delete")
	}
	// Deleting it again in the same command is SelfModified; in a later
	// one the row is gone (Invisible), as HeapTupleSatisfiesUpdate says.
	if oc, _ := r.Delete(ctx, nil, tx, tid); oc.Result != SelfModified || oc.Cmax != 1 {
		t.Fatalf("second delete: %+v", oc)
	}
	tx.Cid = 2
	if len(scanIDs(t, r, tx)) != 0 {
		t.Fatal("deleted row visible to a later command")
	}
	if oc, _ := r.Delete(ctx, nil, tx, tid); oc.Result != Invisible {
		t.Fatalf("delete by a later command: %+v", oc)
	}
	tid2, _ := r.Insert(nil, tx, boatRow(2), nil)
	te.commit(t, tx)
	if len(scanIDs(t, r, other)) != 0 {
		t.Fatal("old snapshot sees a later commit")
	}
	te.done(other)
	rd := te.reader()
	got := scanIDs(t, r, rd)
	if len(got) != 1 || got[2] != tid2 {
		t.Fatalf("after commit: %v", got)
	}
	te.done(rd)
	// An aborted delete leaves the row; an aborted insert never shows.
	tx = te.begin()
	r.Delete(ctx, nil, tx, tid2)
	r.Insert(nil, tx, boatRow(3), nil)
	te.abort(tx)
	rd = te.reader()
	if got := scanIDs(t, r, rd); len(got) != 1 || got[2] != tid2 {
		t.Fatalf("after abort: %v", got)
	}
	te.done(rd)
}

// TestConcurrentDeleteWaits: a second deleter waits for the first to end;
// after a commit it gets Deleted, after an abort it deletes.
func TestConcurrentDeleteWaits(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	tid, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	for _, commitFirst := range []bool{true, false} {
		a, b := te.begin(), te.begin()
		if oc, _ := r.Delete(ctx, nil, a, tid); oc.Result != Ok {
			if !commitFirst {
				break
			}
			t.Fatal(oc)
		}
		res := make(chan Outcome, 1)
		go func() {
			oc, err := r.Delete(ctx, nil, b, tid)
			if err != nil {
				t.Error(err)
			}
			res <- oc
		}()
		if commitFirst {
			te.commit(t, a)
			if oc := <-res; oc.Result != Deleted {
				t.Fatalf("after commit: %+v", oc)
			}
			te.abort(b)
			// The row is gone: re-insert one for the next round.
			tx := te.begin()
			tid, _ = r.Insert(nil, tx, boatRow(1), nil)
			te.commit(t, tx)
		} else {
			te.abort(a)
			if oc := <-res; oc.Result != Ok {
				t.Fatalf("after abort: %+v", oc)
			}
			te.commit(t, b)
		}
	}
}

func countInfo(recs []*wal.Decoded) map[uint8]int {
	m := map[uint8]int{}
	for _, d := range recs {
		if d.Rmgr == wal.RmHeap || d.Rmgr == wal.RmHeap2 {
			m[d.Info]++
		}
	}
	return m
}

// TestHOTUpdate: an update that fits on the page with no indexed column
// changed is heap-only: the chain stays on the page, the root TID leads to
// the newest visible version, and older snapshots still see theirs.
func TestHOTUpdate(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	root, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	old := te.reader()
	cur := root
	var tids []page.ItemPointer
	for v := 2; v <= 4; v++ {
		tx := te.begin()
		pos := te.w.InsertPos()
		var u stats.Usage
		ntid, hot, oc, err := r.Update(ctx, &u, tx, cur, boatRow(v), true)
		if err != nil || oc.Result != Ok || !hot || ntid.Block != root.Block {
			t.Fatalf("update %d: %v %v %+v %v", v, ntid, hot, oc, err)
		}
		if u.WAL.Records != 1 {
			t.Fatalf("HOT update wrote %d records", u.WAL.Records)
		}
		recs := te.walRecords(t, pos)
		if recs[0].Info != InfoHotUpdate {
			t.Fatalf("info %#x", recs[0].Info)
		}
		_, oldTup := te.item(t, r, cur)
		_, newTup := te.item(t, r, ntid)
		if !oldTup.IsHotUpdated() || !newTup.IsHeapOnly() || oldTup.Ctid() != ntid || newTup.Ctid() != ntid || oldTup.Xmax() != tx.Xid {
			t.Fatalf("chain links: old ctid %v new %v", oldTup.Ctid(), newTup.Ctid())
		}
		te.commit(t, tx)
		tids = append(tids, ntid)
		cur = ntid
	}
	rd := te.reader()
	tup, at, found, err := r.Fetch(nil, rd, root)
	if err != nil || !found || rowID(t, tup) != 4 || at != cur {
		t.Fatalf("fetch via root: %v %v %v", at, found, err)
	}
	tup, at, found, _ = r.Fetch(nil, old, root)
	if !found || rowID(t, tup) != 1 || at != root {
		t.Fatal("old snapshot lost its version")
	}
	// Fetch from the middle of the chain works too (heap-only start).
	if tup, _, found, _ := r.Fetch(nil, rd, tids[0]); !found || rowID(t, tup) != 4 {
		t.Fatal("fetch from a chain member")
	}
	if got := scanIDs(t, r, rd); len(got) != 1 || got[4] != cur {
		t.Fatalf("scan %v", got)
	}
	// A non-HOT update (indexed column changed) on the same page.
	tx = te.begin()
	ntid, hot, _, err := r.Update(ctx, nil, tx, cur, boatRow(5), false)
	if err != nil || hot || ntid.Block != root.Block {
		t.Fatal(ntid, hot, err)
	}
	_, newTup := te.item(t, r, ntid)
	_, oldTup := te.item(t, r, cur)
	if newTup.IsHeapOnly() || oldTup.IsHotUpdated() || oldTup.Infomask2()&KeysUpdated == 0 {
		t.Fatal("non-HOT update flagged as HOT")
	}
	te.commit(t, tx)
	te.done(rd)
	te.done(old)
	// FetchLatest from the root follows every link to the newest version.
	if tup, at, ok, _ := r.FetchLatest(nil, root); !ok || at != ntid || rowID(t, tup) != 5 {
		t.Fatalf("FetchLatest: %v %v", at, ok)
	}
}

// TestCrossPageUpdate: an update that does not fit on the old page writes
// exactly two records — a LOCK of the old tuple, then the UPDATE covering
// both pages — and links the versions.
func TestCrossPageUpdate(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	var tid page.ItemPointer
	for i := 1; i <= 107; i++ {
		tid, _ = r.Insert(nil, tx, boatRow(i), nil)
	}
	te.commit(t, tx)
	if tid.Block != 0 {
		t.Fatal("page 0 not full")
	}
	target := page.ItemPointer{Block: 0, Offset: 50}
	// An old snapshot keeps the old version from being pruned away by the
	// scans below (FetchLatest needs it to find the link).
	old := te.reader()
	defer te.done(old)
	tx = te.begin()
	pos := te.w.InsertPos()
	var u stats.Usage
	ntid, hot, oc, err := r.Update(ctx, &u, tx, target, boatRow(1000), true)
	if err != nil || oc.Result != Ok || hot || ntid.Block != 1 {
		t.Fatalf("%v %v %+v %v", ntid, hot, oc, err)
	}
	if u.WAL.Records != 2 {
		t.Fatalf("%d WAL records, want LOCK + UPDATE", u.WAL.Records)
	}
	recs := te.walRecords(t, pos)
	if len(recs) != 2 || recs[0].Info != InfoLock || recs[1].Info != InfoUpdate|InfoInitPage || len(recs[1].Blocks) != 2 {
		t.Fatalf("records %+v", recs)
	}
	if recs[1].Blocks[0].Tag.Block != 1 || recs[1].Blocks[1].Tag.Block != 0 {
		t.Fatal("UPDATE's blocks: new page first, then old")
	}
	_, oldTup := te.item(t, r, target)
	if oldTup.Ctid() != ntid || oldTup.Xmax() != tx.Xid || oldTup.Infomask()&XmaxLockOnly != 0 || oldTup.IsHotUpdated() {
		t.Fatalf("old version: ctid %v infomask %#x", oldTup.Ctid(), oldTup.Infomask())
	}
	te.commit(t, tx)
	rd := te.reader()
	ids := scanIDs(t, r, rd)
	if len(ids) != 107 || ids[1000] != ntid {
		t.Fatalf("scan: %d rows", len(ids))
	}
	if _, _, found, _ := r.Fetch(nil, rd, target); found {
		t.Fatal("old version visible")
	}
	te.done(rd)
	if tup, at, ok, _ := r.FetchLatest(nil, target); !ok || at != ntid || rowID(t, tup) != 1000 {
		t.Fatal("FetchLatest across pages")
	}
	// A second transaction updating the old version gets Updated with
	// the new TID (READ COMMITTED then re-fetches).
	tx = te.begin()
	_, _, oc, _ = r.Update(ctx, nil, tx, target, boatRow(2000), true)
	if oc.Result != Updated || oc.Ctid != ntid {
		t.Fatalf("%+v", oc)
	}
	te.abort(tx)
}

// TestCheckUnique classifies chains for unique-index checks.
func TestCheckUnique(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	a := te.begin()
	tid, _ := r.Insert(nil, a, boatRow(1), nil)
	b := te.begin()
	if st, xid, _ := r.CheckUnique(nil, b, tid); st != RowInFlight || xid != a.Xid {
		t.Fatalf("in-flight insert: %v %d", st, xid)
	}
	if st, _, _ := r.CheckUnique(nil, a, tid); st != RowLive {
		t.Fatal("own insert not live")
	}
	te.commit(t, a)
	if st, _, _ := r.CheckUnique(nil, b, tid); st != RowLive {
		t.Fatal("committed row not live")
	}
	c := te.begin()
	ntid, _, _, _ := r.Update(ctx, nil, c, tid, boatRow(1), true)
	if st, xid, _ := r.CheckUnique(nil, b, tid); st != RowInFlight || xid != c.Xid {
		t.Fatalf("in-flight update: %v", st)
	}
	te.commit(t, c)
	if st, _, _ := r.CheckUnique(nil, b, tid); st != RowLive {
		t.Fatal("HOT successor not found")
	}
	d := te.begin()
	r.Delete(ctx, nil, d, ntid)
	te.commit(t, d)
	if st, _, _ := r.CheckUnique(nil, b, tid); st != RowDead {
		t.Fatal("deleted chain not dead")
	}
	e := te.begin()
	etid, _ := r.Insert(nil, e, boatRow(2), nil)
	te.abort(e)
	if st, _, _ := r.CheckUnique(nil, b, etid); st != RowDead {
		t.Fatal("aborted insert not dead")
	}
	te.abort(b)
}

// TestPrune: dead HOT members become unused, the root becomes a redirect
// to the first live member, Fetch through the root still works; a dead
// root with no live member becomes LP_DEAD. One WAL record per prune.
func TestPrune(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	root, _ := r.Insert(nil, tx, boatRow(1), nil)
	other, _ := r.Insert(nil, tx, boatRow(100), nil)
	te.commit(t, tx)
	cur := root
	var members []page.ItemPointer
	for v := 2; v <= 4; v++ {
		tx := te.begin()
		cur, _, _, _ = r.Update(ctx, nil, tx, cur, boatRow(v), true)
		members = append(members, cur)
		te.commit(t, tx)
	}
	prune := func() PruneResult {
		b, _ := te.pool.Read(nil, r.tag(0), nil)
		te.pool.Lock(b, buffer.Exclusive)
		defer te.pool.UnlockRelease(b, buffer.Exclusive)
		pos := te.w.InsertPos()
		res := r.Prune(nil, b, 0, te.x.OldestXmin())
		if n := te.w.InsertPos(); (n != pos) != (res.TuplesDeleted > 0) {
			t.Fatalf("prune wrote WAL: %v, deleted %d", n != pos, res.TuplesDeleted)
		}
		return res
	}
	// An old snapshot holds the horizon back: nothing is removed.
	old := te.reader()
	old.Snap.Xmin = 3
	te.x.GetSnapshot(old.Proc)
	te.done(old)

	res := prune()
	if res.TuplesDeleted != 3 || len(res.NowDead) != 0 {
		t.Fatalf("%+v", res)
	}
	if it, _ := te.item(t, r, root); it.Flags != page.LPRedirect || page.OffsetNumber(it.Off) != cur.Offset {
		t.Fatalf("root %+v", it)
	}
	for _, m := range members[:2] {
		if it, _ := te.item(t, r, m); it.Flags != page.LPUnused {
			t.Fatalf("member %v: %+v", m, it)
		}
	}
	rd := te.reader()
	// (Fetch through the redirect: see TestFetchThroughRedirect.)
	if tup, at, found, _ := r.FetchLatest(nil, root); !found || at != cur || rowID(t, tup) != 4 {
		t.Fatal("FetchLatest through redirect")
	}
	if got := scanIDs(t, r, rd); len(got) != 2 || got[4] != cur || got[100] != other {
		t.Fatalf("scan after prune %v", got)
	}
	te.done(rd)
	// Nothing more to do: no record.
	if res := prune(); res.TuplesDeleted != 0 {
		t.Fatalf("second prune %+v", res)
	}
	// The unused slots are reused by the next insert.
	tx = te.begin()
	ntid, _ := r.Insert(nil, tx, boatRow(7), nil)
	te.commit(t, tx)
	if ntid != members[0] && ntid != members[1] {
		t.Fatalf("insert went to %v, not a freed slot", ntid)
	}
	// Delete the row: the chain is dead; the root becomes LP_DEAD for
	// VACUUM to remove with its index entries.
	tx = te.begin()
	r.Delete(ctx, nil, tx, cur)
	te.commit(t, tx)
	res = prune()
	if res.TuplesDeleted != 1 || len(res.NowDead) != 1 || res.NowDead[0] != root.Offset {
		t.Fatalf("%+v", res)
	}
	if it, _ := te.item(t, r, root); it.Flags != page.LPDead {
		t.Fatalf("root %+v", it)
	}
	if it, _ := te.item(t, r, cur); it.Flags != page.LPUnused {
		t.Fatalf("last member %+v", it)
	}
}

// TestPruneRespectsHorizon: a version deleted by a transaction some
// snapshot may still not see as committed is kept.
func TestPruneRespectsHorizon(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	root, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	old := te.reader() // its xmin pins the horizon
	tx = te.begin()
	r.Update(ctx, nil, tx, root, boatRow(2), true)
	te.commit(t, tx)
	b, _ := te.pool.Read(nil, r.tag(0), nil)
	te.pool.Lock(b, buffer.Exclusive)
	res := r.Prune(nil, b, 0, te.x.OldestXmin())
	te.pool.UnlockRelease(b, buffer.Exclusive)
	if res.TuplesDeleted != 0 {
		t.Fatal("pruned a version an open snapshot can see")
	}
	if tup, _, found, _ := r.Fetch(nil, old, root); !found || rowID(t, tup) != 1 {
		t.Fatal("old snapshot lost its version")
	}
	te.done(old)
}

// TestPruneOpt: opportunistic pruning runs on a page that is short of
// space (or marked full by an UPDATE), and not on a roomy one.
func TestPruneOpt(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	for i := 1; i <= 20; i++ {
		r.Insert(nil, tx, boatRow(i), nil)
	}
	te.commit(t, tx)
	tx = te.begin()
	r.Delete(ctx, nil, tx, page.ItemPointer{Block: 0, Offset: 1})
	te.commit(t, tx)
	rd := te.reader()
	scanIDs(t, r, rd) // page mostly empty: no pruning
	te.done(rd)
	if it, _ := te.item(t, r, page.ItemPointer{Block: 0, Offset: 1}); it.Flags != page.LPNormal {
		t.Fatal("pruned a roomy page")
	}
	tx = te.begin()
	for i := 21; i <= 107; i++ {
		r.Insert(nil, tx, boatRow(i), nil)
	}
	te.commit(t, tx)
	rd = te.reader()
	scanIDs(t, r, rd)
	te.done(rd)
	if it, _ := te.item(t, r, page.ItemPointer{Block: 0, Offset: 1}); it.Flags != page.LPDead {
		t.Fatalf("full page not pruned: %+v", it)
	}
}

// TestFSM: the free space map records categories of 32 bytes and finds a
// block with enough room; inserts use it.
func TestFSM(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	if category(0) != 0 || category(31) != 0 || category(32) != 1 || category(8164) != 255 || category(-5) != 0 {
		t.Fatal("categories")
	}
	if r.fsm.search(nil, 100) != page.InvalidBlock {
		t.Fatal("search without a map")
	}
	r.RecordFreeSpace(nil, 7, 0) // zero: no fork created
	if te.sm.Exists(r.Rel, 1) {
		t.Fatal("fsm fork for a zero record")
	}
	r.RecordFreeSpace(nil, 7, 1000)
	r.RecordFreeSpace(nil, 9000, 5000) // second map page
	if got := r.fsm.search(nil, 900); got != 7 && got != 9000 {
		t.Fatalf("search 900: %d", got)
	}
	if got := r.fsm.search(nil, 2000); got != 9000 {
		t.Fatalf("search 2000: %d", got)
	}
	if got := r.fsm.search(nil, 6000); got != page.InvalidBlock {
		t.Fatalf("search 6000: %d", got)
	}
	r.RecordFreeSpace(nil, 9000, 0)
	if got := r.fsm.search(nil, 2000); got != page.InvalidBlock {
		t.Fatalf("after zeroing: %d", got)
	}
	// A block the map claims has room but has not is re-checked, its entry
	// corrected, and the insert goes elsewhere.
	r2 := Open(te.env, 16390, "t2", boatTypes, 100)
	tx := te.begin()
	for i := 0; i < 107*3; i++ {
		r2.Insert(nil, tx, boatRow(i), nil)
	}
	te.commit(t, tx)
	r2.RecordFreeSpace(nil, 1, 4000)                // a lie
	r3 := Open(te.env, 16390, "t2", boatTypes, 100) // fresh handle: no cached target
	tx = te.begin()
	tid, _ := r3.Insert(nil, tx, boatRow(9999), nil)
	te.commit(t, tx)
	if tid.Block == 1 || r3.fsm.search(nil, 72) == 1 {
		t.Fatalf("insert went to full block %d", tid.Block)
	}
	// Free real space on block 1 (delete + prune), record it: the next
	// fresh handle's insert goes there rather than to the last page.
	tx = te.begin()
	for off := page.OffsetNumber(1); off <= 60; off++ {
		r2.Delete(context.Background(), nil, tx, page.ItemPointer{Block: 1, Offset: off})
	}
	te.commit(t, tx)
	b, _ := te.pool.Read(nil, r2.tag(1), nil)
	te.pool.Lock(b, buffer.Exclusive)
	r2.Prune(nil, b, 1, te.x.OldestXmin())
	free := pageFree(te.pool.Page(b))
	te.pool.UnlockRelease(b, buffer.Exclusive)
	r2.RecordFreeSpace(nil, 1, free)
	r4 := Open(te.env, 16390, "t2", boatTypes, 100)
	tx = te.begin()
	tid, _ = r4.Insert(nil, tx, boatRow(10000), nil)
	te.commit(t, tx)
	if tid.Block != 1 {
		t.Fatalf("insert went to block %d, not the freed block 1 (free %d)", tid.Block, free)
	}
}

// TestVMClearedWithChange: a heap change on an all-visible page clears the
// page's PD_ALL_VISIBLE and its visibility-map bits in the same WAL
// record, which carries the map page without a full-page image.
func TestVMClearedWithChange(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	tid, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	if bits, err := r.VMBits(nil, 0); err != nil || bits != 0 {
		t.Fatal("bits without a map", bits, err)
	}
	// Set what VACUUM would: the page flag and both bits for block 0.
	b, _, err := te.pool.Extend(nil, r.Rel, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	vp := te.pool.Page(b)
	page.Init(vp, 0, nil)
	vp[page.HeaderSize] = VMAllVisible | VMAllFrozen
	te.pool.MarkDirty(nil, b)
	te.pool.UnlockRelease(b, buffer.Exclusive)
	hb, _ := te.pool.Read(nil, r.tag(0), nil)
	te.pool.Lock(hb, buffer.Exclusive)
	hp := te.pool.Page(hb)
	hp.SetFlags(hp.Flags()|page.FlagAllVisible, nil)
	te.pool.MarkDirty(nil, hb)
	te.pool.UnlockRelease(hb, buffer.Exclusive)
	if bits, _ := r.VMBits(nil, 0); bits != 3 {
		t.Fatalf("bits %d", bits)
	}
	if vb, _ := r.VMBits(nil, 1); vb != 0 {
		t.Fatal("block 1 bits")
	}
	rd := te.reader()
	if len(scanIDs(t, r, rd)) != 1 {
		t.Fatal("all-visible page scan")
	}
	te.done(rd)
	te.w.BeginCheckpoint()
	pos := te.w.InsertPos()
	tx = te.begin()
	if oc, err := r.Delete(ctx, nil, tx, tid); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	te.commit(t, tx)
	if bits, _ := r.VMBits(nil, 0); bits != 0 {
		t.Fatalf("bits %d after delete", bits)
	}
	if _, it := te.item(t, r, tid); it == nil {
		t.Fatal("tuple gone")
	}
	hb, _ = te.pool.Read(nil, r.tag(0), nil)
	if te.pool.Page(hb).Flags()&page.FlagAllVisible != 0 {
		t.Fatal("PD_ALL_VISIBLE still set")
	}
	te.pool.Release(hb)
	recs := te.walRecords(t, pos)
	d := recs[0]
	if d.Info != InfoDelete || len(d.Blocks) != 2 || d.Blocks[1].Tag.Fork != 2 || d.Blocks[1].HasImage || !d.Blocks[0].HasImage {
		t.Fatalf("delete record: %+v", d.Blocks)
	}
	if d.Main[2]&1 == 0 {
		t.Fatal("all-visible-cleared flag not in the record")
	}
}

// TestFetchThroughRedirect: after pruning turns a HOT chain's root into a
// redirect, Fetch of the root TID (what an index scan does) must still
// find the live version.
//
// KNOWN BUG (reported, not fixed here: heap's code is being changed by
// another engineer): Fetch in scan.go follows the redirect with prevXmax
// still 0, then rejects the target because its xmin != prevXmax, so every
// HOT-updated row whose page was pruned becomes invisible to index scans.
// PostgreSQL's heap_hot_search_buffer only compares when prev_xmax is
// valid (a bug found by this test, fixed).
func TestFetchThroughRedirect(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	root, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	tx = te.begin()
	cur, hot, _, _ := r.Update(ctx, nil, tx, root, boatRow(2), true)
	te.commit(t, tx)
	if !hot {
		t.Fatal("not HOT")
	}
	b, _ := te.pool.Read(nil, r.tag(0), nil)
	te.pool.Lock(b, buffer.Exclusive)
	r.Prune(nil, b, 0, te.x.OldestXmin())
	te.pool.UnlockRelease(b, buffer.Exclusive)
	if it, _ := te.item(t, r, root); it.Flags != page.LPRedirect {
		t.Fatalf("root not redirected: %+v", it)
	}
	rd := te.reader()
	defer te.done(rd)
	tup, at, found, err := r.Fetch(nil, rd, root)
	if err != nil || !found || at != cur || rowID(t, tup) != 2 {
		t.Fatalf("Fetch(%v) through redirect: found=%v at %v err %v", root, found, at, err)
	}
}

// TestPruneAbortedHOTUpdate: a HOT update that rolls back leaves a live
// root and a dead heap-only tuple after it; pruning must keep the root and
// remove only the orphan.
//
// KNOWN BUG (reported, not fixed here): Prune in prune.go takes the last
// DEAD member of the chain as latestDead without stopping at the first
// LIVE one, as PostgreSQL's heap_prune_chain does ("we can't advance past
// anything else" than RECENTLY_DEAD), so it removes chain[0..latestDead]
// including the live root: the root becomes LP_DEAD and the committed row
// disappears (a bug found by this test, fixed).
func TestPruneAbortedHOTUpdate(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "t", boatTypes, 100)
	ctx := context.Background()
	tx := te.begin()
	root, _ := r.Insert(nil, tx, boatRow(1), nil)
	te.commit(t, tx)
	tx = te.begin()
	if _, hot, _, _ := r.Update(ctx, nil, tx, root, boatRow(2), true); !hot {
		t.Fatal("not HOT")
	}
	te.abort(tx)
	b, _ := te.pool.Read(nil, r.tag(0), nil)
	te.pool.Lock(b, buffer.Exclusive)
	res := r.Prune(nil, b, 0, te.x.OldestXmin())
	te.pool.UnlockRelease(b, buffer.Exclusive)
	if it, _ := te.item(t, r, root); it.Flags != page.LPNormal {
		t.Errorf("live root became %+v (prune result %+v)", it, res)
	}
	rd := te.reader()
	defer te.done(rd)
	if got := scanIDs(t, r, rd); len(got) != 1 || got[1] != root {
		t.Fatalf("committed row lost: scan sees %v", got)
	}
}
