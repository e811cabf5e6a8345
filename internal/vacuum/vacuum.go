// Package vacuum is lazy VACUUM of heap tables, with PostgreSQL 17's
// phases: scan the heap (prune, freeze, collect dead item identifiers,
// set visibility-map bits), vacuum the indexes (each index's bulk delete
// asks the dead-TID store), vacuum the heap (dead items become unused),
// clean up indexes, truncate empty pages at the end. The dead-TID store is
// the radix tree of internal/access/tidstore, or PostgreSQL 15's flat array
// when vacuum_dead_tid_store = array, so both can be measured.
//
// See README.md for the design and what is not done yet.
package vacuum

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/tidstore"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/readstream"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// Options are VACUUM's options and the settings it reads.
type Options struct {
	Verbose      bool
	Freeze       bool
	IndexCleanup string // "auto", "on", "off"
	Truncate     bool
	// RingBytes bounds the shared buffers VACUUM may occupy
	// (BUFFER_USAGE_LIMIT / vacuum_buffer_usage_limit); 0 = no ring.
	RingBytes int
	// Parallel: -1 = choose (PostgreSQL's default), 0 = serial, n = ask for n.
	Parallel                      int
	MaxParallelMaintenanceWorkers int
	MaxParallelWorkers            int
	MaintenanceWorkMem            int64  // bytes
	StoreKind                     string // "radix" or "array"
	FreezeMinAge                  uint32
	MultiFreezeMinAge             uint32 // vacuum_multixact_freeze_min_age
	// MultiFreezeTableAge: a table whose relminmxid is older than this
	// many multixacts is scanned whole (vacuum_multixact_freeze_table_age),
	// so its relminmxid can advance.
	MultiFreezeTableAge uint32
	PID                 int
	DatabaseName        string
	SchemaName          string
	// Progress is the engine's registry of running VACUUMs
	// (pg_stat_progress_vacuum); nil: not shown.
	Progress *Registry
	// Autovacuum: run by an autovacuum worker. Its parallel workers are
	// then capped by AutovacuumMaxParallelWorkers instead of
	// max_parallel_maintenance_workers (PostgreSQL 19).
	Autovacuum                   bool
	AutovacuumMaxParallelWorkers int
	// Cost is the cost-based delay (vacuum_cost_* settings).
	Cost CostParams
	// Aggressive scans every page, all-visible ones too (an
	// anti-wraparound autovacuum).
	Aggressive bool
}

// Report is what a VACUUM did, for VERBOSE and the statistics views.
type Report struct {
	Relation           string
	IndexScans         int
	PagesRemoved       int64
	PagesRemain        int64
	PagesScanned       int64
	TuplesRemoved      int64
	TuplesRemain       int64
	TuplesRecentlyDead int64
	PagesFrozen        int64
	TuplesFrozen       int64
	LPDeadPages        int64
	LPDeadItems        int64 // dead item identifiers found (removed, unless index vacuuming was bypassed)
	DeadItemsRemoved   int64
	PagesSetAllVisible int64
	AllVisiblePages    int64
	Indexes            []IndexReport
	WorkersPlanned     int
	WorkersLaunched    int
	MaxDeadItemBytes   int64
	MaxDeadItems       int64 // TIDs held when the store was at its largest
	DeadItemStoreKind  string
	Usage              stats.Usage
	Elapsed            time.Duration
	// UserCPU and SysCPU are the leader's own (its OS thread's: VACUUM
	// runs locked to one), LeaderCPU its thread clock, WorkerCPU the sum
	// of its parallel workers' thread clocks.
	UserCPU, SysCPU      time.Duration
	LeaderCPU, WorkerCPU time.Duration
	// WorkersPlannedTotal and WorkersLaunchedTotal sum every index pass's
	// parallel workers (the autovacuum log's "in total"); ShortReason says
	// why fewer launched than planned, when they did.
	WorkersPlannedTotal, WorkersLaunchedTotal int
	ShortReason                               string
	// Aggressive: every page was scanned to advance relminmxid.
	Aggressive bool
	// CostDelay is the time slept by the cost-based delay.
	CostDelay       time.Duration
	RemovableCutoff xact.XID
	NextXid         xact.XID
	NewRelFrozenXid xact.XID
	OldRelFrozenXid xact.XID
	NewRelMinMxid   xact.MultiXactID
	OldRelMinMxid   xact.MultiXactID
	NextMulti       xact.MultiXactID
	DeadItemLimit   int64
}

