package wal

import (
	"sync"
	"sync/atomic"
)

// Unlogged relations (temporary tables, as PostgreSQL's RelationNeedsWAL
// says of them): records that change only pages of such relations are not
// written. InsertRecord returns LSN 0 for them, so their pages keep a
// zero pd_lsn: writing one out never waits for a WAL flush, and no
// full-page image is ever taken of it. Crash recovery cannot rebuild such
// relations; their owner (the catalog) must drop them at start-up.
type unloggedSet struct {
	mu   sync.Mutex
	rels atomic.Pointer[map[uint32]struct{}] // copy on write: read without the lock
}

// SetUnlogged registers relation file rel as unlogged (on) or forgets it.
func (w *WAL) SetUnlogged(rel uint32, on bool) {
	u := &w.unlogged
	u.mu.Lock()
	defer u.mu.Unlock()
	next := map[uint32]struct{}{}
	if cur := u.rels.Load(); cur != nil {
		for r := range *cur {
			next[r] = struct{}{}
		}
	}
	if on {
		next[rel] = struct{}{}
	} else {
		delete(next, rel)
	}
	u.rels.Store(&next)
}

// IsUnlogged reports whether relation file rel is registered as unlogged.
func (w *WAL) IsUnlogged(rel uint32) bool {
	cur := w.unlogged.rels.Load()
	if cur == nil {
		return false
	}
	_, ok := (*cur)[rel]
	return ok
}

// skipsRecord reports whether r changes only pages of unlogged relations.
func (w *WAL) skipsRecord(r *Record) bool {
	cur := w.unlogged.rels.Load()
	if cur == nil || len(*cur) == 0 || len(r.blocks) == 0 {
		return false
	}
	for i := range r.blocks {
		if _, ok := (*cur)[uint32(r.blocks[i].tag.Rel)]; !ok {
			return false
		}
	}
	return true
}
