package btree

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"github.com/tidal-db/tidal/internal/xact/predicate"
	"slices"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
)

// VerdictKind is what a UniqueCheck callback decided about one existing
// entry with an equal key.
type VerdictKind uint8

const (
	// VerdictDead: the entry's row is dead (or is the inserter's own old
	// version); ignore it.
	VerdictDead VerdictKind = iota + 1
	// VerdictConflict: the entry's row is live: unique violation.
	VerdictConflict
	// VerdictWait: the entry's row was inserted or deleted by a transaction
	// still in progress; the caller must wait for it and retry.
	VerdictWait
)

// UniqueVerdict is a UniqueCheck result. Xid is the transaction to wait for
// (VerdictWait only). The zero value counts as a conflict.
type UniqueVerdict struct {
	Kind VerdictKind
	Xid  uint32
}

// Convenience verdicts.
var (
	UniqueDead     = UniqueVerdict{Kind: VerdictDead}
	UniqueConflict = UniqueVerdict{Kind: VerdictConflict}
)

// UniqueWaitFor is the verdict "wait for xid, then retry the insert".
func UniqueWaitFor(xid uint32) UniqueVerdict { return UniqueVerdict{Kind: VerdictWait, Xid: xid} }

// UniqueCheck decides whether the heap row behind an existing index entry
// with a key equal to the one being inserted blocks the insert. It is
// called with the leaf page locked; it may read heap pages but must not
// touch this index.
type UniqueCheck func(tid page.ItemPointer) (UniqueVerdict, error)

// WaitError is returned by Insert when a UniqueCheck asked to wait for a
// transaction: nothing was inserted; the caller waits for Xid to end and
// calls Insert again.
type WaitError struct {
	Xid uint32
	TID page.ItemPointer // the conflicting entry's heap TID
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("btree: unique check must wait for transaction %d (tuple %s)", e.Xid, e.TID)
}

// Insert adds the entry (keys, tid) (_bt_doinsert). For a unique index whose
// key has no NULL, every existing entry with an equal key is first shown to
// check (which must not be nil then): a conflict fails with SQLSTATE 23505,
// a wait verdict returns *WaitError. xid labels the WAL records.
func (ix *Index) Insert(u *stats.Usage, xid uint32, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck) error {
	return ix.InsertFor(u, nil, xid, keys, tid, check)
}

// InsertFor is Insert by a serializable transaction (sx, nil for others):
// the leaf page written to, or the one a unique violation is found on, is
// checked for SIREAD locks of concurrent readers first.
func (ix *Index) InsertFor(u *stats.Usage, sx *predicate.Xact, xid uint32, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck) error {
	return ix.insert(u, sx, xid, keys, tid, check, false, nil)
}

// InsertHints are what the executor knows about an insert that lets the
// B-tree delete entries instead of splitting a full leaf (README
// "Deleting before a split").
type InsertHints struct {
	// Unchanged: the entry is a non-HOT update's new version whose key
	// equals the old version's (PostgreSQL's indexUnchanged hint), so
	// the page likely holds versions of the same rows that are dead now:
	// a bottom-up deletion pass is tried before deduplicating or
	// splitting.
	Unchanged bool
	// EntryDead reports whether no snapshot can reach any row version
	// through an entry for tid (the table AM's IndexEntryDead at the
	// current horizon). It is called with the leaf exclusively locked;
	// it may read table pages but must not touch this index. nil: no
	// bottom-up deletion.
	EntryDead func(tid page.ItemPointer) (bool, error)
}

// InsertWith is InsertFor with hints (nil: none).
func (ix *Index) InsertWith(u *stats.Usage, sx *predicate.Xact, xid uint32, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck, hints *InsertHints) error {
	return ix.insert(u, sx, xid, keys, tid, check, false, hints)
}

// InsertMarked is InsertFor of a delete-marked entry (mark.go): the new
// key's entry of an in-place update that changed the key. When the entry
// (keys, tid) exists already (the row had this key before), it is marked
// instead of inserted twice.
func (ix *Index) InsertMarked(u *stats.Usage, sx *predicate.Xact, xid uint32, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck) error {
	return ix.insert(u, sx, xid, keys, tid, check, true, nil)
}

