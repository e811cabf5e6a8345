package btree

import (
	"encoding/binary"
	"slices"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// LP_DEAD hints (README "Deleting before a split"): an index scan whose
// table fetch found every version an entry leads to dead to every
// snapshot calls KillPrior; when the scan leaves the page it marks those
// items LP_DEAD (_bt_killitems), a hint that is not WAL-logged, and sets
// BTP_HAS_GARBAGE. Scans skip LP_DEAD items; an insert into the full page
// deletes them before anything else (simple deletion), and VACUUM removes
// them with the dead TIDs.

// KillPrior says that the entry Next returned last leads only to row
// versions dead to every snapshot (kill_prior_tuple).
func (c *Cursor) KillPrior() {
	if c.pos > 0 && int(c.cur) < len(c.offs) {
		c.killed = append(c.killed, c.cur)
	}
}

// killItems marks the killed entries of the page last read LP_DEAD. It
// only changes items it can be sure are the ones read: the page must be
// unchanged since (same LSN) for a posting list, whose TIDs must all be
// killed; a plain item moved by later inserts is found by its TID at its
// old position only when the LSN is the same. Failures are ignored: it is
// a hint.
func (c *Cursor) killItems() {
	if len(c.killed) == 0 {
		return
	}
	killed := c.killed
	c.killed = c.killed[:0]
	o := c.o
	lb, err := o.read(c.blk, true)
	if err != nil {
		return
	}
	defer o.release(lb)
	p := o.page(lb)
	op := getOpaque(p)
	if !op.isLeaf() || op.ignore() || p.LSN() != c.lsn {
		return
	}
	slices.Sort(killed)
	for i := 0; i < len(killed); {
		off := c.offs[killed[i]]
		j := i
		for j < len(killed) && c.offs[killed[j]] == off {
			j++
		}
		if off <= p.MaxOffset() {
			it := p.Item(off)
			t := itemAt(p, off)
			n := 1
			if isPosting(t) {
				n = nPosting(t)
			}
			if it.Flags == page.LPNormal && j-i == n && minHeapTID(t) == Tuple(c.entry(killed[i])).TID() {
				o.markDead(lb, off)
			}
		}
		i = j
	}
}

// markDead sets LP_DEAD on item off of the exclusively locked leaf lb and
// BTP_HAS_GARBAGE on the page: a hint, not WAL-logged.
func (o *op) markDead(lb lockedBuf, off page.OffsetNumber) {
	p := o.page(lb)
	it := p.Item(off)
	p.SetItem(off, page.ItemID{Off: it.Off, Flags: page.LPDead, Len: it.Len}, nil)
	binary.LittleEndian.PutUint16(p[specialOff+opFlags:], pageFlags(p)|FlagHasGarbage)
	o.ix.pool.MarkDirtyHint(o.u, lb.buf)
}

// entry is the i-th entry copied from the current page.
func (c *Cursor) entry(i int32) []byte {
	start := int32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.buf[start:c.ends[i]]
}

// simpleDelete removes the LP_DEAD items of the exclusively locked leaf lb
// (_bt_simpledel_pass), in one DELETE record; it reports whether it
// removed anything. With entryDead, the other TIDs on the page that point
// into the same table blocks as the LP_DEAD items are asked about too, and
// the dead ones go as well (_bt_deadblocks: their versions were likely
// pruned together; this is how entries inside posting lists, which scans
// rarely kill whole, are reclaimed).
func (o *op) simpleDelete(lb lockedBuf, entryDead func(page.ItemPointer) (bool, error), xid uint32) (bool, error) {
	p := o.page(lb)
	op := getOpaque(p)
	if op.flags&FlagHasGarbage == 0 {
		return false, nil
	}
	first, max := op.firstData(), p.MaxOffset()
	var offs []page.OffsetNumber
	blocks := map[page.BlockNumber]bool{}
	for off := first; off <= max; off++ {
		if p.Item(off).Flags == page.LPDead {
			offs = append(offs, off)
			for _, tid := range leafTIDs(nil, itemAt(p, off)) {
				blocks[tid.Block] = true
			}
		}
	}
	dead := map[page.ItemPointer]bool{}
	if entryDead != nil && len(offs) > 0 {
		for off := first; off <= max; off++ {
			if p.Item(off).Flags == page.LPDead || Tuple(itemAt(p, off)).DeleteMarked() {
				continue
			}
			for _, tid := range leafTIDs(nil, itemAt(p, off)) {
				if !blocks[tid.Block] {
					continue
				}
				d, err := entryDead(tid)
				if err != nil {
					return false, err
				}
				if d {
					dead[tid] = true
				}
			}
		}
	}
	if len(dead) > 0 {
		e, _ := dropTIDs(p, first, max, func(off page.OffsetNumber, tid page.ItemPointer) bool {
			return p.Item(off).Flags == page.LPDead || dead[tid]
		})
		return true, o.logLeafEdit(lb, &e, infoDelete, xid)
	}
	e := leafEdit{deleted: offs, clearGarbage: true}
	return len(offs) > 0, o.logLeafEdit(lb, &e, infoDelete, xid)
}
