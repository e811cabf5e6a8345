// Package heap is the MVCC heap table access method: PostgreSQL's heap
// pages and tuple headers, insert, update (HOT when no indexed column
// changes and the page has room), delete, fetch by TID following HOT
// chains, sequential scans, opportunistic pruning, the free space map and
// the visibility map.
//
// See README.md for the layout, WAL records and invariants.
package heap

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// WAL record kinds (info bits), with PostgreSQL's values.
const (
	InfoInsert    uint8 = 0x00
	InfoDelete    uint8 = 0x10
	InfoUpdate    uint8 = 0x20
	InfoHotUpdate uint8 = 0x40
	InfoLock      uint8 = 0x60
	InfoInplace   uint8 = 0x70
	InfoInitPage  uint8 = 0x80

	Info2Prune   uint8 = 0x10
	Info2Vacuum  uint8 = 0x20
	Info2Freeze  uint8 = 0x30
	Info2Visible uint8 = 0x40
)

// Env is what the heap needs from the layers below.
type Env struct {
	Pool *buffer.Pool
	WAL  *wal.WAL
	Xact *xact.Manager
}

// Relation is one heap table's storage.
type Relation struct {
	env        *Env
	Rel        smgr.RelFileNumber
	Name       string
	Types      []types.Type
	FillFactor int // percent, 10..100

	targetBlock atomic.Uint32 // cached insertion target (rd_targblock)
	fsm         fsm
}

// Open returns a handle on a heap relation's storage.
func Open(env *Env, rel smgr.RelFileNumber, name string, ts []types.Type, fillFactor int) *Relation {
	if fillFactor <= 0 || fillFactor > 100 {
		fillFactor = 100
	}
	r := &Relation{env: env, Rel: rel, Name: name, Types: ts, FillFactor: fillFactor}
	r.targetBlock.Store(page.InvalidBlock)
	r.fsm = fsm{env: env, rel: rel}
	return r
}

// Env returns the relation's environment.
func (r *Relation) Env() *Env { return r.env }

// NBlocks is the main fork's size in blocks.
func (r *Relation) NBlocks() (page.BlockNumber, error) {
	return r.env.Pool.Smgr().NBlocks(r.Rel, smgr.MainFork)
}

func (r *Relation) tag(blk page.BlockNumber) buffer.Tag {
	return buffer.Tag{Rel: r.Rel, Fork: smgr.MainFork, Block: blk}
}

func (r *Relation) saveFreeSpace() int {
	return page.Size * (100 - r.FillFactor) / 100
}

// TooBig reports a tuple larger than a heap page can hold.
func tooBig(n int) error {
	max := page.Size - page.HeaderSize - page.ItemIDSize - page.MaxAlign
	if n > max {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "row is too big: size %d, maximum size %d", n, max)
	}
	return nil
}

// pageFree is PageGetHeapFreeSpace: room for a new tuple, considering the
// line-pointer limit.
func pageFree(p page.Page) int {
	space := p.FreeSpace()
	if space > 0 {
		n := int(p.MaxOffset())
		if n >= MaxTuplesPerPage {
			if p.Flags()&page.FlagHasFreeLines == 0 {
				return 0
			}
			free := false
			for o := page.OffsetNumber(1); o <= page.OffsetNumber(n); o++ {
				if it := p.Item(o); it.Flags == page.LPUnused {
					free = true
					break
				}
			}
			if !free {
				return 0
			}
		}
	}
	return space
}

