package btree

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// splitPlan is what a SPLIT_L or SPLIT_R record's main data says about a
// split (xl_btree_split, plus what tidal's redo keeps byte for byte: the
// flags and vacuum cycle id the halves get).
type splitPlan struct {
	level  uint32
	k      uint16            // items that stay left (firstright's index)
	off    page.OffsetNumber // where the new item went on the original page
	psOff  page.OffsetNumber // the posting list a posting split rewrote, or 0
	lflags uint16            // the halves' flags (BTP_INCOMPLETE_SPLIT aside)
	cycle  uint16
	flags  uint8 // splitHas*
}

const (
	splitHasSibling    = 1 // block 2 is the old right sibling (its left link)
	splitHasChild      = 2 // the last block is the child whose split completes
	splitNewItemLogged = 4 // the left block's data holds the new item after the high key
	splitPlanSize      = 15
)

func (sp *splitPlan) encode() []byte {
	b := make([]byte, splitPlanSize)
	binary.LittleEndian.PutUint32(b[0:], sp.level)
	binary.LittleEndian.PutUint16(b[4:], sp.k)
	binary.LittleEndian.PutUint16(b[6:], sp.off)
	binary.LittleEndian.PutUint16(b[8:], sp.psOff)
	binary.LittleEndian.PutUint16(b[10:], sp.lflags)
	binary.LittleEndian.PutUint16(b[12:], sp.cycle)
	b[14] = sp.flags
	return b
}

func decodeSplitPlan(b []byte) (splitPlan, error) {
	if len(b) < splitPlanSize {
		return splitPlan{}, fmt.Errorf("short split record (%d bytes)", len(b))
	}
	return splitPlan{
		level:  binary.LittleEndian.Uint32(b[0:]),
		k:      binary.LittleEndian.Uint16(b[4:]),
		off:    binary.LittleEndian.Uint16(b[6:]),
		psOff:  binary.LittleEndian.Uint16(b[8:]),
		lflags: binary.LittleEndian.Uint16(b[10:]),
		cycle:  binary.LittleEndian.Uint16(b[12:]),
		flags:  b[14],
	}, nil
}

func (sp *splitPlan) leftOpaque(prev, right page.BlockNumber) opaque {
	return opaque{prev: prev, next: right, level: sp.level, flags: sp.lflags | FlagIncompleteSplit, cycle: sp.cycle}
}

func (sp *splitPlan) rightOpaque(left, next page.BlockNumber) opaque {
	return opaque{prev: left, next: next, level: sp.level, flags: sp.lflags, cycle: sp.cycle}
}

// splitItems lists the data items first..max of the page being split with
// the new item tup placed at off and, in a posting-list split, the list at
// psOff replaced by nposting, and where tup went. Redo passes nil for
// whichever of the two the left half does not need.
func splitItems(orig page.Page, first, max, off page.OffsetNumber, tup []byte, psOff page.OffsetNumber, nposting []byte) ([][]byte, int) {
	items := make([][]byte, 0, int(max-first)+2)
	newPos := -1
	for i := first; i <= max; i++ {
		if i == off {
			newPos = len(items)
			items = append(items, tup)
		}
		if psOff != 0 && i == psOff {
			items = append(items, nposting)
			continue
		}
		items = append(items, itemAt(orig, i))
	}
	if newPos < 0 {
		newPos = len(items)
		items = append(items, tup)
	}
	return items, newPos
}

// buildPage lays out p afresh with opaque op and items from P_HIKEY on,
// keeping the page's LSN.
func buildPage(p page.Page, op opaque, items [][]byte) error {
	tmp := make(page.Page, page.Size)
	initBtPage(tmp, op, nil)
	for i, it := range items {
		if it == nil {
			return fmt.Errorf("item %d of the new page is missing", i+1)
		}
		if tmp.AddItem(it, page.OffsetNumber(i+1), false, false, 0, nil) == page.InvalidOffset {
			return fmt.Errorf("failed to add item %d to the new page", i+1)
		}
	}
	copy(p[8:], tmp[8:])
	return nil
}

// concatItems is the block data of a page's tuples, read back by
// splitTuples.
func concatItems(items [][]byte) []byte {
	n := 0
	for _, it := range items {
		n += len(it)
	}
	out := make([]byte, 0, n)
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

// splitTuples cuts concatenated index tuples apart by their sizes.
func splitTuples(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, fmt.Errorf("truncated index tuple")
		}
		n := tupSize(b)
		if n < 8 || n > len(b) {
			return nil, fmt.Errorf("index tuple of impossible size %d", n)
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	return out, nil
}
