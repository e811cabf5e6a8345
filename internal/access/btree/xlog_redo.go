package btree

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
)

// redoPages redoes a Btree record's logical page changes (btree_redo):
// each block is read through wal.ReadForRedo, which says whether its page
// still lacks the change (no image restored, LSN before the record), and
// changed with the same functions the original change used.
func redoPages(pool *buffer.Pool, d *wal.Decoded) error {
	logical := false
	for i := range d.Blocks {
		logical = logical || d.Blocks[i].HasData()
	}
	if !logical {
		// Images only, or a delta record (NEWROOT, page deletion, marks,
		// builds, or a log written before these records were logical).
		return nil
	}
	switch d.Info & 0xF0 {
	case infoInsertLeaf, infoInsertUpper, infoInsertPost:
		return redoInsert(pool, d)
	case infoSplitL, infoSplitR:
		return redoSplit(pool, d)
	case infoDedup:
		return redoBlock(pool, d, 0, func(p page.Page, data []byte) error {
			intervals, err := decodeDedup(d.Main, data)
			if err != nil {
				return err
			}
			return applyDedup(p, intervals)
		})
	case infoMarkHalf:
		hd, err := decodeHalfDead(d.Main)
		if err != nil {
			return err
		}
		if err := redoBlock(pool, d, 0, func(p page.Page, _ []byte) error { return hd.buildLeaf(p) }); err != nil {
			return err
		}
		return redoBlock(pool, d, 1, func(p page.Page, _ []byte) error {
			if hd.poff+1 > p.MaxOffset() {
				return fmt.Errorf("parent has no pivot at %d", hd.poff+1)
			}
			hd.applyParent(p)
			return nil
		})
	case infoDelete, infoVacuum:
		return redoBlock(pool, d, 0, func(p page.Page, data []byte) error {
			e, err := decodeLeafEdit(d.Main, data)
			if err != nil {
				return err
			}
			return e.apply(p)
		})
	}
	return fmt.Errorf("unexpected block data in a %s record", RecordName(d.Info))
}

// redoBlock applies change to block i of d when its page needs it.
func redoBlock(pool *buffer.Pool, d *wal.Decoded, i int, change func(p page.Page, data []byte) error) error {
	if i >= len(d.Blocks) {
		return fmt.Errorf("%s record without block %d", RecordName(d.Info), i)
	}
	buf, p, redo, err := wal.ReadForRedo(pool, d, i)
	if err != nil {
		return err
	}
	if redo {
		if err = change(p, d.Blocks[i].Data); err != nil {
			err = fmt.Errorf("%s of block %d: %w", RecordName(d.Info), d.Blocks[i].Tag.Block, err)
		}
	}
	wal.FinishRedo(pool, buf, d, redo && err == nil)
	return err
}

func redoInsert(pool *buffer.Pool, d *wal.Decoded) error {
	if len(d.Main) < 2 {
		return fmt.Errorf("short %s record", RecordName(d.Info))
	}
	off := binary.LittleEndian.Uint16(d.Main)
	post := d.Info&0xF0 == infoInsertPost
	err := redoBlock(pool, d, 0, func(p page.Page, tup []byte) error {
		if !post {
			return insertItem(p, off, tup, nil)
		}
		if off < 2 || off-1 > p.MaxOffset() {
			return fmt.Errorf("posting split at impossible offset %d", off)
		}
		np, ni, ok := swapPosting(itemAt(p, off-1), tup, page.GetItemPointer(tup))
		if !ok {
			return fmt.Errorf("posting list at offset %d already holds the new TID", off-1)
		}
		return insertItem(p, off, ni, &postingSplit{off: off - 1, nposting: np})
	})
	if err != nil || d.Info&0xF0 != infoInsertUpper {
		return err
	}
	return redoBlock(pool, d, 1, func(p page.Page, _ []byte) error {
		clearIncompleteSplit(p)
		return nil
	})
}

func redoSplit(pool *buffer.Pool, d *wal.Decoded) error {
	sp, err := decodeSplitPlan(d.Main)
	if err != nil {
		return err
	}
	if len(d.Blocks) < 2 {
		return fmt.Errorf("split record with %d blocks", len(d.Blocks))
	}
	left, right := d.Blocks[0].Tag.Block, d.Blocks[1].Tag.Block
	next := PNone
	if sp.flags&splitHasSibling != 0 {
		if len(d.Blocks) < 3 {
			return fmt.Errorf("split record without its right sibling")
		}
		next = d.Blocks[2].Tag.Block
	}
	err = redoBlock(pool, d, 0, func(p page.Page, data []byte) error {
		return redoSplitLeft(p, &sp, right, data)
	})
	if err != nil {
		return err
	}
	err = redoBlock(pool, d, 1, func(p page.Page, data []byte) error {
		items, err := splitTuples(data)
		if err != nil {
			return err
		}
		return buildPage(p, sp.rightOpaque(left, next), items)
	})
	if err != nil {
		return err
	}
	if sp.flags&splitHasSibling != 0 {
		err = redoBlock(pool, d, 2, func(p page.Page, _ []byte) error {
			setPagePrev(p, right, nil)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if sp.flags&splitHasChild != 0 {
		return redoBlock(pool, d, len(d.Blocks)-1, func(p page.Page, _ []byte) error {
			clearIncompleteSplit(p)
			return nil
		})
	}
	return nil
}

// redoSplitLeft rebuilds the left half from the page before the split,
// the logged high key and, when it stayed left or a posting list was
// split, the new item as formed.
func redoSplitLeft(p page.Page, sp *splitPlan, right page.BlockNumber, data []byte) error {
	if len(data) < 8 || tupSize(data) > len(data) {
		return fmt.Errorf("split record without the left high key")
	}
	n := tupSize(data)
	lhikey, newItem := data[:n], data[n:]
	var tup, nposting []byte
	if sp.flags&splitNewItemLogged != 0 {
		if len(newItem) < 8 {
			return fmt.Errorf("split record without its new item")
		}
		tup = newItem
	}
	op := getOpaque(p)
	first, max := op.firstData(), p.MaxOffset()
	if sp.psOff != 0 {
		if tup == nil || sp.psOff < first || sp.psOff > max {
			return fmt.Errorf("posting split of impossible item %d", sp.psOff)
		}
		var ok bool
		if nposting, tup, ok = swapPosting(itemAt(p, sp.psOff), tup, page.GetItemPointer(tup)); !ok {
			return fmt.Errorf("posting list at offset %d already holds the new TID", sp.psOff)
		}
	}
	items, _ := splitItems(p, first, max, sp.off, tup, sp.psOff, nposting)
	if int(sp.k) > len(items) {
		return fmt.Errorf("split point %d beyond the page's %d items", sp.k, len(items))
	}
	return buildPage(p, sp.leftOpaque(op.prev, right), append([][]byte{lhikey}, items[:sp.k]...))
}
