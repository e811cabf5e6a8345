// Package predicate is the predicate lock manager behind SERIALIZABLE:
// PostgreSQL's serializable snapshot isolation (predicate.c, README-SSI).
// See README.md for the design and its invariants.
package predicate

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/xact"
)

// InvalidBlock in a Target's Block makes it a relation target.
const InvalidBlock = ^uint32(0)

// FirstUserRel is the first relation file number that takes predicate
// locks: system catalogs are exempt, as in PostgreSQL
// (PredicateLockingNeededForRelation).
const FirstUserRel = 16384

// Target is what a SIREAD lock covers: a relation (Block InvalidBlock), a
// page (Offset 0) or a tuple. Relations are named by file number.
type Target struct {
	Rel    uint32
	Block  uint32
	Offset uint16
}

// RelationTarget, PageTarget and TupleTarget build targets.
func RelationTarget(rel uint32) Target  { return Target{Rel: rel, Block: InvalidBlock} }
func PageTarget(rel, blk uint32) Target { return Target{Rel: rel, Block: blk} }
func TupleTarget(rel, blk uint32, off uint16) Target {
	return Target{Rel: rel, Block: blk, Offset: off}
}

// parent is the next coarser target; ok is false for a relation.
func (t Target) parent() (Target, bool) {
	switch {
	case t.Block == InvalidBlock:
		return Target{}, false
	case t.Offset == 0:
		return RelationTarget(t.Rel), true
	}
	return PageTarget(t.Rel, t.Block), true
}

// Kind names the target's granularity as pg_locks' locktype does.
func (t Target) Kind() string {
	switch {
	case t.Block == InvalidBlock:
		return "relation"
	case t.Offset == 0:
		return "page"
	}
	return "tuple"
}

// Limits are the promotion thresholds, PostgreSQL's settings.
type Limits struct {
	PerXact     int // max_pred_locks_per_transaction (64)
	PerRelation int // max_pred_locks_per_relation (-2: PerXact / 2)
	PerPage     int // max_pred_locks_per_page (2)
}

// DefaultLimits are PostgreSQL 15's defaults.
var DefaultLimits = Limits{PerXact: 64, PerRelation: -2, PerPage: 2}

// Manager holds every serializable transaction of one engine, the SIREAD
// locks and the rw-conflicts between them. One mutex guards it all: only
// serializable transactions ever take it.
type Manager struct {
	xm     *xact.Manager
	limits Limits

	mu sync.Mutex
	// live counts registered records (active or finished but retained):
	// hooks that only matter when some exist test it without the mutex.
	live atomic.Int32
	// lastCommitSeq orders commits (PredXact->LastSxactCommitSeqNo).
	lastCommitSeq uint64
	// canPartialClearThrough: committed records with a commitSeq up to it
	// no longer need their locks (no writable transaction overlaps them).
	canPartialClearThrough uint64
	writable               int // active transactions not declared READ ONLY
	active                 map[*Xact]struct{}
	finished               []*Xact // committed, retained for overlapping readers
	byXid                  map[xact.XID]*Xact
	targets                map[Target]map[*Xact]struct{}
	safeWake               *sync.Cond // DEFERRABLE waiters
	nextID                 uint64
}

// NewManager makes an empty manager; xm maps subtransaction xids to their
// top level and takes snapshots.
func NewManager(xm *xact.Manager, limits Limits) *Manager {
	m := &Manager{xm: xm, limits: limits, active: map[*Xact]struct{}{},
		byXid: map[xact.XID]*Xact{}, targets: map[Target]map[*Xact]struct{}{}}
	m.safeWake = sync.NewCond(&m.mu)
	return m
}

// SetLimits changes the promotion thresholds (settings at start-up).
func (m *Manager) SetLimits(l Limits) {
	m.mu.Lock()
	m.limits = l
	m.mu.Unlock()
}

// Active reports whether any serializable record exists: while none does,
// nothing else here needs calling.
func (m *Manager) Active() bool { return m != nil && m.live.Load() > 0 }

type xactFlags uint16

const (
	flagReadOnly     xactFlags = 1 << iota // declared READ ONLY, or committed without writing
	flagDeclaredRO                         // declared READ ONLY at start
	flagPrepared                           // passed PreCommit (SXACT_FLAG_PREPARED)
	flagCommitted                          // committed
	flagDoomed                             // must roll back
	flagRolledBack                         // rolled back
	flagConflictOut                        // committed with a conflict out to an earlier committed transaction
	flagROSafe                             // read only, no longer needs predicate locks
	flagROUnsafe                           // read only, its snapshot may see an anomaly
	flagDeferWaiting                       // in BeginSafe, waiting for a verdict
)

