// Package xact is transaction management: transaction ids, the commit log,
// the set of running transactions (PostgreSQL's ProcArray), MVCC snapshots,
// heavyweight locks with deadlock detection, and waiting for transactions.
//
// Ordering rules (why visibility checks are race-free):
//   - commit writes and flushes the commit WAL record, then sets the commit
//     log, and only then removes the transaction from the running set;
//   - so a reader that finds an xid not running always finds its final
//     status in the commit log, and an xid in a snapshot's running list is
//     treated as running even if it has committed since.
package xact

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/wal"
)

// Xact WAL record kinds (RmXact).
const (
	InfoCommit uint8 = 0x00
	InfoAbort  uint8 = 0x20
)

// Snapshot is an MVCC snapshot (SnapshotData for MVCC).
type Snapshot struct {
	Xmin XID   // every xid < Xmin is finished
	Xmax XID   // every xid >= Xmax is invisible (not yet started)
	Xip  []XID // running at snapshot time, sorted
	// Cid: the current command id; rows written by this transaction with
	// a cid >= Cid are not yet visible (they belong to the running command).
	Cid uint32
	// Own is the snapshot owner's transaction id (InvalidXid if none yet).
	Own XID
	// SubOverflowed: some backend had more subtransactions than a snapshot
	// lists (MaxCachedSubxids), so an xid missing from Xip may still be a
	// running subtransaction; subtrans maps it to its top level.
	SubOverflowed bool
	subtrans      *SubTrans
}

// XidInSnapshot reports whether xid counts as running for this snapshot.
func (s *Snapshot) XidInSnapshot(xid XID) bool {
	if Precedes(xid, s.Xmin) {
		return false
	}
	if FollowsOrEquals(xid, s.Xmax) {
		return true
	}
	if s.inXip(xid) {
		return true
	}
	if s.SubOverflowed && s.subtrans != nil {
		if top := s.subtrans.Topmost(xid); top != xid {
			return !Precedes(top, s.Xmin) && s.inXip(top)
		}
	}
	return false
}

func (s *Snapshot) inXip(xid XID) bool {
	// Xip is sorted in transaction-id order (all within 2^31 of Xmax).
	i := sort.Search(len(s.Xip), func(i int) bool { return FollowsOrEquals(s.Xip[i], xid) })
	return i < len(s.Xip) && s.Xip[i] == xid
}

// Proc is one backend's entry in the running set.
type Proc struct {
	ID  int
	xid atomic.Uint32
	// xmin is the oldest snapshot xmin this backend may still use, or 0.
	xmin atomic.Uint32
	// xminFloor, when not 0, is the xmin of an older snapshot the backend
	// keeps (an open cursor's): xmin never advances past it (xminfloor.go).
	xminFloor atomic.Uint32

	mgr *Manager

	// lock manager state, guarded by the lock manager's mutex
	held    map[LockTag]*heldLock
	waiting *lockWaiter
	// lockLog lists the locks taken inside subtransactions, in order, so
	// that rolling one back releases exactly its own (see lock.go).
	lockLog []lockLogEntry

	// Subtransactions (subxact.go): the open levels above the top one,
	// innermost last, and every live subxid in assignment order. Written
	// only by the owning backend under the manager's mutex.
	subs    []subXact
	subxids []XID

	// multi is the backend's multixact horizon (multixact.go).
	multi procMulti
	// yield: an autovacuum worker gives way to conflicting lock requests.
	yield procYield

	// pid and lxid name the backend in pg_locks (lockstatus.go).
	pid  atomic.Int32
	lxid atomic.Uint32
}

// Xid is the backend's current transaction id (InvalidXid if none).
func (p *Proc) Xid() XID { return p.xid.Load() }

// Manager owns transaction state for one data directory.
type Manager struct {
	wal  *wal.WAL
	clog *CLOG

	subtrans *SubTrans
	multi    *MultiXacts

	mu      sync.Mutex
	nextXid XID
	procs   map[int]*Proc
	running map[XID]*Proc
	nextID  int

	locks *lockManager

	callbacks  []Callbacks // callbacks.go
	onDeadlock func()      // lockstatus.go

	// commitMu keeps a checkpoint from choosing its redo point between a
	// commit record's insertion and the commit log update (PostgreSQL's
	// delayChkpt): commits hold it shared, the checkpoint exclusively.
	commitMu sync.RWMutex

	// asynchronous commits whose commit record may not be durable yet:
	// their hint bits must wait (PostgreSQL's clog group LSNs).
	asyncMu      sync.Mutex
	asyncCommits map[XID]wal.LSN
	asyncCount   atomic.Int64 // len(asyncCommits), read without the lock

	// wraparound limits (SetWrapLimit); 0 = not yet known
	oldestFrozen XID
	stopLimit    XID
	warnLimit    XID
}

