package btree

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// xactSim imitates the transaction manager's two answers page deletion
// needs: the next xid, and the oldest xmin a running operation advertises.
// Every index operation of the tests runs between begin and end, as every
// index access in the engine runs under a snapshot or an xid.
type xactSim struct {
	next    atomic.Uint32
	mu      sync.Mutex
	running map[int]uint32
	id      int
}

func newXactSim() *xactSim {
	x := &xactSim{running: map[int]uint32{}}
	x.next.Store(3)
	return x
}

func (x *xactSim) NextXid() uint32 { return x.next.Load() }

// begin starts a transaction: it gets an xid and advertises it as xmin.
func (x *xactSim) begin() (id int, xid uint32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	xid = x.next.Add(1) - 1
	x.id++
	x.running[x.id] = xid
	return x.id, xid
}

func (x *xactSim) end(id int) {
	x.mu.Lock()
	delete(x.running, id)
	x.mu.Unlock()
}

func (x *xactSim) OldestXmin() uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	h := x.next.Load()
	for _, v := range x.running {
		if v < h {
			h = v
		}
	}
	return h
}

func (x *xactSim) attach(te *testEnv) {
	te.env.NextXid = x.NextXid
	te.env.OldestXmin = x.OldestXmin
}

// vacuum runs a bulk delete inside its own transaction, as VACUUM does.
func (x *xactSim) vacuum(t testing.TB, ix *Index, u *stats.Usage, dead func(page.ItemPointer) bool) BulkDeleteStats {
	t.Helper()
	id, xid := x.begin()
	defer x.end(id)
	st, err := ix.BulkDelete(u, xid, dead)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func nblocks(t testing.TB, te *testEnv, rel smgr.RelFileNumber) int {
	t.Helper()
	n, err := te.sm.NBlocks(rel, smgr.MainFork)
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// TestPageDeletion: deleting every entry of a key range empties its leaves;
// BulkDelete deletes them (two WAL records each), reports them as newly and
// currently deleted, and once no transaction from before the deletion is
// left, the next VACUUM reports them reusable and later splits reuse them
// instead of extending the file.
func TestPageDeletion(t *testing.T) {
	te := newTestEnv(t, 1024)
	x := newXactSim()
	x.attach(te)
	const n = 100000
	rel := smgr.RelFileNumber(70)
	ix := buildInt4(t, te, rel, n)
	st0, _ := ix.Stats(nil)
	inRange := func(k int) bool { return k >= 20000 && k < 60000 }
	dead := func(tid page.ItemPointer) bool {
		i := int(tid.Block)*100 + int(tid.Offset) - 1
		return tid.Block < 100000 && inRange(i)
	}
	// A transaction that is still running when the pages are deleted.
	oldID, _ := x.begin()
	var u stats.Usage
	st := x.vacuum(t, ix, &u, dead)
	t.Logf("first VACUUM: %+v; WAL %+v", st, u.WAL)
	// 40000 keys span 109-110 leaves; the two partly in the range stay.
	if st.TuplesRemoved != 40000 || st.NewlyDeleted < 105 || st.NewlyDeleted > 110 ||
		st.Deleted != st.NewlyDeleted || st.Free != 0 || st.PagesDeleted != st.NewlyDeleted || st.Pages != st0.Pages {
		t.Fatalf("first VACUUM: %+v", st)
	}
	// a VACUUM record per changed leaf (the deleted ones and the two
	// partly emptied), two records per deleted page, one META_CLEANUP
	if want := int64(st.NewlyDeleted + 2 + 2*st.NewlyDeleted + 1); u.WAL.Records != want {
		t.Fatalf("%d WAL records, want %d", u.WAL.Records, want)
	}
	mustCheck(t, ix)
	ist, _ := ix.Stats(nil)
	if ist.DeletedPages != st.NewlyDeleted || ist.LeafPages != st0.LeafPages-st.NewlyDeleted || ist.Tuples != n-40000 {
		t.Fatalf("stats after deletion: %+v", ist)
	}
	got := scanAll(t, ix, ix.Scan(nil, &Bound{Key: []datum.Datum{datum.Int(19990)}, Inclusive: true}, &Bound{Key: []datum.Datum{datum.Int(60010)}, Inclusive: true}))
	if len(got) != 21 || got[9].keys[0].Int() != 19999 || got[10].keys[0].Int() != 60000 {
		t.Fatalf("scan across the deleted range: %d entries", len(got))
	}
	if need, err := ix.NeedsCleanup(nil); err != nil || !need {
		t.Fatalf("NeedsCleanup = %v, %v", need, err)
	}

	// The old transaction still runs: nothing is reusable yet.
	st = x.vacuum(t, ix, nil, nil)
	if st.NewlyDeleted != 0 || st.Deleted != ist.DeletedPages || st.Free != 0 {
		t.Fatalf("second VACUUM with an old snapshot: %+v", st)
	}
	x.end(oldID)
	st = x.vacuum(t, ix, nil, dead)
	t.Logf("third VACUUM: %+v", st)
	if st.NewlyDeleted != 0 || st.Deleted != ist.DeletedPages || st.Free != st.Deleted || len(ix.FreePages()) != st.Free {
		t.Fatalf("third VACUUM: %+v", st)
	}
	if need, _ := ix.NeedsCleanup(nil); need {
		t.Fatal("NeedsCleanup after the pages became reusable")
	}

	// Inserts into the emptied range reuse the free pages: the file does
	// not grow while free pages remain.
	size := nblocks(t, te, rel)
	rng := rand.New(rand.NewSource(3))
	inserted := map[int]bool{}
	for len(inserted) < 12000 {
		k := 20000 + rng.Intn(40000)
		if inserted[k] {
			continue
		}
		inserted[k] = true
		id, xid := x.begin()
		if err := ix.Insert(nil, xid, []datum.Datum{datum.Int(int64(k))}, page.ItemPointer{Block: 200000 + page.BlockNumber(k/100), Offset: page.OffsetNumber(k%100 + 1)}, nil); err != nil {
			t.Fatal(err)
		}
		x.end(id)
	}
	left := len(ix.FreePages())
	t.Logf("after 12000 inserts: %d blocks (was %d), %d free pages left", nblocks(t, te, rel), size, left)
	if nblocks(t, te, rel) != size || left == st.Free {
		t.Fatalf("file grew to %d blocks (was %d) with %d of %d free pages unused", nblocks(t, te, rel), size, left, st.Free)
	}
	mustCheck(t, ix)
	all := scanAll(t, ix, ix.Scan(nil, nil, nil))
	if len(all) != n-40000+len(inserted) {
		t.Fatalf("%d entries, want %d", len(all), n-40000+len(inserted))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].keys[0].Int() >= all[i].keys[0].Int() {
			t.Fatalf("out of order at %d", i)
		}
	}
	// The reused pages are counted as live again.
	st = x.vacuum(t, ix, nil, nil)
	if st.Deleted != left || st.Free != left {
		t.Fatalf("VACUUM after reuse: %+v, %d free pages expected", st, left)
	}

	// Deleting everything: the rightmost leaf and the root stay.
	st = x.vacuum(t, ix, nil, func(page.ItemPointer) bool { return true })
	mustCheck(t, ix)
	ist, _ = ix.Stats(nil)
	t.Logf("everything deleted: %+v; %+v", st, ist)
	if ist.Tuples != 0 || ist.LeafPages != 1 || ist.InternalPages != 1 {
		t.Fatalf("after deleting everything: %+v", ist)
	}
	if got := scanAll(t, ix, ix.Scan(nil, nil, nil)); len(got) != 0 {
		t.Fatalf("%d entries left", len(got))
	}
	for k := 0; k < 3000; k++ {
		if err := ix.Insert(nil, 9, []datum.Datum{datum.Int(int64(k * 7 % 3001))}, tidOf(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, ix)
	if got := scanAll(t, ix, ix.Scan(nil, nil, nil)); len(got) != 3000 {
		t.Fatalf("%d entries", len(got))
	}
}

// TestPageDeletionSmall: an index whose root is a leaf, and leaves that are
// their parent's last child, are never deleted; unique inserts step over
// deleted pages.
func TestPageDeletionSmall(t *testing.T) {
	te := newTestEnv(t, 256)
	x := newXactSim()
	x.attach(te)
	ix := buildInt4(t, te, 71, 100)
	st := x.vacuum(t, ix, nil, func(page.ItemPointer) bool { return true })
	if st.NewlyDeleted != 0 || st.TuplesRemoved != 100 {
		t.Fatalf("root leaf: %+v", st)
	}
	mustCheck(t, ix)

	opt := int4Opts("u")
	opt.Unique = true
	b := NewBuilder(te.env, 72, opt)
	for i := 0; i < 3000; i++ {
		b.Add([]datum.Datum{datum.Int(int64(i))}, tidOf(i))
	}
	ixu, err := b.Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	// empty the middle leaves
	st = x.vacuum(t, ixu, nil, func(tid page.ItemPointer) bool {
		i := int(tid.Block)*100 + int(tid.Offset) - 1
		return i >= 500 && i < 2500
	})
	if st.NewlyDeleted < 4 {
		t.Fatalf("unique index: %+v", st)
	}
	mustCheck(t, ixu)
	seen := 0
	check := func(page.ItemPointer) (UniqueVerdict, error) { seen++; return UniqueConflict, nil }
	if err := ixu.Insert(nil, 5, []datum.Datum{datum.Int(2500)}, tidOf(9999), check); err == nil || seen != 1 {
		t.Fatalf("duplicate of a live key: err %v, %d checks", err, seen)
	}
	for i := 500; i < 2500; i += 3 {
		if err := ixu.Insert(nil, 5, []datum.Datum{datum.Int(int64(i))}, tidOf(10000+i), check); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, ixu)
}

// TestPageDeletionConcurrent runs page deletion and recycling while
// inserters and scanners work on the index. Stable entries are never dead:
// every scan must return all stable entries in its range, and every entry
// that existed when it started, in order. (Entries inserted meanwhile may
// come out of order: see README.md.)
// Transient entries fill the gaps and are removed by repeated VACUUMs,
// which empties, deletes and recycles pages under the readers' feet.
func TestPageDeletionConcurrent(t *testing.T) {
	te := newTestEnv(t, 512)
	x := newXactSim()
	x.attach(te)
	rel := smgr.RelFileNumber(73)
	const nkeys = 40000
	stable := func(k int) bool { return k < 4000 || k >= 36000 || k%1000 == 0 }
	b := NewBuilder(te.env, rel, int4Opts("cdel"))
	for k := 0; k < nkeys; k++ {
		if stable(k) {
			b.Add([]datum.Datum{datum.Int(int64(k))}, page.ItemPointer{Block: page.BlockNumber(k / 100), Offset: page.OffsetNumber(k%100 + 1)})
		}
	}
	ix, err := b.Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	isTransient := func(tid page.ItemPointer) bool { return tid.Block >= 100000 }
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	const writers = 2
	rounds := 30
	perRound := 2000
	if raceEnabled {
		rounds, perRound = 8, 1500
	}
	var inserted atomic.Int64
	var done [writers]atomic.Int64 // per writer: inserts finished
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w + 1)))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// a window moving through the key space, so that the
				// pages it leaves behind empty out
				win := int(inserted.Load()/700) * 1237 % 29000
				k := 4000 + win + rng.Intn(3000)
				if stable(k) {
					continue
				}
				id, xid := x.begin()
				tid := page.ItemPointer{Block: 100000 + page.BlockNumber(w*1000000+i/100), Offset: page.OffsetNumber(i%100 + 1)}
				err := ix.Insert(nil, xid, []datum.Datum{datum.Int(int64(k))}, tid, nil)
				x.end(id)
				if err != nil {
					report(err)
					return
				}
				done[w].Store(int64(i + 1))
				inserted.Add(1)
			}
		}(w)
	}
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(100 + s)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				lo := rng.Intn(nkeys)
				hi := lo + rng.Intn(8000)
				id, sxid := x.begin()
				var started [writers]int64
				for w := range started {
					started[w] = done[w].Load()
				}
				c := ix.Scan(nil, &Bound{Key: []datum.Datum{datum.Int(int64(lo))}, Inclusive: true}, &Bound{Key: []datum.Datum{datum.Int(int64(hi))}, Inclusive: false})
				want := lo
				prevK, prevT, prevB := int64(-1), page.ItemPointer{}, page.BlockNumber(0)
				var visited []page.BlockNumber
				for {
					tid, tup, ok, err := c.Next()
					if err != nil {
						x.end(id)
						report(err)
						return
					}
					if !ok {
						break
					}
					k, _ := ix.Keys(tup, nil)
					kv := k[0].Int()
					if isTransient(tid) {
						w := int(tid.Block-100000) / 1000000
						i := int(tid.Block-100000)%1000000*100 + int(tid.Offset) - 1
						if int64(i) >= started[w] {
							// Inserted after the scan started: it may come
							// out of order (a deleted page's key space went
							// to its right sibling, which the scan has not
							// read yet); a snapshot could not see it.
							if kv < int64(lo) || kv >= int64(hi) {
								x.end(id)
								report(fmt.Errorf("scan [%d,%d) returned %d", lo, hi, kv))
								return
							}
							continue
						}
					}
					if kv < prevK || (kv == prevK && !prevT.Less(tid)) || kv < int64(lo) || kv >= int64(hi) {
						x.end(id)
						report(fmt.Errorf("scan xmin %d (now next %d) [%d,%d): %d%v (block %d) after %d%v (block %d); blocks %v", sxid, x.NextXid(), lo, hi, kv, tid, c.blk, prevK, prevT, prevB, visited))
						return
					}
					if len(visited) == 0 || visited[len(visited)-1] != c.blk {
						visited = append(visited, c.blk)
					}
					prevK, prevT, prevB = kv, tid, c.blk
					if !isTransient(tid) {
						for ; want < int(kv); want++ {
							if stable(want) {
								x.end(id)
								report(fmt.Errorf("scan [%d,%d) missed stable key %d (next %d)", lo, hi, want, kv))
								return
							}
						}
						want = int(kv) + 1
					}
				}
				x.end(id)
				for ; want < hi && want < nkeys; want++ {
					if stable(want) {
						report(fmt.Errorf("scan [%d,%d) missed stable key %d at the end", lo, hi, want))
						return
					}
				}
			}
		}(s)
	}
	var tot BulkDeleteStats
	for r := 0; r < rounds; r++ {
		before := inserted.Load()
		for inserted.Load() < before+int64(perRound) {
			select {
			case err := <-errs:
				close(stop)
				wg.Wait()
				t.Fatal(err)
			default:
			}
			runtimeGosched()
		}
		st := x.vacuum(t, ix, nil, isTransient)
		tot.NewlyDeleted += st.NewlyDeleted
		tot.TuplesRemoved += st.TuplesRemoved
		tot.Free += st.Free
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustCheck(t, ix)
	// How far the file grew depends on the schedule (how long each scan
	// held the horizon back, how many splits came before the pages they
	// could reuse were deleted); what recycling guarantees does not. Once
	// no transaction from before a deletion is left, every deleted page is
	// reusable (by the third VACUUM: the first may still delete empty
	// leaves, and each VACUUM's own xid holds back the pages deleted just
	// before it), none is lost, and splits take them all before the file
	// grows.
	x.vacuum(t, ix, nil, nil)
	x.vacuum(t, ix, nil, nil)
	st := x.vacuum(t, ix, nil, nil)
	ist, _ := ix.Stats(nil)
	t.Logf("%d rounds: %d inserted, %d removed, %d pages deleted in all, %d found reusable; now %+v; %+v", rounds, inserted.Load(), tot.TuplesRemoved, tot.NewlyDeleted, tot.Free, st, ist)
	if tot.NewlyDeleted == 0 || tot.Free == 0 {
		t.Fatal("no page was deleted, or none became reusable")
	}
	if st.Free != st.Deleted || st.Deleted != ist.DeletedPages || len(ix.FreePages()) != st.Free ||
		ist.Pages != 1+ist.LeafPages+ist.InternalPages+ist.DeletedPages+ist.EmptyPages {
		t.Fatalf("after the run, with no transaction left: %+v, %d in the free list; %+v", st, len(ix.FreePages()), ist)
	}
	assertSplitsReuse(t, te, ix, rel, st.Free, func(i int) (int64, page.ItemPointer) {
		// distinct keys (duplicates would be deduplicated, not split)
		return int64(20000+i%100)*1000 + int64(i/100), page.ItemPointer{Block: 900000 + page.BlockNumber(i/100), Offset: page.OffsetNumber(i%100 + 1)}
	})
	inserted.Add(int64(st.Free * splitReuseEntries))
	got := scanAll(t, ix, ix.Scan(nil, nil, nil))
	nstable := 0
	for _, e := range got {
		if !isTransient(e.tid) {
			nstable++
		}
	}
	want := 0
	for k := 0; k < nkeys; k++ {
		if stable(k) {
			want++
		}
	}
	if nstable != want || int64(len(got)-nstable) != inserted.Load()-tot.TuplesRemoved {
		t.Fatalf("%d stable entries (want %d), %d transient (want %d)", nstable, want, len(got)-nstable, inserted.Load()-tot.TuplesRemoved)
	}
}

