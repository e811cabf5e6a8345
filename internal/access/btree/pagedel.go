package btree

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// Page deletion and recycling (nbtpage.c: _bt_pagedel,
// _bt_mark_page_halfdead, _bt_unlink_halfdead_page, _bt_allocbuf). See
// README.md, "Page deletion and recycling".

// A deleted page holds, after the page header, BTDeletedPageData: the
// 8-byte FullTransactionId safexid (epoch 0 here).
const (
	deletedSafexidOff = page.HeaderSize
	deletedLower      = page.HeaderSize + 8
)

// invalidBlock is InvalidBlockNumber, the "no top parent" link a half-dead
// leaf keeps in its high key slot.
const invalidBlock page.BlockNumber = 0xFFFFFFFF

// pageSafexid returns a deleted page's safexid.
func pageSafexid(p page.Page) uint32 {
	return uint32(binary.LittleEndian.Uint64(p[deletedSafexidOff:]))
}

// xidPrecedes is the horizon test (plain comparison, as xact.OldestXmin).
// xidPrecedes compares transaction ids modulo 2^32 (normal ids ≥ 3), as
// xact.Precedes does.
func xidPrecedes(a, b uint32) bool {
	if a < 3 || b < 3 {
		return a < b
	}
	return int32(a-b) < 0
}

// recyclable reports whether p may be reused: never initialized, or deleted
// with a safexid before the horizon (BTPageIsRecyclable).
func recyclable(p page.Page, horizon uint32) bool {
	if p.IsNew() {
		return true
	}
	op := getOpaque(p)
	return op.flags&FlagDeleted != 0 && op.flags&FlagHasFullXid != 0 && xidPrecedes(pageSafexid(p), horizon)
}

// ---- the free-page list ----
//
// PostgreSQL records recyclable pages in the index's free space map. Here
// the list is kept in memory on the Index handle: a bulk delete adds every
// recyclable page as its physical scan reaches it (RecordFreeIndexPage), so
// splits can take it at once, even while the scan goes on; a split takes
// the lowest block. Nothing is logged for it: a crash or a new handle just
// forgets it until the next VACUUM, and a page is re-checked under an
// exclusive lock before reuse, so an entry that is no longer true is
// harmless.

// freeList is a set of recyclable blocks, lowest first.
type freeList struct {
	mu   sync.Mutex
	heap blockHeap
	in   map[page.BlockNumber]struct{}
	n    atomic.Int32 // len(heap), read without mu
}

type blockHeap []page.BlockNumber

func (h blockHeap) Len() int           { return len(h) }
func (h blockHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h blockHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *blockHeap) Push(x any)        { *h = append(*h, x.(page.BlockNumber)) }
func (h *blockHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	*h = old[:len(old)-1]
	return b
}

func (f *freeList) add(blk page.BlockNumber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.in[blk]; ok {
		return
	}
	if f.in == nil {
		f.in = map[page.BlockNumber]struct{}{}
	}
	f.in[blk] = struct{}{}
	heap.Push(&f.heap, blk)
	f.n.Store(int32(len(f.heap)))
}

func (f *freeList) pop() (page.BlockNumber, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.heap) == 0 {
		return 0, false
	}
	blk := heap.Pop(&f.heap).(page.BlockNumber)
	delete(f.in, blk)
	f.n.Store(int32(len(f.heap)))
	return blk, true
}

// FreePages returns the blocks currently known to be reusable, lowest first.
func (ix *Index) FreePages() []page.BlockNumber {
	ix.free.mu.Lock()
	out := slices.Clone([]page.BlockNumber(ix.free.heap))
	ix.free.mu.Unlock()
	slices.Sort(out)
	return out
}

