package buffer

import (
	"errors"
	"math/rand"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// dirty reads blk, sets its LSN and marks it dirty.
func (e *env) dirty(t *testing.T, blk page.BlockNumber, lsn page.LSN) {
	t.Helper()
	b := e.read(t, nil, blk, nil)
	e.pool.Lock(b, Exclusive)
	e.pool.Page(b).SetLSN(lsn)
	e.pool.MarkDirty(nil, b)
	e.pool.UnlockRelease(b, Exclusive)
}

type writeCall struct {
	first page.BlockNumber
	n     int
}

// recordWrites installs a write hook that records every write system call
// and the WAL flushed before it.
func (e *env) recordWrites(calls *[]writeCall, flushedBefore *[]page.LSN) {
	e.sm.SetWriteFault(func(r smgr.RelFileNumber, f smgr.ForkNumber, first page.BlockNumber, n int) error {
		*calls = append(*calls, writeCall{first, n})
		e.mu.Lock()
		last := page.LSN(0)
		if len(e.flushed) > 0 {
			last = e.flushed[len(e.flushed)-1]
		}
		e.mu.Unlock()
		*flushedBefore = append(*flushedBefore, last)
		return nil
	})
}

// TestSyncBuffersCombinesSortedRuns: dirty blocks 9,3,4,5,20..39 (dirtied
// out of order) are written as sorted runs of adjacent blocks, each with
// one write of at most MaxCombine blocks, after WAL is flushed up to the
// run's highest LSN; the pages on disk are the new ones and the buffers end
// clean.
func TestSyncBuffersCombinesSortedRuns(t *testing.T) {
	e := newEnv(t, 64)
	e.fill(t, 48)
	order := []page.BlockNumber{9, 5, 3, 4}
	for blk := page.BlockNumber(39); blk >= 20; blk-- {
		order = append(order, blk)
	}
	for _, blk := range order {
		e.dirty(t, blk, page.LSN(1000+blk))
	}
	var calls []writeCall
	var walBefore []page.LSN
	e.recordWrites(&calls, &walBefore)
	res, err := e.pool.SyncBuffers(SyncOptions{FlushAfter: 8})
	if err != nil {
		t.Fatal(err)
	}
	want := []writeCall{{3, 3}, {9, 1}, {20, 16}, {36, 4}}
	if len(calls) != len(want) {
		t.Fatalf("writes %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Fatalf("writes %v, want %v", calls, want)
		}
		last := want[i].first + page.BlockNumber(want[i].n) - 1
		if walBefore[i] < page.LSN(1000+last) {
			t.Fatalf("write %v: WAL flushed only to %d before it", want[i], walBefore[i])
		}
	}
	if res.Written != len(order) || res.Writes != len(want) {
		t.Fatalf("result %+v, want %d written in %d writes", res, len(order), len(want))
	}
	if res.Writebacks == 0 {
		t.Fatal("no writeback hints with FlushAfter 8")
	}
	buf := make([]byte, page.Size)
	for _, blk := range order {
		if err := e.sm.Read(rel, smgr.MainFork, blk, buf); err != nil {
			t.Fatal(err)
		}
		if got := page.Page(buf).LSN(); got != page.LSN(1000+blk) || stampOf(buf) != blk {
			t.Fatalf("block %d on disk: lsn %d stamp %d", blk, got, stampOf(buf))
		}
		b := e.read(t, nil, blk, nil)
		if e.pool.IsDirty(b) {
			t.Fatalf("block %d still dirty", blk)
		}
		e.pool.Release(b)
	}
}

// TestSyncBuffersSkipsLockedNeighbour: a buffer whose content lock is held
// exclusively is not joined to a run (the writer must not wait for a
// second lock while holding the first); it ends the run and is written in
// its own write once its lock is free.
func TestSyncBuffersSkipsLockedNeighbour(t *testing.T) {
	e := newEnv(t, 32)
	e.fill(t, 8)
	for blk := page.BlockNumber(0); blk < 4; blk++ {
		e.dirty(t, blk, page.LSN(10+blk))
	}
	held := e.read(t, nil, 2, nil)
	e.pool.Lock(held, Exclusive)
	e.mu.Lock()
	e.flushed = nil
	e.mu.Unlock()
	var calls []writeCall
	var walBefore []page.LSN
	e.recordWrites(&calls, &walBefore)
	done := make(chan error)
	go func() {
		_, err := e.pool.SyncBuffers(SyncOptions{})
		done <- err
	}()
	// The first run (0,1) is written; then the writer waits for block 2.
	for i := 0; i < 1000; i++ {
		e.mu.Lock()
		n := len(e.flushed)
		e.mu.Unlock()
		if n > 0 {
			break
		}
		sleepBriefly()
	}
	e.pool.UnlockRelease(held, Exclusive)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0] != (writeCall{0, 2}) || calls[1] != (writeCall{2, 2}) {
		t.Fatalf("writes %v, want [{0 2} {2 2}]", calls)
	}
}

