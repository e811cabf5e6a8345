package undo

import (
	"context"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// checkModify decides whether tx may change the row whose current bytes
// are cur (README "Writers"): Ok, an outcome that stops the change, or an
// xid to wait for.
func (t *Table) checkModify(u *stats.Usage, tx *Txn, tid page.ItemPointer, cur Tuple, o modifyOpts) (Outcome, xact.XID, error) {
	if cur == nil {
		return Outcome{Result: Invisible}, 0, nil
	}
	if xid := t.log.sharedConflict(t.Rel, tid, tx, o.mode); xid != 0 {
		return Outcome{}, xid, nil
	}
	var last *Record // the latest finished data change, if still in undo
	for urp := cur.URP(); urp != 0 && urp >= t.log.Discard(); {
		rec, err := t.log.readRecord(u, urp)
		if err != nil {
			return Outcome{}, 0, err
		}
		if rec == nil {
			break
		}
		if tx.IsCurrent(rec.Xid) {
			if rec.Kind != KindLock && rec.Cid >= tx.Cid && !o.ownCommand {
				return Outcome{Result: SelfModified}, 0, nil
			}
			// Our own change, or our lock (LockLatest took the newest
			// version whoever committed it): ours to change.
			break
		}
		st := t.log.xm.State(rec.Xid)
		if st == xact.InProgress && !conflicts(o.mode, rec.heldMode()) {
			// A KEY SHARE locker and a running non-key update, or two
			// lockers that let each other be: look further down.
			urp = rec.Prev
			continue
		}
		switch st {
		case xact.InProgress:
			return Outcome{}, rec.Xid, nil
		case xact.Aborted:
			if rec.Kind == KindLock {
				urp = rec.Prev // an aborted lock is left in the chain
				continue
			}
			return Outcome{}, 0, pgerr.Errorf(pgerr.InternalError, "undo of aborted transaction %d on row %s of %q is not applied", rec.Xid, tid, t.Name)
		}
		if rec.Kind == KindLock {
			urp = rec.Prev // a finished lock does not matter
			continue
		}
		// A committed insert the snapshot does not see replaced nothing
		// the snapshot saw: the row is the caller's to change or lock, as
		// heap_update / heap_lock_tuple do not ask the snapshot about
		// xmin (ON CONFLICT's conflicting row, a moved row's new version).
		if rec.Kind != KindInsert && tx.Snap != nil && tx.Snap.XidInSnapshot(rec.Xid) {
			if !conflicts(o.mode, rec.heldMode()) {
				// FOR KEY SHARE of a row a non-key update changed since
				// the snapshot: the version it saw is still the row's
				// key, so it is locked as it stands (heap_lock_tuple).
				urp = rec.Prev
				continue
			}
			if !o.epq || !t.log.epqSeen(tx.Proc, t.Rel, tid, urp) {
				return changedOutcome(cur, rec, tid), 0, nil
			}
		}
		last = rec
		break
	}
	if cur.IsDeleted() {
		if tx.Snap == nil && last != nil {
			// Newest-version mode (LockLatest): say where it went.
			return changedOutcome(cur, last, tid), 0, nil
		}
		return Outcome{Result: Invisible}, 0, nil
	}
	return Outcome{Result: Ok}, 0, nil
}

// changedOutcome is Updated or Deleted for a committed change the
// snapshot does not see.
func changedOutcome(cur Tuple, rec *Record, tid page.ItemPointer) Outcome {
	switch {
	case cur.Flags()&FlagMoved != 0:
		oc := Outcome{Result: Updated, Xid: rec.Xid, NewTID: tid}
		if rec.Kind == KindMove {
			oc.NewTID = rec.NewTID
		}
		return oc
	case cur.IsDeleted():
		return Outcome{Result: Deleted, Xid: rec.Xid}
	}
	return Outcome{Result: Updated, Xid: rec.Xid, NewTID: tid}
}

// lockedRow is the exclusively locked page of a row a writer may change.
type lockedRow struct {
	buf buffer.Buffer
	pg  page.Page
	cur Tuple // a copy
	it  page.ItemID
	tl  tupleLock // held when the writer had to wait
	tx  *Txn
}

// modifyOpts are how a writer treats what it finds.
type modifyOpts struct {
	mode       tableam.LockMode // the row lock the change needs
	wait       tableam.WaitPolicy
	ownCommand bool // the current command's own version may be changed (DeleteOwn)
	epq        bool // an UPDATE or DELETE: EvalPlanQual may retry (epqSeen)
}

// lockForModify locks tid's page and checks the row, waiting for running
// writers (as o.wait says); on Ok the page stays locked (release with
// unlock).
func (t *Table) lockForModify(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, o modifyOpts) (*lockedRow, Outcome, error) {
	pool := t.log.pool
	nb, err := t.NBlocks()
	if err != nil {
		return nil, Outcome{}, err
	}
	if tid.Block >= nb {
		return nil, Outcome{}, errTID(t, tid)
	}
	tl := t.tupleLock(tid, o.mode)
	for {
		b, err := pool.Read(u, t.tag(tid.Block), nil)
		if err != nil {
			t.releaseTupleLock(tx, &tl)
			return nil, Outcome{}, err
		}
		pool.Lock(b, buffer.Exclusive)
		pg := pool.Page(b)
		cur := readItem(pg, tid.Offset)
		oc, wait, err := t.checkModify(u, tx, tid, cur, o)
		if err != nil || wait != 0 || oc.Result != Ok {
			pool.UnlockRelease(b, buffer.Exclusive)
		}
		if err != nil {
			t.releaseTupleLock(tx, &tl)
			return nil, Outcome{}, err
		}
		if wait != 0 {
			switch o.wait {
			case tableam.WaitSkip:
				t.releaseTupleLock(tx, &tl)
				return nil, Outcome{Result: WouldBlock, Xid: wait}, nil
			case tableam.WaitError:
				t.releaseTupleLock(tx, &tl)
				return nil, Outcome{}, pgerr.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", t.Name)
			}
			// Queue on the row's heavyweight tuple lock first, so waiters
			// get the row in arrival order (heap_acquire_tuplock) — unless
			// we already hold a lock on the row, which would let us queue
			// behind someone waiting for us.
			if !tl.held && !t.log.holdsShared(tx.Proc, t.Rel, tid) {
				if err := t.log.xm.Lock(ctx, tx.Proc, tl.tag, tl.mode, false); err != nil {
					return nil, Outcome{}, err
				}
				tl.held = true
			}
			if err := t.log.xm.WaitForXid(ctx, tx.Proc, wait); err != nil {
				t.releaseTupleLock(tx, &tl)
				return nil, Outcome{}, err
			}
			continue
		}
		if oc.Result != Ok {
			t.releaseTupleLock(tx, &tl)
			return nil, oc, nil
		}
		return &lockedRow{buf: b, pg: pg, cur: cur, it: pg.Item(tid.Offset), tl: tl, tx: tx}, oc, nil
	}
}

// tupleLock is the heavyweight lock waiters for a row queue on, in the
// lock mode matching the row-lock strength (as the heap's).
type tupleLock struct {
	tag  xact.LockTag
	mode xact.LockMode
	held bool
}

var tupleLockModes = [...]xact.LockMode{xact.AccessShareLock, xact.RowShareLock, xact.ExclusiveLock, xact.AccessExclusiveLock}

func (t *Table) tupleLock(tid page.ItemPointer, mode tableam.LockMode) tupleLock {
	return tupleLock{tag: xact.TupleTag(uint32(t.Rel), tid.Block, uint32(tid.Offset)), mode: tupleLockModes[mode]}
}

func (t *Table) releaseTupleLock(tx *Txn, l *tupleLock) {
	if l.held {
		t.log.xm.Unlock(tx.Proc, l.tag, l.mode)
		l.held = false
	}
}

// unlock releases the row's page and the tuple lock a wait took.
func (t *Table) unlock(r *lockedRow) {
	t.log.pool.UnlockRelease(r.buf, buffer.Exclusive)
	t.releaseTupleLock(r.tx, &r.tl)
}

func oldCopy(cur Tuple) Tuple {
	if cur.HasExternalValues() {
		return cur
	}
	return nil
}

// headerChange is a change that rewrites only the tuple's header (DELETE,
// LOCK): its new flags and urp.
func (t *Table) headerChange(r *lockedRow, kind uint8, tid page.ItemPointer, flags uint8, d *page.Delta) *dataChange {
	rec := &Record{Kind: kind, Rel: t.Rel, TID: tid, Prev: r.cur.URP()}
	copy(rec.OldHeader[:], r.cur[:HeaderSize])
	return &dataChange{rec: rec, buf: r.buf, tag: t.tag(tid.Block), delta: d, apply: func(urp URP) page.OffsetNumber {
		h := append(Tuple(nil), r.cur[:HeaderSize]...)
		h.setURP(urp)
		h.setFlags(flags)
		d.PutBytes(r.pg, r.it.Off, h)
		return page.InvalidOffset
	}}
}

// Delete deletes the row at tid; with ownCommand also a row the current
// command made (TOAST chunks, a withdrawn speculative insert).
func (t *Table) Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, ownCommand bool) (Outcome, error) {
	r, oc, err := t.lockForModify(ctx, u, tx, tid, modifyOpts{mode: tableam.LockExclusive, ownCommand: ownCommand, epq: true})
	if err != nil || oc.Result != Ok {
		return oc, err
	}
	defer t.unlock(r)
	if err := t.ssiConflictInRow(tx, uint32(tid.Block), uint16(tid.Offset), r.cur); err != nil {
		return Outcome{}, err
	}
	var d page.Delta
	if err := t.log.write(u, tx, InfoDelete, t.headerChange(r, KindDelete, tid, FlagDeleted, &d)); err != nil {
		return Outcome{}, err
	}
	return Outcome{Result: Ok, Old: oldCopy(r.cur)}, nil
}

