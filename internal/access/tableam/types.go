package tableam

import (
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/parallel"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
	"github.com/tidal-db/tidal/internal/xact/predicate"
)

// TID identifies a row version: (block, offset from 1). An AM that
// rewrites rows in place keeps a row's TID for its whole life.
type TID = page.ItemPointer

// Tuple is one row version in its access method's own format. Every Tuple
// an AM returns is the caller's copy: it never aliases a shared buffer, so
// it stays valid after the page changes, and the caller may keep it. Only
// the AM's Format (Relation.Format) reads or makes one.
type Tuple []byte

// Env is what every access method reaches the rest of the engine through;
// one per engine instance.
type Env struct {
	Pool *buffer.Pool
	WAL  *wal.WAL
	Xact *xact.Manager
	// Pred is the predicate lock manager of SERIALIZABLE transactions.
	Pred *predicate.Manager
	// Workers is the engine's max_parallel_workers pool.
	Workers *parallel.WorkerPool
}

// Txn is the calling transaction as an access method sees it: who it is,
// which command it runs, and what its snapshot sees.
type Txn struct {
	Proc  *xact.Proc
	Xid   xact.XID // InvalidXid until the first write assigns one
	Cid   uint32   // current command id
	Snap  *xact.Snapshot
	Combo *ComboCids
	// SSI is the transaction's serializable record, nil unless it runs
	// SERIALIZABLE: an AM takes predicate locks and checks rw-conflicts
	// through it (heap: ssi.go).
	SSI *predicate.Xact
}

// IsCurrent reports whether xid is one of the calling transaction's own
// (its top level or a subtransaction not rolled back), whose rows it sees
// by command id rather than by snapshot (TransactionIdIsCurrentTransactionId).
func (tx *Txn) IsCurrent(xid xact.XID) bool {
	if xid == xact.InvalidXid {
		return false
	}
	if tx.Proc == nil || tx.Proc.Xid() == xact.InvalidXid {
		// No xid assigned to the backend: only a special writer (initdb
		// writes as BootstrapXid) has one of its own.
		return xid == tx.Xid
	}
	return tx.Proc.IsCurrentXid(xid)
}

// ComboCids maps combo command ids to (cmin, cmax) pairs for rows a
// transaction both inserted and deleted (PostgreSQL's combocid.c). Only the
// owning transaction ever reads them; they are reset at transaction end.
type ComboCids struct {
	pairs [][2]uint32
	index map[[2]uint32]uint32
}

// Reset forgets all pairs (transaction end).
func (c *ComboCids) Reset() {
	c.pairs = c.pairs[:0]
	c.index = nil
}

// ID returns the combo id of (cmin, cmax), allocating one the first time.
func (c *ComboCids) ID(cmin, cmax uint32) uint32 {
	k := [2]uint32{cmin, cmax}
	if c.index == nil {
		c.index = map[[2]uint32]uint32{}
	}
	if id, ok := c.index[k]; ok {
		return id
	}
	id := uint32(len(c.pairs))
	c.pairs = append(c.pairs, k)
	c.index[k] = id
	return id
}

// Pair returns the (cmin, cmax) of combo id; ok=false if c never gave it
// out (c may be nil).
func (c *ComboCids) Pair(id uint32) (cmin, cmax uint32, ok bool) {
	if c == nil || int(id) >= len(c.pairs) {
		return 0, 0, false
	}
	p := c.pairs[id]
	return p[0], p[1], true
}

// Result is the outcome of an update, delete or row lock (TM_Result).
type Result int

const (
	Ok            Result = iota
	Invisible            // the version is not visible to the snapshot
	SelfModified         // already updated or deleted by this transaction's current command
	Updated              // a concurrent transaction updated it (Outcome.Ctid: the newer version)
	Deleted              // a concurrent transaction deleted it
	BeingModified        // a running transaction holds it (wait for Outcome.Xmax)
	WouldBlock           // SKIP LOCKED: locked by another transaction
)

