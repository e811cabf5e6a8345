package heap

import (
	"context"
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// Info2LockUpdated is the Heap2 record that locks a later version of an
// updated row (XLOG_HEAP2_LOCK_UPDATED).
const Info2LockUpdated uint8 = 0x60

// tupleLock is the heavyweight lock on a TID that orders the waiters for
// one row (heap_acquire_tuplock); held only while waiting.
type tupleLock struct {
	tag  xact.LockTag
	mode xact.LockMode
	held bool
}

func (r *Relation) tupleLockFor(tid page.ItemPointer, mode LockMode) tupleLock {
	return tupleLock{tag: xact.TupleTag(uint32(r.Rel), tid.Block, uint32(tid.Offset)), mode: tupleLockModes[mode]}
}

// acquire takes the tuple lock under the wait policy: ok=false means SKIP
// LOCKED found it taken; NOWAIT fails with 55P03.
func (r *Relation) acquire(ctx context.Context, tx *Txn, l *tupleLock, wait WaitPolicy) (bool, error) {
	if l.held {
		return true, nil
	}
	x := r.env.Xact
	switch wait {
	case WaitBlock:
		if err := x.Lock(ctx, tx.Proc, l.tag, l.mode, false); err != nil {
			return false, err
		}
	default:
		ok, err := x.TryLock(tx.Proc, l.tag, l.mode)
		if err != nil {
			return false, err
		}
		if !ok {
			if wait == WaitError {
				return false, r.rowLockNotAvailable()
			}
			return false, nil
		}
	}
	l.held = true
	return true, nil
}

func (r *Relation) release(tx *Txn, l *tupleLock) {
	if l.held {
		r.env.Xact.Unlock(tx.Proc, l.tag, l.mode)
		l.held = false
	}
}

func (r *Relation) rowLockNotAvailable() error {
	return pgerr.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", r.Name)
}

// waitXmax waits under the wait policy for the transaction(s) in a
// version's xmax whose lock conflicts with status: ok=false when SKIP
// LOCKED would have to wait.
func (r *Relation) waitXmax(ctx context.Context, tx *Txn, xmax xact.XID, mask uint16, status xact.MultiStatus, wait WaitPolicy) (ok bool, remain int, err error) {
	x := r.env.Xact
	if mask&XmaxIsMulti != 0 {
		ok, remain, err = x.MultiWait(ctx, tx.Proc, xmax, status, wait != WaitBlock)
	} else if wait == WaitBlock {
		err = x.WaitForXid(ctx, tx.Proc, xmax)
		ok = err == nil
	} else {
		ok = x.ConditionalWaitForXid(tx.Proc, xmax)
	}
	if err == nil && !ok && wait == WaitError {
		err = r.rowLockNotAvailable()
	}
	return ok, remain, err
}

// LockTuple locks the row version at tid for the transaction in strength
// mode (heap_lock_tuple): its xmax becomes the transaction's xid with the
// strength's lock bits, or a multixact of it and the lockers and updater
// that are still of interest. A conflicting lock or update by a running
// transaction is waited for (wait policy WaitBlock, queued fairly through
// the tuple's heavyweight lock), skipped (WaitSkip: Result WouldBlock) or
// refused with 55P03 (WaitError). A lock the transaction already holds at
// this strength or stronger is not taken again. With followUpdates, later
// versions of an updated row are locked as well (so a key-share lock
// survives a non-key update). The result is Ok, or why the version cannot
// be locked: Updated (Ctid: the newer version), Deleted, SelfModified,
// Invisible, WouldBlock.
func (r *Relation) LockTuple(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode LockMode, wait WaitPolicy, followUpdates bool) (Outcome, error) {
	pool := r.env.Pool
	x := r.env.Xact
	x.SetOldestMulti(tx.Proc)
	tl := r.tupleLockFor(tid, mode)
	defer r.release(tx, &tl)
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return Outcome{}, err
	}
	defer pool.Release(b)
	// skipTupleLock: we hold a weaker lock already, so we must not queue
	// behind a waiter for the tuple lock who waits for us (it stays so
	// across retries, as in heap_lock_tuple).
	firstTime, skipTupleLock := true, false
	for {
		pool.Lock(b, buffer.Exclusive)
		p := pool.Page(b)
		if tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
			pool.Unlock(b, buffer.Exclusive)
			return Outcome{Result: Invisible}, nil
		}
		t := Tuple(p.ItemBytes(tid.Offset))
		oc, hinted := r.satisfiesUpdate(t, tx, tid, false)
		if hinted {
			pool.MarkDirtyHint(u, b)
		}
		switch oc.Result {
		case Ok:
			err := r.writeLock(u, tx, b, tid, t, mode)
			pool.Unlock(b, buffer.Exclusive)
			return Outcome{Result: Ok}, err
		case BeingModified, Updated, Deleted:
		default:
			pool.Unlock(b, buffer.Exclusive)
			return oc, nil
		}
		seen := xmaxSeen{xmax: t.Xmax(), mask: t.Infomask(), mask2: t.Infomask2(), ctid: t.Ctid()}
		pool.Unlock(b, buffer.Exclusive)
		if oc.xminWait {
			if ok, _, err := r.waitXmax(ctx, tx, seen.xmax, 0, statusFor(mode, false), wait); err != nil || !ok {
				return Outcome{Result: WouldBlock}, err
			}
			continue
		}
		if firstTime {
			firstTime = false
			held, weaker, err := r.holdsLock(tx, seen, mode)
			if err != nil || held {
				return Outcome{Result: Ok}, err
			}
			skipTupleLock = weaker
		}
		sleep, retry, fail, err := r.mustSleep(ctx, u, tx, b, tid, seen, mode, followUpdates)
		switch {
		case err != nil:
			return Outcome{}, err
		case retry:
			continue
		case fail != nil:
			return *fail, nil
		case !sleep:
			// mustSleep left the page locked: lock the version now.
			err := r.writeLock(u, tx, b, tid, Tuple(pool.Page(b).ItemBytes(tid.Offset)), mode)
			pool.Unlock(b, buffer.Exclusive)
			return Outcome{Result: Ok}, err
		case oc.Result != BeingModified:
			// A committed update or delete: waiting cannot help.
			pool.Lock(b, buffer.Exclusive)
			oc := r.failureOf(Tuple(pool.Page(b).ItemBytes(tid.Offset)), tid)
			pool.Unlock(b, buffer.Exclusive)
			return oc, nil
		}
		if !skipTupleLock {
			if ok, err := r.acquire(ctx, tx, &tl, wait); err != nil || !ok {
				return Outcome{Result: WouldBlock}, err
			}
		}
		if ok, _, err := r.waitXmax(ctx, tx, seen.xmax, seen.mask, statusFor(mode, false), wait); err != nil || !ok {
			return Outcome{Result: WouldBlock}, err
		}
		if followUpdates && !lockedOnly(seen.mask) && seen.ctid != tid {
			res, err := r.lockUpdatedChain(ctx, u, tx, updateXidOf(x, seen.xmax, seen.mask), seen.ctid, mode)
			if err != nil || res.Result != Ok {
				return res, err
			}
		}
		pool.Lock(b, buffer.Exclusive)
		t = Tuple(pool.Page(b).ItemBytes(tid.Offset))
		if xmaxChanged(t, seen.xmax, seen.mask) {
			pool.Unlock(b, buffer.Exclusive)
			continue
		}
		if seen.mask&XmaxIsMulti == 0 {
			r.hintXmaxDone(u, b, t, seen.xmax)
		}
		if t.Infomask()&XmaxInvalid == 0 && !onlyLocked(x, t) {
			oc := r.failureOf(t, tid)
			pool.Unlock(b, buffer.Exclusive)
			return oc, nil
		}
		err = r.writeLock(u, tx, b, tid, t, mode)
		pool.Unlock(b, buffer.Exclusive)
		return Outcome{Result: Ok}, err
	}
}

