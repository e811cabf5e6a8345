package undo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// TestCrashRecoveryUndoesUnfinishedTransactions: a committed transaction's
// changes survive a crash; a transaction that had updated rows in place,
// deleted, inserted and moved rows, but not committed, is undone by
// Recover, whether its pages reached disk or not — and a second crash
// right after recovery changes nothing (undo is idempotent).
func TestCrashRecoveryUndoesUnfinishedTransactions(t *testing.T) {
	for _, flushFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("pagesOnDisk=%v", flushFirst), func(t *testing.T) {
			te := newTestEnv(t, 256)
			tb := te.log.OpenTable(testRel, "boat")
			w := te.begin(t)
			var tids []page.ItemPointer
			for i := 0; i < 400; i++ {
				tid, err := tb.Insert(nil, w, boatRow(i, ""))
				if err != nil {
					t.Fatal(err)
				}
				tids = append(tids, tid)
			}
			te.commit(t, w)
			c := te.begin(t)
			if _, err := tb.Update(bg, nil, c, tids[1], boatRow(1, "committed"), false, false); err != nil {
				t.Fatal(err)
			}
			te.commit(t, c)
			want := rows(t, tb, te.reader())

			a := te.begin(t)
			for i := 0; i < 400; i += 3 {
				if _, err := tb.Update(bg, nil, a, tids[i], boatRow(i, "trade winds"), false, false); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tb.Delete(bg, nil, a, tids[2], false); err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Update(bg, nil, a, tids[4], boatRow(4, string(make([]byte, 300))), false, false); err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Insert(nil, a, boatRow(1000, "")); err != nil {
				t.Fatal(err)
			}
			if flushFirst {
				if _, err := te.pool.FlushAll(); err != nil {
					t.Fatal(err)
				}
			}
			n := te.crash(t, 256)
			if n < 136 {
				t.Fatalf("recovery undid %d records, want at least 136", n)
			}
			tb = te.log.OpenTable(testRel, "boat")
			if got := rows(t, tb, te.reader()); !equalRows(got, want) {
				t.Fatalf("after recovery %d rows (row 0 %q, 1 %q), want %d", len(got), got[0], got[1], len(want))
			}
			te.crash(t, 256)
			tb = te.log.OpenTable(testRel, "boat")
			if got := rows(t, tb, te.reader()); !equalRows(got, want) {
				t.Fatalf("after a second recovery: %d rows", len(got))
			}
			// New work continues the log after recovery.
			b := te.begin(t)
			if oc, err := tb.Update(bg, nil, b, tids[0], boatRow(0, "after"), false, false); err != nil || oc.Result != Ok {
				t.Fatalf("update after recovery: %+v %v", oc, err)
			}
			te.commit(t, b)
			if got := rows(t, tb, te.reader()); got[0] != "after" {
				t.Fatalf("row 0 is %q", got[0])
			}
		})
	}
}

