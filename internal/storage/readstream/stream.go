// Package readstream is PostgreSQL 17's read stream (read_stream.c) over
// tidal's buffer pool: a callback names the blocks a scan will want, in
// order; the stream pins them ahead of the consumer, skips those already
// resident without I/O, combines runs of adjacent misses into one
// vectored read of up to io_combine_limit blocks, and keeps up to
// effective_io_concurrency of those reads in flight on I/O goroutines
// while the consumer works through earlier pages. See README.md.
package readstream

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// BlockFunc returns the next block the consumer wants; ok false ends the
// stream. It runs on the consumer's goroutine, ahead of the consumer.
type BlockFunc func() (blk page.BlockNumber, ok bool)

// Options configure a stream.
type Options struct {
	// Maintenance selects maintenance_io_concurrency instead of
	// effective_io_concurrency (VACUUM, ANALYZE: READ_STREAM_MAINTENANCE).
	Maintenance bool
	// Strategy is the ring the blocks are read through (nil: none).
	Strategy *buffer.Strategy
}

// Stream hands out the callback's blocks, pinned, in the callback's
// order. It belongs to one goroutine.
type Stream struct {
	pool  *buffer.Pool
	u     *stats.Usage
	rel   smgr.RelFileNumber
	fork  smgr.ForkNumber
	ring  *buffer.Strategy
	next  BlockFunc
	ended bool // the callback said no more

	combineLimit int
	maxIOs       int  // reads in flight at once (at least 1)
	async        bool // reads run on I/O goroutines (concurrency > 0)
	maxPinned    int
	distance     int // look-ahead, in blocks; 0 once the callback ended

	queue  []entry // pinned buffers not yet handed out, in order
	head   int
	pinned int
	ios    int // reads started and not yet waited for

	pendingBlk page.BlockNumber // the run being built, not started yet
	pendingN   int
	seqBlk     page.BlockNumber // the block after the last read started
	ungot      page.BlockNumber
	hasUngot   bool
	err        error
}

type entry struct {
	buf buffer.Buffer
	blk page.BlockNumber
	op  *buffer.ReadOp // the read filling buf (nil: it was resident)
	// firstOfOp marks the entry whose hand-out waits for op and charges it.
	firstOfOp bool
	async     bool
	// sequential: op was started at the block after the previous read
	// (PostgreSQL issues no advice then: regime B).
	sequential bool
}

// New starts a stream over one fork of rel. The backend's settings come
// from u.IO (io_combine_limit, effective_io_concurrency,
// maintenance_io_concurrency).
func New(pool *buffer.Pool, u *stats.Usage, rel smgr.RelFileNumber, fork smgr.ForkNumber, next BlockFunc, opt Options) *Stream {
	var set stats.IOSettings
	if u != nil {
		set = u.IO
	}
	set = set.Effective()
	conc := set.Concurrency
	if opt.Maintenance {
		conc = set.MaintenanceConcurrency
	}
	s := &Stream{pool: pool, u: u, rel: rel, fork: fork, ring: opt.Strategy, next: next,
		combineLimit: set.CombineLimit, maxIOs: conc, async: conc > 0, distance: 1}
	if s.maxIOs < 1 {
		s.maxIOs = 1 // effective_io_concurrency = 0: one synchronous read at a time
	}
	// max_pinned_buffers = max(4 × max_ios, io_combine_limit), within the
	// ring's and the backend's share of the pool.
	s.maxPinned = 4 * conc
	if s.maxPinned < s.combineLimit {
		s.maxPinned = s.combineLimit
	}
	if s.async && s.maxPinned < 2*s.combineLimit {
		// Room for one full run in flight while the previous one is
		// consumed: tidal's reads are asynchronous, where PostgreSQL 17
		// leaves sequential overlap to the kernel's read-ahead.
		s.maxPinned = 2 * s.combineLimit
	}
	if l := opt.Strategy.PinLimit(); s.maxPinned > l {
		s.maxPinned = l
	}
	if l := pool.PinLimit(); s.maxPinned > l {
		s.maxPinned = l
	}
	if s.maxPinned < 1 {
		s.maxPinned = 1
	}
	if s.combineLimit > s.maxPinned {
		s.combineLimit = s.maxPinned
	}
	return s
}

// Next returns the next block pinned (the caller releases it) and its
// number; ok is false at the end. After an error the stream is done: the
// caller still calls Close.
func (s *Stream) Next() (buffer.Buffer, page.BlockNumber, bool, error) {
	if s.err != nil {
		return buffer.InvalidBuffer, 0, false, s.err
	}
	s.lookAhead()
	if s.err != nil && s.head == len(s.queue) {
		return buffer.InvalidBuffer, 0, false, s.err
	}
	if s.head == len(s.queue) {
		return buffer.InvalidBuffer, 0, false, nil
	}
	e := s.queue[s.head]
	s.queue[s.head] = entry{}
	s.head++
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	}
	s.pinned--
	if e.op != nil && e.firstOfOp {
		err := e.op.Wait()
		if e.async {
			s.ios--
		}
		if err != nil {
			s.pool.Release(e.buf)
			s.err = err
			return buffer.InvalidBuffer, 0, false, err
		}
		e.op.Finish(s.u)
		s.grow(e.sequential)
	}
	// A later block of a read is valid once its first was handed out.
	return e.buf, e.blk, true, nil
}

