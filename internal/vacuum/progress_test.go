package vacuum

import (
	"sync"
	"testing"
)

// TestProgressSnapshotConsistent: a reader of the progress row never sees
// the dead-item count of one update with the memory figure of another, nor
// a reset half done (the torn pair pg_stat_progress_vacuum once showed:
// dead_tuple_bytes 0 for 10780 TIDs).
func TestProgressSnapshotConsistent(t *testing.T) {
	p := newProgress(nil, 1, 1)
	const rounds = 500000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(1); i <= rounds; i++ {
			p.setDeadItems(i, 6*i)
			if i%100 == 0 {
				p.update(func(r *ProgressRow) { r.Phase = PhaseVacuumHeap })
				p.setDeadItems(0, 0)
				p.SetPhase(PhaseScanHeap)
			}
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reads := 0; ; reads++ {
		r := p.Snapshot()
		if r.DeadTupleBytes != 6*r.NumDeadItemIDs {
			t.Fatalf("read %d: dead_tuple_bytes %d for %d TIDs", reads, r.DeadTupleBytes, r.NumDeadItemIDs)
		}
		select {
		case <-done:
			if r := p.Snapshot(); r.NumDeadItemIDs != 0 || r.DeadTupleBytes != 0 || r.Phase != PhaseScanHeap { // the last round reset the store
				t.Fatalf("final row %+v", r)
			}
			return
		default:
		}
	}
}

// TestRegistriesAreSeparate: two engines' registries do not see each
// other's VACUUMs.
func TestRegistriesAreSeparate(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	p := newProgress(a, 7, 1)
	p.publish()
	if len(a.Running()) != 1 || len(b.Running()) != 0 {
		t.Fatalf("a %d, b %d running; want 1, 0", len(a.Running()), len(b.Running()))
	}
	p.end()
	if len(a.Running()) != 0 {
		t.Fatal("ended VACUUM still listed")
	}
}
