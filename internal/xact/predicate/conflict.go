package predicate

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/xact"
)

// serializationFailure is PostgreSQL's 40001 error with one of its reason
// codes as DETAIL.
func serializationFailure(reason string, args ...any) error {
	return pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to read/write dependencies among transactions").
		WithDetail("Reason code: %s", fmt.Sprintf(reason, args...)).
		WithHint("The transaction might succeed if retried.")
}

// ConflictIn is called before the transaction writes: a tuple it updates
// or deletes (blk, off), an index page it inserts into (blk, off 0), or
// just the relation (blk InvalidBlock: a heap insert conflicts only with
// relation locks). Every other transaction holding a SIREAD lock on the
// tuple, its page or its relation read what this write changes: an
// rw-conflict from it to us (CheckForSerializableConflictIn). It fails with
// 40001 when the transaction was doomed or the conflict completes a
// dangerous structure with us as the pivot.
func (sx *Xact) ConflictIn(rel, blk uint32, off uint16) error {
	return sx.conflictIn(rel, blk, off, 0)
}

func (sx *Xact) conflictIn(rel, blk uint32, off uint16, since uint64) error {
	if sx == nil || sx.off.Load() {
		return nil
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.has(flagDoomed) {
		return serializationFailure("Canceled on identification as a pivot, during conflict in checking.")
	}
	sx.didWrite = true
	sx.noteXidLocked()
	if rel < FirstUserRel {
		return nil
	}
	if blk != InvalidBlock && off != 0 {
		t := TupleTarget(rel, blk, off)
		if err := sx.targetConflictsInLocked(t, since); err != nil {
			return err
		}
		// Writing the version supersedes our own SIREAD lock on it,
		// except in a subtransaction, which may roll the write back.
		if _, held := sx.locks[t]; held && sx.proc.SubLevel() == 1 {
			sx.removeLockLocked(t)
		}
	}
	if blk != InvalidBlock {
		if err := sx.targetConflictsInLocked(PageTarget(rel, blk), 0); err != nil {
			return err
		}
	}
	return sx.targetConflictsInLocked(RelationTarget(rel), 0)
}

// TableConflictIn is called before a write of every row of a table
// (TRUNCATE; CheckTableForSerializableConflictIn): every holder of a SIREAD
// lock of any granularity on the table's file gets an edge to us.
func (sx *Xact) TableConflictIn(rel uint32) error {
	if sx == nil || sx.off.Load() {
		return nil
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	sx.didWrite = true
	sx.noteXidLocked()
	if rel < FirstUserRel {
		return nil
	}
	var readers []*Xact
	for t, h := range m.targets {
		if t.Rel != rel {
			continue
		}
		for r := range h {
			readers = append(readers, r)
		}
	}
	for _, r := range readers {
		if _, dup := r.out[sx]; r == sx || dup {
			continue
		}
		if err := m.flagRWConflictLocked(r, sx, sx); err != nil {
			return err
		}
	}
	return nil
}

// targetConflictsInLocked flags a conflict from each holder of t that
// overlaps us (CheckTargetForConflictsIn): running, or committed after our
// snapshot — for a tuple, unless the holder read an older version than
// the one since numbers (versions.go).
func (sx *Xact) targetConflictsInLocked(t Target, since uint64) error {
	for h := range sx.m.targets[t] {
		if h == sx || h.has(flagDoomed) || h.readsReplaced(t, since) {
			continue
		}
		if h.has(flagCommitted) && h.commitSeq <= sx.snapSeq {
			continue
		}
		if _, dup := h.out[sx]; dup {
			continue
		}
		if err := sx.m.flagRWConflictLocked(h, sx, sx); err != nil {
			return err
		}
	}
	return nil
}

// ConflictOut is called when the transaction reads a row version that a
// transaction with top-level xid writer changed and it does not see
// (inserted it, invisible to the snapshot) or that it sees although writer
// deleted or updated it: an rw-conflict from us to writer, if writer is a
// concurrent serializable transaction (CheckForSerializableConflictOut).
func (sx *Xact) ConflictOut(writer xact.XID) error {
	if sx == nil || sx.off.Load() {
		return nil
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.releaseIfSafeLocked() {
		return nil
	}
	if sx.has(flagDoomed) {
		return serializationFailure("Canceled on identification as a pivot, during conflict out checking.")
	}
	if writer == sx.proc.Xid() {
		return nil
	}
	w := m.byXid[writer]
	if w == nil || w == sx || w.has(flagDoomed) {
		return nil
	}
	// A read-only transaction reading a committed writer without a
	// conflict out to an earlier commit appears to run before it.
	if sx.has(flagReadOnly) && w.has(flagCommitted) &&
		(!w.has(flagConflictOut) || sx.snapSeq < w.earliestOutConflictCommit) {
		return nil
	}
	if !sx.snap.XidInSnapshot(writer) {
		return nil // the write was in our snapshot
	}
	if _, dup := sx.out[w]; dup {
		return nil
	}
	return m.flagRWConflictLocked(sx, w, sx)
}

// flagRWConflictLocked records reader → writer after checking whether it
// completes a dangerous structure (FlagRWConflict). me is the transaction
// doing the check; an error is its own failure.
func (m *Manager) flagRWConflictLocked(reader, writer, me *Xact) error {
	if err := m.checkDangerousLocked(reader, writer, me); err != nil {
		return err
	}
	addTo(&reader.out, writer)
	addTo(&writer.in, reader)
	return nil
}

// checkDangerousLocked is OnConflict_CheckForSerializationFailure: before
// reader → writer is added, look for T0 → reader → writer or
// reader → writer → T2 where the last transaction of the chain commits
// first (the only order that can be an anomaly, Ports and Grittner §3).
// The writer is doomed, or, when the writer is us or already prepared,
// our transaction fails now.
func (m *Manager) checkDangerousLocked(reader, writer, me *Xact) error {
	failure := writer.has(flagCommitted) && writer.has(flagConflictOut)
	if !failure {
		for t2 := range writer.out {
			if t2.has(flagPrepared) &&
				(!reader.has(flagCommitted) || t2.prepareSeq <= reader.commitSeq) &&
				(!writer.has(flagCommitted) || t2.prepareSeq <= writer.commitSeq) &&
				(!reader.has(flagReadOnly) || t2.prepareSeq <= reader.snapSeq) {
				failure = true
				break
			}
		}
	}
	if !failure && writer.has(flagPrepared) && !reader.has(flagReadOnly) {
		for t0 := range reader.in {
			if !t0.has(flagDoomed) &&
				(!t0.has(flagCommitted) || t0.commitSeq >= writer.prepareSeq) &&
				(!t0.has(flagReadOnly) || t0.snapSeq >= writer.prepareSeq) {
				failure = true
				break
			}
		}
	}
	if !failure {
		return nil
	}
	if me == writer {
		return serializationFailure("Canceled on identification as a pivot, during write.")
	}
	if writer.has(flagPrepared) {
		return serializationFailure("Canceled on conflict out to pivot %d, during read.", writer.topXid)
	}
	writer.flags |= flagDoomed
	return nil
}

// PreCommit is the last check before the transaction commits
// (PreCommit_CheckForSerializationFailure): it fails if another
// transaction doomed us. Otherwise each running reader N with N → us that
// has an in-conflict of its own from a transaction still able to commit
// (or from us) is a pivot whose out-conflict, us, commits first: N is
// doomed (or, when N is already prepared, we fail instead, so that the
// retried transaction makes progress). Then the transaction is prepared:
// it gets its prepare sequence number.
func (sx *Xact) PreCommit() error {
	if sx == nil || sx.off.Load() {
		return nil
	}
	m := sx.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if sx.has(flagDoomed) {
		return serializationFailure("Canceled on identification as a pivot, during commit attempt.")
	}
	for near := range sx.in {
		if near.has(flagCommitted) || near.has(flagDoomed) {
			continue
		}
		for far := range near.in {
			if far == sx || (!far.has(flagCommitted) && !far.has(flagReadOnly) && !far.has(flagDoomed)) {
				if near.has(flagPrepared) {
					return serializationFailure("Canceled on commit attempt with conflict in from prepared pivot.")
				}
				near.flags |= flagDoomed
				break
			}
		}
	}
	m.lastCommitSeq++
	sx.prepareSeq = m.lastCommitSeq
	sx.flags |= flagPrepared
	return nil
}
