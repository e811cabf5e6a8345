package btree

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// BulkDeleteStats is what an index bulk delete reports
// (IndexBulkDeleteResult), for VACUUM VERBOSE and pg_class. VACUUM
// VERBOSE's line `index "x": pages: N in total, N newly deleted, N
// currently deleted, N reusable` prints Pages, NewlyDeleted, Deleted and
// Free.
type BulkDeleteStats struct {
	Pages           int   // num_pages: blocks in the index, metapage included
	TuplesRemoved   int64 // tuples_removed
	TuplesRemaining int64 // num_index_tuples
	NewlyDeleted    int   // pages_newly_deleted: pages this call deleted
	Deleted         int   // pages_deleted: pages currently deleted (newly deleted included)
	Free            int   // pages_free: deleted pages found reusable (put in the free list)

	PagesDeleted int // = NewlyDeleted (kept for existing callers)
	PagesFree    int // = Free
	// MarksCleared counts delete marks cleared (BulkDeleteMarked).
	MarksCleared int
}

// BulkDelete removes every leaf entry whose heap TID dead reports
// (btbulkdelete). Leaf pages are visited in physical block order, each
// changed page with one WAL record (XLOG_BTREE_VACUUM) carrying its delta.
// Entries that concurrent splits move during the pass are visited too: to
// a new block at the end, which the scan still reaches, or to a recycled
// block behind the scan, which it goes back for (the vacuum cycle id, as
// btvacuumpage's backtracking). dead may be called from this goroutine
// only; nil removes nothing (a cleanup-only pass, btvacuumcleanup).
//
// Leaves left empty are deleted (when Env.NextXid is set), and deleted
// pages whose safexid precedes Env.OldestXmin() are put in the free list
// for later splits to reuse; see README.md.
func (ix *Index) BulkDelete(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool) (BulkDeleteStats, error) {
	return ix.BulkDeleteWith(u, xid, dead, nil)
}

// Cleanup is a bulk delete that removes nothing (btvacuumcleanup's scan):
// it finishes interrupted page deletions, deletes empty leaves and
// rebuilds the free list.
func (ix *Index) Cleanup(u *stats.Usage, xid uint32, s *buffer.Strategy) (BulkDeleteStats, error) {
	return ix.BulkDeleteWith(u, xid, nil, s)
}

// NeedsCleanup reports whether a VACUUM that did no bulk delete on this
// index should still run Cleanup: the metapage's count of deleted pages not
// yet recycled (btm_last_cleanup_num_delpages) exceeds 5% of the index
// (_bt_vacuum_needs_cleanup).
func (ix *Index) NeedsCleanup(u *stats.Usage) (bool, error) {
	o := ix.newOp(u)
	meta, err := o.read(MetaPageBlock, false)
	if err != nil {
		return false, err
	}
	del := binary.LittleEndian.Uint32(o.page(meta)[metaOff+mLastCleanupDel:])
	o.release(meta)
	n, err := ix.pool.Smgr().NBlocks(ix.rel, smgr.MainFork)
	if err != nil {
		return false, err
	}
	return del > 0 && float64(del) > float64(n)*0.05, nil
}

// BulkDeleteWith is BulkDelete reading through a buffer access strategy
// (VACUUM's ring; nil for none).
func (ix *Index) BulkDeleteWith(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool, s *buffer.Strategy) (BulkDeleteStats, error) {
	return ix.bulkDelete(u, xid, dead, nil, s)
}

// BulkDeleteMarked is BulkDeleteWith that also shows every delete-marked
// entry dead does not remove to marked (mark.go), which removes it,
// clears its mark or keeps it.
func (ix *Index) BulkDeleteMarked(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool, marked MarkedCheck, s *buffer.Strategy) (BulkDeleteStats, error) {
	return ix.bulkDelete(u, xid, dead, marked, s)
}

func (ix *Index) bulkDelete(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool, marked MarkedCheck, s *buffer.Strategy) (BulkDeleteStats, error) {
	bd := &bulkDelete{o: ix.newOp(u), ix: ix, u: u, s: s, xid: xid, dead: dead, marked: marked,
		canDelete: ix.env.NextXid != nil, canRecycle: ix.env.OldestXmin != nil}
	bd.cycle = ix.startVacuum()
	defer ix.endVacuum()
	if bd.canRecycle {
		bd.horizon = ix.env.OldestXmin()
	}
	st := &bd.st
	sm := ix.pool.Smgr()
	blk := page.BlockNumber(1)
	for {
		// Re-read the size: pages added by splits meanwhile are visited too.
		n, err := sm.NBlocks(ix.rel, smgr.MainFork)
		if err != nil {
			return *st, err
		}
		if blk >= n {
			st.Pages = int(n)
			break
		}
		for ; blk < n; blk++ {
			if err := bd.visit(blk); err != nil {
				return *st, err
			}
		}
	}
	// Pages deleted by this pass may be recyclable already
	// (_bt_pendingfsm_finalize): usually not, since this VACUUM's own
	// transaction holds the horizon back.
	if bd.canRecycle && len(bd.newly) > 0 {
		h := ix.env.OldestXmin()
		for _, pd := range bd.newly {
			if xidPrecedes(pd.safexid, h) {
				st.Free++
				ix.free.add(pd.blk)
			}
		}
	}
	st.PagesDeleted, st.PagesFree = st.NewlyDeleted, st.Free
	if st.Pages > 1 {
		if err := bd.o.setCleanupInfo(uint32(st.Deleted-st.Free), xid); err != nil {
			return *st, err
		}
	}
	return *st, nil
}