// TestCrashDuringRollback: a rollback interrupted half-way (its first
// undo applications logged, the rest not) is finished by recovery.
func TestCrashDuringRollback(t *testing.T) {
	te := newTestEnv(t, 256)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 50; i++ {
		tid, _ := tb.Insert(nil, w, boatRow(i, ""))
		tids = append(tids, tid)
	}
	te.commit(t, w)
	want := rows(t, tb, te.reader())
	a := te.begin(t)
	for i := range tids {
		if _, err := tb.Update(bg, nil, a, tids[i], boatRow(i, "x"), false, false); err != nil {
			t.Fatal(err)
		}
	}
	// Apply only the newest half of the chain, as a rollback that died.
	st := te.log.lookup(a.Proc)
	r := st.last
	for i := 0; i < 25; i++ {
		rec, err := te.log.readRecord(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := te.log.applyRecord(nil, rec, r); err != nil {
			t.Fatal(err)
		}
		r = rec.XactPrev
	}
	te.crash(t, 256)
	tb = te.log.OpenTable(testRel, "boat")
	if got := rows(t, tb, te.reader()); !equalRows(got, want) {
		t.Fatalf("after recovery: %v", got)
	}
}

// TestRedoReproducesPages: with full_page_writes off, so that every change
// is redone from its delta alone, replaying the WAL of a workload of
// inserts, in-place updates (shrinking and growing), moves, deletes,
// locks, a rollback and a ROLLBACK TO onto an empty directory gives the
// table's and the undo log's pages byte for byte (up to the unused hole,
// the alignment padding and the checksum).
func TestRedoReproducesPages(t *testing.T) {
	te := newTestEnv(t, 256)
	te.w.SetFullPageWrites(false)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 300; i++ {
		tid, _ := tb.Insert(nil, w, boatRow(i, ""))
		tids = append(tids, tid)
	}
	te.commit(t, w)
	a := te.begin(t)
	for i := 0; i < 300; i += 7 {
		name := "s"
		if i%2 == 0 {
			name = string(make([]byte, 60+i%90))
		}
		if _, err := tb.Update(bg, nil, a, tids[i], boatRow(i, name), i%5 == 0, false); err != nil {
			t.Fatal(err)
		}
	}
	tb.Delete(bg, nil, a, tids[3], false)
	tb.LockRow(bg, nil, a, tids[10], tableam.LockExclusive, tableam.WaitBlock, false)
	te.commit(t, a)
	b := te.begin(t)
	for i := 1; i < 300; i += 11 {
		tb.Update(bg, nil, b, tids[i], boatRow(i, "rolled back"), false, false)
	}
	te.abort(t, b)
	c := te.begin(t)
	te.x.BeginSubXact(c.Proc)
	c.Xid, _ = te.x.AssignXid(c.Proc)
	tb.Update(bg, nil, c, tids[2], boatRow(2, "sub"), false, false)
	te.x.RollbackSubXact(c.Proc)
	te.commit(t, c)
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}

	replayDir := t.TempDir()
	copyDir(t, filepath.Join(te.dir, "wal"), filepath.Join(replayDir, "wal"))
	sm, err := smgr.Open(filepath.Join(replayDir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	pool := buffer.New(sm, 256)
	RegisterRmgr()
	wal.Register(wal.RmXact, wal.Rmgr{Name: "Transaction"})
	if _, err := wal.Replay(filepath.Join(replayDir, "wal"), pool, wal.FirstLSN); err != nil {
		t.Fatal(err)
	}
	compare := func(rel smgr.RelFileNumber, fork smgr.ForkNumber) {
		n, _ := te.sm.NBlocks(rel, fork)
		m, _ := sm.NBlocks(rel, fork)
		if n != m || n == 0 {
			t.Fatalf("%v fork of %d: %d blocks, replayed %d", fork, rel, n, m)
		}
		for blk := page.BlockNumber(0); blk < n; blk++ {
			tag := buffer.Tag{Rel: rel, Fork: fork, Block: blk}
			want := readMasked(t, te.pool, tag)
			got := readMasked(t, pool, tag)
			if !bytes.Equal(want, got) {
				for i := range want {
					if want[i] != got[i] {
						t.Fatalf("%v block %d differs after redo at byte %d", fork, blk, i)
					}
				}
			}
		}
	}
	compare(testRel, smgr.MainFork)
	compare(1, smgr.UndoFork)
}

func readMasked(t *testing.T, pool *buffer.Pool, tag buffer.Tag) page.Page {
	b, err := pool.Read(nil, tag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Release(b)
	p := append(page.Page(nil), pool.Page(b)...)
	p.SetChecksum(0)
	if p.IsNew() {
		return p
	}
	clear(p[p.Lower():p.Upper()])
	if tag.Fork == smgr.MainFork {
		for o := page.OffsetNumber(1); o <= p.MaxOffset(); o++ {
			if it := p.Item(o); it.Flags == page.LPNormal {
				clear(p[it.Off+it.Len : it.Off+page.MaxAlignUp(it.Len)])
			}
		}
	}
	return p
}

func copyDir(t *testing.T, from, to string) {
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDiscardRemovesChunks: with 2-page chunks, undo that no snapshot
// needs any more is removed chunk by chunk — not while an old snapshot
// still needs it — and old versions stay right until then.
func TestDiscardRemovesChunks(t *testing.T) {
	te := &testEnv{dir: t.TempDir()}
	te.open(t, 256, wal.FirstLSN, 0, 3)
	te.log.chunk = 2
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 100; i++ {
		tid, _ := tb.Insert(nil, w, boatRow(i, ""))
		tids = append(tids, tid)
	}
	te.commit(t, w)
	old := te.reader()
	for round := 0; round < 5; round++ {
		u := te.begin(t)
		for i, tid := range tids {
			if _, err := tb.Update(bg, nil, u, tid, boatRow(i, fmt.Sprintf("round %d", round)), false, false); err != nil {
				t.Fatal(err)
			}
		}
		te.commit(t, u)
	}
	files := func() int {
		ents, _ := os.ReadDir(te.sm.UndoDir())
		n := 0
		for _, e := range ents {
			if e.Name() != "meta" {
				n++
			}
		}
		return n
	}
	before := files()
	if before < 3 {
		t.Fatalf("only %d undo chunks written", before)
	}
	te.log.AdvanceDiscard()
	if files() != before || te.log.Discarded.Load() != 0 {
		t.Fatal("undo an open snapshot needs was removed")
	}
	if got := rows(t, tb, old); len(got) != 100 || got[7] != "00000000000000000000000000000007" {
		t.Fatalf("old snapshot: %d rows, row 7 %q", len(got), got[7])
	}
	te.done(old)
	te.log.AdvanceDiscard()
	if files() != 1 || te.log.Discarded.Load() == 0 {
		t.Fatalf("%d chunk files left after discard (%d bytes discarded)", files(), te.log.Discarded.Load())
	}
	if got := rows(t, tb, te.reader()); len(got) != 100 {
		t.Fatalf("%d rows after discard", len(got))
	}
	// A restart finds the end of the log in the last chunk.
	n := te.crash(t, 256)
	if n != 0 {
		t.Fatalf("recovery undid %d records of committed work", n)
	}
	tb = te.log.OpenTable(testRel, "boat")
	if got := rows(t, tb, te.reader()); len(got) != 100 {
		t.Fatalf("%d rows after restart", len(got))
	}
}

// TestCrashAfterTenThousandInPlaceUpdates is issue 9's kill -9 case at the
// storage level: a transaction updates 10,000 rows in place and the server
// dies (buffers lost, WAL as far as it was written) before it commits;
// after recovery every row has its old value, and a commit acknowledged
// before is there.
func TestCrashAfterTenThousandInPlaceUpdates(t *testing.T) {
	te := newTestEnv(t, 1024)
	tb := te.log.OpenTable(testRel, "boat")
	w := te.begin(t)
	var tids []page.ItemPointer
	for i := 0; i < 10000; i++ {
		tid, err := tb.Insert(nil, w, boatRow(i, ""))
		if err != nil {
			t.Fatal(err)
		}
		tids = append(tids, tid)
	}
	te.commit(t, w)
	c := te.begin(t)
	tb.Update(bg, nil, c, tids[42], boatRow(42, "acknowledged"), false, false)
	te.commit(t, c)
	a := te.begin(t)
	for i, tid := range tids {
		if oc, err := tb.Update(bg, nil, a, tid, boatRow(i, "trade winds"), false, false); err != nil || !oc.InPlace {
			t.Fatalf("update %d: %+v %v", i, oc, err)
		}
	}
	n := te.crash(t, 1024)
	if n != 10000 {
		t.Fatalf("recovery undid %d records, want 10000", n)
	}
	tb = te.log.OpenTable(testRel, "boat")
	got := rows(t, tb, te.reader())
	if len(got) != 10000 || got[42] != "acknowledged" {
		t.Fatalf("%d rows, row 42 %q", len(got), got[42])
	}
	for i := range tids {
		if i != 42 && got[i] != fmt.Sprintf("%032x", i) {
			t.Fatalf("row %d is %q after recovery", i, got[i])
		}
	}
}
