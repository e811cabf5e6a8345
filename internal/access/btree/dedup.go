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
func (o *op) makeRoom(lb lockedBuf, need int, simpleOnly, uniqueDup bool, hints *InsertHints, xid uint32) error {
	if deleted, err := o.simpleDelete(lb, xid); err != nil || (deleted && o.page(lb).FreeSpace() >= need) {
		return err
	}
	if simpleOnly {
		return nil
	}
	if hints != nil && hints.EntryDead != nil && (hints.Unchanged || uniqueDup) {
		ok, err := o.bottomUpPass(lb, need, hints.EntryDead, xid)
		if err != nil || ok {
			return err
		}
	}
	if o.ix.dedup {
		return o.dedupPass(lb, xid)
	}
	return nil
}

// dedupPass merges each run of leaf items with the same key image into
// posting lists of at most maxPostingSize bytes (_bt_dedup_pass), in one
// DEDUP record. Delete-marked items stay as they are.
func (o *op) dedupPass(lb lockedBuf, xid uint32) error {
	p := o.page(lb)
	op := getOpaque(p)
	items, merged := dedupItems(p, op.firstData(), p.MaxOffset(), maxPostingSize)
	if merged == 0 {
		return nil
	}
	var main [2]byte
	binary.LittleEndian.PutUint16(main[:], uint16(merged))
	return o.rewriteLeaf(lb, items, infoDedup, main[:], xid)
}

// dedupItems returns the items first..max of p with runs of equal key
// images merged into posting lists of at most limit bytes, and how many
// posting lists it formed.
func dedupItems(p page.Page, first, max page.OffsetNumber, limit int) ([][]byte, int) {
	items := make([][]byte, 0, int(max-first)+1)
	merged := 0
	var tids []page.ItemPointer
	for i := first; i <= max; {
		base := itemAt(p, i)
		j := i + 1
		if !Tuple(base).DeleteMarked() {
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

// bottomUpPass deletes the entries of dead row versions among the
// duplicates on the full leaf lb (_bt_bottomupdel_pass): the TIDs of
// items whose key occurs more than once on the page are grouped by table
// block, the blocks with the most such TIDs asked first, at most
// bottomUpMaxBlocks of them, each TID through entryDead. It succeeds when
// the page then has room for max(need, BLCKSZ/16) bytes; the deletions
// are kept (one DELETE record) either way.
func (o *op) bottomUpPass(lb lockedBuf, need int, entryDead func(page.ItemPointer) (bool, error), xid uint32) (bool, error) {
	p := o.page(lb)
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	perBlock := map[page.BlockNumber][]page.ItemPointer{}
	for i := first; i <= max; i++ {
		t := itemAt(p, i)
		dupe := isPosting(t) || (i > first && sameKeyImage(itemAt(p, i-1), t)) || (i < max && sameKeyImage(t, itemAt(p, i+1)))
		if !dupe || Tuple(t).DeleteMarked() {
			continue
		}
		for _, tid := range leafTIDs(nil, t) {
			perBlock[tid.Block] = append(perBlock[tid.Block], tid)
		}
	}
	if len(perBlock) == 0 {
		return false, nil
	}
	blocks := make([]page.BlockNumber, 0, len(perBlock))
	for b := range perBlock {
		blocks = append(blocks, b)
	}
	slices.SortFunc(blocks, func(a, b page.BlockNumber) int {
		if c := cmp.Compare(len(perBlock[b]), len(perBlock[a])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(blocks) > bottomUpMaxBlocks {
		blocks = blocks[:bottomUpMaxBlocks]
	}
	defer func() {
		if r := recover(); r != nil {
			// entryDead is the executor's code: a panic in it must not
			// leave the leaf locked (as checkUnique; crit.Recoverable).
			o.release(lb)
			panic(r)
		}
	}()
	dead := map[page.ItemPointer]bool{}
	for _, b := range blocks {
		for _, tid := range perBlock[b] {
			d, err := entryDead(tid)
			if err != nil {
				return false, err
			}
			if d {
				dead[tid] = true
			}
		}
	}
	if len(dead) == 0 {
		return false, nil
	}
	items, removed := dropTIDs(p, first, max, func(tid page.ItemPointer) bool { return dead[tid] })
	if removed == 0 {
		return false, nil
	}
	var main [2]byte
	binary.LittleEndian.PutUint16(main[:], uint16(removed))
	if err := o.rewriteLeaf(lb, items, infoDelete, main[:], xid); err != nil {
		return false, err
	}
	target := need
	if target < page.Size/16 {
		target = page.Size / 16
	}
	return p.FreeSpace() >= target, nil
}

// dropTIDs returns the items first..max of p without the heap TIDs dead
// reports (posting lists shrink; items left with none go), and how many
// TIDs it dropped.
func dropTIDs(p page.Page, first, max page.OffsetNumber, dead func(page.ItemPointer) bool) ([][]byte, int) {
	items := make([][]byte, 0, int(max-first)+1)
	removed := 0
	var keep []page.ItemPointer
	for i := first; i <= max; i++ {
		t := itemAt(p, i)
		if !isPosting(t) {
			if dead(page.GetItemPointer(t)) {
				removed++
				continue
			}
			items = append(items, t)
			continue
		}
		keep = keep[:0]
		n := nPosting(t)
		for k := 0; k < n; k++ {
			if tid := postingTID(t, k); !dead(tid) {
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