// IndexReport is one index's line of the VERBOSE report.
type IndexReport struct {
	Name          string
	Pages         int
	NewlyDeleted  int
	Deleted       int
	Reusable      int
	TuplesRemoved int64
	Tuples        int64
}

// Vacuum runs lazy VACUUM on one table. tx is the VACUUM's own transaction
// (for the pg_class update); the caller holds ShareUpdateExclusiveLock.
func Vacuum(ctx context.Context, cat *catalog.Catalog, tx *catalog.Txn, rel *catalog.Relation, o Options) (*Report, error) {
	env := cat.Env()
	pool := env.Pool
	x := env.Xact
	start := time.Now()
	// The leader stays on one OS thread so that its CPU time can be read
	// from the thread's clock: its own, not the whole process's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ru0 := rusage()
	cpu0, _ := threadCPU()
	var workerCPU time.Duration
	var workerCPUMu sync.Mutex
	u := tx.U
	u0 := *u
	h := rel.Table.Vacuum()

	rep := &Report{Relation: rel.Name, DeadItemStoreKind: o.StoreKind}
	// The progress row is published only once its limits are filled in,
	// so another session never sees a half-initialised row.
	prog := newProgress(o.Progress, o.PID, rel.OID)

	nblocks, err := rel.Table.NBlocks()
	if err != nil {
		return nil, err
	}
	horizon := x.OldestXmin()
	rep.RemovableCutoff = horizon
	freezeLimit := xact.XID(0)
	if o.Freeze {
		freezeLimit = horizon
	} else if o.FreezeMinAge < 1<<31 {
		// Tuples older than vacuum_freeze_min_age transactions are frozen.
		freezeLimit = xact.Retreat(horizon, o.FreezeMinAge)
	}
	limits := tableam.FreezeLimits{Xid: freezeLimit, Multi: multiFreezeLimit(x, o)}

	var ring *buffer.Strategy
	if o.RingBytes > 0 {
		ring = pool.NewStrategy(buffer.Vacuum, o.RingBytes)
	}
	var store tidstore.Store
	if o.StoreKind == "array" {
		store = tidstore.NewArray(o.MaintenanceWorkMem, int64(nblocks)*int64(h.MaxItemsPerBlock()))
	} else {
		store = tidstore.NewRadix(o.MaintenanceWorkMem)
	}
	rep.DeadItemLimit = o.MaintenanceWorkMem
	maxDeadBytes := o.MaintenanceWorkMem
	if a, ok := store.(*tidstore.ArrayStore); ok {
		maxDeadBytes = a.MaxItems() * 6
	}
	prog.update(func(r *ProgressRow) {
		r.MaxDeadTupleBytes, r.HeapBlksTotal, r.IndexesTotal = maxDeadBytes, int64(nblocks), int64(len(rel.Indexes))
	})
	prog.publish()
	defer prog.end()

	doIndexes := len(rel.Indexes) > 0 && o.IndexCleanup != "off"
	var ixStats = make([]btree.BulkDeleteStats, len(rel.Indexes))
	removedPerIndex := make([]int64, len(rel.Indexes))

	planned := plannedWorkers(len(rel.Indexes), doIndexes, o)
	cost := newCostBalance(o.Cost, u)
	defer func() { rep.CostDelay = cost.slept }()

	vacuumIndexes := func() error {
		prog.update(func(r *ProgressRow) { r.Phase, r.IndexesProcessed = PhaseVacuumIndexes, 0 })
		launched := 0
		if planned > 0 {
			inUse := env.Workers.InUse()
			launched = env.Workers.Acquire(planned, o.MaxParallelWorkers)
			defer env.Workers.Release(launched)
			if rep.IndexScans == 0 {
				rep.WorkersPlanned, rep.WorkersLaunched = planned, launched
			}
			rep.WorkersPlannedTotal += planned
			rep.WorkersLaunchedTotal += launched
			if launched < planned && rep.ShortReason == "" {
				rep.ShortReason = shortfallReason(planned, launched, inUse, o.MaxParallelWorkers)
			}
			prog.update(func(r *ProgressRow) { r.WorkersPlanned, r.WorkersLaunched = int64(planned), int64(launched) })
		}
		var next int
		var mu sync.Mutex
		var firstErr error
		work := func(wu *stats.Usage, s *buffer.Strategy) {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(rel.Indexes) {
					return
				}
				st, err := bulkDeleteIndex(wu, cat, rel, i, tx.Heap.Xid, horizon, func(t page.ItemPointer) bool { return store.IsMember(t.Block, t.Offset) }, s)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				ixStats[i] = st
				removedPerIndex[i] += st.TuplesRemoved
				mu.Unlock()
				prog.update(func(r *ProgressRow) { r.IndexesProcessed++ })
			}
		}
		var wg sync.WaitGroup
		wus := make([]stats.Usage, launched)
		for w := 0; w < launched; w++ {
			// Parallel workers are background workers in pg_stat_io.
			wus[w] = stats.Usage{Backend: stats.BackgroundWorker, IO: u.IO}
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0, _ := threadCPU()
				defer func() {
					c1, _ := threadCPU()
					workerCPUMu.Lock()
					workerCPU += c1 - c0
					workerCPUMu.Unlock()
				}()
				var s *buffer.Strategy
				if o.RingBytes > 0 {
					s = pool.NewStrategy(buffer.Vacuum, o.RingBytes)
				}
				work(&wus[w], s)
			}(w)
		}
		work(u, ring)
		wg.Wait()
		for w := range wus {
			u.Add(wus[w])
		}
		return firstErr
	}

	sv, streaming := h.(tableam.StreamingVacuumer)
	vacuumHeap := func() error {
		prog.SetPhase(PhaseVacuumHeap)
		var verr error
		// The second pass reads the blocks with dead items through a read
		// stream: their numbers first (4 bytes a block), then the store
		// again for the offsets, in the same order.
		var st *readstream.Stream
		if streaming {
			var blocks []page.BlockNumber
			store.Iterate(func(blk page.BlockNumber, _ []page.OffsetNumber) bool {
				blocks = append(blocks, blk)
				return true
			})
			i := 0
			st = sv.VacuumStream(u, func() (page.BlockNumber, bool) {
				if i >= len(blocks) {
					return 0, false
				}
				i++
				return blocks[i-1], true
			}, ring)
			defer st.Close()
		}
		store.Iterate(func(blk page.BlockNumber, offs []page.OffsetNumber) bool {
			if verr = interrupt.Err(ctx); verr != nil {
				return false
			}
			if verr = cost.point(ctx); verr != nil {
				return false
			}
			var free int
			var err error
			if st != nil {
				free, err = reapStreamed(u, st, sv, blk, offs, horizon)
			} else {
				free, err = h.ReapBlock(u, blk, ring, offs, horizon)
			}
			if err != nil {
				verr = err
				return false
			}
			h.RecordFreeSpace(u, blk, free)
			rep.DeadItemsRemoved += int64(len(offs))
			prog.update(func(r *ProgressRow) { r.HeapBlksVacuumed++ })
			return true
		})
		return verr
	}

	// One round of index + heap vacuuming, then the store starts empty.
	marks := doIndexes && marksToPurge(rel) // one pass owed for delete-marked entries (marked.go)
	lazyVacuum := func() error {
		if store.NumTIDs() == 0 && !marks {
			return nil
		}
		marks = false
		if mem := store.MemoryUsage(); mem > rep.MaxDeadItemBytes {
			rep.MaxDeadItemBytes, rep.MaxDeadItems = mem, store.NumTIDs()
		}
		if doIndexes {
			if err := vacuumIndexes(); err != nil {
				return err
			}
			rep.IndexScans++
			prog.update(func(r *ProgressRow) { r.IndexVacuumCount++ })
			if err := vacuumHeap(); err != nil {
				return err
			}
		} else {
			// INDEX_CLEANUP off: dead items stay (PostgreSQL too leaves them
			// LP_DEAD when it bypasses index vacuuming).
		}
		store.Reset()
		prog.setDeadItems(0, 0)
		return nil
	}

	// Phase 1: scan the heap.
	prog.SetPhase(PhaseScanHeap)
	var liveTuples int64
	var skipped int64
	lastNonEmpty := int64(-1)
	// Runs of at least skipPagesThreshold all-visible pages are skipped
	// (PostgreSQL's SKIP_PAGES_THRESHOLD), unless freezing everything.
	const skipPagesThreshold = 32
	var vmBits []byte
	aggressive, err := multiAggressive(cat, tx, rel, o)
	if err != nil {
		return nil, err
	}
	aggressive = aggressive || o.Aggressive
	rep.Aggressive = aggressive
	if !o.Freeze && !aggressive {
		vmBits = make([]byte, nblocks)
		for blk := page.BlockNumber(0); blk < nblocks; blk++ {
			if vmBits[blk], err = h.VisibilityBits(u, blk); err != nil {
				return nil, err
			}
		}
	}
	// nextScan names the blocks the first pass reads, skipping runs of
	// all-visible pages; with a read stream it runs ahead of the pass, so
	// what it records only ever moves forward (max).
	scanFrom := page.BlockNumber(0)
	nextScan := func() (page.BlockNumber, bool) {
		for blk := scanFrom; blk < nblocks; blk = scanFrom {
			scanFrom = blk + 1
			if vmBits == nil || vmBits[blk]&tableam.VMAllVisible == 0 {
				return blk, true
			}
			end := blk
			for end < nblocks && vmBits[end]&tableam.VMAllVisible != 0 {
				end++
			}
			// The last page is always scanned (it decides truncation).
			if end == nblocks && end-blk > 0 {
				end--
			}
			if end-blk < skipPagesThreshold {
				return blk, true
			}
			skipped += int64(end - blk)
			lastNonEmpty = max(lastNonEmpty, int64(end)-1)
			prog.update(func(r *ProgressRow) { r.HeapBlksScanned = max(r.HeapBlksScanned, int64(end)) })
			scanFrom = end
		}
		return 0, false
	}
	var scanStream *readstream.Stream
	if streaming {
		scanStream = sv.VacuumStream(u, nextScan, ring)
		defer scanStream.Close()
	}
	for {
		if err := interrupt.Err(ctx); err != nil {
			return nil, err
		}
		if err := cost.point(ctx); err != nil {
			return nil, err
		}
		var blk page.BlockNumber
		var res tableam.VacuumBlockResult
		if scanStream != nil {
			b, got, ok, err := scanStream.Next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			blk = got
			if res, err = sv.VacuumBuffer(u, b, blk, horizon, limits); err != nil {
				return nil, err
			}
		} else {
			got, ok := nextScan()
			if !ok {
				break
			}
			blk = got
			if res, err = h.VacuumBlock(u, blk, ring, horizon, limits); err != nil {
				return nil, err
			}
		}
		rep.PagesScanned++
		rep.TuplesRemoved += int64(res.TuplesDeleted)
		rep.TuplesRecentlyDead += int64(res.RecentlyDead)
		liveTuples += int64(res.LiveTuples)
		if res.Frozen > 0 {
			rep.PagesFrozen++
			rep.TuplesFrozen += int64(res.Frozen)
		}
		if res.SetVisibleBits {
			rep.PagesSetAllVisible++
		}
		if res.AllVisible {
			rep.AllVisiblePages++
		}
		if !res.Empty {
			lastNonEmpty = max(lastNonEmpty, int64(blk))
		}
		if len(res.DeadItems) > 0 && len(rel.Indexes) == 0 {
			// No indexes: PostgreSQL's one-pass strategy. No index entry
			// can point at the dead items, so they become unused at once
			// (without this they stayed LP_DEAD for ever: the space of
			// deleted rows in an index-less table was never reused).
			rep.LPDeadPages++
			rep.LPDeadItems += int64(len(res.DeadItems))
			free, err := h.ReapBlock(u, blk, ring, res.DeadItems, horizon)
			if err != nil {
				return nil, err
			}
			h.RecordFreeSpace(u, blk, free)
			rep.DeadItemsRemoved += int64(len(res.DeadItems))
		} else if len(res.DeadItems) > 0 {
			rep.LPDeadPages++
			rep.LPDeadItems += int64(len(res.DeadItems))
			store.SetBlockOffsets(blk, res.DeadItems)
			prog.setDeadItems(store.NumTIDs(), store.MemoryUsage())
		} else {
			h.RecordFreeSpace(u, blk, res.FreeSpace)
		}
		prog.update(func(r *ProgressRow) { r.HeapBlksScanned = max(r.HeapBlksScanned, int64(blk)+1) })
		if tidstore.IsFull(store, o.MaintenanceWorkMem) {
			if err := lazyVacuum(); err != nil {
				return nil, err
			}
			prog.SetPhase(PhaseScanHeap)
		}
	}
	if err := lazyVacuum(); err != nil {
		return nil, err
	}

	// Index cleanup: statistics (and, later, page recycling).
	prog.SetPhase(PhaseCleanupIndex)
	// Like btvacuumcleanup, an index that had no bulk delete this time is
	// not read: its size comes from the file, its tuple count from the heap.
	for i, ir := range rel.Indexes {
		ixr := IndexReport{Name: ir.Name, TuplesRemoved: removedPerIndex[i]}
		if rep.IndexScans > 0 && ixStats[i].Pages > 0 {
			st := ixStats[i]
			ixr.Pages, ixr.Tuples = st.Pages, st.TuplesRemaining
			ixr.NewlyDeleted, ixr.Deleted, ixr.Reusable = st.NewlyDeleted, st.Deleted, st.Free
		} else if need, err := cat.IndexFor(rel, ir).NeedsCleanup(u); err != nil {
			return nil, err
		} else if need {
			ix := cat.IndexFor(rel, ir)
			// Many deleted pages not yet reusable: a cleanup pass makes
			// them so (btvacuumcleanup's rule).
			st, err := ix.Cleanup(u, tx.Heap.Xid, ring)
			if err != nil {
				return nil, err
			}
			ixr.Pages, ixr.Tuples = st.Pages, st.TuplesRemaining
			ixr.NewlyDeleted, ixr.Deleted, ixr.Reusable = st.NewlyDeleted, st.Deleted, st.Free
		} else {
			n, err := pool.Smgr().NBlocks(smgr.RelFileNumber(ir.RelFileNode), smgr.MainFork)
			if err != nil {
				return nil, err
			}
			ixr.Pages, ixr.Tuples = int(n), liveTuples
		}
		rep.Indexes = append(rep.Indexes, ixr)
	}

	// Truncate empty pages at the end, if the lock can be had at once.
	newBlocks := nblocks
	if o.Truncate && lastNonEmpty+1 < int64(nblocks) {
		prog.SetPhase(PhaseTruncate)
		if err := x.Lock(ctx, tx.Heap.Proc, xact.RelationTag(rel.OID), xact.AccessExclusiveLock, true); err == nil {
			// Re-check under the lock: a concurrent insert may have used
			// the tail meanwhile.
			nb, err := rel.Table.NBlocks()
			if err != nil {
				return nil, err
			}
			cut := nb
			for cut > 0 {
				empty, err := h.BlockIsEmpty(u, cut-1, ring)
				if err != nil {
					return nil, err
				}
				if !empty {
					break
				}
				cut--
			}
			if cut < nb {
				if err := h.Truncate(u, cut); err != nil {
					return nil, err
				}
				rep.PagesRemoved = int64(nb - cut)
				newBlocks = cut
			}
			x.Unlock(tx.Heap.Proc, xact.RelationTag(rel.OID), xact.AccessExclusiveLock)
		}
	}
	rep.PagesRemain = int64(newBlocks)
	if skipped > 0 && rep.PagesScanned > 0 {
		// Skipped pages were not read: estimate their tuples from the
		// density pg_class had before (vac_estimate_reltuples), or from
		// the scanned pages when there is none.
		density := float64(liveTuples) / float64(rep.PagesScanned)
		if rel.Pages > 0 && rel.Tuples >= 0 {
			density = float64(rel.Tuples) / float64(rel.Pages)
		}
		liveTuples += int64(density*float64(skipped) + 0.5)
		rep.AllVisiblePages += skipped
	}
	rep.TuplesRemain = liveTuples

	prog.SetPhase(PhaseFinalCleanup)
	// Every page was scanned, so every unfrozen xid left is at or after
	// freezeLimit: that is the new relfrozenxid (when freezing happened
	// at all; otherwise the oldest xid that may remain is unknown beyond
	// the horizon's bound, and PostgreSQL likewise uses its cutoff).
	newFrozen := freezeLimit
	if skipped > 0 {
		newFrozen = 0 // not every page was seen
	} else if newFrozen == 0 {
		newFrozen = xact.FirstNormalXid
	}
	old, err := cat.RelFrozenXid(tx, rel.OID)
	if err != nil {
		return nil, err
	}
	rep.OldRelFrozenXid = old
	if xact.IsNormal(old) && xact.PrecedesOrEquals(newFrozen, old) {
		newFrozen = 0
	}
	newMinMulti, err := newRelMinMxid(cat, tx, rel, rep, limits.Multi, skipped > 0)
	if err != nil {
		return nil, err
	}
	if err := cat.SetVacuumStats(tx, rel.OID, int32(newBlocks), float32(liveTuples), int32(rep.AllVisiblePages), newFrozen, newMinMulti); err != nil {
		return nil, err
	}
	for i, ir := range rel.Indexes {
		if err := cat.SetStats(tx, ir.OID, int32(rep.Indexes[i].Pages), float32(rep.Indexes[i].Tuples)); err != nil {
			return nil, err
		}
	}
	rep.NextXid = x.NextXid()
	rep.NewRelFrozenXid = newFrozen
	rep.Usage = u.Sub(u0)
	rep.Elapsed = time.Since(start)
	ru1 := rusage()
	rep.UserCPU, rep.SysCPU = ru1[0]-ru0[0], ru1[1]-ru0[1]
	cpu1, _ := threadCPU()
	rep.LeaderCPU = cpu1 - cpu0
	workerCPUMu.Lock()
	rep.WorkerCPU = workerCPU
	workerCPUMu.Unlock()
	return rep, nil
}

