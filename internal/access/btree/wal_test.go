package btree

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// checkpoint imitates a checkpoint: flush every dirty buffer and move the
// redo pointer to the current end of WAL, so the next change to each page
// carries a full-page image. It returns the redo pointer.
func checkpoint(t testing.TB, te *testEnv) page.LSN {
	t.Helper()
	if _, err := te.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	redo := te.w.InsertPos()
	te.w.SetRedoPtr(redo)
	return redo
}

func buildInt4(t testing.TB, te *testEnv, rel smgr.RelFileNumber, n int) *Index {
	t.Helper()
	b := NewBuilder(te.env, rel, int4Opts("boat_idx1"))
	for i := 1; i <= n; i++ {
		b.Add([]datum.Datum{datum.Int(int64(i))}, tidOf(i))
	}
	ix, err := b.Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestInsertWAL: one WAL record per insert without a split; the first
// change to a leaf after a checkpoint carries a full-page image of about
// 7.4 KB (PostgreSQL: 7453 bytes per Btree/INSERT_LEAF in the boat UPDATE).
func TestInsertWAL(t *testing.T) {
	te := newTestEnv(t, 256)
	ix := buildInt4(t, te, 40, 100000)
	checkpoint(t, te)
	var u stats.Usage
	// like the boat UPDATE: a new version of row 1001 moves to a new heap page
	if err := ix.Insert(&u, 5, []datum.Datum{datum.Int(1001)}, page.ItemPointer{Block: 4673, Offset: 1}, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("first insert after checkpoint: %+v", u.WAL)
	if u.WAL.Records != 1 || u.WAL.FPI != 1 || u.WAL.Bytes < 7300 || u.WAL.Bytes > 7600 {
		t.Fatalf("first insert: %+v", u.WAL)
	}
	if u.Buf.SharedDirtied != 1 {
		t.Fatalf("dirtied %d", u.Buf.SharedDirtied)
	}
	u = stats.Usage{}
	if err := ix.Insert(&u, 5, []datum.Datum{datum.Int(1002)}, page.ItemPointer{Block: 4673, Offset: 2}, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("second insert into the same leaf: %+v", u.WAL)
	// Logical: header, block reference, the 16-byte tuple, the offset
	// (PostgreSQL's record for it is 64 bytes).
	if u.WAL.Records != 1 || u.WAL.FPI != 0 || u.WAL.Bytes != 24+1+12+2+16+4+2 {
		t.Fatalf("second insert: %+v", u.WAL)
	}
	// 500 inserts into distinct leaves: 500 records, 500 images
	checkpoint(t, te)
	u = stats.Usage{}
	for i := 1; i <= 500; i++ {
		k := 1 + (i-1)*200
		if err := ix.Insert(&u, 6, []datum.Datum{datum.Int(int64(k))}, page.ItemPointer{Block: 5000 + page.BlockNumber(i), Offset: 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("500 spread inserts: %+v", u.WAL)
	if u.WAL.Records != 500 {
		t.Fatalf("records %d", u.WAL.Records)
	}
	mustCheck(t, ix)
}

func TestBuildThenInsertAndBulkDelete(t *testing.T) {
	te := newTestEnv(t, 512)
	const n = 60000
	ix := buildInt4(t, te, 41, n)
	rng := rand.New(rand.NewSource(5))
	extra := map[page.ItemPointer]int64{}
	for i := 0; i < 20000; i++ {
		k := int64(rng.Intn(n + 1000))
		tid := page.ItemPointer{Block: 100000 + page.BlockNumber(i/100), Offset: page.OffsetNumber(i%100 + 1)}
		if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(k)}, tid, nil); err != nil {
			t.Fatal(err)
		}
		extra[tid] = k
	}
	mustCheck(t, ix)
	st, _ := ix.Stats(nil)
	if st.Tuples != n+20000 {
		t.Fatalf("stats %+v", st)
	}
	// delete all original rows with odd keys and every other extra row
	dead := func(tid page.ItemPointer) bool {
		if tid.Block >= 200000 {
			return false
		}
		if tid.Block >= 100000 {
			return tid.Offset%2 == 0
		}
		i := int(tid.Block)*100 + int(tid.Offset) - 1
		return i%2 == 1
	}
	var u stats.Usage
	bd, err := ix.BulkDelete(&u, 9, dead)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bulk delete: %+v, WAL %+v", bd, u.WAL)
	if bd.TuplesRemoved != n/2+10000 || bd.TuplesRemaining != n/2+10000 || bd.Pages != st.Pages {
		t.Fatalf("bulk delete %+v", bd)
	}
	if u.WAL.Records != int64(st.LeafPages) {
		t.Fatalf("%d WAL records for %d leaf pages", u.WAL.Records, st.LeafPages)
	}
	mustCheck(t, ix)
	for _, e := range scanAll(t, ix, ix.Scan(nil, nil, nil)) {
		if dead(e.tid) {
			t.Fatalf("dead entry %v survived", e)
		}
	}
	// inserting after the bulk delete still works
	for i := 0; i < 5000; i++ {
		if err := ix.Insert(nil, 3, []datum.Datum{datum.Int(int64(rng.Intn(n)))}, page.ItemPointer{Block: 200000, Offset: page.OffsetNumber(i + 1)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, ix)
	// a second pass removes nothing
	bd, err = ix.BulkDelete(nil, 9, dead)
	if err != nil || bd.TuplesRemoved != 0 || bd.TuplesRemaining != n/2+10000+5000 {
		t.Fatalf("second bulk delete %+v %v", bd, err)
	}
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// maskHole zeroes the unused space between pd_lower and pd_upper, which
// WAL does not carry, and the checksum.
func maskHole(p []byte) []byte {
	q := append([]byte(nil), p...)
	pg := page.Page(q)
	if !pg.IsNew() {
		lo, up := pg.Lower(), pg.Upper()
		if lo < up && up <= page.Size {
			clear(q[lo:up])
		}
		q[8], q[9] = 0, 0
	}
	return q
}

// TestRecovery replays the WAL written by inserts (with splits, new roots
// and a bulk delete) onto a copy of the relation files taken at an earlier
// checkpoint, and checks the result equals the original byte for byte
// (outside page holes): the page deltas cover every byte the index writes.
// Variants: with full-page images after the checkpoint, with deltas only,
// and from before the index was built.
func TestRecovery(t *testing.T) {
	for _, mode := range []string{"fpi", "deltas", "from-build"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			te := newTestEnv(t, 128) // small pool: evictions during the run
			rel := smgr.RelFileNumber(50)
			relText := smgr.RelFileNumber(51)
			snap := filepath.Join(te.dir, "snap")
			var redo page.LSN
			if mode == "from-build" {
				if err := te.sm.Create(rel, smgr.MainFork); err != nil {
					t.Fatal(err)
				}
				redo = te.w.InsertPos()
				copyDir(t, te.sm.Dir(), snap)
			}
			ix := buildInt4(t, te, rel, 20000)
			topt := Options{Name: "t", KeyTypes: []datum.Type{datum.Text, datum.Int4}}
			ixt := emptyIndex(t, te, relText, topt)
			if mode != "from-build" {
				if mode == "fpi" {
					redo = checkpoint(t, te)
				} else {
					if _, err := te.pool.FlushAll(); err != nil {
						t.Fatal(err)
					}
					redo = te.w.InsertPos()
				}
				copyDir(t, te.sm.Dir(), snap)
			}
			rng := rand.New(rand.NewSource(7))
			for i := 0; i < 8000; i++ {
				k := int64(rng.Intn(25000))
				if i%3 == 0 {
					k = 20000 + int64(i) // ascending tail
				}
				if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(k)}, page.ItemPointer{Block: 9000 + page.BlockNumber(i/50), Offset: page.OffsetNumber(i%50 + 1)}, nil); err != nil {
					t.Fatal(err)
				}
				s := make([]byte, rng.Intn(300))
				for j := range s {
					s[j] = byte('a' + rng.Intn(2))
				}
				var k2 datum.Datum
				if rng.Intn(8) > 0 {
					k2 = datum.Int(int64(rng.Intn(10)))
				}
				if err := ixt.Insert(nil, 2, []datum.Datum{datum.Str(string(s)), k2}, page.ItemPointer{Block: page.BlockNumber(i), Offset: 1}, nil); err != nil {
					t.Fatal(err)
				}
				if i == 5000 {
					if _, err := ix.BulkDelete(nil, 3, func(tid page.ItemPointer) bool { return tid.Offset%3 == 0 }); err != nil {
						t.Fatal(err)
					}
				}
			}
			mustCheck(t, ix)
			mustCheck(t, ixt)
			if err := te.w.Flush(te.w.InsertPos()); err != nil {
				t.Fatal(err)
			}
			if _, err := te.pool.FlushAll(); err != nil {
				t.Fatal(err)
			}

			// "crash": a fresh pool over the old copy, then redo
			sm2, err := smgr.Open(snap)
			if err != nil {
				t.Fatal(err)
			}
			defer sm2.Close()
			pool2 := buffer.New(sm2, 64)
			res, err := wal.Replay(filepath.Join(te.dir, "wal"), pool2, redo)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pool2.FlushAll(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: replayed %d records", mode, res.Records)
			for _, r := range []smgr.RelFileNumber{rel, relText} {
				n1, _ := te.sm.NBlocks(r, smgr.MainFork)
				n2, _ := sm2.NBlocks(r, smgr.MainFork)
				if n1 != n2 {
					t.Fatalf("rel %d: %d blocks, replayed %d", r, n1, n2)
				}
				a := make([]byte, page.Size)
				b := make([]byte, page.Size)
				for blk := page.BlockNumber(0); blk < n1; blk++ {
					if err := te.sm.Read(r, smgr.MainFork, blk, a); err != nil {
						t.Fatal(err)
					}
					if err := sm2.Read(r, smgr.MainFork, blk, b); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(maskHole(a), maskHole(b)) {
						ma, mb := maskHole(a), maskHole(b)
						for i := range ma {
							if ma[i] != mb[i] {
								t.Fatalf("rel %d block %d differs after redo at byte %d", r, blk, i)
							}
						}
					}
				}
			}
			// and the replayed index works
			ix2 := Open(&Env{Pool: pool2}, rel, int4Opts("boat_idx1"))
			mustCheck(t, ix2)
			got := scanAll(t, ix2, ix2.Scan(nil, nil, nil))
			want := scanAll(t, ix, ix.Scan(nil, nil, nil))
			if len(got) != len(want) {
				t.Fatalf("replayed index has %d entries, original %d", len(got), len(want))
			}
		})
	}
}