// Xact is one serializable transaction's record (SERIALIZABLEXACT). Its
// fields are guarded by the manager's mutex, except where noted.
type Xact struct {
	m     *Manager
	id    uint64
	proc  *xact.Proc
	pid   int32
	vxid  string // the backend's virtual transaction id, for pg_locks
	snap  *xact.Snapshot
	flags xactFlags
	// off: the transaction no longer does anything here (a safe read-only
	// snapshot, or after its end). Read by hooks without the mutex.
	off atomic.Bool

	topXid xact.XID
	// snapSeq is lastCommitBeforeSnapshot: every commit with a sequence
	// number up to it is visible to the snapshot.
	snapSeq, prepareSeq, commitSeq uint64
	// earliestOutConflictCommit: the earliest prepareSeq of a committed
	// transaction this one has a conflict out to (set at commit).
	earliestOutConflictCommit uint64
	didWrite                  bool

	// The maps are nil until first written (most records have no
	// conflicts, many no locks).
	in  map[*Xact]struct{} // readers with an rw-conflict to this writer
	out map[*Xact]struct{} // writers this reader has an rw-conflict to
	// unsafe: for a read-only transaction, the concurrent writable ones
	// that could still make its snapshot unsafe; for a writable one, the
	// read-only transactions it could make unsafe.
	unsafe map[*Xact]struct{}

	locks map[Target]struct{}
	// seen: the version number of tuple locks taken by LockTupleSeen
	// (versions.go); a tuple lock without one covers every version.
	seen map[Target]uint64
	// children counts the locks held under each coarser target (the
	// LocalPredicateLockHash), whether or not it is itself held.
	children map[Target]int
}

func (sx *Xact) has(f xactFlags) bool { return sx.flags&f != 0 }

// PID is the backend's process id, for pg_locks.
func (sx *Xact) PID() int32 { return sx.pid }

// Begin registers a serializable transaction and takes its snapshot
// under the manager's mutex, so that the set of concurrent transactions
// and the snapshot agree (GetSerializableTransactionSnapshotInt). A
// read-only transaction with no concurrent writable one is safe from the
// start: it gets its snapshot and a nil record, and runs as REPEATABLE READ.
func (m *Manager) Begin(proc *xact.Proc, pid int32, readOnly bool) (*Xact, *xact.Snapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.beginLocked(proc, pid, readOnly)
}

func (m *Manager) beginLocked(proc *xact.Proc, pid int32, readOnly bool) (*Xact, *xact.Snapshot) {
	snap := m.xm.GetSnapshot(proc)
	if readOnly && m.writable == 0 {
		return nil, snap
	}
	m.nextID++
	sx := &Xact{m: m, id: m.nextID, proc: proc, pid: pid, vxid: proc.VirtualXid(), snap: snap, snapSeq: m.lastCommitSeq}
	if readOnly {
		sx.flags |= flagReadOnly | flagDeclaredRO
		for o := range m.active {
			if !o.has(flagCommitted | flagDoomed | flagReadOnly) {
				addTo(&sx.unsafe, o)
				addTo(&o.unsafe, sx)
			}
		}
		if len(sx.unsafe) == 0 {
			return nil, snap
		}
	} else {
		m.writable++
	}
	if x := proc.Xid(); x != xact.InvalidXid {
		sx.topXid = x
		m.byXid[x] = sx
	}
	m.active[sx] = struct{}{}
	m.live.Add(1)
	return sx, snap
}

// BeginSafe is Begin for SERIALIZABLE READ ONLY DEFERRABLE: it waits until
// its snapshot is known to be safe (no concurrent writable transaction can
// make it see an anomaly), retrying with a new snapshot when one turns out
// unsafe (GetSafeSnapshot). The transaction then runs without predicate
// locks. interrupted is asked after each wake-up; an error gives up.
func (m *Manager) BeginSafe(proc *xact.Proc, pid int32, interrupted func() error) (*xact.Snapshot, error) {
	// Commits wake the waiters; a ticker wakes them too, so that a cancel
	// is noticed.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(safeWaitPoll)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.WakeWaiters()
			case <-stop:
				return
			}
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		sx, snap := m.beginLocked(proc, pid, true)
		if sx == nil {
			return snap, nil
		}
		sx.flags |= flagDeferWaiting
		for len(sx.unsafe) > 0 && !sx.has(flagROUnsafe) {
			if err := interrupted(); err != nil {
				sx.flags &^= flagDeferWaiting
				m.releaseLocked(sx, false)
				return nil, err
			}
			m.safeWake.Wait()
		}
		sx.flags &^= flagDeferWaiting
		unsafe := sx.has(flagROUnsafe)
		m.releaseLocked(sx, false)
		if !unsafe {
			return snap, nil
		}
	}
}

// safeWaitPoll is how often a DEFERRABLE waiter looks for an interrupt.
const safeWaitPoll = 50 * time.Millisecond

// WakeWaiters wakes DEFERRABLE transactions waiting in BeginSafe so they
// look at their interrupts.
func (m *Manager) WakeWaiters() {
	m.mu.Lock()
	m.safeWake.Broadcast()
	m.mu.Unlock()
}

// noteXid records the transaction's top-level xid once it has one, so
// readers of its row versions find the record (RegisterPredicateLockingXid).
func (sx *Xact) noteXidLocked() {
	if sx.topXid != xact.InvalidXid {
		return
	}
	if x := sx.proc.Xid(); x != xact.InvalidXid {
		sx.topXid = x
		sx.m.byXid[x] = sx
	}
}

// addTo adds x to the set *set, making the set on first use.
func addTo(set *map[*Xact]struct{}, x *Xact) {
	if *set == nil {
		*set = map[*Xact]struct{}{}
	}
	(*set)[x] = struct{}{}
}
