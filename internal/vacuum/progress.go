package vacuum

import (
	"sort"
	"sync"
)

// Phases as pg_stat_progress_vacuum names them.
const (
	PhaseInitializing  = "initializing"
	PhaseScanHeap      = "scanning heap"
	PhaseVacuumIndexes = "vacuuming indexes"
	PhaseVacuumHeap    = "vacuuming heap"
	PhaseCleanupIndex  = "cleaning up indexes"
	PhaseTruncate      = "truncating heap"
	PhaseFinalCleanup  = "performing final cleanup"
)

// ProgressRow is one consistent reading of a VACUUM's row of
// pg_stat_progress_vacuum.
type ProgressRow struct {
	Phase             string
	HeapBlksTotal     int64
	HeapBlksScanned   int64
	HeapBlksVacuumed  int64
	IndexVacuumCount  int64
	MaxDeadTupleBytes int64
	DeadTupleBytes    int64
	NumDeadItemIDs    int64
	IndexesTotal      int64
	IndexesProcessed  int64
	// WorkersPlanned and WorkersLaunched are the parallel index-vacuum
	// workers of the current index pass (tidal's columns).
	WorkersPlanned, WorkersLaunched int64
}

// Progress is one running VACUUM's row of pg_stat_progress_vacuum. Other
// sessions read it while the VACUUM changes it. Values that belong together
// (the dead-item count and the memory holding them, a phase and the
// counters it resets) change in one update, and a reader copies the whole
// row under the same lock, so it never sees half of an update: PostgreSQL's
// pgstat_progress_update_multi_param and the st_changecount protocol of
// pg_stat_get_progress_info give the same guarantee.
type Progress struct {
	PID   int
	RelID uint32

	reg *Registry
	mu  sync.Mutex
	row ProgressRow
}

// Snapshot returns the row as of one moment.
func (p *Progress) Snapshot() ProgressRow {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.row
}

// update applies change to the row atomically with respect to Snapshot.
func (p *Progress) update(change func(r *ProgressRow)) {
	p.mu.Lock()
	change(&p.row)
	p.mu.Unlock()
}

// Phase is the current phase.
func (p *Progress) Phase() string { return p.Snapshot().Phase }

// SetPhase moves to a phase.
func (p *Progress) SetPhase(s string) { p.update(func(r *ProgressRow) { r.Phase = s }) }

// setDeadItems publishes the dead-item store's size: its TID count and the
// memory it uses, together.
func (p *Progress) setDeadItems(num, bytes int64) {
	p.update(func(r *ProgressRow) { r.NumDeadItemIDs, r.DeadTupleBytes = num, bytes })
}

// Registry is one engine's running VACUUMs (manual and autovacuum), the
// rows of its pg_stat_progress_vacuum. One per engine instance: two
// engines in one process see only their own.
type Registry struct {
	mu      sync.Mutex
	running map[*Progress]bool
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry { return &Registry{running: map[*Progress]bool{}} }

func newProgress(reg *Registry, pid int, rel uint32) *Progress {
	p := &Progress{PID: pid, RelID: rel, reg: reg}
	p.row.Phase = PhaseInitializing
	return p
}

// publish makes the row visible in pg_stat_progress_vacuum.
func (p *Progress) publish() {
	if p.reg == nil {
		return
	}
	p.reg.mu.Lock()
	p.reg.running[p] = true
	p.reg.mu.Unlock()
}

func (p *Progress) end() {
	if p.reg == nil {
		return
	}
	p.reg.mu.Lock()
	delete(p.reg.running, p)
	p.reg.mu.Unlock()
}

// Running lists the VACUUMs in progress, by PID.
func (r *Registry) Running() []*Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Progress, 0, len(r.running))
	for p := range r.running {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