// rusageThread is Linux's RUSAGE_THREAD: the calling thread's usage.
const rusageThread = 1

// rusage is the calling OS thread's user and system CPU time (the caller
// is locked to its thread), or the process's where threads have none.
func rusage() [2]time.Duration {
	var r syscall.Rusage
	if runtime.GOOS != "linux" || syscall.Getrusage(rusageThread, &r) != nil {
		syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	}
	return [2]time.Duration{time.Duration(r.Utime.Nano()), time.Duration(r.Stime.Nano())}
}

// plannedWorkers is PostgreSQL's parallel_vacuum_compute_workers: one
// worker per index beyond the one the leader takes, or fewer if PARALLEL
// (autovacuum: the autovacuum_parallel_workers reloption) asks for fewer,
// capped by max_parallel_maintenance_workers — or, for autovacuum, by
// autovacuum_max_parallel_workers, which PostgreSQL 19 uses instead.
func plannedWorkers(nindexes int, doIndexes bool, o Options) int {
	if o.Parallel == 0 || nindexes < 2 || !doIndexes {
		return 0
	}
	n := nindexes - 1
	if o.Parallel > 0 && o.Parallel < n {
		n = o.Parallel
	}
	limit := o.MaxParallelMaintenanceWorkers
	if o.Autovacuum {
		limit = o.AutovacuumMaxParallelWorkers
	}
	return min(n, limit)
}

