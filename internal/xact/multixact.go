package xact

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

// MultiXacts is PostgreSQL's multixact store (multixact.c): when several
// transactions lock one row version, or one locks it while another updates
// it, the version's xmax holds a MultiXactId naming the list of (xid,
// status) members instead of one xid. A multixact is immutable once
// created; adding a locker creates a new one with the surviving members
// and the newcomer (Expand).
//
// Storage: per multixact an offset into the members space and a member
// count (8 bytes), per member its xid and status (5 bytes), in chunks of
// 2^16 entries kept in memory and written by Flush at checkpoints as files
// offsets/NNNN and members/NNNN (as the commit log). Every creation is
// WAL-logged (RmMultiXact CREATE_ID) before any heap record can name it,
// and redo rebuilds what the last checkpoint had not flushed; the next id
// and offset are in checkpoint records and the control file. Ids wrap
// modulo 2^32 like xids (0 is invalid); creation is refused past a stop
// limit derived from the oldest relminmxid, and chunks wholly older than
// the oldest multixact still needed are removed (Truncate).
type MultiXacts struct {
	m   *Manager
	dir string

	mu         sync.Mutex
	next       MultiXactID
	nextOffset uint32
	oldest     MultiXactID // the oldest id still stored
	offsets    map[uint32][]byte
	members    map[uint32][]byte
	dirtyOff   map[uint32]bool
	dirtyMem   map[uint32]bool

	// wraparound limits (SetLimit); 0 = not yet known
	stopLimit MultiXactID
	wrapLimit MultiXactID
}

// MultiXactID names a multixact.
type MultiXactID = uint32

// InvalidMulti is no multixact; ids start at FirstMulti.
const (
	InvalidMulti MultiXactID = 0
	FirstMulti   MultiXactID = 1
)

// MultiStatus is what a member does to the row (MultiXactStatus, with
// PostgreSQL's values): four lock strengths, then two kinds of update.
type MultiStatus uint8

const (
	MultiForKeyShare MultiStatus = iota
	MultiForShare
	MultiForNoKeyUpdate
	MultiForUpdate
	MultiNoKeyUpdate // an UPDATE that changes no key column
	MultiUpdate      // an UPDATE of a key column, or a DELETE
)

var multiStatusNames = [...]string{"keysh", "sh", "fornokeyupd", "forupd", "nokeyupd", "upd"}

func (s MultiStatus) String() string {
	if int(s) < len(multiStatusNames) {
		return multiStatusNames[s]
	}
	return fmt.Sprintf("status%d", s)
}

// IsUpdate reports an updating (not only locking) member.
func (s MultiStatus) IsUpdate() bool { return s > MultiForUpdate }

// LockMode is the heavyweight lock mode whose conflicts are the status's
// (MultiXactStatusLock): row-lock conflicts are decided with the table-lock
// conflict matrix, as PostgreSQL does.
func (s MultiStatus) LockMode() LockMode {
	switch s {
	case MultiForKeyShare:
		return AccessShareLock
	case MultiForShare:
		return RowShareLock
	case MultiForNoKeyUpdate, MultiNoKeyUpdate:
		return ExclusiveLock
	default:
		return AccessExclusiveLock
	}
}

// MultiMember is one member of a multixact.
type MultiMember struct {
	Xid    XID
	Status MultiStatus
}

// MultiPrecedes compares multixact ids modulo 2^32.
func MultiPrecedes(a, b MultiXactID) bool { return int32(a-b) < 0 }

// MultiPrecedesOrEquals is a <= b modulo 2^32.
func MultiPrecedesOrEquals(a, b MultiXactID) bool { return int32(a-b) <= 0 }

func nextMulti(x MultiXactID) MultiXactID {
	x++
	if x < FirstMulti {
		x = FirstMulti
	}
	return x
}

// Chunk geometry: 2^16 multixacts (8 bytes each) per offsets chunk, 2^16
// members (5 bytes each) per members chunk.
const (
	multisPerChunk  = 1 << 16
	offsetEntrySize = 8
	memberEntrySize = 5
)

