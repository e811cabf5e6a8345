package btree

import (
	"sort"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// buildBatchPages is how many finished pages a build logs in one WAL
// record and writes together (PostgreSQL's log_newpage_range and bulk
// writer batch XLR_MAX_BLOCK_ID = 32 pages).
const buildBatchPages = 32

type batchPage struct {
	blk page.BlockNumber
	pg  page.Page
}

// write queues a finished page (_bt_blwritepage); the queue is logged and
// written once buildBatchPages are waiting (flushBatch). The page is
// copied: the caller may reuse p.
func (w *loader) write(p page.Page, blk page.BlockNumber) error {
	cp := make(page.Page, page.Size)
	copy(cp, p)
	w.batch = append(w.batch, batchPage{blk, cp})
	if len(w.batch) >= buildBatchPages {
		return w.flushBatch()
	}
	return nil
}

// flushBatch logs the queued pages as full-page images in one WAL record,
// stamps each with its LSN and checksum, and writes them in block order,
// adjacent blocks in one vectored write. Blocks allocated but not yet
// written below a page are zero-filled first, because a relation file
// grows only at its end; a later batch overwrites them. The relation is new
// and invisible to others until the creating transaction commits, so the
// pages need not wait for the WAL flush (Finish flushes WAL and fsyncs the
// file before the index is used).
func (w *loader) flushBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	sort.Slice(w.batch, func(i, j int) bool { return w.batch[i].blk < w.batch[j].blk })
	rec := wal.NewRecord(wal.RmBtree, infoNewPage, w.xid)
	for _, b := range w.batch {
		rec.AddBlock(w.ix.tag(b.blk), b.pg, wal.BlockForceImage|wal.BlockStandard, nil)
	}
	lsn, err := w.wal.Insert(w.u, rec)
	if err != nil {
		return err
	}
	w.lastLSN = lsn
	for _, b := range w.batch {
		b.pg.SetLSN(lsn)
		page.SetChecksumInplace(b.pg, b.blk)
	}
	for i := 0; i < len(w.batch); {
		j := i + 1
		for j < len(w.batch) && w.batch[j].blk == w.batch[j-1].blk+1 {
			j++
		}
		if err := w.writeRun(w.batch[i:j]); err != nil {
			return err
		}
		i = j
	}
	w.batch = w.batch[:0]
	return nil
}

// writeRun writes pages of adjacent blocks, zero-filling the gap between
// the blocks written so far and the run's first block.
func (w *loader) writeRun(run []batchPage) error {
	first := run[0].blk
	if w.written < first {
		zeros := make([][]byte, 0, first-w.written)
		for b := w.written; b < first; b++ {
			zeros = append(zeros, zeroBlock[:])
		}
		if err := w.sm.WriteBlocks(w.ix.rel, smgr.MainFork, w.written, zeros); err != nil {
			return err
		}
		w.written = first
	}
	bufs := make([][]byte, len(run))
	for i, b := range run {
		bufs[i] = b.pg
	}
	if err := w.sm.WriteBlocks(w.ix.rel, smgr.MainFork, first, bufs); err != nil {
		return err
	}
	if end := first + page.BlockNumber(len(run)); end > w.written {
		w.written = end
	}
	return nil
}
