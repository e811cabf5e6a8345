package vacuum

import (
	"sort"
	"sync"
	"sync/atomic"
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

// Progress is one running VACUUM's row of pg_stat_progress_vacuum. Fields
// are read by other sessions while the VACUUM updates them.
type Progress struct {
	PID               int
	RelID             uint32
	phase             atomic.Value // string
	HeapBlksTotal     atomic.Int64
	HeapBlksScanned   atomic.Int64
	HeapBlksVacuumed  atomic.Int64
	IndexVacuumCount  atomic.Int64
	MaxDeadTupleBytes atomic.Int64
	DeadTupleBytes    atomic.Int64
	NumDeadItemIDs    atomic.Int64
	IndexesTotal      atomic.Int64
	IndexesProcessed  atomic.Int64
}

// Phase is the current phase.
func (p *Progress) Phase() string {
	if v, ok := p.phase.Load().(string); ok {
		return v
	}
	return PhaseInitializing
}

// SetPhase moves to a phase.
func (p *Progress) SetPhase(s string) { p.phase.Store(s) }

var (
	progressMu sync.Mutex
	running    = map[*Progress]bool{}
)

func newProgress(pid int, rel uint32) *Progress {
	p := &Progress{PID: pid, RelID: rel}
	p.SetPhase(PhaseInitializing)
	return p
}

// publish makes the row visible in pg_stat_progress_vacuum.
func (p *Progress) publish() {
	progressMu.Lock()
	running[p] = true
	progressMu.Unlock()
}

func (p *Progress) end() {
	progressMu.Lock()
	delete(running, p)
	progressMu.Unlock()
}

// Running lists the VACUUMs in progress, by PID.
func Running() []*Progress {
	progressMu.Lock()
	defer progressMu.Unlock()
	out := make([]*Progress, 0, len(running))
	for p := range running {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