func (ix *Index) insert(u *stats.Usage, sx *predicate.Xact, xid uint32, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck, marked bool, hints *InsertHints) error {
	if len(keys) != ix.nkeys {
		return pgerr.Errorf(pgerr.InternalError, "btree: index %q has %d key columns, got %d", ix.opt.Name, ix.nkeys, len(keys))
	}
	o := ix.getOp(u)
	o.ssi = sx
	defer func() { o.ssi = nil; putOp(o) }()
	ob := o.bufs()
	tup := ix.formTupleInto(ob.tupBuf, keys, tid)
	ob.tupBuf = tup
	if marked {
		binary.LittleEndian.PutUint16(tup[6:], tupInfo(tup)|infoDeleteMarked)
	}
	if err := ix.checkTupleSize(tup); err != nil {
		return err
	}
	checking := ix.opt.Unique
	for i := range keys {
		if keys[i].IsNull() {
			checking = false
		}
	}
	sk := &ob.sks[0]
	*sk = scanKey{keys: keys, tail: tailExact, tid: tid}
	searchKey := sk
	if checking {
		// Land on the first page that may hold an equal key.
		searchKey = &ob.sks[1]
		*searchKey = scanKey{keys: keys, tail: tailMinus}
	}
	for {
		stack, lb, err := o.search(searchKey, true, xid)
		if err != nil {
			return err
		}
		if getOpaque(o.page(lb)).incomplete() {
			// Left over by a crash between a split and its parent insert.
			if err := o.finishSplit(lb, xid); err != nil {
				return err
			}
			continue
		}
		uniqueDup := false
		if checking {
			var entryDead func(page.ItemPointer) (bool, error)
			if hints != nil {
				entryDead = hints.EntryDead
			}
			if uniqueDup, err = o.checkUnique(lb, keys, tid, check, entryDead); err != nil {
				o.release(lb)
				return err
			}
			// Step right (lock-coupled, so a concurrent checker of the same
			// key cannot pass us) to the page where (keys, tid) belongs.
			lb, err = o.stepRightCoupled(lb, sk)
			if err != nil {
				return err
			}
			if getOpaque(o.page(lb)).incomplete() {
				if err := o.finishSplit(lb, xid); err != nil {
					return err
				}
				continue
			}
		}
		if err := sx.ConflictIn(uint32(ix.rel), uint32(lb.blk), 0); err != nil {
			o.release(lb)
			return err
		}
		if marked {
			off, found, err := o.findExact(lb, sk)
			if err == nil && found {
				err = o.setMarkAt(lb, off, true, xid)
			}
			if err != nil || found {
				o.release(lb)
				return err
			}
		}
		p := o.page(lb)
		if p.FreeSpace() < len(tup) && !marked {
			// Full: delete or deduplicate before splitting
			// (_bt_delete_or_dedup_one_page). Unique indexes only when the
			// check saw a duplicate or the key is an update's unchanged
			// one: versions of one key, not new keys.
			uniqueDup = uniqueDup || (checking && hints != nil && hints.Unchanged)
			if err := o.makeRoom(lb, tup, checking && !uniqueDup, uniqueDup, hints, xid); err != nil {
				o.release(lb)
				return err
			}
		}
		off, err := o.binsrch(p, getOpaque(p), sk)
		if err != nil {
			o.release(lb)
			return err
		}
		ps, err := o.postingSplitAt(lb, off, tup, sk)
		if err != nil {
			o.release(lb)
			return err
		}
		if ps != nil {
			tup = ps.newItem
		}
		return o.insertOnPage(lb, stack, tup, off+ps.shift(), lockedBuf{}, xid, ps)
	}
}

