// Package buffer is the shared buffer pool: a fixed array of 8 KiB page
// frames (shared_buffers), a partitioned mapping table from block tags to
// frames, clock-sweep replacement with usage counts, pins, content locks,
// dirty tracking, and ring-buffer access strategies for bulk reads, bulk
// writes and VACUUM.
//
// See README.md for the rules; in short:
//   - a pinned buffer is never evicted; a page may be read with a share
//     content lock and changed only with an exclusive one;
//   - before a dirty page is written, WAL is flushed up to the page's LSN
//     (the WAL-before-data rule), through the FlushWAL hook;
//   - counters follow PostgreSQL: hit, read, dirtied (clean→dirty
//     transitions), written (evictions by this backend, and extensions).
package buffer

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// Tag identifies a block of a relation fork (BufferTag).
type Tag struct {
	Rel   smgr.RelFileNumber
	Fork  smgr.ForkNumber
	Block page.BlockNumber
}

func (t Tag) String() string {
	return fmt.Sprintf("rel %d fork %s blk %d", t.Rel, t.Fork, t.Block)
}

// Buffer is a 1-based frame number; 0 is InvalidBuffer.
type Buffer int32

// InvalidBuffer is no buffer.
const InvalidBuffer Buffer = 0

// MaxUsageCount is BM_MAX_USAGE_COUNT.
const MaxUsageCount = 5

const numPartitions = 128

type desc struct {
	hdr      sync.Mutex // guards tag, usage, valid, dirty, justDirtied
	tag      Tag
	refcount int32
	usage    uint8
	valid    bool
	dirty    bool
	// justDirtied is set by every MarkDirty; a writer clears it before
	// writing and keeps the buffer dirty if it was set again meanwhile.
	justDirtied bool

	io      sync.Mutex   // held while the frame's contents are being read in
	content sync.RWMutex // the content lock
}

type partition struct {
	mu sync.Mutex
	m  map[Tag]int32
}

// Pool is the shared buffer pool.
type Pool struct {
	smgr   *smgr.Manager
	n      int
	mem    []byte
	mapped bool // mem is an anonymous mapping (framemem.go)
	descs  []desc
	parts  [numPartitions]partition
	seed   maphash.Seed

	clock atomic.Uint64

	// extendMu serialises relation extension: a new block's buffer is
	// installed before the file grows (Extend).
	extendMu sync.Mutex

	// FlushWAL makes WAL durable up to lsn; set before any page is
	// written. It enforces WAL-before-data.
	FlushWAL func(lsn page.LSN) error
	// FlushedWAL, when set, says how far WAL is durable; the background
	// writer leaves pages whose LSN is beyond it (bgwriter.go).
	FlushedWAL func() page.LSN
	// Checksums turns on page checksums (computed on write, verified on read).
	Checksums bool
	// OnChecksumFailure, if set, is called for each page read whose
	// checksum does not verify (pg_stat_database.checksum_failures).
	OnChecksumFailure func()

	counters counters // who wrote what (bgwriter.go)
	// IO is the engine's pg_stat_io counters (nil: not counted).
	IO *stats.IO

	// ioSlots bounds the reads running on I/O goroutines at once, over
	// all read streams of the engine (see readop.go).
	ioSlots chan struct{}
}

// New allocates a pool of n frames over m.
func New(m *smgr.Manager, n int) *Pool {
	if n < 16 {
		n = 16
	}
	// The frames are aligned for O_DIRECT (io_direct = data), so reads
	// go straight into them.
	mem, mapped := frameMemory(n)
	p := &Pool{smgr: m, n: n, mem: mem, mapped: mapped, descs: make([]desc, n), seed: maphash.MakeSeed(), ioSlots: make(chan struct{}, maxAsyncIOs)}
	for i := range p.parts {
		p.parts[i].m = make(map[Tag]int32)
	}
	return p
}

// NBuffers is the number of frames.
func (p *Pool) NBuffers() int { return p.n }

// Smgr is the storage manager under the pool.
func (p *Pool) Smgr() *smgr.Manager { return p.smgr }

func (p *Pool) part(t Tag) *partition {
	var h maphash.Hash
	h.SetSeed(p.seed)
	var b [9]byte
	binary.LittleEndian.PutUint32(b[0:], uint32(t.Rel))
	b[4] = byte(t.Fork)
	binary.LittleEndian.PutUint32(b[5:], t.Block)
	h.Write(b[:])
	return &p.parts[h.Sum64()%numPartitions]
}

