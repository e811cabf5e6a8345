package undo

import "github.com/tidal-db/tidal/internal/xact/predicate"

// The hooks of serializable snapshot isolation (internal/xact/predicate),
// the undo AM's counterpart of heap/ssi.go. Txn.SSI is nil unless the
// transaction is SERIALIZABLE, so they cost a nil test otherwise.
//
// What differs from the heap is where a read learns about concurrent
// writers: a heap reader meets every version's xmin and xmax on the page;
// an undo reader meets them as the records it undoes while rebuilding the
// version its snapshot sees (versionFor). Each change it undoes was made
// by a transaction the snapshot does not see — if that transaction was
// running when the snapshot was taken, the read depends on it (conflict
// out): an undone INSERT is heap's "invisible, xmin concurrent", an undone
// DELETE, MOVE or in-place update heap's "visible, xmax concurrent". Row
// locks are no writes (heap ignores locker-only xmax too).
//
// Every version of a row sits at its TID, so tuple SIREAD locks carry a
// version number (predicate/versions.go): undo log positions, which grow
// along a row's history. A reader locks with the undo pointer in the
// header of the version it read — at or after the record that made that
// version, and before the record of the change that replaced it, since
// records along a chain are in log order. A writer replaces the version
// made by the row's latest data change (past row locks) and passes that
// record's position, or 0 when it is discarded and unknown (a conflict
// with every reader of the TID). So the writer of a newer version gets no
// edge from the readers of an older one, as with the heap's separate
// TIDs.

// ssiTracked: the table takes part (system catalogs do not).
func (t *Table) ssiTracked(tx *Txn) bool {
	return tx != nil && tx.SSI != nil && uint32(t.Rel) >= predicate.FirstUserRel
}

// ssiSkipped returns the callback versionFor calls with each change it
// undoes for tx, nil when tx is not tracked.
func (t *Table) ssiSkipped(tx *Txn) func(*Record) error {
	if !t.ssiTracked(tx) {
		return nil
	}
	return func(rec *Record) error {
		if rec.Kind == KindLock || tx.IsCurrent(rec.Xid) || !tx.Snap.XidInSnapshot(rec.Xid) {
			return nil
		}
		return tx.SSI.ConflictOut(t.log.xm.TopmostXid(rec.Xid))
	}
}

// ssiLockRelation is a sequential scan's SIREAD lock.
func (t *Table) ssiLockRelation(tx *Txn) {
	if t.ssiTracked(tx) {
		tx.SSI.LockRelation(uint32(t.Rel))
	}
}

// ssiLockVersion takes a SIREAD lock on version v of the row at tid the
// transaction read, unless it wrote that version itself
// (PredicateLockTID). The caller holds the page's lock, so no writer can
// check for conflicts between the read and the lock.
func (t *Table) ssiLockVersion(tx *Txn, v Tuple, blk uint32, off uint16) {
	if !t.ssiTracked(tx) {
		return
	}
	if rec := t.log.latestDataRecord(v); rec != nil && tx.IsCurrent(rec.Xid) {
		return
	}
	tx.SSI.LockTupleSeen(uint32(t.Rel), blk, off, uint64(v.URP()))
}

// ssiConflictInRow is called before a write replacing the row whose newest
// bytes are cur, under the exclusive lock of its page, so no reader can
// lock the row unseen between the check and the write.
func (t *Table) ssiConflictInRow(tx *Txn, blk uint32, off uint16, cur Tuple) error {
	if tx == nil || tx.SSI == nil {
		return nil
	}
	return tx.SSI.ConflictInSince(uint32(t.Rel), blk, off, uint64(t.log.dataVersion(cur)))
}

// ssiConflictInInsert is an insert's check: only relation locks conflict.
func (t *Table) ssiConflictInInsert(tx *Txn) error {
	if tx == nil || tx.SSI == nil {
		return nil
	}
	return tx.SSI.ConflictIn(uint32(t.Rel), predicate.InvalidBlock, 0)
}

// dataVersion is the position of the record that made cur's bytes (its
// latest change that is not a row lock), 0 when that is unknown because
// the records on the way are discarded.
func (l *Log) dataVersion(cur Tuple) URP {
	urp := cur.URP()
	if cur.Flags()&FlagLocked == 0 {
		return urp // 0 for a frozen row
	}
	for n := 0; urp != 0 && urp >= l.Discard() && n < 1<<16; n++ {
		rec, err := l.readRecord(nil, urp)
		if err != nil || rec == nil {
			return 0
		}
		if rec.Kind != KindLock {
			return urp
		}
		urp = rec.Prev
	}
	return 0
}