// Multixact WAL record kinds (RmMultiXact), PostgreSQL's values.
const InfoMultiCreate uint8 = 0x20

func openMultiXacts(m *Manager, dir string) (*MultiXacts, error) {
	mx := &MultiXacts{m: m, dir: dir, next: FirstMulti, oldest: FirstMulti,
		offsets: map[uint32][]byte{}, members: map[uint32][]byte{}, dirtyOff: map[uint32]bool{}, dirtyMem: map[uint32]bool{}}
	for _, sub := range []struct {
		name string
		into map[uint32][]byte
		size int
	}{{"offsets", mx.offsets, multisPerChunk * offsetEntrySize}, {"members", mx.members, multisPerChunk * memberEntrySize}} {
		d := filepath.Join(dir, sub.name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create multixact directory: %w", err)
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			var n uint32
			if _, err := fmt.Sscanf(e.Name(), "%04X", &n); err != nil || len(e.Name()) != 4 {
				continue
			}
			b, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				return nil, err
			}
			if len(b) != sub.size {
				return nil, fmt.Errorf("multixact %s file %q has wrong size %d", sub.name, e.Name(), len(b))
			}
			sub.into[n] = b
		}
	}
	return mx, nil
}

// SetNext restores the counters from the control file (start-up).
func (mx *MultiXacts) SetNext(next MultiXactID, nextOffset uint32, oldest MultiXactID) {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if next == InvalidMulti {
		next = FirstMulti
	}
	if oldest == InvalidMulti {
		oldest = FirstMulti
	}
	mx.next, mx.nextOffset, mx.oldest = next, nextOffset, oldest
}

// AdvanceNext makes sure ids before next and offsets before nextOffset
// are never handed out again (redo of a checkpoint record).
func (mx *MultiXacts) AdvanceNext(next MultiXactID, nextOffset uint32) {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if next != InvalidMulti && MultiPrecedes(mx.next, next) {
		mx.next = next
	}
	if int32(nextOffset-mx.nextOffset) > 0 {
		mx.nextOffset = nextOffset
	}
}

// Next is the next multixact id to be assigned and the next member offset.
func (mx *MultiXacts) Next() (MultiXactID, uint32) {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	return mx.next, mx.nextOffset
}

// Oldest is the oldest multixact id still stored.
func (mx *MultiXacts) Oldest() MultiXactID {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	return mx.oldest
}

// Create records a new multixact with the given members and returns its
// id (MultiXactIdCreateFromMembers). The creation is WAL-logged before the
// id is returned, so any heap record naming it follows it in the WAL.
func (mx *MultiXacts) Create(members []MultiMember) (MultiXactID, error) {
	if len(members) == 0 {
		return InvalidMulti, fmt.Errorf("multixact: no members")
	}
	mx.mu.Lock()
	defer mx.mu.Unlock()
	id := mx.next
	if mx.stopLimit != 0 && !MultiPrecedes(id, mx.stopLimit) {
		return InvalidMulti, pgerr.Errorf(pgerr.ProgramLimitExceeded, "database is not accepting commands that generate new MultiXactIds to avoid wraparound data loss in database \"postgres\"").
			WithHint("Execute a database-wide VACUUM in that database.\nYou might also need to commit or roll back old prepared transactions, or drop stale replication slots.")
	}
	if err := mx.checkMemberSpace(len(members)); err != nil {
		return InvalidMulti, err
	}
	off := mx.nextOffset
	// Memory first, then the record: a checkpoint that fixes its redo
	// point after the record must find the entry in what it flushes.
	mx.store(id, off, members)
	mx.next = nextMulti(id)
	mx.nextOffset = off + uint32(len(members))
	if w := mx.m.wal; w != nil {
		rec := wal.NewRecord(wal.RmMultiXact, InfoMultiCreate, InvalidXid)
		rec.SetMain(encodeMultiCreate(id, off, members))
		if _, err := w.Insert(nil, rec); err != nil {
			return InvalidMulti, err
		}
	}
	return id, nil
}

