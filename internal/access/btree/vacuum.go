package btree

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// BulkDeleteStats is what an index bulk delete reports
// (IndexBulkDeleteResult), for VACUUM VERBOSE and pg_class.
type BulkDeleteStats struct {
	Pages           int   // num_pages: blocks in the index, metapage included
	TuplesRemoved   int64 // tuples_removed
	TuplesRemaining int64 // num_index_tuples
	PagesDeleted    int   // pages_deleted (page deletion is not implemented: 0)
	PagesFree       int   // pages_free (0)
}

// BulkDelete removes every leaf entry whose heap TID dead reports
// (btbulkdelete). Leaf pages are visited in physical block order, each
// changed page with one WAL record (XLOG_BTREE_VACUUM) carrying its delta.
// Pages added by concurrent splits during the pass are visited too (a
// split always moves entries to a new, higher-numbered block). dead may be
// called from this goroutine only.
func (ix *Index) BulkDelete(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool) (BulkDeleteStats, error) {
	return ix.BulkDeleteWith(u, xid, dead, nil)
}

// BulkDeleteWith is BulkDelete reading through a buffer access strategy
// (VACUUM's ring; nil for none).
func (ix *Index) BulkDeleteWith(u *stats.Usage, xid uint32, dead func(tid page.ItemPointer) bool, s *buffer.Strategy) (BulkDeleteStats, error) {
	var st BulkDeleteStats
	o := ix.newOp(u)
	sm := ix.pool.Smgr()
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
				o.release(lb)
				continue
			}
			op := getOpaque(p)
			if !op.isLeaf() || op.ignore() {
				o.release(lb)
				continue
			}
			first, max := op.firstData(), p.MaxOffset()
			offs = offs[:0]
			for off := first; off <= max; off++ {
				if dead(page.GetItemPointer(itemAt(p, off))) {
					offs = append(offs, off)
				}
			}
			if max >= first {
				st.TuplesRemaining += int64(int(max-first) + 1 - len(offs))
			}
			if len(offs) == 0 {
				o.release(lb)
				continue
			}
			var d page.Delta
			p.DeleteItems(offs, &d)
			var main [2]byte
			binary.LittleEndian.PutUint16(main[:], uint16(len(offs)))
			err = o.logPages(infoVacuum, xid, main[:], []lockedBuf{lb}, []*page.Delta{&d})
			o.release(lb)
			if err != nil {
				return st, err
			}
			st.TuplesRemoved += int64(len(offs))
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
