// Package undo is the undo-log table access method: rows are updated in
// place, older versions are rebuilt from an undo log, and rollback and
// crash recovery apply it. See README.md for the formats and invariants.
package undo

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// WAL record kinds (RmUndo info values).
const (
	InfoInsert  uint8 = 0x00
	InfoDelete  uint8 = 0x10
	InfoInplace uint8 = 0x20
	InfoMove    uint8 = 0x30
	InfoLock    uint8 = 0x40
	InfoApply   uint8 = 0x50 // rollback applied one undo record
)

// RecordName names an RmUndo record kind, as pg_waldump would.
func RecordName(info uint8) string {
	switch info & 0xF0 {
	case InfoInsert:
		return "INSERT"
	case InfoDelete:
		return "DELETE"
	case InfoInplace:
		return "INPLACE_UPDATE"
	case InfoMove:
		return "MOVE_UPDATE"
	case InfoLock:
		return "LOCK"
	case InfoApply:
		return "UNDO_APPLY"
	}
	return fmt.Sprintf("UNKNOWN(%#x)", info)
}

// RegisterRmgr installs the resource manager. Every page change is redone
// generically from its delta or image, so there is no Redo callback.
func RegisterRmgr() { wal.Register(wal.RmUndo, wal.Rmgr{Name: "Undo", Desc: RecordName}) }

// The log is cut into chunks of ChunkBlocks pages (64 MiB; Log.chunk, which
// tests make smaller), each the
// UndoFork of its own pseudo-relation, chunk c being number c+1: files
// undo/1, undo/2, …. A chunk wholly before the discard point is removed.
const ChunkBlocks = 8192

// chunkOf maps a block of the log to its chunk's file and block there.
func (l *Log) chunkOf(blk page.BlockNumber) (smgr.RelFileNumber, page.BlockNumber) {
	return smgr.RelFileNumber(blk/l.chunk + 1), blk % l.chunk
}

// chunkBlocks is the number of pages chunk file rel holds (0: none).
func (l *Log) chunkBlocks(rel smgr.RelFileNumber) (page.BlockNumber, error) {
	sm := l.pool.Smgr()
	if !sm.Exists(rel, smgr.UndoFork) {
		return 0, nil
	}
	n, err := sm.NBlocks(rel, smgr.UndoFork)
	if err != nil {
		return 0, fmt.Errorf("undo log: %w", err)
	}
	return n, nil
}

// blockExists reports whether log block blk is on disk (or in the pool).
func (l *Log) blockExists(blk page.BlockNumber) (bool, error) {
	rel, b := l.chunkOf(blk)
	n, err := l.chunkBlocks(rel)
	return b < n, err
}

// firstURP is where the log begins: block 0, just after its page header.
const firstURP URP = page.HeaderSize

// Log is a data directory's undo log and the per-transaction state of the
// transactions writing to it. One per engine.
type Log struct {
	pool *buffer.Pool
	wal  *wal.WAL
	xm   *xact.Manager

	// mu serialises insertion: the next position, the undo page being
	// filled, and the WAL record that carries it (README "WAL").
	mu     sync.Mutex
	insert URP

	// discard: every record before it is never read again (README
	// "Discard"). Read without a lock.
	discard atomic.Uint64
	// chunkMu: readers of records hold it shared, removal of discarded
	// chunks exclusively; removed counts the chunks removed from the
	// start (chunk files 1…removed are gone).
	chunkMu sync.RWMutex
	removed smgr.RelFileNumber
	chunk   page.BlockNumber // pages per chunk
	// shared row locks by row, and the rows each backend holds them on
	// (rowlock.go)
	lmu    sync.Mutex
	shared map[rowKey][]sharedLock
	heldBy map[*xact.Proc][]rowKey
	// Discarded counts the bytes of undo removed (statistics).
	Discarded atomic.Int64
	counters  logCounters // stats.go

	smu     sync.Mutex
	xacts   map[*xact.Proc]*xactUndo
	pending []committed // committed, maybe not yet visible to everyone

	// failed is set when a rollback could not apply its undo: the
	// transaction is aborted anyway (readers still rebuild the right
	// versions), but no more changes are accepted until a restart's
	// recovery has applied it.
	failed atomic.Pointer[error]
}