// checkMemberSpace refuses a creation that would wrap the members space
// onto members still stored (PostgreSQL's "members" limit). mx.mu is held.
func (mx *MultiXacts) checkMemberSpace(n int) error {
	oldestOff, ok := mx.offsetOf(mx.oldest)
	if !ok || mx.oldest == mx.next {
		return nil
	}
	used := uint64(mx.nextOffset - oldestOff)
	const margin = multisPerChunk
	if left := uint64(1<<32) - margin - used; uint64(n) > left {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "multixact \"members\" limit exceeded").
			WithDetail("This command would create a multixact with %d members, but the remaining space is only enough for %d members.", n, left).
			WithHint("Execute a database-wide VACUUM in database \"postgres\" with reduced vacuum_multixact_freeze_min_age and vacuum_multixact_freeze_table_age settings.")
	}
	return nil
}

// store writes a multixact's entry and members. mx.mu is held.
func (mx *MultiXacts) store(id MultiXactID, off uint32, members []MultiMember) {
	ch, i := id/multisPerChunk, int(id%multisPerChunk)*offsetEntrySize
	b := mx.offsets[ch]
	if b == nil {
		b = make([]byte, multisPerChunk*offsetEntrySize)
		mx.offsets[ch] = b
	}
	binary.LittleEndian.PutUint32(b[i:], off)
	binary.LittleEndian.PutUint32(b[i+4:], uint32(len(members)))
	mx.dirtyOff[ch] = true
	for k, mem := range members {
		o := off + uint32(k)
		mch, j := o/multisPerChunk, int(o%multisPerChunk)*memberEntrySize
		mb := mx.members[mch]
		if mb == nil {
			mb = make([]byte, multisPerChunk*memberEntrySize)
			mx.members[mch] = mb
		}
		binary.LittleEndian.PutUint32(mb[j:], mem.Xid)
		mb[j+4] = byte(mem.Status)
		mx.dirtyMem[mch] = true
	}
}

// offsetOf is a stored multixact's first member offset. mx.mu is held.
func (mx *MultiXacts) offsetOf(id MultiXactID) (uint32, bool) {
	b := mx.offsets[id/multisPerChunk]
	if b == nil {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[int(id%multisPerChunk)*offsetEntrySize:]), true
}

// Members returns a multixact's members (GetMultiXactIdMembers). A
// multixact older than the oldest stored one has none any more (all its
// members ended long ago); one not yet created is an error.
func (mx *MultiXacts) Members(id MultiXactID) ([]MultiMember, error) {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if id == InvalidMulti || MultiPrecedes(id, mx.oldest) {
		return nil, nil
	}
	if !MultiPrecedes(id, mx.next) {
		return nil, pgerr.Errorf(pgerr.InternalError, "MultiXactId %d has not been created yet -- apparent wraparound", id)
	}
	b := mx.offsets[id/multisPerChunk]
	if b == nil {
		return nil, nil
	}
	i := int(id%multisPerChunk) * offsetEntrySize
	off := binary.LittleEndian.Uint32(b[i:])
	n := binary.LittleEndian.Uint32(b[i+4:])
	out := make([]MultiMember, 0, n)
	for k := uint32(0); k < n; k++ {
		o := off + k
		mb := mx.members[o/multisPerChunk]
		if mb == nil {
			continue
		}
		j := int(o%multisPerChunk) * memberEntrySize
		out = append(out, MultiMember{Xid: binary.LittleEndian.Uint32(mb[j:]), Status: MultiStatus(mb[j+4])})
	}
	return out, nil
}

func encodeMultiCreate(id MultiXactID, off uint32, members []MultiMember) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint32(b, off)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(members)))
	for _, m := range members {
		b = binary.LittleEndian.AppendUint32(b, m.Xid)
		b = binary.LittleEndian.AppendUint32(b, uint32(m.Status))
	}
	return b
}

