package heap

import (
	"context"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
)

// LockTuple locks the row version at tid exclusively for the transaction
// (heap_lock_tuple with LockTupleExclusive): the version's xmax becomes the
// transaction's xid with the lock-only bit, so concurrent updaters and
// lockers wait for the transaction to end. A version being modified by a
// running transaction is waited for first. The result is Ok, or why the
// version cannot be locked (Updated with the newer version's TID, Deleted,
// SelfModified, Invisible). tidal has one row-lock strength (exclusive):
// it has no multixacts, so shared row locks cannot be represented.
func (r *Relation) LockTuple(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (Outcome, error) {
	pool := r.env.Pool
	b, t, oc, err := r.pinModifiable(ctx, u, tx, tid)
	if err != nil || oc.Result != Ok {
		return oc, err
	}
	p := pool.Page(b)
	mask := t.Infomask()
	if mask&XmaxInvalid == 0 && mask&XmaxLockOnly != 0 && tx.IsCurrent(t.Xmax()) {
		// Already locked by this transaction.
		pool.UnlockRelease(b, buffer.Exclusive)
		return Outcome{Result: Ok}, nil
	}
	var d page.Delta
	setXmax(p, tid.Offset, t, tx, true, false, &d)
	rec := wal.NewRecord(wal.RmHeap, InfoLock, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, &d)
	rec.SetMain(lockMain(tid.Offset, tx.Xid))
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err == nil {
		p.SetLSN(lsn)
	}
	pool.UnlockRelease(b, buffer.Exclusive)
	return Outcome{Result: Ok}, err
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