// xactUndo is one transaction's undo: its first and latest record, and per
// open savepoint the latest record when it began.
type xactUndo struct {
	first, last URP
	marks       []URP
	// epq is the committed change the transaction was last told it does
	// not see (Updated); see epqSeen.
	epq epqMark
}

type epqMark struct {
	rel smgr.RelFileNumber
	tid page.ItemPointer
	urp URP
}

type committed struct {
	xid   xact.XID
	first URP
}

// New returns the undo log of an engine; it does no I/O. The AM can be
// registered (and its resource manager used by WAL replay) before Start.
func New(pool *buffer.Pool, xm *xact.Manager) *Log {
	l := &Log{pool: pool, xm: xm, xacts: map[*xact.Proc]*xactUndo{}, chunk: ChunkBlocks}
	var notStarted error = pgerr.Errorf(pgerr.InternalError, "the undo log is not started")
	l.failed.Store(&notStarted)
	xm.AddCallbacks(l.callbacks())
	return l
}

// Start opens the log after WAL replay, with w the WAL new records go to:
// the insert position is found from the log's last page, then Recover
// undoes what crashed transactions left. It returns how many records it
// undid. Call it before transactions start.
func (l *Log) Start(u *stats.Usage, w *wal.WAL) (int, error) {
	l.wal = w
	if err := l.findEnd(); err != nil {
		return 0, err
	}
	l.failed.Store(nil)
	n, err := l.Recover(u)
	if err != nil {
		var e error = err
		l.failed.Store(&e)
		return 0, err
	}
	return n, nil
}

// Open is New and Start, for tests and tools.
func Open(pool *buffer.Pool, w *wal.WAL, xm *xact.Manager) (*Log, error) {
	l := New(pool, xm)
	if _, err := l.Start(nil, w); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) findEnd() error {
	pool := l.pool
	last, err := l.lastChunk()
	if err != nil {
		return err
	}
	l.insert = firstURP
	if last == 0 {
		l.discard.Store(uint64(l.insert))
		return nil
	}
	cn, err := l.chunkBlocks(last)
	if err != nil {
		return err
	}
	n := page.BlockNumber(last-1)*l.chunk + cn
	l.insert = URP(page.BlockNumber(last-1)*l.chunk) * page.Size
	if l.insert == 0 {
		l.insert = firstURP
	}
	for blk := n; blk > page.BlockNumber(last-1)*l.chunk; blk-- {
		b, err := pool.Read(nil, l.tag(blk-1), nil)
		if err != nil {
			return fmt.Errorf("undo log: %w", err)
		}
		pool.Lock(b, buffer.Share)
		pg := pool.Page(b)
		isNew, lower := pg.IsNew(), pg.Lower()
		pool.UnlockRelease(b, buffer.Share)
		if !isNew {
			if lower < page.HeaderSize || lower > page.Size {
				return pgerr.Errorf(pgerr.DataCorrupted, "undo log page %d is corrupt (pd_lower %d)", blk-1, lower)
			}
			l.insert = URP(blk-1)*page.Size + URP(lower)
			break
		}
	}
	l.discard.Store(uint64(l.insert))
	return nil
}

// callbacks tie the log to transaction boundaries (rollback.go).
func (l *Log) callbacks() xact.Callbacks {
	fail := func(err error) {
		if err != nil {
			var e error = pgerr.Errorf(pgerr.InternalError, "could not apply undo: %v", err).WithHint("Restart the server: recovery applies it.")
			l.failed.Store(&e)
		}
	}
	return xact.Callbacks{
		BeforeAbort:    func(p *xact.Proc) { fail(l.Abort(nil, p)) },
		BeforeSubAbort: func(p *xact.Proc) { fail(l.RollbackSub(nil, p)) },
		SubBegin:       l.BeginSub,
		SubRelease:     l.ReleaseSub,
		AfterCommit:    l.Commit,
	}
}

func (l *Log) tag(blk page.BlockNumber) buffer.Tag {
	rel, b := l.chunkOf(blk)
	return buffer.Tag{Rel: rel, Fork: smgr.UndoFork, Block: b}
}

