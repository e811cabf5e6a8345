package btree

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/wal"
)

// walBlock is one page of a logical Btree record: the locked buffer, the
// block data redo needs (PostgreSQL's XLogRegisterBufData: left out when
// the page gets a full-page image) and whether the record formats the page
// from scratch (the right half of a split).
type walBlock struct {
	lb   lockedBuf
	data []byte
	init bool
}

// logChange marks the buffers dirty, writes one record of kind info whose
// pages the Btree redo (redoPages) rebuilds from main and the block data,
// and stamps the pages with the record's end LSN. The caller has made the
// change with the same page functions redo uses, and holds every buffer
// exclusively locked.
func (o *op) logChange(info uint8, xid uint32, main []byte, blocks ...walBlock) error {
	ix := o.ix
	rec := wal.NewRecord(wal.RmBtree, info, xid)
	for _, b := range blocks {
		ix.pool.MarkDirty(o.u, b.lb.buf)
		flags := wal.BlockStandard
		if b.init {
			flags |= wal.BlockWillInit
		}
		rec.AddBlockData(ix.tag(b.lb.blk), ix.pool.Page(b.lb.buf), flags, b.data)
	}
	rec.SetMain(main)
	lsn, err := ix.wal.Insert(o.u, rec)
	if err != nil {
		// Changed but not logged: fatal for the caller, as logPages says.
		return fmt.Errorf("btree: WAL insert failed for index %q: %w", ix.opt.Name, err)
	}
	for _, b := range blocks {
		ix.pool.Page(b.lb.buf).SetLSN(lsn)
	}
	return nil
}
