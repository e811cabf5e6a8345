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
	Free            int   // pages_free: deleted pages now reusable (in the free list)

	PagesDeleted int // = NewlyDeleted (kept for existing callers)
	PagesFree    int // = Free
}

// BulkDelete removes every leaf entry whose heap TID dead reports
// (btbulkdelete). Leaf pages are visited in physical block order, each
// changed page with one WAL record (XLOG_BTREE_VACUUM) carrying its delta.
// Pages added by concurrent splits during the pass are visited too (a
// split always moves entries to a new, higher-numbered block while a bulk
// delete runs: page reuse waits). dead may be called from this goroutine
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
	var st BulkDeleteStats
	o := ix.newOp(u)
	sm := ix.pool.Smgr()
	canDelete := ix.env.NextXid != nil
	if canDelete {
		// One page-deleting pass per index at a time (PostgreSQL: one
		// VACUUM per table).
		ix.delMu.Lock()
		defer ix.delMu.Unlock()
	}
	ix.startVacuum()
	defer ix.endVacuum()
	canRecycle := ix.env.OldestXmin != nil
	var horizon uint32
	if canRecycle {
		horizon = ix.env.OldestXmin()
	}
	var free []page.BlockNumber
	type pending struct {
		blk     page.BlockNumber
		safexid uint32
	}
	var newly []pending
	var offs []page.OffsetNumber
	blk := page.BlockNumber(1)
	for {
		n, err := sm.NBlocks(ix.rel, smgr.MainFork)
		if err != nil {
			return st, err
		}
		if blk >= n {
			st.Pages = int(n)
			break
		}
		for ; blk < n; blk++ {
			b, err := ix.pool.Read(u, ix.tag(blk), s)
			if err != nil {
				return st, err
			}
			ix.pool.Lock(b, buffer.Exclusive)
			lb := lockedBuf{buf: b, blk: blk, excl: true}
			p := ix.pool.Page(b)
			if p.IsNew() {
				// Never initialized (left by a crash after extending).
				// Unless an extension in progress is about to lock it,
				// it is free.
				if ix.extending.Load() == 0 {
					st.Deleted++
					if canRecycle {
						st.Free++
						free = append(free, blk)
					}
				}
				o.release(lb)
				continue
			}
			op := getOpaque(p)
			switch {
			case op.flags&FlagDeleted != 0:
				st.Deleted++
				if canRecycle && recyclable(p, horizon) {
					st.Free++
					free = append(free, blk)
				}
				o.release(lb)
				continue
			case op.flags&FlagHalfDead != 0:
				// Left by an interrupted deletion: finish it.
				if !canDelete || !op.isLeaf() {
					o.release(lb)
					continue
				}
				safexid, err := o.unlinkHalfDead(lb, xid)
				ix.pool.Release(b)
				if err != nil {
					return st, err
				}
				st.NewlyDeleted++
				st.Deleted++
				newly = append(newly, pending{blk, safexid})
				continue
			case !op.isLeaf():
				o.release(lb)
				continue
			}
			first, max := op.firstData(), p.MaxOffset()
			offs = offs[:0]
			if dead != nil {
				for off := first; off <= max; off++ {
					if dead(page.GetItemPointer(itemAt(p, off))) {
						offs = append(offs, off)
					}
				}
			}
			if max >= first {
				st.TuplesRemaining += int64(int(max-first) + 1 - len(offs))
			}
			if len(offs) > 0 {
				var d page.Delta
				p.DeleteItems(offs, &d)
				var main [2]byte
				binary.LittleEndian.PutUint16(main[:], uint16(len(offs)))
				if err := o.logPages(infoVacuum, xid, main[:], []lockedBuf{lb}, []*page.Delta{&d}); err != nil {
					o.release(lb)
					return st, err
				}
				st.TuplesRemoved += int64(len(offs))
			}
			if !canDelete || !canDeleteLeaf(p) {
				o.release(lb)
				continue
			}
			// An empty leaf: delete it (_bt_pagedel).
			deleted, safexid, err := o.pageDel(lb, xid)
			ix.pool.Release(b)
			if err != nil {
				return st, err
			}
			if deleted {
				st.NewlyDeleted++
				st.Deleted++
				newly = append(newly, pending{blk, safexid})
			}
		}
	}
	// Pages deleted by this pass may be recyclable already
	// (_bt_pendingfsm_finalize): usually not, since this VACUUM's own
	// transaction holds the horizon back.
	if canRecycle && len(newly) > 0 {
		h := ix.env.OldestXmin()
		for _, pd := range newly {
			if xidPrecedes(pd.safexid, h) {
				st.Free++
				free = append(free, pd.blk)
			}
		}
	}
	if canRecycle {
		ix.setFree(free)
	}
	st.PagesDeleted, st.PagesFree = st.NewlyDeleted, st.Free
	if st.Pages > 1 {
		if err := o.setCleanupInfo(uint32(st.Deleted-st.Free), xid); err != nil {
			return st, err
		}
	}
	return st, nil
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
					st.Tuples += int64(max - op.firstData() + 1)
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