// TestSyncBuffersWriteErrorIsRetried: an EIO injected into a combined
// write fails the pass with PostgreSQL's message naming the blocks; those
// buffers stay dirty with nothing lost, and the next pass writes them.
func TestSyncBuffersWriteErrorIsRetried(t *testing.T) {
	e := newEnv(t, 32)
	e.fill(t, 8)
	for blk := page.BlockNumber(2); blk < 6; blk++ {
		e.dirty(t, blk, page.LSN(100+blk))
	}
	e.sm.SetWriteFault(func(smgr.RelFileNumber, smgr.ForkNumber, page.BlockNumber, int) error { return syscall.EIO })
	_, err := e.pool.SyncBuffers(SyncOptions{})
	if err == nil {
		t.Fatal("write error not reported")
	}
	pe := pgerr.From(err)
	if pe.Code != pgerr.IOError || !strings.HasPrefix(pe.Message, "could not write blocks 2..5 in file ") ||
		!strings.HasSuffix(pe.Message, ": Input/output error") {
		t.Fatalf("error %s %q", pe.Code, pe.Message)
	}
	for blk := page.BlockNumber(2); blk < 6; blk++ {
		b := e.read(t, nil, blk, nil)
		if !e.pool.IsDirty(b) || e.pool.Page(b).LSN() != page.LSN(100+blk) {
			t.Fatalf("block %d lost its change after the failed write", blk)
		}
		e.pool.Release(b)
	}
	e.sm.SetWriteFault(func(smgr.RelFileNumber, smgr.ForkNumber, page.BlockNumber, int) error { return syscall.ENOSPC })
	if _, err := e.pool.SyncBuffers(SyncOptions{}); pgerr.From(err).Code != pgerr.DiskFull {
		t.Fatalf("ENOSPC reported as %v", err)
	}
	e.sm.SetWriteFault(nil)
	res, err := e.pool.SyncBuffers(SyncOptions{})
	if err != nil || res.Written != 4 {
		t.Fatalf("retry: %+v, %v", res, err)
	}
	buf := make([]byte, page.Size)
	for blk := page.BlockNumber(2); blk < 6; blk++ {
		e.sm.Read(rel, smgr.MainFork, blk, buf)
		if page.Page(buf).LSN() != page.LSN(100+blk) {
			t.Fatalf("block %d not written by the retry", blk)
		}
	}
}

// TestSyncBuffersFsyncFailure: a failed fsync is returned as ErrFsync (the
// caller stops the server).
func TestSyncBuffersFsyncFailure(t *testing.T) {
	e := newEnv(t, 32)
	e.fill(t, 4)
	e.dirty(t, 1, 7)
	e.sm.SetSyncFault(func(string) error { return syscall.EIO })
	_, err := e.pool.SyncBuffers(SyncOptions{})
	if err == nil || !strings.Contains(err.Error(), "could not fsync file") {
		t.Fatalf("fsync failure: %v", err)
	}
	if !isFsync(err) {
		t.Fatalf("%v does not wrap smgr.ErrFsync", err)
	}
}