// shortfallReason says why fewer parallel workers launched than planned:
// the max_parallel_workers setting itself, or the pool's other users.
func shortfallReason(planned, launched, inUse, max int) string {
	if max < planned && inUse == 0 {
		return fmt.Sprintf("max_parallel_workers is %d", max)
	}
	return fmt.Sprintf("%d of the %d max_parallel_workers slots were in use", inUse, max)
}

// Verbose renders the report as PostgreSQL 17's VACUUM VERBOSE INFO
// message (lines after the first are continuation lines).
func (r *Report) Verbose(db, schema string) string {
	return r.render(fmt.Sprintf("finished vacuuming \"%s.%s.%s\"", db, schema, r.Relation), false)
}

// LogEntry renders the report as PostgreSQL 17's autovacuum log entry
// ("automatic vacuum of table …"), with PostgreSQL 19's parallel-worker
// line and the leader's own CPU time.
func (r *Report) LogEntry(db, schema string, wraparound bool) string {
	kind := "automatic vacuum"
	switch {
	case wraparound:
		kind = "automatic aggressive vacuum to prevent wraparound"
	case r.Aggressive:
		kind = "automatic aggressive vacuum"
	}
	return r.render(fmt.Sprintf("%s of table \"%s.%s.%s\"", kind, db, schema, r.Relation), true)
}