// bulkDelete is one BulkDeleteWith pass (btvacuumscan's BTVacState).
type bulkDelete struct {
	o                     *op
	ix                    *Index
	u                     *stats.Usage
	s                     *buffer.Strategy
	xid                   uint32
	dead                  func(tid page.ItemPointer) bool
	marked                MarkedCheck
	cycle                 uint16
	canDelete, canRecycle bool
	horizon               uint32
	st                    BulkDeleteStats
	newly                 []pendingFree // pages this pass deleted
	offs                  []page.OffsetNumber
}

type pendingFree struct {
	blk     page.BlockNumber
	safexid uint32
}

// visit processes block scanBlk of the physical scan, then every page that
// a split in this cycle moved entries of it to behind the scan (following
// right links from scanBlk while they point below it).
func (bd *bulkDelete) visit(scanBlk page.BlockNumber) error {
	back, err := bd.page(scanBlk, scanBlk)
	for err == nil && back != PNone {
		back, err = bd.page(back, scanBlk)
	}
	return err
}

// page processes blk, which is scanBlk itself or, when backtracking, a
// right sibling below it. It returns the next block to go back for, or
// PNone.
func (bd *bulkDelete) page(blk, scanBlk page.BlockNumber) (page.BlockNumber, error) {
	ix, o := bd.ix, bd.o
	b, err := ix.pool.Read(bd.u, ix.tag(blk), bd.s)
	if err != nil {
		return PNone, err
	}
	ix.pool.Lock(b, buffer.Exclusive)
	lb := lockedBuf{buf: b, blk: blk, excl: true}
	p := ix.pool.Page(b)
	if blk != scanBlk {
		// Backtracking: only a live leaf split in this cycle needs a
		// visit; the scan dealt with anything else when it passed the
		// block (btvacuumpage does the same).
		if p.IsNew() {
			o.release(lb)
			return PNone, nil
		}
		if op := getOpaque(p); !op.isLeaf() || op.ignore() || op.cycle != bd.cycle {
			o.release(lb)
			return PNone, nil
		}
		return bd.leaf(lb, p, scanBlk, false)
	}
	if p.IsNew() {
		// Never initialized (left by a crash after extending). Unless an
		// extension in progress is about to lock it, it is free.
		if ix.extending.Load() == 0 {
			bd.st.Deleted++
			if bd.canRecycle {
				bd.st.Free++
				ix.free.add(blk)
			}
		}
		o.release(lb)
		return PNone, nil
	}
	op := getOpaque(p)
	switch {
	case op.flags&FlagDeleted != 0:
		bd.st.Deleted++
		if bd.canRecycle && recyclable(p, bd.horizon) {
			bd.st.Free++
			ix.free.add(blk) // under the lock: no split takes it before
		}
		o.release(lb)
		return PNone, nil
	case op.flags&FlagHalfDead != 0:
		// Left by an interrupted deletion: finish it.
		if !bd.canDelete || !op.isLeaf() {
			o.release(lb)
			return PNone, nil
		}
		safexid, err := o.unlinkHalfDead(lb, bd.xid)
		ix.pool.Release(b)
		if err != nil {
			return PNone, err
		}
		bd.deleted(blk, safexid)
		return PNone, nil
	case !op.isLeaf():
		o.release(lb)
		return PNone, nil
	}
	return bd.leaf(lb, p, scanBlk, bd.canDelete)
}

// leaf removes the dead entries of the locked live leaf lb, deletes the
// page if it is left empty and mayDelete, and releases it. It returns the
// block to go back for: the right sibling, when a split in this cycle
// moved entries there and it lies below the scan (decided before the page
// may be deleted).
func (bd *bulkDelete) leaf(lb lockedBuf, p page.Page, scanBlk page.BlockNumber, mayDelete bool) (page.BlockNumber, error) {
	o := bd.o
	op := getOpaque(p)
	back := PNone
	if op.cycle == bd.cycle && !op.rightmost() && op.next < scanBlk {
		back = op.next
	}
	if err := bd.removeDead(lb, p, op); err != nil {
		o.release(lb)
		return PNone, err
	}
	// A page reached by backtracking is not deleted here, even if empty:
	// the next VACUUM will.
	if !mayDelete || !canDeleteLeaf(p) {
		o.release(lb)
		return back, nil
	}
	// An empty leaf: delete it (_bt_pagedel).
	deleted, safexid, err := o.pageDel(lb, bd.xid)
	bd.ix.pool.Release(lb.buf)
	if err != nil {
		return PNone, err
	}
	if deleted {
		bd.deleted(lb.blk, safexid)
	}
	return back, nil
}

