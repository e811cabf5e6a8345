package exec

import (
	"errors"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Parallel CREATE INDEX (PostgreSQL 11+'s _bt_begin_parallel): the
// leader and up to max_parallel_maintenance_workers workers, drawn from
// the engine's max_parallel_workers pool, scan the heap together (each
// claims chunks of blocks from one tableam.ParallelScan, so their ranges
// are disjoint), each into a spool of its own sorted within its share of
// maintenance_work_mem and sorted in its own goroutine; the leader merges
// the sorted spools while it writes the tree (btree.Builder.Finish).
//
// Invariants: every pool slot taken is released once its worker ended; no
// worker outlives the statement (the leader waits for all, also after an
// error or a cancel, which stops the others at their next check); the
// first error is the statement's.

// indexBuildMinShareKB is the least maintenance_work_mem share a
// participant gets (plan_create_index_workers' 32 MB).
const indexBuildMinShareKB = 32 << 10

// indexBuildWorkers is plan_create_index_workers: compute_parallel_worker
// for the heap's size capped by max_parallel_maintenance_workers, then
// fewer until each participant's share of maintenance_work_mem is at least
// 32 MB. Temporary tables and unlogged builds of them are built serially
// (their buffers are the backend's own in PostgreSQL).
func indexBuildWorkers(c *Ctx, rel *catalog.Relation, memKB int64) int {
	maxWorkers := settingInt(c, "max_parallel_maintenance_workers", 2)
	if maxWorkers <= 0 || rel.Persistence == catalog.PersistenceTemp {
		return 0
	}
	if _, ok := rel.Table.(tableam.ParallelScanner); !ok {
		return 0
	}
	n, err := rel.Table.NBlocks()
	if err != nil {
		return 0
	}
	workers := computeParallelWorkers(c, float64(n), maxWorkers)
	for workers > 0 && memKB/int64(workers+1) < indexBuildMinShareKB {
		workers--
	}
	return workers
}

// indexEntrySink takes a participant's entries: the builder's own spool
// (Builder.Add) or a worker's (Spool.Add).
type indexEntrySink interface {
	Add(keys []types.Datum, tid page.ItemPointer) error
}

// scanForIndex feeds b with the index entries of rel's rows visible to the
// transaction, in parallel when indexBuildWorkers says so.
func scanForIndex(c *Ctx, rel, ir *catalog.Relation, b *btree.Builder) error {
	workers := indexBuildWorkers(c, rel, b.MemKB)
	if workers > 0 {
		workers = c.Eng.AMEnv.Workers.Acquire(workers, settingInt(c, "max_parallel_workers", 8))
	}
	if workers == 0 {
		return scanIntoSpool(c, &SeqScan{Rel: rel}, ir, b)
	}
	ps, err := rel.Table.(tableam.ParallelScanner).ParallelScanInit()
	if err != nil {
		c.Eng.AMEnv.Workers.Release(workers)
		return err
	}
	share := b.MemKB / int64(workers+1)
	b.MemKB = share
	var stop atomic.Bool
	type worker struct {
		c     *Ctx
		usage stats.Usage
		spool *btree.Spool
	}
	done := make(chan error, workers)
	ws := make([]*worker, workers)
	for i := range ws {
		w := &worker{c: workerCtx(c, &stop)}
		w.c.Tx.U = &w.usage
		w.usage.IO, w.usage.Backend = c.Tx.U.IO, stats.BackgroundWorker
		w.usage.WALCompression = c.U().WALCompression
		w.spool = b.NewSpool(share, &w.usage)
		ws[i] = w
		go func() {
			err := runIndexBuildWorker(w.c, rel, ir, ps, w.spool)
			if err != nil {
				stop.Store(true) // the others stop at their next check
			}
			done <- err
		}()
	}
	// The first error that is not a participant seeing the stop is the
	// statement's.
	var first error
	note := func(e error) {
		if e != nil && first == nil && !errors.Is(e, errParallelStopped) {
			first = e
		}
	}
	lc := workerCtx(c, &stop) // the leader's participant, stopped with the others
	err = scanIntoSpool(lc, &SeqScan{Rel: rel, Parallel: true, par: ps}, ir, b)
	if err == nil {
		err = b.Spool().Sort()
	}
	if err != nil {
		stop.Store(true)
	}
	note(err)
	for range ws {
		note(<-done)
		c.Eng.AMEnv.Workers.Release(1)
	}
	for _, w := range ws {
		c.U().Add(w.usage)
	}
	return first
}

// indexBuildRecoverer is the function whose deferred call recovers a
// parallel index build worker's panic.
const indexBuildRecoverer = "github.com/tidal-db/tidal/internal/sql/exec.runIndexBuildWorker"

// runIndexBuildWorker is one worker of a parallel index build: its share
// of the scan into its spool, then the spool's sort.
func runIndexBuildWorker(c *Ctx, rel, ir *catalog.Relation, ps *tableam.ParallelScan, spool *btree.Spool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = participantPanic(c, r, indexBuildRecoverer)
		}
	}()
	if c.ParallelWorkerHook != nil {
		c.ParallelWorkerHook()
	}
	if err := scanIntoSpool(c, &SeqScan{Rel: rel, Parallel: true, par: ps}, ir, spool); err != nil {
		return err
	}
	return spool.Sort()
}

// scanIntoSpool runs scan (a participant's part of the heap, or all of
// it) and adds each visible row's index entry to sink.
func scanIntoSpool(c *Ctx, scan *SeqScan, ir *catalog.Relation, sink indexEntrySink) error {
	rel := scan.Rel
	if err := scan.Open(c); err != nil {
		return err
	}
	defer scan.scan.Close() // the pages read ahead, if the build stops early
	row := make(Row, len(rel.Attrs))
	// Decode only up to the last key column.
	upTo := 0
	for _, k := range ir.Index.Keys {
		if int(k) > upTo {
			upTo = int(k)
		}
	}
	// Columns before the last key that are not keys are stepped over.
	skip := ^uint64(0)
	for _, k := range ir.Index.Keys {
		if k <= 64 {
			skip &^= 1 << uint(k-1)
		}
	}
	for {
		if err := c.checkCancel(); err != nil {
			return err
		}
		t, tid, ok, err := scan.scan.Next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := scan.def.DeformSkipping(t, row, upTo, skip); err != nil {
			return err
		}
		if err := sink.Add(indexKey(ir, row), tid); err != nil {
			return err
		}
	}
}
