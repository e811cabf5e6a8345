package buffer

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

const rel smgr.RelFileNumber = 1000

type env struct {
	dir  string
	sm   *smgr.Manager
	pool *Pool
	// flushed records every FlushWAL call
	mu      sync.Mutex
	flushed []page.LSN
}

func newEnv(t testing.TB, nbuf int) *env {
	t.Helper()
	dir := t.TempDir()
	sm, err := smgr.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	e := &env{dir: dir, sm: sm, pool: New(sm, nbuf)}
	e.pool.FlushWAL = func(l page.LSN) error {
		e.mu.Lock()
		e.flushed = append(e.flushed, l)
		e.mu.Unlock()
		return nil
	}
	return e
}

func openSmgr(t testing.TB, dir string) *smgr.Manager {
	t.Helper()
	sm, err := smgr.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	return sm
}

func tag(blk page.BlockNumber) Tag { return Tag{Rel: rel, Fork: smgr.MainFork, Block: blk} }

// stamp formats a page whose one item holds blk, and sets its LSN.
func stamp(p page.Page, blk page.BlockNumber, lsn page.LSN) {
	page.Init(p, 0, nil)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], blk)
	p.AddItem(b[:], page.InvalidOffset, false, false, 0, nil)
	p.SetLSN(lsn)
}

func stampOf(p page.Page) page.BlockNumber { return binary.LittleEndian.Uint32(p.ItemBytes(1)) }

// fill creates n stamped blocks on disk (through the pool, then flushed).
func (e *env) fill(t testing.TB, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		b, blk, err := e.pool.Extend(nil, rel, smgr.MainFork, nil)
		if err != nil {
			t.Fatal(err)
		}
		stamp(e.pool.Page(b), blk, page.LSN(blk+1))
		e.pool.MarkDirty(nil, b)
		e.pool.UnlockRelease(b, Exclusive)
	}
	if _, err := e.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	// Forget everything so later reads are misses.
	e.pool.DropRelation(rel, smgr.MainFork, 0, true)
}