// DecodeMultiCreate reads a CREATE_ID record's main data.
func DecodeMultiCreate(b []byte) (MultiXactID, uint32, []MultiMember, error) {
	if len(b) < 12 {
		return 0, 0, nil, fmt.Errorf("multixact create record too short (%d bytes)", len(b))
	}
	id, off, n := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])
	b = b[12:]
	if uint64(len(b)) < 8*uint64(n) {
		return 0, 0, nil, fmt.Errorf("multixact create record of %d members has %d bytes", n, len(b))
	}
	members := make([]MultiMember, n)
	for i := range members {
		members[i] = MultiMember{Xid: binary.LittleEndian.Uint32(b), Status: MultiStatus(binary.LittleEndian.Uint32(b[4:]))}
		b = b[8:]
	}
	return id, off, members, nil
}

// Redo replays a CREATE_ID record: the multixact's entry and members, and
// the counters past it (and the next xid past its members).
func (mx *MultiXacts) Redo(d *wal.Decoded) error {
	if d.Info != InfoMultiCreate {
		return nil
	}
	id, off, members, err := DecodeMultiCreate(d.Main)
	if err != nil {
		return err
	}
	mx.mu.Lock()
	mx.store(id, off, members)
	if !MultiPrecedes(id, mx.next) {
		mx.next = nextMulti(id)
	}
	if end := off + uint32(len(members)); int32(end-mx.nextOffset) > 0 {
		mx.nextOffset = end
	}
	mx.mu.Unlock()
	for _, m := range members {
		mx.m.AdvanceNextXid(m.Xid)
	}
	return nil
}

// Flush writes changed chunks durably (at a checkpoint).
func (mx *MultiXacts) Flush() error {
	type job struct {
		path string
		b    []byte
	}
	var jobs []job
	mx.mu.Lock()
	for n := range mx.dirtyOff {
		jobs = append(jobs, job{filepath.Join(mx.dir, "offsets", fmt.Sprintf("%04X", n)), append([]byte(nil), mx.offsets[n]...)})
	}
	for n := range mx.dirtyMem {
		jobs = append(jobs, job{filepath.Join(mx.dir, "members", fmt.Sprintf("%04X", n)), append([]byte(nil), mx.members[n]...)})
	}
	mx.dirtyOff, mx.dirtyMem = map[uint32]bool{}, map[uint32]bool{}
	mx.mu.Unlock()
	for _, j := range jobs {
		if j.b == nil {
			continue // truncated meanwhile
		}
		tmp := j.path + ".tmp"
		if err := writeFileSync(tmp, j.b); err != nil {
			return fmt.Errorf("write multixact file: %w", err)
		}
		if err := os.Rename(tmp, j.path); err != nil {
			return err
		}
	}
	if len(jobs) > 0 {
		for _, sub := range []string{"offsets", "members"} {
			if d, err := os.Open(filepath.Join(mx.dir, sub)); err == nil {
				d.Sync()
				d.Close()
			}
		}
	}
	return nil
}

// Truncate forgets every multixact older than cutoff (none of which any
// tuple can still name: cutoff is at most the oldest relminmxid), removing
// the chunk files that hold only such multixacts and their members
// (TruncateMultiXact). It is not WAL-logged: redo may rebuild a removed
// chunk, which the next truncation removes again.
func (mx *MultiXacts) Truncate(cutoff MultiXactID) error {
	mx.mu.Lock()
	if cutoff == InvalidMulti || !MultiPrecedes(mx.oldest, cutoff) || MultiPrecedes(mx.next, cutoff) {
		mx.mu.Unlock()
		return nil
	}
	cutOff, ok := mx.offsetOf(cutoff)
	if cutoff == mx.next || !ok {
		cutOff = mx.nextOffset
	}
	var files []string
	// A chunk stays while it holds part of the live window [cutoff, next]
	// (of ids, or of member offsets); everything outside is dead.
	for n := range mx.offsets {
		if !chunkMeets(n, cutoff, mx.next) {
			delete(mx.offsets, n)
			delete(mx.dirtyOff, n)
			files = append(files, filepath.Join(mx.dir, "offsets", fmt.Sprintf("%04X", n)))
		}
	}
	for n := range mx.members {
		if !chunkMeets(n, cutOff, mx.nextOffset) {
			delete(mx.members, n)
			delete(mx.dirtyMem, n)
			files = append(files, filepath.Join(mx.dir, "members", fmt.Sprintf("%04X", n)))
		}
	}
	mx.oldest = cutoff
	mx.mu.Unlock()
	for _, f := range files {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("truncate multixacts: %w", err)
		}
	}
	return nil
}