// xmaxSeen is a version's xmax as read before the page was unlocked to
// wait.
type xmaxSeen struct {
	xmax        xact.XID
	mask, mask2 uint16
	ctid        page.ItemPointer
}

// failureOf says why version t cannot be locked or changed: updated (to
// its Ctid) or deleted, and by whom.
func (r *Relation) failureOf(t Tuple, tid page.ItemPointer) Outcome {
	res := Updated
	if t.Ctid() == tid {
		res = Deleted
	}
	return Outcome{Result: res, Ctid: t.Ctid(), Xmax: UpdateXid(r.env.Xact, t)}
}

// holdsLock reports whether the caller's transaction (any of its levels)
// already holds a lock on the version as strong as mode, and whether it
// holds a weaker one through a multixact (then it must not queue on the
// tuple lock behind someone waiting for it).
func (r *Relation) holdsLock(tx *Txn, seen xmaxSeen, mode LockMode) (held, weaker bool, err error) {
	if seen.mask&XmaxIsMulti != 0 {
		members, err := r.env.Xact.Multi().Members(seen.xmax)
		if err != nil {
			return false, false, err
		}
		for _, m := range members {
			if !tx.IsCurrent(m.Xid) {
				continue
			}
			if modeOfStatus(m.Status) >= mode {
				return true, false, nil
			}
			weaker = true
		}
		return false, weaker, nil
	}
	if !tx.IsCurrent(seen.xmax) {
		return false, false, nil
	}
	mask := seen.mask
	switch mode {
	case LockKeyShare:
		return true, false, nil
	case LockShare:
		return shrLocked(mask) || exclLocked(mask), false, nil
	case LockNoKeyExclusive:
		return exclLocked(mask), false, nil
	}
	return exclLocked(mask) && seen.mask2&KeysUpdated != 0, false, nil
}

