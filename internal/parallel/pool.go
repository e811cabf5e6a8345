// Package parallel holds the engine-wide pool of parallel worker slots
// (max_parallel_workers) that every parallel operation draws from: a
// parallel VACUUM's index workers, autovacuum's, and parallel query's.
// One pool per engine instance, so two embedded engines in one process do
// not share slots.
package parallel

import "sync"

// WorkerPool counts the parallel workers running in one engine. The limit
// is the caller's current max_parallel_workers rather than a field, because
// PostgreSQL reads the setting at launch time: lowering it does not stop
// running workers, it only makes later launches get fewer.
type WorkerPool struct {
	mu   sync.Mutex
	used int
}

// Acquire takes up to want slots while the pool holds fewer than max, and
// returns how many it took (0 … want). The caller must Release them.
func (p *WorkerPool) Acquire(want, max int) int {
	if want <= 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	free := max - p.used
	if free < 0 {
		free = 0
	}
	if want > free {
		want = free
	}
	p.used += want
	return want
}

// Release returns n slots taken by Acquire.
func (p *WorkerPool) Release(n int) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.used {
		// Releasing more than was acquired is a caller bug that would let
		// later launches exceed max_parallel_workers.
		panic("parallel: released more workers than acquired")
	}
	p.used -= n
}

// InUse is the number of slots held now.
func (p *WorkerPool) InUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}
