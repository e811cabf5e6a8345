package xact

import (
	"fmt"
	"sort"
	"time"
)

// What pg_locks, pg_blocking_pids and pg_stat_activity read of the lock
// manager and the running set: copies taken under the manager's mutex, so
// each answer is one consistent picture (PostgreSQL's GetLockStatusData).

// SetPID records the process ID of the backend p serves (pg_locks.pid).
func (p *Proc) SetPID(pid int32) { p.pid.Store(pid) }

// PID is the process ID SetPID recorded (0: an engine-internal proc).
func (p *Proc) PID() int32 { return p.pid.Load() }

// VirtualXid is the backend's virtual transaction id as pg_locks prints
// it: backend number / local transaction number.
func (p *Proc) VirtualXid() string { return fmt.Sprintf("%d/%d", p.ID, p.lxid.Load()+1) }

// LockInfo is one row of pg_locks: a mode held, or the one awaited.
type LockInfo struct {
	Tag       LockTag
	Mode      LockMode
	Granted   bool
	PID       int32
	VXid      string    // the holder's or waiter's virtual transaction
	WaitStart time.Time // zero when granted
	// Weak is a relation lock PostgreSQL would have taken by fast path: a
	// mode below ShareUpdateExclusive while no stronger lock is held or
	// awaited on the relation.
	Weak bool
}

// LockStatus lists every heavyweight lock held or awaited, one entry per
// backend and mode, holders before waiters within a lock.
func (m *Manager) LockStatus() []LockInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []LockInfo
	for tag, st := range m.locks.locks {
		strong := tag.Kind == LockRelation && st.hasStrong()
		for p, h := range st.holders {
			mask := h.mask()
			for mode := AccessShareLock; mode <= AccessExclusiveLock; mode++ {
				if mask&(1<<mode) != 0 {
					out = append(out, LockInfo{Tag: tag, Mode: mode, Granted: true, PID: p.PID(), VXid: p.VirtualXid(),
						Weak: tag.Kind == LockRelation && !strong && mode < ShareUpdateExclusiveLock})
				}
			}
		}
		for _, w := range st.waiters {
			out = append(out, LockInfo{Tag: tag, Mode: w.mode, PID: w.proc.PID(), VXid: w.proc.VirtualXid(), WaitStart: w.since})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

func (a LockInfo) less(b LockInfo) bool {
	if a.Tag != b.Tag {
		x, y := a.Tag, b.Tag
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		if x.A != y.A {
			return x.A < y.A
		}
		if x.B != y.B {
			return x.B < y.B
		}
		return x.C < y.C
	}
	if a.Granted != b.Granted {
		return a.Granted
	}
	if a.Granted && a.PID != b.PID {
		return a.PID < b.PID
	}
	return a.Granted && a.Mode < b.Mode
}

// hasStrong: some backend holds or awaits a mode of ShareUpdateExclusive
// or stronger (PostgreSQL then moves weak locks out of the fast path).
func (st *lockState) hasStrong() bool {
	for _, h := range st.holders {
		if h.mask()>>ShareUpdateExclusiveLock != 0 {
			return true
		}
	}
	for _, w := range st.waiters {
		if w.mode >= ShareUpdateExclusiveLock {
			return true
		}
	}
	return false
}

// ProcInfo is what pg_stat_activity reads of one backend's transaction.
type ProcInfo struct {
	Xid, Xmin XID
	// Waiting is the lock the backend sleeps on, when Waits.
	Waiting LockTag
	Waits   bool
	VXid    string // its virtual transaction id
}

// ProcStatus returns the transaction state of every backend with a
// process ID, by PID.
func (m *Manager) ProcStatus() map[int32]ProcInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int32]ProcInfo, len(m.procs))
	for _, p := range m.procs {
		pid := p.PID()
		if pid == 0 {
			continue
		}
		pi := ProcInfo{Xid: p.xid.Load(), Xmin: p.xmin.Load(), VXid: p.VirtualXid()}
		if w := p.waiting; w != nil {
			pi.Waiting, pi.Waits = w.tag, true
		}
		out[pid] = pi
	}
	return out
}

// BlockingPIDs lists the backends that block the one with process ID pid
// (pg_blocking_pids): those holding a mode that conflicts with its request
// (hard blocks), then those queued ahead of it for a conflicting mode (soft
// blocks), each once. It is empty unless that backend waits for a lock.
func (m *Manager) BlockingPIDs(pid int32) []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var w *lockWaiter
	for _, p := range m.procs {
		if p.PID() == pid && p.waiting != nil {
			w = p.waiting
			break
		}
	}
	if w == nil {
		return nil
	}
	st := m.locks.locks[w.tag]
	if st == nil {
		return nil
	}
	seen := map[int32]bool{}
	var out []int32
	add := func(q *Proc) {
		if q == w.proc || seen[q.PID()] {
			return
		}
		seen[q.PID()] = true
		out = append(out, q.PID())
	}
	var hard []*Proc
	for q, h := range st.holders {
		if h.mask()&conflicts[w.mode] != 0 {
			hard = append(hard, q)
		}
	}
	sort.Slice(hard, func(i, j int) bool { return hard[i].PID() < hard[j].PID() })
	for _, q := range hard {
		add(q)
	}
	for _, o := range st.waiters {
		if o == w {
			break
		}
		if Conflicts(o.mode, w.mode) {
			add(o.proc)
		}
	}
	return out
}

// OnDeadlock sets what is called each time a deadlock is detected
// (pg_stat_database.deadlocks); set it before backends start.
func (m *Manager) OnDeadlock(f func()) { m.onDeadlock = f }

func (m *Manager) countDeadlock() {
	if m.onDeadlock != nil {
		m.onDeadlock()
	}
}
