package xact

import (
	"context"
	"errors"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Row locks live in the tuples themselves (xmax, or a multixact in xmax);
// the lock manager sees them only while someone waits. A backend that must
// wait for a row first takes the heavyweight lock on the tuple (TupleTag)
// in the mode matching its row-lock strength, then waits for the xids
// holding the row (WaitForXid, MultiWait), and drops the tuple lock once it
// has set its own xmax (PostgreSQL's heap_acquire_tuplock): so waiters for
// one row are served in arrival order, a strong locker is not starved by a
// stream of weak ones, and every wait is an edge of the wait-for graph the
// deadlock detector searches.

// TupleTag names the heavyweight lock of one row version's TID.
func TupleTag(rel, block, offset uint32) LockTag {
	return LockTag{Kind: LockTuple, A: rel, B: block, C: offset}
}

// TryLock takes a lock only if that needs no waiting: ok=false when it
// would have to wait.
func (m *Manager) TryLock(p *Proc, tag LockTag, mode LockMode) (bool, error) {
	err := m.Lock(context.Background(), p, tag, mode, true)
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Code == pgerr.LockNotAvailable {
		return false, nil
	}
	return err == nil, err
}

// ConditionalWaitForXid reports whether transaction xid has ended, without
// sleeping (ConditionalXactLockTableWait).
func (m *Manager) ConditionalWaitForXid(p *Proc, xid XID) bool {
	if !m.IsRunning(xid) {
		return true
	}
	tag := XactLockTag(xid)
	ok, err := m.TryLock(p, tag, ShareLock)
	if err != nil || !ok {
		return false
	}
	m.Unlock(p, tag, ShareLock)
	return true
}