// deleted counts a page this pass deleted.
func (bd *bulkDelete) deleted(blk page.BlockNumber, safexid uint32) {
	bd.st.NewlyDeleted++
	bd.st.Deleted++
	bd.newly = append(bd.newly, pendingFree{blk, safexid})
}

// removeDead removes the entries of the locked leaf lb that the callback
// reports dead, in one VACUUM record. A posting list loses its dead TIDs
// (and goes when none is left); tuple counts are heap TIDs, as
// PostgreSQL's.
func (bd *bulkDelete) removeDead(lb lockedBuf, p page.Page, op opaque) error {
	st := &bd.st
	first, max := op.firstData(), p.MaxOffset()
	e := leafEdit{deleted: bd.offs[:0]}
	removed, remaining := 0, 0
	for off := first; off <= max && (bd.dead != nil || bd.marked != nil); off++ {
		t := Tuple(itemAt(p, off))
		if p.Item(off).Flags == page.LPDead {
			// An index scan found it dead to every snapshot (kill.go);
			// removing it here also keeps DeleteItems from meeting it.
			e.deleted = append(e.deleted, off)
			removed += len(leafTIDs(nil, t))
			continue
		}
		if isPosting(t) {
			n := nPosting(t)
			var drop []uint16
			if bd.dead != nil {
				for i := 0; i < n; i++ {
					if bd.dead(postingTID(t, i)) {
						drop = append(drop, uint16(i))
					}
				}
			}
			removed += len(drop)
			remaining += n - len(drop)
			switch {
			case len(drop) == n:
				e.deleted = append(e.deleted, off)
			case len(drop) > 0:
				e.updates = append(e.updates, postingUpdate{off: off, drop: drop})
			}
			continue
		}
		if bd.dead != nil && bd.dead(t.TID()) {
			e.deleted = append(e.deleted, off)
			removed++
			continue
		}
		remaining++
		if bd.marked == nil || !t.DeleteMarked() {
			continue
		}
		v, err := bd.marked(t.TID(), t)
		if err != nil {
			return err
		}
		switch v {
		case MarkRemove:
			e.deleted = append(e.deleted, off)
			removed++
			remaining--
		case MarkClear:
			e.cleared = append(e.cleared, off)
		}
	}
	bd.offs = e.deleted
	if bd.dead == nil && bd.marked == nil {
		remaining = countTIDs(p, first, max)
	}
	st.TuplesRemaining += int64(remaining)
	st.MarksCleared += len(e.cleared)
	if e.empty() {
		return nil
	}
	// Shrunk posting lists change sizes: the page is laid out afresh.
	e.rewrite = len(e.updates) > 0
	if err := bd.o.logLeafEdit(lb, &e, infoVacuum, bd.xid); err != nil {
		return err
	}
	st.TuplesRemoved += int64(removed)
	return nil
}

// countTIDs counts the heap TIDs of the leaf items first..max.
func countTIDs(p page.Page, first, max page.OffsetNumber) int {
	n := 0
	for off := first; off <= max; off++ {
		if t := itemAt(p, off); isPosting(t) {
			n += nPosting(t)
		} else {
			n++
		}
	}
	return n
}

// Stats counts the index's pages and entries (a full pass over the index,
// as pgstatindex).
func (ix *Index) Stats(u *stats.Usage) (IndexStats, error) {
	var st IndexStats
	n, err := ix.pool.Smgr().NBlocks(ix.rel, smgr.MainFork)
	if err != nil {
		return st, err
	}
	st.Pages = int(n)
	o := ix.newOp(u)
	if n == 0 {
		return st, nil
	}
	m, err := ix.getMeta(u, true)
	if err != nil {
		return st, err
	}
	st.RootBlock = m.root
	if m.root != PNone {
		st.Levels = int(m.level) + 1
	}
	for blk := page.BlockNumber(1); blk < n; blk++ {
		lb, err := o.read(blk, false)
		if err != nil {
			return st, err
		}
		p := o.page(lb)
		if !p.IsNew() {
			op := getOpaque(p)
			switch {
			case op.ignore():
				st.DeletedPages++
			case op.isLeaf():
				st.LeafPages++
				if max := p.MaxOffset(); max >= op.firstData() {
					st.Tuples += int64(countTIDs(p, op.firstData(), max))
				} else {
					st.EmptyPages++
				}
			default:
				st.InternalPages++
			}
		}
		o.release(lb)
	}
	return st, nil
}
