package heap

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/xact"
)

// Row-lock strengths (LockTupleMode), weakest first, with PostgreSQL's
// order: FOR KEY SHARE, FOR SHARE, FOR NO KEY UPDATE, FOR UPDATE. An
// UPDATE that changes no key column takes NoKeyExclusive, any other
// UPDATE and DELETE take Exclusive. Two strengths conflict as the
// heavyweight modes of tupleLockModes do:
//
//	             KEY SHARE  SHARE  NO KEY UPDATE  UPDATE
//	KEY SHARE                                        X
//	SHARE                            X               X
//	NO KEY UPD               X       X               X
//	UPDATE          X        X       X               X
type LockMode = tableam.LockMode

const (
	LockKeyShare       = tableam.LockKeyShare
	LockShare          = tableam.LockShare
	LockNoKeyExclusive = tableam.LockNoKeyExclusive
	LockExclusive      = tableam.LockExclusive
)

// tupleLockModes is the heavyweight lock taken on a tuple's TID while
// waiting for it in each strength (tupleLockExtraInfo).
var tupleLockModes = [...]xact.LockMode{xact.AccessShareLock, xact.RowShareLock, xact.ExclusiveLock, xact.AccessExclusiveLock}

// RowLocksConflict reports whether two row-lock strengths conflict.
func RowLocksConflict(a, b LockMode) bool {
	return xact.Conflicts(tupleLockModes[a], tupleLockModes[b])
}

// WaitPolicy is what a row lock does when the row is locked or being
// changed by another transaction: wait, skip the row (SKIP LOCKED) or fail
// (NOWAIT).
type WaitPolicy = tableam.WaitPolicy

const (
	WaitBlock = tableam.WaitBlock
	WaitSkip  = tableam.WaitSkip
	WaitError = tableam.WaitError
)

// statusFor is the multixact status of a lock or update of strength mode
// (get_mxact_status_for_lock).
func statusFor(mode LockMode, isUpdate bool) xact.MultiStatus {
	if isUpdate {
		if mode == LockExclusive {
			return xact.MultiUpdate
		}
		return xact.MultiNoKeyUpdate
	}
	return xact.MultiStatus(mode) // the four lock statuses share the modes' order
}

// modeOfStatus is the strength a multixact member holds
// (TUPLOCK_from_mxstatus).
func modeOfStatus(s xact.MultiStatus) LockMode {
	switch s {
	case xact.MultiNoKeyUpdate:
		return LockNoKeyExclusive
	case xact.MultiUpdate:
		return LockExclusive
	}
	return LockMode(s)
}

// The lock-strength bits of t_infomask (HEAP_LOCK_MASK): KEYSHR alone is a
// key-share lock, both bits a share lock, EXCL alone an exclusive one
// (with KEYS_UPDATED in t_infomask2: FOR UPDATE, else FOR NO KEY UPDATE).
const (
	lockMask     = XmaxKeyShrLock | XmaxExclLock
	xmaxShrLock  = XmaxKeyShrLock | XmaxExclLock
	xmaxBits     = XmaxCommitted | XmaxInvalid | XmaxIsMulti | lockMask | XmaxLockOnly
	xmaxKindBits = XmaxIsMulti | lockMask | XmaxLockOnly
)

func keyShrLocked(mask uint16) bool { return mask&lockMask == XmaxKeyShrLock }
func shrLocked(mask uint16) bool    { return mask&lockMask == xmaxShrLock }
func exclLocked(mask uint16) bool   { return mask&lockMask == XmaxExclLock }

// lockedOnly reports an xmax that only locks the tuple
// (HEAP_XMAX_IS_LOCKED_ONLY; EXCL_LOCK without IS_MULTI is the form old
// releases wrote for a lock).
func lockedOnly(mask uint16) bool {
	return mask&XmaxLockOnly != 0 || mask&(XmaxIsMulti|lockMask) == XmaxExclLock
}

// xmaxChanged reports whether a tuple's xmax is no longer the one seen
// before the page was unlocked (xmax_infomask_changed plus the raw xmax).
func xmaxChanged(t Tuple, xmax xact.XID, mask uint16) bool {
	return t.Infomask()&xmaxKindBits != mask&xmaxKindBits || t.Xmax() != xmax
}

// statusOfPlainXmax is the multixact status an xid in a tuple's xmax
// stands for, judged from the infomask bits. ok=false: a lock-only xmax
// without strength bits (no lock at all).
func statusOfPlainXmax(mask, mask2 uint16) (xact.MultiStatus, bool) {
	if !lockedOnly(mask) {
		if mask2&KeysUpdated != 0 {
			return xact.MultiUpdate, true
		}
		return xact.MultiNoKeyUpdate, true
	}
	switch {
	case keyShrLocked(mask):
		return xact.MultiForKeyShare, true
	case shrLocked(mask):
		return xact.MultiForShare, true
	case exclLocked(mask):
		if mask2&KeysUpdated != 0 {
			return xact.MultiForUpdate, true
		}
		return xact.MultiForNoKeyUpdate, true
	}
	return 0, false
}

// UpdateXid is the xid that updated or deleted t, if any
// (HeapTupleHeaderGetUpdateXid): the raw xmax, or the updating member of a
// multixact xmax; InvalidXid when the multixact only locks.
func UpdateXid(x *xact.Manager, t Tuple) xact.XID { return updateXidOf(x, t.Xmax(), t.Infomask()) }

func updateXidOf(x *xact.Manager, xmax xact.XID, mask uint16) xact.XID {
	if mask&XmaxIsMulti == 0 {
		return xmax
	}
	if lockedOnly(mask) {
		return xact.InvalidXid
	}
	xid, err := x.MultiUpdateXid(xmax)
	if err != nil {
		return xact.InvalidXid
	}
	return xid
}

