package xact

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// LockMode is a heavyweight lock mode, PostgreSQL's eight table-level
// modes (the numbering is PostgreSQL's).
type LockMode int

const (
	NoLock LockMode = iota
	AccessShareLock
	RowShareLock
	RowExclusiveLock
	ShareUpdateExclusiveLock
	ShareLock
	ShareRowExclusiveLock
	ExclusiveLock
	AccessExclusiveLock
)

var modeNames = [...]string{"NoLock", "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock", "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"}

func (m LockMode) String() string { return modeNames[m] }

// conflicts[m] is the set of modes that conflict with m (bit i = mode i).
var conflicts = [...]uint16{
	0,
	1 << AccessExclusiveLock,
	1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<RowShareLock | 1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	1<<AccessShareLock | 1<<RowShareLock | 1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
}

// Conflicts reports whether two modes conflict.
func Conflicts(a, b LockMode) bool { return conflicts[a]&(1<<b) != 0 }

// Lock tag kinds.
const (
	LockRelation    uint8 = 1 // A = relation oid
	LockTransaction uint8 = 2 // A = xid
	LockAdvisory    uint8 = 5 // A, B = high and low halves of a bigint key
	LockAdvisory2   uint8 = 6 // A, B = a key of two integers
	LockTuple       uint8 = 7 // A = relation oid, B = block, C = offset (TupleTag)
)

// AdvisoryTag is the tag of the advisory lock on a bigint key.
func AdvisoryTag(key uint64) LockTag {
	return LockTag{Kind: LockAdvisory, A: uint32(key >> 32), B: uint32(key)}
}

// AdvisoryPairTag is the tag of the advisory lock on a pair of integers.
func AdvisoryPairTag(k1, k2 uint32) LockTag { return LockTag{Kind: LockAdvisory2, A: k1, B: k2} }

// LockTag names a lockable object.
type LockTag struct {
	Kind uint8
	A    uint32
	B    uint32
	C    uint32
}

// RelationTag is the tag of a relation's lock.
func RelationTag(oid uint32) LockTag { return LockTag{Kind: LockRelation, A: oid} }

// heldLock is what one backend holds of one lock: how many times in each
// mode for its transaction (released at transaction end) and for its
// session (advisory locks taken with session scope, which outlive
// transactions).
type heldLock struct {
	counts  [AccessExclusiveLock + 1]int
	session [AccessExclusiveLock + 1]int
}

func (h *heldLock) mask() uint16 {
	var m uint16
	for i := range h.counts {
		if h.counts[i] > 0 || h.session[i] > 0 {
			m |= 1 << i
		}
	}
	return m
}

// Lock owners, by level: SessionLevel for session-scoped locks, 1 for the
// top-level transaction, 2 and up for subtransactions (Proc.SubLevel).
const SessionLevel = 0

// lockLogEntry is one grant made inside a subtransaction. A backend's
// entries are in grant order, and every entry of level L or deeper was
// made after level L began, so the entries of the innermost level are
// always the tail of the log: rolling it back pops them, releasing it
// relabels them (PostgreSQL's resource owners, reduced to a stack).
type lockLogEntry struct {
	tag   LockTag
	mode  LockMode
	level int
}

type lockWaiter struct {
	proc  *Proc
	tag   LockTag
	mode  LockMode
	level int // the owner the lock is granted to
	done  chan error
	since time.Time // when the wait began (pg_locks.waitstart)
}

type lockState struct {
	holders map[*Proc]*heldLock
	waiters []*lockWaiter
}

// lockManager grants heavyweight locks. One mutex guards everything: lock
// traffic is per statement, not per row.
type lockManager struct {
	m     *Manager
	locks map[LockTag]*lockState

	// held counts (proc, lock) pairs, PostgreSQL's PROCLOCK entries: the
	// shared lock table's size is what max_locks_per_transaction bounds.
	held int
	// capacity is max_locks_per_transaction × (max_connections +
	// max_prepared_transactions); 0 means unbounded (unit tests).
	capacity int
}

// SetLockTableSize bounds the lock table at n (proc, lock) pairs, as
// PostgreSQL's shared lock table is sized from max_locks_per_transaction.
// A request for a lock the backend does not yet hold fails with 53200
// when the table is full.
func (m *Manager) SetLockTableSize(n int) {
	m.mu.Lock()
	m.locks.capacity = n
	m.mu.Unlock()
}