func (r *Report) render(heading string, auto bool) string {
	var b strings.Builder
	pct := func(a, t int64) float64 {
		if t == 0 {
			return 0
		}
		return 100 * float64(a) / float64(t)
	}
	fmt.Fprintf(&b, "%s: index scans: %d\n", heading, r.IndexScans)
	fmt.Fprintf(&b, "pages: %d removed, %d remain, %d scanned (%.2f%% of total)\n", r.PagesRemoved, r.PagesRemain, r.PagesScanned, pct(r.PagesScanned, r.PagesRemain+r.PagesRemoved))
	fmt.Fprintf(&b, "tuples: %d removed, %d remain, %d are dead but not yet removable\n", r.TuplesRemoved, r.TuplesRemain, r.TuplesRecentlyDead)
	fmt.Fprintf(&b, "removable cutoff: %d, which was %d XIDs old when operation ended\n", r.RemovableCutoff, r.NextXid-r.RemovableCutoff)
	if r.NewRelFrozenXid != 0 {
		fmt.Fprintf(&b, "new relfrozenxid: %d, which is %d XIDs ahead of previous value\n", r.NewRelFrozenXid, r.NewRelFrozenXid-r.OldRelFrozenXid)
	}
	if r.NewRelMinMxid != 0 {
		fmt.Fprintf(&b, "new relminmxid: %d, which is %d MXIDs ahead of previous value\n", r.NewRelMinMxid, int32(r.NewRelMinMxid-r.OldRelMinMxid))
	}
	fmt.Fprintf(&b, "frozen: %d pages from table (%.2f%% of total) had %d tuples frozen\n", r.PagesFrozen, pct(r.PagesFrozen, r.PagesRemain), r.TuplesFrozen)
	// PostgreSQL's three forms: "needed" after index passes, "not needed"
	// when there were none to do (no dead items, or no indexes: the
	// one-pass strategy removed them), "bypassed" when INDEX_CLEANUP off
	// left the dead items in place (their count, not 0, is reported).
	switch {
	case r.IndexScans > 0:
		fmt.Fprintf(&b, "index scan needed: %d pages from table (%.2f%% of total) had %d dead item identifiers removed\n", r.LPDeadPages, pct(r.LPDeadPages, r.PagesRemain), r.DeadItemsRemoved)
	case r.LPDeadPages == 0 || r.DeadItemsRemoved == r.LPDeadItems:
		fmt.Fprintf(&b, "index scan not needed: %d pages from table (%.2f%% of total) had %d dead item identifiers removed\n", r.LPDeadPages, pct(r.LPDeadPages, r.PagesRemain), r.DeadItemsRemoved)
	default:
		fmt.Fprintf(&b, "index scan bypassed: %d pages from table (%.2f%% of total) have %d dead item identifiers\n", r.LPDeadPages, pct(r.LPDeadPages, r.PagesRemain), r.LPDeadItems)
	}
	for _, ix := range r.Indexes {
		fmt.Fprintf(&b, "index \"%s\": pages: %d in total, %d newly deleted, %d currently deleted, %d reusable\n", ix.Name, ix.Pages, ix.NewlyDeleted, ix.Deleted, ix.Reusable)
	}
	if auto && r.WorkersPlannedTotal > 0 {
		fmt.Fprintf(&b, "parallel workers: index vacuum: %d planned, %d launched in total\n", r.WorkersPlannedTotal, r.WorkersLaunchedTotal)
	}
	per := 0.0
	if r.MaxDeadItems > 0 {
		per = float64(r.MaxDeadItemBytes) / float64(r.MaxDeadItems)
	}
	fmt.Fprintf(&b, "dead item storage: %s, %d bytes at most (%.3f bytes per dead item identifier), limit %d kB\n", storeName(r.DeadItemStoreKind), r.MaxDeadItemBytes, per, r.DeadItemLimit/1024)
	secs := r.Elapsed.Seconds()
	if secs > 0 {
		rd := float64(r.Usage.Buf.SharedRead) * page.Size / (1 << 20) / secs
		wr := float64(r.Usage.Buf.SharedDirtied) * page.Size / (1 << 20) / secs
		fmt.Fprintf(&b, "avg read rate: %.3f MB/s, avg write rate: %.3f MB/s\n", rd, wr)
	}
	fmt.Fprintf(&b, "buffer usage: %d hits, %d misses, %d dirtied\n", r.Usage.Buf.SharedHit, r.Usage.Buf.SharedRead, r.Usage.Buf.SharedDirtied)
	fmt.Fprintf(&b, "WAL usage: %d records, %d full page images, %d bytes\n", r.Usage.WAL.Records, r.Usage.WAL.FPI, r.Usage.WAL.Bytes)
	if r.CostDelay > 0 {
		fmt.Fprintf(&b, "cost-based delay: %.3f s\n", r.CostDelay.Seconds())
	}
	fmt.Fprintf(&b, "leader CPU: %.3f s (its thread's clock), parallel workers' CPU: %.3f s\n", r.LeaderCPU.Seconds(), r.WorkerCPU.Seconds())
	fmt.Fprintf(&b, "system usage: CPU: user: %.2f s, system: %.2f s, elapsed: %.2f s", r.UserCPU.Seconds(), r.SysCPU.Seconds(), secs)
	return b.String()
}