// Page returns the frame of a pinned buffer.
func (p *Pool) Page(b Buffer) page.Page {
	i := int(b - 1)
	return page.Page(p.mem[i*page.Size : (i+1)*page.Size : (i+1)*page.Size])
}

// TagOf returns the tag of a pinned buffer.
func (p *Pool) TagOf(b Buffer) Tag { return p.descs[b-1].tag }

// Read returns block tag pinned (not locked), reading it if needed. A nil
// strategy means normal replacement.
func (p *Pool) Read(u *stats.Usage, tag Tag, s *Strategy) (Buffer, error) {
	return p.read(u, tag, s, false)
}

// ReadZero returns block tag pinned with its frame zeroed instead of read
// (RBM_ZERO: the caller will initialise the page, e.g. in redo).
func (p *Pool) ReadZero(u *stats.Usage, tag Tag) (Buffer, error) {
	return p.read(u, tag, nil, true)
}

func (p *Pool) read(u *stats.Usage, tag Tag, s *Strategy, zero bool) (Buffer, error) {
	for {
		if b, ok := p.pinHit(u, tag, s); ok {
			return b, nil
		}
		pt := p.part(tag)

		// Miss: claim a victim frame, then install it under the new tag.
		id, err := p.getVictim(u, s)
		if err != nil {
			return InvalidBuffer, err
		}
		if !p.claimFrame(pt, id, tag) {
			continue
		}
		d := &p.descs[id]

		buf := p.Page(Buffer(id + 1))
		var rerr error
		var calls int
		var took time.Duration
		if zero {
			clear(buf)
		} else {
			start := time.Now()
			calls, rerr = p.smgr.ReadV(tag.Rel, tag.Fork, tag.Block, [][]byte{buf})
			took = time.Since(start)
			if rerr == nil && p.Checksums {
				if rerr = verifyChecksum(buf, tag); rerr != nil && p.OnChecksumFailure != nil {
					p.OnChecksumFailure()
				}
			}
		}
		if rerr != nil {
			pt.mu.Lock()
			delete(pt.m, tag)
			pt.mu.Unlock()
			d.hdr.Lock()
			d.valid = false
			d.tag = Tag{}
			d.hdr.Unlock()
			d.io.Unlock()
			p.unpin(id)
			return InvalidBuffer, rerr
		}
		d.hdr.Lock()
		d.valid = true
		d.hdr.Unlock()
		d.io.Unlock()
		if !zero {
			p.countRead(u, s, 1, calls, took)
		}
		return Buffer(id + 1), nil
	}
}

// pinHit pins tag if it is resident (waiting for a read of it in
// progress) and counts a hit; ok is false if it is not, or if the read in
// progress failed.
func (p *Pool) pinHit(u *stats.Usage, tag Tag, s *Strategy) (Buffer, bool) {
	pt := p.part(tag)
	pt.mu.Lock()
	id, ok := pt.m[tag]
	if !ok {
		pt.mu.Unlock()
		return InvalidBuffer, false
	}
	d := &p.descs[id]
	d.hdr.Lock()
	d.refcount++
	if s == nil {
		if d.usage < MaxUsageCount {
			d.usage++
		}
	} else if d.usage == 0 {
		d.usage = 1
	}
	valid := d.valid
	d.hdr.Unlock()
	pt.mu.Unlock()
	if !valid {
		// Someone is reading it in; wait for them.
		d.io.Lock()
		d.hdr.Lock()
		valid = d.valid && d.tag == tag
		d.hdr.Unlock()
		d.io.Unlock()
		if !valid {
			p.unpin(id)
			return InvalidBuffer, false
		}
	}
	if u != nil {
		u.Buf.SharedHit++
	}
	p.count(u, s, stats.OpHit, 1, 0)
	return Buffer(id + 1), true
}

