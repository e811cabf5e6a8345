package sequence

import (
	"sync"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// Session is one backend's sequence state (PostgreSQL's SeqTable): the
// value currval returns for each sequence it used, the values it fetched
// ahead (CACHE > 1) and has not handed out yet, and which sequence lastval
// names. None of it is transactional.
type Session struct {
	mu      sync.Mutex
	elts    map[uint32]*entry
	lastOID uint32 // 0: lastval not yet defined
}

type entry struct {
	file         smgr.RelFileNumber // a new file (another sequence) voids the cache
	last, cached int64              // last handed out; last fetched into the cache
	increment    int64              // step of the cached values
	lastValid    bool
}

func (s *Session) entry(oid uint32, file smgr.RelFileNumber) *entry {
	if s.elts == nil {
		s.elts = map[uint32]*entry{}
	}
	e := s.elts[oid]
	if e == nil || e.file != file {
		e = &entry{file: file}
		s.elts[oid] = e
	}
	return e
}

// Next is nextval: a cached value if the session has one, else a fresh
// batch of opts.Cache values from the shared page.
func (s *Session) Next(u *stats.Usage, r Rel, oid uint32, opts Options, xid uint32) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(oid, r.File)
	if e.lastValid && e.last != e.cached {
		e.last += e.increment
		s.lastOID = oid
		return e.last, nil
	}
	first, last, err := Fetch(u, r, opts, xid)
	if err != nil {
		return 0, err
	}
	e.last, e.cached, e.increment, e.lastValid = first, last, opts.Increment, true
	s.lastOID = oid
	return first, nil
}

// Current is currval.
func (s *Session) Current(oid uint32, name string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.elts[oid]; e != nil && e.lastValid {
		return e.last, nil
	}
	return 0, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", name)
}

// LastOID names the sequence lastval reads (0 if none yet).
func (s *Session) LastOID() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastOID
}

// Set is setval: it moves the shared state and voids this session's
// cache; with isCalled the value also becomes currval (not lastval,
// which only nextval sets).
func (s *Session) Set(u *stats.Usage, r Rel, oid uint32, opts Options, v int64, isCalled bool, xid uint32) error {
	if v < opts.Min || v > opts.Max {
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, r.Name, opts.Min, opts.Max)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := Set(u, r, State{LastValue: v, IsCalled: isCalled}, xid); err != nil {
		return err
	}
	e := s.entry(oid, r.File)
	if isCalled {
		e.last, e.lastValid = v, true
	}
	e.cached = e.last
	return nil
}

// Forget drops the cached values of a sequence (after ALTER SEQUENCE in
// this session, as PostgreSQL's relcache flush does).
func (s *Session) Forget(oid uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.elts[oid]; e != nil {
		e.cached = e.last
	}
}