func storeName(kind string) string {
	if kind == "array" {
		return "flat array (PostgreSQL 15)"
	}
	return "radix tree"
}

// multiFreezeLimit is the multixact freeze cutoff: multixacts older than
// vacuum_multixact_freeze_min_age before the oldest one a running
// transaction may need are frozen (all of them with FREEZE), as
// PostgreSQL's vacuum_set_xid_limits.
func multiFreezeLimit(x *xact.Manager, o Options) xact.MultiXactID {
	oldest := x.OldestMulti()
	if o.Freeze {
		return oldest
	}
	cut := oldest - o.MultiFreezeMinAge
	if cut < xact.FirstMulti {
		cut -= xact.FirstMulti
	}
	if xact.MultiPrecedes(oldest, cut) {
		cut = oldest
	}
	return cut
}

// newRelMinMxid is the table's new relminmxid after a VACUUM that froze
// every multixact older than cutoff (0: unchanged — not every page was
// scanned, or it would not advance).
func newRelMinMxid(cat *catalog.Catalog, tx *catalog.Txn, rel *catalog.Relation, rep *Report, cutoff xact.MultiXactID, skipped bool) (xact.MultiXactID, error) {
	old, err := cat.RelMinMxid(tx, rel.OID)
	if err != nil {
		return 0, err
	}
	rep.OldRelMinMxid = old
	rep.NextMulti, _ = cat.Env().Xact.Multi().Next()
	if skipped || (old != xact.InvalidMulti && !xact.MultiPrecedes(old, cutoff)) {
		return 0, nil
	}
	rep.NewRelMinMxid = cutoff
	return cutoff, nil
}