// onlyLocked reports that t's xmax does not (or no longer can) delete it:
// lock-only, or a multixact whose updater aborted
// (HeapTupleHeaderIsOnlyLocked).
func onlyLocked(x *xact.Manager, t Tuple) bool {
	mask := t.Infomask()
	if mask&XmaxInvalid != 0 || lockedOnly(mask) {
		return true
	}
	if mask&XmaxIsMulti == 0 {
		return false
	}
	upd := UpdateXid(x, t)
	if upd == xact.InvalidXid {
		return true
	}
	return x.State(upd) == xact.Aborted
}

// multiHintBits are the infomask bits that describe a multixact xmax from
// its members (GetMultiXactIdHintBits): the strongest lock strength held,
// KEYS_UPDATED for FOR UPDATE or a key update, LOCK_ONLY without updater.
func multiHintBits(members []xact.MultiMember) (mask, mask2 uint16) {
	mask = XmaxIsMulti
	strongest := LockKeyShare
	hasUpdate := false
	for _, m := range members {
		if mode := modeOfStatus(m.Status); mode > strongest {
			strongest = mode
		}
		switch m.Status {
		case xact.MultiForUpdate:
			mask2 |= KeysUpdated
		case xact.MultiNoKeyUpdate:
			hasUpdate = true
		case xact.MultiUpdate:
			mask2 |= KeysUpdated
			hasUpdate = true
		}
	}
	switch strongest {
	case LockExclusive, LockNoKeyExclusive:
		mask |= XmaxExclLock
	case LockShare:
		mask |= xmaxShrLock
	default:
		mask |= XmaxKeyShrLock
	}
	if !hasUpdate {
		mask |= XmaxLockOnly
	}
	return mask, mask2
}

// newXmax is the xmax a lock or update of strength mode by xid add leaves
// on a tuple whose xmax is xmax (with infomasks mask, mask2), keeping any
// locker or updater that still matters in a multixact
// (compute_new_xmax_infomask). It returns the new raw xmax and the xmax
// bits of t_infomask and t_infomask2 (the caller clears the old ones).
func (r *Relation) newXmax(tx *Txn, xmax xact.XID, mask, mask2 uint16, add xact.XID, mode LockMode, isUpdate bool) (xact.XID, uint16, uint16, error) {
	x := r.env.Xact
	for {
		switch {
		case mask&XmaxInvalid != 0:
			return freshXmax(add, mode, isUpdate)
		case mask&XmaxIsMulti != 0:
			running, err := x.MultiIsRunning(tx.Proc, xmax)
			if err != nil {
				return 0, 0, 0, err
			}
			if !running {
				if lockedOnly(mask) || x.State(updateXidOf(x, xmax, mask)) != xact.Committed {
					mask = mask&^XmaxIsMulti | XmaxInvalid
					continue
				}
			}
			id, err := x.MultiExpand(tx.Proc, xmax, add, statusFor(mode, isUpdate))
			if err != nil {
				return 0, 0, 0, err
			}
			return r.multiXmax(id)
		case mask&XmaxCommitted != 0:
			// A committed updater (a lock's xmax is never hinted committed).
			return r.createMultiXmax(xmax, updateStatus(mask2), add, statusFor(mode, isUpdate))
		case x.IsRunning(xmax):
			old, ok := statusOfPlainXmax(mask, mask2)
			if !ok {
				mask = mask&^XmaxLockOnly | XmaxInvalid
				continue
			}
			if xmax == add {
				// Our own lock, taken again or upgraded: keep the
				// stronger of the two, as one xid.
				if m := modeOfStatus(old); m > mode {
					mode = m
				}
				mask |= XmaxInvalid
				continue
			}
			return r.createMultiXmax(xmax, old, add, statusFor(mode, isUpdate))
		case !lockedOnly(mask) && x.State(xmax) == xact.Committed:
			return r.createMultiXmax(xmax, updateStatus(mask2), add, statusFor(mode, isUpdate))
		default:
			// A finished locker or an aborted updater: nothing to keep.
			mask |= XmaxInvalid
		}
	}
}

func updateStatus(mask2 uint16) xact.MultiStatus {
	if mask2&KeysUpdated != 0 {
		return xact.MultiUpdate
	}
	return xact.MultiNoKeyUpdate
}

// freshXmax is the xmax of a tuple that had none that matters.
func freshXmax(add xact.XID, mode LockMode, isUpdate bool) (xact.XID, uint16, uint16, error) {
	if isUpdate {
		if mode == LockExclusive {
			return add, 0, KeysUpdated, nil
		}
		return add, 0, 0, nil
	}
	switch mode {
	case LockKeyShare:
		return add, XmaxLockOnly | XmaxKeyShrLock, 0, nil
	case LockShare:
		return add, XmaxLockOnly | xmaxShrLock, 0, nil
	case LockNoKeyExclusive:
		return add, XmaxLockOnly | XmaxExclLock, 0, nil
	}
	return add, XmaxLockOnly | XmaxExclLock, KeysUpdated, nil
}

func (r *Relation) createMultiXmax(x1 xact.XID, s1 xact.MultiStatus, x2 xact.XID, s2 xact.MultiStatus) (xact.XID, uint16, uint16, error) {
	id, err := r.env.Xact.MultiCreate2(x1, s1, x2, s2)
	if err != nil {
		return 0, 0, 0, err
	}
	return r.multiXmax(id)
}

func (r *Relation) multiXmax(id xact.MultiXactID) (xact.XID, uint16, uint16, error) {
	members, err := r.env.Xact.Multi().Members(id)
	if err != nil {
		return 0, 0, 0, err
	}
	mask, mask2 := multiHintBits(members)
	return id, mask, mask2, nil
}