// LockRow locks the row at tid in mode until tx ends (README "Writers and
// row locks"): a shared mode in memory, an exclusive one as a LOCK record.
// A nil tx.Snap locks the newest version whatever committed it (READ
// COMMITTED's LockLatest).
//
// With retry, a committed change the caller was already told about
// (Updated) no longer stops it: ON CONFLICT DO UPDATE re-reads the newest
// version and locks it again, which heap lets through by its new TID
// (epqSeen).
func (t *Table) LockRow(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode tableam.LockMode, wait tableam.WaitPolicy, retry bool) (Outcome, error) {
	r, oc, err := t.lockForModify(ctx, u, tx, tid, modifyOpts{mode: mode, wait: wait, epq: retry})
	if err != nil || oc.Result != Ok {
		return oc, err
	}
	defer t.unlock(r)
	if mode <= tableam.LockShare {
		if !xact.IsNormal(tx.Xid) {
			return Outcome{}, pgerr.Errorf(pgerr.InternalError, "undo: a row lock without a transaction id")
		}
		t.log.addShared(t.Rel, tid, tx, mode)
		return oc, nil
	}
	if urp := r.cur.URP(); urp != 0 && urp >= t.log.Discard() {
		rec, err := t.log.readRecord(u, urp)
		if err != nil {
			return Outcome{}, err
		}
		if rec != nil && tx.IsCurrent(rec.Xid) && rec.heldMode() >= mode {
			return oc, nil // our own change or lock already holds it
		}
	}
	var d page.Delta
	flags := r.cur.Flags()&^(FlagInplace) | FlagLocked
	c := t.headerChange(r, KindLock, tid, flags, &d)
	c.rec.Mode = uint8(mode)
	if err := t.log.write(u, tx, InfoLock, c); err != nil {
		return Outcome{}, err
	}
	return oc, nil
}

