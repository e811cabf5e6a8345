package xact

import (
	"sort"

	"github.com/tidal-db/tidal/internal/wal"
)

// Subtransactions (SAVEPOINT … RELEASE / ROLLBACK TO), as PostgreSQL's.
//
// A backend's transaction is a stack of levels: level 1 is the top-level
// transaction, each open subtransaction adds one. A level gets an xid only
// when it first writes (AssignXid assigns the missing xids of every level
// from the top down, so a parent's xid always precedes its children's and
// SubTrans can map each to its parent). Every xid of the transaction that
// has not been rolled back — the top's, those of open levels and those of
// released ones — is "current" (IsCurrentXid, PostgreSQL's
// TransactionIdIsCurrentTransactionId): the backend sees its own rows in
// all of them.
//
//   - RELEASE (ReleaseSubXact) folds the level into its parent: its xids
//     become the parent's children and its locks the parent's. Nothing is
//     logged; the xids stay running until the top level ends.
//   - ROLLBACK TO (RollbackSubXact) aborts the level: its xids (its own and
//     its released children's) are marked aborted in the commit log behind
//     an abort record, leave the running set and stop being current, and
//     the locks taken inside it are released, which wakes whoever waits on
//     its rows.
//   - The top-level commit record lists every live subxid, so commit (and
//     crash recovery) marks them committed together with the top; the abort
//     record does the same for an abort.
//
// Other backends see a running subxid as running because it is in the
// running set; snapshots list the subxids of each backend unless it has
// more than MaxCachedSubxids, in which case the snapshot is "overflowed"
// and XidInSnapshot maps an unknown xid to its top level through SubTrans
// (PostgreSQL's PGPROC subxid cache and suboverflowed snapshots).
//
// Writers of a Proc's level stack and subxid list are its own backend,
// holding m.mu; other backends read them only under m.mu, so the owner may
// read them without it.

// MaxCachedSubxids is how many subxids of one backend a snapshot lists
// before it is marked overflowed (PGPROC_MAX_CACHED_SUBXIDS).
const MaxCachedSubxids = 64

// subXact is one open subtransaction level.
type subXact struct {
	xid XID // InvalidXid until the level writes
	// children are the xids of released subtransactions inside this level;
	// they commit or abort with it.
	children []XID
}

// SubLevel is the nesting level of p's transaction: 1 in a top-level
// transaction, 2 inside one SAVEPOINT, and so on.
func (p *Proc) SubLevel() int { return 1 + len(p.subs) }

// IsCurrentXid reports whether xid is one of the xids of p's running
// transaction that has not been rolled back: the top level's, or a
// subtransaction's that is open or was released. Only p's own backend may
// call it.
func (p *Proc) IsCurrentXid(xid XID) bool {
	if xid == InvalidXid {
		return false
	}
	if xid == p.xid.Load() {
		return true
	}
	return p.isCurrentSubxid(xid)
}

func (p *Proc) isCurrentSubxid(xid XID) bool {
	n := len(p.subxids)
	if n == 0 {
		return false
	}
	// subxids ascend in assignment order (all within 2^31 of each other).
	i := sort.Search(n, func(i int) bool { return FollowsOrEquals(p.subxids[i], xid) })
	return i < n && p.subxids[i] == xid
}

// CurrentXid is the xid that p's writes are stamped with now: the
// innermost level's (InvalidXid if it has not written).
func (p *Proc) CurrentXid() XID {
	if n := len(p.subs); n > 0 {
		return p.subs[n-1].xid
	}
	return p.xid.Load()
}

// BeginSubXact opens a subtransaction (SAVEPOINT). It has no xid until it
// writes.
func (m *Manager) BeginSubXact(p *Proc) {
	m.mu.Lock()
	p.subs = append(p.subs, subXact{})
	m.mu.Unlock()
	m.runCallbacks(p, func(c Callbacks) func(*Proc) { return c.SubBegin })
}

// ReleaseSubXact ends the innermost subtransaction as sub-committed
// (RELEASE): its xids and locks pass to its parent level.
func (m *Manager) ReleaseSubXact(p *Proc) {
	defer m.runCallbacks(p, func(c Callbacks) func(*Proc) { return c.SubRelease })
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(p.subs)
	if n == 0 {
		panic("xact: ReleaseSubXact without a subtransaction")
	}
	level := p.SubLevel()
	s := p.subs[n-1]
	p.subs = p.subs[:n-1]
	if n >= 2 {
		parent := &p.subs[n-2]
		if s.xid != InvalidXid {
			parent.children = append(parent.children, s.xid)
		}
		parent.children = append(parent.children, s.children...)
	}
	m.locks.passToParent(p, level)
}

// RollbackSubXact aborts the innermost subtransaction (ROLLBACK TO, or an
// error inside it): its xids are recorded as aborted, stop being running
// and current, and the locks taken inside it are released.
func (m *Manager) RollbackSubXact(p *Proc) {
	n := len(p.subs)
	if n == 0 {
		panic("xact: RollbackSubXact without a subtransaction")
	}
	m.runCallbacks(p, func(c Callbacks) func(*Proc) { return c.BeforeSubAbort })
	level := p.SubLevel()
	s := p.subs[n-1]
	var xids []XID
	if s.xid != InvalidXid {
		xids = append(xids, s.xid)
	}
	xids = append(xids, s.children...)
	if len(xids) > 0 {
		// Advisory, like a top-level abort record: without it a crash
		// leaves the xids "in progress", which reads as aborted too.
		rec := wal.NewRecord(wal.RmXact, InfoAbort, xids[0])
		rec.SetMain(encodeXactMain(nil, xids[1:]))
		_, _ = m.wal.Insert(nil, rec)
		for _, x := range xids {
			m.clog.Set(x, Aborted)
		}
	}
	m.mu.Lock()
	p.subs = p.subs[:n-1]
	for _, x := range xids {
		delete(m.running, x)
	}
	p.subxids = removeXids(p.subxids, xids)
	m.mu.Unlock()
	// The aborted xids' own locks go with the level's, so waiters on
	// their rows wake and find them aborted.
	m.locks.releaseLevel(p, level)
}

// assignSubxids gives every open level without an xid one, outermost
// first, each recorded in SubTrans under its parent. m.mu is held and the
// top level already has its xid.
func (m *Manager) assignSubxids(p *Proc) error {
	parent := p.xid.Load()
	for i := range p.subs {
		s := &p.subs[i]
		if s.xid != InvalidXid {
			parent = s.xid
			continue
		}
		x, err := m.newXid()
		if err != nil {
			return err
		}
		if err := m.subtrans.SetParent(x, parent); err != nil {
			return err
		}
		s.xid = x
		p.subxids = append(p.subxids, x)
		m.running[x] = p
		m.grantXactLock(p, x, i+2)
		parent = x
	}
	return nil
}

// liveSubxids is every subxid of p's transaction that was not rolled back.
func (p *Proc) liveSubxids() []XID { return p.subxids }

func removeXids(list, gone []XID) []XID {
	if len(gone) == 0 {
		return list
	}
	drop := make(map[XID]bool, len(gone))
	for _, x := range gone {
		drop[x] = true
	}
	out := list[:0]
	for _, x := range list {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

// SubTrans is the subtransaction parent map.
func (m *Manager) SubTrans() *SubTrans { return m.subtrans }

// TopmostXid maps a subtransaction id to its top-level transaction's id
// (itself for a top-level xid), as far as the parent map still knows.
func (m *Manager) TopmostXid(xid XID) XID { return m.subtrans.Topmost(xid) }
