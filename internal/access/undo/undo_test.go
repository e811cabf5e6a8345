package undo

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

var bg = context.Background()

func TestTupleFormat(t *testing.T) {
	tup := boatRow(7, "")
	// Seed 003's row: 8-byte header + int4 + 33-byte text + pad + float8.
	if len(tup) != 56 {
		t.Fatalf("boat tuple is %d bytes, want 56", len(tup))
	}
	if tup.URP() != 0 || tup.Flags() != 0 || tup.Natts() != 3 || tup.Hoff() != HeaderSize {
		t.Fatalf("header: urp %v flags %x natts %d hoff %d", tup.URP(), tup.Flags(), tup.Natts(), tup.Hoff())
	}
	tup.setURP(0xAB_CDEF_1234)
	if tup.URP() != 0xAB_CDEF_1234 || tup.Natts() != 3 {
		t.Fatalf("urp round trip: %x natts %d", tup.URP(), tup.Natts())
	}
	withNull := boat.Form([]datum.Datum{datum.Int(1), datum.Null(), datum.Float(2)})
	out := make([]datum.Datum, 3)
	if err := boat.Deform(withNull, out); err != nil {
		t.Fatal(err)
	}
	if out[0].Int() != 1 || !out[1].IsNull() || out[2].Float() != 2 || withNull.Hoff() != 16 {
		t.Fatalf("null row decoded as %v (hoff %d)", out, withNull.Hoff())
	}
}

