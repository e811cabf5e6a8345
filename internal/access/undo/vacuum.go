package undo

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// InfoVacuum: VACUUM marked deleted rows dead or made dead items unused
// (and compacted the page).
const InfoVacuum uint8 = 0x60

// The Vacuumer (README "Discard and space reuse"): a row whose delete
// every snapshot sees becomes a dead item; once its index entries are gone
// it becomes unused and the page is compacted — unless some row on it has
// an uncommitted latest change, whose rollback may need the space it
// reserves. In-place updates leave nothing to do.

func (r *Relation) MaxItemsPerBlock() int { return MaxTuplesPerPage }

// VisibilityBits: undo tables keep no visibility map.
func (r *Relation) VisibilityBits(*stats.Usage, page.BlockNumber) (byte, error) { return 0, nil }

func (r *Relation) VacuumBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, horizon xact.XID, _ tableam.FreezeLimits) (tableam.VacuumBlockResult, error) {
	var res tableam.VacuumBlockResult
	r.t.log.AdvanceDiscard()
	discard := r.t.log.Discard()
	err := r.t.vacuumPage(u, blk, ring, func(pg page.Page, d *page.Delta) error {
		for off := page.OffsetNumber(1); off <= pg.MaxOffset(); off++ {
			it := pg.Item(off)
			switch it.Flags {
			case page.LPDead:
				res.DeadItems = append(res.DeadItems, off)
				continue
			case page.LPNormal:
			default:
				continue
			}
			cur := Tuple(pg.ItemBytes(off))
			dead, err := r.t.deleteVisibleToAll(u, cur, horizon)
			if err != nil {
				return err
			}
			switch {
			case dead:
				pg.SetItem(off, page.ItemID{Off: it.Off, Flags: page.LPDead, Len: it.Len}, d)
				res.DeadItems = append(res.DeadItems, off)
				res.TuplesDeleted++
			case cur.URP() != 0 && cur.URP() < discard:
				// Freeze: the change is visible to everyone and its undo
				// discarded; a zero pointer says so without a lookup (and
				// compresses in full-page images).
				var zero [5]byte
				d.PutBytes(pg, it.Off, zero[:])
				res.Frozen++
				res.LiveTuples++
			default:
				res.LiveTuples++
			}
		}
		res.FreeSpace = pg.ExactFreeSpace()
		res.Empty = pg.MaxOffset() == 0
		return nil
	})
	return res, err
}

// deleteVisibleToAll: cur is deleted by a change every snapshot with xmin
// at or after horizon sees.
func (t *Table) deleteVisibleToAll(u *stats.Usage, cur Tuple, horizon xact.XID) (bool, error) {
	if !cur.IsDeleted() {
		return false, nil
	}
	urp := cur.URP()
	if urp == 0 || urp < t.log.Discard() {
		return true, nil
	}
	rec, err := t.log.readRecord(u, urp)
	if err != nil {
		return false, err
	}
	return rec == nil || t.log.xm.State(rec.Xid) == xact.Committed && xact.Precedes(rec.Xid, horizon), nil
}

func (r *Relation) ReapBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, dead []page.OffsetNumber, _ xact.XID) (int, error) {
	free := 0
	err := r.t.vacuumPage(u, blk, ring, func(pg page.Page, d *page.Delta) error {
		for _, off := range dead {
			if off <= pg.MaxOffset() && pg.Item(off).Flags == page.LPDead {
				pg.SetItem(off, page.ItemID{}, d)
				pg.SetFlags(pg.Flags()|page.FlagHasFreeLines, d)
			}
		}
		safe, err := r.t.compactionSafe(u, pg)
		if err != nil {
			return err
		}
		if safe {
			pg.RepairFragmentation(d)
		}
		free = pg.ExactFreeSpace()
		return nil
	})
	return free, err
}

