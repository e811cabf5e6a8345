// Package tableam is the table access method contract: the one interface
// through which the executor, the catalog, COPY, VACUUM, sequences and the
// checker reach a table's rows, whatever its storage format (heap, undo).
// README.md states the contract and its invariants.
package tableam

import (
	"context"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// AM is a table access method: a row in pg_am with amtype 't'.
type AM interface {
	// Name is pg_am.amname, as CREATE TABLE … USING names it.
	Name() string
	// OID is pg_am.oid.
	OID() uint32
	// Open returns the handle of one relation file of this AM. It does no
	// I/O: a file not yet written reads as empty.
	Open(env *Env, spec RelSpec) Relation
	// NewFormat returns the former and reader of this AM's tuples for one
	// row type.
	NewFormat(spec FormatSpec) Format
	// ResourceManagers are the AM's WAL resource managers, registered at
	// start-up before recovery replays anything.
	ResourceManagers() []ResourceManager
}

// RelSpec describes the relation file Open opens.
type RelSpec struct {
	File       smgr.RelFileNumber
	Name       string // for messages
	Types      []datum.Type
	FillFactor int // percent, 10..100
}

// FormatSpec is the row type a Format forms and reads.
type FormatSpec struct {
	// Layout is the columns' physical layout, with each column's storage.
	Layout *datum.Deformer
	// Missing gives, per column, the value rows formed before the column
	// was added read as (pg_attribute.attmissingval); nil entries and
	// columns past its end read as NULL.
	Missing []datum.Datum
	// Detoaster, if set, reads stored (TOAST) values as Deform meets them.
	Detoaster datum.Detoaster
}

// ResourceManager is one of an AM's WAL resource managers.
type ResourceManager struct {
	ID   wal.RmgrID
	Rmgr wal.Rmgr
}

// Format forms and reads one row type's tuples in its AM's format. It is
// immutable once made: safe for concurrent use.
type Format interface {
	// Form makes a tuple of vals (already TOASTed by the caller).
	Form(vals []datum.Datum) Tuple
	// Deform decodes every column of t into out.
	Deform(t Tuple, out []datum.Datum) error
	// DeformUpTo decodes the first upTo columns.
	DeformUpTo(t Tuple, out []datum.Datum, upTo int) error
	// DeformSkipping decodes the first upTo columns except those whose bit
	// is set in skip (bit i: column i; columns past 63 are never skipped).
	DeformSkipping(t Tuple, out []datum.Datum, upTo int, skip uint64) error
	// HasExternalValues: some column of t is a TOAST pointer.
	HasExternalValues(t Tuple) bool
	// ExternalPointers calls fn for each column of t that is a TOAST
	// pointer, decoding nothing else (what an UPDATE or DELETE needs to
	// find the TOAST values an old version references).
	ExternalPointers(t Tuple, fn func(attno int, p varatt.External) error) error
	// System returns the system columns' values of a version read from
	// the table (xmin, xmax, cmin/cmax).
	System(t Tuple) SystemValues
}

// SystemValues are the system columns a row version shows (ctid and
// tableoid come from elsewhere).
type SystemValues struct {
	Xmin, Xmax xact.XID
	// Cid is what cmin and cmax both show: the raw command id field, which
	// may hold a combo command id, as in PostgreSQL.
	Cid uint32
}

// Relation is one open table (one relation file) of some AM. Every method
// is safe for concurrent use by many sessions; row-level coordination
// (waiting for a running updater, tuple locks) is the AM's.
type Relation interface {
	// AM is the access method the relation belongs to.
	AM() AM
	// NBlocks is the relation's size in blocks (the planner's and
	// pg_relation_size's estimate; scans end there).
	NBlocks() (page.BlockNumber, error)

	// Insert stores t as a new row version of tx and returns its TID. bulk,
	// if set, is the buffer strategy of a bulk load.
	Insert(u *stats.Usage, tx *Txn, t Tuple, bulk *buffer.Strategy) (TID, error)
	// Update replaces the version at tid by t, if tx may: the Result says
	// why not otherwise (nothing is written then). Running conflicting
	// transactions are waited for. UpdateResult.Kind says which index
	// entries the caller must now make.
	Update(ctx context.Context, u *stats.Usage, tx *Txn, tid TID, t Tuple, hint UpdateHint) (UpdateResult, error)
	// Delete deletes the version at tid, as Update decides and waits.
	Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid TID) (Outcome, error)
	// DeleteOwn is Delete of a version the current command itself
	// inserted (TOAST chunks, ON CONFLICT's withdrawn speculative row),
	// which Delete would call SelfModified.
	DeleteOwn(ctx context.Context, u *stats.Usage, tx *Txn, tid TID) (Outcome, error)
	// Lock takes a row lock of strength mode on the version at tid
	// (heap_lock_tuple); followUpdates also locks its later versions.
	Lock(ctx context.Context, u *stats.Usage, tx *Txn, tid TID, mode LockMode, wait WaitPolicy, followUpdates bool) (Outcome, error)
	// LockLatest locks the newest version of the row at tid (READ
	// COMMITTED's FOR UPDATE): on Ok it returns that version's TID and a
	// copy of it, with Outcome.Traversed when it is not tid's.
	LockLatest(ctx context.Context, u *stats.Usage, tx *Txn, tid TID, mode LockMode, wait WaitPolicy) (Outcome, TID, Tuple, error)

	// Fetch returns a copy of the version of the row an index entry at tid
	// leads to that tx's snapshot sees, and that version's TID (an AM may
	// rebuild an older version, from undo or a version chain); found=false
	// if the snapshot sees none.
	Fetch(u *stats.Usage, tx *Txn, tid TID) (t Tuple, vtid TID, found bool, err error)
	// FetchLatest follows the row at tid through its committed updates and
	// returns a copy of the version no committed transaction replaced
	// (EvalPlanQual's re-read), and its TID; found=false if it was deleted.
	// tx is the caller: an AM whose versions share a TID (undo) keeps the
	// caller's own uncommitted changes and strips other running ones.
	FetchLatest(u *stats.Usage, tx *Txn, tid TID) (t Tuple, vtid TID, found bool, err error)
	// LatestVisibleTID is the TID of the newest version of the row at tid
	// that tx's snapshot sees, or tid (heap_get_latest_tid; WHERE CURRENT OF).
	LatestVisibleTID(u *stats.Usage, tx *Txn, tid TID) (TID, error)
	// CheckUnique says what a dirty snapshot sees of the row an index
	// entry at tid leads to, for a unique check; with RowLive, the TID of
	// the conflicting version, with RowInFlight the xid to wait for.
	CheckUnique(u *stats.Usage, tx *Txn, tid TID) (UniqueState, xact.XID, TID, error)
	// IndexEntryDead reports whether no snapshot taken with xmin at or
	// after horizon can see any version an index entry at tid leads to,
	// so the entry may go (index cleanup, delete-marked entry purge).
	IndexEntryDead(u *stats.Usage, tid TID, horizon xact.XID) (bool, error)

	// TupleVisible reports whether version t, a copy this relation
	// returned, is visible to tx's snapshot (ON CONFLICT's REPEATABLE READ
	// check of a row found through an index).
	TupleVisible(t Tuple, tx *Txn) bool
	// InsertedByCommand reports whether tx's current command made version
	// t (inserted it, or it is the new version of an update the command
	// made): ON CONFLICT DO UPDATE may not change such a row again.
	InsertedByCommand(t Tuple, tx *Txn) bool

	// BeginScan starts a sequential scan of the versions tx's snapshot sees.
	BeginScan(u *stats.Usage, tx *Txn, opt ScanOptions) (Scan, error)

	// Vacuum is the relation's space reclamation, driven by VACUUM.
	Vacuum() Vacuumer
}

