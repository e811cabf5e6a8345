package heap

import (
	"encoding/binary"
	"github.com/tidal-db/tidal/internal/access/tableam"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// ScanPageResult is what VACUUM's first pass learned about one page
// (lazy_scan_prune).
type ScanPageResult = tableam.VacuumBlockResult

// FreezeLimits are the cutoffs below which VACUUM freezes: xids older
// than Xid (vacuum_freeze_min_age before the horizon), multixacts older
// than Multi (vacuum_multixact_freeze_min_age before the multixact
// horizon).
type FreezeLimits = tableam.FreezeLimits

// VacuumScanPage prunes one page, freezes tuples older than the freeze
// limits, collects its dead item identifiers, and marks it all-visible
// when it can (VACUUM's heap scan, per page). The buffer is pinned, not
// locked.
func (r *Relation) VacuumScanPage(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, horizon xact.XID, limits FreezeLimits) (ScanPageResult, error) {
	freezeLimit := limits.Xid
	pool := r.env.Pool
	pool.Lock(b, buffer.Exclusive)
	defer pool.Unlock(b, buffer.Exclusive)
	p := pool.Page(b)
	var res ScanPageResult
	if p.IsNew() {
		// An extended page never initialised (crash after extension).
		var d page.Delta
		page.Init(p, 0, &d)
		rec := wal.NewRecord(wal.RmHeap, InfoInitPage, 0)
		rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
		pool.MarkDirty(u, b)
		lsn, err := r.env.WAL.Insert(u, rec)
		if err != nil {
			return res, err
		}
		p.SetLSN(lsn)
	}
	pr := r.Prune(u, b, blk, horizon)
	res.TuplesDeleted = pr.TuplesDeleted
	x := r.env.Xact
	max := p.MaxOffset()
	allVisible, allFrozen := true, true
	var freeze []tupleFreeze
	for off := page.OffsetNumber(1); off <= max; off++ {
		it := p.Item(off)
		switch it.Flags {
		case page.LPDead:
			res.DeadItems = append(res.DeadItems, off)
			allVisible = false
			continue
		case page.LPNormal:
		default:
			continue
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		st, _ := VacuumVisibility(x, t, horizon)
		var fz tupleFreeze
		if st != TupleDead {
			var err error
			if fz, err = r.prepareFreezeXmax(t, off, limits); err != nil {
				return res, err
			}
		}
		switch st {
		case TupleLive:
			res.LiveTuples++
			if !xact.Precedes(t.Xmin(), horizon) && t.Infomask()&XminFrozen != XminFrozen {
				allVisible = false
			}
			if t.Infomask()&XmaxInvalid == 0 && t.Infomask()&XmaxLockOnly == 0 {
				allVisible = false
			}
			if t.Infomask()&XminFrozen != XminFrozen {
				if xact.Precedes(t.Xmin(), freezeLimit) && t.Infomask()&XminCommitted != 0 {
					fz.off, fz.xmin = off, true
				} else {
					allFrozen = false
				}
			}
			if fz.mask&XmaxInvalid == 0 {
				allFrozen = false // a lock or multixact that must stay
			}
		case TupleRecentlyDead, TupleDeleteInProgress:
			res.LiveTuples++
			res.RecentlyDead++
			allVisible, allFrozen = false, false
		case TupleInsertInProgress:
			res.LiveTuples++
			allVisible, allFrozen = false, false
		case TupleDead:
			// Dead but not pruned (an aborted insert that was a chain
			// root): treat as dead item next time round.
			allVisible, allFrozen = false, false
		}
		if fz.xmin || fz.xmax {
			freeze = append(freeze, fz)
		}
	}
	if len(freeze) > 0 {
		var d page.Delta
		var main []byte
		for _, fz := range freeze {
			fz.apply(p, &d)
			main = binary.LittleEndian.AppendUint16(main, fz.off)
		}
		rec := wal.NewRecord(wal.RmHeap2, Info2Freeze, 0)
		rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
		rec.SetMain(main)
		pool.MarkDirty(u, b)
		lsn, err := r.env.WAL.Insert(u, rec)
		if err != nil {
			return res, err
		}
		p.SetLSN(lsn)
		res.Frozen = len(freeze)
	}
	res.AllVisible = allVisible
	res.AllFrozen = allVisible && allFrozen
	// A page whose only items are LP_DEAD (or unused) counts as empty for
	// truncation, as PostgreSQL's hastup: its dead items become unused in
	// this VACUUM's heap pass, so the pages a deleted tail leaves behind
	// are truncated by the same VACUUM, not only by the next one.
	res.Empty = true
	for off := page.OffsetNumber(1); off <= p.MaxOffset(); off++ {
		if f := p.Item(off).Flags; f != page.LPDead && f != page.LPUnused {
			res.Empty = false
			break
		}
	}
	res.FreeSpace = pageFree(p)
	if allVisible {
		set, err := r.setAllVisible(u, b, blk, res.AllFrozen)
		if err != nil {
			return res, err
		}
		res.SetVisibleBits = set
	}
	return res, nil
}

// VacuumHeapPage turns the page's dead items, whose index entries are gone,
// into unused line pointers (lazy_vacuum_heap_page), and marks the page
// all-visible if nothing else on it stops that. The buffer is pinned, not
// locked.
func (r *Relation) VacuumHeapPage(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, dead []page.OffsetNumber, horizon xact.XID) (freeSpace int, err error) {
	pool := r.env.Pool
	pool.Lock(b, buffer.Exclusive)
	defer pool.Unlock(b, buffer.Exclusive)
	p := pool.Page(b)
	var d page.Delta
	var main []byte
	for _, off := range dead {
		if off > p.MaxOffset() || p.Item(off).Flags != page.LPDead {
			continue
		}
		p.SetItem(off, page.ItemID{Flags: page.LPUnused}, &d)
		main = binary.LittleEndian.AppendUint16(main, off)
	}
	if len(main) > 0 {
		// Trailing unused line pointers go (PageTruncateLinePointerArray),
		// and the page says it has reusable ones.
		max := p.MaxOffset()
		n := max
		for n > 0 && p.Item(n).Flags == page.LPUnused {
			n--
		}
		if n < max {
			binary.LittleEndian.PutUint16(p[12:], uint16(page.HeaderSize+int(n)*page.ItemIDSize))
			d.Mark(12, 14)
		}
		if n > 0 {
			p.SetFlags(p.Flags()|page.FlagHasFreeLines, &d)
		}
		rec := wal.NewRecord(wal.RmHeap2, Info2Vacuum, 0)
		rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
		rec.SetMain(main)
		pool.MarkDirty(u, b)
		lsn, err := r.env.WAL.Insert(u, rec)
		if err != nil {
			return 0, err
		}
		p.SetLSN(lsn)
	}
	// All-visible now?
	x := r.env.Xact
	allVisible, allFrozen := true, true
	for off := page.OffsetNumber(1); off <= p.MaxOffset(); off++ {
		it := p.Item(off)
		if it.Flags == page.LPDead {
			allVisible = false
			break
		}
		if it.Flags != page.LPNormal {
			continue
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		st, _ := VacuumVisibility(x, t, horizon)
		if st != TupleLive || (!xact.Precedes(t.Xmin(), horizon) && t.Infomask()&XminFrozen != XminFrozen) ||
			(t.Infomask()&XmaxInvalid == 0 && t.Infomask()&XmaxLockOnly == 0) {
			allVisible = false
			break
		}
		if t.Infomask()&XminFrozen != XminFrozen {
			allFrozen = false
		}
	}
	if allVisible {
		if _, err := r.setAllVisible(u, b, blk, allFrozen); err != nil {
			return 0, err
		}
	}
	return pageFree(p), nil
}

// setAllVisible sets PD_ALL_VISIBLE and the page's visibility-map bits in
// one Heap2 VISIBLE record (the heap page is registered without an image,
// as PostgreSQL does when hint bits need no WAL). The heap page is locked
// exclusively. It reports whether any bit changed.
func (r *Relation) setAllVisible(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, frozen bool) (bool, error) {
	pool := r.env.Pool
	sm := pool.Smgr()
	p := pool.Page(b)
	vblk, off, sh := vmLocation(blk)
	if !sm.Exists(r.Rel, smgr.VMFork) {
		if err := sm.Create(r.Rel, smgr.VMFork); err != nil {
			return false, err
		}
	}
	nb, err := sm.NBlocks(r.Rel, smgr.VMFork)
	if err != nil {
		return false, err
	}
	for nb <= vblk {
		vb, _, err := pool.Extend(u, r.Rel, smgr.VMFork, nil)
		if err != nil {
			return false, err
		}
		var d page.Delta
		page.Init(pool.Page(vb), 0, &d)
		rec := wal.NewRecord(wal.RmHeap2, Info2Visible, 0)
		rec.AddBlock(buffer.Tag{Rel: r.Rel, Fork: smgr.VMFork, Block: nb}, pool.Page(vb), wal.BlockStandard, &d)
		pool.MarkDirty(u, vb)
		lsn, err := r.env.WAL.Insert(u, rec)
		if err != nil {
			pool.UnlockRelease(vb, buffer.Exclusive)
			return false, err
		}
		pool.Page(vb).SetLSN(lsn)
		pool.UnlockRelease(vb, buffer.Exclusive)
		nb++
	}
	tag := buffer.Tag{Rel: r.Rel, Fork: smgr.VMFork, Block: vblk}
	vb, err := pool.Read(u, tag, nil)
	if err != nil {
		return false, err
	}
	pool.Lock(vb, buffer.Exclusive)
	defer pool.UnlockRelease(vb, buffer.Exclusive)
	vp := pool.Page(vb)
	want := byte(VMAllVisible)
	if frozen {
		want |= VMAllFrozen
	}
	cur := vp[off] >> sh & 3
	heapFlag := p.Flags()&page.FlagAllVisible != 0
	if cur&want == want && heapFlag {
		return false, nil
	}
	var vd, hd page.Delta
	vd.PutBytes(vp, off, []byte{vp[off] | want<<sh})
	if !heapFlag {
		p.SetFlags(p.Flags()|page.FlagAllVisible, &hd)
	}
	rec := wal.NewRecord(wal.RmHeap2, Info2Visible, 0)
	rec.AddBlock(tag, vp, wal.BlockStandard, &vd)
	if !hd.Empty() {
		rec.AddBlock(r.tag(blk), p, wal.BlockStandard|wal.BlockNoImage, &hd)
	}
	rec.SetMain([]byte{want})
	pool.MarkDirty(u, vb)
	if !hd.Empty() {
		pool.MarkDirty(u, b)
	}
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return false, err
	}
	vp.SetLSN(lsn)
	if !hd.Empty() {
		p.SetLSN(lsn)
	}
	return true, nil
}

// PageIsEmpty reports whether block blk holds no line pointers (or was
// never initialised): a candidate for truncation at the end of the table.
func (r *Relation) PageIsEmpty(u *stats.Usage, blk page.BlockNumber, s *buffer.Strategy) (bool, error) {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(blk), s)
	if err != nil {
		return false, err
	}
	pool.Lock(b, buffer.Share)
	p := pool.Page(b)
	empty := p.IsNew() || p.MaxOffset() == 0
	if !empty {
		empty = true
		for off := page.OffsetNumber(1); off <= p.MaxOffset(); off++ {
			if p.Item(off).Flags != page.LPUnused {
				empty = false
				break
			}
		}
	}
	pool.UnlockRelease(b, buffer.Share)
	return empty, nil
}

// Truncate cuts the table (and its maps) to nblocks blocks, WAL-logged.
// The caller holds an AccessExclusive lock.
func (r *Relation) Truncate(u *stats.Usage, nblocks page.BlockNumber) error {
	pool := r.env.Pool
	rec := wal.NewRecord(wal.RmSmgr, 0x20, 0)
	main := binary.LittleEndian.AppendUint32(nil, uint32(r.Rel))
	main = binary.LittleEndian.AppendUint32(main, nblocks)
	rec.SetMain(main)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return err
	}
	// The truncation must be durable in WAL before the file shrinks, or a
	// crash could leave redo writing beyond a shorter file's end.
	if err := r.env.WAL.Flush(lsn); err != nil {
		return err
	}
	pool.DropRelation(r.Rel, smgr.MainFork, nblocks, false)
	pool.DropRelation(r.Rel, smgr.FSMFork, 0, false)
	pool.DropRelation(r.Rel, smgr.VMFork, 0, false)
	sm := pool.Smgr()
	if err := sm.Truncate(r.Rel, smgr.MainFork, nblocks); err != nil {
		return err
	}
	for _, f := range []smgr.ForkNumber{smgr.FSMFork, smgr.VMFork} {
		if sm.Exists(r.Rel, f) {
			if err := sm.Truncate(r.Rel, f, 0); err != nil {
				return err
			}
		}
	}
	r.ResetTarget()
	return nil
}

// Tag returns the buffer tag of block blk (for callers reading pages with
// a strategy of their own).
func (r *Relation) Tag(blk page.BlockNumber) buffer.Tag { return r.tag(blk) }