// mustSleep decides whether the lock must wait for the xmax seen (with
// the page unlocked), re-checking on the locked page where heap_lock_tuple
// does. retry: the xmax changed meanwhile, start over. fail: locking the
// newer versions of the row found a conflicting committed change. With
// none of these and sleep=false the page is returned locked exclusively,
// its version ready to be locked.
func (r *Relation) mustSleep(ctx context.Context, u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, seen xmaxSeen, mode LockMode, follow bool) (sleep, retry bool, fail *Outcome, err error) {
	pool := r.env.Pool
	x := r.env.Xact
	relock := func() Tuple {
		pool.Lock(b, buffer.Exclusive)
		return Tuple(pool.Page(b).ItemBytes(tid.Offset))
	}
	// recheck keeps the page locked when the version still qualifies.
	recheck := func(changed func(Tuple) bool) (bool, bool, *Outcome, error) {
		if changed(relock()) {
			pool.Unlock(b, buffer.Exclusive)
			return false, true, nil, nil
		}
		return false, false, nil, nil
	}
	mask := seen.mask
	switch mode {
	case LockKeyShare:
		// No key update present: no need to wait, but the newer versions
		// of a (non-key) updated row are locked too, so deleting them
		// later still conflicts with us.
		if seen.mask2&KeysUpdated == 0 {
			updated := !lockedOnly(mask)
			if follow && updated && seen.ctid != tid {
				res, err := r.lockUpdatedChain(ctx, u, tx, updateXidOf(x, seen.xmax, mask), seen.ctid, mode)
				if err != nil {
					return false, false, nil, err
				}
				if res.Result != Ok {
					return false, false, &res, nil
				}
			}
			return recheck(func(t Tuple) bool {
				return !onlyLocked(x, t) && (t.Infomask2()&KeysUpdated != 0 || !updated)
			})
		}
	case LockShare:
		if lockedOnly(mask) && !exclLocked(mask) {
			return recheck(func(t Tuple) bool { return !lockedOnly(t.Infomask()) || exclLocked(t.Infomask()) })
		}
	case LockNoKeyExclusive:
		noConflict := false
		if mask&XmaxIsMulti != 0 {
			conflict, _, err := x.MultiConflicts(tx.Proc, seen.xmax, statusFor(mode, false))
			if err != nil {
				return false, false, nil, err
			}
			noConflict = !conflict
		} else {
			noConflict = keyShrLocked(mask)
		}
		if noConflict {
			return recheck(func(t Tuple) bool { return xmaxChanged(t, seen.xmax, mask) })
		}
	}
	if mask&XmaxIsMulti == 0 && tx.IsCurrent(seen.xmax) {
		// Our own (weaker) lock alone: upgrade it without waiting.
		return recheck(func(t Tuple) bool { return xmaxChanged(t, seen.xmax, mask) })
	}
	return true, false, nil, nil
}

// hintXmaxDone sets the hint for a finished plain xmax
// (UpdateXmaxHintBits): committed for an updater, invalid otherwise.
func (r *Relation) hintXmaxDone(u *stats.Usage, b buffer.Buffer, t Tuple, xid xact.XID) {
	if t.Infomask()&(XmaxCommitted|XmaxInvalid) != 0 {
		return
	}
	x := r.env.Xact
	switch st := x.State(xid); {
	case st == xact.InProgress:
		return
	case !lockedOnly(t.Infomask()) && st == xact.Committed:
		if !x.HintSafe(xid) {
			return
		}
		setHint(t, XmaxCommitted)
	default:
		setHint(t, XmaxInvalid)
	}
	r.env.Pool.MarkDirtyHint(u, b)
}