func (e *env) read(t testing.TB, u *stats.Usage, blk page.BlockNumber, s *Strategy) Buffer {
	t.Helper()
	b, err := e.pool.Read(u, tag(blk), s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCounters: PostgreSQL's BufferUsage rules — a hit for a cached block,
// a read for a miss, dirtied once per clean→dirty transition, written for
// an eviction of a dirty buffer by this backend and for each extension.
func TestCounters(t *testing.T) {
	e := newEnv(t, 16)
	e.fill(t, 40)
	var u stats.Usage
	b := e.read(t, &u, 0, nil)
	e.pool.Release(b)
	b = e.read(t, &u, 0, nil)
	if u.Buf != (stats.BufferUsage{SharedRead: 1, SharedHit: 1}) {
		t.Fatalf("after miss+hit: %+v", u.Buf)
	}
	e.pool.Lock(b, Exclusive)
	e.pool.MarkDirty(&u, b)
	e.pool.MarkDirty(&u, b) // already dirty: not counted again
	e.pool.UnlockRelease(b, Exclusive)
	if u.Buf.SharedDirtied != 1 {
		t.Fatalf("dirtied %d", u.Buf.SharedDirtied)
	}
	// A hint-bit change on a dirty buffer is not a new dirtying either.
	b = e.read(t, &u, 0, nil)
	e.pool.Lock(b, Share)
	e.pool.MarkDirtyHint(&u, b)
	e.pool.UnlockRelease(b, Share)
	if u.Buf.SharedDirtied != 1 {
		t.Fatalf("dirtied %d after hint on dirty page", u.Buf.SharedDirtied)
	}
	// Read 39 other blocks through a 16-frame pool: block 0 is evicted
	// dirty by us, so one write.
	u = stats.Usage{}
	for blk := page.BlockNumber(1); blk < 40; blk++ {
		e.pool.Release(e.read(t, &u, blk, nil))
	}
	if u.Buf.SharedRead != 39 || u.Buf.SharedWritten != 1 || u.Buf.SharedHit != 0 {
		t.Fatalf("scan: %+v", u.Buf)
	}
	if e.pool.Cached(tag(0)) {
		t.Fatal("block 0 still cached")
	}
	// Extension counts as written (PostgreSQL 15), not read.
	u = stats.Usage{}
	b, blk, err := e.pool.Extend(&u, rel, smgr.MainFork, nil)
	if err != nil || blk != 40 {
		t.Fatal(blk, err)
	}
	if u.Buf != (stats.BufferUsage{SharedWritten: 1}) {
		t.Fatalf("extend: %+v", u.Buf)
	}
	if !e.pool.Page(b).IsNew() {
		t.Fatal("extended page not zero")
	}
	stamp(e.pool.Page(b), blk, 1)
	e.pool.MarkDirty(nil, b)
	e.pool.UnlockRelease(b, Exclusive)
	// ReadZero of a missing block counts nothing (RBM_ZERO).
	u = stats.Usage{}
	b, err = e.pool.ReadZero(&u, tag(41))
	if err != nil {
		t.Fatal(err)
	}
	e.pool.Release(b)
	if u.Buf != (stats.BufferUsage{}) {
		t.Fatalf("readzero: %+v", u.Buf)
	}
	// FlushAll (the checkpointer's work) is not charged to anyone.
	n, err := e.pool.FlushAll()
	if err != nil || n != 1 {
		t.Fatalf("flushall wrote %d: %v", n, err)
	}
}

// TestWALBeforeData: a dirty page is written only after FlushWAL was
// called with its LSN; at the moment of the call the old contents are
// still on disk.
func TestWALBeforeData(t *testing.T) {
	e := newEnv(t, 16)
	e.fill(t, 20)
	const lsn = page.LSN(0x1_0000_1234)
	onDiskAtFlush := page.LSN(0)
	e.pool.FlushWAL = func(l page.LSN) error {
		if l == lsn {
			buf := make([]byte, page.Size)
			if err := e.sm.Read(rel, smgr.MainFork, 3, buf); err != nil {
				t.Error(err)
			}
			onDiskAtFlush = page.Page(buf).LSN()
		}
		e.flushed = append(e.flushed, l)
		return nil
	}
	b := e.read(t, nil, 3, nil)
	e.pool.Lock(b, Exclusive)
	e.pool.Page(b).SetLSN(lsn)
	e.pool.MarkDirty(nil, b)
	e.pool.UnlockRelease(b, Exclusive)
	// Evict it.
	for blk := page.BlockNumber(4); blk < 20; blk++ {
		e.pool.Release(e.read(t, nil, blk, nil))
	}
	if e.pool.Cached(tag(3)) {
		t.Fatal("not evicted")
	}
	found := false
	for _, l := range e.flushed {
		found = found || l == lsn
	}
	if !found {
		t.Fatalf("FlushWAL not called with %#x: %v", lsn, e.flushed)
	}
	if onDiskAtFlush != 4 {
		t.Fatalf("page on disk at flush time has LSN %#x, want the old 4", onDiskAtFlush)
	}
	buf := make([]byte, page.Size)
	e.sm.Read(rel, smgr.MainFork, 3, buf)
	if page.Page(buf).LSN() != lsn {
		t.Fatal("page not written after the flush")
	}
	// A failing WAL flush keeps the page dirty and unwritten.
	e.pool.FlushWAL = func(page.LSN) error { return os.ErrDeadlineExceeded }
	b = e.read(t, nil, 3, nil)
	e.pool.Lock(b, Exclusive)
	e.pool.Page(b).SetLSN(lsn + 1)
	e.pool.MarkDirty(nil, b)
	e.pool.UnlockRelease(b, Exclusive)
	if _, err := e.pool.FlushAll(); err == nil {
		t.Fatal("FlushAll ignored the WAL flush failure")
	}
	e.sm.Read(rel, smgr.MainFork, 3, buf)
	if page.Page(buf).LSN() != lsn {
		t.Fatal("page written although WAL flush failed")
	}
	b = e.read(t, nil, 3, nil)
	if !e.pool.IsDirty(b) {
		t.Fatal("page clean after failed write")
	}
	e.pool.Release(b)
}

// TestPinnedNeverEvicted: with 15 of 16 frames pinned, reading 200 other
// blocks recycles the one free frame and leaves the pinned pages intact.
func TestPinnedNeverEvicted(t *testing.T) {
	e := newEnv(t, 16)
	e.fill(t, 220)
	var pinned []Buffer
	for blk := page.BlockNumber(0); blk < 15; blk++ {
		pinned = append(pinned, e.read(t, nil, blk, nil))
	}
	for blk := page.BlockNumber(15); blk < 215; blk++ {
		b := e.read(t, nil, blk, nil)
		if stampOf(e.pool.Page(b)) != blk {
			t.Fatalf("block %d has wrong contents", blk)
		}
		e.pool.Release(b)
	}
	for i, b := range pinned {
		if !e.pool.Cached(tag(page.BlockNumber(i))) || e.pool.TagOf(b) != tag(page.BlockNumber(i)) || stampOf(e.pool.Page(b)) != page.BlockNumber(i) {
			t.Fatalf("pinned block %d was evicted", i)
		}
		e.pool.Release(b)
	}
	if _, _, pins := e.pool.Stats(); pins != 0 {
		t.Fatalf("%d pins left", pins)
	}
}

// TestUsageCountProtects: clock sweep with usage counts — a block touched
// five times outlives a stream of one-off reads longer than the pool.
func TestUsageCountProtects(t *testing.T) {
	e := newEnv(t, 32)
	e.fill(t, 100)
	for i := 0; i < 5; i++ {
		e.pool.Release(e.read(t, nil, 0, nil))
	}
	for blk := page.BlockNumber(1); blk < 40; blk++ {
		e.pool.Release(e.read(t, nil, blk, nil))
	}
	if !e.pool.Cached(tag(0)) {
		t.Fatal("hot block evicted by a short stream")
	}
}

func TestPoolMinimumAndPanic(t *testing.T) {
	e := newEnv(t, 1)
	if e.pool.NBuffers() != 16 {
		t.Fatal("minimum pool size")
	}
	e.fill(t, 1)
	b := e.read(t, nil, 0, nil)
	e.pool.Release(b)
	defer func() {
		if recover() == nil {
			t.Fatal("double release did not panic")
		}
	}()
	e.pool.Release(b)
}

// TestBulkReadRing: a scan through a BulkRead ring uses at most the ring's
// frames and leaves the pages cached before it in place; frames the scan
// finds cached are hits and do not join the ring.
func TestBulkReadRing(t *testing.T) {
	e := newEnv(t, 128)
	e.fill(t, 400)
	var u stats.Usage
	for round := 0; round < 2; round++ { // usage count 2
		for blk := page.BlockNumber(0); blk < 40; blk++ {
			e.pool.Release(e.read(t, &u, blk, nil))
		}
	}
	s := e.pool.NewStrategy(BulkRead, 256<<10)
	if s.RingSize() != 128/8 || s.Kind() != BulkRead || s.Kind().String() != "bulkread" {
		t.Fatalf("ring %d (capped at an eighth of the pool)", s.RingSize())
	}
	u = stats.Usage{}
	for blk := page.BlockNumber(0); blk < 400; blk++ {
		b := e.read(t, &u, blk, s)
		if stampOf(e.pool.Page(b)) != blk {
			t.Fatal("wrong page")
		}
		e.pool.Release(b)
	}
	if u.Buf.SharedHit != 40 || u.Buf.SharedRead != 360 {
		t.Fatalf("%+v", u.Buf)
	}
	for blk := page.BlockNumber(0); blk < 40; blk++ {
		if !e.pool.Cached(tag(blk)) {
			t.Fatalf("block %d pushed out by the ring", blk)
		}
	}
	valid, _, _ := e.pool.Stats()
	if valid > 40+s.RingSize() {
		t.Fatalf("%d valid frames: the scan used more than its ring", valid)
	}
	// The last ring-size blocks of the scan are the ones left.
	for blk := page.BlockNumber(400 - s.RingSize()); blk < 400; blk++ {
		if !e.pool.Cached(tag(blk)) {
			t.Fatalf("block %d not in the ring", blk)
		}
	}
}

// TestBulkWriteRing: extending through a BulkWrite ring writes the ring's
// dirty pages itself (WAL flushed first) and keeps the rest of the pool.
func TestBulkWriteRing(t *testing.T) {
	e := newEnv(t, 128)
	e.fill(t, 20)
	for blk := page.BlockNumber(0); blk < 20; blk++ {
		e.pool.Release(e.read(t, nil, blk, nil))
	}
	s := e.pool.NewStrategy(BulkWrite, 16<<20)
	if s.RingSize() != 16 {
		t.Fatalf("ring %d", s.RingSize())
	}
	var u stats.Usage
	e.flushed = nil
	for i := 0; i < 100; i++ {
		b, blk, err := e.pool.Extend(&u, rel, smgr.MainFork, s)
		if err != nil {
			t.Fatal(err)
		}
		stamp(e.pool.Page(b), blk, page.LSN(1000+blk))
		e.pool.MarkDirty(&u, b)
		e.pool.UnlockRelease(b, Exclusive)
	}
	// 100 extensions; 84 ring recycles, of which every eighth finds its
	// frame dirty and writes it with the next 7 slots' blocks (half the
	// 16-frame ring) in one combined write: 11 writes of 8 blocks, each
	// after one WAL flush.
	if u.Buf.SharedWritten != 100+88 || u.Buf.SharedDirtied != 100 {
		t.Fatalf("%+v", u.Buf)
	}
	if len(e.flushed) != 11 {
		t.Fatalf("%d WAL flushes", len(e.flushed))
	}
	for blk := page.BlockNumber(0); blk < 20; blk++ {
		if !e.pool.Cached(tag(blk)) {
			t.Fatalf("block %d pushed out", blk)
		}
	}
	if _, err := e.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	e.pool.DropRelation(rel, smgr.MainFork, 0, false)
	for blk := page.BlockNumber(20); blk < 120; blk++ {
		b := e.read(t, nil, blk, nil)
		if stampOf(e.pool.Page(b)) != blk || e.pool.Page(b).LSN() != page.LSN(1000+blk) {
			t.Fatalf("block %d lost", blk)
		}
		e.pool.Release(b)
	}
}

// TestBulkReadRejectsDirty: a bulk-read ring does not write a dirty ring
// frame to recycle it (StrategyRejectBuffer); it takes another frame and
// the dirty page stays cached.
func TestBulkReadRejectsDirty(t *testing.T) {
	e := newEnv(t, 128)
	e.fill(t, 100)
	s := e.pool.NewStrategy(BulkRead, 16*8192)
	var u stats.Usage
	b := e.read(t, &u, 0, s)
	e.pool.Lock(b, Share)
	e.pool.MarkDirtyHint(&u, b) // a scan setting hint bits
	e.pool.UnlockRelease(b, Share)
	for blk := page.BlockNumber(1); blk < 100; blk++ {
		e.pool.Release(e.read(t, &u, blk, s))
	}
	if u.Buf.SharedWritten != 0 {
		t.Fatalf("bulk read wrote %d pages", u.Buf.SharedWritten)
	}
	if !e.pool.Cached(tag(0)) {
		t.Fatal("dirty page evicted")
	}
}

// TestChecksumFailure: with checksums on, a page corrupted on disk is
// refused with SQLSTATE XX001, and a good page reads fine.
func TestChecksumFailure(t *testing.T) {
	e := newEnv(t, 16)
	e.pool.Checksums = true
	e.fill(t, 4)
	path := filepath.Join(e.dir, "1000")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if page.Page(raw[page.Size:2*page.Size]).Checksum() == 0 {
		t.Fatal("no checksum written")
	}
	raw[page.Size+5000] ^= 0x40 // block 1
	os.WriteFile(path, raw, 0o600)
	pool := New(openSmgr(t, e.dir), 16)
	pool.Checksums = true
	failures := 0
	pool.OnChecksumFailure = func() { failures++ }
	_, err = pool.Read(nil, tag(1), nil)
	if pgerr.Code(err) != pgerr.DataCorrupted {
		t.Fatalf("corrupt page: %v", err)
	}
	if failures != 1 {
		t.Fatalf("%d checksum failures reported, want 1", failures)
	}
	if pool.Cached(tag(1)) {
		t.Fatal("corrupt page left in the mapping")
	}
	b, err := pool.Read(nil, tag(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	pool.Release(b)
	// Garbage in a page whose pd_upper is 0 is caught too.
	clear(raw[2*page.Size : 3*page.Size])
	raw[2*page.Size+100] = 1
	os.WriteFile(path, raw, 0o600)
	pool = New(openSmgr(t, e.dir), 16)
	pool.Checksums = true
	if _, err := pool.Read(nil, tag(2), nil); pgerr.Code(err) != pgerr.DataCorrupted {
		t.Fatalf("garbage new page: %v", err)
	}
	// A read of a missing block fails without leaking a pin.
	if _, err := pool.Read(nil, tag(99), nil); err == nil {
		t.Fatal("read past end")
	}
	if _, _, pins := pool.Stats(); pins != 0 {
		t.Fatalf("%d pins after failed reads", pins)
	}
}

// TestDropRelation forgets buffers from a block on, without writing them.
func TestDropRelation(t *testing.T) {
	e := newEnv(t, 32)
	e.fill(t, 10)
	for blk := page.BlockNumber(0); blk < 10; blk++ {
		b := e.read(t, nil, blk, nil)
		e.pool.Lock(b, Exclusive)
		e.pool.MarkDirty(nil, b)
		e.pool.UnlockRelease(b, Exclusive)
	}
	e.pool.DropRelation(rel, smgr.MainFork, 5, false)
	for blk := page.BlockNumber(0); blk < 10; blk++ {
		if e.pool.Cached(tag(blk)) != (blk < 5) {
			t.Fatalf("block %d cached=%v", blk, e.pool.Cached(tag(blk)))
		}
	}
	if n, _ := e.pool.FlushAll(); n != 5 {
		t.Fatalf("flushed %d", n)
	}
}

// TestConcurrentReaders: goroutines read random blocks through a small
// pool (constant eviction) and check contents under share locks, while a
// writer updates counters under exclusive locks. Run with -race.
func TestConcurrentReaders(t *testing.T) {
	e := newEnv(t, 16)
	const nblk = 64
	e.fill(t, nblk)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			var u stats.Usage
			for i := 0; i < 2000; i++ {
				blk := page.BlockNumber(r.Intn(nblk))
				b, err := e.pool.Read(&u, tag(blk), nil)
				if err != nil {
					t.Error(err)
					return
				}
				if g == 0 {
					e.pool.Lock(b, Exclusive)
					p := e.pool.Page(b)
					p.SetLSN(p.LSN() + 1)
					e.pool.MarkDirty(&u, b)
					e.pool.UnlockRelease(b, Exclusive)
					continue
				}
				e.pool.Lock(b, Share)
				if got := stampOf(e.pool.Page(b)); got != blk {
					t.Errorf("read block %d, got %d", blk, got)
				}
				e.pool.UnlockRelease(b, Share)
			}
			if u.Buf.SharedHit+u.Buf.SharedRead != 2000 {
				t.Errorf("hits+reads %d", u.Buf.SharedHit+u.Buf.SharedRead)
			}
		}(g)
	}
	wg.Wait()
	if _, _, pins := e.pool.Stats(); pins != 0 {
		t.Fatalf("%d pins left", pins)
	}
}

// TestExtendHandsOutAnUntouchedPage: a block Extend returns is zeros and
// locked before any other backend can reach it, even one that reads the
// fork's last block the moment the file grows and initialises a page it
// finds new (as the heap's insert path does). A window between growing
// the file and locking the buffer let such a reader fill the page, which
// the extender then initialised again, losing the reader's row.
func TestExtendHandsOutAnUntouchedPage(t *testing.T) {
	e := newEnv(t, 64)
	const extends = 5000
	var stop sync.WaitGroup
	done := make(chan struct{})
	for r := 0; r < 3; r++ {
		stop.Add(1)
		go func() {
			defer stop.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				nb, err := e.sm.NBlocks(rel, smgr.MainFork)
				if err != nil || nb == 0 {
					continue
				}
				b, err := e.pool.Read(nil, tag(nb-1), nil)
				if err != nil {
					t.Error(err)
					return
				}
				e.pool.Lock(b, Exclusive)
				if p := e.pool.Page(b); p.IsNew() {
					stamp(p, nb-1, 1) // "take it": a reader's insert
				}
				e.pool.UnlockRelease(b, Exclusive)
			}
		}()
	}
	for i := 0; i < extends; i++ {
		b, blk, err := e.pool.Extend(nil, rel, smgr.MainFork, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p := e.pool.Page(b); !p.IsNew() {
			t.Fatalf("block %d came back from Extend already initialised by another backend", blk)
		}
		stamp(e.pool.Page(b), blk, 1)
		e.pool.UnlockRelease(b, Exclusive)
	}
	close(done)
	stop.Wait()
}