// Outcome details a modification's result.
type Outcome struct {
	Result Result
	Ctid   TID      // Updated: the next version (an in-place AM: the row's own TID)
	Xmax   xact.XID // BeingModified: whom to wait for; Updated/Deleted: the updater
	Cmax   uint32   // SelfModified: the command that did it
	// Traversed: LockLatest locked a newer version than the one asked
	// for (at Ctid); the caller re-checks it (EvalPlanQual).
	Traversed bool
	// Old is, after an Ok update or delete of a version holding TOAST
	// pointers, a copy of that old version (in the AM's format), so the
	// caller can delete the TOAST values no longer referenced; nil otherwise.
	Old Tuple
}

// LockMode is a row-lock strength (LockTupleMode), weakest first, in
// PostgreSQL's order. An UPDATE that changes no key column takes
// LockNoKeyExclusive, any other UPDATE and DELETE LockExclusive.
//
//	             KEY SHARE  SHARE  NO KEY UPDATE  UPDATE
//	KEY SHARE                                        X
//	SHARE                            X               X
//	NO KEY UPD               X       X               X
//	UPDATE          X        X       X               X
type LockMode int

const (
	LockKeyShare LockMode = iota
	LockShare
	LockNoKeyExclusive
	LockExclusive
)

var lockModeNames = [...]string{"FOR KEY SHARE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE"}

func (m LockMode) String() string { return lockModeNames[m] }

// WaitPolicy is what a row lock does when the row is locked or being
// changed by another transaction: wait, skip the row (SKIP LOCKED) or fail
// (NOWAIT, 55P03).
type WaitPolicy int

const (
	WaitBlock WaitPolicy = iota
	WaitSkip
	WaitError
)

// UniqueState classifies what a dirty snapshot sees of the row an index
// entry points at, for a unique check.
type UniqueState int

const (
	RowDead     UniqueState = iota // no live version: not a conflict
	RowLive                        // a live or own-uncommitted version: conflict
	RowInFlight                    // a running transaction inserts or deletes it: wait for the xid
)

// UpdateKind is how an update stored the new version, which says what the
// indexes need (PostgreSQL 16's TU_UpdateIndexes, widened for in-place
// update):
//
//   - UpdateNewVersion: the new version has a new TID; every index gets an
//     entry for it (the old entries stay, pointing at the old version).
//   - UpdateHOT: a heap-only tuple on the same page, reached through the old
//     version's index entries; no index changes.
//   - UpdateInPlace: the row kept its TID and was rewritten in place. Only
//     the indexes the caller reported changed (UpdateHint.ChangedIndexes)
//     change: each gets the new key, and its entry for the old key is
//     delete-marked (indexam.DeleteMarker), since the TID now holds a row
//     with another key. With no changed index, no index page is touched.
type UpdateKind uint8

const (
	UpdateNewVersion UpdateKind = iota
	UpdateHOT
	UpdateInPlace
)

// UpdateHint is what the executor knows about an update that the AM needs
// to choose how to store it.
type UpdateHint struct {
	// ChangedIndexes has bit i set when the key of the table's i-th index
	// (catalog order; bit 63 stands for all indexes past 63) differs
	// between the old and new row. Zero: no indexed column changed.
	ChangedIndexes uint64
	// KeysUpdated: a column of a unique index (the row's key for FOR KEY
	// SHARE) changed, so the update conflicts with key-share lockers.
	KeysUpdated bool
}

// UpdateResult is an update's outcome; NewTID and Kind are meaningful when
// Outcome.Result is Ok.
type UpdateResult struct {
	Outcome
	NewTID TID
	Kind   UpdateKind
}

// IndexChanged reports whether index i (catalog order) is in h's set.
func (h UpdateHint) IndexChanged(i int) bool {
	if i >= 63 {
		i = 63
	}
	return h.ChangedIndexes&(1<<uint(i)) != 0
}

// MarkIndexChanged adds index i (catalog order) to h's set.
func (h *UpdateHint) MarkIndexChanged(i int) {
	if i >= 63 {
		i = 63
	}
	h.ChangedIndexes |= 1 << uint(i)
}

// Datum is one column value (the SQL layer's, until internal/datum).
type Datum = datum.Datum