// lastChunk is the highest chunk file present (0: none).
func (l *Log) lastChunk() (smgr.RelFileNumber, error) {
	chunks, err := l.chunks()
	if err != nil || len(chunks) == 0 {
		return 0, err
	}
	return chunks[len(chunks)-1], nil
}

// chunks lists the chunk files present, ascending.
func (l *Log) chunks() ([]smgr.RelFileNumber, error) {
	ents, err := os.ReadDir(l.pool.Smgr().UndoDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("undo log: %w", err)
	}
	var out []smgr.RelFileNumber
	for _, e := range ents {
		n, err := strconv.ParseUint(e.Name(), 10, 32)
		if err == nil && n > 0 {
			out = append(out, smgr.RelFileNumber(n))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// InsertPos is where the next record goes.
func (l *Log) InsertPos() URP {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.insert
}

// Discard is the discard point.
func (l *Log) Discard() URP { return URP(l.discard.Load()) }

// readRecord reads the record at urp. The caller holds the share lock of
// the data page the record belongs to (undo pages are locked after data
// pages, never before).
//
// It returns nil, nil for a record before the discard point: its change is
// visible to everyone (the discard point may pass urp after the caller
// looked, and the chunk holding it may be gone; chunkMu orders the two).
func (l *Log) readRecord(u *stats.Usage, urp URP) (*Record, error) {
	l.chunkMu.RLock()
	defer l.chunkMu.RUnlock()
	if urp < l.Discard() {
		return nil, nil
	}
	b, err := l.pool.Read(u, l.tag(urp.block()), nil)
	if err != nil {
		return nil, fmt.Errorf("reading undo record %s: %w", urp, err)
	}
	l.pool.Lock(b, buffer.Share)
	pg := l.pool.Page(b)
	var r *Record
	if urp.offset() < pg.Lower() {
		r, err = decodeRecord(pg[urp.offset():pg.Lower()])
	} else {
		err = fmt.Errorf("beyond the page's end %d", pg.Lower())
	}
	l.pool.UnlockRelease(b, buffer.Share)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "undo record %s is corrupt: %v", urp, err)
	}
	return r, nil
}

// dataChange is one data-page change logged with its undo record: apply
// makes the change (given the record's position) and returns the TID
// offset it used; the page is exclusively locked by the caller.
type dataChange struct {
	rec   *Record
	buf   buffer.Buffer
	tag   buffer.Tag
	delta *page.Delta
	apply func(urp URP) page.OffsetNumber
}

// undoPage is an undo page being written under l.mu.
type undoPage struct {
	buf   buffer.Buffer
	blk   page.BlockNumber
	delta page.Delta
}

// write logs changes: their undo records go into the log, their data
// pages are changed, and one WAL record carries both. Nothing is changed
// when an error is returned, except that the log may have grown by an
// empty page.
func (l *Log) write(u *stats.Usage, tx *Txn, info uint8, changes ...*dataChange) error {
	if e := l.failed.Load(); e != nil {
		return *e
	}
	if !xact.IsNormal(tx.Xid) {
		return pgerr.Errorf(pgerr.InternalError, "undo: a change without a transaction id")
	}
	st := l.stateFor(tx.Proc)
	l.mu.Lock()
	defer l.mu.Unlock()
	encoded := make([][]byte, len(changes))
	sizes := make([]int, len(changes))
	for i, c := range changes {
		c.rec.Xid, c.rec.Cid = tx.Xid, tx.Cid
		// Lengths do not depend on the TID or pointers, so encode once
		// to measure.
		sizes[i] = page.MaxAlignUp(len(c.rec.encode()))
	}
	pos := l.insert
	urps := make([]URP, len(changes))
	var pages []*undoPage
	for i := range changes {
		if pos.offset()+sizes[i] > page.Size {
			pos = URP(pos.block()+1)*page.Size + page.HeaderSize
		} else if pos.offset() < page.HeaderSize {
			// The previous record ended the page exactly.
			pos += page.HeaderSize - URP(pos.offset())
		}
		urps[i] = pos
		pos += URP(sizes[i])
		if len(pages) == 0 || pages[len(pages)-1].blk != urps[i].block() {
			pages = append(pages, &undoPage{blk: urps[i].block()})
		}
	}
	if pos >= MaxURP {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "undo log is full")
	}
	release := func() {
		for _, p := range pages {
			if p.buf != buffer.InvalidBuffer {
				l.pool.UnlockRelease(p.buf, buffer.Exclusive)
			}
		}
	}
	for _, p := range pages {
		if err := l.pinUndoPage(u, p); err != nil {
			release()
			return err
		}
	}
	defer release()
	pageOf := func(urp URP) *undoPage {
		for _, p := range pages {
			if p.blk == urp.block() {
				return p
			}
		}
		panic("undo: record without its page")
	}
	for i, c := range changes {
		c.rec.XactPrev = st.last
		if off := c.apply(urps[i]); off != page.InvalidOffset {
			c.rec.TID.Offset = off
		}
		encoded[i] = c.rec.encode()
		p := pageOf(urps[i])
		pg := l.pool.Page(p.buf)
		p.delta.PutBytes(pg, urps[i].offset(), encoded[i])
		end := urps[i].offset() + sizes[i]
		clear(pg[urps[i].offset()+len(encoded[i]) : end])
		p.delta.PutUint16(pg, 12, uint16(end)) // pd_lower
		st.last = urps[i]
		if st.first == 0 {
			l.smu.Lock()
			st.first = urps[i]
			l.smu.Unlock()
		}
	}
	rec := wal.NewRecord(wal.RmUndo, info, tx.Xid)
	var bufs []buffer.Buffer
	seen := map[buffer.Buffer]bool{}
	for _, c := range changes {
		if !seen[c.buf] {
			seen[c.buf] = true
			rec.AddBlock(c.tag, l.pool.Page(c.buf), wal.BlockStandard, c.delta)
			bufs = append(bufs, c.buf)
		}
	}
	for _, p := range pages {
		rec.AddBlock(l.tag(p.blk), l.pool.Page(p.buf), wal.BlockStandard, &p.delta)
		bufs = append(bufs, p.buf)
	}
	lsn, err := l.wal.Insert(u, rec)
	if err != nil {
		// The WAL is poisoned; the server stops (changes are in memory
		// only and never reach disk: the WAL is never flushed again).
		return err
	}
	for _, b := range bufs {
		l.pool.Page(b).SetLSN(lsn)
		l.pool.MarkDirty(u, b)
	}
	l.counters.written.Add(int64(pos - l.insert))
	l.insert = pos
	return nil
}