func TestRecordRoundTripAndDiff(t *testing.T) {
	old, new := boatRow(5, ""), boatRow(5, "trade winds")
	old.setURP(1234)
	r := &Record{Kind: KindInplace, Xid: 9, Cid: 2, Rel: 77, TID: page.ItemPointer{Block: 3, Offset: 4}, Prev: 1234, XactPrev: 999, OldOff: 100, OldLen: len(old)}
	copy(r.OldHeader[:], old[:HeaderSize])
	r.diff(old, new)
	// Only the name (and the padding after it) differs: the int4 is a
	// common prefix, the float8 a common suffix.
	if r.Prefix != 4 || r.Suffix < 8 || len(r.Middle) > 36 {
		t.Fatalf("diff prefix %d suffix %d middle %d", r.Prefix, r.Suffix, len(r.Middle))
	}
	got, err := decodeRecord(r.encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.Xid != 9 || got.Cid != 2 || got.Rel != 77 || got.TID != r.TID || got.Prev != 1234 || got.XactPrev != 999 || got.OldOff != 100 {
		t.Fatalf("decoded %+v", got)
	}
	if rebuilt := got.rebuild(new); !bytes.Equal(rebuilt, old) {
		t.Fatalf("rebuild gave %x, want %x", rebuilt, old)
	}
	if _, err := decodeRecord([]byte{KindInsert, 0, 3, 0}); err == nil {
		t.Fatal("a truncated record decoded")
	}
}

func TestInsertVisibility(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	tid, err := tb.Insert(nil, w, boatRow(1, "one"))
	if err != nil {
		t.Fatal(err)
	}
	before := te.reader()
	if _, ok := fetchName(t, tb, before, tid); ok {
		t.Fatal("an uncommitted insert is visible to another snapshot")
	}
	if _, ok := fetchName(t, tb, w, tid); ok {
		t.Fatal("an insert is visible to its own command")
	}
	next(w)
	if name, ok := fetchName(t, tb, w, tid); !ok || name != "one" {
		t.Fatalf("own insert after the command: %q %v", name, ok)
	}
	te.commit(t, w)
	if _, ok := fetchName(t, tb, before, tid); ok {
		t.Fatal("a snapshot taken before the commit sees the insert")
	}
	after := te.reader()
	if got := rows(t, tb, after); len(got) != 1 || got[1] != "one" {
		t.Fatalf("after commit: %v", got)
	}
}

func TestUpdateInPlaceKeepsOldVersionsForSnapshots(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 10; i++ {
		tid, err := tb.Insert(nil, w, boatRow(i, ""))
		if err != nil {
			t.Fatal(err)
		}
		tids = append(tids, tid)
	}
	te.commit(t, w)

	names := []string{"trade winds", "a much longer name than the md5 that was there before it", "x"}
	var snaps []*Txn
	for _, name := range names {
		snaps = append(snaps, te.reader())
		u := te.begin(t)
		oc, err := tb.Update(bg, nil, u, tids[3], boatRow(3, name), false, false)
		if err != nil {
			t.Fatal(err)
		}
		if oc.Result != Ok || !oc.InPlace || oc.NewTID != tids[3] {
			t.Fatalf("update outcome %+v", oc)
		}
		te.commit(t, u)
	}
	want := []string{"00000000000000000000000000000003", names[0], names[1]}
	for i, s := range snaps {
		if name, ok := fetchName(t, tb, s, tids[3]); !ok || name != want[i] {
			t.Fatalf("snapshot %d sees %q, want %q", i, name, want[i])
		}
		if got := rows(t, tb, s); len(got) != 10 || got[3] != want[i] {
			t.Fatalf("snapshot %d scan: %v", i, got)
		}
	}
	if name, _ := fetchName(t, tb, te.reader(), tids[3]); name != "x" {
		t.Fatalf("newest is %q", name)
	}
	nb, _ := tb.NBlocks()
	if nb != 1 {
		t.Fatalf("in-place updates grew the table to %d pages", nb)
	}
}

func TestDeleteAndRollback(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 5; i++ {
		tid, _ := tb.Insert(nil, w, boatRow(i, ""))
		tids = append(tids, tid)
	}
	te.commit(t, w)
	orig := rows(t, tb, te.reader())

	a := te.begin(t)
	if oc, err := tb.Update(bg, nil, a, tids[0], boatRow(0, "short"), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	if oc, err := tb.Update(bg, nil, a, tids[1], boatRow(1, strings.Repeat("long", 30)), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	if oc, err := tb.Delete(bg, nil, a, tids[2], false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	next(a)
	// Changed twice in one transaction, then deleted.
	if oc, err := tb.Update(bg, nil, a, tids[0], boatRow(0, "shorter still"), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	if _, err := tb.Insert(nil, a, boatRow(99, "")); err != nil {
		t.Fatal(err)
	}
	next(a)
	if got := rows(t, tb, a); len(got) != 5 || got[0] != "shorter still" || got[99] == "" {
		t.Fatalf("inside the transaction: %v", got)
	}
	if got := rows(t, tb, te.reader()); !equalRows(got, orig) {
		t.Fatalf("another snapshot during the transaction: %v", got)
	}
	te.abort(t, a)
	if got := rows(t, tb, te.reader()); !equalRows(got, orig) {
		t.Fatalf("after rollback: %v, want %v", got, orig)
	}
	// The rolled-back rows can be changed again: nothing points at the
	// aborted transaction.
	b := te.begin(t)
	if oc, err := tb.Update(bg, nil, b, tids[0], boatRow(0, "again"), false, false); err != nil || oc.Result != Ok {
		t.Fatal(oc, err)
	}
	te.commit(t, b)
	if got := rows(t, tb, te.reader()); got[0] != "again" || len(got) != 5 {
		t.Fatalf("after a new update: %v", got)
	}
}

func equalRows(a, b map[int]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRollbackToSavepoint(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	tid, _ := tb.Insert(nil, w, boatRow(1, "base"))
	te.commit(t, w)

	a := te.begin(t)
	if _, err := tb.Update(bg, nil, a, tid, boatRow(1, "top"), false, false); err != nil {
		t.Fatal(err)
	}
	next(a)
	te.x.BeginSubXact(a.Proc)
	sub, err := te.x.AssignXid(a.Proc)
	if err != nil {
		t.Fatal(err)
	}
	a.Xid = sub
	if _, err := tb.Update(bg, nil, a, tid, boatRow(1, "in the savepoint, longer than before"), false, false); err != nil {
		t.Fatal(err)
	}
	ins, _ := tb.Insert(nil, a, boatRow(2, "sub insert"))
	next(a)
	te.x.RollbackSubXact(a.Proc)
	a.Xid = a.Proc.Xid()
	if got := rows(t, tb, a); len(got) != 1 || got[1] != "top" {
		t.Fatalf("after ROLLBACK TO: %v", got)
	}
	if tup, _ := tb.Fetch(nil, a, ins); tup != nil {
		t.Fatal("the savepoint's insert survived ROLLBACK TO")
	}
	if _, err := tb.Update(bg, nil, a, tid, boatRow(1, "final"), false, false); err != nil {
		t.Fatal(err)
	}
	te.commit(t, a)
	if got := rows(t, tb, te.reader()); len(got) != 1 || got[1] != "final" {
		t.Fatalf("after commit: %v", got)
	}
}

func TestUpdateMovesWhenThePageIsFull(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; len(tids) == 0 || tids[len(tids)-1].Block == 0; i++ {
		tid, err := tb.Insert(nil, w, boatRow(i, ""))
		if err != nil {
			t.Fatal(err)
		}
		tids = append(tids, tid)
	}
	te.commit(t, w)
	perPage := len(tids) - 1
	if perPage != 136 {
		t.Fatalf("%d boat rows per page, want 136", perPage)
	}
	old := te.reader()
	u := te.begin(t)
	oc, err := tb.Update(bg, nil, u, tids[0], boatRow(0, strings.Repeat("z", 200)), false, false)
	if err != nil {
		t.Fatal(err)
	}
	if oc.Result != Ok || oc.InPlace || oc.NewTID.Block == 0 {
		t.Fatalf("a row that cannot grow in place: %+v", oc)
	}
	next(u)
	if got := rows(t, tb, u); len(got) != len(tids) || len(got[0]) != 200 {
		t.Fatalf("own view after the move: %d rows, row 0 %q", len(got), got[0])
	}
	if got := rows(t, tb, old); len(got) != len(tids) || got[0] != "00000000000000000000000000000000" {
		t.Fatalf("old snapshot after the move: %d rows, row 0 %q", len(got), got[0])
	}
	// A key change that fits stays in place (the caller delete-marks).
	oc, err = tb.Update(bg, nil, u, tids[5], boatRow(1005, ""), true, false)
	if err != nil || oc.Result != Ok || !oc.InPlace || oc.NewTID != tids[5] {
		t.Fatalf("key change: %+v %v", oc, err)
	}
	te.abort(t, u)
	got := rows(t, tb, te.reader())
	if len(got) != len(tids) || got[0] != "00000000000000000000000000000000" || got[5] == "" || got[1005] != "" {
		t.Fatalf("after rolling back the moves: %d rows, row 0 %q", len(got), got[0])
	}
}

func TestWriterWaitsAndSnapshotConflicts(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	tid, _ := tb.Insert(nil, w, boatRow(1, "v0"))
	te.commit(t, w)

	a := te.begin(t)
	b := te.begin(t) // its snapshot predates a's commit
	if _, err := tb.Update(bg, nil, a, tid, boatRow(1, "by a"), false, false); err != nil {
		t.Fatal(err)
	}
	done := make(chan Outcome)
	go func() {
		oc, err := tb.Update(bg, nil, b, tid, boatRow(1, "by b"), false, false)
		if err != nil {
			t.Error(err)
		}
		done <- oc
	}()
	select {
	case oc := <-done:
		t.Fatalf("b did not wait for a: %+v", oc)
	default:
	}
	te.commit(t, a)
	oc := <-done
	if oc.Result != Updated || oc.NewTID != tid {
		t.Fatalf("b after a committed: %+v, want Updated", oc)
	}
	te.abort(t, b)
	c := te.begin(t)
	if oc, err := tb.Update(bg, nil, c, tid, boatRow(1, "by c"), false, false); err != nil || oc.Result != Ok {
		t.Fatalf("c: %+v %v", oc, err)
	}
	if oc, err := tb.Update(bg, nil, c, tid, boatRow(1, "again"), false, false); err != nil || oc.Result != SelfModified {
		t.Fatalf("second update in one command: %+v %v", oc, err)
	}
	te.commit(t, c)
}

// TestDeletedSpaceReusedWithoutVacuum: once a delete is visible to every
// snapshot, an insert that finds its page full prunes it and reuses the
// space; while a snapshot may still see the rows, it may not.
func TestDeletedSpaceReusedWithoutVacuum(t *testing.T) {
	te := newTestEnv(t, 64)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 136; i++ {
		tid, _ := tb.Insert(nil, w, boatRow(i, ""))
		tids = append(tids, tid)
	}
	te.commit(t, w)
	d := te.begin(t)
	for _, tid := range tids[:100] {
		if oc, err := tb.Delete(bg, nil, d, tid, false); err != nil || oc.Result != Ok {
			t.Fatal(oc, err)
		}
	}
	old := te.reader()
	te.commit(t, d)
	ins := func(from int) page.BlockNumber {
		w := te.begin(t)
		var last page.BlockNumber
		for i := from; i < from+50; i++ {
			tid, err := tb.Insert(nil, w, boatRow(i, ""))
			if err != nil {
				t.Fatal(err)
			}
			last = tid.Block
		}
		te.commit(t, w)
		return last
	}
	if blk := ins(1000); blk != 1 {
		t.Fatalf("with an old snapshot open the inserts went to block %d, want 1", blk)
	}
	if got := rows(t, tb, old); len(got) != 136 {
		t.Fatalf("old snapshot sees %d rows", len(got))
	}
	te.done(old)
	tb.targetBlock.Store(0)
	if blk := ins(2000); blk != 0 {
		t.Fatalf("after the delete became visible to all the inserts went to block %d, want 0", blk)
	}
	if got := rows(t, tb, te.reader()); len(got) != 36+100 {
		t.Fatalf("%d rows, want %d", len(got), 136)
	}
}