// splitReuseEntries is how many entries per free page assertSplitsReuse
// inserts: a split leaves two pages about half full (183 int4 entries).
const splitReuseEntries = 400

// assertSplitsReuse inserts free*splitReuseEntries entries (key and TID of
// the i-th from entry, keys in a narrow range so that they split pages)
// into ix, which has free reusable pages and no concurrent users: the file
// must not grow until every free page has been taken by a split.
func assertSplitsReuse(t *testing.T, te *testEnv, ix *Index, rel smgr.RelFileNumber, free int, entry func(i int) (int64, page.ItemPointer)) {
	t.Helper()
	size := nblocks(t, te, rel)
	live := func() int {
		st, err := ix.Stats(nil)
		if err != nil {
			t.Fatal(err)
		}
		return st.LeafPages + st.InternalPages
	}
	live0 := live()
	for i := 0; i < free*splitReuseEntries; i++ {
		k, tid := entry(i)
		if err := ix.Insert(nil, 5, []datum.Datum{datum.Int(k)}, tid, nil); err != nil {
			t.Fatal(err)
		}
		if i%50 != 0 {
			continue
		}
		newPages := live() - live0
		if grown := nblocks(t, te, rel) - size; grown != max(0, newPages-free) {
			t.Fatalf("after %d inserts: %d new pages, %d were free, but the file grew by %d blocks", i+1, newPages, free, grown)
		}
	}
	if live()-live0 < free {
		t.Fatalf("only %d splits for %d free pages: insert more", live()-live0, free)
	}
}