// getBufferForTuple returns an exclusively locked buffer with room for a
// tuple of length n (RelationGetBufferForTuple). When other is a valid
// buffer (the old page of an UPDATE), it is returned locked as well, and
// the locks are taken in block order, except for a freshly extended page
// that no other backend can know of yet.
func (r *Relation) getBufferForTuple(u *stats.Usage, n int, other buffer.Buffer, otherBlk page.BlockNumber, bulk *buffer.Strategy) (buffer.Buffer, page.BlockNumber, bool, error) {
	pool := r.env.Pool
	need := page.MaxAlignUp(n) + r.saveFreeSpace()
	if page.MaxAlignUp(n) > need {
		need = page.MaxAlignUp(n)
	}
	target := page.BlockNumber(r.targetBlock.Load())
	if target == page.InvalidBlock {
		target = r.fsm.search(u, need)
	}
	if target == page.InvalidBlock {
		nb, err := r.NBlocks()
		if err != nil {
			return 0, 0, false, err
		}
		if nb > 0 {
			target = nb - 1
		}
	}
	tried := 0
	for target != page.InvalidBlock && tried < 8 {
		tried++
		if other != buffer.InvalidBuffer && target == otherBlk {
			// The old page itself: the caller already found no room there.
			target = r.fsm.recordAndSearch(u, target, 0, need)
			continue
		}
		b, err := pool.Read(u, r.tag(target), bulk)
		if err != nil {
			return 0, 0, false, err
		}
		if other != buffer.InvalidBuffer && otherBlk < target {
			pool.Lock(other, buffer.Exclusive)
			pool.Lock(b, buffer.Exclusive)
		} else {
			pool.Lock(b, buffer.Exclusive)
			if other != buffer.InvalidBuffer {
				pool.Lock(other, buffer.Exclusive)
			}
		}
		p := pool.Page(b)
		if p.IsNew() {
			// An extended page someone has not initialised (crash between
			// extension and first use): take it.
			return b, target, true, nil
		}
		free := pageFree(p)
		if free >= need || (r.FillFactor == 100 && free >= page.MaxAlignUp(n)) {
			r.targetBlock.Store(target)
			return b, target, false, nil
		}
		if other != buffer.InvalidBuffer {
			pool.Unlock(other, buffer.Exclusive)
		}
		pool.UnlockRelease(b, buffer.Exclusive)
		target = r.fsm.recordAndSearch(u, target, free, need)
	}
	// Extend.
	b, blk, err := pool.Extend(u, r.Rel, smgr.MainFork, bulk)
	if err != nil {
		return 0, 0, false, err
	}
	if other != buffer.InvalidBuffer {
		pool.Lock(other, buffer.Exclusive)
	}
	r.targetBlock.Store(blk)
	return b, blk, true, nil
}

func setXmin(t Tuple, xid xact.XID, cid uint32) {
	binary.LittleEndian.PutUint32(t[offXmin:], xid)
	binary.LittleEndian.PutUint32(t[offXmax:], 0)
	binary.LittleEndian.PutUint32(t[offCid:], cid)
}

func insertMain(off page.OffsetNumber, flags uint8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, off)
	return append(b, flags)
}

// Insert adds a tuple for the transaction and returns its TID.
func (r *Relation) Insert(u *stats.Usage, tx *Txn, t Tuple, bulk *buffer.Strategy) (page.ItemPointer, error) {
	if err := tooBig(len(t)); err != nil {
		return page.ItemPointer{}, err
	}
	pool := r.env.Pool
	setXmin(t, tx.Xid, tx.Cid)
	b, blk, isNew, err := r.getBufferForTuple(u, len(t), buffer.InvalidBuffer, 0, bulk)
	if err != nil {
		return page.ItemPointer{}, err
	}
	defer pool.UnlockRelease(b, buffer.Exclusive)
	p := pool.Page(b)
	var d page.Delta
	info := InfoInsert
	if isNew {
		page.Init(p, 0, &d)
		info |= InfoInitPage
	}
	var ctid [6]byte
	off := p.AddItem(t, page.InvalidOffset, false, true, MaxTuplesPerPage, &d)
	if off == page.InvalidOffset {
		return page.ItemPointer{}, fmt.Errorf("heap: tuple of %d bytes did not fit on block %d", len(t), blk)
	}
	tid := page.ItemPointer{Block: blk, Offset: off}
	page.PutItemPointer(ctid[:], tid)
	it := p.Item(off)
	d.PutBytes(p, it.Off+offCtid, ctid[:])
	flags := uint8(0)
	if p.Flags()&page.FlagAllVisible != 0 {
		p.SetFlags(p.Flags()&^page.FlagAllVisible, &d)
		flags |= 1
	}
	var vmp vmPins
	defer vmp.finish(0)
	rec := wal.NewRecord(wal.RmHeap, info, tx.Xid)
	rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
	rec.SetMain(insertMain(off, flags))
	if flags&1 != 0 {
		if err := vmp.clear(r, u, blk, rec); err != nil {
			return page.ItemPointer{}, err
		}
	}
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return page.ItemPointer{}, err
	}
	p.SetLSN(lsn)
	vmp.finish(lsn)
	return tid, nil
}

// Result is the outcome of an UPDATE, DELETE or row lock attempt
// (TM_Result).
type Result int