// checkUnique shows every entry with key equal to keys to check
// (_bt_check_unique). lb (the first page that may hold such keys) stays
// locked; pages to its right are share-locked one at a time. An entry for
// tid itself (a row updated in place back to a key it had) is the same
// row, never a conflict. dup reports whether an entry with an equal key
// (of any other row version, live or dead) was seen. An item on lb whose
// every TID check finds dead and entryDead (when set) dead to all
// snapshots is marked LP_DEAD on the way, as _bt_check_unique does, so
// that a full page deletes it before splitting (kill.go).
func (o *op) checkUnique(lb lockedBuf, keys []datum.Datum, tid page.ItemPointer, check UniqueCheck, entryDead func(page.ItemPointer) (bool, error)) (dup bool, err error) {
	ix := o.ix
	p := o.page(lb)
	op := getOpaque(p)
	off, err := o.binsrch(p, op, &scanKey{keys: keys, tail: tailMinus})
	if err != nil {
		return false, err
	}
	var extra lockedBuf
	defer func() {
		o.release(extra)
		if r := recover(); r != nil {
			// check is the executor's code: a panic in it must not leave
			// the leaf locked (the caller never regains control to
			// release it; crit.Recoverable relies on this).
			o.release(lb)
			panic(r)
		}
	}()
	plus := &o.bufs().sks[2]
	*plus = scanKey{keys: keys, tail: tailPlus}
	for {
		max := p.MaxOffset()
		if op.ignore() {
			max = 0 // half-dead or deleted: no entries, no high key; move on
		}
		for ; off <= max; off++ {
			t := itemAt(p, off)
			eq, err := ix.keysEqual(keys, t, o.scratch)
			if err != nil {
				return dup, err
			}
			if !eq {
				return dup, nil
			}
			if p.Item(off).Flags == page.LPDead {
				dup = true // dead to every snapshot (kill.go): no conflict
				continue
			}
			n := 1
			if isPosting(t) {
				n = nPosting(t)
			}
			allDead := entryDead != nil && extra.buf == buffer.InvalidBuffer && p.Item(off).Flags == page.LPNormal
			for i := 0; i < n; i++ {
				htid := page.GetItemPointer(t)
				if n > 1 {
					htid = postingTID(t, i)
				}
				if htid == tid {
					allDead = false
					continue
				}
				dup = true
				if check == nil {
					return dup, o.uniqueViolation(lb, keys)
				}
				v, err := check(htid)
				if err != nil {
					return dup, err
				}
				switch v.Kind {
				case VerdictDead:
					if allDead {
						if allDead, err = entryDead(htid); err != nil {
							return dup, err
						}
					}
				case VerdictWait:
					return dup, &WaitError{Xid: v.Xid, TID: htid}
				default:
					return dup, o.uniqueViolation(lb, keys)
				}
			}
			if allDead {
				o.markDead(lb, off)
			}
		}
		if op.rightmost() {
			return dup, nil
		}
		if !op.ignore() {
			c, err := ix.compare(plus, itemAt(p, PHiKey), o.scratch)
			if err != nil {
				return dup, err
			}
			if c < 0 {
				return dup, nil // the right page holds only larger keys
			}
		}
		next := op.next
		o.release(extra)
		extra = lockedBuf{}
		if extra, err = o.read(next, false); err != nil {
			return dup, err
		}
		p = o.page(extra)
		op = getOpaque(p)
		off = op.firstData()
	}
}

// uniqueViolation fails an insert on a duplicate key — after a
// serializable inserter checked the page for readers, as if it wrote
// there: a read/write conflict that explains the duplicate is reported
// rather than masked by it (_bt_check_unique).
func (o *op) uniqueViolation(lb lockedBuf, keys []datum.Datum) error {
	if err := o.ssi.ConflictIn(uint32(o.ix.rel), uint32(lb.blk), 0); err != nil {
		return err
	}
	return o.ix.uniqueViolation(keys)
}

