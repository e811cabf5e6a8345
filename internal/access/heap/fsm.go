package heap

import (
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// The free space map fork: after the standard page header, one byte per
// heap block holding its free space in 32-byte categories (free/32, as
// PostgreSQL's FSM categories). Like PostgreSQL's FSM it is a hint: it is
// not WAL-logged, may be stale after a crash, and every user re-checks the
// page itself. Unlike PostgreSQL's it is one flat level (a page covers
// 8,168 heap blocks), searched linearly from a roving start point.
const fsmSlotsPerPage = page.Size - page.HeaderSize

type fsm struct {
	env  *Env
	rel  smgr.RelFileNumber
	next atomic.Uint32 // where the next search starts (spreads inserters)
}

func category(avail int) byte {
	if avail <= 0 {
		return 0
	}
	c := avail / 32
	if c > 255 {
		c = 255
	}
	return byte(c)
}

// search returns a heap block recorded with at least need bytes free, or
// InvalidBlock.
func (f *fsm) search(u *stats.Usage, need int) page.BlockNumber {
	sm := f.env.Pool.Smgr()
	if !sm.Exists(f.rel, smgr.FSMFork) {
		return page.InvalidBlock
	}
	nb, err := sm.NBlocks(f.rel, smgr.FSMFork)
	if err != nil || nb == 0 {
		return page.InvalidBlock
	}
	want := byte((need + 31) / 32)
	if want == 0 {
		want = 1
	}
	total := uint32(nb) * fsmSlotsPerPage
	start := f.next.Load() % total
	for scanned := uint32(0); scanned < total; {
		heapBlk := (start + scanned) % total
		fblk := heapBlk / fsmSlotsPerPage
		slot := heapBlk % fsmSlotsPerPage
		b, err := f.env.Pool.Read(u, buffer.Tag{Rel: f.rel, Fork: smgr.FSMFork, Block: fblk}, nil)
		if err != nil {
			return page.InvalidBlock
		}
		f.env.Pool.Lock(b, buffer.Share)
		p := f.env.Pool.Page(b)
		found := page.InvalidBlock
		if !p.IsNew() {
			slots := p[page.HeaderSize:]
			for i := slot; i < fsmSlotsPerPage; i++ {
				if slots[i] >= want {
					found = fblk*fsmSlotsPerPage + i
					break
				}
			}
		}
		f.env.Pool.UnlockRelease(b, buffer.Share)
		if found != page.InvalidBlock {
			f.next.Store(found + 1)
			return found
		}
		scanned += fsmSlotsPerPage - slot
	}
	return page.InvalidBlock
}

// record notes the free space of a heap block.
func (f *fsm) record(u *stats.Usage, blk page.BlockNumber, avail int) {
	pool := f.env.Pool
	sm := pool.Smgr()
	fblk := blk / fsmSlotsPerPage
	cat := category(avail)
	if !sm.Exists(f.rel, smgr.FSMFork) {
		if cat == 0 {
			return
		}
		if err := sm.Create(f.rel, smgr.FSMFork); err != nil {
			return
		}
	}
	nb, err := sm.NBlocks(f.rel, smgr.FSMFork)
	if err != nil {
		return
	}
	for nb <= fblk {
		if cat == 0 {
			return
		}
		b, _, err := pool.Extend(u, f.rel, smgr.FSMFork, nil)
		if err != nil {
			return
		}
		page.Init(pool.Page(b), 0, nil)
		pool.MarkDirtyHint(u, b)
		pool.UnlockRelease(b, buffer.Exclusive)
		nb++
	}
	b, err := pool.Read(u, buffer.Tag{Rel: f.rel, Fork: smgr.FSMFork, Block: fblk}, nil)
	if err != nil {
		return
	}
	pool.Lock(b, buffer.Exclusive)
	p := pool.Page(b)
	if p.IsNew() {
		page.Init(p, 0, nil)
	}
	slot := page.HeaderSize + int(blk%fsmSlotsPerPage)
	if p[slot] != cat {
		p[slot] = cat
		pool.MarkDirtyHint(u, b)
	}
	pool.UnlockRelease(b, buffer.Exclusive)
}

func (f *fsm) recordAndSearch(u *stats.Usage, blk page.BlockNumber, avail, need int) page.BlockNumber {
	f.record(u, blk, avail)
	return f.search(u, need)
}

// RecordFreeSpace notes a heap block's free space (VACUUM).
func (r *Relation) RecordFreeSpace(u *stats.Usage, blk page.BlockNumber, avail int) {
	r.fsm.record(u, blk, avail)
}
