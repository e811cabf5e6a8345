package btree

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

func int4Key(i int) []datum.Datum { return []datum.Datum{datum.Int(int64(i))} }

// markedEntries maps each entry's (key, TID) to whether it is marked.
func markedEntries(t *testing.T, ix *Index) map[[2]int64]bool {
	t.Helper()
	out := map[[2]int64]bool{}
	c := ix.Scan(nil, nil, nil)
	for {
		tid, tup, ok, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		k, err := ix.Keys(tup, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := [2]int64{k[0].Int(), int64(tid.Block)<<16 | int64(tid.Offset)}
		if _, dup := out[id]; dup {
			t.Fatalf("entry (%d, %v) twice", k[0].Int(), tid)
		}
		out[id] = tup.DeleteMarked()
	}
}

func entryID(k int, tid page.ItemPointer) [2]int64 {
	return [2]int64{int64(k), int64(tid.Block)<<16 | int64(tid.Offset)}
}

// TestDeleteMark: marks are set and cleared on exact entries (one
// MARK_DELETED record each, a no-op when already so), a marked entry is
// still returned by scans and keeps its key, TID and order; InsertMarked
// adds a marked entry or marks the existing one instead of a duplicate;
// a unique insert does not conflict with the row's own entry; marking a
// missing entry is an internal error.
func TestDeleteMark(t *testing.T) {
	te := newTestEnv(t, 256)
	ix := buildInt4(t, te, 60, 5000) // several leaves
	tid := tidOf(1234)
	var u stats.Usage
	if err := ix.MarkDeleted(&u, 7, int4Key(1234), tid); err != nil {
		t.Fatal(err)
	}
	if u.WAL.Records != 1 {
		t.Fatalf("MarkDeleted wrote %d WAL records", u.WAL.Records)
	}
	u = stats.Usage{}
	if err := ix.MarkDeleted(&u, 7, int4Key(1234), tid); err != nil || u.WAL.Records != 0 {
		t.Fatalf("marking again: %v, %d records", err, u.WAL.Records)
	}
	got := markedEntries(t, ix)
	if len(got) != 5000 || !got[entryID(1234, tid)] {
		t.Fatalf("%d entries, (1234) marked: %v", len(got), got[entryID(1234, tid)])
	}
	for id, m := range got {
		if m && id != entryID(1234, tid) {
			t.Fatalf("entry %v marked too", id)
		}
	}
	mustCheck(t, ix)

	// An in-place update of row tid from key 1234 to 99999, then back.
	if err := ix.InsertMarked(nil, nil, 8, int4Key(99999), tid, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.MarkDeleted(nil, 9, int4Key(99999), tid); err != nil {
		t.Fatal(err)
	}
	if err := ix.InsertMarked(nil, nil, 9, int4Key(1234), tid, nil); err != nil {
		t.Fatal(err)
	}
	got = markedEntries(t, ix)
	if len(got) != 5001 || !got[entryID(1234, tid)] || !got[entryID(99999, tid)] {
		t.Fatalf("after key changes: %d entries, marks %v %v", len(got), got[entryID(1234, tid)], got[entryID(99999, tid)])
	}
	if err := ix.UnmarkDeleted(nil, int4Key(1234), tid); err != nil {
		t.Fatal(err)
	}
	if got = markedEntries(t, ix); got[entryID(1234, tid)] {
		t.Fatal("UnmarkDeleted left the mark")
	}
	mustCheck(t, ix)

	err := ix.MarkDeleted(nil, 9, int4Key(1234), tidOf(4321))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.InternalError {
		t.Fatalf("marking a missing entry: %v", err)
	}

	// Unique: the row's own entry is not a conflict, another row's is.
	uopt := int4Opts("u")
	uopt.Unique = true
	ux := emptyIndex(t, te, 61, uopt)
	live := func(page.ItemPointer) (UniqueVerdict, error) { return UniqueVerdict{Kind: VerdictConflict}, nil }
	if err := ux.Insert(nil, 2, int4Key(1), tidOf(1), live); err != nil {
		t.Fatal(err)
	}
	if err := ux.InsertMarked(nil, nil, 3, int4Key(1), tidOf(1), live); err != nil {
		t.Fatalf("re-inserting the row's own key: %v", err)
	}
	if err := ux.InsertMarked(nil, nil, 3, int4Key(1), tidOf(2), live); !errors.As(err, &pe) || pe.Code != pgerr.UniqueViolation {
		t.Fatalf("another row's key: %v", err)
	}
}

// TestBulkDeleteMarked: VACUUM's pass shows marked entries (only those)
// to the table's check, removes or clears as told, keeps the rest, and
// leaves TID-dead entries to the dead callback.
func TestBulkDeleteMarked(t *testing.T) {
	te := newTestEnv(t, 256)
	ix := buildInt4(t, te, 62, 3000)
	for i := 1; i <= 3000; i += 10 {
		if err := ix.MarkDeleted(nil, 5, int4Key(i), tidOf(i)); err != nil {
			t.Fatal(err)
		}
	}
	shown := 0
	st, err := ix.BulkDeleteMarked(nil, 6, func(tid page.ItemPointer) bool { return tid == tidOf(2) || tid == tidOf(11) },
		func(tid page.ItemPointer, tup Tuple) (MarkVerdict, error) {
			shown++
			if !tup.DeleteMarked() || tup.TID() != tid {
				t.Fatalf("shown %v marked=%v", tid, tup.DeleteMarked())
			}
			k, err := ix.Keys(tup, nil)
			if err != nil {
				return MarkKeep, err
			}
			switch k[0].Int() % 3 {
			case 0:
				return MarkRemove, nil
			case 1:
				return MarkClear, nil
			}
			return MarkKeep, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if shown != 299 { // 300 marked, (11) removed by the dead callback first
		t.Fatalf("%d marked entries shown", shown)
	}
	got := markedEntries(t, ix)
	removed, cleared, kept := 0, 0, 0
	for i := 1; i <= 3000; i++ {
		m, ok := got[entryID(i, tidOf(i))]
		marked := i%10 == 1
		switch {
		case i == 2 || i == 11:
			if ok {
				t.Fatalf("dead entry %d kept", i)
			}
		case marked && i%3 == 0:
			if ok {
				t.Fatalf("entry %d not removed", i)
			}
			removed++
		case marked && i%3 == 1:
			if !ok || m {
				t.Fatalf("entry %d: present %v marked %v", i, ok, m)
			}
			cleared++
		case marked:
			if !ok || !m {
				t.Fatalf("entry %d: present %v marked %v", i, ok, m)
			}
			kept++
		default:
			if !ok || m {
				t.Fatalf("unmarked entry %d: present %v marked %v", i, ok, m)
			}
		}
	}
	if st.TuplesRemoved != int64(removed+2) || st.MarksCleared != cleared {
		t.Fatalf("stats %+v; removed %d cleared %d kept %d", st, removed, cleared, kept)
	}
	mustCheck(t, ix)
}

// TestDeleteMarkRedo: replaying MARK_DELETED records (with and without
// full-page images) and a VACUUM that clears marks reproduces the pages.
func TestDeleteMarkRedo(t *testing.T) {
	te := newTestEnv(t, 128)
	rel := smgr.RelFileNumber(63)
	ix := buildInt4(t, te, rel, 20000)
	redo := checkpoint(t, te)
	snap := filepath.Join(te.dir, "snap")
	copyDir(t, te.sm.Dir(), snap)
	for i := 1; i <= 20000; i += 7 {
		if err := ix.MarkDeleted(nil, 5, int4Key(i), tidOf(i)); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := ix.InsertMarked(nil, nil, 5, int4Key(30000+i), tidOf(i), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 1; i <= 20000; i += 49 {
		if err := ix.UnmarkDeleted(nil, int4Key(i), tidOf(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.BulkDeleteMarked(nil, 6, nil, func(tid page.ItemPointer, tup Tuple) (MarkVerdict, error) {
		return MarkVerdict(tid.Offset % 3), nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	want := markedEntries(t, ix)
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	if _, err := te.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	sm2, err := smgr.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer sm2.Close()
	pool2 := buffer.New(sm2, 64)
	if _, err := wal.Replay(filepath.Join(te.dir, "wal"), pool2, redo); err != nil {
		t.Fatal(err)
	}
	if _, err := pool2.FlushAll(); err != nil {
		t.Fatal(err)
	}
	n1, _ := te.sm.NBlocks(rel, smgr.MainFork)
	a, b := make([]byte, page.Size), make([]byte, page.Size)
	for blk := page.BlockNumber(0); blk < n1; blk++ {
		if err := te.sm.Read(rel, smgr.MainFork, blk, a); err != nil {
			t.Fatal(err)
		}
		if err := sm2.Read(rel, smgr.MainFork, blk, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(maskHole(a), maskHole(b)) {
			t.Fatalf("block %d differs after redo", blk)
		}
	}
	ix2 := Open(&Env{Pool: pool2}, rel, int4Opts("boat_idx1"))
	mustCheck(t, ix2)
	got := markedEntries(t, ix2)
	if len(got) != len(want) {
		t.Fatalf("replayed %d entries, want %d", len(got), len(want))
	}
	for id, m := range want {
		if got[id] != m {
			t.Fatalf("entry %v marked %v after redo, %v before", id, got[id], m)
		}
	}
}
