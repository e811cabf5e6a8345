package predicate

// Versioned tuple locks, for table formats that keep a row's versions at
// one TID (the undo access method updates in place).
//
// A heap's versions each have a TID of their own, so a SIREAD lock on a TID
// is a lock on one version, and the writer of a newer version conflicts
// only with its own readers. When every version of a row sits at the same
// TID, a plain tuple lock would make the writer of each later version
// conflict with the readers of every earlier one — an rw-edge PostgreSQL
// never has, which turns some non-dangerous structures into failures (the
// multiple-row-versions spec). So such a table names versions by a number
// that grows along a row's history (the undo AM: log positions):
//
//   - a reader locks the TID with seen, a number at or after the one of the
//     version it read and before the one of the version that replaces it
//     (LockTupleSeen);
//   - a writer replacing the version numbered since conflicts with a
//     holder of the TID's lock only if its seen ≥ since
//     (ConflictInSince); since 0 means "unknown" and conflicts with all.
//
// A tuple lock taken without a number (LockTuple) covers every version, as
// do page and relation locks. Numbers only ever remove edges between a
// reader and writers of versions newer than the one it read; those writers
// were preceded by the write that replaced the reader's version, which
// flagged the reader's edge already.

// LockTupleSeen takes a SIREAD lock on the version of the tuple at
// (rel, blk, off) that a reader read, numbered as above. Taking it again
// keeps the larger number (the same snapshot reads the same version).
func (sx *Xact) LockTupleSeen(rel, blk uint32, off uint16, seen uint64) {
	if sx == nil || rel < FirstUserRel || sx.off.Load() {
		return
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.releaseIfSafeLocked() {
		return
	}
	t := TupleTarget(rel, blk, off)
	if _, held := sx.locks[t]; held {
		if old, bounded := sx.seen[t]; bounded && seen > old {
			sx.seen[t] = seen
		}
		return
	}
	if sx.covered(t) {
		return
	}
	sx.acquireLocked(t)
	if _, held := sx.locks[t]; held { // not promoted to a coarser lock
		if sx.seen == nil {
			sx.seen = map[Target]uint64{}
		}
		sx.seen[t] = seen
	}
}

// ConflictInSince is ConflictIn for a write that replaces the version of
// the tuple numbered since (0: unknown).
func (sx *Xact) ConflictInSince(rel, blk uint32, off uint16, since uint64) error {
	return sx.conflictIn(rel, blk, off, since)
}

// readsReplaced: h's lock on tuple t is on a version older than the one a
// write replacing version since changes.
func (h *Xact) readsReplaced(t Target, since uint64) bool {
	seen, bounded := h.seen[t]
	return bounded && since != 0 && seen < since
}