func (ix *Index) uniqueViolation(keys []datum.Datum) error {
	return pgerr.Errorf(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", ix.opt.Name).
		WithDetail("Key (%s)=(%s) already exists.", ix.columnList(), ix.formatKey(keys))
}

// stepRightCoupled moves right while sk is beyond the high key, locking the
// right page before releasing the current one (_bt_stepright).
func (o *op) stepRightCoupled(lb lockedBuf, sk *scanKey) (lockedBuf, error) {
	for {
		p := o.page(lb)
		op := getOpaque(p)
		if op.rightmost() {
			return lb, nil
		}
		move := op.ignore()
		if !move {
			var err error
			if move, err = o.beyondHighKey(p, op, sk); err != nil {
				o.release(lb)
				return lockedBuf{}, err
			}
		}
		if !move {
			return lb, nil
		}
		next, err := o.read(op.next, true)
		o.release(lb)
		if err != nil {
			return lockedBuf{}, err
		}
		lb = next
	}
}

// logPages marks the buffers dirty, writes one WAL record registering each
// page with its delta, and stamps the pages with the record's end LSN. The
// caller holds every buffer exclusively locked.
func (o *op) logPages(info uint8, xid uint32, main []byte, bufs []lockedBuf, deltas []*page.Delta) error {
	ix := o.ix
	rec := wal.NewRecord(wal.RmBtree, info, xid)
	for i, lb := range bufs {
		ix.pool.MarkDirty(o.u, lb.buf)
		rec.AddBlock(ix.tag(lb.blk), ix.pool.Page(lb.buf), wal.BlockStandard, deltas[i])
	}
	rec.SetMain(main)
	lsn, err := ix.wal.Insert(o.u, rec)
	if err != nil {
		// The pages are changed but not logged: the caller must treat this
		// as fatal (PostgreSQL PANICs inside the critical section).
		return fmt.Errorf("btree: WAL insert failed for index %q: %w", ix.opt.Name, err)
	}
	for _, lb := range bufs {
		ix.pool.Page(lb.buf).SetLSN(lsn)
	}
	return nil
}

// insertOnPage inserts tup at off on the exclusively locked page lb,
// splitting it when it is full (_bt_insertonpg). child, when valid, is the
// left half of a split one level down whose downlink tup is: its
// INCOMPLETE_SPLIT flag is cleared in the same WAL record. lb and child are
// released.
func (o *op) insertOnPage(lb lockedBuf, stack []stackEntry, tup []byte, off page.OffsetNumber, child lockedBuf, xid uint32, ps *postingSplit) error {
	p := o.page(lb)
	if p.FreeSpace() < len(tup) {
		return o.split(lb, stack, tup, off, child, xid, ps)
	}
	ob := o.bufs()
	info, data := infoInsertLeaf, tup
	if ps != nil {
		info, data = infoInsertPost, ps.orig
	}
	if err := insertItem(p, off, tup, ps); err != nil {
		o.release(lb)
		o.release(child)
		return o.ix.corrupt("%v in block %d", err, lb.blk)
	}
	blocks := []walBlock{{lb: lb, data: data}}
	if child.buf != buffer.InvalidBuffer {
		info = infoInsertUpper
		clearIncompleteSplit(o.page(child))
		blocks = append(blocks, walBlock{lb: child, data: []byte{}})
	}
	main := ob.main[:2]
	binary.LittleEndian.PutUint16(main, off)
	err := o.logChange(info, xid, main, blocks...)
	o.release(lb)
	o.release(child)
	return err
}

// insertItem places tup at off on page p; for a posting-list split, the
// list just before off is first overwritten with its rewritten form (the
// change of INSERT_LEAF, INSERT_UPPER and INSERT_POST records).
func insertItem(p page.Page, off page.OffsetNumber, tup []byte, ps *postingSplit) error {
	if ps != nil {
		// The posting list keeps its size: the new TID goes in, its
		// highest TID moves out into tup, right after it.
		p.Overwrite(ps.off, ps.nposting, nil)
	}
	if p.AddItem(tup, off, true, false, 0, nil) == page.InvalidOffset {
		return fmt.Errorf("failed to add new item at offset %d", off)
	}
	return nil
}

// clearIncompleteSplit clears BTP_INCOMPLETE_SPLIT on the left half of a
// split whose downlink has just been inserted.
func clearIncompleteSplit(p page.Page) {
	setPageFlags(p, pageFlags(p)&^FlagIncompleteSplit, nil)
}

// split splits the full page lb while inserting tup at off (_bt_split),
// then inserts the downlink to the new right page into the parent
// (_bt_insert_parent). lb, child are released.
func (o *op) split(lb lockedBuf, stack []stackEntry, tup []byte, off page.OffsetNumber, child lockedBuf, xid uint32, ps *postingSplit) error {
	ix := o.ix
	p := o.page(lb)
	op := getOpaque(p)
	leaf := op.isLeaf()
	first, max := op.firstData(), p.MaxOffset()

	fail := func(err error, more ...lockedBuf) error {
		o.release(lb)
		o.release(child)
		for _, b := range more {
			o.release(b)
		}
		return err
	}

	// The page's items with the new one in place, copied out (the page is
	// rewritten below).
	orig := make(page.Page, page.Size)
	copy(orig, p)
	sp := splitPlan{off: off, level: op.level}
	var nposting []byte
	if ps != nil {
		sp.psOff, nposting = ps.off, ps.nposting
	}
	items, newPos := splitItems(orig, first, max, off, tup, sp.psOff, nposting)
	var hikey []byte
	if !op.rightmost() {
		hikey = append([]byte(nil), itemAt(p, PHiKey)...)
	}
	k, err := o.findSplit(op, items, newPos, hikey)
	if err != nil {
		return fail(err)
	}
	sp.k = uint16(k)

	// New left high key: the separator.
	var lhikey []byte
	if leaf {
		if lhikey, err = ix.truncate(items[k-1], items[k], o.scratch); err != nil {
			return fail(err)
		}
	} else {
		lhikey = append([]byte(nil), items[k]...)
	}

	// The new right page: a recycled one, or a new block.
	rb, err := o.newPage()
	if err != nil {
		return fail(err)
	}
	rblk := rb.blk
	ix.env.Pred.PageSplit(uint32(ix.rel), uint32(lb.blk), uint32(rblk))
	// Read only now that both halves are locked: a bulk delete that starts
	// later cannot reach the right page before the entries are in it, and
	// one running now finds its cycle id on the left page and comes back
	// for the right one if that lies behind its scan.
	sp.cycle = ix.vacuumCycle()
	sp.lflags = op.flags &^ (FlagRoot | FlagSplitEnd | FlagHasGarbage | FlagIncompleteSplit)

	// The right page's items, built directly in its buffer (a new page).
	ritems := make([][]byte, 0, len(items)-k+1)
	if hikey != nil {
		ritems = append(ritems, hikey)
	}
	for i := k; i < len(items); i++ {
		it := items[i]
		if !leaf && i == k {
			it = minusInfPivot(downlink(it))
		}
		ritems = append(ritems, it)
	}
	if err := buildPage(o.page(rb), sp.rightOpaque(lb.blk, op.next), ritems); err != nil {
		return fail(ix.corrupt("%v while splitting block %d", err, lb.blk), rb)
	}

	// The old right sibling's left link.
	var sb lockedBuf
	if op.next != PNone {
		if sb, err = o.read(op.next, true); err != nil {
			return fail(err, rb)
		}
		sibp := o.page(sb)
		if sop := getOpaque(sibp); sop.prev != lb.blk {
			return fail(ix.corrupt("right sibling's left-link doesn't match: block %d links to %d instead of expected %d", op.next, sop.prev, lb.blk), rb, sb)
		}
		setPagePrev(sibp, rblk, nil)
		sp.flags |= splitHasSibling
	}

	// The new left page (keeping its LSN).
	if err := buildPage(p, sp.leftOpaque(op.prev, rblk), append([][]byte{lhikey}, items[:k]...)); err != nil {
		return fail(ix.corrupt("%v while splitting block %d", err, lb.blk), rb, sb)
	}

	// Left data: the high key, and the new item as formed when redo
	// needs it to rebuild the left page (PostgreSQL's rule).
	ldata := lhikey
	if newPos < k || ps != nil {
		sp.flags |= splitNewItemLogged
		ni := tup
		if ps != nil {
			ni = ps.orig
		}
		ldata = append(append(make([]byte, 0, len(lhikey)+len(ni)), lhikey...), ni...)
	}
	blocks := []walBlock{{lb: lb, data: ldata}, {lb: rb, data: concatItems(ritems), init: true}}
	if sb.buf != buffer.InvalidBuffer {
		blocks = append(blocks, walBlock{lb: sb, data: []byte{}})
	}
	if child.buf != buffer.InvalidBuffer {
		clearIncompleteSplit(o.page(child))
		blocks = append(blocks, walBlock{lb: child, data: []byte{}})
		sp.flags |= splitHasChild
	}
	info := infoSplitR
	if newPos < k {
		info = infoSplitL
	}
	if err := o.logChange(info, xid, sp.encode(), blocks...); err != nil {
		return fail(err, rb, sb)
	}
	o.release(sb)
	o.release(child)

	sep := append([]byte(nil), lhikey...)
	setDownlink(sep, rblk)
	return o.insertParent(lb, rb, sep, stack, op.isRoot(), xid)
}

// insertParent inserts the downlink sep (to right, the new right half of
// left) into left's parent, or makes a new root when left was the root
// (_bt_insert_parent). left and right are released.
func (o *op) insertParent(left, right lockedBuf, sep []byte, stack []stackEntry, wasRoot bool, xid uint32) error {
	if wasRoot {
		return o.newRoot(left, right, sep, xid)
	}
	o.release(right)
	var pe stackEntry
	if n := len(stack); n > 0 {
		pe = stack[n-1]
		stack = stack[:n-1]
	} else {
		// We started below the current root (a concurrent root split):
		// find the parent level from the top.
		lv := pageLevel(o.page(left)) + 1
		plb, err := o.leftmostAtLevel(lv)
		if err != nil {
			o.release(left)
			return err
		}
		if plb.buf == buffer.InvalidBuffer || pageLevel(o.page(plb)) != lv {
			o.release(plb)
			o.release(left)
			return o.ix.corrupt("could not find parent level %d of block %d", lv, left.blk)
		}
		pe = stackEntry{blk: plb.blk, off: getOpaque(o.page(plb)).firstData()}
		o.release(plb)
	}
	pb, poff, err := o.getStackBuf(pe, left.blk, xid)
	if err != nil {
		o.release(left)
		return err
	}
	return o.insertOnPage(pb, stack, sep, poff+1, left, xid, nil)
}

// getStackBuf re-finds and exclusively locks the parent page holding the
// downlink to child, starting from where the descent saw it and moving
// right (_bt_getstackbuf).
func (o *op) getStackBuf(pe stackEntry, child page.BlockNumber, xid uint32) (lockedBuf, page.OffsetNumber, error) {
	blk, start := pe.blk, pe.off
	for {
		lb, err := o.read(blk, true)
		if err != nil {
			return lockedBuf{}, 0, err
		}
		p := o.page(lb)
		op := getOpaque(p)
		if op.incomplete() {
			if err := o.finishSplit(lb, xid); err != nil {
				return lockedBuf{}, 0, err
			}
			continue
		}
		if !op.ignore() {
			first, max := op.firstData(), p.MaxOffset()
			if start < first {
				start = first
			}
			if start > max+1 {
				// the page split since the descent saw it
				start = max + 1
			}
			for off := start; off <= max; off++ {
				if downlink(itemAt(p, off)) == child {
					return lb, off, nil
				}
			}
			for off := start - 1; off >= first; off-- {
				if downlink(itemAt(p, off)) == child {
					return lb, off, nil
				}
			}
		}
		if op.rightmost() {
			o.release(lb)
			return lockedBuf{}, 0, o.ix.corrupt("failed to re-find parent key for block %d", child)
		}
		blk, start = op.next, 0
		o.release(lb)
	}
}

// newRoot makes a new root above left and right (_bt_newroot), updating
// the metapage. All three are released.
func (o *op) newRoot(left, right lockedBuf, sep []byte, xid uint32) error {
	ix := o.ix
	meta, err := o.read(MetaPageBlock, true)
	if err != nil {
		o.release(left)
		o.release(right)
		return err
	}
	root, err := o.extend()
	if err != nil {
		o.release(meta)
		o.release(left)
		o.release(right)
		return err
	}
	rblk := root.blk
	lp := o.page(left)
	level := pageLevel(lp) + 1
	rp := o.page(root)
	var dr, dl, dm page.Delta
	initBtPage(rp, opaque{level: level, flags: FlagRoot}, &dr)
	rp.AddItem(minusInfPivot(left.blk), 1, false, false, 0, &dr)
	rp.AddItem(sep, 2, false, false, 0, &dr)
	setPageFlags(lp, pageFlags(lp)&^FlagIncompleteSplit, &dl)
	setMetaRoot(o.page(meta), rblk, level, &dm)
	var main [8]byte
	binary.LittleEndian.PutUint32(main[0:], rblk)
	binary.LittleEndian.PutUint32(main[4:], level)
	err = o.logPages(infoNewRoot, xid, main[:], []lockedBuf{root, left, meta}, []*page.Delta{&dr, &dl, &dm})
	if err == nil {
		ix.meta.Store(&metaInfo{root: rblk, level: level, fastRoot: rblk, fastLevel: level})
	}
	o.release(root)
	o.release(meta)
	o.release(left)
	o.release(right)
	return err
}

// createRoot makes the first (leaf) root of an empty index.
func (o *op) createRoot(xid uint32) error {
	ix := o.ix
	meta, err := o.read(MetaPageBlock, true)
	if err != nil {
		return err
	}
	mp := o.page(meta)
	m, err := readMeta(mp)
	if err != nil {
		o.release(meta)
		return ix.corrupt("%v", err)
	}
	if m.root != PNone {
		ix.meta.Store(m)
		o.release(meta)
		return nil
	}
	root, err := o.extend()
	if err != nil {
		o.release(meta)
		return err
	}
	rblk := root.blk
	var dr, dm page.Delta
	initBtPage(o.page(root), opaque{flags: FlagLeaf | FlagRoot}, &dr)
	setMetaRoot(mp, rblk, 0, &dm)
	var main [8]byte
	binary.LittleEndian.PutUint32(main[0:], rblk)
	err = o.logPages(infoNewRoot, xid, main[:], []lockedBuf{root, meta}, []*page.Delta{&dr, &dm})
	if err == nil {
		ix.meta.Store(&metaInfo{root: rblk, fastRoot: rblk})
	}
	o.release(root)
	o.release(meta)
	return err
}

// finishSplit completes a split whose downlink never reached the parent (a
// crash between the two WAL records): lb is the left half, exclusively
// locked, with INCOMPLETE_SPLIT set (_bt_finish_split). lb is released.
func (o *op) finishSplit(lb lockedBuf, xid uint32) error {
	ix := o.ix
	p := o.page(lb)
	op := getOpaque(p)
	if op.rightmost() {
		// Cannot happen (a split always leaves a right sibling); just
		// clear the flag.
		var d page.Delta
		setPageFlags(p, op.flags&^FlagIncompleteSplit, &d)
		err := o.logPages(infoInsertUpper, xid, nil, []lockedBuf{lb}, []*page.Delta{&d})
		o.release(lb)
		return err
	}
	rb, err := o.read(op.next, true)
	if err != nil {
		o.release(lb)
		return err
	}
	sep := append([]byte(nil), itemAt(p, PHiKey)...)
	setDownlink(sep, rb.blk)
	// Was the left page the root when it split? Then the metapage still
	// points at it.
	m, err := ix.getMeta(o.u, true)
	if err != nil {
		o.release(rb)
		o.release(lb)
		return err
	}
	wasRoot := m.root == lb.blk
	// The descent stack may not reach this level: rebuild it from the top.
	var st []stackEntry
	if !wasRoot {
		st, err = o.stackFor(pageLevel(p) + 1)
		if err != nil {
			o.release(rb)
			o.release(lb)
			return err
		}
	}
	return o.insertParent(lb, rb, sep, st, wasRoot, xid)
}

// stackFor returns a one-entry stack pointing at the leftmost page of level.
func (o *op) stackFor(level uint32) ([]stackEntry, error) {
	plb, err := o.leftmostAtLevel(level)
	if err != nil {
		return nil, err
	}
	if plb.buf == buffer.InvalidBuffer {
		return nil, o.ix.corrupt("index is empty while finishing a split")
	}
	defer o.release(plb)
	if pageLevel(o.page(plb)) != level {
		return nil, o.ix.corrupt("could not find level %d", level)
	}
	return []stackEntry{{blk: plb.blk, off: getOpaque(o.page(plb)).firstData()}}, nil
}

// ---- split point choice ----

// singleValueFillFactor is BTREE_SINGLEVAL_FILLFACTOR: how full the left
// page is left when a page full of one value splits.
const singleValueFillFactor = 96

type splitCand struct {
	k     int     // index of the first item going right
	delta float64 // imbalance against the wanted fill
}

// findSplit picks where to split items (the page's data items with the new
// one in place), as a simplified _bt_findsplitloc: among legal split points
// it takes the few that best match the wanted fill (50:50, or the
// fillfactor on the rightmost page of a level, so ascending loads leave
// full pages behind), and among those the one whose separator needs the
// fewest key attributes (suffix truncation). A leaf full of one value uses
// PostgreSQL's "single value" strategy (96% left).
func (o *op) findSplit(op opaque, items [][]byte, newPos int, hikey []byte) (int, error) {
	ix := o.ix
	n := len(items)
	if n < 2 {
		return 0, ix.corrupt("cannot split a page with %d items", n)
	}
	leaf := op.isLeaf()
	pre := make([]int, n+1)
	for i, it := range items {
		pre[i+1] = pre[i] + page.MaxAlignUp(len(it)) + page.ItemIDSize
	}
	rightAvail := pageAvail
	if hikey != nil {
		rightAvail -= page.MaxAlignUp(len(hikey)) + page.ItemIDSize
	}
	usemult, singleValue := false, false
	ff := 0.5
	if leaf && op.rightmost() {
		usemult, ff = true, float64(ix.ff)/100
	} else if !leaf && op.rightmost() {
		usemult, ff = true, NonLeafFillFactor/100.0
	}
	if leaf && n > 2 {
		// single value strategy
		same, err := o.samePrefix(items[0], items[n-1], ix.nkeys)
		if err != nil {
			return 0, err
		}
		if same {
			single := op.rightmost()
			if !single {
				hs, err := o.samePrefix(hikey, items[newPos], ix.natts(hikey))
				if err != nil {
					return 0, err
				}
				single = !hs || ix.natts(hikey) < ix.nkeys
			}
			if single {
				usemult, singleValue, ff = true, true, singleValueFillFactor/100.0
			}
		}
	}
	var cands []splitCand
	for k := 1; k < n; k++ {
		fr := page.MaxAlignUp(len(items[k]))
		lhk := fr + page.ItemIDSize
		if leaf {
			lhk += heapTIDTrailSize // pessimistic: the separator may need a heap TID
		}
		leftFree := pageAvail - pre[k] - lhk
		rightBytes := pre[n] - pre[k]
		if !leaf {
			rightBytes -= fr - tupleHeaderSize // becomes minus infinity
		}
		rightFree := rightAvail - rightBytes
		if leftFree < 0 || rightFree < 0 {
			continue
		}
		var delta float64
		if usemult {
			delta = ff*float64(leftFree) - (1-ff)*float64(rightFree)
		} else {
			delta = float64(leftFree - rightFree)
		}
		if delta < 0 {
			delta = -delta
		}
		cands = append(cands, splitCand{k: k, delta: delta})
	}
	if len(cands) == 0 {
		return 0, ix.corrupt("could not find a feasible split point")
	}
	slices.SortStableFunc(cands, func(a, b splitCand) int { return cmp.Compare(a.delta, b.delta) })
	interval := len(cands) / 20
	maxInterval := 9
	if !leaf {
		maxInterval = 18
	}
	if interval < 1 {
		interval = 1
	}
	if interval > maxInterval {
		interval = maxInterval
	}
	best, bestPen := cands[0].k, -1
	for _, c := range cands[:interval] {
		var pen int
		if leaf {
			var err error
			if pen, err = o.keepNAtts(items[c.k-1], items[c.k]); err != nil {
				return 0, err
			}
		} else {
			pen = len(items[c.k])
		}
		if bestPen < 0 || pen < bestPen {
			best, bestPen = c.k, pen
		}
	}
	if leaf && bestPen > ix.nkeys && !singleValue {
		// Many duplicates: look over the whole page for a split point
		// that avoids a heap TID in the separator, nearest the ideal.
		for _, c := range cands[interval:] {
			pen, err := o.keepNAtts(items[c.k-1], items[c.k])
			if err != nil {
				return 0, err
			}
			if pen <= ix.nkeys {
				best = c.k
				break
			}
		}
	}
	return best, nil
}

// keepNAtts is the number of key attributes a separator between a and b
// needs (_bt_keep_natts); nkeys+1 means a heap TID is needed too.
func (o *op) keepNAtts(a, b []byte) (int, error) {
	ix := o.ix
	l := o.scratch[:ix.nkeys]
	r := o.scratch[ix.nkeys : 2*ix.nkeys]
	if err := ix.deform(a, l, ix.nkeys); err != nil {
		return 0, err
	}
	if err := ix.deform(b, r, ix.nkeys); err != nil {
		return 0, err
	}
	for i := 0; i < ix.nkeys; i++ {
		if ix.cmpCol(i, l[i], r[i]) != 0 {
			return i + 1, nil
		}
	}
	return ix.nkeys + 1, nil
}

// samePrefix reports whether a and b agree on their first n key attributes.
func (o *op) samePrefix(a, b []byte, n int) (bool, error) {
	ix := o.ix
	if n > ix.natts(a) || n > ix.natts(b) {
		return false, nil
	}
	l := o.scratch[:n]
	r := o.scratch[ix.nkeys : ix.nkeys+n]
	if err := ix.deform(a, l, n); err != nil {
		return false, err
	}
	if err := ix.deform(b, r, n); err != nil {
		return false, err
	}
	for i := 0; i < n; i++ {
		if ix.cmpCol(i, l[i], r[i]) != 0 {
			return false, nil
		}
	}
	return true, nil
}
