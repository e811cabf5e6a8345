package undo

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// BeginSub notes a savepoint: ROLLBACK TO it undoes what follows.
func (l *Log) BeginSub(p *xact.Proc) {
	st := l.stateFor(p)
	st.marks = append(st.marks, st.last)
}

// ReleaseSub folds the innermost savepoint into its parent.
func (l *Log) ReleaseSub(p *xact.Proc) {
	if st := l.lookup(p); st != nil && len(st.marks) > 0 {
		st.marks = st.marks[:len(st.marks)-1]
		l.releaseShared(p, len(st.marks), true)
	}
}

// RollbackSub undoes the innermost savepoint's changes. Call it before the
// subtransaction is marked aborted (xact.RollbackSubXact), so no other
// writer ever finds its changes.
func (l *Log) RollbackSub(u *stats.Usage, p *xact.Proc) error {
	st := l.lookup(p)
	if st == nil || len(st.marks) == 0 {
		return nil
	}
	mark := st.marks[len(st.marks)-1]
	st.marks = st.marks[:len(st.marks)-1]
	st.epq = epqMark{}
	l.releaseShared(p, len(st.marks), false)
	if err := l.applyChain(u, st.last, mark); err != nil {
		return err
	}
	st.last = mark
	return nil
}

// Abort undoes the whole transaction's changes; call it before
// xact.Abort.
func (l *Log) Abort(u *stats.Usage, p *xact.Proc) error {
	st := l.lookup(p)
	if st == nil {
		return nil
	}
	l.releaseShared(p, -1, false)
	err := l.applyChain(u, st.last, 0)
	l.smu.Lock()
	delete(l.xacts, p)
	l.smu.Unlock()
	l.AdvanceDiscard()
	return err
}

// Commit ends p's transaction (top xid xid) as committed: its undo is kept
// until every snapshot sees the commit. Call it after xact.Commit.
func (l *Log) Commit(p *xact.Proc, xid xact.XID) {
	l.releaseShared(p, -1, false)
	l.smu.Lock()
	st := l.xacts[p]
	if st == nil {
		// Wrote no undo (every heap-only transaction): nothing to do.
		l.smu.Unlock()
		return
	}
	if st.first != 0 && xid != xact.InvalidXid {
		// pending stays sorted by first record (AdvanceDiscard).
		c := committed{xid: xid, first: st.first}
		i := sort.Search(len(l.pending), func(i int) bool { return l.pending[i].first > c.first })
		l.pending = append(l.pending, committed{})
		copy(l.pending[i+1:], l.pending[i:])
		l.pending[i] = c
	}
	delete(l.xacts, p)
	l.smu.Unlock()
	l.AdvanceDiscard()
}

// AdvanceDiscard moves the discard point to the first record still needed
// (README "Discard"). Whether a committed transaction is visible to every
// snapshot only depends on its xid preceding OldestXmin, so with pending
// sorted by first record, the first entry not yet visible to all bounds
// the point; entries behind it that are visible to all wait until they
// reach the front (amortised constant work per commit).
func (l *Log) AdvanceDiscard() {
	ins := l.InsertPos()
	oldest := l.xm.OldestXmin()
	l.smu.Lock()
	point := ins
	for _, st := range l.xacts {
		if st.first != 0 && st.first < point {
			point = st.first
		}
	}
	n := 0
	for n < len(l.pending) && xact.Precedes(l.pending[n].xid, oldest) {
		n++
	}
	l.pending = l.pending[n:]
	if len(l.pending) > 0 && l.pending[0].first < point {
		point = l.pending[0].first
	}
	if prev := l.discard.Load(); uint64(point) > prev {
		l.discard.Store(uint64(point))
		l.counters.discarded.Add(int64(uint64(point) - prev))
	}
	l.smu.Unlock()
	l.removeDiscardedChunks()
}