// grow widens the look-ahead after waiting for a read: towards the pin
// limit for random reads run ahead (regime C), towards io_combine_limit
// for sequential or synchronous ones (regime B).
func (s *Stream) grow(sequential bool) {
	if s.distance == 0 {
		return
	}
	if s.async && !sequential {
		s.distance = min(s.distance*2, s.maxPinned)
		return
	}
	limit := s.seqLimit()
	if s.distance > limit {
		s.distance--
	} else {
		s.distance = min(s.distance*2, limit)
	}
}

// seqLimit is regime B's distance: io_combine_limit, or two runs when
// reads are asynchronous (one in flight, one being consumed).
func (s *Stream) seqLimit() int {
	if s.async {
		return min(2*s.combineLimit, s.maxPinned)
	}
	return s.combineLimit
}

// Close releases every buffer the stream still holds, waiting for reads
// in flight into them.
func (s *Stream) Close() {
	for i := s.head; i < len(s.queue); i++ {
		e := s.queue[i]
		if e.op != nil {
			e.op.Wait()
		}
		s.pool.Release(e.buf)
	}
	s.queue, s.head, s.pinned = nil, 0, 0
	s.distance, s.ended = 0, true
}

// nextBlock asks the callback, or returns the block put back.
func (s *Stream) nextBlock() (page.BlockNumber, bool) {
	if s.hasUngot {
		s.hasUngot = false
		return s.ungot, true
	}
	if s.ended {
		return 0, false
	}
	blk, ok := s.next()
	if !ok {
		s.ended = true
	}
	return blk, ok
}

// lookAhead pins and starts reads until the look-ahead distance is
// covered or the reads in flight are at their limit (read_stream_look_ahead).
func (s *Stream) lookAhead() {
	for s.err == nil && s.ios < s.maxIOs && s.pinned+s.pendingN < s.distance {
		if s.pendingN == s.combineLimit {
			s.startPending()
			continue
		}
		blk, ok := s.nextBlock()
		if !ok {
			s.distance = 0
			break
		}
		if s.pendingN > 0 && s.pendingBlk+page.BlockNumber(s.pendingN) == blk {
			s.pendingN++
			continue
		}
		// Not adjacent: the pending run goes first.
		for s.pendingN > 0 && s.err == nil {
			s.startPending()
			if s.ios >= s.maxIOs && s.pendingN > 0 {
				s.ungot, s.hasUngot = blk, true
				return
			}
		}
		if s.err != nil {
			return
		}
		s.pendingBlk, s.pendingN = blk, 1
	}
	// Start a run that is as long as it can get: full size, all of the
	// distance with nothing pinned, or the end of the stream. Otherwise it
	// waits to grow.
	if s.pendingN > 0 && s.err == nil && s.ios < s.maxIOs &&
		(s.pendingN == s.combineLimit || (s.pendingN == s.distance && s.pinned == 0) || s.distance == 0) {
		s.startPending()
	}
}

// startPending starts (a prefix of) the pending run: StartReadBuffers
// pins a resident first block with no I/O, or installs the misses up to
// the first resident block and starts their read.
func (s *Stream) startPending() {
	bufs, op, err := s.pool.StartReadBuffers(s.u, s.rel, s.fork, s.pendingBlk, s.pendingN, s.ring)
	if err != nil {
		s.err = err
		return
	}
	seq := s.pendingBlk == s.seqBlk
	e := entry{op: op, sequential: seq}
	if op != nil {
		if s.async && op.TryAsync() {
			e.async = true
			s.ios++
		} else {
			op.Run()
		}
		s.seqBlk = s.pendingBlk + page.BlockNumber(len(bufs))
	} else if s.distance > 1 {
		s.distance-- // resident: no I/O needed, the look-ahead decays (regime A)
	}
	for i, b := range bufs {
		e.buf, e.blk, e.firstOfOp = b, s.pendingBlk+page.BlockNumber(i), i == 0
		s.queue = append(s.queue, e)
	}
	s.pinned += len(bufs)
	s.pendingBlk += page.BlockNumber(len(bufs))
	s.pendingN -= len(bufs)
}

// Distance is the current look-ahead (tests and diagnostics).
func (s *Stream) Distance() int { return s.distance }

// MaxPinned is the stream's pin limit (tests and diagnostics).
func (s *Stream) MaxPinned() int { return s.maxPinned }

// Range streams blocks from, from+1, …, to-1 (a sequential scan's
// callback).
func Range(pool *buffer.Pool, u *stats.Usage, rel smgr.RelFileNumber, fork smgr.ForkNumber, from, to page.BlockNumber, opt Options) *Stream {
	next := from
	return New(pool, u, rel, fork, func() (page.BlockNumber, bool) {
		if next >= to {
			return 0, false
		}
		next++
		return next - 1, true
	}, opt)
}

// Release unpins a buffer the stream handed out (for consumers that hold
// the stream but not the pool).
func (s *Stream) Release(b buffer.Buffer) { s.pool.Release(b) }