// Update replaces the row at tid by tup: in place (same TID) when the
// page has room, else as a move to another page. Outcome.InPlace tells
// the caller that only the indexes whose key changed need entries (README
// "Indexes": the old key's entry is delete-marked, the new one inserted).
//
// keyChanged: an indexed column changed (which no longer moves the row;
// callers still say so). keysUpdated: a unique key changed (the update
// then conflicts with FOR KEY SHARE lockers).
func (t *Table) Update(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, tup Tuple, keyChanged, keysUpdated bool) (Outcome, error) {
	if err := tooBig(len(tup)); err != nil {
		return Outcome{}, err
	}
	mode := tableam.LockNoKeyExclusive
	if keysUpdated {
		mode = tableam.LockExclusive
	}
	for {
		r, oc, err := t.lockForModify(ctx, u, tx, tid, modifyOpts{mode: mode, epq: true})
		if err != nil || oc.Result != Ok {
			return oc, err
		}
		fits := len(tup) <= r.it.Len || r.pg.ExactFreeSpace() >= page.MaxAlignUp(len(tup))
		if !fits {
			// Make room from rows deleted for everyone, if the page allows.
			if freed, err := t.prune(u, r.buf); err != nil {
				t.unlock(r)
				return Outcome{}, err
			} else if freed {
				r.it = r.pg.Item(tid.Offset)
				fits = r.pg.ExactFreeSpace() >= page.MaxAlignUp(len(tup))
			}
		}
		if fits {
			err := t.updateInPlace(u, tx, r, tid, tup, mode)
			t.unlock(r)
			if err != nil {
				return Outcome{}, err
			}
			return Outcome{Result: Ok, InPlace: true, NewTID: tid, Old: oldCopy(r.cur)}, nil
		}
		seen := r.cur.URP()
		t.unlock(r)
		newTID, retry, err := t.updateMove(u, tx, tid, seen, tup)
		if err != nil {
			return Outcome{}, err
		}
		if !retry {
			return Outcome{Result: Ok, NewTID: newTID, Old: oldCopy(r.cur)}, nil
		}
	}
}

