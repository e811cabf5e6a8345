package heap

import (
	"context"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/readstream"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// The heap as a table access method (internal/access/tableam): AM is its
// pg_am entry, Table a relation handle, format its tuple former/reader.
// The methods translate; the heap's own API stays what the heap's tests
// and VACUUM's page operations use.

// AMOID is pg_am.oid of heap, as in PostgreSQL.
const AMOID = 2

// AM is the heap access method.
type AM struct{}

var (
	_ tableam.AM           = AM{}
	_ tableam.FrozenFormer = AM{}
)

// FormFrozen forms a frozen tuple of f's row type (f must be heap's).
func (AM) FormFrozen(f tableam.Format, vals []tableam.Datum, tid page.ItemPointer) tableam.Tuple {
	return tableam.Tuple(freeze(f.(format).d.Form(vals), tid))
}

func (AM) Name() string { return "heap" }
func (AM) OID() uint32  { return AMOID }

// Open returns a Table over a new handle of the file.
func (AM) Open(env *tableam.Env, spec tableam.RelSpec) tableam.Relation {
	return Wrap(Open(env, spec.File, spec.Name, spec.Types, spec.FillFactor))
}

// NewFormat returns the heap tuple format of spec's row type.
func (AM) NewFormat(spec tableam.FormatSpec) tableam.Format {
	d := NewDeformerFrom(spec.Layout)
	if spec.Missing != nil {
		d = d.WithMissing(spec.Missing)
	}
	if spec.Detoaster != nil {
		d = d.WithDetoaster(spec.Detoaster)
	}
	return format{d}
}

// ResourceManagers: heap records are redone from their page deltas by the
// WAL layer, so the managers only name the records.
func (AM) ResourceManagers() []tableam.ResourceManager {
	return []tableam.ResourceManager{
		{ID: wal.RmHeap, Rmgr: wal.Rmgr{Name: "Heap"}},
		{ID: wal.RmHeap2, Rmgr: wal.Rmgr{Name: "Heap2"}},
	}
}

// format is a Deformer seen through tableam.Format.
type format struct{ d *Deformer }

func (f format) Form(vals []tableam.Datum) tableam.Tuple { return tableam.Tuple(f.d.Form(vals)) }
func (f format) Deform(t tableam.Tuple, out []tableam.Datum) error {
	return f.d.Deform(Tuple(t), out)
}
func (f format) DeformUpTo(t tableam.Tuple, out []tableam.Datum, upTo int) error {
	return f.d.DeformUpTo(Tuple(t), out, upTo)
}
func (f format) DeformSkipping(t tableam.Tuple, out []tableam.Datum, upTo int, skip uint64) error {
	return f.d.DeformSkipping(Tuple(t), out, upTo, skip)
}
func (f format) HasExternalValues(t tableam.Tuple) bool { return Tuple(t).HasExternalValues() }
func (f format) ExternalPointers(t tableam.Tuple, fn func(attno int, p varatt.External) error) error {
	bitmap, data := Tuple(t).Data()
	return f.d.td.ExternalPointers(data, bitmap, Tuple(t).Natts(), fn)
}
func (f format) System(t tableam.Tuple) tableam.SystemValues {
	h := Tuple(t)
	return tableam.SystemValues{Xmin: h.Xmin(), Xmax: h.Xmax(), Cid: h.RawCid()}
}

// Table is a heap Relation as a tableam.Relation.
type Table struct{ r *Relation }

var (
	_ tableam.Relation          = (*Table)(nil)
	_ tableam.Vacuumer          = (*Table)(nil)
	_ tableam.StreamingVacuumer = (*Table)(nil)
	_ tableam.InplaceUpdater    = (*Table)(nil)
	_ tableam.ToastChunkReader  = (*Table)(nil)
	_ tableam.Checker           = (*Table)(nil)
)

// Wrap returns r as a tableam.Relation.
func Wrap(r *Relation) *Table { return &Table{r} }

// Heap returns the heap relation behind t (for the heap's own callers:
// TOAST, tests).
func (t *Table) Heap() *Relation { return t.r }

func (t *Table) AM() tableam.AM                     { return AM{} }
func (t *Table) NBlocks() (page.BlockNumber, error) { return t.r.NBlocks() }
func (t *Table) Vacuum() tableam.Vacuumer           { return t }
func (t *Table) InheritTarget(old tableam.Relation) {
	if o, ok := old.(*Table); ok {
		t.r.InheritTarget(o.r)
	}
}

func outcome(oc Outcome) tableam.Outcome {
	return tableam.Outcome{Result: oc.Result, Ctid: oc.Ctid, Xmax: oc.Xmax, Cmax: oc.Cmax, Traversed: oc.Traversed, Old: tableam.Tuple(oc.Old)}
}

func (t *Table) Insert(u *stats.Usage, tx *Txn, tup tableam.Tuple, bulk *buffer.Strategy) (page.ItemPointer, error) {
	return t.r.Insert(u, tx, Tuple(tup), bulk)
}

// Update is heap_update: HOT when no index key changed and the new version
// fits on the page.
func (t *Table) Update(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, tup tableam.Tuple, hint tableam.UpdateHint) (tableam.UpdateResult, error) {
	ntid, hot, oc, err := t.r.UpdateKeys(ctx, u, tx, tid, Tuple(tup), hint.ChangedIndexes == 0, hint.KeysUpdated)
	res := tableam.UpdateResult{Outcome: outcome(oc), NewTID: ntid, Kind: tableam.UpdateNewVersion}
	if hot {
		res.Kind = tableam.UpdateHOT
	}
	return res, err
}

func (t *Table) Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Outcome, error) {
	oc, err := t.r.Delete(ctx, u, tx, tid)
	return outcome(oc), err
}

