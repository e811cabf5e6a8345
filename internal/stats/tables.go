package stats

import (
	"sort"
	"sync"
	"time"
)

// TableCounters are one table's activity counters (pg_stat_user_tables).
type TableCounters struct {
	SeqScan, SeqTupRead, IdxScan, IdxTupFetch int64
	TupIns, TupUpd, TupDel, TupHotUpd         int64
	LiveTup, DeadTup, ModSinceAnalyze         int64
	InsSinceVacuum                            int64
	LastVacuum, LastAutovacuum                time.Time
	LastAnalyze, LastAutoanalyze              time.Time
	VacuumCount, AutovacuumCount              int64
	AnalyzeCount, AutoanalyzeCount            int64
	// ParallelPlanned and ParallelLaunched sum the parallel index-vacuum
	// workers autovacuum planned and got for the table; their difference
	// is the shortfall the max_parallel_workers pool caused.
	ParallelPlanned, ParallelLaunched int64
	// TupInplaceUpd counts updates that rewrote the row where it stood
	// (an undo table's in-place update; TupUpd counts them too).
	TupInplaceUpd int64
}

// Tables holds the counters of every table, of every index (indexes.go)
// and of the database (database.go), under one mutex so a reader sees them
// published together. Unlike PostgreSQL, changes are counted when the
// statement runs, not when its transaction ends. The table counters live
// in memory, are written out at a clean shutdown and read back at the next
// start (Save, Load), and are lost in a crash, as PostgreSQL's; the index
// and database counters are not saved yet (they restart from zero).
type Tables struct {
	mu  sync.Mutex
	m   map[uint32]*TableCounters
	idx map[uint32]*IndexCounters
	db  DatabaseCounters
}

// NewTables makes an empty registry.
func NewTables() *Tables {
	return &Tables{m: map[uint32]*TableCounters{}, idx: map[uint32]*IndexCounters{}}
}

func (t *Tables) get(oid uint32) *TableCounters {
	c := t.m[oid]
	if c == nil {
		c = &TableCounters{}
		t.m[oid] = c
	}
	return c
}

// Modified counts rows inserted, updated (hot of them HOT) and deleted.
func (t *Tables) Modified(oid uint32, ins, upd, hot, del int64) {
	t.mu.Lock()
	c := t.get(oid)
	c.TupIns += ins
	c.TupUpd += upd
	c.TupHotUpd += hot
	c.TupDel += del
	c.LiveTup += ins - del
	c.DeadTup += upd + del
	c.ModSinceAnalyze += ins + upd + del
	c.InsSinceVacuum += ins
	t.db.TupInserted += ins
	t.db.TupUpdated += upd
	t.db.TupDeleted += del
	t.mu.Unlock()
}

// UpdatedInPlace counts n of the updates Modified counted as in place.
// Such an update leaves no dead row version behind, except that one
// changing an index key leaves a delete-marked index entry for VACUUM:
// keyChanged of them still count as dead.
func (t *Tables) UpdatedInPlace(oid uint32, n, keyChanged int64) {
	t.mu.Lock()
	c := t.get(oid)
	c.TupInplaceUpd += n
	c.DeadTup -= n - keyChanged
	t.mu.Unlock()
}

// Scanned counts a sequential or index scan and the rows it returned.
func (t *Tables) Scanned(oid uint32, index bool, rows int64) {
	t.mu.Lock()
	c := t.get(oid)
	if index {
		c.IdxScan++
		c.IdxTupFetch += rows
	} else {
		c.SeqScan++
		c.SeqTupRead += rows
		t.db.TupReturned += rows
	}
	t.mu.Unlock()
}

// Vacuumed records a VACUUM (auto: autovacuum's) that left live rows and
// dead ones not yet removable.
func (t *Tables) Vacuumed(oid uint32, auto bool, live, deadLeft int64, at time.Time) {
	t.mu.Lock()
	c := t.get(oid)
	c.LiveTup = live
	c.DeadTup = deadLeft
	c.InsSinceVacuum = 0
	if auto {
		c.LastAutovacuum = at
		c.AutovacuumCount++
	} else {
		c.LastVacuum = at
		c.VacuumCount++
	}
	t.mu.Unlock()
}

// ParallelWorkers adds an autovacuum's planned and launched parallel
// index-vacuum workers to the table's totals.
func (t *Tables) ParallelWorkers(oid uint32, planned, launched int) {
	t.mu.Lock()
	c := t.get(oid)
	c.ParallelPlanned += int64(planned)
	c.ParallelLaunched += int64(launched)
	t.mu.Unlock()
}

// Analyzed records an ANALYZE (auto: autovacuum's).
func (t *Tables) Analyzed(oid uint32, auto bool, live int64, at time.Time) {
	t.mu.Lock()
	c := t.get(oid)
	c.LiveTup = live
	c.ModSinceAnalyze = 0
	if auto {
		c.LastAutoanalyze = at
		c.AutoanalyzeCount++
	} else {
		c.LastAnalyze = at
		c.AnalyzeCount++
	}
	t.mu.Unlock()
}

// Get copies one table's counters.
func (t *Tables) Get(oid uint32) TableCounters {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.m[oid]; c != nil {
		return *c
	}
	return TableCounters{}
}

// Forget drops a table's counters (the table was dropped).
func (t *Tables) Forget(oid uint32) {
	t.mu.Lock()
	delete(t.m, oid)
	t.mu.Unlock()
}

// Snapshot copies every table's counters, by OID.
func (t *Tables) Snapshot() map[uint32]TableCounters {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[uint32]TableCounters, len(t.m))
	for k, v := range t.m {
		out[k] = *v
	}
	return out
}

// OIDs lists the tables with counters, sorted.
func (t *Tables) OIDs() []uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]uint32, 0, len(t.m))
	for k := range t.m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
