package btree

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// leafEdit is a change to a leaf's data items as DELETE and VACUUM records
// log it (xl_btree_delete / xl_btree_vacuum): the items removed, the
// posting lists that lose some of their TIDs, and (tidal's delete marks)
// the items whose mark is cleared. The same apply runs when the change is
// made and in redo, so a redone page is the page that was logged.
type leafEdit struct {
	cleared []page.OffsetNumber // delete marks cleared, before anything else
	deleted []page.OffsetNumber // ascending
	updates []postingUpdate     // ascending by off, none of them deleted
	// rewrite lays the remaining items out afresh (the page is rebuilt,
	// which clears BTP_HAS_GARBAGE); otherwise the items are deleted in
	// place (PageIndexMultiDelete) and clearGarbage says whether the flag
	// goes.
	rewrite      bool
	clearGarbage bool
}

// postingUpdate is a posting list at off losing the TIDs at the positions
// drop (ascending; xl_btree_update's ndeletedtids and array).
type postingUpdate struct {
	off  page.OffsetNumber
	drop []uint16
}

func (e *leafEdit) empty() bool {
	return len(e.cleared) == 0 && len(e.deleted) == 0 && len(e.updates) == 0 && !e.clearGarbage
}

// apply makes the change on the leaf p.
func (e *leafEdit) apply(p page.Page) error {
	for _, off := range e.cleared {
		markItem(p, off, false, nil)
	}
	if !e.rewrite {
		if len(e.deleted) > 0 {
			p.DeleteItems(e.deleted, nil)
		}
		if e.clearGarbage {
			setPageFlags(p, pageFlags(p)&^FlagHasGarbage, nil)
		}
		return nil
	}
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	items := make([][]byte, 0, int(max-first)+1)
	del, upd := e.deleted, e.updates
	var keep []page.ItemPointer
	for off := first; off <= max; off++ {
		if len(del) > 0 && del[0] == off {
			del = del[1:]
			continue
		}
		t := itemAt(p, off)
		if len(upd) > 0 && upd[0].off == off {
			u := upd[0]
			upd = upd[1:]
			if !isPosting(t) {
				return fmt.Errorf("posting list update of item %d, which is not a posting list", off)
			}
			keep = keep[:0]
			drop := u.drop
			for i, n := 0, nPosting(t); i < n; i++ {
				if len(drop) > 0 && int(drop[0]) == i {
					drop = drop[1:]
					continue
				}
				keep = append(keep, postingTID(t, i))
			}
			if len(keep) == 0 || len(drop) > 0 {
				return fmt.Errorf("posting list update of item %d drops %d of its %d TIDs", off, len(u.drop), nPosting(t))
			}
			t = formPosting(t, keep)
		}
		items = append(items, t)
	}
	if len(del) > 0 || len(upd) > 0 {
		return fmt.Errorf("leaf edit names offsets beyond the page's last item %d", max)
	}
	return layoutLeaf(p, items)
}

// Main data flags of a DELETE or VACUUM record.
const (
	editRewrite      = 1
	editClearGarbage = 2
)

// encode returns the record's main data (ndeleted, nupdated, ncleared
// u16, flags u8) and block data (the deleted offsets, the cleared
// offsets, then per update its offset, count and TID positions).
func (e *leafEdit) encode(dst []byte) (main, data []byte) {
	main = binary.LittleEndian.AppendUint16(nil, uint16(len(e.deleted)))
	main = binary.LittleEndian.AppendUint16(main, uint16(len(e.updates)))
	main = binary.LittleEndian.AppendUint16(main, uint16(len(e.cleared)))
	var fl byte
	if e.rewrite {
		fl |= editRewrite
	}
	if e.clearGarbage {
		fl |= editClearGarbage
	}
	main = append(main, fl)
	data = dst[:0]
	for _, off := range e.deleted {
		data = binary.LittleEndian.AppendUint16(data, off)
	}
	for _, off := range e.cleared {
		data = binary.LittleEndian.AppendUint16(data, off)
	}
	for _, u := range e.updates {
		data = binary.LittleEndian.AppendUint16(data, u.off)
		data = binary.LittleEndian.AppendUint16(data, uint16(len(u.drop)))
		for _, i := range u.drop {
			data = binary.LittleEndian.AppendUint16(data, i)
		}
	}
	return main, data
}

