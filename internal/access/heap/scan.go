package heap

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/readstream"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// Scan is a sequential scan: page at a time, it copies out the tuples
// visible to the transaction's snapshot while holding the page's share
// lock briefly (heapgetpage), then hands them out one by one.
type Scan struct {
	rel      *Relation
	u        *stats.Usage
	tx       *Txn
	strategy *buffer.Strategy
	// blk is the next block to read, nblocks where the blocks this scan
	// reads end: the table's end, or a parallel scan's claimed chunk's.
	nblocks page.BlockNumber
	blk     page.BlockNumber
	par     *tableam.ParallelScan
	// stream reads the pages of the current chunk (the table, for a
	// serial scan) ahead of the scan: nil before its first page and after
	// its last. Maintenance selects maintenance_io_concurrency.
	stream      *readstream.Stream
	Maintenance bool

	arena []byte
	tups  []scanTuple
	i     int
	hints HintSet

	// Filter, if set, is applied to each visible tuple while the page is
	// share-locked (it must not read pages itself); rejected tuples are
	// not copied out and are counted in Filtered.
	Filter    func(t tableam.Tuple) (bool, error)
	Filtered  int64
	filterErr error
	// Interrupts, if set, is checked before each page: a scan over
	// pages with nothing visible must still honour a cancel.
	Interrupts *interrupt.State
}

type scanTuple struct {
	tid      page.ItemPointer
	from, to int
}

// BeginScan starts a sequential scan over the blocks that exist now.
// Large tables (more than a quarter of shared buffers) are read through a
// bulk-read ring, as PostgreSQL does.
func (r *Relation) BeginScan(u *stats.Usage, tx *Txn) (*Scan, error) {
	nb, err := r.NBlocks()
	if err != nil {
		return nil, err
	}
	s := &Scan{rel: r, u: u, tx: tx, nblocks: nb}
	if r.ssiTracked(tx) {
		tx.SSI.LockRelation(uint32(r.Rel))
	}
	if int(nb) > r.env.Pool.NBuffers()/4 {
		s.strategy = r.env.Pool.NewStrategy(buffer.BulkRead, 256<<10)
	}
	return s, nil
}

// Next returns the next visible tuple (a private copy valid until the next
// call) and its TID; ok is false at the end.
func (s *Scan) Next() (Tuple, page.ItemPointer, bool, error) {
	for s.i >= len(s.tups) {
		if s.blk >= s.nblocks {
			s.Close() // the chunk's stream is used up
			if !s.claim() {
				return nil, page.ItemPointer{}, false, nil
			}
			continue
		}
		if err := s.Interrupts.Check(); err != nil {
			s.Close()
			return nil, page.ItemPointer{}, false, err
		}
		if err := s.loadPage(s.blk); err != nil {
			s.Close()
			return nil, page.ItemPointer{}, false, err
		}
		s.blk++
	}
	st := s.tups[s.i]
	s.i++
	return Tuple(s.arena[st.from:st.to]), st.tid, true, nil
}

// claim takes a parallel scan's next chunk of blocks; false at the end
// (and always for a serial scan).
func (s *Scan) claim() bool {
	if s.par == nil {
		return false
	}
	start, end, ok := s.par.Claim()
	s.blk, s.nblocks = start, end
	return ok
}

func (s *Scan) loadPage(blk page.BlockNumber) error {
	r := s.rel
	pool := r.env.Pool
	s.tups = s.tups[:0]
	s.arena = s.arena[:0]
	s.i = 0
	if s.stream == nil {
		s.stream = readstream.Range(pool, s.u, r.Rel, smgr.MainFork, blk, s.nblocks,
			readstream.Options{Strategy: s.strategy, Maintenance: s.Maintenance})
	}
	b, got, ok, err := s.stream.Next()
	if err == nil && (!ok || got != blk) {
		err = fmt.Errorf("heap scan of %d: read stream gave block %d (ok %v), want %d", r.Rel, got, ok, blk)
	}
	if err != nil {
		return err
	}
	// The pin and the share lock are released by defers: the filter is
	// the executor's code, and a panic in it must not leave the page
	// locked (crit.Recoverable relies on it).
	defer pool.Release(b)
	r.PruneOpt(s.u, b, blk)
	s.collect(b, blk)
	s.hints.Apply(pool, s.u, b)
	if err := s.filterErr; err != nil {
		s.filterErr = nil
		return err
	}
	return nil
}

// Close releases the pages read ahead of the scan. A scan that reached
// its end or failed is closed already; one given up early must be closed.
func (s *Scan) Close() {
	if s.stream != nil {
		s.stream.Close()
		s.stream = nil
	}
}

