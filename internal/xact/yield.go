package xact

import "sync/atomic"

// YieldFunc is called when another backend starts waiting for a lock
// (tag, in mode) that conflicts with one this backend holds.
type YieldFunc func(tag LockTag, mode LockMode)

// procYield is a Proc's autovacuum hook (PostgreSQL's PROC_IS_AUTOVACUUM
// flag and the deadlock checker's "blocking autovacuum" test): while it is
// set, a conflicting lock request does not wait behind the backend but
// asks it to give up its work.
type procYield struct {
	f atomic.Pointer[YieldFunc]
}

// SetYield makes p yield its locks to conflicting requests: f is called
// (in its own goroutine) for each one that has to wait. nil stops it (an
// anti-wraparound autovacuum, and any other backend, does not yield).
func (p *Proc) SetYield(f YieldFunc) {
	if f == nil {
		p.yield.f.Store(nil)
		return
	}
	p.yield.f.Store(&f)
}

// yieldingHolders returns the hooks of the other holders of st whose
// locks conflict with mode. Called under the lock manager's mutex.
func (st *lockState) yieldingHolders(p *Proc, mode LockMode) []YieldFunc {
	var out []YieldFunc
	for q, h := range st.holders {
		if q == p || h.mask()&conflicts[mode] == 0 {
			continue
		}
		if f := q.yield.f.Load(); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// cancelYielders asks the holders of st that block p's request (tag, in
// mode) and yield to it to give up.
func (m *Manager) cancelYielders(st *lockState, p *Proc, tag LockTag, mode LockMode) {
	m.mu.Lock()
	fs := st.yieldingHolders(p, mode)
	m.mu.Unlock()
	for _, f := range fs {
		go f(tag, mode)
	}
}
