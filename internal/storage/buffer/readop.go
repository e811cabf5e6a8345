package buffer

import (
	"time"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// maxAsyncIOs bounds the reads the engine runs on I/O goroutines at once
// (over all streams); a stream that finds no slot reads synchronously.
const maxAsyncIOs = 64

// ReadOp is a run of consecutive blocks that missed the pool
// (StartReadBuffers' ReadBuffersOperation): each is installed in a pinned
// frame that is not valid yet, whose io mutex the operation holds, so a
// backend wanting one of them waits for this read. Run performs the I/O
// exactly once, from any goroutine; Wait waits for it; Finish, from the
// owner's goroutine, charges the read to the owner's Usage. The pins
// belong to the caller, who releases them whether the read failed or not.
type ReadOp struct {
	pool  *Pool
	s     *Strategy
	first Tag
	bufs  []Buffer

	done  chan struct{}
	err   error
	calls int
	took  time.Duration
}

// StartReadBuffers pins up to max consecutive blocks of a fork from
// block first (max ≥ 1). If the first block is resident it returns just
// that buffer, pinned and valid, counted as a hit, and a nil operation:
// no I/O. Otherwise it installs first and the following blocks that are
// also not resident (stopping before the first resident one, or at max)
// and returns their buffers with the operation that must read them.
func (p *Pool) StartReadBuffers(u *stats.Usage, rel smgr.RelFileNumber, fork smgr.ForkNumber, first page.BlockNumber, max int, s *Strategy) ([]Buffer, *ReadOp, error) {
	tag := Tag{rel, fork, first}
	if b, ok := p.pinHit(u, tag, s); ok {
		return []Buffer{b}, nil, nil
	}
	op := &ReadOp{pool: p, s: s, first: tag, done: make(chan struct{})}
	for i := 0; i < max; i++ {
		t := Tag{rel, fork, first + page.BlockNumber(i)}
		id, ok, err := p.installMiss(u, t, s)
		if err != nil {
			if len(op.bufs) == 0 {
				return nil, nil, err
			}
			break // read what was installed; the caller meets the error later
		}
		if !ok {
			if i == 0 {
				// The first block arrived meanwhile: it is a hit after all.
				return p.StartReadBuffers(u, rel, fork, first, max, s)
			}
			break
		}
		op.bufs = append(op.bufs, Buffer(id+1))
	}
	return op.bufs, op, nil
}

// installMiss claims a victim frame and installs tag in it, invalid, with
// its io mutex held. ok is false (and nothing is pinned) if tag is
// resident.
func (p *Pool) installMiss(u *stats.Usage, tag Tag, s *Strategy) (int32, bool, error) {
	pt := p.part(tag)
	pt.mu.Lock()
	_, resident := pt.m[tag]
	pt.mu.Unlock()
	if resident {
		return -1, false, nil
	}
	id, err := p.getVictim(u, s)
	if err != nil {
		return -1, false, err
	}
	if !p.claimFrame(pt, id, tag) {
		return -1, false, nil
	}
	return id, true, nil
}

// Blocks is the number of blocks the operation reads.
func (op *ReadOp) Blocks() int { return len(op.bufs) }

// TryAsync runs the read on an I/O goroutine if one of the engine's slots
// is free, and reports whether it did; otherwise the caller runs it.
func (op *ReadOp) TryAsync() bool {
	select {
	case op.pool.ioSlots <- struct{}{}:
		go func() {
			defer func() { <-op.pool.ioSlots }()
			op.Run()
		}()
		return true
	default:
		return false
	}
}

// Run reads the blocks with one vectored read (smgr.ReadV), verifies
// their checksums and makes them valid. On failure no block of the run
// stays in the pool: each is unmapped (still pinned by the caller).
func (op *ReadOp) Run() {
	p := op.pool
	defer close(op.done)
	frames := make([][]byte, len(op.bufs))
	for i, b := range op.bufs {
		frames[i] = p.Page(b)
	}
	start := time.Now()
	op.calls, op.err = p.smgr.ReadV(op.first.Rel, op.first.Fork, op.first.Block, frames)
	op.took = time.Since(start)
	if op.err == nil && p.Checksums {
		for i, b := range op.bufs {
			t := op.first
			t.Block += page.BlockNumber(i)
			if op.err = verifyChecksum(p.Page(b), t); op.err != nil {
				break
			}
		}
	}
	for i, b := range op.bufs {
		d := &p.descs[b-1]
		if op.err != nil {
			t := op.first
			t.Block += page.BlockNumber(i)
			pt := p.part(t)
			pt.mu.Lock()
			if cur, ok := pt.m[t]; ok && cur == int32(b-1) {
				delete(pt.m, t)
			}
			pt.mu.Unlock()
			d.hdr.Lock()
			d.valid = false
			d.tag = Tag{}
			d.hdr.Unlock()
		} else {
			d.hdr.Lock()
			d.valid = true
			d.hdr.Unlock()
		}
		d.io.Unlock()
	}
}

// Wait waits for Run to finish and returns its error.
func (op *ReadOp) Wait() error {
	<-op.done
	return op.err
}

// Finish charges a successful read to u (EXPLAIN's shared read, its I/O
// time, and pg_stat_io: blocks, not system calls, as PostgreSQL 17 counts
// combined reads). Call it from u's goroutine after Wait.
func (op *ReadOp) Finish(u *stats.Usage) {
	if op.err == nil {
		op.pool.countRead(u, op.s, len(op.bufs), op.calls, op.took)
	}
}

// PinLimit is how many buffers one backend's read stream may keep pinned
// (LimitAdditionalPins: a fair share of the pool, so streams of many
// backends cannot pin every frame between them).
func (p *Pool) PinLimit() int {
	n := p.n / 128
	if n < 1 {
		n = 1
	}
	return n
}

// PinLimit is the most buffers a stream reading through this ring may
// keep pinned (GetAccessStrategyPinLimit): a bulk-read ring may be
// entirely pinned, other rings half, so their writes can recycle frames.
func (s *Strategy) PinLimit() int {
	if s == nil {
		return 1 << 30
	}
	if s.kind == BulkRead {
		return len(s.ring)
	}
	if n := len(s.ring) / 2; n > 0 {
		return n
	}
	return 1
}
