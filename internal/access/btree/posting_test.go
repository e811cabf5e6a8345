package btree

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// postingStats counts the posting lists and their TIDs on the leaves.
func postingStats(t testing.TB, ix *Index) (lists, tids int) {
	t.Helper()
	o := ix.newOp(nil)
	n, err := ix.pool.Smgr().NBlocks(ix.rel, smgr.MainFork)
	if err != nil {
		t.Fatal(err)
	}
	for blk := page.BlockNumber(1); blk < n; blk++ {
		lb, err := o.read(blk, false)
		if err != nil {
			t.Fatal(err)
		}
		p := o.page(lb)
		if !p.IsNew() {
			if op := getOpaque(p); op.isLeaf() && !op.ignore() {
				for off := op.firstData(); off <= p.MaxOffset(); off++ {
					if it := itemAt(p, off); isPosting(it) {
						lists++
						tids += nPosting(it)
					}
				}
			}
		}
		o.release(lb)
	}
	return lists, tids
}

// tidModel is the sorted-map model of an index of int keys: key -> TIDs.
type tidModel map[int64]map[page.ItemPointer]bool

func (m tidModel) sorted() []entry {
	var out []entry
	for k, ts := range m {
		for tid := range ts {
			out = append(out, entry{keys: []datum.Datum{datum.Int(k)}, tid: tid})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := out[i].keys[0].Int(), out[j].keys[0].Int(); a != b {
			return a < b
		}
		return out[i].tid.Less(out[j].tid)
	})
	return out
}

func (m tidModel) has(tid page.ItemPointer) bool {
	for _, ts := range m {
		if ts[tid] {
			return true
		}
	}
	return false
}

func sameList(got, want []entry) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d entries, model has %d", len(got), len(want))
	}
	for i := range got {
		if got[i].keys[0].Int() != want[i].keys[0].Int() || got[i].tid != want[i].tid {
			return fmt.Errorf("entry %d: (%d, %s), model (%d, %s)", i, got[i].keys[0].Int(), got[i].tid, want[i].keys[0].Int(), want[i].tid)
		}
	}
	return nil
}