// BlockCommits holds off commits in their critical section (checkpoint).
func (m *Manager) BlockCommits() { m.commitMu.Lock() }

// UnblockCommits lets commits go on.
func (m *Manager) UnblockCommits() { m.commitMu.Unlock() }

// Open opens the commit log in dir (the data directory's xact/ folder).
func Open(dir string, w *wal.WAL, nextXid XID) (*Manager, error) {
	c, err := openCLOG(dir)
	if err != nil {
		return nil, fmt.Errorf("open commit log: %w", err)
	}
	st, err := openSubTrans(filepath.Join(dir, "subtrans"))
	if err != nil {
		return nil, err
	}
	if nextXid < FirstNormalXid {
		nextXid = FirstNormalXid
	}
	m := &Manager{wal: w, clog: c, subtrans: st, nextXid: nextXid, procs: map[int]*Proc{}, running: map[XID]*Proc{}}
	m.locks = newLockManager(m)
	if m.multi, err = openMultiXacts(m, filepath.Join(dir, "multixact")); err != nil {
		return nil, err
	}
	return m, nil
}

// SetWAL attaches the WAL (after recovery opened it).
func (m *Manager) SetWAL(w *wal.WAL) { m.wal = w }

// CLOG is the commit log.
func (m *Manager) CLOG() *CLOG { return m.clog }

// NextXid is the next transaction id to be assigned.
func (m *Manager) NextXid() XID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nextXid
}

// AdvanceNextXid makes sure ids up to xid are never handed out again (redo).
func (m *Manager) AdvanceNextXid(xid XID) {
	m.mu.Lock()
	if FollowsOrEquals(xid, m.nextXid) {
		m.nextXid = Advance(xid)
	}
	m.mu.Unlock()
}

// NewProc registers a backend.
func (m *Manager) NewProc() *Proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	p := &Proc{ID: m.nextID, mgr: m, held: map[LockTag]*heldLock{}}
	m.procs[p.ID] = p
	return p
}

// ReleaseProc unregisters a backend (its transaction must be over),
// releasing its session locks.
func (m *Manager) ReleaseProc(p *Proc) {
	m.locks.releaseSession(p)
	m.mu.Lock()
	delete(m.procs, p.ID)
	m.mu.Unlock()
}