func (t *Table) DeleteOwn(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Outcome, error) {
	oc, err := t.r.DeleteOwn(ctx, u, tx, tid)
	return outcome(oc), err
}

func (t *Table) Lock(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode LockMode, wait WaitPolicy, followUpdates bool) (tableam.Outcome, error) {
	oc, err := t.r.LockTuple(ctx, u, tx, tid, mode, wait, followUpdates)
	return outcome(oc), err
}

func (t *Table) LockLatest(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode LockMode, wait WaitPolicy) (tableam.Outcome, page.ItemPointer, tableam.Tuple, error) {
	oc, ltid, tup, err := t.r.LockLatest(ctx, u, tx, tid, mode, wait)
	return outcome(oc), ltid, tableam.Tuple(tup), err
}

func (t *Table) Fetch(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, error) {
	tup, vtid, ok, err := t.r.Fetch(u, tx, tid)
	return tableam.Tuple(tup), vtid, ok, err
}

func (t *Table) FetchAllDead(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, bool, error) {
	tup, vtid, ok, allDead, err := t.r.FetchAllDead(u, tx, tid)
	return tableam.Tuple(tup), vtid, ok, allDead, err
}

func (t *Table) FetchLatest(u *stats.Usage, _ *Txn, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, error) {
	tup, vtid, ok, err := t.r.FetchLatest(u, tid)
	return tableam.Tuple(tup), vtid, ok, err
}

func (t *Table) LatestVisibleTID(u *stats.Usage, tx *Txn, tid page.ItemPointer) (page.ItemPointer, error) {
	return t.r.LatestVisibleTID(u, tx, tid)
}

func (t *Table) CheckUnique(u *stats.Usage, tx *Txn, tid page.ItemPointer) (UniqueState, xact.XID, page.ItemPointer, error) {
	return t.r.CheckUniqueVersion(u, tx, tid)
}

func (t *Table) IndexEntryDead(u *stats.Usage, tid page.ItemPointer, horizon xact.XID) (bool, error) {
	return t.r.ChainDead(u, tid, horizon)
}

func (t *Table) TupleVisible(tup tableam.Tuple, tx *Txn) bool { return VisibleTo(t.r, Tuple(tup), tx) }

func (t *Table) InsertedByCommand(tup tableam.Tuple, tx *Txn) bool {
	return InsertedByCommand(Tuple(tup), tx)
}

func (t *Table) ReadToastChunk(u *stats.Usage, tid page.ItemPointer, fn func(tableam.Tuple) error) (bool, error) {
	return t.r.ReadToastChunk(u, tid, func(tup Tuple) error { return fn(tableam.Tuple(tup)) })
}

