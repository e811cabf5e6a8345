package undo

import (
	"context"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// Table is one undo table's storage.
type Table struct {
	log  *Log
	Rel  smgr.RelFileNumber
	Name string

	targetBlock atomic.Uint32 // where the last insert went
}

// OpenTable returns a handle on an undo table's main fork.
func (l *Log) OpenTable(rel smgr.RelFileNumber, name string) *Table {
	t := &Table{log: l, Rel: rel, Name: name}
	t.targetBlock.Store(page.InvalidBlock)
	return t
}

func (t *Table) tag(blk page.BlockNumber) buffer.Tag {
	return buffer.Tag{Rel: t.Rel, Fork: smgr.MainFork, Block: blk}
}

// NBlocks is the table's size in pages.
func (t *Table) NBlocks() (page.BlockNumber, error) {
	return t.log.pool.Smgr().NBlocks(t.Rel, smgr.MainFork)
}

// Result is what a change found.
type Result int

const (
	Ok Result = iota
	// Invisible: the row has no version the caller's snapshot sees.
	Invisible
	// SelfModified: the caller's current command already changed it.
	SelfModified
	// Updated / Deleted: a transaction the snapshot does not see changed
	// or deleted it (REPEATABLE READ: 40001; READ COMMITTED: re-check
	// the newest version, at NewTID when it moved).
	Updated
	Deleted
	// WouldBlock: SKIP LOCKED met a row another transaction holds.
	WouldBlock
)

// Outcome is a change's result.
type Outcome struct {
	Result Result
	Xid    xact.XID // Updated/Deleted: who
	// NewTID: for Updated, where the newest version is; for an Ok
	// update, the new version's TID.
	NewTID page.ItemPointer
	// InPlace: an Ok update kept the TID, so no index needs a new entry
	// (the caller passed keyChanged false).
	InPlace bool
	// Old is, for an Ok update or delete of a row holding TOAST
	// pointers, a copy of the old version.
	Old Tuple
}

func maxTupleLen() int { return page.Size - page.HeaderSize - page.ItemIDSize }

func tooBig(n int) error {
	if n > maxTupleLen()-recordHeaderSize-HeaderSize-8 {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "row is too big: size %d, maximum size %d", n, maxTupleLen()-recordHeaderSize-HeaderSize-8)
	}
	return nil
}

// pageRoom is the room for a new tuple of n bytes and its line pointer.
func pageRoom(pg page.Page, n int) bool {
	if int(pg.MaxOffset()) >= MaxTuplesPerPage && pg.Flags()&page.FlagHasFreeLines == 0 {
		return false
	}
	return pg.ExactFreeSpace() >= page.MaxAlignUp(n)+page.ItemIDSize
}

// bufferFor returns an exclusively locked page with room for n bytes,
// other than avoid (the old page of a moving update).
func (t *Table) bufferFor(u *stats.Usage, n int, avoid page.BlockNumber) (buffer.Buffer, page.BlockNumber, error) {
	pool := t.log.pool
	nb, err := t.NBlocks()
	if err != nil {
		return 0, 0, err
	}
	try := []page.BlockNumber{page.BlockNumber(t.targetBlock.Load())}
	if nb > 0 {
		try = append(try, nb-1)
	}
	for _, blk := range try {
		if blk == page.InvalidBlock || blk >= nb || blk == avoid {
			continue
		}
		b, err := pool.Read(u, t.tag(blk), nil)
		if err != nil {
			return 0, 0, err
		}
		pool.Lock(b, buffer.Exclusive)
		pg := pool.Page(b)
		if !pg.IsNew() && !pageRoom(pg, n) {
			if _, err := t.prune(u, b); err != nil {
				pool.UnlockRelease(b, buffer.Exclusive)
				return 0, 0, err
			}
		}
		if pg.IsNew() || pageRoom(pg, n) {
			t.targetBlock.Store(blk)
			return b, blk, nil
		}
		pool.UnlockRelease(b, buffer.Exclusive)
	}
	if !pool.Smgr().Exists(t.Rel, smgr.MainFork) {
		if err := pool.Smgr().Create(t.Rel, smgr.MainFork); err != nil {
			return 0, 0, err
		}
	}
	b, blk, err := pool.Extend(u, t.Rel, smgr.MainFork, nil)
	if err != nil {
		return 0, 0, err
	}
	t.targetBlock.Store(blk)
	return b, blk, nil
}

// Insert adds a new row and returns its TID. tx.Xid must be assigned.
func (t *Table) Insert(u *stats.Usage, tx *Txn, tup Tuple) (page.ItemPointer, error) {
	if err := tooBig(len(tup)); err != nil {
		return page.ItemPointer{}, err
	}
	if err := t.ssiConflictInInsert(tx); err != nil {
		return page.ItemPointer{}, err
	}
	b, blk, err := t.bufferFor(u, len(tup), page.InvalidBlock)
	if err != nil {
		return page.ItemPointer{}, err
	}
	defer t.log.pool.UnlockRelease(b, buffer.Exclusive)
	var d page.Delta
	c := t.insertChange(b, blk, tup, &d)
	if err := t.log.write(u, tx, InfoInsert, c); err != nil {
		return page.ItemPointer{}, err
	}
	return c.rec.TID, nil
}

