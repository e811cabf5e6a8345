// Package stmtstats is pg_stat_statements for one engine: execution
// counters per (user, database, query id, top level), bounded in number
// with PostgreSQL's least-used eviction.
package stmtstats

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/tidal-db/tidal/internal/stats"
)

// Key identifies an entry, as pgssHashKey.
type Key struct {
	UserID, DBID uint32
	QueryID      int64
	TopLevel     bool
}

// Counters are an entry's figures, with pg_stat_statements' meanings;
// times in milliseconds.
type Counters struct {
	Calls                                 int64
	TotalExec, MinExec, MaxExec, MeanExec float64
	sumVarExec                            float64 // Welford's sum of squared differences
	Rows                                  int64
	Buf                                   stats.BufferUsage
	WAL                                   stats.WALUsage
}

// StddevExec is the population standard deviation of the execution
// times, as pg_stat_statements computes it.
func (c *Counters) StddevExec() float64 {
	if c.Calls <= 1 {
		return 0
	}
	return math.Sqrt(c.sumVarExec / float64(c.Calls))
}

// Entry is one row of pg_stat_statements.
type Entry struct {
	Key
	Query string
	Counters
}

type entry struct {
	mu    sync.Mutex
	query string
	c     Counters
	usage float64 // calls, decayed at each eviction (USAGE_DECREASE_FACTOR)
}

// PostgreSQL's pg_stat_statements constants.
const (
	usageInit      = 1.0
	usageDecrease  = 0.99
	deallocPercent = 5
	minVictims     = 10
)

// Store holds the entries; it is safe for concurrent use. Lookups of
// existing entries take the map's read lock and the entry's own mutex, so
// sessions running different statements do not wait for each other.
type Store struct {
	mu         sync.RWMutex
	entries    map[Key]*entry
	dealloc    int64
	statsReset time.Time
}

// New returns an empty store.
func New() *Store {
	return &Store{entries: map[Key]*entry{}, statsReset: time.Now()}
}

// Exec is what one execution of a statement adds.
type Exec struct {
	Time  time.Duration
	Rows  int64
	Usage stats.Usage
}

// Record adds one execution to k's entry, making it (with query()'s
// text) if it is new, after evicting the least used entries when the
// store holds max already.
func (s *Store) Record(k Key, query func() string, x Exec, max int) {
	s.mu.RLock()
	e := s.entries[k]
	s.mu.RUnlock()
	if e == nil {
		e = s.insert(k, query(), max)
	}
	ms := float64(x.Time.Nanoseconds()) / 1e6
	e.mu.Lock()
	c := &e.c
	c.Calls++
	e.usage += 1
	if c.Calls == 1 {
		c.MinExec, c.MaxExec, c.MeanExec = ms, ms, ms
	} else {
		old := c.MeanExec
		c.MeanExec += (ms - old) / float64(c.Calls)
		c.sumVarExec += (ms - old) * (ms - c.MeanExec)
		c.MinExec = math.Min(c.MinExec, ms)
		c.MaxExec = math.Max(c.MaxExec, ms)
	}
	c.TotalExec += ms
	c.Rows += x.Rows
	u := stats.Usage{Buf: c.Buf, WAL: c.WAL}
	u.Add(x.Usage)
	c.Buf, c.WAL = u.Buf, u.WAL
	e.mu.Unlock()
}

func (s *Store) insert(k Key, query string, max int) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[k]; e != nil {
		return e // another session made it meanwhile
	}
	if max > 0 && len(s.entries) >= max {
		s.evict()
	}
	e := &entry{query: query, usage: usageInit}
	s.entries[k] = e
	return e
}

// evict is entry_dealloc: every entry's usage decays, and the least used
// 5% (at least 10) go.
func (s *Store) evict() {
	type victim struct {
		k     Key
		usage float64
	}
	all := make([]victim, 0, len(s.entries))
	for k, e := range s.entries {
		e.mu.Lock()
		e.usage *= usageDecrease
		all = append(all, victim{k, e.usage})
		e.mu.Unlock()
	}
	sort.Slice(all, func(i, j int) bool { return all[i].usage < all[j].usage })
	n := len(all) * deallocPercent / 100
	if n < minVictims {
		n = minVictims
	}
	if n > len(all) {
		n = len(all)
	}
	for _, v := range all[:n] {
		delete(s.entries, v.k)
	}
	s.dealloc++
}

// Snapshot copies every entry; each entry's counters are read together.
func (s *Store) Snapshot() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Entry, 0, len(s.entries))
	for k, e := range s.entries {
		e.mu.Lock()
		out = append(out, Entry{Key: k, Query: e.query, Counters: e.c})
		e.mu.Unlock()
	}
	return out
}

// Reset is pg_stat_statements_reset(userid, dbid, queryid): the entries
// that match every non-zero argument go; with all three zero, every entry
// goes and the deallocation count and reset time start over.
func (s *Store) Reset(userID, dbID uint32, queryID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if userID == 0 && dbID == 0 && queryID == 0 {
		clear(s.entries)
		s.dealloc, s.statsReset = 0, time.Now()
		return
	}
	for k := range s.entries {
		if (userID == 0 || k.UserID == userID) && (dbID == 0 || k.DBID == dbID) && (queryID == 0 || k.QueryID == queryID) {
			delete(s.entries, k)
		}
	}
}

// Info is pg_stat_statements_info: evictions and the last full reset.
func (s *Store) Info() (dealloc int64, statsReset time.Time) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dealloc, s.statsReset
}