// collect copies out the page's visible tuples that pass the filter,
// under the page's share lock.
func (s *Scan) collect(b buffer.Buffer, blk page.BlockNumber) {
	r := s.rel
	pool := r.env.Pool
	pool.Lock(b, buffer.Share)
	defer pool.Unlock(b, buffer.Share)
	p := pool.Page(b)
	if p.IsNew() {
		return
	}
	allVisible := p.Flags()&page.FlagAllVisible != 0
	max := p.MaxOffset()
	for off := page.OffsetNumber(1); off <= max; off++ {
		it := p.Item(off)
		if it.Flags != page.LPNormal {
			continue
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		vis := allVisible
		if !vis {
			var bits uint16
			vis, bits = VisibleHints(r.env.Xact, t, s.tx)
			s.hints.Add(off, it.Off, t, bits)
			if err := r.ssiConflictOut(t, vis, s.tx); err != nil {
				s.filterErr = err
				return
			}
		}
		if vis && s.Filter != nil {
			keep, err := s.Filter(tableam.Tuple(t))
			if err != nil {
				s.filterErr = err
				return
			}
			if !keep {
				s.Filtered++
				continue
			}
		}
		if vis {
			from := len(s.arena)
			s.arena = append(s.arena, t...)
			s.tups = append(s.tups, scanTuple{tid: page.ItemPointer{Block: blk, Offset: off}, from: from, to: len(s.arena)})
		}
	}
}

// Fetch returns a copy of the version of the row at tid visible to the
// transaction, following a HOT chain from tid (heap_hot_search_buffer).
// found is false when no member of the chain is visible.
func (r *Relation) Fetch(u *stats.Usage, tx *Txn, tid page.ItemPointer) (Tuple, page.ItemPointer, bool, error) {
	t, vtid, found, _, err := r.FetchAllDead(u, tx, tid)
	return t, vtid, found, err
}

// FetchAllDead is Fetch that also reports, when nothing is visible,
// whether every member of the chain it walked is dead to every snapshot
// (heap_hot_search_buffer's all_dead): the index entry that led here may
// be marked dead (kill_prior_tuple).
func (r *Relation) FetchAllDead(u *stats.Usage, tx *Txn, tid page.ItemPointer) (_ Tuple, _ page.ItemPointer, _ bool, allDead bool, _ error) {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return nil, tid, false, false, err
	}
	r.PruneOpt(u, b, tid.Block)
	pool.Lock(b, buffer.Share)
	var hints HintSet
	defer func() {
		pool.Unlock(b, buffer.Share)
		hints.Apply(pool, u, b)
		pool.Release(b)
	}()
	p := pool.Page(b)
	off := tid.Offset
	var prevXmax uint32
	first := true
	allDead = true
	var horizon xact.XID
	surelyDead := func(t Tuple) bool {
		if horizon == 0 {
			horizon = r.env.Xact.OldestXmin()
		}
		st, _ := VacuumVisibilityHints(r.env.Xact, t, horizon)
		return st == TupleDead
	}
	for steps := 0; steps <= MaxTuplesPerPage; steps++ {
		if off < 1 || off > p.MaxOffset() {
			return nil, tid, false, allDead, nil
		}
		it := p.Item(off)
		if it.Flags == page.LPRedirect {
			if !first {
				return nil, tid, false, allDead, nil
			}
			off = page.OffsetNumber(it.Off)
			first = false
			continue
		}
		if it.Flags != page.LPNormal {
			return nil, tid, false, allDead, nil
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		// After a HOT link, the next member must have been inserted by the
		// updater; a redirect carries no xmax to check against.
		if prevXmax != 0 && t.Xmin() != prevXmax {
			return nil, tid, false, allDead, nil
		}
		vis, bits := VisibleHints(r.env.Xact, t, tx)
		hints.Add(off, it.Off, t, bits)
		if err := r.ssiConflictOut(t, vis, tx); err != nil {
			return nil, tid, false, false, err
		}
		if vis {
			found := page.ItemPointer{Block: tid.Block, Offset: off}
			r.ssiLockTuple(t, found, tx)
			return append(Tuple(nil), t...), found, true, false, nil
		}
		if allDead && !surelyDead(t) {
			allDead = false
		}
		if !t.IsHotUpdated() {
			return nil, tid, false, allDead, nil
		}
		next := t.Ctid()
		if next.Block != tid.Block {
			return nil, tid, false, allDead, nil
		}
		prevXmax = UpdateXid(r.env.Xact, t)
		off = next.Offset
		first = false
	}
	return nil, tid, false, allDead, nil
}

// FetchLatest returns the newest version of the row whose version tid the
// caller saw, following update links across pages (for READ COMMITTED
// re-checks of a concurrently updated row). It returns ok=false when the
// row was deleted.
func (r *Relation) FetchLatest(u *stats.Usage, tid page.ItemPointer) (Tuple, page.ItemPointer, bool, error) {
	pool := r.env.Pool
	for steps := 0; steps < 1000; steps++ {
		b, err := pool.Read(u, r.tag(tid.Block), nil)
		if err != nil {
			return nil, tid, false, err
		}
		pool.Lock(b, buffer.Share)
		p := pool.Page(b)
		if tid.Offset > p.MaxOffset() {
			pool.UnlockRelease(b, buffer.Share)
			return nil, tid, false, nil
		}
		it := p.Item(tid.Offset)
		if it.Flags == page.LPRedirect {
			tid.Offset = page.OffsetNumber(it.Off)
			pool.UnlockRelease(b, buffer.Share)
			continue
		}
		if it.Flags != page.LPNormal {
			pool.UnlockRelease(b, buffer.Share)
			return nil, tid, false, nil
		}
		t := append(Tuple(nil), p[it.Off:it.Off+it.Len]...)
		pool.UnlockRelease(b, buffer.Share)
		mask := t.Infomask()
		if mask&XmaxInvalid != 0 || lockedOnly(mask) || t.Ctid() == tid {
			return t, tid, true, nil
		}
		if r.env.Xact.State(UpdateXid(r.env.Xact, t)) != xact.Committed { // not committed: this is the latest
			return t, tid, true, nil
		}
		tid = t.Ctid()
	}
	return nil, tid, false, nil
}

// UniqueState classifies a row for a unique-index check (what a dirty
// snapshot would say about the chain the index entry points at).
type UniqueState = tableam.UniqueState

const (
	RowDead     = tableam.RowDead
	RowLive     = tableam.RowLive
	RowInFlight = tableam.RowInFlight
)

// CheckUnique follows the HOT chain at tid and says whether it holds a
// version that conflicts with a new unique key.
func (r *Relation) CheckUnique(u *stats.Usage, tx *Txn, tid page.ItemPointer) (UniqueState, xact.XID, error) {
	st, xid, _, err := r.CheckUniqueVersion(u, tx, tid)
	return st, xid, err
}

// CheckUniqueVersion is CheckUnique that also returns the TID of the
// conflicting version when the state is RowLive (ON CONFLICT acts on it).
func (r *Relation) CheckUniqueVersion(u *stats.Usage, tx *Txn, tid page.ItemPointer) (UniqueState, xact.XID, page.ItemPointer, error) {
	none := page.ItemPointer{}
	pool := r.env.Pool
	x := r.env.Xact
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return RowDead, 0, none, err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	p := pool.Page(b)
	off := tid.Offset
	for steps := 0; steps <= MaxTuplesPerPage; steps++ {
		if off < 1 || off > p.MaxOffset() {
			return RowDead, 0, none, nil
		}
		it := p.Item(off)
		if it.Flags == page.LPRedirect {
			off = page.OffsetNumber(it.Off)
			continue
		}
		if it.Flags != page.LPNormal {
			return RowDead, 0, none, nil
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		xmin := t.Xmin()
		alive := true
		if t.Infomask()&XminInvalid != 0 && t.Infomask()&XminCommitted == 0 {
			alive = false
		} else if t.Infomask()&XminCommitted == 0 && !tx.IsCurrent(xmin) {
			switch x.State(xmin) {
			case xact.InProgress:
				return RowInFlight, xmin, none, nil
			case xact.Aborted:
				alive = false
			}
		}
		if alive {
			mask := t.Infomask()
			if mask&XmaxInvalid != 0 || lockedOnly(mask) {
				return RowLive, 0, page.ItemPointer{Block: tid.Block, Offset: off}, nil
			}
			xmax := UpdateXid(x, t)
			if !tx.IsCurrent(xmax) {
				switch x.State(xmax) {
				case xact.InProgress:
					return RowInFlight, xmax, none, nil
				case xact.Aborted:
					return RowLive, 0, page.ItemPointer{Block: tid.Block, Offset: off}, nil
				}
			}
			// deleted (by us or a committed transaction): look further
		}
		if !t.IsHotUpdated() || t.Ctid().Block != tid.Block {
			return RowDead, 0, none, nil
		}
		off = t.Ctid().Offset
	}
	return RowDead, 0, none, nil
}
