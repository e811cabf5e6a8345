package heap

import (
	"context"

	"encoding/binary"
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableam"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// Result is the outcome of an UPDATE, DELETE or row lock attempt
// (TM_Result).
type Result = tableam.Result

const (
	Ok            = tableam.Ok
	Invisible     = tableam.Invisible
	SelfModified  = tableam.SelfModified
	Updated       = tableam.Updated
	Deleted       = tableam.Deleted
	BeingModified = tableam.BeingModified
	WouldBlock    = tableam.WouldBlock
)

// Outcome details a non-Ok result.
type Outcome struct {
	Result Result
	Ctid   page.ItemPointer // for Updated: the next version
	Xmax   xact.XID         // for BeingModified: whom to wait for; Updated/Deleted: the updater
	Cmax   uint32           // for SelfModified
	// Traversed: LockLatest locked a newer version than the one asked
	// for (at Ctid); the caller re-checks it (EvalPlanQual).
	Traversed bool
	// xminWait: BeingModified because the version's inserter is running.
	xminWait bool
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

// modifyState is what pinForModify learnt about the version's lockers,
// and the tuple lock it may hold for the caller until the change is made.
type modifyState struct {
	checkedLockers, lockerRemains bool
	tl                            tupleLock
}

// pinForModify reads and exclusively locks the page of tid and decides
// whether the transaction may update (mode NoKeyExclusive or Exclusive)
// or delete (Exclusive) the version there, waiting — behind the tuple's
// heavyweight lock — for running transactions whose lock or update
// conflicts and deciding again, as heap_update/heap_delete do. Key-share
// lockers do not hold up an update that keeps the key. With Result Ok the
// buffer is returned pinned and exclusively locked, with the version t on
// it; with any other result the buffer is already released.
func (r *Relation) pinForModify(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode LockMode, ownCommand bool) (buffer.Buffer, Tuple, Outcome, modifyState, error) {
	pool := r.env.Pool
	x := r.env.Xact
	x.SetOldestMulti(tx.Proc)
	st := modifyState{tl: r.tupleLockFor(tid, mode)}
	status := statusFor(mode, true)
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return b, nil, Outcome{}, st, err
	}
	fail := func(oc Outcome, err error) (buffer.Buffer, Tuple, Outcome, modifyState, error) {
		r.release(tx, &st.tl)
		pool.Release(b)
		return b, nil, oc, st, err
	}
	for {
		st.checkedLockers, st.lockerRemains = false, false
		pool.Lock(b, buffer.Exclusive)
		p := pool.Page(b)
		if tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
			pool.Unlock(b, buffer.Exclusive)
			return fail(Outcome{Result: Invisible}, nil)
		}
		t := Tuple(p.ItemBytes(tid.Offset))
		oc, hinted := r.satisfiesUpdate(t, tx, tid, ownCommand)
		if hinted {
			pool.MarkDirtyHint(u, b)
		}
		if oc.Result == BeingModified {
			xwait, mask := t.Xmax(), t.Infomask()
			pool.Unlock(b, buffer.Exclusive)
			if oc.xminWait {
				if err := x.WaitForXid(ctx, tx.Proc, xwait); err != nil {
					return fail(Outcome{}, err)
				}
				continue
			}
			again, canContinue, err := r.waitToModify(ctx, u, tx, b, tid, xwait, mask, mode, status, &st)
			if err != nil {
				return fail(Outcome{}, err)
			}
			if again {
				continue
			}
			// waitToModify left the page locked.
			t = Tuple(p.ItemBytes(tid.Offset))
			oc = Outcome{Result: Ok}
			if !canContinue {
				oc = r.failureOf(t, tid)
			}
		}
		if oc.Result != Ok {
			pool.Unlock(b, buffer.Exclusive)
			return fail(oc, nil)
		}
		return b, t, oc, st, nil
	}
}