// ScanOptions tune a sequential scan.
type ScanOptions struct {
	// Filter, if set, is applied to each visible version while its page is
	// locked (it must not read pages itself); rejected ones are not copied
	// out and are counted in Scan.Filtered.
	Filter func(t Tuple) (bool, error)
	// Interrupts, if set, is checked before each page, so a scan over
	// pages with nothing visible still honours a cancel.
	Interrupts *interrupt.State
	// Parallel, if set, makes the scan one participant of a parallel scan
	// (ParallelScanner): it reads only the chunks of blocks it claims.
	Parallel *ParallelScan
	// Maintenance marks a maintenance scan (ANALYZE): its read-ahead
	// uses maintenance_io_concurrency.
	Maintenance bool
}

// Scan is a sequential scan in physical order.
type Scan interface {
	// Next returns the next visible version — a private copy, valid until
	// the next call — and its TID; ok=false at the end.
	Next() (t Tuple, tid TID, ok bool, err error)
	// Filtered counts the versions ScanOptions.Filter rejected so far.
	Filtered() int64
	// Close releases what the scan holds (the pages its read stream
	// pinned ahead). A scan that returned its end or an error is closed
	// already; closing twice is harmless.
	Close()
}

// InplaceUpdater is implemented by relations that can overwrite a
// version's columns without making a new version, same length only
// (heap_inplace_update: the catalog's statistics in pg_class, which must
// not bloat or conflict). Only the system catalogs, which are always heap,
// use it.
type InplaceUpdater interface {
	InplaceUpdate(u *stats.Usage, tx *Txn, tid TID, t Tuple) error
}