// full reports whether p's request for tag would need a new entry in a
// full table. m.mu is held.
func (lm *lockManager) full(p *Proc, tag LockTag) bool {
	if lm.capacity <= 0 || lm.held < lm.capacity {
		return false
	}
	_, holds := p.held[tag]
	return !holds
}

// errLockTableFull is PostgreSQL's error when the shared lock table has
// no room (it says shared memory, where the table lives).
func errLockTableFull() error {
	return pgerr.Errorf(pgerr.OutOfMemory, "out of shared memory").
		WithHint("You might need to increase max_locks_per_transaction.")
}

func newLockManager(m *Manager) *lockManager {
	return &lockManager{m: m, locks: map[LockTag]*lockState{}}
}

// conflictsWithOthers: does mode conflict with a mode another proc holds?
func (st *lockState) conflictsWithOthers(p *Proc, mode LockMode) bool {
	for q, h := range st.holders {
		if q != p && h.mask()&conflicts[mode] != 0 {
			return true
		}
	}
	return false
}

// Lock acquires a heavyweight lock for p's transaction, waiting if needed.
// Waiting ends with the lock, with ctx's error (cancel, statement_timeout),
// with 55P03 after the lock_timeout ctx carries (interrupt.LockTimeout),
// or with 40P01 when waiting would close a cycle of waiters.
func (m *Manager) Lock(ctx context.Context, p *Proc, tag LockTag, mode LockMode, nowait bool) error {
	return m.lock(ctx, p, tag, mode, nowait, -1)
}

// LockSession is Lock for a lock held until UnlockSession or the end of
// the session, not of the transaction (session advisory locks).
func (m *Manager) LockSession(ctx context.Context, p *Proc, tag LockTag, mode LockMode, nowait bool) error {
	return m.lock(ctx, p, tag, mode, nowait, SessionLevel)
}

// lock grants to owner level (-1: p's current transaction level).
func (m *Manager) lock(ctx context.Context, p *Proc, tag LockTag, mode LockMode, nowait bool, level int) error {
	lm := m.locks
	m.mu.Lock()
	if level < 0 {
		level = p.SubLevel()
	}
	if lm.full(p, tag) {
		m.mu.Unlock()
		return errLockTableFull()
	}
	st := lm.locks[tag]
	if st == nil {
		st = &lockState{holders: map[*Proc]*heldLock{}}
		lm.locks[tag] = st
	}
	if !st.conflictsWithOthers(p, mode) && !lm.queuedConflict(st, p, mode) {
		lm.grant(st, p, tag, mode, level)
		m.mu.Unlock()
		return nil
	}
	if nowait {
		m.mu.Unlock()
		return pgerr.Errorf(pgerr.LockNotAvailable, "could not obtain lock on %s", describeTag(tag))
	}
	w := &lockWaiter{proc: p, tag: tag, mode: mode, level: level, done: make(chan error, 1), since: time.Now()}
	p.waiting = w
	if lm.deadlocked(p) {
		p.waiting = nil
		m.mu.Unlock()
		m.countDeadlock()
		return lm.deadlockError(p, tag, mode)
	}
	st.waiters = append(st.waiters, w)
	blockedByYielder := len(st.yieldingHolders(p, mode)) > 0
	m.mu.Unlock()

	var timedOut <-chan time.Time
	if d := interrupt.LockTimeout(ctx); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timedOut = t.C
	}
	// Behind an autovacuum, after deadlock_timeout the wait asks it to
	// give way (PostgreSQL's deadlock checker cancels a blocking
	// autovacuum worker).
	var yieldDue <-chan time.Time
	if blockedByYielder {
		t := time.NewTimer(interrupt.DeadlockTimeout(ctx))
		defer t.Stop()
		yieldDue = t.C
	}
	for {
		select {
		case err := <-w.done:
			return err
		case <-yieldDue:
			yieldDue = nil
			m.cancelYielders(st, p, tag, mode)
		case <-ctx.Done():
			if err := m.abandonWait(st, w); err != nil && err != errGrantedMeanwhile {
				return err
			}
			return ctx.Err()
		case <-timedOut:
			err := m.abandonWait(st, w)
			if err == errGrantedMeanwhile {
				return nil
			}
			return interrupt.LockTimeoutError()
		}
	}
}

// errGrantedMeanwhile: abandonWait found the lock granted after all.
var errGrantedMeanwhile = errors.New("lock granted while giving up")