// chunkMeets reports whether chunk n's entries meet the circular window
// [lo, hi] of a 2^32 space.
func chunkMeets(n uint32, lo, hi uint32) bool {
	first := n * multisPerChunk
	last := first + multisPerChunk - 1
	in := func(x uint32) bool { return x-lo <= hi-lo }
	return in(first) || in(last) || (lo-first <= last-first)
}

// Wraparound limits, as PostgreSQL's SetMultiXactIdLimit: new multixacts
// are refused 3,000,000 before the oldest relminmxid would wrap.
const multiStopDistance = 3_000_000

// SetLimit records the oldest relminmxid of any table (after VACUUM or at
// start-up); the stop limit follows from it.
func (mx *MultiXacts) SetLimit(oldestMin MultiXactID) {
	if oldestMin == InvalidMulti {
		oldestMin = FirstMulti
	}
	wrap := oldestMin + (1<<32-1)>>1
	if wrap < FirstMulti {
		wrap += FirstMulti
	}
	stop := wrap - multiStopDistance
	if stop < FirstMulti {
		stop -= FirstMulti
	}
	mx.mu.Lock()
	mx.wrapLimit, mx.stopLimit = wrap, stop
	mx.mu.Unlock()
}

// MultisLeft is how many multixact ids can still be created before the
// stop limit.
func (mx *MultiXacts) MultisLeft() int64 {
	mx.mu.Lock()
	defer mx.mu.Unlock()
	if mx.stopLimit == 0 {
		return 1 << 31
	}
	return int64(int32(mx.stopLimit - mx.next))
}

// SetNextForTest moves the counters (wraparound tests).
func (mx *MultiXacts) SetNextForTest(next MultiXactID, nextOffset uint32) {
	mx.mu.Lock()
	mx.next, mx.nextOffset, mx.oldest = next, nextOffset, next
	mx.mu.Unlock()
}

// Multi is the manager's multixact store.
func (m *Manager) Multi() *MultiXacts { return m.multi }

// procMulti is a backend's multixact horizon: the next multixact id when
// its transaction first locked or updated a row, or looked at a
// multixact, 0 if it has not (PostgreSQL's OldestMemberMXactId and
// OldestVisibleMXactId in one). No multixact older than every backend's
// horizon has a running member or a reader that may still need it.
type procMulti struct{ oldest atomic.Uint32 }

// SetOldestMulti notes that p's transaction may become a multixact member
// or read one (MultiXactIdSetOldestMember / SetOldestVisible).
func (m *Manager) SetOldestMulti(p *Proc) {
	if p == nil || p.multi.oldest.Load() != 0 {
		return
	}
	next, _ := m.multi.Next()
	p.multi.oldest.CompareAndSwap(0, next)
}

// OldestMulti is the multixact horizon: the oldest multixact that a
// running transaction may be a member of or may read, else the next id
// (GetOldestMultiXactId).
func (m *Manager) OldestMulti() MultiXactID {
	h, _ := m.multi.Next()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.procs {
		if x := p.multi.oldest.Load(); x != 0 && MultiPrecedes(x, h) {
			h = x
		}
	}
	return h
}

// isCurrentOf reports whether xid is one of p's own transaction's.
func isCurrentOf(p *Proc, xid XID) bool { return p != nil && p.IsCurrentXid(xid) }

// MultiIsRunning reports whether any member of the multixact is running,
// the caller's own transaction included (MultiXactIdIsRunning).
func (m *Manager) MultiIsRunning(p *Proc, id MultiXactID) (bool, error) {
	members, err := m.multi.Members(id)
	if err != nil {
		return false, err
	}
	for _, mem := range members {
		if isCurrentOf(p, mem.Xid) || m.IsRunning(mem.Xid) {
			return true, nil
		}
	}
	return false, nil
}