// removeDiscardedChunks removes the chunk files wholly before the discard
// point, dropping their buffers first so nothing writes them again.
func (l *Log) removeDiscardedChunks() {
	upTo := smgr.RelFileNumber(l.Discard().block() / l.chunk) // chunks 1…upTo are wholly before it
	l.chunkMu.RLock()
	done := l.removed >= upTo
	l.chunkMu.RUnlock()
	if done {
		return
	}
	l.chunkMu.Lock()
	defer l.chunkMu.Unlock()
	for l.removed < upTo {
		rel := l.removed + 1
		n, _ := l.chunkBlocks(rel)
		l.pool.DropRelation(rel, smgr.UndoFork, 0, false)
		if err := l.pool.Smgr().UnlinkFork(rel, smgr.UndoFork); err != nil {
			return // tried again at the next advance
		}
		l.Discarded.Add(int64(n) * page.Size)
		l.removed = rel
	}
}

// applyChain undoes the transaction's records from `from` back to (not
// including) `to`, newest first.
func (l *Log) applyChain(u *stats.Usage, from, to URP) error {
	for r := from; r != 0 && r > to; {
		rec, err := l.readRecord(u, r)
		if err != nil {
			return err
		}
		if rec == nil {
			return fmt.Errorf("undo record %s of a running transaction was discarded", r)
		}
		if err := l.applyRecord(u, rec, r); err != nil {
			return err
		}
		r = rec.XactPrev
	}
	return nil
}

// applyRecord undoes one record on its page, if the tuple still points at
// it (so applying twice, after a crash, is harmless).
func (l *Log) applyRecord(u *stats.Usage, rec *Record, urp URP) error {
	sm := l.pool.Smgr()
	if !sm.Exists(rec.Rel, smgr.MainFork) {
		return nil // the table was dropped
	}
	nb, err := sm.NBlocks(rec.Rel, smgr.MainFork)
	if err != nil || rec.TID.Block >= nb {
		return err
	}
	tag := buffer.Tag{Rel: rec.Rel, Fork: smgr.MainFork, Block: rec.TID.Block}
	b, err := l.pool.Read(u, tag, nil)
	if err != nil {
		return fmt.Errorf("applying undo record %s: %w", urp, err)
	}
	l.pool.Lock(b, buffer.Exclusive)
	defer l.pool.UnlockRelease(b, buffer.Exclusive)
	pg := l.pool.Page(b)
	off := rec.TID.Offset
	if pg.IsNew() || off == 0 || off > pg.MaxOffset() {
		return nil
	}
	it := pg.Item(off)
	if it.Flags != page.LPNormal || Tuple(pg.ItemBytes(off)).URP() != urp {
		return nil
	}
	var d page.Delta
	switch rec.Kind {
	case KindInsert:
		pg.SetItem(off, page.ItemID{Off: it.Off, Flags: page.LPDead, Len: it.Len}, &d)
	case KindInplace:
		old := rec.rebuild(append(Tuple(nil), pg.ItemBytes(off)...))
		if len(old) != rec.OldLen {
			return fmt.Errorf("undo record %s rebuilds %d bytes, expected %d", urp, len(old), rec.OldLen)
		}
		d.PutBytes(pg, rec.OldOff, old)
		pg.SetItem(off, page.ItemID{Off: rec.OldOff, Flags: page.LPNormal, Len: rec.OldLen}, &d)
	default:
		d.PutBytes(pg, it.Off, rec.OldHeader[:])
	}
	wr := wal.NewRecord(wal.RmUndo, InfoApply, rec.Xid)
	wr.AddBlock(tag, pg, wal.BlockStandard, &d)
	wr.SetMain(binary.LittleEndian.AppendUint64(nil, uint64(urp)))
	lsn, err := l.wal.Insert(u, wr)
	if err != nil {
		return err
	}
	pg.SetLSN(lsn)
	l.pool.MarkDirty(u, b)
	return nil
}