// getVictim returns a pinned, clean frame that is not in the mapping table.
func (p *Pool) getVictim(u *stats.Usage, s *Strategy) (int32, error) {
	for attempt := 0; ; attempt++ {
		id, fromRing := int32(-1), false
		if s != nil {
			id = s.next(p)
			fromRing = id >= 0
		}
		if id < 0 {
			id = p.clockSweep()
			if s != nil {
				s.put(id)
			}
		}
		d := &p.descs[id]
		// id is pinned by us now (clockSweep/next pinned it).
		d.hdr.Lock()
		dirty := d.dirty && d.valid
		d.hdr.Unlock()
		if dirty {
			if fromRing && s.kind == BulkRead && p.needsWALFlush(id) {
				// As StrategyRejectBuffer: a bulk read does not flush WAL
				// to recycle a ring slot; take a fresh frame instead.
				s.forget()
				p.unpin(id)
				continue
			}
			if fromRing && s.kind == BulkWrite {
				if err := p.flushRingRun(u, s, id); err != nil {
					p.unpin(id)
					return -1, err
				}
			} else if err := p.flushFrame(u, s, id); err != nil {
				p.unpin(id)
				return -1, err
			} else {
				p.counters.backendWritten.Add(1)
			}
		}
		// Unmap it, if nobody else pinned or dirtied it meanwhile.
		d.hdr.Lock()
		oldTag, valid := d.tag, d.valid
		d.hdr.Unlock()
		if valid || oldTag != (Tag{}) {
			pt := p.part(oldTag)
			pt.mu.Lock()
			d.hdr.Lock()
			if d.refcount != 1 || d.dirty {
				d.hdr.Unlock()
				pt.mu.Unlock()
				p.unpin(id)
				continue
			}
			if cur, ok := pt.m[oldTag]; ok && cur == id {
				delete(pt.m, oldTag)
			}
			d.valid = false
			d.tag = Tag{}
			d.hdr.Unlock()
			pt.mu.Unlock()
			if valid {
				// A frame holding a block was recycled: from the ring it is
				// a reuse, from the shared pool an eviction (pg_stat_io).
				op := stats.OpEvict
				if fromRing {
					op = stats.OpReuse
				}
				p.count(u, s, op, 1, 0)
			}
		}
		return id, nil
	}
}

func (p *Pool) needsWALFlush(id int32) bool {
	// Conservative: any dirty page may need it; the WAL layer makes
	// already-flushed LSNs cheap, so only bulk-read rings care.
	return true
}

// clockSweep finds an unpinned frame with usage count 0, decrementing usage
// counts as it passes, and returns it pinned.
func (p *Pool) clockSweep() int32 {
	tries := 0
	for {
		id := int32(p.clock.Add(1) % uint64(p.n))
		d := &p.descs[id]
		d.hdr.Lock()
		if d.refcount == 0 {
			if d.usage == 0 {
				d.refcount = 1
				d.hdr.Unlock()
				p.counters.allocs.Add(1)
				return id
			}
			d.usage--
		}
		d.hdr.Unlock()
		tries++
		if tries > p.n*(MaxUsageCount+2) {
			// Every frame is pinned: wait a moment, as PostgreSQL would
			// fail with "no unpinned buffers available" only after trying.
			runtime.Gosched()
			tries = 0
		}
	}
}

// claimFrame maps a pinned victim frame to tag, with its I/O lock held
// for the read that fills it. If someone else mapped tag meanwhile it
// gives the frame back and reports false: the caller looks tag up again.
func (p *Pool) claimFrame(pt *partition, id int32, tag Tag) bool {
	d := &p.descs[id]
	pt.mu.Lock()
	if _, ok := pt.m[tag]; ok {
		pt.mu.Unlock()
		p.unpin(id)
		return false
	}
	d.io.Lock()
	d.hdr.Lock()
	d.tag = tag
	d.valid = false
	d.dirty = false
	d.usage = 1
	d.hdr.Unlock()
	pt.m[tag] = id
	pt.mu.Unlock()
	return true
}

// flushFrame writes a pinned dirty frame out, charged to the backend that
// needed the frame, in its strategy's context.
func (p *Pool) flushFrame(u *stats.Usage, s *Strategy, id int32) error {
	d := &p.descs[id]
	start := time.Now()
	d.content.RLock()
	err := p.writeLocked(id)
	d.content.RUnlock()
	if err == nil {
		if u != nil {
			u.Buf.SharedWritten++
		}
		p.countWrite(u, s, 1, 1, time.Since(start))
	}
	return err
}