// ToastChunkReader is implemented by relations that can be TOAST tables
// (heap): ReadToastChunk calls fn with the version at tid if its inserter
// did not abort, whatever any snapshot says (SnapshotToast: a chunk's
// visibility follows from the row pointing at it); found=false if none.
type ToastChunkReader interface {
	ReadToastChunk(u *stats.Usage, tid TID, fn func(t Tuple) error) (found bool, err error)
}

// Checker is a relation's own consistency check (tidal_check, amcheck's
// heapallindexed in spirit): the AM verifies its storage and reports, per
// TID an index entry may point at, what an entry finds there, so the
// checker can cross-check every index without knowing the AM's layout.
type Checker interface {
	// CheckStorage reads the whole relation under share locks. f decodes
	// its versions (TOAST values included); horizon is the removal
	// horizon (a version dead before it may already have lost its TOAST
	// values). Problems are messages; the error is for I/O.
	CheckStorage(u *stats.Usage, f Format, horizon xact.XID) (map[TID]IndexTarget, []string, error)
}

// TargetKind is what lies at a TID an index entry points at.
type TargetKind uint8

const (
	// TargetUnused: nothing (an entry here is corrupt).
	TargetUnused TargetKind = iota
	// TargetNotRoot: a version only reachable through another TID (heap:
	// a heap-only tuple); an entry here is corrupt.
	TargetNotRoot
	// TargetRoot: where a row's index entries point (heap: a chain root or
	// redirect).
	TargetRoot
	// TargetDeadStub: a removed row whose entries VACUUM has yet to delete.
	TargetDeadStub
)

// IndexTarget is what an index entry pointing at a TID finds.
type IndexTarget struct {
	Kind TargetKind
	// Live: a version reached from here is not dead to every snapshot, so
	// every index must have an entry for this TID.
	Live bool
	// Vals are the columns of the version stored at exactly this TID when
	// it is not dead (an entry's key must match them); nil otherwise.
	Vals []Datum
}

// FrozenFormer is implemented by the AM whose page format sequences use
// (heap, as PostgreSQL's sequence.c): FormFrozen forms vals of f's row type
// as a version every snapshot sees without consulting the commit log,
// placed at tid — a sequence's one tuple, overwritten in place and never
// versioned.
type FrozenFormer interface {
	FormFrozen(f Format, vals []Datum, tid TID) Tuple
}

// InPlaceUpdates is implemented by relations whose updates may keep a
// row's TID while an indexed column changes (UpdateInPlace). An index
// entry may then lead to a version whose key is not the entry's (the old
// key's delete-marked entry, seen by a new snapshot; or the new key's,
// by an old one), so index scans compare each entry's key with the
// version Fetch returns and skip it when they differ — which also keeps a
// row reached through both entries from being returned twice. Heap does
// not implement it: its versions never change key under a TID.
type InPlaceUpdates interface {
	UpdatesInPlace() bool
}

// AllDeadFetcher is a table AM whose Fetch can also say, when no version
// is visible, that every version the index entry leads to is dead to
// every snapshot (heap_hot_search_buffer's all_dead): an index scan then
// marks the entry LP_DEAD (kill_prior_tuple), and a later insert into a
// full leaf deletes it instead of splitting.
type AllDeadFetcher interface {
	FetchAllDead(u *stats.Usage, tx *Txn, tid TID) (t Tuple, vtid TID, found, allDead bool, err error)
}
