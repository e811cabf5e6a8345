package btree

import (
	"encoding/binary"
	"github.com/tidal-db/tidal/internal/xact/predicate"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Bound limits a scan. Key holds values for a prefix of the key columns
// (at least one); Inclusive says whether entries equal to it on that prefix
// are included. A NULL value in Key matches NULL entries (IS NULL); a
// bounded column otherwise never yields NULL entries.
type Bound struct {
	Key       []datum.Datum
	Inclusive bool
}

// Cursor returns the entries of a range scan in index order (key, then
// heap TID). It reads one leaf page at a time: the matching entries are
// copied out under a brief share lock and pin (_bt_readpage), then the
// page is released and the right link followed on demand. Entries present
// when the scan started and not deleted meanwhile are seen exactly once,
// in index order. Entries inserted concurrently may or may not be seen,
// and may come out of order: when VACUUM deletes an empty page the scan
// has already passed, the page's key space goes to its right sibling, so a
// later insert of a key from it lands ahead of the scan (as in PostgreSQL;
// a snapshot taken before the scan started cannot see such an entry, and
// callers must not rely on seeing their own concurrent inserts in order).
//
// A Cursor belongs to one goroutine.
type Cursor struct {
	ix   *Index
	o    *op
	lo   *scanKey
	hi   *scanKey
	full bool   // no bounds at all: NULL entries are returned too
	rej  []bool // rej[i]: NULL in column i is outside the bounds

	// the current page's matching entries
	buf  []byte
	ends []int32
	pos  int
	// offs[i] is entry i's line pointer; lsn the page's LSN when read;
	// killed the entries KillPrior marked (kill.go).
	offs   []page.OffsetNumber
	lsn    page.LSN
	killed []int32

	// inline storage, so that a point lookup allocates only the Cursor
	opv     op
	loKey   scanKey
	hiKey   scanKey
	rejArr  [4]bool
	bufArr  [64]byte
	endsArr [4]int32

	cur     int32            // the entry Next returned last
	next    page.BlockNumber // right link still to read; PNone when done
	blk     page.BlockNumber // the leaf the current entries came from (diagnostics)
	started bool
	done    bool
	err     error

	// SSI, when set, is the serializable transaction scanning: it gets a
	// SIREAD lock on each leaf page read (on the index when it is empty).
	SSI *predicate.Xact
}

// Scan starts a scan of the entries between lower and upper (nil =
// unbounded). u, which may be nil, is charged with the buffer accesses.
func (ix *Index) Scan(u *stats.Usage, lower, upper *Bound) *Cursor {
	c := &Cursor{ix: ix, full: lower == nil && upper == nil}
	c.opv.init(ix, u)
	c.o = &c.opv
	c.buf, c.ends = c.bufArr[:0], c.endsArr[:0]
	nc := 0
	var lk, hk []datum.Datum
	if lower != nil {
		lk = lower.Key
		nc = len(lk)
		c.loKey = scanKey{keys: lk, tail: tailMinus}
		if !lower.Inclusive {
			c.loKey.tail = tailPlus
		}
		c.lo = &c.loKey
	}
	if upper != nil {
		hk = upper.Key
		nc = max(nc, len(hk))
		c.hiKey = scanKey{keys: hk, tail: tailPlus}
		if !upper.Inclusive {
			c.hiKey.tail = tailMinus
		}
		c.hi = &c.hiKey
	}
	if (lower != nil && (len(lk) == 0 || len(lk) > ix.nkeys)) || (upper != nil && (len(hk) == 0 || len(hk) > ix.nkeys)) {
		c.err = pgerr.Errorf(pgerr.InternalError, "btree: scan bounds of index %q must have 1..%d values", ix.opt.Name, ix.nkeys)
		c.done = true
		return c
	}
	if !c.full {
		if nc <= len(c.rejArr) {
			c.rej = c.rejArr[:nc]
		} else {
			c.rej = make([]bool, nc)
		}
		for i := range c.rej {
			c.rej[i] = !(i < len(lk) && lk[i].IsNull()) && !(i < len(hk) && hk[i].IsNull())
		}
	}
	return c
}

// ScanEqual is Scan(u, &Bound{key, true}, &Bound{key, true}): the entries
// whose leading columns equal key.
func (ix *Index) ScanEqual(u *stats.Usage, key []datum.Datum) *Cursor {
	b := Bound{Key: key, Inclusive: true}
	return ix.Scan(u, &b, &b)
}

// Next returns the next entry: its heap TID and the index tuple (valid
// until the next call; decode it with Index.Keys). ok is false at the end.
func (c *Cursor) Next() (tid page.ItemPointer, tup Tuple, ok bool, err error) {
	for c.pos >= len(c.ends) {
		if c.done || c.err != nil {
			return page.ItemPointer{}, nil, false, c.err
		}
		if err := c.fetch(); err != nil {
			c.err = err
			c.done = true
			return page.ItemPointer{}, nil, false, err
		}
	}
	start := int32(0)
	if c.pos > 0 {
		start = c.ends[c.pos-1]
	}
	c.cur = int32(c.pos)
	t := Tuple(c.buf[start:c.ends[c.pos]:c.ends[c.pos]])
	c.pos++
	return page.GetItemPointer(t), t, true, nil
}

// Close ends the scan (it holds no locks or pins between calls; Close only
// drops its buffers).
func (c *Cursor) Close() {
	c.killItems()
	c.done = true
	c.buf, c.ends = nil, nil
	c.pos = 0
}

// fetch loads the matching entries of the next leaf page.
func (c *Cursor) fetch() error {
	o := c.o
	c.killItems()
	c.buf, c.ends, c.pos, c.offs = c.buf[:0], c.ends[:0], 0, c.offs[:0]
	var lb lockedBuf
	var off page.OffsetNumber
	if !c.started {
		c.started = true
		var err error
		if c.lo == nil {
			lb, err = o.leftmostAtLevel(0)
		} else {
			_, lb, err = o.search(c.lo, false, 0)
		}
		if err != nil {
			return err
		}
		if lb.buf == buffer.InvalidBuffer {
			c.SSI.LockRelation(uint32(c.ix.rel))
			c.done = true
			return nil
		}
		p := o.page(lb)
		op := getOpaque(p)
		if c.lo == nil {
			off = op.firstData()
		} else if off, err = o.binsrch(p, op, c.lo); err != nil {
			o.release(lb)
			return err
		}
	} else {
		if c.next == PNone {
			c.done = true
			return nil
		}
		var err error
		if lb, err = o.read(c.next, false); err != nil {
			return err
		}
		off = getOpaque(o.page(lb)).firstData()
	}
	err := c.readPage(lb, off)
	o.release(lb)
	return err
}

// readPage copies the matching entries from off on, and decides whether
// the scan continues to the right (_bt_readpage).
func (c *Cursor) readPage(lb lockedBuf, off page.OffsetNumber) error {
	o := c.o
	ix := c.ix
	p := o.page(lb)
	op := getOpaque(p)
	c.next = PNone
	c.blk = lb.blk
	if op.ignore() || !op.isLeaf() {
		if !op.isLeaf() && !op.ignore() {
			return ix.corrupt("scan reached non-leaf block %d", lb.blk)
		}
		c.next = op.next
		if c.next == PNone {
			c.done = true
		}
		return nil
	}
	c.SSI.LockPage(uint32(ix.rel), uint32(lb.blk))
	c.lsn = p.LSN()
	max := p.MaxOffset()
	// After a page deletion moved key space to the right, a page further
	// on may start with entries inserted below the lower bound: skip them
	// (entries within a page are sorted, so only a leading run).
	needLo := c.lo != nil
	for ; off <= max; off++ {
		t := itemAt(p, off)
		if needLo {
			cmp, err := ix.compare(c.lo, t, o.scratch)
			if err != nil {
				return err
			}
			if cmp > 0 {
				continue
			}
			needLo = false
		}
		if c.hi != nil {
			cmp, err := ix.compare(c.hi, t, o.scratch)
			if err != nil {
				return err
			}
			if cmp < 0 {
				c.done = true
				return nil
			}
		}
		if p.Item(off).Flags == page.LPDead {
			continue // known dead to every snapshot (kill.go)
		}
		if c.rej != nil && tupInfo(t)&infoHasNulls != 0 {
			bm := t[tupleHeaderSize:]
			skip := false
			for i, r := range c.rej {
				if r && bm[i>>3]&(1<<(i&7)) == 0 {
					if i == 0 {
						// NULLs sort last: nothing further can match.
						c.done = true
						return nil
					}
					skip = true
					break
				}
			}
			if skip {
				continue
			}
		}
		if isPosting(t) {
			// One plain tuple per heap TID, in TID order.
			for i, n := 0, nPosting(t); i < n; i++ {
				c.buf = appendPlainTuple(c.buf, t, postingTID(t, i))
				c.ends = append(c.ends, int32(len(c.buf)))
				c.offs = append(c.offs, off)
			}
			continue
		}
		c.buf = append(c.buf, t...)
		c.ends = append(c.ends, int32(len(c.buf)))
		c.offs = append(c.offs, off)
	}
	if op.rightmost() {
		c.done = true
		return nil
	}
	if c.hi != nil {
		// Everything right of the high key is beyond the upper bound?
		cmp, err := ix.compare(c.hi, itemAt(p, PHiKey), o.scratch)
		if err != nil {
			return err
		}
		if cmp < 0 {
			c.done = true
			return nil
		}
	}
	c.next = op.next
	return nil
}

// TupleSize is the stored size of t (IndexTupleSize).
func TupleSize(t Tuple) int { return int(binary.LittleEndian.Uint16(t[6:]) & storedSizeMask) }
