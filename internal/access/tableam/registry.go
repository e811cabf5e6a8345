package tableam

import (
	"sort"
	"sync"
)

// DefaultName is the access method a table gets when neither USING nor
// default_table_access_method says otherwise, as in PostgreSQL.
const DefaultName = "heap"

// Registry holds an engine's table access methods by name. It is per
// engine instance; an AM is registered once at start-up (engine.New), the
// one hook a new AM needs.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]AM
	byOID  map[uint32]AM
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string]AM{}, byOID: map[uint32]AM{}}
}

// Register adds am. It panics on a second AM of the same name or OID: that
// is a start-up wiring error, not a runtime condition.
func (r *Registry) Register(am AM) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[am.Name()]; dup {
		panic("tableam: access method " + am.Name() + " registered twice")
	}
	if _, dup := r.byOID[am.OID()]; dup {
		panic("tableam: access method OID of " + am.Name() + " registered twice")
	}
	r.byName[am.Name()] = am
	r.byOID[am.OID()] = am
}

// ByName returns the AM called name.
func (r *Registry) ByName(name string) (AM, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	am, ok := r.byName[name]
	return am, ok
}

// ByOID returns the AM whose pg_am.oid is oid.
func (r *Registry) ByOID(oid uint32) (AM, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	am, ok := r.byOID[oid]
	return am, ok
}

// All returns the registered AMs in OID order (pg_am's rows).
func (r *Registry) All() []AM {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]AM, 0, len(r.byOID))
	for _, am := range r.byOID {
		out = append(out, am)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID() < out[j].OID() })
	return out
}