// TestPostingModel: random inserts (TIDs in random order, so new TIDs fall
// inside posting lists), bottom-up deletions and VACUUMs against a
// sorted-map model, on a deduplicating index of few distinct keys; scans
// and equality lookups see every TID of every posting list exactly once.
func TestPostingModel(t *testing.T) {
	for _, nkeys := range []int{3, 40, 2000} {
		t.Run(fmt.Sprint(nkeys), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewSource(int64(nkeys)))
			te := newTestEnv(t, 256)
			ix := emptyIndex(t, te, 30, int4Opts("p"))
			m := tidModel{}
			dead := map[page.ItemPointer]bool{}
			used := map[page.ItemPointer]bool{}
			newTID := func() page.ItemPointer {
				for {
					tid := page.ItemPointer{Block: page.BlockNumber(rng.Intn(300)), Offset: page.OffsetNumber(1 + rng.Intn(100))}
					if !used[tid] {
						used[tid] = true
						return tid
					}
				}
			}
			hints := &InsertHints{EntryDead: func(tid page.ItemPointer) (bool, error) { return dead[tid], nil }}
			bottomUp := 0 // dead TIDs that bottom-up passes removed
			for round := 0; round < 6; round++ {
				for i := 0; i < 3000; i++ {
					k := int64(rng.Intn(nkeys))
					tid := newTID()
					hints.Unchanged = rng.Intn(2) == 0
					if err := ix.InsertWith(nil, nil, 2, []datum.Datum{datum.Int(k)}, tid, nil, hints); err != nil {
						t.Fatal(err)
					}
					if m[k] == nil {
						m[k] = map[page.ItemPointer]bool{}
					}
					m[k][tid] = true
					if rng.Intn(4) == 0 {
						// a version that died: bottom-up deletion may drop it
						// from now on, VACUUM must
						dead[tid] = true
					}
				}
				// Bottom-up passes removed some dead TIDs: the model keeps
				// the others, and nothing live was lost.
				got := scanAll(t, ix, ix.Scan(nil, nil, nil))
				for _, e := range got {
					if !m[e.keys[0].Int()][e.tid] {
						t.Fatalf("scan returned (%d, %s), which was never inserted or was removed", e.keys[0].Int(), e.tid)
					}
				}
				for k, ts := range m {
					for tid := range ts {
						if !dead[tid] && !containsEntry(got, k, tid) {
							t.Fatalf("live entry (%d, %s) is gone", k, tid)
						}
					}
				}
				for k, ts := range m {
					for tid := range ts {
						if dead[tid] && !containsEntry(got, k, tid) {
							delete(ts, tid)
							bottomUp++
						}
					}
				}
				mustCheck(t, ix)
				if err := sameList(got, m.sorted()); err != nil {
					t.Fatalf("round %d full scan: %v", round, err)
				}
				for q := 0; q < 20; q++ {
					k := int64(rng.Intn(nkeys))
					got := scanAll(t, ix, ix.ScanEqual(nil, []datum.Datum{datum.Int(k)}))
					want := tidModel{k: m[k]}.sorted()
					if err := sameList(got, want); err != nil {
						t.Fatalf("key %d: %v", k, err)
					}
				}
				if lists, _ := postingStats(t, ix); nkeys < 100 && lists == 0 {
					t.Fatal("no posting lists on an index of few distinct keys")
				}
				if round%2 == 1 {
					st, err := ix.BulkDelete(nil, 3, func(tid page.ItemPointer) bool { return dead[tid] })
					if err != nil {
						t.Fatal(err)
					}
					removed := 0
					for _, ts := range m {
						for tid := range ts {
							if dead[tid] {
								delete(ts, tid)
								removed++
							}
						}
					}
					if st.TuplesRemoved != int64(removed) || st.TuplesRemaining != int64(len(m.sorted())) {
						t.Fatalf("VACUUM: %+v; model removed %d, keeps %d", st, removed, len(m.sorted()))
					}
					mustCheck(t, ix)
					if err := sameList(scanAll(t, ix, ix.Scan(nil, nil, nil)), m.sorted()); err != nil {
						t.Fatalf("after VACUUM: %v", err)
					}
				}
			}
			ist, _ := ix.Stats(nil)
			lists, tids := postingStats(t, ix)
			t.Logf("%d keys: %+v; %d posting lists with %d TIDs; %d dead TIDs removed bottom-up", nkeys, ist, lists, tids, bottomUp)
			if bottomUp == 0 {
				t.Fatal("no bottom-up deletion happened")
			}
			if ist.Tuples != int64(len(m.sorted())) {
				t.Fatalf("Stats counts %d tuples, the model has %d", ist.Tuples, len(m.sorted()))
			}
		})
	}
}

func containsEntry(es []entry, k int64, tid page.ItemPointer) bool {
	i := sort.Search(len(es), func(i int) bool {
		if a := es[i].keys[0].Int(); a != k {
			return a > k
		}
		return !es[i].tid.Less(tid)
	})
	return i < len(es) && es[i].keys[0].Int() == k && es[i].tid == tid
}

// TestDeduplicateOff: deduplicate_items = off and types without
// equalimage (float8, numeric) never form posting lists.
func TestDeduplicateOff(t *testing.T) {
	te := newTestEnv(t, 256)
	for i, opt := range []Options{
		{Name: "off", KeyTypes: []datum.Type{datum.Int4}, NoDeduplicate: true},
		{Name: "f8", KeyTypes: []datum.Type{datum.Float8}},
	} {
		ix := emptyIndex(t, te, smgr.RelFileNumber(60+i), opt)
		for j := 0; j < 3000; j++ {
			k := datum.Int(int64(j % 3))
			if opt.KeyTypes[0] == datum.Float8 {
				k = datum.Float(float64(j % 3))
			}
			if err := ix.Insert(nil, 2, []datum.Datum{k}, tidOf(j+1), nil); err != nil {
				t.Fatal(err)
			}
		}
		if lists, _ := postingStats(t, ix); lists != 0 {
			t.Fatalf("%s: %d posting lists", opt.Name, lists)
		}
		mustCheck(t, ix)
	}
}

