package buffer

import (
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// counters are the pool's writer statistics (pg_stat_bgwriter's buffer
// columns), per pool.
type counters struct {
	allocs            atomic.Int64 // frames taken by the clock sweep (buffers_alloc)
	backendWritten    atomic.Int64 // dirty victims written by the backend that needed the frame
	checkpointWritten atomic.Int64
	cleanWritten      atomic.Int64 // written by the background writer
	maxWrittenClean   atomic.Int64 // rounds stopped by bgwriter_lru_maxpages
}

// WriterStats is a snapshot of who wrote the pool's buffers.
type WriterStats struct {
	BuffersAlloc      int64
	BuffersBackend    int64
	BuffersCheckpoint int64
	BuffersClean      int64
	MaxWrittenClean   int64
}

// WriterStats returns the counters since the pool was made or last reset.
func (p *Pool) WriterStats() WriterStats {
	c := &p.counters
	return WriterStats{
		BuffersAlloc:      c.allocs.Load(),
		BuffersBackend:    c.backendWritten.Load(),
		BuffersCheckpoint: c.checkpointWritten.Load(),
		BuffersClean:      c.cleanWritten.Load(),
		MaxWrittenClean:   c.maxWrittenClean.Load(),
	}
}

// ResetWriterStats zeroes the counters (pg_stat_reset_shared('bgwriter')).
func (p *Pool) ResetWriterStats() {
	c := &p.counters
	c.allocs.Store(0)
	c.backendWritten.Store(0)
	c.checkpointWritten.Store(0)
	c.cleanWritten.Store(0)
	c.maxWrittenClean.Store(0)
}

// BgWriterSettings are bgwriter_lru_maxpages and bgwriter_lru_multiplier.
type BgWriterSettings struct {
	MaxPages   int
	Multiplier float64
}

// BgWriter is the background writer's state between rounds (BgBufferSync's
// statics): where it has cleaned up to, and its estimate of how many
// frames backends will claim before the next round.
type BgWriter struct {
	p *Pool
	// nextToClean is the absolute clock position (clock hand count, not
	// modulo the pool size) the next round continues from.
	nextToClean   uint64
	lastAllocs    int64
	smoothedAlloc float64
	// smoothedDensity is the estimated number of frames scanned per
	// reusable frame found.
	smoothedDensity float64
	wb              *smgr.Writeback
}

// NewBgWriter returns the background writer for the pool; it issues
// writeback hints every flushAfter blocks it writes (bgwriter_flush_after).
func (p *Pool) NewBgWriter(flushAfter int) *BgWriter {
	return &BgWriter{p: p, smoothedDensity: 10, wb: p.smgr.NewWriteback(flushAfter)}
}

// smoothingSamples is how many rounds the allocation estimate averages
// over (PostgreSQL's smoothing_samples).
const smoothingSamples = 16

// Round is one round of the LRU scan (BgBufferSync): it estimates how many
// frames backends will take before the next round from the recent
// allocation rate times the multiplier, then scans ahead of the clock hand,
// writing dirty frames that the sweep would reuse (unpinned, usage count
// 0), until it has found that many reusable frames, written MaxPages, or
// gone round the pool. It reports whether the pool looks idle (no
// allocations since the last round), so the caller may sleep longer. A
// write error ends the round; the frame stays dirty and the error is
// returned for the log.
func (bw *BgWriter) Round(s BgWriterSettings) (idle bool, err error) {
	p := bw.p
	allocs := p.counters.allocs.Load()
	recent := float64(allocs - bw.lastAllocs)
	bw.lastAllocs = allocs
	if recent > bw.smoothedAlloc {
		bw.smoothedAlloc = recent
	} else {
		bw.smoothedAlloc += (recent - bw.smoothedAlloc) / smoothingSamples
	}
	if s.MaxPages <= 0 {
		return recent == 0, nil
	}
	hand := p.clock.Load() + 1 // the sweep looks at hand+1 next
	if bw.nextToClean < hand {
		bw.nextToClean = hand
	}
	ahead := int(bw.nextToClean - hand) // frames already known clean ahead of the hand
	upcoming := int(bw.smoothedAlloc*s.Multiplier + 0.5)
	// Even when idle, sweep the whole pool every couple of minutes
	// (PostgreSQL's min_scan_buffers at the default 200 ms delay).
	minScan := p.n / 600
	if upcoming < minScan {
		upcoming = minScan
	}
	reusable := int(float64(ahead) / bw.smoothedDensity)
	written, scanned := 0, 0
	for reusable < upcoming && ahead+scanned < p.n {
		id := int32(bw.nextToClean % uint64(p.n))
		bw.nextToClean++
		scanned++
		wrote, reuse, werr := p.cleanIfReusable(id, bw.wb)
		if werr != nil {
			return false, werr
		}
		if reuse {
			reusable++
		}
		if wrote {
			written++
			if written >= s.MaxPages {
				p.counters.maxWrittenClean.Add(1)
				break
			}
		}
	}
	if scanned > 0 && reusable > 0 {
		density := float64(scanned) / float64(max(reusable, 1))
		bw.smoothedDensity += (density - bw.smoothedDensity) / smoothingSamples
	}
	p.counters.cleanWritten.Add(int64(written))
	return recent == 0, nil
}

// cleanIfReusable writes frame id if the clock sweep could reuse it now
// (unpinned, usage count 0) and it is dirty, as SyncOneBuffer with
// skip_recently_used, unless its WAL is not yet durable: unlike
// PostgreSQL's background writer it does not flush WAL for a page. It reports whether it wrote and whether the frame is
// reusable.
func (p *Pool) cleanIfReusable(id int32, wb *smgr.Writeback) (wrote, reusable bool, err error) {
	d := &p.descs[id]
	d.hdr.Lock()
	if d.refcount != 0 || d.usage != 0 {
		d.hdr.Unlock()
		return false, false, nil
	}
	if !d.dirty || !d.valid {
		d.hdr.Unlock()
		return false, true, nil
	}
	d.refcount++
	tag := d.tag
	d.hdr.Unlock()
	d.content.RLock()
	if p.FlushedWAL != nil && p.Page(Buffer(id+1)).LSN() > p.FlushedWAL() {
		// Writing it would first flush WAL, an fsync that commits are
		// waiting to batch; a backend evicting it later will usually find
		// that WAL flushed by then.
		d.content.RUnlock()
		p.unpin(id)
		return false, false, nil
	}
	err = p.writeLocked(id)
	if err == nil {
		wb.Add(tag.Rel, tag.Fork, tag.Block, 1)
	}
	d.content.RUnlock()
	p.unpin(id)
	if err != nil {
		return false, false, err
	}
	return true, true, nil
}
