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
	LastVacuum, LastAutovacuum                time.Time
	LastAnalyze, LastAutoanalyze              time.Time
	VacuumCount, AutovacuumCount              int64
	AnalyzeCount, AutoanalyzeCount            int64
}

// Tables holds the counters of every table. Unlike PostgreSQL, changes are
// counted when the statement runs, not when its transaction ends, and the
// counters live in memory only (they restart from zero with the server).
type Tables struct {
	mu sync.Mutex
	m  map[uint32]*TableCounters
}

// NewTables makes an empty registry.
func NewTables() *Tables { return &Tables{m: map[uint32]*TableCounters{}} }

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
	}
	t.mu.Unlock()
}

// Vacuumed records a VACUUM that left live rows.
func (t *Tables) Vacuumed(oid uint32, live int64, at time.Time) {
	t.mu.Lock()
	c := t.get(oid)
	c.LiveTup = live
	c.DeadTup = 0
	c.LastVacuum = at
	c.VacuumCount++
	t.mu.Unlock()
}

// Analyzed records an ANALYZE.
func (t *Tables) Analyzed(oid uint32, live int64, at time.Time) {
	t.mu.Lock()
	c := t.get(oid)
	c.LiveTup = live
	c.ModSinceAnalyze = 0
	c.LastAnalyze = at
	c.AnalyzeCount++
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