// abandonWait takes w out of the queue after its wait was interrupted. If
// the lock was granted (or the wait failed) just as the waiter gave up,
// the lock stays held until its owner ends and it returns
// errGrantedMeanwhile (or the wait's error); else nil.
func (m *Manager) abandonWait(st *lockState, w *lockWaiter) error {
	lm := m.locks
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case err := <-w.done:
		if err == nil {
			return errGrantedMeanwhile
		}
		return err
	default:
	}
	lm.removeWaiter(st, w)
	w.proc.waiting = nil
	lm.wake(w.tag, st)
	return nil
}

// queuedConflict: a newcomer must not jump ahead of a waiter it conflicts
// with (unless it already holds a lock on the object, as PostgreSQL).
func (lm *lockManager) queuedConflict(st *lockState, p *Proc, mode LockMode) bool {
	if _, holds := st.holders[p]; holds {
		return false
	}
	for _, w := range st.waiters {
		if Conflicts(w.mode, mode) {
			return true
		}
	}
	return false
}

func (lm *lockManager) grant(st *lockState, p *Proc, tag LockTag, mode LockMode, level int) {
	h := st.holders[p]
	if h == nil {
		h = &heldLock{}
		st.holders[p] = h
		p.held[tag] = h
		lm.held++
	}
	if level == SessionLevel {
		h.session[mode]++
		return
	}
	h.counts[mode]++
	if level > 1 {
		p.lockLog = append(p.lockLog, lockLogEntry{tag, mode, level})
	}
}

func (lm *lockManager) removeWaiter(st *lockState, w *lockWaiter) {
	for i, x := range st.waiters {
		if x == w {
			st.waiters = append(st.waiters[:i], st.waiters[i+1:]...)
			return
		}
	}
}

// wake grants queued requests that no longer conflict, in queue order.
func (lm *lockManager) wake(tag LockTag, st *lockState) {
	var granted []*lockWaiter
	var ahead uint16 // modes requested by waiters still queued before
	rest := st.waiters[:0]
	for _, w := range st.waiters {
		if !st.conflictsWithOthers(w.proc, w.mode) && ahead&conflicts[w.mode] == 0 {
			lm.grant(st, w.proc, tag, w.mode, w.level)
			w.proc.waiting = nil
			granted = append(granted, w)
			continue
		}
		ahead |= 1 << w.mode
		rest = append(rest, w)
	}
	st.waiters = rest
	for _, w := range granted {
		w.done <- nil
	}
	if len(st.holders) == 0 && len(st.waiters) == 0 {
		delete(lm.locks, tag)
	}
}

// releaseAll drops every transaction lock p holds (transaction end);
// session locks stay.
func (lm *lockManager) releaseAll(p *Proc) {
	m := lm.m
	m.mu.Lock()
	defer m.mu.Unlock()
	p.lockLog = nil
	for tag, h := range p.held {
		h.counts = [AccessExclusiveLock + 1]int{}
		lm.dropIfUnheld(p, tag, h)
	}
}

// releaseSession drops every session lock p holds.
func (lm *lockManager) releaseSession(p *Proc) {
	m := lm.m
	m.mu.Lock()
	defer m.mu.Unlock()
	for tag, h := range p.held {
		h.session = [AccessExclusiveLock + 1]int{}
		lm.dropIfUnheld(p, tag, h)
	}
}

// releaseLevel drops the locks granted at subtransaction level or deeper
// (the tail of p's lock log), as rolling that subtransaction back does.
func (lm *lockManager) releaseLevel(p *Proc, level int) {
	m := lm.m
	m.mu.Lock()
	defer m.mu.Unlock()
	i := len(p.lockLog)
	for i > 0 && p.lockLog[i-1].level >= level {
		i--
		e := p.lockLog[i]
		if h := p.held[e.tag]; h != nil && h.counts[e.mode] > 0 {
			h.counts[e.mode]--
			lm.dropIfUnheld(p, e.tag, h)
		}
	}
	p.lockLog = p.lockLog[:i]
}

// passToParent makes the locks of subtransaction level its parent's (the
// subtransaction was released).
func (lm *lockManager) passToParent(p *Proc, level int) {
	i := len(p.lockLog)
	for i > 0 && p.lockLog[i-1].level >= level {
		i--
		p.lockLog[i].level = level - 1
	}
	if level-1 == 1 {
		// The top level releases everything at once: no log needed.
		p.lockLog = p.lockLog[:i]
	}
}