// TestSyncBuffersPaces: Pace sees the fraction done rise to 1.
func TestSyncBuffersPaces(t *testing.T) {
	e := newEnv(t, 64)
	e.fill(t, 40)
	for blk := page.BlockNumber(0); blk < 40; blk += 2 {
		e.dirty(t, blk, 5)
	}
	var seen []float64
	if _, err := e.pool.SyncBuffers(SyncOptions{Pace: func(f float64) { seen = append(seen, f) }}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 20 || seen[len(seen)-1] != 1 {
		t.Fatalf("pace calls %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("pace not increasing: %v", seen)
		}
	}
}

func sleepBriefly() { time.Sleep(time.Millisecond) }

func isFsync(err error) bool { return errors.Is(err, smgr.ErrFsync) }

// TestBgWriterCleansAheadOfTheHand: after a scan has left dirty,
// unpinned, usage-0 frames ahead of the clock hand, a round writes them
// (so the next backend to need a frame finds a clean one), never writes a
// pinned or recently used frame, and counts buffers_clean and buffers_alloc.
func TestBgWriterCleansAheadOfTheHand(t *testing.T) {
	e := newEnv(t, 16)
	e.fill(t, 40)
	for blk := page.BlockNumber(0); blk < 16; blk++ {
		e.dirty(t, blk, 3)
	}
	pinned := e.read(t, nil, 5, nil) // pinned: must not be written
	// Age every unpinned frame to usage 0, as a full clock revolution does.
	for i := range e.pool.descs {
		d := &e.pool.descs[i]
		if d.refcount == 0 {
			d.usage = 0
		}
	}
	bw := e.pool.NewBgWriter(0)
	before := e.pool.WriterStats()
	if before.BuffersAlloc == 0 {
		t.Fatal("buffers_alloc not counted")
	}
	if _, err := bw.Round(BgWriterSettings{MaxPages: 100, Multiplier: 2}); err != nil {
		t.Fatal(err)
	}
	st := e.pool.WriterStats()
	if st.BuffersClean != 15 {
		t.Fatalf("buffers_clean %d, want 15 (16 dirty, 1 pinned)", st.BuffersClean)
	}
	if !e.pool.IsDirty(pinned) {
		t.Fatal("the pinned frame was written")
	}
	e.pool.Release(pinned)
	_, dirty, _ := e.pool.Stats()
	if dirty != 1 {
		t.Fatalf("%d dirty frames left, want 1", dirty)
	}
	// bgwriter_lru_maxpages caps a round.
	for blk := page.BlockNumber(16); blk < 32; blk++ {
		e.dirty(t, blk, 4)
	}
	for i := range e.pool.descs {
		if d := &e.pool.descs[i]; d.refcount == 0 {
			d.usage = 0
		}
	}
	if _, err := bw.Round(BgWriterSettings{MaxPages: 3, Multiplier: 2}); err != nil {
		t.Fatal(err)
	}
	st2 := e.pool.WriterStats()
	if st2.BuffersClean-st.BuffersClean != 3 || st2.MaxWrittenClean != 1 {
		t.Fatalf("capped round: %+v after %+v", st2, st)
	}
	// A page whose WAL is not durable yet is left for later, not written
	// after a WAL flush.
	e.pool.FlushedWAL = func() page.LSN { return 2 } // the dirty pages have LSN 3 and 4
	e.mu.Lock()
	e.flushed = nil
	e.mu.Unlock()
	if _, err := bw.Round(BgWriterSettings{MaxPages: 100, Multiplier: 2}); err != nil {
		t.Fatal(err)
	}
	if st3 := e.pool.WriterStats(); st3.BuffersClean != st2.BuffersClean || len(e.flushed) != 0 {
		t.Fatalf("wrote %d pages with unflushed WAL (%d WAL flushes)", st3.BuffersClean-st2.BuffersClean, len(e.flushed))
	}
}

// TestWritersRaceWithBackends: backends keep changing random pages (under
// the exclusive lock, stamping each change's LSN) and evicting each other's
// pages, while checkpoints and the background writer write concurrently.
// Every block read back from disk, and afterwards every page on disk, is
// the last version written, none older:
// no write of a stale copy overtakes a newer one, and no change is lost.
func TestWritersRaceWithBackends(t *testing.T) {
	const nblocks = 64
	e := newEnv(t, 24)
	e.pool.Checksums = true // writers write checksummed copies, not the frames
	e.fill(t, nblocks)
	var lsnMu sync.Mutex
	next := page.LSN(1000)
	last := make([]page.LSN, nblocks)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 2000; i++ {
				blk := page.BlockNumber(r.Intn(nblocks))
				var u stats.Usage
				b, err := e.pool.Read(&u, tag(blk), nil)
				if err != nil {
					t.Error(err)
					return
				}
				e.pool.Lock(b, Exclusive)
				lsnMu.Lock()
				// A block read back from disk must be its latest version.
				if got := e.pool.Page(b).LSN(); u.Buf.SharedRead == 1 && last[blk] != 0 && got != last[blk] {
					t.Errorf("block %d read back with LSN %d, last written %d", blk, got, last[blk])
				}
				next++
				l := next
				last[blk] = l
				lsnMu.Unlock()
				e.pool.Page(b).SetLSN(l)
				e.pool.MarkDirty(nil, b)
				e.pool.UnlockRelease(b, Exclusive)
			}
		}(int64(g))
	}
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		bw := e.pool.NewBgWriter(4)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := bw.Round(BgWriterSettings{MaxPages: 8, Multiplier: 2}); err != nil {
				t.Error(err)
			}
		}
	}()
	go func() {
		defer bg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.pool.SyncBuffers(SyncOptions{FlushAfter: 4}); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	close(stop)
	bg.Wait()
	if _, err := e.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, page.Size)
	for blk := page.BlockNumber(0); blk < nblocks; blk++ {
		if err := e.sm.Read(rel, smgr.MainFork, blk, buf); err != nil {
			t.Fatal(err)
		}
		want := last[blk]
		if want == 0 {
			want = page.LSN(blk + 1) // fill's stamp
		}
		if got := page.Page(buf).LSN(); got != want || stampOf(buf) != blk {
			t.Fatalf("block %d on disk has LSN %d, want %d", blk, got, want)
		}
	}
}