// TestUniqueDedupVersionsOnly: a unique index deduplicates a full leaf
// only when the insert found versions of its key (PostgreSQL 13+), so
// distinct keys never form posting lists, versions of one key do, and the
// unique check sees through them.
func TestUniqueDedupVersionsOnly(t *testing.T) {
	te := newTestEnv(t, 256)
	opt := int4Opts("u")
	opt.Unique = true
	ix := emptyIndex(t, te, 70, opt)
	dead := func(page.ItemPointer) (UniqueVerdict, error) { return UniqueDead, nil }
	for i := 1; i <= 5000; i++ {
		if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(i))}, tidOf(i), dead); err != nil {
			t.Fatal(err)
		}
	}
	if lists, _ := postingStats(t, ix); lists != 0 {
		t.Fatalf("distinct keys made %d posting lists", lists)
	}
	// Every row updated three times, the old versions dead: versions pile up.
	n := 5000
	for v := 0; v < 3; v++ {
		for i := 1; i <= 5000; i++ {
			n++
			if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(i))}, tidOf(n), dead); err != nil {
				t.Fatal(err)
			}
		}
	}
	lists, tids := postingStats(t, ix)
	if lists == 0 {
		t.Fatal("versions of one key were not deduplicated")
	}
	mustCheck(t, ix)
	// A live version inside a posting list is a conflict.
	live := tidOf(5000 + 42)
	err := ix.Insert(nil, 2, []datum.Datum{datum.Int(42)}, tidOf(n+1), func(tid page.ItemPointer) (UniqueVerdict, error) {
		if tid == live {
			return UniqueConflict, nil
		}
		return UniqueDead, nil
	})
	if err == nil || !strings.Contains(err.Error(), "duplicate key value violates unique constraint") {
		t.Fatalf("insert over a live version in a posting list: %v", err)
	}
	t.Logf("%d posting lists with %d TIDs", lists, tids)
}

// TestCheckCorruptPosting: Check (tidal_check) finds a posting list whose
// TIDs are out of order, and names the block.
func TestCheckCorruptPosting(t *testing.T) {
	te := newTestEnv(t, 256)
	b := NewBuilder(te.env, 80, int4Opts("c"))
	for i := 1; i <= 5000; i++ {
		b.Add([]datum.Datum{datum.Int(int64(i % 10))}, tidOf(i))
	}
	ix, err := b.Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	mustCheck(t, ix)
	buf, err := te.pool.Read(nil, ix.tag(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.pool.Lock(buf, buffer.Exclusive)
	p := te.pool.Page(buf)
	it := itemAt(p, getOpaque(p).firstData())
	if !isPosting(it) {
		t.Fatal("expected a posting list on block 2")
	}
	first := postingTID(it, 0)
	page.PutItemPointer(it[postingOffset(it):], postingTID(it, 1))
	page.PutItemPointer(it[postingOffset(it)+page.ItemPointerSize:], first)
	te.pool.UnlockRelease(buf, buffer.Exclusive)
	err = ix.Check(nil)
	if err == nil || !strings.Contains(err.Error(), "block 2") || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("Check of a corrupt posting list: %v", err)
	}
}

// TestPostingRecovery: the records of deduplication (DEDUP), of inserts
// into a posting list's range (INSERT_POST), of bottom-up deletion
// (DELETE) and of VACUUM shrinking posting lists replay to the same pages,
// from full-page images and from deltas alone.
func TestPostingRecovery(t *testing.T) {
	for _, mode := range []string{"fpi", "deltas"} {
		t.Run(mode, func(t *testing.T) {
			te := newTestEnv(t, 128)
			rel := smgr.RelFileNumber(90)
			ix := emptyIndex(t, te, rel, int4Opts("r"))
			var redo page.LSN
			if mode == "fpi" {
				redo = checkpoint(t, te)
			} else {
				if _, err := te.pool.FlushAll(); err != nil {
					t.Fatal(err)
				}
				redo = te.w.InsertPos()
			}
			snap := filepath.Join(te.dir, "snap")
			copyDir(t, te.sm.Dir(), snap)
			// even offsets first: the pages fill and deduplicate
			for i := 0; i < 6000; i++ {
				tid := page.ItemPointer{Block: page.BlockNumber(i / 50), Offset: page.OffsetNumber(2 * (i%50 + 1))}
				if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(i % 7))}, tid, nil); err != nil {
					t.Fatal(err)
				}
			}
			if lists, _ := postingStats(t, ix); lists == 0 {
				t.Fatal("no posting lists")
			}
			// odd offsets land inside posting lists (posting-list splits);
			// updates with an unchanged key delete the dead even ones
			hints := &InsertHints{Unchanged: true, EntryDead: func(tid page.ItemPointer) (bool, error) { return tid.Block%3 == 0, nil }}
			for i := 0; i < 6000; i++ {
				tid := page.ItemPointer{Block: page.BlockNumber(i / 50), Offset: page.OffsetNumber(2*(i%50+1) - 1)}
				if err := ix.InsertWith(nil, nil, 2, []datum.Datum{datum.Int(int64(i % 7))}, tid, nil, hints); err != nil {
					t.Fatal(err)
				}
			}
			mustCheck(t, ix)
			if _, err := ix.BulkDelete(nil, 3, func(tid page.ItemPointer) bool { return tid.Offset%5 == 0 }); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, ix)
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
			n2, _ := sm2.NBlocks(rel, smgr.MainFork)
			if n1 != n2 {
				t.Fatalf("%d blocks, replayed %d", n1, n2)
			}
			a := make([]byte, page.Size)
			b := make([]byte, page.Size)
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
			ix2 := Open(&Env{Pool: pool2}, rel, int4Opts("r"))
			mustCheck(t, ix2)
			got := scanAll(t, ix2, ix2.Scan(nil, nil, nil))
			want := scanAll(t, ix, ix.Scan(nil, nil, nil))
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("replayed index has %d entries, original %d", len(got), len(want))
			}
			for _, e := range want {
				if e.tid.Offset%5 == 0 {
					t.Fatalf("VACUUM left %s", e.tid)
				}
			}
		})
	}
}

