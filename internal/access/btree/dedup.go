package btree

import (
	"cmp"
	"encoding/binary"
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
	tids := leafTIDs(nil, t)
	i, found := slices.BinarySearchFunc(tids, sk.tid, page.ItemPointer.Compare)
	if found {
		return nil, o.ix.corrupt("table tid %s from new index tuple overlaps with posting list tuple at offset %d of block %d", sk.tid, off, lb.blk)
	}
	maxTID := tids[len(tids)-1]
	tids = slices.Insert(tids, i, sk.tid)[:len(tids)]
	np := formPosting(t, tids)
	ni := append([]byte(nil), tup...)
	page.PutItemPointer(ni, maxTID)
	return &postingSplit{off: off, nposting: np, newItem: ni}, nil
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
	items, merged := dedupItems(p, first, max, maxPostingSize, singleValue, need)
	if merged == 0 {
		return nil
	}
	var main [2]byte
	binary.LittleEndian.PutUint16(main[:], uint16(merged))
	return o.rewriteLeaf(lb, items, infoDedup, main[:], xid)
}

// dedupItems returns the items first..max of p with runs of equal key
// images merged into posting lists of at most limit bytes, and how many
// posting lists it formed. With singleValue, once five posting lists of
// the limit's size (over 50 TIDs) have been formed or met, the limit drops
// by the free space a single-value split leaves on its left page (4%), and
// after a sixth nothing more is merged: the page is about to split 96:4,
// and the items bound for the right page are left for its own pass
// (_bt_do_singleval, _bt_singleval_fillfactor).
func dedupItems(p page.Page, first, max page.OffsetNumber, limit int, singleValue bool, need int) ([][]byte, int) {
	items := make([][]byte, 0, int(max-first)+1)
	merged, bigOnes := 0, 0
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
		if j == i+1 {
			items = append(items, base)
		} else {
			items = append(items, formPosting(base, tids))
			merged++
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
	return items, merged
}

// rewriteLeaf replaces the data items of the exclusively locked leaf lb
// with items (in order; the high key, the special space and the LSN stay),
// in one WAL record of kind info. BTP_HAS_GARBAGE is cleared.
func (o *op) rewriteLeaf(lb lockedBuf, items [][]byte, info uint8, main []byte, xid uint32) error {
	p := o.page(lb)
	op := getOpaque(p)
	tmp := make(page.Page, page.Size)
	op.flags &^= FlagHasGarbage
	initBtPage(tmp, op, nil)
	off := PHiKey
	if !op.rightmost() {
		tmp.AddItem(itemAt(p, PHiKey), off, false, false, 0, nil)
		off++
	}
	for _, it := range items {
		if tmp.AddItem(it, off, false, false, 0, nil) == page.InvalidOffset {
			return o.ix.corrupt("failed to add item %d while rewriting block %d", off, lb.blk)
		}
		off++
	}
	var d page.Delta
	copy(p[8:], tmp[8:])
	d.Mark(8, p.Lower())
	d.Mark(p.Upper(), page.Size)
	return o.logPages(info, xid, main, []lockedBuf{lb}, []*page.Delta{&d})
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
		items, removed := dropTIDs(p, first, max, func(_ page.OffsetNumber, tid page.ItemPointer) bool { return dead[tid] })
		if removed > 0 {
			var main [2]byte
			binary.LittleEndian.PutUint16(main[:], uint16(removed))
			if err := o.rewriteLeaf(lb, items, infoDelete, main[:], xid); err != nil {
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

// dropTIDs returns the items first..max of p without the heap TIDs dead
// reports (given the item's offset; posting lists shrink, items left with
// none go), and how many TIDs it dropped.
func dropTIDs(p page.Page, first, max page.OffsetNumber, dead func(page.OffsetNumber, page.ItemPointer) bool) ([][]byte, int) {
	items := make([][]byte, 0, int(max-first)+1)
	removed := 0
	var keep []page.ItemPointer
	for i := first; i <= max; i++ {
		t := itemAt(p, i)
		if !isPosting(t) {
			if dead(i, page.GetItemPointer(t)) {
				removed++
				continue
			}
			items = append(items, t)
			continue
		}
		keep = keep[:0]
		n := nPosting(t)
		for k := 0; k < n; k++ {
			if tid := postingTID(t, k); !dead(i, tid) {
				keep = append(keep, tid)
			}
		}
		removed += n - len(keep)
		switch {
		case len(keep) == n:
			items = append(items, t)
		case len(keep) > 0:
			items = append(items, formPosting(t, keep))
		}
	}
	return items, removed
}