func (t *Table) InplaceUpdate(u *stats.Usage, tx *Txn, tid page.ItemPointer, tup tableam.Tuple) error {
	return t.r.InplaceUpdate(u, tx, tid, Tuple(tup))
}

// BeginScan starts a heap scan (page at a time, pruning as it goes).
func (t *Table) BeginScan(u *stats.Usage, tx *Txn, opt tableam.ScanOptions) (tableam.Scan, error) {
	s, err := t.r.BeginScan(u, tx)
	if err != nil {
		return nil, err
	}
	s.Interrupts = opt.Interrupts
	s.Filter = opt.Filter
	if opt.Parallel != nil {
		// Blocks come from the shared claims, up to the block count
		// fixed when the parallel scan began (as a serial scan ends at
		// the blocks that existed when it began).
		s.par, s.blk, s.nblocks = opt.Parallel, 0, 0
	}
	s.Maintenance = opt.Maintenance
	return amScan{s}, nil
}

// ParallelScanInit starts a parallel scan over the blocks that exist now.
func (t *Table) ParallelScanInit() (*tableam.ParallelScan, error) {
	nb, err := t.r.NBlocks()
	if err != nil {
		return nil, err
	}
	return tableam.NewParallelScan(nb), nil
}

type amScan struct{ s *Scan }

func (a amScan) Next() (tableam.Tuple, page.ItemPointer, bool, error) {
	t, tid, ok, err := a.s.Next()
	return tableam.Tuple(t), tid, ok, err
}
func (a amScan) Filtered() int64 { return a.s.Filtered }
func (a amScan) Close()          { a.s.Close() }

// The Vacuumer: lazy VACUUM's page operations, each on its own pin.

func (t *Table) MaxItemsPerBlock() int { return MaxTuplesPerPage }

func (t *Table) VisibilityBits(u *stats.Usage, blk page.BlockNumber) (byte, error) {
	return t.r.VMBits(u, blk)
}

func (t *Table) VacuumBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, horizon xact.XID, limits FreezeLimits) (ScanPageResult, error) {
	pool := t.r.env.Pool
	b, err := pool.Read(u, t.r.tag(blk), ring)
	if err != nil {
		return ScanPageResult{}, err
	}
	defer pool.Release(b)
	return t.r.VacuumScanPage(u, b, blk, horizon, limits)
}

func (t *Table) ReapBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, dead []page.OffsetNumber, horizon xact.XID) (int, error) {
	pool := t.r.env.Pool
	b, err := pool.Read(u, t.r.tag(blk), ring)
	if err != nil {
		return 0, err
	}
	defer pool.Release(b)
	return t.r.VacuumHeapPage(u, b, blk, dead, horizon)
}

// VacuumStream reads the table's main fork ahead of VACUUM's passes, with
// maintenance_io_concurrency, through the vacuum ring.
func (t *Table) VacuumStream(u *stats.Usage, next readstream.BlockFunc, ring *buffer.Strategy) *readstream.Stream {
	return readstream.New(t.r.env.Pool, u, t.r.Rel, smgr.MainFork, next, readstream.Options{Maintenance: true, Strategy: ring})
}

func (t *Table) VacuumBuffer(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, horizon xact.XID, limits FreezeLimits) (ScanPageResult, error) {
	defer t.r.env.Pool.Release(b)
	return t.r.VacuumScanPage(u, b, blk, horizon, limits)
}

func (t *Table) ReapBuffer(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, dead []page.OffsetNumber, horizon xact.XID) (int, error) {
	defer t.r.env.Pool.Release(b)
	return t.r.VacuumHeapPage(u, b, blk, dead, horizon)
}

func (t *Table) RecordFreeSpace(u *stats.Usage, blk page.BlockNumber, avail int) {
	t.r.RecordFreeSpace(u, blk, avail)
}

func (t *Table) BlockIsEmpty(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy) (bool, error) {
	return t.r.PageIsEmpty(u, blk, ring)
}

func (t *Table) Truncate(u *stats.Usage, nblocks page.BlockNumber) error {
	return t.r.Truncate(u, nblocks)
}