// waitToModify waits, if it must, for the transactions in a version's
// xmax (seen with the page unlocked) before the caller may change it, and
// re-locks the page: again=true (page unlocked) means the xmax changed
// meanwhile; otherwise canContinue says the version may be changed (no
// updater, or it aborted).
func (r *Relation) waitToModify(ctx context.Context, u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, xwait xact.XID, mask uint16, mode LockMode, status xact.MultiStatus, st *modifyState) (again, canContinue bool, err error) {
	pool := r.env.Pool
	x := r.env.Xact
	relock := func() (Tuple, bool) {
		pool.Lock(b, buffer.Exclusive)
		t := Tuple(pool.Page(b).ItemBytes(tid.Offset))
		if xmaxChanged(t, xwait, mask) {
			pool.Unlock(b, buffer.Exclusive)
			return t, true
		}
		return t, false
	}
	switch {
	case mask&XmaxIsMulti != 0:
		conflict, isMember, err := x.MultiConflicts(tx.Proc, xwait, status)
		if err != nil {
			return false, false, err
		}
		if conflict {
			if !isMember {
				if _, err := r.acquire(ctx, tx, &st.tl, WaitBlock); err != nil {
					return false, false, err
				}
			}
			_, remain, err := x.MultiWait(ctx, tx.Proc, xwait, status, false)
			if err != nil {
				return false, false, err
			}
			st.checkedLockers, st.lockerRemains = true, remain > 0
		}
		t, changed := relock()
		if changed {
			return true, false, nil
		}
		// Our own xact's or non-conflicting lockers may remain; only an
		// updater that did not abort stops us.
		upd := xact.InvalidXid
		if !lockedOnly(t.Infomask()) {
			upd = UpdateXid(x, t)
		}
		return false, upd == xact.InvalidXid || x.State(upd) == xact.Aborted, nil
	case tx.IsCurrent(xwait), keyShrLocked(mask) && mode == LockNoKeyExclusive:
		// Our own lock, or a key-share lock an update that keeps the key
		// does not conflict with: the locker stays.
		st.checkedLockers, st.lockerRemains = true, true
		_, changed := relock()
		return changed, true, nil
	}
	if _, err := r.acquire(ctx, tx, &st.tl, WaitBlock); err != nil {
		return false, false, err
	}
	if err := x.WaitForXid(ctx, tx.Proc, xwait); err != nil {
		return false, false, err
	}
	st.checkedLockers = true
	t, changed := relock()
	if changed {
		return true, false, nil
	}
	r.hintXmaxDone(u, b, t, xwait)
	return false, t.Infomask()&XmaxInvalid != 0, nil
}

// putXmax replaces the xmax of the version at off (its xmax bits and
// KEYS_UPDATED) with xmax and the bits computed for it. For an update or
// delete (change) the command id becomes its cmax, through a combo id
// when the transaction also inserted the version; a lock leaves it.
func putXmax(p page.Page, off page.OffsetNumber, t Tuple, tx *Txn, xmax xact.XID, bits, bits2 uint16, change bool, d *page.Delta) {
	base := p.Item(off).Off
	mask := t.Infomask()&^xmaxBits | bits
	mask2 := t.Infomask2()&^(KeysUpdated|HotUpdated) | bits2
	cid := t.RawCid()
	if change {
		mask &^= ComboCid
		cid = tx.Cid
		if t.Infomask()&XminCommitted == 0 && tx.IsCurrent(t.Xmin()) {
			// Inserted and deleted by this transaction: keep both command
			// ids through a combo id.
			cid = tx.Combo.ID(t.cmin(tx.Combo), tx.Cid)
			mask |= ComboCid
		}
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:], xmax)
	binary.LittleEndian.PutUint32(hdr[4:], cid)
	d.PutBytes(p, base+offXmax, hdr[:])
	d.PutUint16(p, base+offInfomask2, mask2)
	d.PutUint16(p, base+offInfomask, mask)
}

// Delete removes the tuple at tid for the transaction (heap_delete): a
// DELETE takes the FOR UPDATE strength, so it waits for every running
// locker and updater of the row.
func (r *Relation) Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (Outcome, error) {
	return r.deleteTuple(ctx, u, tx, tid, false)
}