// multiAggressive reports a table whose relminmxid is older than
// vacuum_multixact_freeze_table_age: it is scanned whole, all-visible
// pages too, so that every multixact older than the cutoff is frozen and
// relminmxid advances (PostgreSQL's aggressive VACUUM).
func multiAggressive(cat *catalog.Catalog, tx *catalog.Txn, rel *catalog.Relation, o Options) (bool, error) {
	min, err := cat.RelMinMxid(tx, rel.OID)
	if err != nil || min == xact.InvalidMulti {
		return false, err
	}
	next, _ := cat.Env().Xact.Multi().Next()
	return uint32(next-min) > o.MultiFreezeTableAge, nil
}

// reapStreamed is the second pass over one block read by st, which must
// be blk (the stream and the store iterate the same blocks in order).
func reapStreamed(u *stats.Usage, st *readstream.Stream, sv tableam.StreamingVacuumer, blk page.BlockNumber, offs []page.OffsetNumber, horizon xact.XID) (int, error) {
	b, got, ok, err := st.Next()
	if err != nil {
		return 0, err
	}
	if !ok || got != blk {
		if ok {
			st.Release(b)
		}
		return 0, fmt.Errorf("vacuum: the read stream gave block %d (ok %v) where the dead-TID store has %d", got, ok, blk)
	}
	return sv.ReapBuffer(u, b, blk, offs, horizon)
}