// AssignXid gives the backend's transaction an xid if it has none (at its
// first write), and each open subtransaction level one too (outermost
// first), taking each xid's own lock so others can wait for it to end. It
// returns the xid writes are stamped with: the innermost level's.
func (m *Manager) AssignXid(p *Proc) (XID, error) {
	if x := p.CurrentXid(); x != InvalidXid {
		return x, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.xid.Load() == InvalidXid {
		x, err := m.newXid()
		if err != nil {
			return InvalidXid, err
		}
		p.xid.Store(x)
		m.running[x] = p
		if p.xmin.Load() == 0 {
			p.xmin.Store(x)
		}
		m.grantXactLock(p, x, 1)
	}
	if err := m.assignSubxids(p); err != nil {
		return InvalidXid, err
	}
	return p.CurrentXid(), nil
}

// newXid hands out the next xid, unless wraparound protection refuses.
// m.mu is held.
func (m *Manager) newXid() (XID, error) {
	x := m.nextXid
	if m.stopLimit != 0 && FollowsOrEquals(x, m.stopLimit) {
		return InvalidXid, pgerr.Errorf(pgerr.ProgramLimitExceeded, "database is not accepting commands that assign new transaction IDs to avoid wraparound data loss in database \"postgres\"").
			WithHint("Execute a database-wide VACUUM in that database.")
	}
	m.nextXid = Advance(m.nextXid)
	return x, nil
}

// grantXactLock gives p the exclusive lock on its new xid x at nesting
// level. Nobody can wait on x before it is visible as running, so this
// grant never waits. m.mu is held.
func (m *Manager) grantXactLock(p *Proc, x XID, level int) {
	tag := XactLockTag(x)
	st := &lockState{holders: map[*Proc]*heldLock{}}
	m.locks.locks[tag] = st
	m.locks.grant(st, p, tag, ExclusiveLock, level)
}

// GetSnapshot takes an MVCC snapshot for p.
func (m *Manager) GetSnapshot(p *Proc) *Snapshot {
	m.mu.Lock()
	s := m.buildSnapshot(p)
	xmin := s.Xmin
	if f := p.xminFloor.Load(); f != 0 && Precedes(f, xmin) {
		xmin = f
	}
	if p.xmin.Load() == 0 || Follows(p.xmin.Load(), xmin) || p.xid.Load() == 0 {
		// Read committed refreshes its xmin with every snapshot.
		p.xmin.Store(xmin)
	}
	m.mu.Unlock()
	sortXids(s.Xip)
	return s
}

// buildSnapshot lists the running transactions other than p's own: each
// backend's top-level xid and its subxids, unless it has more than
// MaxCachedSubxids (then the snapshot is overflowed). m.mu is held.
func (m *Manager) buildSnapshot(p *Proc) *Snapshot {
	s := &Snapshot{Xmax: m.nextXid, Own: p.xid.Load()}
	xmin := s.Xmax
	for _, q := range m.procs {
		x := q.xid.Load()
		if x == InvalidXid {
			continue
		}
		// A parent's xid precedes its children's: the top is the oldest.
		if Precedes(x, xmin) {
			xmin = x
		}
		if q == p {
			continue // own xids: IsCurrentXid answers for them
		}
		s.Xip = append(s.Xip, x)
		if len(q.subxids) > MaxCachedSubxids {
			s.SubOverflowed = true
			s.subtrans = m.subtrans
			continue
		}
		s.Xip = append(s.Xip, q.subxids...)
	}
	s.Xmin = xmin
	return s
}

func sortXids(x []XID) {
	sort.Slice(x, func(i, j int) bool { return Precedes(x[i], x[j]) })
}

// ResetXmin clears the backend's snapshot horizon (no snapshot in use).
func (m *Manager) ResetXmin(p *Proc) {
	if p.xid.Load() == InvalidXid {
		p.xmin.Store(p.xminFloor.Load())
	}
}

// OldestXmin is the pruning horizon: no running or future snapshot can see
// a tuple deleted by a transaction that committed before it.
func (m *Manager) OldestXmin() XID {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.nextXid
	for _, p := range m.procs {
		if x := p.xid.Load(); x != 0 && Precedes(x, h) {
			h = x
		}
		if x := p.xmin.Load(); x != 0 && Precedes(x, h) {
			h = x
		}
	}
	return h
}

// IsRunning reports whether xid belongs to a running transaction.
func (m *Manager) IsRunning(xid XID) bool {
	m.mu.Lock()
	_, ok := m.running[xid]
	m.mu.Unlock()
	return ok
}

// State is a transaction's status as visibility checks need it: running,
// committed, or aborted (which includes transactions that were running
// when the server crashed).
func (m *Manager) State(xid XID) Status {
	switch xid {
	case BootstrapXid, FrozenXid:
		return Committed
	case InvalidXid:
		return Aborted
	}
	if m.IsRunning(xid) {
		return InProgress
	}
	s := m.clog.Get(xid)
	if s == InProgress {
		return Aborted // not running and never recorded: crashed
	}
	return s
}

// DidCommit is the commit-log answer alone (for a finished xid).
func (m *Manager) DidCommit(xid XID) bool { return m.State(xid) == Committed }

// CommitOptions carries what a commit record must also say.
type CommitOptions struct {
	// DropRels are relation files to remove once the commit is durable.
	DropRels []uint32
	// Sync: wait for the commit record to be durable (synchronous_commit).
	Sync bool
	// BeforeUnlock runs once the transaction counts as committed but
	// before its locks are released: a session that waited for a lock
	// must find caches of what the transaction changed already flushed
	// (PostgreSQL sends invalidations before releasing locks).
	BeforeUnlock func()
}

// Commit ends p's transaction as committed. With no xid there is nothing
// to record. It returns the commit record's end LSN.
func (m *Manager) Commit(u *stats.Usage, p *Proc, opt CommitOptions) (wal.LSN, error) {
	xid := p.xid.Load()
	defer m.afterCommit(p, xid)
	var end wal.LSN
	if xid != InvalidXid {
		m.commitMu.RLock()
		defer m.commitMu.RUnlock()
		subxids := p.liveSubxids()
		rec := wal.NewRecord(wal.RmXact, InfoCommit, xid)
		rec.SetMain(encodeXactMain(opt.DropRels, subxids))
		var err error
		end, err = m.wal.Insert(nil, rec)
		if err != nil {
			m.finish(p, Aborted)
			return 0, err
		}
		if !opt.Sync {
			m.asyncMu.Lock()
			if m.asyncCommits == nil {
				m.asyncCommits = map[XID]wal.LSN{}
			}
			m.asyncCommits[xid] = end
			for _, x := range subxids {
				m.asyncCommits[x] = end
			}
			m.asyncCount.Store(int64(len(m.asyncCommits)))
			m.asyncMu.Unlock()
		}
		if opt.Sync {
			if err := m.wal.Flush(end); err != nil {
				// The commit may or may not be durable; the server must
				// stop (PostgreSQL PANICs). Report it.
				m.finish(p, Aborted)
				return 0, fmt.Errorf("could not flush commit record: %w", err)
			}
		}
	}
	m.finishThen(p, Committed, opt.BeforeUnlock)
	return end, nil
}

// Abort ends p's transaction as aborted.
func (m *Manager) Abort(p *Proc) {
	m.runCallbacks(p, func(c Callbacks) func(*Proc) { return c.BeforeAbort })
	xid := p.xid.Load()
	if xid != InvalidXid {
		rec := wal.NewRecord(wal.RmXact, InfoAbort, xid)
		rec.SetMain(encodeXactMain(nil, p.liveSubxids()))
		_, _ = m.wal.Insert(nil, rec) // an abort record is advisory
	}
	m.finish(p, Aborted)
}

func (m *Manager) finish(p *Proc, s Status) { m.finishThen(p, s, nil) }

// finishThen is finish that runs beforeUnlock (if not nil) between the
// end of the transaction and the release of its locks.
func (m *Manager) finishThen(p *Proc, s Status, beforeUnlock func()) {
	xid := p.xid.Load()
	if xid != InvalidXid {
		// Subxids first: a reader that finds the top committed must not
		// find a child still unrecorded (both are running until the
		// running set drops them below, so snapshots never see the gap).
		for _, x := range p.subxids {
			m.clog.Set(x, s)
		}
		m.clog.Set(xid, s)
	}
	m.mu.Lock()
	if xid != InvalidXid {
		delete(m.running, xid)
	}
	for _, x := range p.subxids {
		delete(m.running, x)
	}
	p.subs, p.subxids = nil, nil
	p.xid.Store(InvalidXid)
	p.xmin.Store(0)
	p.multi.oldest.Store(0)
	p.lxid.Add(1)
	m.mu.Unlock()
	if beforeUnlock != nil {
		beforeUnlock()
	}
	// Waiters wake only after the xid is no longer running, so they see
	// its final status.
	m.locks.releaseAll(p)
}

// encodeXactMain is a commit or abort record's main data: the relation
// files to drop, then the subtransaction ids that share the record's fate.
// Records written before subtransactions existed end after the relations.
func encodeXactMain(rels []uint32, subxids []XID) []byte {
	b := encodeRels(rels)
	if len(subxids) == 0 {
		return b
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(subxids)))
	for _, x := range subxids {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// DecodeSubxids reads the subtransaction ids of a commit or abort record.
func DecodeSubxids(b []byte) []XID {
	if len(b) < 4 {
		return nil
	}
	nrels := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	if len(b) < 4*nrels+4 {
		return nil
	}
	b = b[4*nrels:]
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	var out []XID
	for i := 0; i < n && len(b) >= 4; i++ {
		out = append(out, binary.LittleEndian.Uint32(b))
		b = b[4:]
	}
	return out
}

func encodeRels(rels []uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(rels)))
	for _, r := range rels {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return b
}

// DecodeRels reads the relation list of a commit record.
func DecodeRels(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	var out []uint32
	for i := 0; i < n && len(b) >= 4; i++ {
		out = append(out, binary.LittleEndian.Uint32(b))
		b = b[4:]
	}
	return out
}

// RedoXact replays a commit or abort record into the commit log.
func (m *Manager) RedoXact(d *wal.Decoded) {
	st := Committed
	if d.Info == InfoAbort {
		st = Aborted
	} else if d.Info != InfoCommit {
		return
	}
	last := d.Xid
	for _, x := range DecodeSubxids(d.Main) {
		m.clog.Set(x, st)
		if Follows(x, last) {
			last = x
		}
	}
	m.clog.Set(d.Xid, st)
	m.AdvanceNextXid(last)
}

// HintSafe reports whether a "committed" hint bit for xid may be written:
// not while its commit was asynchronous and its commit record is not yet
// durable, or a crash could leave a page claiming a lost commit.
func (m *Manager) HintSafe(xid XID) bool {
	if m.asyncCount.Load() == 0 {
		return true
	}
	m.asyncMu.Lock()
	defer m.asyncMu.Unlock()
	if len(m.asyncCommits) == 0 {
		return true
	}
	lsn, ok := m.asyncCommits[xid]
	if !ok {
		return true
	}
	if m.wal.FlushedLSN() < lsn {
		return false
	}
	delete(m.asyncCommits, xid)
	m.asyncCount.Store(int64(len(m.asyncCommits)))
	return true
}

// ForgetFlushedAsync drops asynchronous commits whose records are durable
// (the WAL writer calls it after each flush).
func (m *Manager) ForgetFlushedAsync() {
	m.asyncMu.Lock()
	defer m.asyncMu.Unlock()
	if len(m.asyncCommits) == 0 {
		return
	}
	flushed := m.wal.FlushedLSN()
	for x, lsn := range m.asyncCommits {
		if lsn <= flushed {
			delete(m.asyncCommits, x)
		}
	}
	m.asyncCount.Store(int64(len(m.asyncCommits)))
}
