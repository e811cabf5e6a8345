package btree

import (
	"cmp"
	"slices"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// postingSplit is an insert whose heap TID falls inside an existing posting
// list's TID range (_bt_swap_posting): the list at off takes the new TID
// and gives up its highest one, which goes into newItem (the new key with
// that TID), inserted right after the list. Both keep their sizes, so the
// page's space accounting is that of a plain insert.
type postingSplit struct {
	off      page.OffsetNumber
	nposting []byte
	newItem  []byte
	orig     []byte // the new tuple as formed, with its own TID (logged)
}

// shift is where the new item goes relative to the searched offset.
func (ps *postingSplit) shift() page.OffsetNumber {
	if ps == nil {
		return 0
	}
	return 1
}

// postingSplitAt checks whether the insert of tup (search key sk) at off on
// the locked leaf lb lands inside a posting list, and prepares the split.
func (o *op) postingSplitAt(lb lockedBuf, off page.OffsetNumber, tup []byte, sk *scanKey) (*postingSplit, error) {
	p := o.page(lb)
	if off > p.MaxOffset() {
		return nil, nil
	}
	t := itemAt(p, off)
	if !isPosting(t) {
		return nil, nil
	}
	c, err := o.ix.compare(sk, t, o.scratch)
	if err != nil || c != 0 {
		return nil, err
	}
	np, ni, ok := swapPosting(t, tup, sk.tid)
	if !ok {
		return nil, o.ix.corrupt("table tid %s from new index tuple overlaps with posting list tuple at offset %d of block %d", sk.tid, off, lb.blk)
	}
	return &postingSplit{off: off, nposting: np, newItem: ni, orig: tup}, nil
}

// swapPosting returns the posting list t with tid (the heap TID of the new
// tuple tup) in and its highest TID out, and tup carrying that highest TID
// (_bt_swap_posting); false when t already holds tid. Redo of a posting
// split recomputes both from the logged tup.
func swapPosting(t, tup []byte, tid page.ItemPointer) (np, ni []byte, ok bool) {
	tids := leafTIDs(nil, t)
	i, found := slices.BinarySearchFunc(tids, tid, page.ItemPointer.Compare)
	if found {
		return nil, nil, false
	}
	maxTID := tids[len(tids)-1]
	tids = slices.Insert(tids, i, tid)[:len(tids)]
	np = formPosting(t, tids)
	ni = append([]byte(nil), tup...)
	page.PutItemPointer(ni, maxTID)
	return np, ni, true
}

// makeRoom tries to free space for an item of size need on the full,
// exclusively locked leaf lb before it splits (_bt_delete_or_dedup_one_page):
// a bottom-up deletion pass when the insert is a version of an unchanged
// key (or a unique index found versions of the key), then a deduplication
// pass; first of all, the deletion of items index scans marked LP_DEAD.
// simpleOnly (a unique index inserting a new key) only does that.
func (o *op) makeRoom(lb lockedBuf, newTup []byte, simpleOnly, uniqueDup bool, hints *InsertHints, xid uint32) error {
	need := len(newTup) + page.ItemIDSize
	var entryDead func(page.ItemPointer) (bool, error)
	if hints != nil {
		entryDead = hints.EntryDead
	}
	if deleted, err := o.simpleDelete(lb, entryDead, xid); err != nil || (deleted && o.page(lb).ExactFreeSpace() >= need) {
		return err
	}
	if simpleOnly {
		return nil
	}
	bottomUp := hints != nil && hints.Unchanged || uniqueDup
	if bottomUp && hints != nil && hints.EntryDead != nil {
		ok, err := o.bottomUpPass(lb, need, hints.EntryDead, xid)
		if err != nil || ok {
			return err
		}
	}
	if o.ix.dedup {
		return o.dedupPass(lb, newTup, need, bottomUp, xid)
	}
	return nil
}

// dedupPass merges each run of leaf items with the same key image into
// posting lists of at most maxPostingSize bytes (_bt_dedup_pass), in one
// DEDUP record; need is the new item's size with its line pointer.
// Delete-marked items stay as they are. When the page holds nothing but
// newTup's key and the pass was not preceded by a bottom-up attempt, the
// "single value" strategy leaves the last items alone (see dedupItems).
func (o *op) dedupPass(lb lockedBuf, newTup []byte, need int, bottomUp bool, xid uint32) error {
	p := o.page(lb)
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	if max < first {
		return nil
	}
	singleValue := !bottomUp && sameKeyImage(newTup, itemAt(p, first)) && sameKeyImage(newTup, itemAt(p, max))
	intervals := dedupIntervals(p, first, max, maxPostingSize, singleValue, need)
	if len(intervals) == 0 {
		return nil
	}
	if err := applyDedup(p, intervals); err != nil {
		return o.ix.corrupt("deduplicating block %d: %v", lb.blk, err)
	}
	main, data := encodeDedup(intervals)
	return o.logChange(infoDedup, xid, main, walBlock{lb: lb, data: data})
}

// dedupIntervals returns the runs of the items first..max of p with equal
// key images to merge into posting lists of at most limit bytes. With singleValue, once five posting lists of
// the limit's size (over 50 TIDs) have been formed or met, the limit drops
// by the free space a single-value split leaves on its left page (4%), and
// after a sixth nothing more is merged: the page is about to split 96:4,
// and the items bound for the right page are left for its own pass
// (_bt_do_singleval, _bt_singleval_fillfactor).
func dedupIntervals(p page.Page, first, max page.OffsetNumber, limit int, singleValue bool, need int) []dedupInterval {
	var intervals []dedupInterval
	bigOnes := 0
	merging := true
	var tids []page.ItemPointer
	for i := first; i <= max; {
		base := itemAt(p, i)
		j := i + 1
		if merging && !Tuple(base).DeleteMarked() {
			tids = leafTIDs(tids[:0], base)
			for ; j <= max; j++ {
				t := itemAt(p, j)
				if Tuple(t).DeleteMarked() || !sameKeyImage(base, t) {
					break
				}
				n := len(tids) + 1
				if isPosting(t) {
					n = len(tids) + nPosting(t)
				}
				if postingSizeWith(base, n) > limit {
					if len(tids) > 50 {
						bigOnes++
					}
					break
				}
				tids = leafTIDs(tids, t)
			}
		}
		if j > i+1 {
			intervals = append(intervals, dedupInterval{base: i, nitems: uint16(j - i)})
		}
		i = j
		if singleValue {
			switch bigOnes {
			case 5:
				leftFree := pageAvail - need - heapTIDTrailSize
				limit -= leftFree * (100 - singleValueFillFactor) / 100
				if limit < 0 {
					limit = 0
				}
			case 6:
				merging, singleValue = false, false
			}
		}
	}
	return intervals
}

// logLeafEdit makes the change e on the exclusively locked leaf lb and
// logs it in one record of kind info (DELETE or VACUUM).
func (o *op) logLeafEdit(lb lockedBuf, e *leafEdit, info uint8, xid uint32) error {
	if err := e.apply(o.page(lb)); err != nil {
		return o.ix.corrupt("editing block %d: %v", lb.blk, err)
	}
	main, data := e.encode(nil)
	return o.logChange(info, xid, main, walBlock{lb: lb, data: data})
}

// bottomUpMaxBlocks bounds the table blocks one bottom-up pass visits
// (heapam's BOTTOMUP_MAX_NBLOCKS).
const bottomUpMaxBlocks = 6

// bottomUpCand is one heap TID on the page a bottom-up pass may ask about.
type bottomUpCand struct {
	tid       page.ItemPointer
	promising bool
	free      int // space its deletion frees, at worst
}

// bottomUpPass deletes the entries of dead row versions among the
// duplicates on the full leaf lb (_bt_bottomupdel_pass and heapam's side
// of it): the TIDs of items in runs of equal key images (all of a posting
// list's, where PostgreSQL counts one) are "promising"; the table blocks
// with the most promising TIDs, at most bottomUpMaxBlocks of them, are
// visited in that order, every TID of the page on each asked about
// through entryDead, until the dead ones free max(need, BLCKSZ/16) bytes.
// (PostgreSQL also gives up after a block that freed nothing; doing so
// here left vac6-like primary keys a third larger than PostgreSQL's,
// since its other ways of reclaiming old versions are richer.) The deletions (one DELETE record) stand either way. It reports
// success — the caller need not deduplicate — when the page has no
// duplicates at all, or now has max(need, BLCKSZ/24) bytes free.
func (o *op) bottomUpPass(lb lockedBuf, need int, entryDead func(page.ItemPointer) (bool, error), xid uint32) (bool, error) {
	p := o.page(lb)
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	cands, intervals := bottomUpCandidates(p, first, max)
	if intervals == 0 {
		return true, nil
	}
	type blockGroup struct {
		blk              page.BlockNumber
		promising, ntids int
	}
	groups := map[page.BlockNumber]*blockGroup{}
	for _, c := range cands {
		g := groups[c.tid.Block]
		if g == nil {
			g = &blockGroup{blk: c.tid.Block}
			groups[c.tid.Block] = g
		}
		g.ntids++
		if c.promising {
			g.promising++
		}
	}
	order := make([]*blockGroup, 0, len(groups))
	for _, g := range groups {
		if g.promising > 0 {
			order = append(order, g)
		}
	}
	slices.SortFunc(order, func(a, b *blockGroup) int {
		if c := cmp.Compare(b.promising, a.promising); c != 0 {
			return c
		}
		if c := cmp.Compare(b.ntids, a.ntids); c != 0 {
			return c
		}
		return cmp.Compare(a.blk, b.blk)
	})
	if len(order) > bottomUpMaxBlocks {
		order = order[:bottomUpMaxBlocks]
	}
	defer func() {
		if r := recover(); r != nil {
			// entryDead is the executor's code: a panic in it must not
			// leave the leaf locked (as checkUnique; crit.Recoverable).
			o.release(lb)
			panic(r)
		}
	}()
	target := need
	if target < page.Size/16 {
		target = page.Size / 16
	}
	dead := map[page.ItemPointer]bool{}
	freed := 0
	for _, g := range order {
		for _, c := range cands {
			if c.tid.Block != g.blk {
				continue
			}
			d, err := entryDead(c.tid)
			if err != nil {
				return false, err
			}
			if d {
				dead[c.tid] = true
				freed += c.free
			}
		}
		if freed >= target {
			break
		}
	}
	if len(dead) > 0 {
		e, removed := dropTIDs(p, first, max, func(_ page.OffsetNumber, tid page.ItemPointer) bool { return dead[tid] })
		if removed > 0 {
			if err := o.logLeafEdit(lb, &e, infoDelete, xid); err != nil {
				return false, err
			}
		}
	}
	ok := need
	if ok < page.Size/24 {
		ok = page.Size / 24
	}
	return p.ExactFreeSpace() >= ok, nil
}

// bottomUpCandidates lists every heap TID of the leaf items first..max,
// marking the promising ones, and counts the runs of duplicates.
func bottomUpCandidates(p page.Page, first, max page.OffsetNumber) ([]bottomUpCand, int) {
	var cands []bottomUpCand
	intervals := 0
	for i := first; i <= max; {
		j := i + 1
		for j <= max && !Tuple(itemAt(p, i)).DeleteMarked() && sameKeyImage(itemAt(p, i), itemAt(p, j)) {
			j++
		}
		dup := j > i+1
		if dup {
			intervals++
		}
		for k := i; k < j; k++ {
			t := itemAt(p, k)
			if !isPosting(t) {
				cands = append(cands, bottomUpCand{tid: page.GetItemPointer(t), promising: dup, free: len(t) + page.ItemIDSize})
				continue
			}
			for x, n := 0, nPosting(t); x < n; x++ {
				cands = append(cands, bottomUpCand{tid: postingTID(t, x), promising: dup, free: page.ItemPointerSize})
			}
		}
		i = j
	}
	return cands, intervals
}

// dropTIDs returns the edit that removes from the items first..max of p
// the heap TIDs dead reports (given the item's offset; posting lists
// shrink, items left with none go), laying the page out afresh, and how
// many TIDs it drops.
func dropTIDs(p page.Page, first, max page.OffsetNumber, dead func(page.OffsetNumber, page.ItemPointer) bool) (leafEdit, int) {
	e := leafEdit{rewrite: true}
	removed := 0
	for i := first; i <= max; i++ {
		t := itemAt(p, i)
		if !isPosting(t) {
			if dead(i, page.GetItemPointer(t)) {
				e.deleted = append(e.deleted, i)
				removed++
			}
			continue
		}
		var drop []uint16
		n := nPosting(t)
		for k := 0; k < n; k++ {
			if dead(i, postingTID(t, k)) {
				drop = append(drop, uint16(k))
			}
		}
		removed += len(drop)
		switch {
		case len(drop) == n:
			e.deleted = append(e.deleted, i)
		case len(drop) > 0:
			e.updates = append(e.updates, postingUpdate{off: i, drop: drop})
		}
	}
	return e, removed
}