const (
	Ok            Result = iota
	Invisible            // the tuple is not visible (should not happen for scanned rows)
	SelfModified         // already updated or deleted by this transaction
	Updated              // a concurrent transaction updated it (Ctid: the newer version)
	Deleted              // a concurrent transaction deleted it
	BeingModified        // a running transaction holds it (wait for Xmax)
)

// Outcome details a non-Ok result.
type Outcome struct {
	Result Result
	Ctid   page.ItemPointer // for Updated: the next version
	Xmax   xact.XID         // for BeingModified: whom to wait for
	Cmax   uint32           // for SelfModified
	// Old is, for an Ok UPDATE or DELETE of a tuple holding TOAST
	// pointers, a copy of that old version, so the caller can delete the
	// TOAST values no longer referenced (nil otherwise).
	Old Tuple
}

// externalCopy is the old version a successful change reports in
// Outcome.Old.
func externalCopy(t Tuple) Tuple {
	if !t.HasExternalValues() {
		return nil
	}
	return append(Tuple(nil), t...)
}

var errRetry = errors.New("heap: retry")

// checkModifiable is HeapTupleSatisfiesUpdate for the parts tidal needs:
// may the transaction update or delete this tuple now? The page is locked
// exclusively.
func (r *Relation) checkModifiable(t Tuple, tx *Txn, self page.ItemPointer) (Outcome, bool) {
	x := r.env.Xact
	mask := t.Infomask()
	hinted := false
	if mask&XminCommitted == 0 && mask&XminInvalid == 0 {
		xmin := t.Xmin()
		if !tx.IsCurrent(xmin) {
			switch x.State(xmin) {
			case xact.InProgress:
				return Outcome{Result: BeingModified, Xmax: xmin}, false
			case xact.Aborted:
				setHint(t, XminInvalid)
				return Outcome{Result: Invisible}, true
			default:
				if x.HintSafe(xmin) {
					setHint(t, XminCommitted)
					hinted = true
				}
			}
		}
	} else if mask&XminInvalid != 0 && mask&XminCommitted == 0 {
		return Outcome{Result: Invisible}, false
	}
	mask = t.Infomask()
	if mask&XmaxInvalid != 0 {
		return Outcome{Result: Ok}, hinted
	}
	xmax := t.Xmax()
	if tx.IsCurrent(xmax) {
		if mask&XmaxLockOnly != 0 {
			return Outcome{Result: Ok}, hinted
		}
		return Outcome{Result: SelfModified, Cmax: t.cmax(tx.Combo)}, hinted
	}
	state := xact.Committed
	if mask&XmaxCommitted == 0 {
		state = x.State(xmax)
	}
	switch state {
	case xact.InProgress:
		return Outcome{Result: BeingModified, Xmax: xmax}, hinted
	case xact.Aborted:
		setHint(t, XmaxInvalid)
		return Outcome{Result: Ok}, true
	}
	if mask&XmaxLockOnly != 0 {
		return Outcome{Result: Ok}, hinted
	}
	if mask&XmaxCommitted == 0 && x.HintSafe(xmax) {
		setHint(t, XmaxCommitted)
		hinted = true
	}
	if t.Ctid() != self {
		return Outcome{Result: Updated, Ctid: t.Ctid()}, hinted
	}
	return Outcome{Result: Deleted}, hinted
}

// setXmax marks t deleted (or locked, with lockOnly) by the transaction.
func setXmax(p page.Page, off page.OffsetNumber, t Tuple, tx *Txn, lockOnly bool, keysUpdated bool, d *page.Delta) {
	base := p.Item(off).Off
	mask := t.Infomask() &^ (XmaxCommitted | XmaxInvalid | XmaxIsMulti | XmaxLockOnly | XmaxExclLock | XmaxKeyShrLock | ComboCid)
	mask2 := t.Infomask2() &^ (KeysUpdated | HotUpdated)
	cid := tx.Cid
	if lockOnly {
		mask |= XmaxLockOnly | XmaxExclLock
		cid = t.RawCid()
		mask |= t.Infomask() & ComboCid
	} else {
		if keysUpdated {
			mask2 |= KeysUpdated
		}
		if t.Infomask()&XminCommitted == 0 && tx.IsCurrent(t.Xmin()) {
			// Inserted and deleted by this transaction: keep both command
			// ids through a combo id.
			cid = tx.Combo.get(t.cmin(tx.Combo), tx.Cid)
			mask |= ComboCid
		}
	}
	var hdr [12]byte
	binary.LittleEndian.PutUint32(hdr[0:], tx.Xid)
	binary.LittleEndian.PutUint32(hdr[4:], cid)
	d.PutBytes(p, base+offXmax, hdr[:8])
	d.PutUint16(p, base+offInfomask2, mask2)
	d.PutUint16(p, base+offInfomask, mask)
}