// DeleteOwn is Delete that also removes a row the transaction's current
// command inserted, which a plain delete cannot see (HeapTupleSatisfiesUpdate
// calls it invisible): an INSERT … ON CONFLICT withdrawing a speculative
// insertion that lost a race (PostgreSQL's heap_abort_speculative), the
// TOAST chunks of a value replaced by the command that stored it.
func (r *Relation) DeleteOwn(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (Outcome, error) {
	return r.deleteTuple(ctx, u, tx, tid, true)
}

func (r *Relation) deleteTuple(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, ownCommand bool) (Outcome, error) {
	pool := r.env.Pool
	b, t, oc, st, err := r.pinForModify(ctx, u, tx, tid, LockExclusive, ownCommand)
	if err != nil || oc.Result != Ok {
		return oc, err
	}
	defer r.release(tx, &st.tl)
	defer pool.UnlockRelease(b, buffer.Exclusive)
	if err := r.ssiConflictIn(tx, uint32(tid.Block), uint16(tid.Offset)); err != nil {
		return Outcome{}, err
	}
	xmax, bits, bits2, err := r.newXmax(tx, t.Xmax(), t.Infomask(), t.Infomask2(), tx.Xid, LockExclusive, true)
	if err != nil {
		return Outcome{}, err
	}
	p := pool.Page(b)
	old := externalCopy(t)
	var d page.Delta
	putXmax(p, tid.Offset, t, tx, xmax, bits, bits2, true, &d)
	var ctid [6]byte
	page.PutItemPointer(ctid[:], tid) // no forward link
	d.PutBytes(p, p.Item(tid.Offset).Off+offCtid, ctid[:])
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
			return Outcome{}, err
		}
	}
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err == nil {
		p.SetLSN(lsn)
		vmp.finish(lsn)
	}
	return Outcome{Result: Ok, Old: old}, err
}

// Update replaces the tuple at tid with newTup as if a key column changed
// (heap_update in FOR UPDATE strength); see UpdateKeys.
func (r *Relation) Update(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, newTup Tuple, hotAllowed bool) (page.ItemPointer, bool, Outcome, error) {
	return r.UpdateKeys(ctx, u, tx, tid, newTup, hotAllowed, true)
}

// UpdateKeys replaces the tuple at tid with newTup (heap_update).
// hotAllowed says no indexed column changed, so the new version may be a
// heap-only tuple when it fits on the same page. keysUpdated says a
// column of a unique index (one a foreign key can reference) changed:
// then the update takes the FOR UPDATE strength and sets KEYS_UPDATED,
// else FOR NO KEY UPDATE, which key-share lockers (foreign key checks) do
// not conflict with; they stay lockers of the new version too. It returns
// the new TID and whether the update was HOT (then no index entries are
// needed).
func (r *Relation) UpdateKeys(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, newTup Tuple, hotAllowed, keysUpdated bool) (page.ItemPointer, bool, Outcome, error) {
	if err := tooBig(len(newTup)); err != nil {
		return page.ItemPointer{}, false, Outcome{}, err
	}
	pool := r.env.Pool
	mode := LockNoKeyExclusive
	if keysUpdated {
		mode = LockExclusive
	}
	ob, old, oc, st, err := r.pinForModify(ctx, u, tx, tid, mode, false)
	if err != nil || oc.Result != Ok {
		return page.ItemPointer{}, false, oc, err
	}
	defer r.release(tx, &st.tl)
	// The old version's xmax keeps whoever still locks it; so does the
	// new version's, unless they are gone.
	err = r.ssiConflictIn(tx, uint32(tid.Block), uint16(tid.Offset))
	var ox xact.XID
	var obits, obits2 uint16
	if err == nil {
		ox, obits, obits2, err = r.newXmax(tx, old.Xmax(), old.Infomask(), old.Infomask2(), tx.Xid, mode, true)
	}
	if err == nil {
		err = r.stampNewVersion(newTup, tx, old, st)
	}
	if err != nil {
		pool.UnlockRelease(ob, buffer.Exclusive)
		return page.ItemPointer{}, false, Outcome{}, err
	}
	nx := newXmaxOf{ox, obits, obits2}
	op := pool.Page(ob)
	oldExt := externalCopy(old)
	if pageFree(op) >= page.MaxAlignUp(len(newTup)) {
		ntid, hot, err := r.updateSamePage(u, tx, ob, tid, old, newTup, hotAllowed, nx)
		pool.UnlockRelease(ob, buffer.Exclusive)
		return ntid, hot, Outcome{Result: Ok, Old: oldExt}, err
	}
	if err := r.lockForMove(u, tx, ob, tid, old); err != nil {
		pool.UnlockRelease(ob, buffer.Exclusive)
		return page.ItemPointer{}, false, Outcome{}, err
	}
	pool.Unlock(ob, buffer.Exclusive)
	nb, nblk, isNew, err := r.getBufferForTuple(u, len(newTup), ob, tid.Block, nil)
	if err != nil {
		pool.Release(ob)
		return page.ItemPointer{}, false, Outcome{}, err
	}
	ntid, err := r.updateOtherPage(u, tx, ob, tid, nb, nblk, isNew, newTup, nx)
	pool.UnlockRelease(nb, buffer.Exclusive)
	pool.UnlockRelease(ob, buffer.Exclusive)
	return ntid, false, Outcome{Result: Ok, Old: oldExt}, err
}

