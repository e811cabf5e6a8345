package interrupt

import (
	"sort"
	"sync"
	"time"

	"github.com/tidal-db/tidal/internal/activity"
)

// ClientBackend is the backend_type of a session (pg_stat_activity).
const ClientBackend = "client backend"

// Backend is one session as other sessions see it: what PostgreSQL's
// BackendPidGetProc finds and the signal pg_cancel_backend and
// pg_terminate_backend send.
type Backend struct {
	PID int32
	// Role is the OID of the role the session logged in as (PGPROC's
	// roleId), which decides who may signal it.
	Role uint32
	// Type is pg_stat_activity.backend_type: "client backend" for
	// sessions (the zero value means it), "autovacuum launcher" or
	// "autovacuum worker" for autovacuum's goroutines.
	Type string
	// Activity is what the backend publishes for pg_stat_activity.
	Activity *activity.Status
	signal   func(Reason)
	gone     chan struct{}
}

// BackendType is pg_stat_activity.backend_type.
func (b *Backend) BackendType() string {
	if b.Type == "" {
		return ClientBackend
	}
	return b.Type
}

// Signal asks the backend to stop its statement (QueryCancel) or to end
// (Terminate). It does not wait.
func (b *Backend) Signal(r Reason) { b.signal(r) }

// Gone is closed once the backend has ended.
func (b *Backend) Gone() <-chan struct{} { return b.gone }

// Registry is an engine's backends by process ID (one per engine, never
// shared between engines). The zero value is ready.
type Registry struct {
	mu    sync.Mutex
	byPID map[int32]*Backend
	last  int32
}

// firstPID is where process IDs start, so they look like PostgreSQL's.
const firstPID = 10000

// NewPID returns a process ID no registered backend has.
func (r *Registry) NewPID() int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		r.last++
		if r.last < firstPID {
			r.last = firstPID
		}
		if r.byPID[r.last] == nil {
			return r.last
		}
	}
}

// Register makes a backend reachable under pid; signal is how it is
// interrupted. A pid registered twice keeps the newer backend.
func (r *Registry) Register(pid int32, role uint32, signal func(Reason)) *Backend {
	return r.RegisterType(pid, role, "", signal)
}

// RegisterType is Register for a backend of another type than a client
// session (backendType as pg_stat_activity names it).
func (r *Registry) RegisterType(pid int32, role uint32, backendType string, signal func(Reason)) *Backend {
	b := &Backend{PID: pid, Role: role, Type: backendType, Activity: activity.New(time.Now()),
		signal: signal, gone: make(chan struct{})}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byPID == nil {
		r.byPID = map[int32]*Backend{}
	}
	r.byPID[pid] = b
	return b
}

// Unregister removes b (its session ended) and wakes those waiting for it.
func (r *Registry) Unregister(b *Backend) {
	if b == nil {
		return
	}
	r.mu.Lock()
	if r.byPID[b.PID] == b {
		delete(r.byPID, b.PID)
	}
	r.mu.Unlock()
	close(b.gone)
}

// Lookup returns the backend with process ID pid, or nil.
func (r *Registry) Lookup(pid int32) *Backend {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byPID[pid]
}

// All lists the registered backends in PID order (pg_stat_activity).
func (r *Registry) All() []*Backend {
	r.mu.Lock()
	out := make([]*Backend, 0, len(r.byPID))
	for _, b := range r.byPID {
		out = append(out, b)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
