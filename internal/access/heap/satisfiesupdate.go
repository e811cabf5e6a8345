package heap

import (
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// satisfiesUpdate is HeapTupleSatisfiesUpdate: may the transaction update,
// delete or lock version t (at self) now? The page is locked exclusively;
// hint bits it proves are set on t (hinted). BeingModified means a running
// transaction — possibly the caller's own, holding a lock — has its xmax
// (or, tidal's addition, is still inserting it: then Outcome.xminWait).
// ownCommand lets the transaction change a version its current command
// inserted (withdrawing a speculative insertion), which is otherwise
// Invisible.
func (r *Relation) satisfiesUpdate(t Tuple, tx *Txn, self page.ItemPointer, ownCommand bool) (Outcome, bool) {
	x := r.env.Xact
	mask := t.Infomask()
	hinted := false
	if mask&XminCommitted == 0 {
		if mask&XminInvalid != 0 {
			return Outcome{Result: Invisible}, false
		}
		xmin := t.Xmin()
		if tx.IsCurrent(xmin) {
			return r.ownInsertUpdatable(t, tx, ownCommand), false
		}
		switch x.State(xmin) {
		case xact.InProgress:
			return Outcome{Result: BeingModified, Xmax: xmin, xminWait: true}, false
		case xact.Aborted:
			setHint(t, XminInvalid)
			return Outcome{Result: Invisible}, true
		}
		if x.HintSafe(xmin) {
			setHint(t, XminCommitted)
			hinted = true
		}
	}
	oc, h := r.xmaxUpdatable(t, tx, self)
	return oc, hinted || h
}

// ownInsertUpdatable is satisfiesUpdate for a version the caller's own
// transaction inserted.
func (r *Relation) ownInsertUpdatable(t Tuple, tx *Txn, ownCommand bool) Outcome {
	x := r.env.Xact
	mask := t.Infomask()
	if t.cmin(tx.Combo) > tx.Cid || (t.cmin(tx.Combo) == tx.Cid && !ownCommand) {
		return Outcome{Result: Invisible} // inserted by this or a later command
	}
	if mask&XmaxInvalid != 0 {
		return Outcome{Result: Ok}
	}
	xmax := t.Xmax()
	if lockedOnly(mask) {
		// Even our own row may be locked by others: the version it
		// replaced was key-share locked when we updated it.
		if mask&XmaxIsMulti != 0 {
			if running, _ := x.MultiIsRunning(tx.Proc, xmax); running {
				return Outcome{Result: BeingModified, Xmax: xmax}
			}
			return Outcome{Result: Ok}
		}
		if !x.IsRunning(xmax) {
			return Outcome{Result: Ok}
		}
		return Outcome{Result: BeingModified, Xmax: xmax}
	}
	upd := xmax
	if mask&XmaxIsMulti != 0 {
		upd = UpdateXid(x, t)
		if !tx.IsCurrent(upd) {
			// The deleting subtransaction aborted; lockers may remain.
			if running, _ := x.MultiIsRunning(tx.Proc, xmax); running {
				return Outcome{Result: BeingModified, Xmax: xmax}
			}
			return Outcome{Result: Ok}
		}
	} else if !tx.IsCurrent(upd) {
		setHint(t, XmaxInvalid) // the deleting subtransaction aborted
		return Outcome{Result: Ok}
	}
	return ownDeleteOutcome(t, tx, upd)
}

// ownDeleteOutcome: the caller's own transaction updated or deleted t.
func ownDeleteOutcome(t Tuple, tx *Txn, upd xact.XID) Outcome {
	cmax := t.cmax(tx.Combo)
	if cmax >= tx.Cid {
		return Outcome{Result: SelfModified, Cmax: cmax, Ctid: t.Ctid(), Xmax: upd}
	}
	return Outcome{Result: Invisible} // changed by an earlier command
}

// xmaxUpdatable is satisfiesUpdate's judgement of the xmax of a version
// whose inserter committed.
func (r *Relation) xmaxUpdatable(t Tuple, tx *Txn, self page.ItemPointer) (Outcome, bool) {
	x := r.env.Xact
	mask := t.Infomask()
	if mask&XmaxInvalid != 0 {
		return Outcome{Result: Ok}, false
	}
	gone := func() Outcome {
		if t.Ctid() != self {
			return Outcome{Result: Updated, Ctid: t.Ctid(), Xmax: UpdateXid(x, t)}
		}
		return Outcome{Result: Deleted, Ctid: t.Ctid(), Xmax: UpdateXid(x, t)}
	}
	if mask&XmaxCommitted != 0 {
		if lockedOnly(mask) {
			return Outcome{Result: Ok}, false
		}
		return gone(), false
	}
	xmax := t.Xmax()
	if mask&XmaxIsMulti != 0 {
		return r.multiXmaxUpdatable(t, tx, gone)
	}
	if tx.IsCurrent(xmax) {
		if lockedOnly(mask) {
			return Outcome{Result: BeingModified, Xmax: xmax}, false
		}
		return ownDeleteOutcome(t, tx, xmax), false
	}
	switch x.State(xmax) {
	case xact.InProgress:
		return Outcome{Result: BeingModified, Xmax: xmax}, false
	case xact.Aborted:
		setHint(t, XmaxInvalid)
		return Outcome{Result: Ok}, true
	}
	if lockedOnly(mask) {
		setHint(t, XmaxInvalid)
		return Outcome{Result: Ok}, true
	}
	hinted := false
	if x.HintSafe(xmax) {
		setHint(t, XmaxCommitted)
		hinted = true
	}
	return gone(), hinted
}

// multiXmaxUpdatable is xmaxUpdatable for a multixact xmax.
func (r *Relation) multiXmaxUpdatable(t Tuple, tx *Txn, gone func() Outcome) (Outcome, bool) {
	x := r.env.Xact
	mask, xmax := t.Infomask(), t.Xmax()
	running, _ := x.MultiIsRunning(tx.Proc, xmax)
	if lockedOnly(mask) {
		if running {
			return Outcome{Result: BeingModified, Xmax: xmax}, false
		}
		setHint(t, XmaxInvalid)
		return Outcome{Result: Ok}, true
	}
	upd := UpdateXid(x, t)
	if tx.IsCurrent(upd) {
		return ownDeleteOutcome(t, tx, upd), false
	}
	switch x.State(upd) {
	case xact.InProgress:
		return Outcome{Result: BeingModified, Xmax: xmax}, false
	case xact.Committed:
		return gone(), false
	}
	// The updater aborted; lockers may still be running.
	if running {
		return Outcome{Result: BeingModified, Xmax: xmax}, false
	}
	setHint(t, XmaxInvalid)
	return Outcome{Result: Ok}, true
}
