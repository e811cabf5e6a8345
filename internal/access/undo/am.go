package undo

import (
	"context"
	"fmt"

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

// The undo AM as a table access method (internal/access/tableam).

// AMOID is pg_am.oid of undo (PostgreSQL has no such AM; an OID in the
// range initdb leaves to extensions).
const AMOID = 9000

// AM is the undo access method of one engine. Its undo log is made when
// the engine attaches it (Attach, before WAL replay) and opened and
// recovered at Start.
type AM struct{ s *amState }

type amState struct{ log *Log }

// NewAM returns the access method of an engine (tableams.Builtin).
func NewAM() AM { return AM{&amState{}} }

// NewAMOver returns the access method over an open log (tests, tools).
func NewAMOver(l *Log) AM { return AM{&amState{log: l}} }

// Log is the AM's undo log (nil before Attach).
func (a AM) Log() *Log { return a.s.log }

// Attach makes the undo log of env's engine (no I/O).
func (a AM) Attach(env *tableam.Env) { a.s.log = New(env.Pool, env.Xact) }

// Start opens the log once env's WAL is attached and undoes what crashed
// transactions left (README "Crash recovery").
func (a AM) Start(env *tableam.Env, logf func(format string, args ...any)) error {
	n, err := a.s.log.Start(nil, env.WAL)
	if err != nil {
		return fmt.Errorf("undo recovery failed: %w", err)
	}
	if n > 0 {
		logf("LOG:  undo recovery applied %d undo records of unfinished transactions", n)
	}
	return nil
}

// CheckpointBegin is the discard point when a checkpoint fixes its redo
// point; CheckpointDone saves it as recovery's scan start.
func (a AM) CheckpointBegin() uint64 { return uint64(a.s.log.Discard()) }

// CheckpointDone: see CheckpointBegin.
func (a AM) CheckpointDone(token uint64) error { return a.s.log.SaveMeta(URP(token)) }

var _ tableam.AM = AM{}

func (AM) Name() string { return "undo" }
func (AM) OID() uint32  { return AMOID }

// Open returns a handle on an undo table's file; it does no I/O.
func (a AM) Open(_ *tableam.Env, spec tableam.RelSpec) tableam.Relation {
	return &Relation{t: a.s.log.OpenTable(spec.File, spec.Name), am: a}
}

// NewFormat returns the undo tuple format of spec's row type.
func (a AM) NewFormat(spec tableam.FormatSpec) tableam.Format {
	d := NewDeformerFrom(spec.Layout)
	if spec.Missing != nil {
		d = d.WithMissing(spec.Missing)
	}
	if spec.Detoaster != nil {
		d = d.WithDetoaster(spec.Detoaster)
	}
	return format{d: d, log: a.s.log}
}

// ResourceManagers: undo records are redone from their page deltas.
func (AM) ResourceManagers() []tableam.ResourceManager {
	return []tableam.ResourceManager{{ID: wal.RmUndo, Rmgr: wal.Rmgr{Name: "Undo", Desc: RecordName}}}
}

type format struct {
	d   *Deformer
	log *Log
}

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

// System shows the version's last writer as xmin (FrozenXid once its undo
// is discarded) and its command id; there is no xmax on a live version.
func (f format) System(t tableam.Tuple) tableam.SystemValues {
	rec := f.log.latestDataRecord(Tuple(t))
	if rec == nil {
		return tableam.SystemValues{Xmin: xact.FrozenXid}
	}
	return tableam.SystemValues{Xmin: rec.Xid, Cid: rec.Cid}
}

// latestRecord is the record of t's latest change, nil when it is
// discarded (visible to everyone) or unreadable.
func (l *Log) latestRecord(t Tuple) *Record {
	urp := t.URP()
	if urp == 0 || urp < l.Discard() {
		return nil
	}
	rec, err := l.readRecord(nil, urp)
	if err != nil {
		return nil
	}
	return rec
}

// latestDataRecord is latestRecord past row locks: the change that made
// t's bytes (what xmin and visibility are about).
func (l *Log) latestDataRecord(t Tuple) *Record {
	rec := l.latestRecord(t)
	for n := 0; rec != nil && rec.Kind == KindLock && n < 1<<16; n++ {
		if rec.Prev == 0 || rec.Prev < l.Discard() {
			return nil
		}
		next, err := l.readRecord(nil, rec.Prev)
		if err != nil {
			return nil
		}
		rec = next
	}
	return rec
}

// Relation is an undo Table as a tableam.Relation.
type Relation struct {
	t  *Table
	am AM
}

var (
	_ tableam.Relation = (*Relation)(nil)
	_ tableam.Vacuumer = (*Relation)(nil)
)

// Table is the undo table behind r.
func (r *Relation) Table() *Table { return r.t }

func (r *Relation) AM() tableam.AM                     { return r.am }
func (r *Relation) NBlocks() (page.BlockNumber, error) { return r.t.NBlocks() }
func (r *Relation) Vacuum() tableam.Vacuumer           { return r }

func amOutcome(oc Outcome) tableam.Outcome {
	res := map[Result]tableam.Result{Ok: tableam.Ok, Invisible: tableam.Invisible, SelfModified: tableam.SelfModified,
		Updated: tableam.Updated, Deleted: tableam.Deleted, WouldBlock: tableam.WouldBlock}[oc.Result]
	out := tableam.Outcome{Result: res, Xmax: oc.Xid, Old: tableam.Tuple(oc.Old)}
	if oc.Result == Updated {
		out.Ctid = oc.NewTID
	}
	return out
}

func (r *Relation) Insert(u *stats.Usage, tx *Txn, tup tableam.Tuple, _ *buffer.Strategy) (page.ItemPointer, error) {
	return r.t.Insert(u, tx, Tuple(tup))
}

// Update rewrites the row in place when the page has room
// (UpdateInPlace: only indexes whose key changed get entries); otherwise
// the row moves (UpdateNewVersion: every index gets an entry for the new
// TID).
func (r *Relation) Update(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, tup tableam.Tuple, hint tableam.UpdateHint) (tableam.UpdateResult, error) {
	oc, err := r.t.Update(ctx, u, tx, tid, Tuple(tup), hint.ChangedIndexes != 0, hint.KeysUpdated)
	res := tableam.UpdateResult{Outcome: amOutcome(oc), Kind: tableam.UpdateNewVersion}
	if oc.Result == Ok {
		res.NewTID = oc.NewTID
		if oc.InPlace {
			res.Kind = tableam.UpdateInPlace
		}
	}
	return res, err
}

func (r *Relation) Delete(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Outcome, error) {
	oc, err := r.t.Delete(ctx, u, tx, tid, false)
	return amOutcome(oc), err
}

func (r *Relation) DeleteOwn(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Outcome, error) {
	oc, err := r.t.Delete(ctx, u, tx, tid, true)
	return amOutcome(oc), err
}

// Lock takes a row lock. An in-place AM has no later versions at other
// TIDs but a moved row's, which a lock of the old one does not follow.
func (r *Relation) Lock(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode tableam.LockMode, wait tableam.WaitPolicy, _ bool) (tableam.Outcome, error) {
	oc, err := r.t.LockRow(ctx, u, tx, tid, mode, wait, true)
	return amOutcome(oc), err
}

// LockLatest is READ COMMITTED's FOR UPDATE/SHARE: when the version the
// snapshot saw can be locked as it stands (no conflicting change since),
// that is the answer; otherwise the newest version, whoever committed it,
// is locked, following moves, and returned with Traversed for the
// caller's recheck — without other transactions' uncommitted changes.
func (r *Relation) LockLatest(ctx context.Context, u *stats.Usage, tx *Txn, tid page.ItemPointer, mode tableam.LockMode, wait tableam.WaitPolicy) (tableam.Outcome, page.ItemPointer, tableam.Tuple, error) {
	oc, err := r.t.LockRow(ctx, u, tx, tid, mode, wait, false)
	if err != nil || oc.Result != Updated {
		if err != nil || oc.Result != Ok {
			return amOutcome(oc), tid, nil, err
		}
		seen, err := r.t.Fetch(u, tx, tid)
		if err != nil || seen == nil {
			return tableam.Outcome{}, tid, nil, err
		}
		return amOutcome(oc), tid, tableam.Tuple(seen), nil
	}
	latest := *tx
	latest.Snap = nil
	for hops := 0; ; hops++ {
		if oc.Result == Updated && oc.NewTID != tid {
			tid = oc.NewTID // moved: lock where it went
		}
		if oc, err = r.t.LockRow(ctx, u, &latest, tid, mode, wait, false); err != nil {
			return tableam.Outcome{}, tid, nil, err
		}
		if oc.Result == Updated && oc.NewTID != tid && hops < 1<<16 {
			continue
		}
		if oc.Result != Ok {
			return amOutcome(oc), tid, nil, nil
		}
		cur, _, err := r.t.FetchLatest(u, tx, tid)
		if err != nil || cur == nil {
			return tableam.Outcome{}, tid, nil, err
		}
		out := amOutcome(oc)
		out.Traversed = true
		return out, tid, tableam.Tuple(cur), nil
	}
}

func (r *Relation) Fetch(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, error) {
	tup, err := r.t.Fetch(u, tx, tid)
	return tableam.Tuple(tup), tid, tup != nil, err
}

func (r *Relation) FetchLatest(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, error) {
	tup, vtid, err := r.t.FetchLatest(u, tx, tid)
	return tableam.Tuple(tup), vtid, tup != nil, err
}

func (r *Relation) LatestVisibleTID(u *stats.Usage, tx *Txn, tid page.ItemPointer) (page.ItemPointer, error) {
	return r.t.LatestVisibleTID(u, tx, tid)
}

func (r *Relation) CheckUnique(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.UniqueState, xact.XID, page.ItemPointer, error) {
	st, xid, err := r.t.CheckUnique(u, tx, tid)
	return st, xid, tid, err
}

func (r *Relation) IndexEntryDead(u *stats.Usage, tid page.ItemPointer, horizon xact.XID) (bool, error) {
	return r.t.IndexEntryDead(u, tid, horizon)
}

// TupleVisible: is the change that made version t visible to tx?
func (r *Relation) TupleVisible(tup tableam.Tuple, tx *Txn) bool {
	rec := r.t.log.latestDataRecord(Tuple(tup))
	return (rec == nil || r.t.log.sees(tx, rec)) && !Tuple(tup).IsDeleted()
}

// InsertedByCommand: did tx's current command write version t?
func (r *Relation) InsertedByCommand(tup tableam.Tuple, tx *Txn) bool {
	rec := r.t.log.latestDataRecord(Tuple(tup))
	return rec != nil && rec.Kind != KindLock && rec.Kind != KindDelete && tx.IsCurrent(rec.Xid) && rec.Cid == tx.Cid
}

func (r *Relation) BeginScan(u *stats.Usage, tx *Txn, opt tableam.ScanOptions) (tableam.Scan, error) {
	r.t.log.AdvanceDiscard()
	nb, err := r.t.NBlocks()
	if err != nil {
		return nil, err
	}
	r.t.ssiLockRelation(tx)
	s := &scan{t: r.t, u: u, tx: tx, opt: opt, nblocks: nb}
	if opt.Parallel != nil {
		s.nblocks = 0 // blocks come from the shared claims
	}
	return s, nil
}

// ParallelScanInit starts a parallel scan over the blocks that exist now.
func (r *Relation) ParallelScanInit() (*tableam.ParallelScan, error) {
	nb, err := r.t.NBlocks()
	if err != nil {
		return nil, err
	}
	return tableam.NewParallelScan(nb), nil
}

// scan reads a page at a time: under the share lock it rebuilds and copies
// out every version the snapshot sees, then hands them out.
type scan struct {
	t        *Table
	u        *stats.Usage
	tx       *Txn
	opt      tableam.ScanOptions
	nblocks  page.BlockNumber
	next     page.BlockNumber
	tups     []Tuple
	slab     []byte
	tids     []page.ItemPointer
	pos      int
	filtered int64
	stream   *readstream.Stream // pages read ahead; nil before and after
}

func (s *scan) Filtered() int64 { return s.filtered }

// Close releases the pages read ahead (done already at the end or on an
// error).
func (s *scan) Close() {
	if s.stream != nil {
		s.stream.Close()
		s.stream = nil
	}
}

func (s *scan) Next() (tableam.Tuple, page.ItemPointer, bool, error) {
	for s.pos >= len(s.tups) {
		if s.next >= s.nblocks {
			s.Close() // the chunk's stream is used up
			if s.opt.Parallel == nil {
				return nil, page.ItemPointer{}, false, nil
			}
			start, end, ok := s.opt.Parallel.Claim()
			if !ok {
				return nil, page.ItemPointer{}, false, nil
			}
			s.next, s.nblocks = start, end
			continue
		}
		if s.opt.Interrupts != nil {
			if err := s.opt.Interrupts.Check(); err != nil {
				s.Close()
				return nil, page.ItemPointer{}, false, err
			}
		}
		if err := s.readPage(s.next); err != nil {
			s.Close()
			return nil, page.ItemPointer{}, false, err
		}
		s.next++
	}
	s.pos++
	return tableam.Tuple(s.tups[s.pos-1]), s.tids[s.pos-1], true, nil
}

func (s *scan) readPage(blk page.BlockNumber) error {
	s.tups, s.tids, s.pos = s.tups[:0], s.tids[:0], 0
	s.slab = nil // this page's copies get a buffer of their own, when there are any
	pool := s.t.log.pool
	if s.stream == nil {
		s.stream = readstream.Range(pool, s.u, s.t.Rel, smgr.MainFork, blk, s.nblocks, readstream.Options{Maintenance: s.opt.Maintenance})
	}
	b, got, ok, err := s.stream.Next()
	if err == nil && (!ok || got != blk) {
		err = fmt.Errorf("undo scan of %d: read stream gave block %d (ok %v), want %d", s.t.Rel, got, ok, blk)
	}
	if err != nil {
		return err
	}
	return s.t.visibleInBuffer(s.u, s.tx, b, func(off page.OffsetNumber, v Tuple) error {
		if s.opt.Filter != nil {
			ok, err := s.opt.Filter(tableam.Tuple(v))
			if err != nil {
				return err
			}
			if !ok {
				s.filtered++
				return nil
			}
		}
		// One buffer per page holds the copies (they are valid until the
		// scan moves on, as tableam.Scan promises).
		start := len(s.slab)
		s.slab = append(s.slab, v...)
		s.tups = append(s.tups, Tuple(s.slab[start:len(s.slab):len(s.slab)]))
		s.tids = append(s.tids, page.ItemPointer{Block: blk, Offset: off})
		return nil
	})
}