// newPage returns a page for a split's new right half, exclusively locked:
// a recycled one when the free list has one (_bt_allocbuf), else a new
// block at the end of the relation. A recycled block may lie behind a
// running bulk delete's scan: the split stamps both halves with the bulk
// delete's cycle id, and the bulk delete goes back for them (see
// BulkDeleteWith).
func (o *op) newPage() (lockedBuf, error) {
	ix := o.ix
	if ix.free.n.Load() > 0 && ix.env.OldestXmin != nil {
		var horizon uint32
		haveHorizon := false
		for {
			blk, ok := ix.free.pop()
			if !ok {
				break
			}
			if !haveHorizon {
				horizon, haveHorizon = ix.env.OldestXmin(), true
			}
			b, err := ix.pool.Read(o.u, ix.tag(blk), nil)
			if err != nil {
				return lockedBuf{}, err
			}
			// Never wait here (we hold the page being split): a page
			// someone has locked is not free for us anyway.
			if !ix.pool.TryLockExclusive(b) {
				ix.pool.Release(b)
				continue
			}
			if recyclable(ix.pool.Page(b), horizon) {
				return lockedBuf{buf: b, blk: blk, excl: true}, nil
			}
			ix.pool.UnlockRelease(b, buffer.Exclusive)
		}
	}
	return o.extend()
}

// extend adds a block at the end of the relation, locked (splits with no
// free page, newRoot, createRoot).
func (o *op) extend() (lockedBuf, error) {
	ix := o.ix
	ix.extending.Add(1)
	b, blk, err := ix.pool.Extend(o.u, ix.rel, smgr.MainFork, nil)
	ix.extending.Add(-1)
	if err != nil {
		return lockedBuf{}, err
	}
	return lockedBuf{buf: b, blk: blk, excl: true}, nil
}

// startVacuum begins a bulk delete (one per index at a time; PostgreSQL:
// one VACUUM per table) and publishes its vacuum cycle id
// (_bt_start_vacuum), which splits copy into the pages they split from now
// on.
func (ix *Index) startVacuum() uint16 {
	ix.vacMu.Lock()
	ix.lastCycle++
	if ix.lastCycle == 0 {
		ix.lastCycle = 1
	}
	ix.cycle.Store(uint32(ix.lastCycle))
	return ix.lastCycle
}

func (ix *Index) endVacuum() {
	ix.cycle.Store(0)
	ix.vacMu.Unlock()
}

// vacuumCycle is the running bulk delete's cycle id, 0 when none
// (_bt_vacuum_cycleid).
func (ix *Index) vacuumCycle() uint16 { return uint16(ix.cycle.Load()) }

// ---- deletion ----

// canDeleteLeaf is the first check of _bt_pagedel: an empty, live leaf that
// is neither the root nor the rightmost page of its level, and whose split
// is complete.
func canDeleteLeaf(p page.Page) bool {
	op := getOpaque(p)
	return op.isLeaf() && !op.ignore() && !op.isRoot() && !op.rightmost() && !op.incomplete() &&
		p.MaxOffset() < op.firstData()
}

// pageDel tries to delete the empty leaf lb (exclusively locked by the
// caller, who keeps its pin: lb is unlocked, not released, on return) in
// PostgreSQL's two stages: mark it half-dead while removing its downlink
// from the parent (the parent's pivot for it is re-pointed at its right
// sibling, whose own pivot is removed, so the right sibling takes over its
// key space), then unlink it from its siblings and mark it deleted with
// safexid = the next xid. deleted is true when the page was deleted;
// a page that cannot be deleted now is simply left alone.
//
// Simplification: only a leaf whose downlink is not the last one in its
// parent is deleted (PostgreSQL also deletes a chain of single-child
// parents with it); internal pages are never deleted.
func (o *op) pageDel(lb lockedBuf, xid uint32) (deleted bool, safexid uint32, err error) {
	ix := o.ix
	p := o.page(lb)
	if !canDeleteLeaf(p) {
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return false, 0, nil
	}
	op := getOpaque(p)
	hikey := append([]byte(nil), itemAt(p, PHiKey)...)
	leftsib := op.prev
	// Locks are taken bottom-up and left to right only: drop the leaf's
	// lock (keeping the pin) before looking left and descending.
	ix.pool.Unlock(lb.buf, buffer.Exclusive)

	// The right half of an incomplete split has no downlink yet.
	if leftsib != PNone {
		l, err := o.read(leftsib, false)
		if err != nil {
			return false, 0, err
		}
		lop := getOpaque(o.page(l))
		bad := lop.next == lb.blk && lop.incomplete()
		o.release(l)
		if bad {
			return false, 0, nil
		}
	}

	// Find the parent: descend towards "just below the leaf's high key".
	n := ix.natts(hikey)
	keys := make([]datum.Datum, n)
	if err := ix.deform(hikey, keys, n); err != nil {
		return false, 0, err
	}
	sk := &scanKey{keys: keys, tail: tailBelow}
	if tid, ok := heapTID(hikey); ok && n == ix.nkeys {
		sk.tid, sk.hasTID = tid, true
	}
	pe, ok, err := o.parentEntry(sk)
	if err != nil || !ok {
		return false, 0, err
	}

	// Stage 1 (_bt_mark_page_halfdead), leaf locked again and re-checked.
	ix.pool.Lock(lb.buf, buffer.Exclusive)
	if !canDeleteLeaf(p) {
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return false, 0, nil
	}
	rightsib := getOpaque(p).next
	par, poff, found, err := o.lockParent(pe, lb.blk)
	if err != nil || !found {
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return false, 0, err
	}
	pp := o.page(par)
	if poff >= pp.MaxOffset() || downlink(itemAt(pp, poff+1)) != rightsib {
		// The leaf is its parent's last child (deleting it would mean
		// deleting the parent too), or the right sibling's downlink is
		// not next to it (it is missing: a half-dead right sibling).
		o.release(par)
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return false, 0, nil
	}
	if err := o.markHalfDead(lb, par, poff, rightsib, xid); err != nil {
		o.release(par)
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return false, 0, err
	}
	o.release(par)

	// Stage 2.
	safexid, err = o.unlinkHalfDead(lb, xid)
	return err == nil, safexid, err
}