// writeLocked writes a frame whose content lock is held (share or
// exclusive) and clears its dirty flag unless it was dirtied again.
func (p *Pool) writeLocked(id int32) error {
	d := &p.descs[id]
	d.hdr.Lock()
	if !d.dirty || !d.valid {
		d.hdr.Unlock()
		return nil
	}
	d.justDirtied = false
	tag := d.tag
	d.hdr.Unlock()
	pg := p.Page(Buffer(id + 1))
	if p.FlushWAL != nil {
		if err := p.FlushWAL(pg.LSN()); err != nil {
			return err
		}
	}
	out := pg
	if p.Checksums {
		// Hint bits may change under a share lock: checksum a copy.
		var tmp [page.Size]byte
		copy(tmp[:], pg)
		setChecksum(tmp[:], tag)
		out = tmp[:]
	}
	if err := p.smgr.Write(tag.Rel, tag.Fork, tag.Block, out); err != nil {
		return err
	}
	d.hdr.Lock()
	if !d.justDirtied {
		d.dirty = false
	}
	d.hdr.Unlock()
	return nil
}

// Release unpins a buffer.
func (p *Pool) Release(b Buffer) { p.unpin(int32(b - 1)) }

func (p *Pool) unpin(id int32) {
	d := &p.descs[id]
	d.hdr.Lock()
	if d.refcount <= 0 {
		d.hdr.Unlock()
		panic("buffer: unpin of unpinned buffer")
	}
	d.refcount--
	d.hdr.Unlock()
}

// Pin adds a pin to an already pinned buffer.
func (p *Pool) Pin(b Buffer) {
	d := &p.descs[b-1]
	d.hdr.Lock()
	d.refcount++
	d.hdr.Unlock()
}

// Lock modes.
const (
	Share     = false
	Exclusive = true
)

// Lock takes the content lock.
func (p *Pool) Lock(b Buffer, exclusive bool) {
	d := &p.descs[b-1]
	if exclusive {
		d.content.Lock()
	} else {
		d.content.RLock()
	}
}

// TryLockExclusive takes the exclusive content lock if it is free.
func (p *Pool) TryLockExclusive(b Buffer) bool { return p.descs[b-1].content.TryLock() }

// Unlock releases the content lock.
func (p *Pool) Unlock(b Buffer, exclusive bool) {
	d := &p.descs[b-1]
	if exclusive {
		d.content.Unlock()
	} else {
		d.content.RUnlock()
	}
}

// UnlockRelease releases the content lock and the pin.
func (p *Pool) UnlockRelease(b Buffer, exclusive bool) {
	p.Unlock(b, exclusive)
	p.Release(b)
}

// MarkDirty marks a pinned, exclusively locked buffer dirty.
func (p *Pool) MarkDirty(u *stats.Usage, b Buffer) {
	d := &p.descs[b-1]
	d.hdr.Lock()
	if !d.dirty && u != nil {
		u.Buf.SharedDirtied++
	}
	d.dirty = true
	d.justDirtied = true
	d.hdr.Unlock()
}

// MarkDirtyHint marks a buffer dirty for a change that needs no WAL (hint
// bits), allowed under a share lock, as MarkBufferDirtyHint.
func (p *Pool) MarkDirtyHint(u *stats.Usage, b Buffer) { p.MarkDirty(u, b) }

// IsDirty reports whether the buffer is dirty.
func (p *Pool) IsDirty(b Buffer) bool {
	d := &p.descs[b-1]
	d.hdr.Lock()
	defer d.hdr.Unlock()
	return d.dirty
}

