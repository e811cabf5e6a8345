package predicate

// budgetFactor times max_pred_locks_per_transaction is how many SIREAD
// locks one transaction may hold before a new one is taken on its whole
// relation instead. PostgreSQL shares max_pred_locks_per_transaction ×
// max_connections slots among all transactions and fails with "out of
// shared memory" when they run out; promoting keeps the transaction
// correct (a coarser lock covers more) and memory bounded.
const budgetFactor = 16

// LockRelation takes a SIREAD lock on a whole relation (a sequential scan;
// an index scan that found the index empty). A nil record does nothing.
func (sx *Xact) LockRelation(rel uint32) { sx.lock(RelationTarget(rel)) }

// LockPage takes a SIREAD lock on an index page the scan read. Call it
// while the page is still locked, so a split copies it (PageSplit).
func (sx *Xact) LockPage(rel, blk uint32) { sx.lock(PageTarget(rel, blk)) }

// LockTuple takes a SIREAD lock on a heap tuple the transaction read.
// Versions the transaction wrote itself need none (the caller skips them).
func (sx *Xact) LockTuple(rel, blk uint32, off uint16) { sx.lock(TupleTarget(rel, blk, off)) }

func (sx *Xact) lock(t Target) {
	if sx == nil || t.Rel < FirstUserRel || sx.off.Load() {
		return
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.releaseIfSafeLocked() {
		return
	}
	sx.acquireLocked(t)
}

// covered: the transaction holds t or a coarser lock over it.
func (sx *Xact) covered(t Target) bool {
	for c, ok := t, true; ok; c, ok = c.parent() {
		if _, held := sx.locks[c]; held {
			return true
		}
	}
	return false
}

// acquireLocked takes t (PredicateLockAcquire): unless already covered,
// the lock is created, then promoted to a coarser one when the count of
// locks under an ancestor passes its threshold, or else it replaces the
// finer locks it covers.
func (sx *Xact) acquireLocked(t Target) {
	if sx.covered(t) {
		return
	}
	sx.addLockLocked(t)
	if sx.children == nil {
		sx.children = map[Target]int{}
	}
	var promote Target
	promoting := false
	for c, ok := t.parent(); ok; c, ok = c.parent() {
		sx.children[c]++
		if sx.children[c] > sx.m.threshold(c) {
			promote, promoting = c, true
		}
	}
	if !promoting && len(sx.locks) > budgetFactor*max(sx.m.limits.PerXact, 1) && t.Block != InvalidBlock {
		promote, promoting = RelationTarget(t.Rel), true
	}
	if promoting {
		sx.acquireLocked(promote)
		return
	}
	if t.Offset == 0 {
		sx.deleteChildrenLocked(t)
	}
}

// threshold is PredicateLockPromotionThreshold: a relation lock replaces
// more than this many finer locks in it, a page lock more than this many
// tuple locks on it.
func (m *Manager) threshold(t Target) int {
	if t.Block != InvalidBlock {
		return m.limits.PerPage
	}
	if m.limits.PerRelation < 0 {
		return m.limits.PerXact/(-m.limits.PerRelation) - 1
	}
	return m.limits.PerRelation
}

func (sx *Xact) addLockLocked(t Target) {
	if sx.locks == nil {
		sx.locks = map[Target]struct{}{}
	}
	sx.locks[t] = struct{}{}
	h := sx.m.targets[t]
	if h == nil {
		h = map[*Xact]struct{}{}
		sx.m.targets[t] = h
	}
	h[sx] = struct{}{}
}

// removeLockLocked drops one held lock and its share of the ancestors'
// counts (DeletePredicateLock with DecrementParentLocks).
func (sx *Xact) removeLockLocked(t Target) {
	delete(sx.locks, t)
	delete(sx.seen, t)
	if h := sx.m.targets[t]; h != nil {
		delete(h, sx)
		if len(h) == 0 {
			delete(sx.m.targets, t)
		}
	}
	for c, ok := t.parent(); ok; c, ok = c.parent() {
		if n := sx.children[c] - 1; n > 0 {
			sx.children[c] = n
		} else {
			delete(sx.children, c)
		}
	}
}

// deleteChildrenLocked drops the finer locks t covers (DeleteChildTargetLocks).
func (sx *Xact) deleteChildrenLocked(t Target) {
	for l := range sx.locks {
		if l != t && l.Rel == t.Rel && (t.Block == InvalidBlock || l.Block == t.Block) {
			sx.removeLockLocked(l)
		}
	}
}

// dropAllLocksLocked releases every SIREAD lock the transaction holds.
func (sx *Xact) dropAllLocksLocked() {
	for l := range sx.locks {
		if h := sx.m.targets[l]; h != nil {
			delete(h, sx)
			if len(h) == 0 {
				delete(sx.m.targets, l)
			}
		}
	}
	sx.locks, sx.children, sx.seen = nil, nil, nil
}

// PageSplit gives every holder of a lock on an index page the same lock
// on the page's new right sibling (PredicateLockPageSplit): the keys that
// moved there stay covered. Call it while both pages are locked.
func (m *Manager) PageSplit(rel, oldBlk, newBlk uint32) {
	if !m.Active() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.copyPageLocksLocked(rel, oldBlk, newBlk)
}

// PageCombine moves the locks of an index page that is being deleted to
// the page that takes over its key space (PredicateLockPageCombine).
func (m *Manager) PageCombine(rel, oldBlk, newBlk uint32) {
	if !m.Active() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.copyPageLocksLocked(rel, oldBlk, newBlk)
	old := PageTarget(rel, oldBlk)
	for sx := range m.targets[old] {
		sx.removeLockLocked(old)
	}
}

func (m *Manager) copyPageLocksLocked(rel, oldBlk, newBlk uint32) {
	nt := PageTarget(rel, newBlk)
	for sx := range m.targets[PageTarget(rel, oldBlk)] {
		if sx.covered(nt) {
			continue
		}
		sx.addLockLocked(nt)
		if sx.children == nil {
			sx.children = map[Target]int{}
		}
		sx.children[RelationTarget(rel)]++
	}
}

// RelationMoved gives every holder of a SIREAD lock on relation file
// oldRel a lock on the whole of relation file newRel
// (TransferPredicateLocksToHeapRelation): a TRUNCATE or table rewrite
// moves a table or index to a new file, a dropped index's readers must
// still conflict with writes to its table. The old locks stay, in case
// the DDL rolls back.
func (m *Manager) RelationMoved(oldRel, newRel uint32) {
	if !m.Active() || newRel < FirstUserRel {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var holders []*Xact
	for t, h := range m.targets {
		if t.Rel != oldRel {
			continue
		}
		for sx := range h {
			holders = append(holders, sx)
		}
	}
	for _, sx := range holders {
		sx.acquireLocked(RelationTarget(newRel))
	}
}

// LockInfo is one SIREAD lock, for pg_locks.
type LockInfo struct {
	Target Target
	PID    int32
	VXid   string // the holder's virtual transaction id
}

// Locks lists the SIREAD locks held now, of running and of committed
// transactions still retained.
func (m *Manager) Locks() []LockInfo {
	if !m.Active() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []LockInfo
	for t, h := range m.targets {
		for sx := range h {
			out = append(out, LockInfo{Target: t, PID: sx.pid, VXid: sx.vxid})
		}
	}
	return out
}