// pinUndoPage pins and exclusively locks undo page p.blk, extending the
// log or formatting a new page as needed.
func (l *Log) pinUndoPage(u *stats.Usage, p *undoPage) error {
	sm := l.pool.Smgr()
	rel, cblk := l.chunkOf(p.blk)
	n, err := l.chunkBlocks(rel)
	if err != nil {
		return err
	}
	if cblk >= n {
		if !sm.Exists(rel, smgr.UndoFork) {
			if err := sm.Create(rel, smgr.UndoFork); err != nil {
				return fmt.Errorf("undo log: %w", err)
			}
		}
		for n <= cblk {
			b, blk, err := l.pool.Extend(u, rel, smgr.UndoFork, nil)
			if err != nil {
				return fmt.Errorf("undo log: %w", err)
			}
			if blk == cblk {
				p.buf = b
				break
			}
			l.pool.UnlockRelease(b, buffer.Exclusive)
			n = blk + 1
		}
	} else {
		b, err := l.pool.Read(u, l.tag(p.blk), nil)
		if err != nil {
			return fmt.Errorf("undo log: %w", err)
		}
		l.pool.Lock(b, buffer.Exclusive)
		p.buf = b
	}
	if pg := l.pool.Page(p.buf); pg.IsNew() {
		page.Init(pg, 0, &p.delta)
	}
	return nil
}

// stateFor returns the undo state of p's transaction.
func (l *Log) stateFor(p *xact.Proc) *xactUndo {
	l.smu.Lock()
	defer l.smu.Unlock()
	st := l.xacts[p]
	if st == nil {
		st = &xactUndo{}
		l.xacts[p] = st
	}
	return st
}

func (l *Log) lookup(p *xact.Proc) *xactUndo {
	l.smu.Lock()
	defer l.smu.Unlock()
	return l.xacts[p]
}
