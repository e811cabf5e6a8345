package predicate

// Release ends the transaction's part in SSI (ReleasePredicateLocks),
// after the commit log has its final status. A committed transaction's
// record and locks stay while a transaction that overlaps it runs; a
// rolled-back one goes at once.
func (sx *Xact) Release(committed bool) {
	if sx == nil {
		return
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.off.Load() {
		return
	}
	m.releaseLocked(sx, committed)
}

// releaseIfSafeLocked: a read-only transaction whose snapshot turned out
// safe needs no more predicate locks or checks
// (ReleasePredicateLocksIfROSafe); it goes on as REPEATABLE READ.
func (sx *Xact) releaseIfSafeLocked() bool {
	if !sx.has(flagROSafe) {
		return false
	}
	sx.m.releaseLocked(sx, false)
	return true
}

func (m *Manager) releaseLocked(sx *Xact, committed bool) {
	sx.off.Store(true)
	delete(m.active, sx)
	declaredRO := sx.has(flagDeclaredRO)
	if committed {
		sx.flags |= flagCommitted
		m.lastCommitSeq++
		sx.commitSeq = m.lastCommitSeq
		if !sx.didWrite {
			sx.flags |= flagReadOnly // implicitly read only
		}
	} else {
		sx.flags |= flagDoomed | flagRolledBack
		sx.flags &^= flagPrepared
	}
	if !declaredRO {
		if m.writable--; m.writable == 0 {
			// No writable transaction is left to conflict with the locks
			// of those committed so far, nor can a new one overlap them.
			m.canPartialClearThrough = m.lastCommitSeq
		}
	} else {
		for w := range sx.unsafe {
			delete(w.unsafe, sx)
		}
		sx.unsafe = nil
	}
	m.settleOutConflictsLocked(sx, committed)
	for r := range sx.in {
		if !committed || r.has(flagCommitted) || r.has(flagReadOnly) {
			m.dropConflictLocked(r, sx)
		}
	}
	if !declaredRO {
		m.settleReadOnlyLocked(sx, committed)
	}
	if committed {
		m.finished = append(m.finished, sx)
	} else {
		m.forgetLocked(sx)
	}
	m.clearOldLocked()
}

// settleOutConflictsLocked notes, for a committing transaction, whether it
// has a conflict out to one committed before it (SXACT_FLAG_CONFLICT_OUT,
// with the earliest such commit), and drops the out-conflicts no longer
// needed.
func (m *Manager) settleOutConflictsLocked(sx *Xact, committed bool) {
	for w := range sx.out {
		if committed && !sx.has(flagReadOnly) && w.has(flagCommitted) {
			if !sx.has(flagConflictOut) || w.prepareSeq < sx.earliestOutConflictCommit {
				sx.earliestOutConflictCommit = w.prepareSeq
			}
			sx.flags |= flagConflictOut
		}
		if !committed || w.has(flagCommitted) || w.snapSeq >= m.lastCommitSeq {
			m.dropConflictLocked(sx, w)
		}
	}
}

// settleReadOnlyLocked removes a writable transaction from the read-only
// transactions it overlapped: one it may have made unsafe (it committed
// with a conflict out to a transaction committed before the read-only
// snapshot) is flagged unsafe; one with no overlapping writer left is
// safe. Waiting DEFERRABLE transactions are woken.
func (m *Manager) settleReadOnlyLocked(sx *Xact, committed bool) {
	wake := false
	for ro := range sx.unsafe {
		if committed && sx.didWrite && sx.has(flagConflictOut) && sx.earliestOutConflictCommit <= ro.snapSeq {
			ro.flags |= flagROUnsafe
		}
		delete(ro.unsafe, sx)
		if len(ro.unsafe) == 0 && !ro.has(flagROUnsafe) {
			ro.flags |= flagROSafe
		}
		if ro.has(flagDeferWaiting) && ro.has(flagROSafe|flagROUnsafe) {
			wake = true
		}
	}
	sx.unsafe = nil
	if wake {
		m.safeWake.Broadcast()
	}
}

func (m *Manager) dropConflictLocked(reader, writer *Xact) {
	delete(reader.out, writer)
	delete(writer.in, reader)
}

// forgetLocked removes a record entirely (ReleaseOneSerializableXact).
func (m *Manager) forgetLocked(sx *Xact) {
	sx.dropAllLocksLocked()
	for w := range sx.out {
		m.dropConflictLocked(sx, w)
	}
	for r := range sx.in {
		m.dropConflictLocked(r, sx)
	}
	for o := range sx.unsafe {
		delete(o.unsafe, sx)
	}
	if sx.topXid != 0 && m.byXid[sx.topXid] == sx {
		delete(m.byXid, sx.topXid)
	}
	m.live.Add(-1)
}

// clearOldLocked drops committed records no running serializable
// transaction overlaps (ClearOldPredicateLocks): every running one took
// its snapshot after they committed. Committed ones that only read-only
// transactions overlap lose their locks and conflicts in (no write can
// come to conflict with them), keeping their conflicts out for the
// read-only readers' checks.
func (m *Manager) clearOldLocked() {
	oldest := ^uint64(0)
	for a := range m.active {
		oldest = min(oldest, a.snapSeq)
	}
	kept := m.finished[:0]
	for _, f := range m.finished {
		switch {
		case f.commitSeq <= oldest:
			m.forgetLocked(f)
		case f.commitSeq <= m.canPartialClearThrough && f.has(flagReadOnly):
			m.forgetLocked(f)
		default:
			if f.commitSeq <= m.canPartialClearThrough {
				// Partly: only its conflicts out can still matter.
				f.dropAllLocksLocked()
				for r := range f.in {
					m.dropConflictLocked(r, f)
				}
			}
			kept = append(kept, f)
		}
	}
	for i := len(kept); i < len(m.finished); i++ {
		m.finished[i] = nil
	}
	m.finished = kept
}