// insertChange is the change that places tup on the locked page b.
func (t *Table) insertChange(b buffer.Buffer, blk page.BlockNumber, tup Tuple, d *page.Delta) *dataChange {
	pg := t.log.pool.Page(b)
	rec := &Record{Kind: KindInsert, Rel: t.Rel, TID: page.ItemPointer{Block: blk}}
	return &dataChange{rec: rec, buf: b, tag: t.tag(blk), delta: d, apply: func(urp URP) page.OffsetNumber {
		if pg.IsNew() {
			page.Init(pg, 0, d)
		}
		v := append(Tuple(nil), tup...)
		v.setURP(urp)
		v.setFlags(0)
		off := pg.AddItem(v, page.InvalidOffset, false, true, MaxTuplesPerPage, d)
		if off == page.InvalidOffset {
			panic("undo: insert found no room on a page checked to have it")
		}
		return off
	}}
}

// readItem returns a copy of the tuple at off, or nil when the line
// pointer holds none.
func readItem(pg page.Page, off page.OffsetNumber) Tuple {
	if off == 0 || off > pg.MaxOffset() {
		return nil
	}
	if it := pg.Item(off); it.Flags != page.LPNormal {
		return nil
	}
	return append(Tuple(nil), pg.ItemBytes(off)...)
}

// Fetch returns a copy of the version of the row at tid that tx's
// snapshot sees (nil: none).
func (t *Table) Fetch(u *stats.Usage, tx *Txn, tid page.ItemPointer) (Tuple, error) {
	nb, err := t.NBlocks()
	if err != nil || tid.Block >= nb {
		return nil, err
	}
	pool := t.log.pool
	b, err := pool.Read(u, t.tag(tid.Block), nil)
	if err != nil {
		return nil, err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	cur := readItem(pool.Page(b), tid.Offset)
	if cur == nil {
		return nil, nil
	}
	v, err := t.log.versionFor(u, tx, cur, t.ssiSkipped(tx))
	if v != nil {
		t.ssiLockVersion(tx, v, uint32(tid.Block), uint16(tid.Offset))
	}
	return v, err
}

// Scan calls fn with a copy of every row version tx's snapshot sees, in
// TID order, until fn returns false.
func (t *Table) Scan(ctx context.Context, u *stats.Usage, tx *Txn, fn func(page.ItemPointer, Tuple) bool) error {
	t.log.AdvanceDiscard()
	t.ssiLockRelation(tx)
	nb, err := t.NBlocks()
	if err != nil {
		return err
	}
	type item struct {
		tid page.ItemPointer
		tup Tuple
	}
	var out []item
	for blk := page.BlockNumber(0); blk < nb; blk++ {
		if err := ctx.Err(); err != nil {
			return pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		out = out[:0]
		err := t.visibleOnPage(u, tx, blk, func(off page.OffsetNumber, v Tuple) error {
			out = append(out, item{page.ItemPointer{Block: blk, Offset: off}, append(Tuple(nil), v...)})
			return nil
		})
		if err != nil {
			return err
		}
		for _, it := range out {
			if !fn(it.tid, it.tup) {
				return nil
			}
		}
	}
	return nil
}

// visibleOnPage calls fn, under the page's share lock, with each version
// on blk that tx's snapshot sees. The newest bytes of a row are passed
// as they lie on the page when the snapshot sees them (fn must copy what
// it keeps); rebuilt versions are fn's own.
func (t *Table) visibleOnPage(u *stats.Usage, tx *Txn, blk page.BlockNumber, fn func(page.OffsetNumber, Tuple) error) error {
	b, err := t.log.pool.Read(u, t.tag(blk), nil)
	if err != nil {
		return err
	}
	return t.visibleInBuffer(u, tx, b, fn)
}

// visibleInBuffer is visibleOnPage on a pinned buffer, whose pin it
// releases.
func (t *Table) visibleInBuffer(u *stats.Usage, tx *Txn, b buffer.Buffer, fn func(page.OffsetNumber, Tuple) error) error {
	pool := t.log.pool
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	pg := pool.Page(b)
	discard := t.log.Discard()
	if pg.IsNew() {
		return nil
	}
	skipped := t.ssiSkipped(tx)
	// The share lock keeps the line pointer array as it is: read its
	// length once, and each pointer once (this loop runs for every row a
	// sequential scan reads).
	for off, max := page.OffsetNumber(1), pg.MaxOffset(); off <= max; off++ {
		it := pg.Item(off)
		if it.Flags != page.LPNormal {
			continue
		}
		cur := Tuple(pg[it.Off : it.Off+it.Len])
		if urp := cur.URP(); urp == 0 || urp < discard {
			// Visible to everyone as it stands: no copy, no undo.
			if !cur.IsDeleted() {
				if err := fn(off, cur); err != nil {
					return err
				}
			}
			continue
		}
		v, err := t.log.versionFor(u, tx, append(Tuple(nil), cur...), skipped)
		if err != nil {
			return err
		}
		if v != nil {
			if err := fn(off, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// errTID is the error for a TID that names no row a writer can change.
func errTID(t *Table, tid page.ItemPointer) error {
	return pgerr.Errorf(pgerr.InternalError, "undo table %q has no row at %s", t.Name, tid)
}
