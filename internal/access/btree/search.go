package btree

import (
	"github.com/tidal-db/tidal/internal/xact/predicate"
	"sync"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// stackEntry remembers an internal page visited on the way down and the
// offset of the downlink followed (BTStackData), so that a split can find
// the parent again.
type stackEntry struct {
	blk page.BlockNumber
	off page.OffsetNumber
}

// op carries one operation's per-call state: the usage counters and
// scratch space for decoded keys, and (for inserts, whose ops are pooled)
// reusable storage for the descent stack, the tuple being inserted, page
// deltas and WAL main data, so that an insert without a split allocates
// next to nothing.
type op struct {
	ix      *Index
	u       *stats.Usage
	scratch []datum.Datum
	arr     [4]datum.Datum
	b       *opBufs // allocated on first use; kept by pooled ops
	// ssi is the inserting transaction's serializable record, if any.
	ssi *predicate.Xact
}

// opBufs is an op's reusable storage for writes.
type opBufs struct {
	stackArr [8]stackEntry
	tupBuf   []byte
	deltas   [4]page.Delta
	main     [8]byte
	bufs     [4]lockedBuf
	dptrs    [4]*page.Delta
	sks      [3]scanKey
}

func (o *op) bufs() *opBufs {
	if o.b == nil {
		o.b = new(opBufs)
	}
	return o.b
}

func (o *op) init(ix *Index, u *stats.Usage) {
	o.ix, o.u = ix, u
	if 2*ix.nkeys <= len(o.arr) {
		o.scratch = o.arr[:2*ix.nkeys]
	} else {
		o.scratch = make([]datum.Datum, 2*ix.nkeys)
	}
}

func (ix *Index) newOp(u *stats.Usage) *op {
	o := &op{}
	o.init(ix, u)
	return o
}

var opPool = sync.Pool{New: func() any { return new(op) }}

// getOp returns a pooled op; putOp gives it back (nothing may keep a
// reference into it).
func (ix *Index) getOp(u *stats.Usage) *op {
	o := opPool.Get().(*op)
	o.init(ix, u)
	return o
}

func putOp(o *op) {
	clear(o.arr[:])
	if b := o.b; b != nil {
		clear(b.sks[:])
		clear(b.bufs[:])
		clear(b.dptrs[:])
		if cap(b.tupBuf) > 4096 {
			b.tupBuf = nil
		}
	}
	o.ix, o.u, o.scratch = nil, nil, nil
	opPool.Put(o)
}

// delta returns reusable delta i, emptied.
func (o *op) delta(i int) *page.Delta {
	d := &o.bufs().deltas[i]
	d.Reset()
	return d
}

// lockedBuf is a pinned buffer with the content lock mode held.
type lockedBuf struct {
	buf  buffer.Buffer
	blk  page.BlockNumber
	excl bool
}

func (o *op) read(blk page.BlockNumber, excl bool) (lockedBuf, error) {
	b, err := o.ix.pool.Read(o.u, o.ix.tag(blk), nil)
	if err != nil {
		return lockedBuf{}, err
	}
	o.ix.pool.Lock(b, excl)
	return lockedBuf{buf: b, blk: blk, excl: excl}, nil
}

func (o *op) release(lb lockedBuf) {
	if lb.buf != buffer.InvalidBuffer {
		o.ix.pool.UnlockRelease(lb.buf, lb.excl)
	}
}

func (o *op) page(lb lockedBuf) page.Page { return o.ix.pool.Page(lb.buf) }

// getRoot returns the (fast) root pinned and share-locked, or an invalid
// buffer when the index is empty (_bt_getroot for reads).
func (o *op) getRoot() (lockedBuf, error) {
	ix := o.ix
	m, err := ix.getMeta(o.u, false)
	if err != nil {
		return lockedBuf{}, err
	}
	if m.root != PNone {
		lb, err := o.read(m.fastRoot, false)
		if err != nil {
			return lockedBuf{}, err
		}
		op := getOpaque(o.page(lb))
		// The cache may be stale: the page must still be alone on its
		// level (it may have split since).
		if !op.ignore() && op.level == m.fastLevel && op.leftmost() && op.rightmost() {
			return lb, nil
		}
		o.release(lb)
	}
	m, err = ix.getMeta(o.u, true)
	if err != nil {
		return lockedBuf{}, err
	}
	if m.root == PNone {
		return lockedBuf{}, nil
	}
	// Freshly read from the metapage: use it even if it split meanwhile
	// (the descent moves right).
	return o.read(m.fastRoot, false)
}

// binsrch returns, on a leaf, the first offset whose tuple is >= sk (may be
// max+1); on an internal page, the offset of the last pivot < sk
// (_bt_binsrch).
func (o *op) binsrch(p page.Page, op opaque, sk *scanKey) (page.OffsetNumber, error) {
	low := op.firstData()
	high := p.MaxOffset() + 1
	leaf := op.isLeaf()
	if !leaf {
		// the first data item of an internal page is minus infinity
		low++
	}
	for low < high {
		mid := low + (high-low)/2
		c, err := o.ix.compare(sk, itemAt(p, mid), o.scratch)
		if err != nil {
			return 0, err
		}
		if c > 0 {
			low = mid + 1
		} else {
			high = mid
		}
	}
	if leaf {
		return low, nil
	}
	return low - 1, nil
}

// beyondHighKey reports whether sk sorts after the page's high key, so the
// wanted position is on a page to the right.
func (o *op) beyondHighKey(p page.Page, op opaque, sk *scanKey) (bool, error) {
	if op.rightmost() {
		return false, nil
	}
	c, err := o.ix.compare(sk, itemAt(p, PHiKey), o.scratch)
	return c > 0, err
}

// moveRight follows right links while sk is beyond the page's high key or
// the page is dead (_bt_moveright). The lock is dropped before the next
// page is locked. With forUpdate (xid set), a page left with an incomplete
// split by a crash is repaired first.
func (o *op) moveRight(lb lockedBuf, sk *scanKey, forUpdate bool, xid uint32) (lockedBuf, error) {
	for {
		p := o.page(lb)
		op := getOpaque(p)
		if forUpdate && op.incomplete() {
			blk, excl := lb.blk, lb.excl
			if !excl {
				o.ix.pool.Unlock(lb.buf, buffer.Share)
				o.ix.pool.Lock(lb.buf, buffer.Exclusive)
				lb.excl = true
			}
			if getOpaque(p).incomplete() {
				if err := o.finishSplit(lb, xid); err != nil {
					return lockedBuf{}, err
				}
			} else {
				o.release(lb)
			}
			var err error
			if lb, err = o.read(blk, excl); err != nil {
				return lockedBuf{}, err
			}
			continue
		}
		if op.rightmost() {
			return lb, nil
		}
		move := op.ignore()
		if !move {
			var err error
			move, err = o.beyondHighKey(p, op, sk)
			if err != nil {
				o.release(lb)
				return lockedBuf{}, err
			}
		}
		if !move {
			return lb, nil
		}
		next, excl := op.next, lb.excl
		o.release(lb)
		var err error
		lb, err = o.read(next, excl)
		if err != nil {
			return lockedBuf{}, err
		}
	}
}

// search descends from the root to the leaf that should hold sk
// (_bt_search). With forWrite the leaf is returned exclusively locked and
// the stack of parents is returned; otherwise the leaf is share-locked.
// An empty index returns an invalid buffer (reads) or creates the root
// (writes).
func (o *op) search(sk *scanKey, forWrite bool, xid uint32) ([]stackEntry, lockedBuf, error) {
	var lb lockedBuf
	var err error
	for {
		lb, err = o.getRoot()
		if err != nil {
			return nil, lockedBuf{}, err
		}
		if lb.buf != buffer.InvalidBuffer || !forWrite {
			break
		}
		if err := o.createRoot(xid); err != nil {
			return nil, lockedBuf{}, err
		}
	}
	if lb.buf == buffer.InvalidBuffer {
		return nil, lb, nil
	}
	var stack []stackEntry
	if forWrite {
		stack = o.bufs().stackArr[:0]
	}
	for {
		lb, err = o.moveRight(lb, sk, forWrite, xid)
		if err != nil {
			return nil, lockedBuf{}, err
		}
		p := o.page(lb)
		op := getOpaque(p)
		if op.isLeaf() {
			break
		}
		off, err := o.binsrch(p, op, sk)
		if err != nil {
			o.release(lb)
			return nil, lockedBuf{}, err
		}
		child := downlink(itemAt(p, off))
		if forWrite {
			stack = append(stack, stackEntry{blk: lb.blk, off: off})
		}
		excl := forWrite && op.level == 1
		o.release(lb)
		lb, err = o.read(child, excl)
		if err != nil {
			return nil, lockedBuf{}, err
		}
	}
	if forWrite && !lb.excl {
		// The root is a leaf: trade the share lock for an exclusive one
		// and move right again, the page may have split meanwhile.
		o.ix.pool.Unlock(lb.buf, buffer.Share)
		o.ix.pool.Lock(lb.buf, buffer.Exclusive)
		lb.excl = true
		lb, err = o.moveRight(lb, sk, true, xid)
		if err != nil {
			return nil, lockedBuf{}, err
		}
	}
	return stack, lb, nil
}

// leftmostLeaf descends along first downlinks to the leftmost leaf
// (_bt_endpoint), share-locked; invalid for an empty index.
func (o *op) leftmostAtLevel(level uint32) (lockedBuf, error) {
	lb, err := o.getRoot()
	if err != nil || lb.buf == buffer.InvalidBuffer {
		return lb, err
	}
	for {
		p := o.page(lb)
		op := getOpaque(p)
		if op.ignore() && !op.rightmost() {
			next := op.next
			o.release(lb)
			if lb, err = o.read(next, false); err != nil {
				return lockedBuf{}, err
			}
			continue
		}
		if op.level <= level {
			return lb, nil
		}
		child := downlink(itemAt(p, op.firstData()))
		o.release(lb)
		if lb, err = o.read(child, false); err != nil {
			return lockedBuf{}, err
		}
	}
}