// parentEntry descends with share locks, one page at a time, to the level-1
// page whose downlink covers sk, and returns that page and offset.
func (o *op) parentEntry(sk *scanKey) (stackEntry, bool, error) {
	lb, err := o.getRoot()
	if err != nil || lb.buf == buffer.InvalidBuffer {
		return stackEntry{}, false, err
	}
	for {
		if lb, err = o.moveRight(lb, sk, false, 0); err != nil {
			return stackEntry{}, false, err
		}
		p := o.page(lb)
		op := getOpaque(p)
		if op.isLeaf() {
			o.release(lb)
			return stackEntry{}, false, nil
		}
		off, err := o.binsrch(p, op, sk)
		if err != nil {
			o.release(lb)
			return stackEntry{}, false, err
		}
		if op.level == 1 {
			o.release(lb)
			return stackEntry{blk: lb.blk, off: off}, true, nil
		}
		child := downlink(itemAt(p, off))
		o.release(lb)
		if lb, err = o.read(child, false); err != nil {
			return stackEntry{}, false, err
		}
	}
}

// lockParent exclusively locks the page holding the downlink to child,
// starting where the descent found it and moving right (_bt_getstackbuf,
// without finishing incomplete splits). found is false if it is not there.
func (o *op) lockParent(pe stackEntry, child page.BlockNumber) (lockedBuf, page.OffsetNumber, bool, error) {
	blk, start := pe.blk, pe.off
	for {
		lb, err := o.read(blk, true)
		if err != nil {
			return lockedBuf{}, 0, false, err
		}
		p := o.page(lb)
		op := getOpaque(p)
		if !op.ignore() && !op.isLeaf() {
			first, last := op.firstData(), p.MaxOffset()
			start = min(max(start, first), last+1)
			for off := start; off <= last; off++ {
				if downlink(itemAt(p, off)) == child {
					return lb, off, true, nil
				}
			}
			for off := start - 1; off >= first; off-- {
				if downlink(itemAt(p, off)) == child {
					return lb, off, true, nil
				}
			}
		}
		if op.rightmost() {
			o.release(lb)
			return lockedBuf{}, 0, false, nil
		}
		blk, start = op.next, 0
		o.release(lb)
	}
}

// topParentLink is the pivot a half-dead leaf keeps as its high key
// (BTreeTupleSetTopParent): no key attributes, t_tid's block naming the
// top parent of the subtree being deleted (none here).
func topParentLink(blk page.BlockNumber) []byte {
	t := minusInfPivot(PNone)
	page.PutItemPointer(t, page.ItemPointer{Block: blk})
	setPivotNAtts(t, 0, false)
	return t
}

