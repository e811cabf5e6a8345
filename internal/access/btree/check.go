package btree

import (
	"bytes"
	"fmt"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Check verifies the tree's structural invariants, like amcheck's
// bt_index_parent_check: on every level, sibling links agree and the
// pages cover the level left to right; items on each page are strictly
// ascending, above the page's low key and at most its high key; each
// level's downlinks name exactly the pages of the level below, in order,
// and each downlink's separator equals the left neighbour's high key.
// Deleted pages must be unlinked; a half-dead leaf (an interrupted
// deletion) may remain linked. It must not run concurrently with changes
// to the index.
func (ix *Index) Check(u *stats.Usage) error {
	o := ix.newOp(u)
	m, err := ix.getMeta(u, true)
	if err != nil {
		return err
	}
	if m.root == PNone {
		return nil
	}
	// What the level above says about this level: the pages in order, and
	// the high key each must have (nil: it must be rightmost).
	var want []page.BlockNumber
	var wantSep [][]byte
	level := m.level
	blk := m.root
	for {
		var downs []page.BlockNumber
		var seps [][]byte
		prev := PNone
		var lowkey []byte
		n := 0
		for blk != PNone {
			lb, err := o.read(blk, false)
			if err != nil {
				return err
			}
			p := o.page(lb)
			op := getOpaque(p)
			if op.flags&FlagHalfDead != 0 {
				// Left by an interrupted page deletion: still linked to
				// its siblings, but its downlink is gone and its right
				// sibling covers its key space.
				if op.level != level || level != 0 || op.prev != prev || op.rightmost() || p.MaxOffset() >= op.firstData() {
					o.release(lb)
					return ix.corrupt("half-dead block %d is not an empty non-rightmost leaf linked from %d", blk, prev)
				}
				o.release(lb)
				prev = blk
				blk = op.next
				continue
			}
			if op.flags&FlagDeleted != 0 {
				o.release(lb)
				return ix.corrupt("level %d: deleted block %d is still linked from block %d", level, blk, prev)
			}
			err = o.checkPage(lb, p, level, prev, lowkey)
			var hk []byte
			if err == nil {
				if !op.rightmost() {
					hk = append([]byte(nil), itemAt(p, PHiKey)...)
				}
				if !op.isLeaf() {
					for off := op.firstData(); off <= p.MaxOffset(); off++ {
						t := itemAt(p, off)
						if off > op.firstData() {
							seps = append(seps, append([]byte(nil), t...))
						}
						downs = append(downs, downlink(t))
					}
					if hk != nil {
						seps = append(seps, hk) // our last child's high key is ours
					}
				}
			}
			o.release(lb)
			if err != nil {
				return err
			}
			if want != nil {
				if n >= len(want) || want[n] != blk {
					return ix.corrupt("level %d: block %d is not the next downlink of level %d", level, blk, level+1)
				}
				if (wantSep[n] == nil) != (hk == nil) || (hk != nil && !bytes.Equal(hk[4:], wantSep[n][4:])) {
					return ix.corrupt("level %d: high key of block %d does not match its parent's separator", level, blk)
				}
			}
			n++
			prev, lowkey = blk, hk
			blk = op.next
		}
		if want != nil && n != len(want) {
			return ix.corrupt("level %d has %d pages, its parent level has %d downlinks", level, n, len(want))
		}
		if level == 0 {
			return nil
		}
		if len(downs) == 0 {
			return ix.corrupt("internal level %d has no downlinks", level)
		}
		want = downs
		wantSep = make([][]byte, len(downs))
		copy(wantSep, seps)
		level--
		blk = downs[0]
	}
}

// checkPage verifies one page's own invariants.
func (o *op) checkPage(lb lockedBuf, p page.Page, level uint32, prev page.BlockNumber, lowkey []byte) error {
	ix := o.ix
	op := getOpaque(p)
	if op.level != level {
		return ix.corrupt("block %d has level %d, expected %d", lb.blk, op.level, level)
	}
	if op.prev != prev {
		return ix.corrupt("block %d has left link %d, expected %d", lb.blk, op.prev, prev)
	}
	if op.isLeaf() != (level == 0) {
		return ix.corrupt("block %d: leaf flag does not match level %d", lb.blk, level)
	}
	if op.incomplete() {
		return ix.corrupt("block %d has an incomplete split", lb.blk)
	}
	if err := checkLayout(p); err != nil {
		return ix.corrupt("block %d: %v", lb.blk, err)
	}
	first, max := op.firstData(), p.MaxOffset()
	if !op.isLeaf() && max < first {
		return ix.corrupt("internal block %d is empty", lb.blk)
	}
	var prevKey *scanKey
	for off := first; off <= max; off++ {
		t := itemAt(p, off)
		if tupSize(t) != len(t) {
			return ix.corrupt("block %d item %d: tuple size %d, line pointer %d", lb.blk, off, tupSize(t), len(t))
		}
		if isPosting(t) {
			if !op.isLeaf() {
				return ix.corrupt("internal block %d item %d is a posting list", lb.blk, off)
			}
			if err := checkPosting(t); err != nil {
				return ix.corrupt("block %d item %d: %v", lb.blk, off, err)
			}
		}
		if !op.isLeaf() && off == first {
			if ix.natts(t) != 0 {
				return ix.corrupt("internal block %d: first item is not minus infinity", lb.blk)
			}
			continue
		}
		sk, err := o.tupleKey(t)
		if err != nil {
			return err
		}
		if prevKey != nil {
			c, err := ix.compare(prevKey, t, o.scratch)
			if err != nil {
				return err
			}
			if c >= 0 {
				return ix.corrupt("block %d: item %d is not above item %d", lb.blk, off, off-1)
			}
		}
		if lowkey != nil {
			c, err := ix.compare(sk, lowkey, o.scratch)
			if err != nil {
				return err
			}
			if c <= 0 {
				return ix.corrupt("block %d: item %d is not above the page's low key", lb.blk, off)
			}
		}
		if !op.rightmost() {
			c, err := ix.compare(sk, itemAt(p, PHiKey), o.scratch)
			if err != nil {
				return err
			}
			if c > 0 {
				return ix.corrupt("block %d: item %d is above the high key", lb.blk, off)
			}
		}
		if isPosting(t) {
			sk.tid = maxHeapTID(t) // the next item must be above the list's last TID
		}
		prevKey = sk
	}
	return nil
}

// checkLayout verifies the page header and line pointers, so that items
// can be read at all: pd_lower and pd_upper in order, the special space
// where a B-tree keeps it, and every item inside the tuple space.
func checkLayout(p page.Page) error {
	lower, upper := p.Lower(), p.Upper()
	if p.Special() != specialOff || lower < page.HeaderSize || lower > upper || upper > specialOff || (lower-page.HeaderSize)%page.ItemIDSize != 0 {
		return fmt.Errorf("impossible page layout: pd_lower %d, pd_upper %d, pd_special %d", lower, upper, p.Special())
	}
	for off := page.OffsetNumber(1); off <= p.MaxOffset(); off++ {
		it := p.Item(off)
		if it.Off < upper || it.Off+it.Len > specialOff || it.Len < tupleHeaderSize {
			return fmt.Errorf("item %d of %d lies outside the tuple space (offset %d, length %d)", off, p.MaxOffset(), it.Off, it.Len)
		}
	}
	return nil
}

// tupleKey turns a stored tuple into a search key positioned exactly at it.
func (o *op) tupleKey(t []byte) (*scanKey, error) {
	ix := o.ix
	n := ix.natts(t)
	keys := make([]datum.Datum, n)
	if err := ix.deform(t, keys, n); err != nil {
		return nil, err
	}
	sk := &scanKey{keys: keys, tail: tailMinus}
	if tid, ok := heapTID(t); ok && n == ix.nkeys {
		sk.tail, sk.tid = tailExact, tid
	}
	return sk, nil
}