// compactionSafe: no row on pg has an uncommitted latest change.
func (t *Table) compactionSafe(u *stats.Usage, pg page.Page) (bool, error) {
	for off := page.OffsetNumber(1); off <= pg.MaxOffset(); off++ {
		if pg.Item(off).Flags != page.LPNormal {
			continue
		}
		urp := Tuple(pg.ItemBytes(off)).URP()
		if urp == 0 || urp < t.log.Discard() {
			continue
		}
		rec, err := t.log.readRecord(u, urp)
		if err != nil {
			return false, err
		}
		if rec != nil && t.log.xm.State(rec.Xid) != xact.Committed {
			return false, nil
		}
	}
	return true, nil
}

// vacuumPage runs change on blk under the exclusive lock and WAL-logs
// what it wrote.
func (t *Table) vacuumPage(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, change func(page.Page, *page.Delta) error) error {
	pool := t.log.pool
	b, err := pool.Read(u, t.tag(blk), ring)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Exclusive)
	defer pool.UnlockRelease(b, buffer.Exclusive)
	pg := pool.Page(b)
	if pg.IsNew() {
		return nil
	}
	var d page.Delta
	if err := change(pg, &d); err != nil || d.Empty() {
		return err
	}
	rec := wal.NewRecord(wal.RmUndo, InfoVacuum, 0)
	rec.AddBlock(t.tag(blk), pg, wal.BlockStandard, &d)
	lsn, err := t.log.wal.Insert(u, rec)
	if err != nil {
		return err
	}
	pg.SetLSN(lsn)
	pool.MarkDirty(u, b)
	return nil
}

// RecordFreeSpace points inserts at a block VACUUM found room on.
func (r *Relation) RecordFreeSpace(_ *stats.Usage, blk page.BlockNumber, avail int) {
	if avail >= page.Size/4 {
		r.t.targetBlock.Store(blk)
	}
}

// BlockIsEmpty says no: VACUUM does not truncate undo tables yet (an
// undo record may still name a block past a cut).
func (r *Relation) BlockIsEmpty(*stats.Usage, page.BlockNumber, *buffer.Strategy) (bool, error) {
	return false, nil
}

// Truncate is never reached (BlockIsEmpty is always false).
func (r *Relation) Truncate(*stats.Usage, page.BlockNumber) error { return nil }

// prune is heap_page_prune_opt's counterpart, run by a writer that found
// no room on a page it holds exclusively: rows whose delete every
// snapshot sees become dead items (VACUUM removes their index entries
// later) and the page is compacted — when no row on it has an uncommitted
// latest change. It reports whether it freed anything.
func (t *Table) prune(u *stats.Usage, b buffer.Buffer) (bool, error) {
	pool := t.log.pool
	pg := pool.Page(b)
	if pg.IsNew() {
		return false, nil
	}
	safe, err := t.compactionSafe(u, pg)
	if err != nil || !safe {
		return false, err
	}
	horizon := t.log.xm.OldestXmin()
	var d page.Delta
	freed := false
	for off := page.OffsetNumber(1); off <= pg.MaxOffset(); off++ {
		it := pg.Item(off)
		if it.Flags != page.LPNormal {
			freed = freed || (it.Flags == page.LPDead && it.Len > 0)
			continue
		}
		dead, err := t.deleteVisibleToAll(u, Tuple(pg.ItemBytes(off)), horizon)
		if err != nil {
			return false, err
		}
		if dead {
			pg.SetItem(off, page.ItemID{Flags: page.LPDead}, &d)
			freed = true
		}
	}
	if !freed {
		return false, nil
	}
	pg.RepairFragmentation(&d)
	rec := wal.NewRecord(wal.RmUndo, InfoVacuum, 0)
	rec.AddBlock(t.tag(pool.TagOf(b).Block), pg, wal.BlockStandard, &d)
	lsn, err := t.log.wal.Insert(u, rec)
	if err != nil {
		return false, err
	}
	pg.SetLSN(lsn)
	pool.MarkDirty(u, b)
	return true, nil
}