// writeLock stores the transaction's lock in the version's xmax and logs
// it (the critical section of heap_lock_tuple). The page is locked
// exclusively.
func (r *Relation) writeLock(u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, t Tuple, mode LockMode) error {
	pool := r.env.Pool
	p := pool.Page(b)
	xmax, bits, bits2, err := r.newXmax(tx, t.Xmax(), t.Infomask(), t.Infomask2(), tx.Xid, mode, false)
	if err != nil {
		return err
	}
	var d page.Delta
	base := p.Item(tid.Offset).Off
	mask := t.Infomask()&^xmaxBits | bits
	mask2 := t.Infomask2()&^KeysUpdated | bits2
	if lockedOnly(bits) {
		// Nobody updated it (or the update aborted): no forward link.
		mask2 &^= HotUpdated
		var ctid [6]byte
		page.PutItemPointer(ctid[:], tid)
		d.PutBytes(p, base+offCtid, ctid[:])
	}
	return r.logLock(u, tx, b, tid, &d, base, xmax, mask, mask2, wal.RmHeap, InfoLock)
}

// logLock writes a lock's xmax and infomasks into the version at base
// (besides what d already holds), and logs the change as one record of
// rmgr/info, whose main data is lockMain's; b is locked exclusively.
func (r *Relation) logLock(u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, d *page.Delta, base int, xmax xact.XID, mask, mask2 uint16, rmgr wal.RmgrID, info uint8) error {
	pool := r.env.Pool
	p := pool.Page(b)
	var x4 [4]byte
	binary.LittleEndian.PutUint32(x4[:], xmax)
	d.PutBytes(p, base+offXmax, x4[:])
	d.PutUint16(p, base+offInfomask2, mask2)
	d.PutUint16(p, base+offInfomask, mask)
	rec := wal.NewRecord(rmgr, info, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, d)
	rec.SetMain(lockMain(tid.Offset, xmax, mask, mask2))
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return err
	}
	p.SetLSN(lsn)
	return nil
}

// lockMain is a LOCK record's main data (xl_heap_lock): the new xmax, the
// offset and the infobits that were set.
func lockMain(off page.OffsetNumber, xmax xact.XID, mask, mask2 uint16) []byte {
	b := binary.LittleEndian.AppendUint32(nil, xmax)
	b = binary.LittleEndian.AppendUint16(b, off)
	return append(b, lockInfobits(mask, mask2), 0)
}

// lockInfobits encodes xmax bits as xl_heap_lock's infobits_set.
func lockInfobits(mask, mask2 uint16) byte {
	var f byte
	if mask&XmaxIsMulti != 0 {
		f |= 0x01
	}
	if mask&XmaxLockOnly != 0 {
		f |= 0x02
	}
	if mask&XmaxExclLock != 0 {
		f |= 0x04
	}
	if mask&XmaxKeyShrLock != 0 {
		f |= 0x08
	}
	if mask2&KeysUpdated != 0 {
		f |= 0x10
	}
	return f
}

// lockUpdatedChain locks, in strength mode, every later version of a row
// from the version at tid (whose inserter must be priorXmax) to the end
// of its update chain (heap_lock_updated_tuple_rec), waiting for running
// conflicting lockers and updaters of each. A conflicting committed update
// ends it with Updated or Deleted.
func (r *Relation) lockUpdatedChain(ctx context.Context, u *stats.Usage, tx *Txn, priorXmax xact.XID, tid page.ItemPointer, mode LockMode) (Outcome, error) {
	for steps := 0; steps < 1<<20; steps++ {
		next, nextXmax, res, err := r.lockChainMember(ctx, u, tx, priorXmax, tid, mode)
		if err != nil || res.Result != Ok || !next.Valid() {
			return res, err
		}
		priorXmax, tid = nextXmax, next
	}
	return Outcome{Result: Ok}, nil
}