// markHalfDead removes the leaf's downlink and marks it half-dead, in one
// MARK_PAGE_HALFDEAD record (leaf, parent).
func (o *op) markHalfDead(leaf, par lockedBuf, poff page.OffsetNumber, rightsib page.BlockNumber, xid uint32) error {
	// The right sibling takes over the leaf's key space, and its readers'
	// SIREAD locks (PredicateLockPageCombine).
	o.ix.env.Pred.PageCombine(uint32(o.ix.rel), uint32(leaf.blk), uint32(rightsib))
	lp := o.page(leaf)
	op := getOpaque(lp)
	hd := halfDead{poff: poff, rightsib: rightsib, prev: op.prev, next: op.next, flags: op.flags | FlagHalfDead}
	hd.applyParent(o.page(par))
	if err := hd.buildLeaf(lp); err != nil {
		return o.ix.corrupt("could not mark block %d half-dead: %v", leaf.blk, err)
	}
	return o.logChange(infoMarkHalf, xid, hd.encode(), walBlock{lb: leaf, data: []byte{}, init: true}, walBlock{lb: par, data: []byte{}})
}

// halfDead is a MARK_PAGE_HALFDEAD record's main data: the parent's pivot
// for the leaf (poff) and the leaf's right sibling, which takes over its
// key space, and the half-dead leaf's links and flags.
type halfDead struct {
	poff       page.OffsetNumber
	rightsib   page.BlockNumber
	prev, next page.BlockNumber
	flags      uint16
}

const halfDeadSize = 16

func (h *halfDead) encode() []byte {
	b := make([]byte, halfDeadSize)
	binary.LittleEndian.PutUint16(b[0:], h.poff)
	binary.LittleEndian.PutUint32(b[2:], h.rightsib)
	binary.LittleEndian.PutUint32(b[6:], h.prev)
	binary.LittleEndian.PutUint32(b[10:], h.next)
	binary.LittleEndian.PutUint16(b[14:], h.flags)
	return b
}

func decodeHalfDead(b []byte) (halfDead, error) {
	if len(b) < halfDeadSize {
		return halfDead{}, fmt.Errorf("short MARK_PAGE_HALFDEAD record (%d bytes)", len(b))
	}
	return halfDead{poff: binary.LittleEndian.Uint16(b[0:]), rightsib: binary.LittleEndian.Uint32(b[2:]),
		prev: binary.LittleEndian.Uint32(b[6:]), next: binary.LittleEndian.Uint32(b[10:]), flags: binary.LittleEndian.Uint16(b[14:])}, nil
}

// applyParent re-points the parent's pivot for the leaf at the right
// sibling and removes the right sibling's own pivot.
func (h *halfDead) applyParent(pp page.Page) {
	it := pp.Item(h.poff)
	t := pp[it.Off : it.Off+6]
	page.PutItemPointer(t, page.ItemPointer{Block: h.rightsib, Offset: page.GetItemPointer(t).Offset})
	pp.DeleteItems([]page.OffsetNumber{h.poff + 1}, nil)
}

// buildLeaf lays the leaf out half-dead: no items, its high key replaced
// by the top-parent link.
func (h *halfDead) buildLeaf(lp page.Page) error {
	return buildPage(lp, opaque{prev: h.prev, next: h.next, level: 0, flags: h.flags}, [][]byte{topParentLink(invalidBlock)})
}