// decodeLeafEdit reads what encode wrote.
func decodeLeafEdit(main, data []byte) (leafEdit, error) {
	var e leafEdit
	if len(main) < 7 {
		return e, fmt.Errorf("short main data (%d bytes)", len(main))
	}
	nd := int(binary.LittleEndian.Uint16(main))
	nu := int(binary.LittleEndian.Uint16(main[2:]))
	nc := int(binary.LittleEndian.Uint16(main[4:]))
	e.rewrite = main[6]&editRewrite != 0
	e.clearGarbage = main[6]&editClearGarbage != 0
	r := u16Reader{b: data}
	e.deleted = r.offsets(nd)
	e.cleared = r.offsets(nc)
	for i := 0; i < nu && r.err == nil; i++ {
		u := postingUpdate{off: r.next()}
		n := int(r.next())
		for j := 0; j < n; j++ {
			u.drop = append(u.drop, r.next())
		}
		e.updates = append(e.updates, u)
	}
	if r.err != nil || len(r.b) != 0 {
		return e, fmt.Errorf("malformed block data (%d bytes)", len(data))
	}
	return e, nil
}

// u16Reader reads little-endian u16s, remembering a short read.
type u16Reader struct {
	b   []byte
	err error
}

func (r *u16Reader) next() uint16 {
	if len(r.b) < 2 {
		r.err = fmt.Errorf("short data")
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v
}

func (r *u16Reader) offsets(n int) []page.OffsetNumber {
	if n == 0 {
		return nil
	}
	out := make([]page.OffsetNumber, n)
	for i := range out {
		out[i] = r.next()
	}
	return out
}

// dedupInterval is a run of nitems leaf items from base merged into one
// posting list (BTDedupInterval).
type dedupInterval struct {
	base   page.OffsetNumber
	nitems uint16
}

// applyDedup merges each interval's items of leaf p into one posting list
// and lays the page out afresh (the change of a DEDUP record).
func applyDedup(p page.Page, intervals []dedupInterval) error {
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	items := make([][]byte, 0, int(max-first)+1)
	var tids []page.ItemPointer
	for off := first; off <= max; {
		if len(intervals) == 0 || intervals[0].base != off {
			items = append(items, itemAt(p, off))
			off++
			continue
		}
		iv := intervals[0]
		intervals = intervals[1:]
		end := off + page.OffsetNumber(iv.nitems)
		if iv.nitems < 2 || end-1 > max {
			return fmt.Errorf("dedup interval %d+%d beyond the page's last item %d", iv.base, iv.nitems, max)
		}
		base := itemAt(p, off)
		tids = tids[:0]
		for ; off < end; off++ {
			tids = leafTIDs(tids, itemAt(p, off))
		}
		items = append(items, formPosting(base, tids))
	}
	if len(intervals) > 0 {
		return fmt.Errorf("dedup interval at %d beyond the page's last item %d", intervals[0].base, max)
	}
	return layoutLeaf(p, items)
}

func encodeDedup(intervals []dedupInterval) (main, data []byte) {
	main = binary.LittleEndian.AppendUint16(nil, uint16(len(intervals)))
	for _, iv := range intervals {
		data = binary.LittleEndian.AppendUint16(data, iv.base)
		data = binary.LittleEndian.AppendUint16(data, iv.nitems)
	}
	return main, data
}

func decodeDedup(main, data []byte) ([]dedupInterval, error) {
	if len(main) < 2 {
		return nil, fmt.Errorf("short main data (%d bytes)", len(main))
	}
	n := int(binary.LittleEndian.Uint16(main))
	if len(data) != 4*n {
		return nil, fmt.Errorf("malformed block data (%d bytes for %d intervals)", len(data), n)
	}
	out := make([]dedupInterval, n)
	for i := range out {
		out[i] = dedupInterval{base: binary.LittleEndian.Uint16(data[4*i:]), nitems: binary.LittleEndian.Uint16(data[4*i+2:])}
	}
	return out, nil
}

// layoutLeaf replaces the data items of leaf p with items (in order; the
// high key, the special space and the LSN stay), clearing BTP_HAS_GARBAGE.
func layoutLeaf(p page.Page, items [][]byte) error {
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
			return fmt.Errorf("failed to add item %d", off)
		}
		off++
	}
	copy(p[8:], tmp[8:])
	return nil
}