// updateInPlace rewrites the row on its locked page: over its old bytes
// when the new version is no longer, else in new space on the page (the
// old bytes stay, reserved for a rollback).
//
// mode is the row lock the update holds (heldMode): FOR UPDATE when it
// changed a unique key, so FOR KEY SHARE lockers wait for it as for a
// heap key update.
func (t *Table) updateInPlace(u *stats.Usage, tx *Txn, r *lockedRow, tid page.ItemPointer, tup Tuple, mode tableam.LockMode) error {
	if err := t.ssiConflictInRow(tx, uint32(tid.Block), uint16(tid.Offset), r.cur); err != nil {
		return err
	}
	rec := &Record{Kind: KindInplace, Mode: uint8(mode), Rel: t.Rel, TID: tid, Prev: r.cur.URP(), OldOff: r.it.Off, OldLen: r.it.Len}
	copy(rec.OldHeader[:], r.cur[:HeaderSize])
	rec.diff(r.cur, tup)
	var d page.Delta
	c := &dataChange{rec: rec, buf: r.buf, tag: t.tag(tid.Block), delta: &d, apply: func(urp URP) page.OffsetNumber {
		v := append(Tuple(nil), tup...)
		v.setURP(urp)
		v.setFlags(FlagInplace)
		if len(v) <= r.it.Len {
			d.PutBytes(r.pg, r.it.Off, v)
			r.pg.SetItem(tid.Offset, page.ItemID{Off: r.it.Off, Flags: page.LPNormal, Len: len(v)}, &d)
		} else {
			r.pg.SetItem(tid.Offset, page.ItemID{}, &d)
			if r.pg.AddItem(v, tid.Offset, false, false, MaxTuplesPerPage, &d) != tid.Offset {
				panic("undo: in-place update found no room on a page checked to have it")
			}
		}
		return page.InvalidOffset
	}}
	return t.log.write(u, tx, InfoInplace, c)
}

// updateMove puts the new version on another page and marks the old one
// deleted and moved, in one WAL record. retry: the row changed while no
// lock was held; start over.
func (t *Table) updateMove(u *stats.Usage, tx *Txn, tid page.ItemPointer, seen URP, tup Tuple) (page.ItemPointer, bool, error) {
	pool := t.log.pool
	nb, blk, err := t.bufferFor(u, len(tup), tid.Block)
	if err != nil {
		return page.ItemPointer{}, false, err
	}
	// Lock both pages in block order (bufferFor returned the new one
	// locked; give it up and take them again).
	pool.Unlock(nb, buffer.Exclusive)
	ob, err := pool.Read(u, t.tag(tid.Block), nil)
	if err != nil {
		pool.Release(nb)
		return page.ItemPointer{}, false, err
	}
	first, second := ob, nb
	if blk < tid.Block {
		first, second = nb, ob
	}
	pool.Lock(first, buffer.Exclusive)
	pool.Lock(second, buffer.Exclusive)
	defer func() {
		pool.UnlockRelease(ob, buffer.Exclusive)
		pool.UnlockRelease(nb, buffer.Exclusive)
	}()
	opg, npg := pool.Page(ob), pool.Page(nb)
	cur := readItem(opg, tid.Offset)
	if cur == nil || cur.URP() != seen || !(npg.IsNew() || pageRoom(npg, len(tup))) {
		return page.ItemPointer{}, true, nil
	}
	if err := t.ssiConflictInRow(tx, uint32(tid.Block), uint16(tid.Offset), cur); err != nil {
		return page.ItemPointer{}, false, err
	}
	var dn, do page.Delta
	ins := t.insertChange(nb, blk, tup, &dn)
	r := &lockedRow{buf: ob, pg: opg, cur: cur, it: opg.Item(tid.Offset)}
	mv := t.headerChange(r, KindMove, tid, FlagDeleted|FlagMoved, &do)
	apply := mv.apply
	mv.apply = func(urp URP) page.OffsetNumber {
		mv.rec.NewTID = ins.rec.TID
		return apply(urp)
	}
	if err := t.log.write(u, tx, InfoMove, ins, mv); err != nil {
		return page.ItemPointer{}, false, err
	}
	return ins.rec.TID, false, nil
}