// MultiUpdateXid is the xid of the multixact's updating member, if it has
// one (MultiXactIdGetUpdateXid); there is at most one.
func (m *Manager) MultiUpdateXid(id MultiXactID) (XID, error) {
	members, err := m.multi.Members(id)
	if err != nil {
		return InvalidXid, err
	}
	for _, mem := range members {
		if mem.Status.IsUpdate() {
			return mem.Xid, nil
		}
	}
	return InvalidXid, nil
}

// MultiCreate2 makes a multixact of two members (MultiXactIdCreate).
func (m *Manager) MultiCreate2(x1 XID, s1 MultiStatus, x2 XID, s2 MultiStatus) (MultiXactID, error) {
	return m.multi.Create([]MultiMember{{x1, s1}, {x2, s2}})
}

// MultiExpand returns a multixact with the members of id that still
// matter — running ones, and a committed updater — plus (xid, status)
// (MultiXactIdExpand). When xid is already a member with that status, id
// itself is returned.
func (m *Manager) MultiExpand(p *Proc, id MultiXactID, xid XID, status MultiStatus) (MultiXactID, error) {
	members, err := m.multi.Members(id)
	if err != nil {
		return InvalidMulti, err
	}
	for _, mem := range members {
		if mem.Xid == xid && mem.Status == status {
			return id, nil
		}
	}
	keep := make([]MultiMember, 0, len(members)+1)
	for _, mem := range members {
		if isCurrentOf(p, mem.Xid) || m.IsRunning(mem.Xid) || (mem.Status.IsUpdate() && m.State(mem.Xid) == Committed) {
			keep = append(keep, mem)
		}
	}
	keep = append(keep, MultiMember{xid, status})
	return m.multi.Create(keep)
}

// MultiConflicts reports whether a member of the multixact other than the
// caller's own transaction holds a lock or update conflicting with want
// — a running locker, or an updater that did not abort — and whether the
// caller's transaction is itself a member (DoesMultiXactIdConflict).
func (m *Manager) MultiConflicts(p *Proc, id MultiXactID, want MultiStatus) (conflict, currentIsMember bool, err error) {
	members, err := m.multi.Members(id)
	if err != nil {
		return false, false, err
	}
	for _, mem := range members {
		if isCurrentOf(p, mem.Xid) {
			currentIsMember = true
			continue
		}
		if conflict || !Conflicts(mem.Status.LockMode(), want.LockMode()) {
			continue
		}
		if mem.Status.IsUpdate() {
			if m.State(mem.Xid) == Aborted {
				continue
			}
		} else if !m.IsRunning(mem.Xid) {
			continue
		}
		conflict = true
	}
	return conflict, currentIsMember, nil
}

// MultiWait sleeps until every member of the multixact whose lock conflicts
// with status has ended (MultiXactIdWait), one xid wait after another, so
// the waits take part in deadlock detection. With nowait it does not
// sleep: ok=false says some conflicting member is still running. remain
// counts the members that may still be running afterwards (the caller's
// own, and non-conflicting running ones).
func (m *Manager) MultiWait(ctx context.Context, p *Proc, id MultiXactID, status MultiStatus, nowait bool) (ok bool, remain int, err error) {
	members, err := m.multi.Members(id)
	if err != nil {
		return false, 0, err
	}
	for _, mem := range members {
		if isCurrentOf(p, mem.Xid) {
			remain++
			continue
		}
		if !Conflicts(mem.Status.LockMode(), status.LockMode()) {
			if m.IsRunning(mem.Xid) {
				remain++
			}
			continue
		}
		if nowait {
			if !m.ConditionalWaitForXid(p, mem.Xid) {
				return false, remain, nil
			}
			continue
		}
		if err := m.WaitForXid(ctx, p, mem.Xid); err != nil {
			return false, remain, err
		}
	}
	return true, remain, nil
}