// dropIfUnheld removes p from the lock's holders once p holds it in no
// mode, and wakes whoever the release lets in. m.mu is held.
func (lm *lockManager) dropIfUnheld(p *Proc, tag LockTag, h *heldLock) {
	st := lm.locks[tag]
	if h.mask() == 0 {
		if _, ok := p.held[tag]; ok {
			lm.held--
		}
		delete(p.held, tag)
		if st != nil {
			delete(st.holders, p)
		}
	}
	if st != nil {
		lm.wake(tag, st)
	}
}

// deadlocked reports whether p, about to wait, would wait (transitively)
// for itself. m.mu is held.
func (lm *lockManager) deadlocked(start *Proc) bool {
	seen := map[*Proc]bool{}
	var visit func(p *Proc) bool
	visit = func(p *Proc) bool {
		w := p.waiting
		if w == nil {
			return false
		}
		st := lm.locks[w.tag]
		if st == nil {
			return false
		}
		for q, h := range st.holders {
			if q == p || h.mask()&conflicts[w.mode] == 0 {
				continue
			}
			if q == start {
				return true
			}
			if !seen[q] {
				seen[q] = true
				if visit(q) {
					return true
				}
			}
		}
		// Soft edges: conflicting waiters queued ahead of p.
		for _, o := range st.waiters {
			if o == w {
				break
			}
			if Conflicts(o.mode, w.mode) {
				if o.proc == start {
					return true
				}
				if !seen[o.proc] {
					seen[o.proc] = true
					if visit(o.proc) {
						return true
					}
				}
			}
		}
		return false
	}
	return visit(start)
}

func (lm *lockManager) deadlockError(p *Proc, tag LockTag, mode LockMode) error {
	return pgerr.Errorf(pgerr.DeadlockDetected, "deadlock detected").
		WithDetail("Process %d waits for %s on %s; blocked by another process that waits for this one.", p.ID, mode, describeTag(tag)).
		WithHint("See server log for query details.")
}

func describeTag(t LockTag) string {
	switch t.Kind {
	case LockRelation:
		return fmt.Sprintf("relation %d of database 5", t.A)
	case LockTransaction:
		return fmt.Sprintf("transaction %d", t.A)
	case LockAdvisory:
		return fmt.Sprintf("advisory lock [5,%d,%d,1]", t.A, t.B)
	case LockAdvisory2:
		return fmt.Sprintf("advisory lock [5,%d,%d,2]", t.A, t.B)
	case LockTuple:
		return fmt.Sprintf("tuple (%d,%d) of relation %d of database 5", t.B, t.C, t.A)
	}
	return "object"
}

// XactLockTag is the tag every transaction holds exclusively while it runs.
func XactLockTag(xid XID) LockTag { return LockTag{Kind: LockTransaction, A: xid} }

// WaitForXid sleeps until transaction xid ends (XactLockTableWait): p
// takes and drops a share lock on xid's own lock, so a cycle of waiting
// transactions is detected as a deadlock.
func (m *Manager) WaitForXid(ctx context.Context, p *Proc, xid XID) error {
	if !m.IsRunning(xid) {
		return nil
	}
	tag := XactLockTag(xid)
	if err := m.Lock(ctx, p, tag, ShareLock, false); err != nil {
		return err
	}
	m.Unlock(p, tag, ShareLock)
	return nil
}

// Unlock releases one transaction hold of a lock before transaction end.
func (m *Manager) Unlock(p *Proc, tag LockTag, mode LockMode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := p.held[tag]
	if h == nil || h.counts[mode] == 0 {
		return
	}
	h.counts[mode]--
	// Forget the latest log entry of this grant, if it was logged.
	for i := len(p.lockLog) - 1; i >= 0; i-- {
		if e := p.lockLog[i]; e.tag == tag && e.mode == mode {
			p.lockLog = append(p.lockLog[:i], p.lockLog[i+1:]...)
			break
		}
	}
	m.locks.dropIfUnheld(p, tag, h)
}

// UnlockSession releases one session hold of a lock; it reports whether p
// held it.
func (m *Manager) UnlockSession(p *Proc, tag LockTag, mode LockMode) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := p.held[tag]
	if h == nil || h.session[mode] == 0 {
		return false
	}
	h.session[mode]--
	m.locks.dropIfUnheld(p, tag, h)
	return true
}

// ReleaseSessionLocks drops all of p's session locks
// (pg_advisory_unlock_all, and the end of the session).
func (m *Manager) ReleaseSessionLocks(p *Proc) { m.locks.releaseSession(p) }