// lockChainMember locks one later version of a row and returns the next
// one's TID (invalid at the end of the chain) and inserter.
func (r *Relation) lockChainMember(ctx context.Context, u *stats.Usage, tx *Txn, priorXmax xact.XID, tid page.ItemPointer, mode LockMode) (page.ItemPointer, xact.XID, Outcome, error) {
	pool := r.env.Pool
	x := r.env.Xact
	end := page.ItemPointer{}
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return end, 0, Outcome{}, err
	}
	defer pool.Release(b)
	for {
		pool.Lock(b, buffer.Exclusive)
		p := pool.Page(b)
		if tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
			pool.Unlock(b, buffer.Exclusive)
			return end, 0, Outcome{Result: Ok}, nil // pruned away after its inserter aborted
		}
		t := Tuple(p.ItemBytes(tid.Offset))
		if (priorXmax != xact.InvalidXid && t.Xmin() != priorXmax) || x.State(t.Xmin()) == xact.Aborted {
			pool.Unlock(b, buffer.Exclusive)
			return end, 0, Outcome{Result: Ok}, nil // the chain ended before
		}
		mine := false
		if t.Infomask()&XmaxInvalid == 0 {
			res, waitFor, own := r.chainMemberConflict(tx, t, tid, statusFor(mode, false))
			if waitFor != xact.InvalidXid {
				pool.Unlock(b, buffer.Exclusive)
				if err := x.WaitForXid(ctx, tx.Proc, waitFor); err != nil {
					return end, 0, Outcome{}, err
				}
				continue
			}
			if res.Result != Ok {
				pool.Unlock(b, buffer.Exclusive)
				return end, 0, res, nil
			}
			mine = own
		}
		if !mine {
			if err := r.writeChainLock(u, tx, b, tid, t, mode); err != nil {
				pool.Unlock(b, buffer.Exclusive)
				return end, 0, Outcome{}, err
			}
			t = Tuple(p.ItemBytes(tid.Offset))
		}
		next, nextXmax := t.Ctid(), UpdateXid(x, t)
		if t.Infomask()&XmaxInvalid != 0 || next == tid || onlyLocked(x, t) {
			next = end
		}
		pool.Unlock(b, buffer.Exclusive)
		return next, nextXmax, Outcome{Result: Ok}, nil
	}
}

// chainMemberConflict tests each transaction in a chain member's xmax
// against the wanted lock (test_lockmode_for_conflict): mine = we locked
// it already; waitFor = a running conflicting xid; else a committed
// conflicting update gives Updated or Deleted.
func (r *Relation) chainMemberConflict(tx *Txn, t Tuple, tid page.ItemPointer, want xact.MultiStatus) (res Outcome, waitFor xact.XID, mine bool) {
	x := r.env.Xact
	var members []xact.MultiMember
	if t.Infomask()&XmaxIsMulti != 0 {
		members, _ = x.Multi().Members(t.Xmax())
	} else if st, ok := statusOfPlainXmax(t.Infomask(), t.Infomask2()); ok {
		members = []xact.MultiMember{{Xid: t.Xmax(), Status: st}}
	}
	for _, m := range members {
		conflict := xact.Conflicts(m.Status.LockMode(), want.LockMode())
		switch {
		case tx.IsCurrent(m.Xid):
			return Outcome{Result: Ok}, xact.InvalidXid, true
		case x.IsRunning(m.Xid):
			if conflict {
				return Outcome{}, m.Xid, false
			}
		case m.Status.IsUpdate() && conflict && x.State(m.Xid) == xact.Committed:
			res := Updated
			if t.Ctid() == tid {
				res = Deleted
			}
			return Outcome{Result: res, Ctid: t.Ctid(), Xmax: m.Xid}, xact.InvalidXid, false
		}
	}
	return Outcome{Result: Ok}, xact.InvalidXid, false
}

// writeChainLock stores the lock on a later version of the row (one
// LOCK_UPDATED record). The page is locked exclusively.
func (r *Relation) writeChainLock(u *stats.Usage, tx *Txn, b buffer.Buffer, tid page.ItemPointer, t Tuple, mode LockMode) error {
	pool := r.env.Pool
	p := pool.Page(b)
	xmax, bits, bits2, err := r.newXmax(tx, t.Xmax(), t.Infomask(), t.Infomask2(), tx.Xid, mode, false)
	if err != nil {
		return err
	}
	var d page.Delta
	base := p.Item(tid.Offset).Off
	mask2 := t.Infomask2()&^KeysUpdated | bits2
	mask := t.Infomask()&^xmaxBits | bits
	return r.logLock(u, tx, b, tid, &d, base, xmax, mask, mask2, wal.RmHeap2, Info2LockUpdated)
}

// InsertedByCommand reports whether the transaction's current command
// created version t (inserted it, or it is the new version of an update
// this command made): ON CONFLICT DO UPDATE may not touch such a row again.
func InsertedByCommand(t Tuple, tx *Txn) bool {
	return tx.IsCurrent(t.Xmin()) && t.Infomask()&XminInvalid == 0 && t.cmin(tx.Combo) == tx.Cid
}

// VisibleTo reports whether a copy of a tuple is visible to the
// transaction's snapshot (no hint bits are set).
func VisibleTo(r *Relation, t Tuple, tx *Txn) bool {
	vis, _ := VisibleHints(r.env.Xact, t, tx)
	return vis
}
