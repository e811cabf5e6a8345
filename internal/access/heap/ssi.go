package heap

import (
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
	"github.com/tidal-db/tidal/internal/xact/predicate"
)

// The hooks of serializable snapshot isolation (internal/xact/predicate).
// Txn.SSI is nil unless the transaction is SERIALIZABLE, so they cost a
// nil test otherwise.

// ssiTracked: the relation takes part (system catalogs do not).
func (r *Relation) ssiTracked(tx *Txn) bool {
	return tx != nil && tx.SSI != nil && uint32(r.Rel) >= predicate.FirstUserRel
}

// ssiConflictOut reports the concurrent writer a read of t depends on
// (HeapCheckForSerializableConflictOut): for a visible version the
// transaction that deleted or updated it, for an invisible one the
// transaction that inserted it, when that transaction is still running
// for the snapshot.
func (r *Relation) ssiConflictOut(t Tuple, visible bool, tx *Txn) error {
	if !r.ssiTracked(tx) {
		return nil
	}
	mask := t.Infomask()
	var xid xact.XID
	if visible {
		if mask&XmaxInvalid != 0 || lockedOnly(mask) {
			return nil
		}
		xid = UpdateXid(r.env.Xact, t)
	} else {
		if mask&XminFrozen == XminFrozen || mask&XminInvalid != 0 {
			return nil // frozen, or an aborted inserter
		}
		xid = t.Xmin()
	}
	if xid == xact.InvalidXid || tx.IsCurrent(xid) || !tx.Snap.XidInSnapshot(xid) {
		return nil
	}
	return tx.SSI.ConflictOut(r.env.Xact.TopmostXid(xid))
}

// ssiLockTuple takes a SIREAD lock on a version the transaction read,
// unless it wrote that version itself (PredicateLockTID).
func (r *Relation) ssiLockTuple(t Tuple, tid page.ItemPointer, tx *Txn) {
	if !r.ssiTracked(tx) || tx.IsCurrent(t.Xmin()) {
		return
	}
	tx.SSI.LockTuple(uint32(r.Rel), uint32(tid.Block), uint16(tid.Offset))
}

// ssiConflictIn is called before a write: the version updated or deleted,
// or (blk InvalidBlock) just the relation, for an insert.
func (r *Relation) ssiConflictIn(tx *Txn, blk uint32, off uint16) error {
	if tx == nil || tx.SSI == nil {
		return nil
	}
	return tx.SSI.ConflictIn(uint32(r.Rel), blk, off)
}