// newXmaxOf is an xmax computed for the old version of an update.
type newXmaxOf struct {
	xmax        xact.XID
	bits, bits2 uint16
}

// stampNewVersion fills in the new version's header: xmin and cmin, the
// UPDATED bit, and as xmax the old version's lockers if any remain
// (they locked the row, not just the old version).
func (r *Relation) stampNewVersion(newTup Tuple, tx *Txn, old Tuple, st modifyState) error {
	setXmin(newTup, tx.Xid, tx.Cid)
	mask := newTup.Infomask()&^(xmaxBits|XminFrozen|ComboCid) | HeapUpdated
	mask2 := newTup.Infomask2() &^ (KeysUpdated | HotUpdated | HeapOnly)
	omask := old.Infomask()
	xmax := xact.InvalidXid
	if omask&XmaxInvalid == 0 && !(st.checkedLockers && !st.lockerRemains) {
		xmax = old.Xmax()
	}
	switch {
	case xmax == xact.InvalidXid:
		mask |= XmaxInvalid
	case omask&XmaxIsMulti != 0:
		members, err := r.env.Xact.Multi().Members(xmax)
		if err != nil {
			return err
		}
		b, b2 := multiHintBits(members)
		mask, mask2 = mask|b, mask2|b2
	default:
		// An update can only go ahead of key-share lockers.
		mask |= XmaxKeyShrLock | XmaxLockOnly
	}
	binary.LittleEndian.PutUint32(newTup[offXmax:], xmax)
	binary.LittleEndian.PutUint16(newTup[offInfomask:], mask)
	binary.LittleEndian.PutUint16(newTup[offInfomask2:], mask2)
	return nil
}

// lockForMove marks the old version locked by the updater (a LOCK record)
// while its page is unlocked to find room for the new version elsewhere,
// so nobody else updates it meanwhile, and marks the page full so the
// next reader tries to prune it — PostgreSQL's heap_update does the same.
func (r *Relation) lockForMove(u *stats.Usage, tx *Txn, ob buffer.Buffer, tid page.ItemPointer, old Tuple) error {
	pool := r.env.Pool
	op := pool.Page(ob)
	lx, lbits, lbits2, err := r.newXmax(tx, old.Xmax(), old.Infomask(), old.Infomask2(), tx.Xid, LockExclusive, false)
	if err != nil {
		return err
	}
	var d page.Delta
	putXmax(op, tid.Offset, old, tx, lx, lbits, lbits2, false, &d)
	var ctid [6]byte
	page.PutItemPointer(ctid[:], tid)
	d.PutBytes(op, op.Item(tid.Offset).Off+offCtid, ctid[:])
	op.SetFlags(op.Flags()|page.FlagPageFull, &d)
	rec := wal.NewRecord(wal.RmHeap, InfoLock, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), op, wal.BlockStandard, &d)
	rec.SetMain(lockMain(tid.Offset, lx, lbits, lbits2))
	pool.MarkDirty(u, ob)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return err
	}
	op.SetLSN(lsn)
	return nil
}

func updateMain(oldOff, newOff page.OffsetNumber, xid xact.XID, flags uint8) []byte {
	b := binary.LittleEndian.AppendUint32(nil, xid)
	b = binary.LittleEndian.AppendUint16(b, oldOff)
	b = append(b, flags, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint16(b, newOff)
}

func (r *Relation) updateSamePage(u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, old, newTup Tuple, hot bool, nx newXmaxOf) (page.ItemPointer, bool, error) {
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
	bits2 := nx.bits2
	if hot {
		bits2 |= HotUpdated
	}
	putXmax(p, tid.Offset, old, tx, nx.xmax, nx.bits, bits2, true, &d)
	obase := p.Item(tid.Offset).Off
	d.PutBytes(p, obase+offCtid, ctid[:])
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

func (r *Relation) updateOtherPage(u *stats.Usage, tx *Txn, ob buffer.Buffer, tid page.ItemPointer, nb buffer.Buffer, nblk page.BlockNumber, isNew bool, newTup Tuple, nx newXmaxOf) (page.ItemPointer, error) {
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
	putXmax(op, tid.Offset, old, tx, nx.xmax, nx.bits, nx.bits2, true, &od)
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
