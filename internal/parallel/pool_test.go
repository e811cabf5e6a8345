package parallel

import (
	"sync"
	"testing"
)

func TestAcquireStopsAtTheLimit(t *testing.T) {
	var p WorkerPool
	if got := p.Acquire(3, 4); got != 3 {
		t.Fatalf("first acquire got %d, want 3", got)
	}
	if got := p.Acquire(4, 4); got != 1 {
		t.Fatalf("second acquire got %d, want the 1 free slot", got)
	}
	if got := p.Acquire(1, 4); got != 0 {
		t.Fatalf("full pool handed out %d", got)
	}
	p.Release(3)
	if got := p.InUse(); got != 1 {
		t.Fatalf("in use %d after release, want 1", got)
	}
	// A lowered limit below what is in use gives nothing, never a negative.
	if got := p.Acquire(2, 0); got != 0 {
		t.Fatalf("max 0 handed out %d", got)
	}
}

func TestPoolsAreIndependent(t *testing.T) {
	var a, b WorkerPool
	a.Acquire(8, 8)
	if got := b.Acquire(2, 8); got != 2 {
		t.Fatalf("second engine's pool got %d, want 2: pools must not share slots", got)
	}
}

func TestConcurrentAcquireNeverExceedsMax(t *testing.T) {
	var p WorkerPool
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				n := p.Acquire(2, 5)
				mu.Lock()
				if u := p.InUse(); u > peak {
					peak = u
				}
				mu.Unlock()
				p.Release(n)
			}
		}()
	}
	wg.Wait()
	if peak > 5 {
		t.Fatalf("pool reached %d slots, above max 5", peak)
	}
	if p.InUse() != 0 {
		t.Fatalf("%d slots leaked", p.InUse())
	}
}

func TestReleaseMoreThanAcquiredPanics(t *testing.T) {
	var p WorkerPool
	p.Acquire(1, 4)
	defer func() {
		if recover() == nil {
			t.Fatal("over-release did not panic")
		}
	}()
	p.Release(2)
}