// pinModifiable reads and exclusively locks the page of tid and decides
// whether the transaction may modify (update, delete, lock) the version
// there, waiting for a running modifier to end and deciding again, as
// heap_update/heap_delete/heap_lock_tuple do. With Result Ok the buffer is
// returned pinned and exclusively locked, with the version t on it; with
// any other result the buffer is already released.
func (r *Relation) pinModifiable(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (buffer.Buffer, Tuple, Outcome, error) {
	pool := r.env.Pool
	for {
		b, err := pool.Read(u, r.tag(tid.Block), nil)
		if err != nil {
			return b, nil, Outcome{}, err
		}
		pool.Lock(b, buffer.Exclusive)
		p := pool.Page(b)
		if tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
			pool.UnlockRelease(b, buffer.Exclusive)
			return b, nil, Outcome{Result: Invisible}, nil
		}
		t := Tuple(p.ItemBytes(tid.Offset))
		oc, hinted := r.checkModifiable(t, tx, tid)
		if hinted {
			pool.MarkDirtyHint(u, b)
		}
		if oc.Result == BeingModified {
			pool.UnlockRelease(b, buffer.Exclusive)
			if err := r.env.Xact.WaitForXid(ctx, tx.Proc, oc.Xmax); err != nil {
				return b, nil, Outcome{}, err
			}
			continue
		}
		if oc.Result != Ok {
			pool.UnlockRelease(b, buffer.Exclusive)
		}
		return b, t, oc, nil
	}
}

// Delete removes the tuple at tid for the transaction (heap_delete).
func (r *Relation) Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (Outcome, error) {
	pool := r.env.Pool
	b, t, oc, err := r.pinModifiable(ctx, u, tx, tid)
	if err != nil || oc.Result != Ok {
		return oc, err
	}
	p := pool.Page(b)
	old := externalCopy(t)
	var d page.Delta
	setXmax(p, tid.Offset, t, tx, false, true, &d)
	flags := uint8(0)
	var vmp vmPins
	defer vmp.finish(0)
	rec := wal.NewRecord(wal.RmHeap, InfoDelete, tx.Xid)
	if p.Flags()&page.FlagAllVisible != 0 {
		p.SetFlags(p.Flags()&^page.FlagAllVisible, &d)
		flags |= 1
	}
	if p.PruneXid() == 0 || xact.Precedes(tx.Xid, p.PruneXid()) {
		p.SetPruneXid(tx.Xid, &d)
	}
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, &d)
	rec.SetMain(insertMain(tid.Offset, flags))
	if flags&1 != 0 {
		if err := vmp.clear(r, u, tid.Block, rec); err != nil {
			pool.UnlockRelease(b, buffer.Exclusive)
			return Outcome{}, err
		}
	}
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err == nil {
		p.SetLSN(lsn)
		vmp.finish(lsn)
	}
	pool.UnlockRelease(b, buffer.Exclusive)
	return Outcome{Result: Ok, Old: old}, err
}