// unlinkHalfDead unlinks the half-dead leaf lb (exclusively locked; it is
// unlocked, not released, on return) from its siblings and marks it
// deleted (_bt_unlink_halfdead_page), in one UNLINK_PAGE record. The
// deleted page keeps its sibling links, so a scan that arrives at it later
// moves right.
func (o *op) unlinkHalfDead(lb lockedBuf, xid uint32) (uint32, error) {
	ix := o.ix
	p := o.page(lb)
	leftsib := getOpaque(p).prev
	ix.pool.Unlock(lb.buf, buffer.Exclusive)

	// Lock order: left sibling, target, right sibling. The left sibling
	// may have split since we looked: move right to the current one.
	var lbuf lockedBuf
	if leftsib != PNone {
		var err error
		if lbuf, err = o.read(leftsib, true); err != nil {
			return 0, err
		}
		for {
			lop := getOpaque(o.page(lbuf))
			if lop.flags&FlagDeleted == 0 && lop.next == lb.blk {
				break // (a half-dead left sibling is fine)
			}
			if lop.rightmost() || lop.flags&FlagDeleted != 0 || lop.next == lbuf.blk {
				o.release(lbuf)
				return 0, ix.corrupt("could not find left sibling of block %d (last tried %d)", lb.blk, lbuf.blk)
			}
			next := lop.next
			o.release(lbuf)
			if lbuf, err = o.read(next, true); err != nil {
				return 0, err
			}
			leftsib = next
		}
	}
	ix.pool.Lock(lb.buf, buffer.Exclusive)
	fail := func(err error, more ...lockedBuf) (uint32, error) {
		for _, b := range more {
			o.release(b)
		}
		o.release(lbuf)
		ix.pool.Unlock(lb.buf, buffer.Exclusive)
		return 0, err
	}
	op := getOpaque(p)
	if !op.isLeaf() || op.flags&FlagHalfDead == 0 || op.rightmost() || op.isRoot() || p.MaxOffset() >= op.firstData() {
		return fail(ix.corrupt("target leaf page changed status unexpectedly in block %d", lb.blk))
	}
	if op.prev != leftsib {
		return fail(ix.corrupt("target page left link unexpectedly changed from %d to %d in block %d", leftsib, op.prev, lb.blk))
	}
	rbuf, err := o.read(op.next, true)
	if err != nil {
		return fail(err)
	}
	rp := o.page(rbuf)
	if rop := getOpaque(rp); rop.prev != lb.blk {
		return fail(ix.corrupt("right sibling's left-link doesn't match: block %d links to %d instead of expected %d", rbuf.blk, rop.prev, lb.blk), rbuf)
	}

	var dl, dr, dt page.Delta
	bufs := []lockedBuf{lb, rbuf}
	deltas := []*page.Delta{&dt, &dr}
	if lbuf.buf != buffer.InvalidBuffer {
		lp := o.page(lbuf)
		binary.LittleEndian.PutUint32(lp[specialOff+opNext:], op.next)
		dl.Mark(specialOff+opNext, specialOff+opNext+4)
		bufs = append(bufs, lbuf)
		deltas = append(deltas, &dl)
	}
	setPagePrev(rp, leftsib, &dr)

	// The target is re-initialized as a deleted page (BTPageSetDeleted; as
	// in PostgreSQL's redo, which registers it WILL_INIT): the WAL carries
	// no image of it. Its safexid bounds the xmin of any scan that may
	// still hold a link to it.
	var safexid uint32
	if ix.env.NextXid != nil {
		safexid = ix.env.NextXid()
	}
	initBtPage(p, opaque{prev: op.prev, next: op.next, level: op.level, flags: FlagDeleted | FlagHasFullXid | FlagLeaf}, &dt)
	var sx [8]byte
	binary.LittleEndian.PutUint64(sx[:], uint64(safexid))
	dt.PutBytes(p, deletedSafexidOff, sx[:])
	setLower(p, deletedLower, &dt)

	var main [12]byte
	binary.LittleEndian.PutUint32(main[0:], leftsib)
	binary.LittleEndian.PutUint32(main[4:], rbuf.blk)
	binary.LittleEndian.PutUint32(main[8:], safexid)
	err = o.logPages(infoUnlinkPage, xid, main[:], bufs, deltas)
	o.release(rbuf)
	o.release(lbuf)
	ix.pool.Unlock(lb.buf, buffer.Exclusive)
	return safexid, err
}

// setCleanupInfo records the number of deleted-but-not-recycled pages in
// the metapage (_bt_set_cleanup_info), logging a META_CLEANUP record when
// it changes.
func (o *op) setCleanupInfo(numDelPages uint32, xid uint32) error {
	meta, err := o.read(MetaPageBlock, false)
	if err != nil {
		return err
	}
	mp := o.page(meta)
	if binary.LittleEndian.Uint32(mp[metaOff+mLastCleanupDel:]) == numDelPages {
		o.release(meta)
		return nil
	}
	o.release(meta)
	if meta, err = o.read(MetaPageBlock, true); err != nil {
		return err
	}
	defer o.release(meta)
	mp = o.page(meta)
	var d page.Delta
	d.PutUint32(mp, metaOff+mLastCleanupDel, numDelPages)
	var main [4]byte
	binary.LittleEndian.PutUint32(main[:], numDelPages)
	return o.logPages(infoMetaCleanup, xid, main[:], []lockedBuf{meta}, []*page.Delta{&d})
}