// TestBulkDeleteBacktracks: splits reuse free pages while a bulk delete
// runs, also blocks its scan has passed; the bulk delete goes back for the
// dead entries a split moved there (the vacuum cycle id), so none is left.
func TestBulkDeleteBacktracks(t *testing.T) {
	te := newTestEnv(t, 1024)
	x := newXactSim()
	x.attach(te)
	rel := smgr.RelFileNumber(75)
	const n = 20000
	ix := buildInt4(t, te, rel, n) // key i at tidOf(i), leaves in key order
	keyOf := func(tid page.ItemPointer) int { return int(tid.Block)*100 + int(tid.Offset) - 1 }
	orig := func(tid page.ItemPointer) bool { return tid.Block < 1000 }
	x.vacuum(t, ix, nil, func(tid page.ItemPointer) bool { k := keyOf(tid); return orig(tid) && k >= 2000 && k < 6000 })
	x.vacuum(t, ix, nil, nil) // its own xid still holds the deleted pages
	if st := x.vacuum(t, ix, nil, nil); st.Free < 8 || st.Free != st.Deleted {
		t.Fatalf("setup: %+v", st)
	}
	free := ix.FreePages()
	pauseAt := leafOf(t, ix, 12000)
	if free[0] >= pauseAt || leafOf(t, ix, 16000) <= pauseAt {
		t.Fatalf("setup: free pages %v, pause at block %d, splits at block %d", free, pauseAt, leafOf(t, ix, 16000))
	}
	dead := func(tid page.ItemPointer) bool {
		k := keyOf(tid)
		return orig(tid) && k >= 14000 && k < 18000 && k%2 == 1
	}
	size := nblocks(t, te, rel)

	// The bulk delete stops on the leaf holding key 12000 (locked), after
	// its scan passed the free pages.
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan BulkDeleteStats, 1)
	go func() {
		done <- x.vacuum(t, ix, nil, func(tid page.ItemPointer) bool {
			if orig(tid) && keyOf(tid) >= 12000 {
				once.Do(func() { close(paused); <-resume })
			}
			return dead(tid)
		})
	}()
	<-paused
	// Split the leaf of key 16000 (not reached yet): its right half, dead
	// entries included, goes to a free page behind the scan.
	for i := 0; i < 400; i++ {
		if err := ix.Insert(nil, 5, []datum.Datum{datum.Int(int64(16000 + i%50))}, page.ItemPointer{Block: 5000 + page.BlockNumber(i/100), Offset: page.OffsetNumber(i%100 + 1)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	reused := len(free) - len(ix.FreePages())
	if grown := nblocks(t, te, rel) - size; grown != 0 || reused == 0 {
		t.Fatalf("splits during the bulk delete: file grew by %d blocks, %d free pages reused", grown, reused)
	}
	close(resume)
	st := <-done
	mustCheck(t, ix)
	left := 0
	for _, e := range scanAll(t, ix, ix.Scan(nil, nil, nil)) {
		if dead(e.tid) {
			left++
		}
	}
	t.Logf("%d free pages reused during the bulk delete; %+v", reused, st)
	if left != 0 || st.TuplesRemoved != 2000 {
		t.Fatalf("%d dead entries left, %d removed (want 2000)", left, st.TuplesRemoved)
	}
}

// leafOf returns the block of the leaf holding key k.
func leafOf(t *testing.T, ix *Index, k int64) page.BlockNumber {
	t.Helper()
	c := ix.ScanEqual(nil, []datum.Datum{datum.Int(k)})
	if _, _, ok, err := c.Next(); !ok || err != nil {
		t.Fatalf("key %d: %v %v", k, ok, err)
	}
	return c.blk
}

// TestPageDeletionRecovery replays the WAL of page deletions, recycling
// and inserts onto a copy of the files taken at a checkpoint and compares
// the pages byte for byte; then it replays only up to the first
// MARK_PAGE_HALFDEAD record (a crash between the two stages): the index
// is consistent, scans and inserts work, and the next VACUUM finishes the
// deletion.
func TestPageDeletionRecovery(t *testing.T) {
	te := newTestEnv(t, 128)
	x := newXactSim()
	x.attach(te)
	rel := smgr.RelFileNumber(74)
	ix := buildInt4(t, te, rel, 30000)
	redo := checkpoint(t, te)
	snap := filepath.Join(te.dir, "snap")
	copyDir(t, te.sm.Dir(), snap)

	rng := rand.New(rand.NewSource(11))
	for round := 0; round < 3; round++ {
		lo := 2000 + round*8000
		st := x.vacuum(t, ix, nil, func(tid page.ItemPointer) bool {
			i := int(tid.Block)*100 + int(tid.Offset) - 1
			return (tid.Block < 100000 && i >= lo && i < lo+6000) || tid.Block >= 100000
		})
		if st.NewlyDeleted == 0 {
			t.Fatalf("round %d: nothing deleted: %+v", round, st)
		}
		x.vacuum(t, ix, nil, nil) // makes the pages reusable
		for i := 0; i < 3000; i++ {
			k := rng.Intn(30000)
			if err := ix.Insert(nil, 2, []datum.Datum{datum.Int(int64(k))}, page.ItemPointer{Block: 100000 + page.BlockNumber(round*100+i/50), Offset: page.OffsetNumber(i%50 + 1)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if round == 1 {
			checkpoint(t, te) // later changes log images again
		}
	}
	mustCheck(t, ix)
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	if _, err := te.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	want := scanAll(t, ix, ix.Scan(nil, nil, nil))

	t.Run("full", func(t *testing.T) {
		dir := filepath.Join(te.dir, "full")
		copyDir(t, snap, dir)
		sm2, err := smgr.Open(dir)
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
		ix2 := Open(&Env{Pool: pool2}, rel, int4Opts("boat_idx1"))
		mustCheck(t, ix2)
		if got := scanAll(t, ix2, ix2.Scan(nil, nil, nil)); len(got) != len(want) {
			t.Fatalf("replayed index has %d entries, original %d", len(got), len(want))
		}
	})

	t.Run("halfdead", func(t *testing.T) {
		dir := filepath.Join(te.dir, "half")
		copyDir(t, snap, dir)
		sm2, err := smgr.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer sm2.Close()
		pool2 := buffer.New(sm2, 256)
		r := wal.NewReader(filepath.Join(te.dir, "wal"), redo)
		found := false
		for {
			d, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := wal.RedoRecord(pool2, d); err != nil {
				t.Fatal(err)
			}
			if d.Rmgr == wal.RmBtree && d.Info == infoMarkHalf {
				found = true
				break // crash before the unlink
			}
		}
		r.Close()
		if !found {
			t.Fatal("no MARK_PAGE_HALFDEAD record")
		}
		w2, err := wal.Open(filepath.Join(te.dir, "wal3"), te.w.InsertPos(), 0, wal.Options{FullPageWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w2.Close()
		pool2.FlushWAL = w2.Flush
		x2 := newXactSim()
		ix2 := Open(&Env{Pool: pool2, WAL: w2, NextXid: x2.NextXid, OldestXmin: x2.OldestXmin}, rel, int4Opts("boat_idx1"))
		mustCheck(t, ix2)
		ist, _ := ix2.Stats(nil)
		if ist.DeletedPages != 1 {
			t.Fatalf("%d half-dead pages, want 1", ist.DeletedPages)
		}
		got := scanAll(t, ix2, ix2.Scan(nil, nil, nil))
		if len(got) < 30000-6000 || len(got) >= 30000 {
			t.Fatalf("%d entries after the crash", len(got))
		}
		for k := 2000; k < 8000; k += 97 {
			if err := ix2.Insert(nil, 3, []datum.Datum{datum.Int(int64(k))}, page.ItemPointer{Block: 300000, Offset: page.OffsetNumber(k%1000 + 1)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		mustCheck(t, ix2)
		st := x2.vacuum(t, ix2, nil, nil)
		t.Logf("VACUUM after the crash: %+v", st)
		if st.NewlyDeleted < 1 {
			t.Fatalf("half-dead page not finished: %+v", st)
		}
		mustCheck(t, ix2)
		ist, _ = ix2.Stats(nil)
		if ist.DeletedPages != st.Deleted {
			t.Fatalf("stats %+v after %+v", ist, st)
		}
	})
}

func runtimeGosched() { runtime.Gosched() }