// Update replaces the tuple at tid with newTup (heap_update). hotAllowed
// says no indexed column changed, so the new version may be a heap-only
// tuple when it fits on the same page. It returns the new TID and whether
// the update was HOT (then no index entries are needed).
func (r *Relation) Update(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, newTup Tuple, hotAllowed bool) (page.ItemPointer, bool, Outcome, error) {
	if err := tooBig(len(newTup)); err != nil {
		return page.ItemPointer{}, false, Outcome{}, err
	}
	pool := r.env.Pool
	x := r.env.WAL
	setXmin(newTup, tx.Xid, tx.Cid)
	ob, old, oc, err := r.pinModifiable(ctx, u, tx, tid)
	if err != nil || oc.Result != Ok {
		return page.ItemPointer{}, false, oc, err
	}
	op := pool.Page(ob)
	oldExt := externalCopy(old)
	need := page.MaxAlignUp(len(newTup))
	if pageFree(op) >= need {
		// Same page: HOT if allowed.
		ntid, hot, err := r.updateSamePage(u, tx, ob, tid, old, newTup, hotAllowed)
		pool.UnlockRelease(ob, buffer.Exclusive)
		return ntid, hot, Outcome{Result: Ok, Old: oldExt}, err
	}
	// The new version goes elsewhere. Lock the old tuple first (a
	// LOCK record) so nobody else can update it while the old page is
	// unlocked to find room, as PostgreSQL does.
	var d page.Delta
	setXmax(op, tid.Offset, old, tx, true, false, &d)
	// Mark the page full so the next reader tries to prune it.
	op.SetFlags(op.Flags()|page.FlagPageFull, &d)
	lrec := wal.NewRecord(wal.RmHeap, InfoLock, tx.Xid)
	lrec.AddBlock(r.tag(tid.Block), op, wal.BlockStandard, &d)
	lrec.SetMain(lockMain(tid.Offset, tx.Xid))
	pool.MarkDirty(u, ob)
	lsn, err := x.Insert(u, lrec)
	if err != nil {
		pool.UnlockRelease(ob, buffer.Exclusive)
		return page.ItemPointer{}, false, Outcome{}, err
	}
	op.SetLSN(lsn)
	pool.Unlock(ob, buffer.Exclusive)

	nb, nblk, isNew, err := r.getBufferForTuple(u, len(newTup), ob, tid.Block, nil)
	if err != nil {
		pool.Release(ob)
		return page.ItemPointer{}, false, Outcome{}, err
	}
	ntid, err := r.updateOtherPage(u, tx, ob, tid, nb, nblk, isNew, newTup)
	pool.UnlockRelease(nb, buffer.Exclusive)
	pool.UnlockRelease(ob, buffer.Exclusive)
	return ntid, false, Outcome{Result: Ok, Old: oldExt}, err
}

func lockMain(off page.OffsetNumber, xid xact.XID) []byte {
	b := binary.LittleEndian.AppendUint32(nil, xid)
	b = binary.LittleEndian.AppendUint16(b, off)
	return append(b, 0, 0)
}

func updateMain(oldOff, newOff page.OffsetNumber, xid xact.XID, flags uint8) []byte {
	b := binary.LittleEndian.AppendUint32(nil, xid)
	b = binary.LittleEndian.AppendUint16(b, oldOff)
	b = append(b, flags, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint16(b, newOff)
}

func (r *Relation) updateSamePage(u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, old, newTup Tuple, hot bool) (page.ItemPointer, bool, error) {
	pool := r.env.Pool
	p := pool.Page(b)
	var d page.Delta
	if hot {
		binary.LittleEndian.PutUint16(newTup[offInfomask2:], newTup.Infomask2()|HeapOnly)
	}
	off := p.AddItem(newTup, page.InvalidOffset, false, true, MaxTuplesPerPage, &d)
	if off == page.InvalidOffset {
		return page.ItemPointer{}, false, fmt.Errorf("heap: update did not fit on its page")
	}
	ntid := page.ItemPointer{Block: tid.Block, Offset: off}
	nbase := p.Item(off).Off
	var ctid [6]byte
	page.PutItemPointer(ctid[:], ntid)
	d.PutBytes(p, nbase+offCtid, ctid[:])
	old = Tuple(p.ItemBytes(tid.Offset))
	setXmax(p, tid.Offset, old, tx, false, !hot, &d)
	obase := p.Item(tid.Offset).Off
	d.PutBytes(p, obase+offCtid, ctid[:])
	if hot {
		d.PutUint16(p, obase+offInfomask2, Tuple(p.ItemBytes(tid.Offset)).Infomask2()|HotUpdated)
	}
	flags := uint8(0)
	if p.Flags()&page.FlagAllVisible != 0 {
		p.SetFlags(p.Flags()&^page.FlagAllVisible, &d)
		flags |= 1
	}
	if p.PruneXid() == 0 || xact.Precedes(tx.Xid, p.PruneXid()) {
		p.SetPruneXid(tx.Xid, &d)
	}
	info := InfoUpdate
	if hot {
		info = InfoHotUpdate
	}
	var vmp vmPins
	defer vmp.finish(0)
	rec := wal.NewRecord(wal.RmHeap, info, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, &d)
	rec.SetMain(updateMain(tid.Offset, off, tx.Xid, flags))
	if flags&1 != 0 {
		if err := vmp.clear(r, u, tid.Block, rec); err != nil {
			return page.ItemPointer{}, false, err
		}
	}
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return page.ItemPointer{}, false, err
	}
	p.SetLSN(lsn)
	vmp.finish(lsn)
	return ntid, hot, nil
}