// TestKillAndSimpleDelete: entries a scan reports dead (KillPrior) become
// LP_DEAD when it leaves the page; scans skip them, an insert into the
// full page deletes them instead of splitting (simple deletion), and
// VACUUM removes any left.
func TestKillAndSimpleDelete(t *testing.T) {
	te := newTestEnv(t, 256)
	ix := emptyIndex(t, te, 95, int4Opts("k"))
	// 400 distinct keys fill one leaf (no deduplication possible)
	n := 0
	for n < 400 {
		n++
		if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(n))}, tidOf(n), nil); err != nil {
			t.Fatal(err)
		}
	}
	st0, _ := ix.Stats(nil)
	if st0.LeafPages != 1 {
		t.Fatalf("%d leaves for 400 entries", st0.LeafPages)
	}
	// kill every even key
	c := ix.Scan(nil, nil, nil)
	for {
		tid, _, ok, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if tid.Offset%2 == 0 {
			c.KillPrior()
		}
	}
	c.Close()
	got := scanAll(t, ix, ix.Scan(nil, nil, nil))
	for _, e := range got {
		if e.tid.Offset%2 == 0 {
			t.Fatalf("scan returned killed entry %s", e.tid)
		}
	}
	if len(got) == 400 {
		t.Fatal("nothing was marked dead")
	}
	mustCheck(t, ix)
	// fill the page: the LP_DEAD items make room, no split
	for i := 0; i < 150; i++ {
		n++
		if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(n))}, tidOf(n), nil); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := ix.Stats(nil)
	if st.LeafPages != 1 {
		t.Fatalf("split instead of deleting LP_DEAD items: %+v", st)
	}
	if st.Tuples != int64(len(got)+150) {
		t.Fatalf("%d entries, want %d", st.Tuples, len(got)+150)
	}
	mustCheck(t, ix)
	// kill some more; VACUUM removes them with nothing else dead
	c = ix.Scan(nil, nil, nil)
	killed := 0
	for {
		_, _, ok, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if killed < 10 {
			c.KillPrior()
			killed++
		}
	}
	c.Close()
	bst, err := ix.BulkDelete(nil, 3, func(page.ItemPointer) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if bst.TuplesRemoved != 10 {
		t.Fatalf("VACUUM removed %d LP_DEAD entries, want 10", bst.TuplesRemoved)
	}
	mustCheck(t, ix)
}