// Extend adds a block to the fork and returns it pinned and exclusively
// locked, zero-filled, counted as written as PostgreSQL 15 counts it.
//
// The new block's buffer is installed and locked before the file grows
// (PostgreSQL's RBM_ZERO_AND_LOCK under the extension lock): once another
// backend can see the block in the fork's length, the buffer is already
// there, so it waits for the extender's lock and finds the page the
// extender initialised. Growing the file first left a window in which a
// reader could take the zero page, initialise it and insert into it, and
// the extender then initialised it again, wiping that row.
func (p *Pool) Extend(u *stats.Usage, rel smgr.RelFileNumber, fork smgr.ForkNumber, s *Strategy) (Buffer, page.BlockNumber, error) {
	p.extendMu.Lock()
	defer p.extendMu.Unlock()
	blk, err := p.smgr.NBlocks(rel, fork)
	if err != nil {
		return InvalidBuffer, 0, err
	}
	// u is passed so that a dirty victim this backend writes out to make
	// room is counted as written, as everywhere else (it was nil, which
	// lost those writes for bulk loads through a BulkWrite ring). A zeroing
	// read counts no read.
	tag := Tag{rel, fork, blk}
	b, err := p.read(u, tag, s, true)
	if err != nil {
		return InvalidBuffer, 0, err
	}
	p.Lock(b, Exclusive)
	clear(p.Page(b)) // a block past the end is zeros, whatever a stale frame held
	start := time.Now()
	got, err := p.smgr.Extend(rel, fork)
	if err == nil && got != blk {
		err = fmt.Errorf("buffer: extending %v fork %d: the file grew to block %d, expected %d", rel, fork, got, blk)
	}
	if err != nil {
		p.Unlock(b, Exclusive)
		p.forget(b, tag)
		return InvalidBuffer, 0, err
	}
	if u != nil {
		u.Buf.SharedWritten++
	}
	p.count(u, s, stats.OpExtend, 1, p.timed(u, time.Since(start)))
	return b, blk, nil
}

// forget unpins buffer b, which holds tag, and takes it out of the
// mapping (a block that turned out not to exist).
func (p *Pool) forget(b Buffer, tag Tag) {
	id := int32(b) - 1
	d := &p.descs[id]
	pt := p.part(tag)
	pt.mu.Lock()
	if cur, ok := pt.m[tag]; ok && cur == id {
		delete(pt.m, tag)
	}
	pt.mu.Unlock()
	d.hdr.Lock()
	d.valid = false
	d.dirty = false
	d.tag = Tag{}
	d.hdr.Unlock()
	p.unpin(id)
}

// FlushAll writes every dirty buffer at full speed and fsyncs the
// relation files (SyncBuffers without pacing). It returns the number of
// buffers written.
func (p *Pool) FlushAll() (int, error) {
	res, err := p.SyncBuffers(SyncOptions{})
	return res.Written, err
}

// DropRelation forgets every buffer of rel without writing it (DROP TABLE,
// TRUNCATE, or truncation of a fork from block `from` on).
func (p *Pool) DropRelation(rel smgr.RelFileNumber, fork smgr.ForkNumber, from page.BlockNumber, allForks bool) {
	for i := range p.descs {
		d := &p.descs[i]
		d.hdr.Lock()
		t := d.tag
		match := d.valid && t.Rel == rel && (allForks || t.Fork == fork) && t.Block >= from
		d.hdr.Unlock()
		if !match {
			continue
		}
		pt := p.part(t)
		pt.mu.Lock()
		d.hdr.Lock()
		if d.tag == t && d.valid {
			if cur, ok := pt.m[t]; ok && cur == int32(i) {
				delete(pt.m, t)
			}
			d.valid = false
			d.dirty = false
			d.tag = Tag{}
			d.usage = 0
		}
		d.hdr.Unlock()
		pt.mu.Unlock()
	}
}

// Cached reports whether a block is in the pool (tests and diagnostics).
func (p *Pool) Cached(tag Tag) bool {
	pt := p.part(tag)
	pt.mu.Lock()
	_, ok := pt.m[tag]
	pt.mu.Unlock()
	return ok
}

// Stats summarises the pool for diagnostics.
func (p *Pool) Stats() (valid, dirty, pinned int) {
	for i := range p.descs {
		d := &p.descs[i]
		d.hdr.Lock()
		if d.valid {
			valid++
		}
		if d.dirty {
			dirty++
		}
		if d.refcount > 0 {
			pinned++
		}
		d.hdr.Unlock()
	}
	return
}

func setChecksum(pg []byte, tag Tag) { page.SetChecksumInplace(pg, tag.Block) }

func verifyChecksum(pg []byte, tag Tag) error {
	ok, expected, got := page.VerifyChecksum(pg, tag.Block)
	if !ok {
		if expected == 0 && got == 0 {
			return pgerr.Errorf(pgerr.DataCorrupted, "invalid page in block %d of relation base/%d", tag.Block, tag.Rel)
		}
		return pgerr.Errorf(pgerr.DataCorrupted, "invalid page in block %d of relation base/%d: page verification failed, calculated checksum %d but expected %d", tag.Block, tag.Rel, got, expected)
	}
	return nil
}
