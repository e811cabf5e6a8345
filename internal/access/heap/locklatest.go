package heap

import (
	"context"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// LockLatest locks the row whose version at tid the caller's snapshot saw,
// following it to its newest version when a concurrent transaction has
// updated it (heapam_tuple_lock with TUPLE_LOCK_FLAG_FIND_LAST_VERSION, as
// READ COMMITTED's SELECT … FOR UPDATE does): waiting for running updaters
// of the newer versions under the wait policy, and locking the newest. It
// returns the outcome (Traversed when a newer version than tid was
// locked), the TID of the version locked and a copy of it. Rows deleted
// meanwhile give Deleted; a newer version made by the transaction's own
// current command gives SelfModified.
func (r *Relation) LockLatest(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode LockMode, wait WaitPolicy) (Outcome, page.ItemPointer, Tuple, error) {
	traversed := false
	for steps := 0; steps < 1<<20; steps++ {
		oc, err := r.LockTuple(ctx, u, tx, tid, mode, wait, true)
		if err != nil {
			return oc, tid, nil, err
		}
		switch oc.Result {
		case Ok:
			t, err := r.fetchRaw(u, tid)
			oc.Traversed = traversed
			return oc, tid, t, err
		case Updated:
		default:
			return oc, tid, nil, nil
		}
		if oc.Ctid == tid {
			return Outcome{Result: Deleted}, tid, nil, nil
		}
		traversed = true
		next, res, err := r.findLiveSuccessor(ctx, u, tx, oc.Ctid, oc.Xmax, wait)
		if err != nil || res.Result != Ok {
			return res, tid, nil, err
		}
		tid = next
	}
	return Outcome{Result: Deleted}, tid, nil, nil
}

// findLiveSuccessor follows an update chain from the version at tid (whose
// inserter must be priorXmax) to its live end, as SnapshotDirty sees it:
// waiting for a running updater under the wait policy; Deleted when the
// row is gone.
func (r *Relation) findLiveSuccessor(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, priorXmax xact.XID, wait WaitPolicy) (page.ItemPointer, Outcome, error) {
	x := r.env.Xact
	for steps := 0; steps < 1<<20; steps++ {
		t, err := r.fetchRaw(u, tid)
		if err != nil {
			return tid, Outcome{}, err
		}
		if t == nil || t.Xmin() != priorXmax {
			// The slot was pruned or reused: the newest version is gone.
			return tid, Outcome{Result: Deleted}, nil
		}
		vis, xmaxRunning := r.dirtyVisible(t, tx)
		if vis && xmaxRunning != xact.InvalidXid {
			ok := true
			if wait == WaitBlock {
				if err := x.WaitForXid(ctx, tx.Proc, xmaxRunning); err != nil {
					return tid, Outcome{}, err
				}
			} else {
				ok = x.ConditionalWaitForXid(tx.Proc, xmaxRunning)
			}
			if !ok {
				if wait == WaitError {
					return tid, Outcome{}, r.rowLockNotAvailable()
				}
				return tid, Outcome{Result: WouldBlock}, nil
			}
			continue
		}
		if vis {
			if tx.IsCurrent(priorXmax) && t.cmin(tx.Combo) >= tx.Cid {
				return tid, Outcome{Result: SelfModified, Xmax: priorXmax, Cmax: t.cmin(tx.Combo)}, nil
			}
			return tid, Outcome{Result: Ok}, nil
		}
		// Changed by a committed transaction or our own: a deleted row is
		// gone, an updated one continues at its newer version.
		if t.Ctid() == tid {
			return tid, Outcome{Result: Deleted}, nil
		}
		priorXmax, tid = UpdateXid(x, t), t.Ctid()
	}
	return tid, Outcome{Result: Deleted}, nil
}

// fetchRaw returns a copy of the tuple stored at tid, or nil when the
// line pointer holds none.
func (r *Relation) fetchRaw(u *stats.Usage, tid page.ItemPointer) (Tuple, error) {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return nil, err
	}
	defer pool.UnlockRelease(b, buffer.Share)
	pool.Lock(b, buffer.Share)
	p := pool.Page(b)
	if tid.Offset < 1 || tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
		return nil, nil
	}
	return append(Tuple(nil), p.ItemBytes(tid.Offset)...), nil
}

// dirtyVisible is HeapTupleSatisfiesDirty for a version whose inserter is
// known to have committed or to be the caller's own: visible unless a
// committed transaction (or the caller) updated or deleted it. xmaxRunning
// is the running updater of a visible version, if any.
func (r *Relation) dirtyVisible(t Tuple, tx *Txn) (visible bool, xmaxRunning xact.XID) {
	x := r.env.Xact
	mask := t.Infomask()
	if mask&XminInvalid != 0 && mask&XminCommitted == 0 {
		return false, 0
	}
	if mask&XmaxInvalid != 0 || lockedOnly(mask) {
		return true, 0
	}
	upd := UpdateXid(x, t)
	if upd == xact.InvalidXid {
		return true, 0
	}
	if tx.IsCurrent(upd) {
		return false, 0
	}
	switch x.State(upd) {
	case xact.InProgress:
		return true, upd
	case xact.Committed:
		return false, 0
	}
	return true, 0
}