func (r *Relation) updateOtherPage(u *stats.Usage, tx *Txn, ob buffer.Buffer, tid page.ItemPointer, nb buffer.Buffer, nblk page.BlockNumber, isNew bool, newTup Tuple) (page.ItemPointer, error) {
	pool := r.env.Pool
	op, np := pool.Page(ob), pool.Page(nb)
	var od, nd page.Delta
	info := InfoUpdate
	if isNew {
		page.Init(np, 0, &nd)
		info |= InfoInitPage
	}
	off := np.AddItem(newTup, page.InvalidOffset, false, true, MaxTuplesPerPage, &nd)
	if off == page.InvalidOffset {
		return page.ItemPointer{}, fmt.Errorf("heap: update did not fit on block %d", nblk)
	}
	ntid := page.ItemPointer{Block: nblk, Offset: off}
	var ctid [6]byte
	page.PutItemPointer(ctid[:], ntid)
	nd.PutBytes(np, np.Item(off).Off+offCtid, ctid[:])
	old := Tuple(op.ItemBytes(tid.Offset))
	setXmax(op, tid.Offset, old, tx, false, true, &od)
	od.PutBytes(op, op.Item(tid.Offset).Off+offCtid, ctid[:])
	flags := uint8(0)
	if op.Flags()&page.FlagAllVisible != 0 {
		op.SetFlags(op.Flags()&^page.FlagAllVisible, &od)
		flags |= 1
	}
	if np.Flags()&page.FlagAllVisible != 0 {
		np.SetFlags(np.Flags()&^page.FlagAllVisible, &nd)
		flags |= 2
	}
	if op.PruneXid() == 0 || xact.Precedes(tx.Xid, op.PruneXid()) {
		op.SetPruneXid(tx.Xid, &od)
	}
	var vmp vmPins
	defer vmp.finish(0)
	rec := wal.NewRecord(wal.RmHeap, info, tx.Xid)
	rec.AddBlock(r.tag(nblk), np, wal.BlockStandard, &nd)
	rec.AddBlock(r.tag(tid.Block), op, wal.BlockStandard, &od)
	rec.SetMain(updateMain(tid.Offset, off, tx.Xid, flags))
	if flags&1 != 0 {
		if err := vmp.clear(r, u, tid.Block, rec); err != nil {
			return page.ItemPointer{}, err
		}
	}
	if flags&2 != 0 {
		if err := vmp.clear(r, u, nblk, rec); err != nil {
			return page.ItemPointer{}, err
		}
	}
	pool.MarkDirty(u, nb)
	pool.MarkDirty(u, ob)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return page.ItemPointer{}, err
	}
	np.SetLSN(lsn)
	op.SetLSN(lsn)
	vmp.finish(lsn)
	return ntid, nil
}

// InheritTarget carries the cached insertion target over from an older
// handle on the same file (after a relcache rebuild).
func (r *Relation) InheritTarget(old *Relation) {
	r.targetBlock.Store(old.targetBlock.Load())
}

// ResetTarget forgets the cached insertion target (after truncation).
func (r *Relation) ResetTarget() { r.targetBlock.Store(page.InvalidBlock) }

// InplaceUpdate overwrites the data of the tuple at tid with newTup's data
// without making a new version (heap_inplace_update): used for catalog
// statistics, as PostgreSQL does. The lengths must match.
func (r *Relation) InplaceUpdate(u *stats.Usage, tx *Txn, tid page.ItemPointer, newTup Tuple) error {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Exclusive)
	defer pool.UnlockRelease(b, buffer.Exclusive)
	p := pool.Page(b)
	it := p.Item(tid.Offset)
	if it.Flags != page.LPNormal {
		return fmt.Errorf("heap: in-place update of a missing tuple %s", tid)
	}
	old := Tuple(p.ItemBytes(tid.Offset))
	if len(old) != len(newTup) || old.Hoff() != newTup.Hoff() {
		return fmt.Errorf("heap: in-place update changes the tuple's size")
	}
	var d page.Delta
	d.PutBytes(p, it.Off+old.Hoff(), newTup[newTup.Hoff():])
	rec := wal.NewRecord(wal.RmHeap, InfoInplace, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, &d)
	rec.SetMain(binary.LittleEndian.AppendUint16(nil, tid.Offset))
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return err
	}
	p.SetLSN(lsn)
	return nil
}
