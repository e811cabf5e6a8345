package undo

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// withRow calls fn, under tid's page share lock, with a copy of the bytes
// at tid (nil: no tuple there).
func (t *Table) withRow(u *stats.Usage, tid page.ItemPointer, fn func(cur Tuple) error) error {
	nb, err := t.NBlocks()
	if err != nil {
		return err
	}
	if tid.Block >= nb {
		return fn(nil)
	}
	pool := t.log.pool
	b, err := pool.Read(u, t.tag(tid.Block), nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	return fn(readItem(pool.Page(b), tid.Offset))
}

// current is a copy of the newest bytes at tid, whoever wrote them.
func (t *Table) current(u *stats.Usage, tid page.ItemPointer) (Tuple, error) {
	var out Tuple
	err := t.withRow(u, tid, func(cur Tuple) error { out = cur; return nil })
	return out, err
}

// lastCommitted walks cur's chain back past changes of transactions that
// have not committed (nor are tx's), returning the newest version no
// uncommitted change replaced — an uncommitted insert is that version, as
// heap's latest version ignores its inserter — and the record of the
// change that made it (nil if discarded).
func (l *Log) lastCommitted(u *stats.Usage, tx *Txn, cur Tuple) (Tuple, *Record, error) {
	v := cur
	for v != nil {
		urp := v.URP()
		if urp == 0 || urp < l.Discard() {
			return v, nil, nil
		}
		rec, err := l.readRecord(u, urp)
		if err != nil {
			return nil, nil, err
		}
		if rec == nil {
			return v, nil, nil
		}
		if rec.Kind == KindInsert || (tx != nil && tx.IsCurrent(rec.Xid)) || l.xm.State(rec.Xid) == xact.Committed {
			return v, rec, nil
		}
		v = rec.rebuild(v)
	}
	return nil, nil, nil
}

// FetchLatest returns the newest committed version of the row at tid,
// following moves, and its TID (nil: deleted, or never committed).
func (t *Table) FetchLatest(u *stats.Usage, tx *Txn, tid page.ItemPointer) (Tuple, page.ItemPointer, error) {
	for hops := 0; hops < 1<<16; hops++ {
		var v Tuple
		var rec *Record
		err := t.withRow(u, tid, func(cur Tuple) error {
			var err error
			v, rec, err = t.log.lastCommitted(u, tx, cur)
			return err
		})
		if err != nil || v == nil {
			return nil, tid, err
		}
		if !v.IsDeleted() {
			return v, tid, nil
		}
		if v.Flags()&FlagMoved == 0 || rec == nil || rec.Kind != KindMove {
			return nil, tid, nil
		}
		tid = rec.NewTID
	}
	return nil, tid, nil
}

// LatestVisibleTID is tid, or where the row moved if tx sees the move.
func (t *Table) LatestVisibleTID(u *stats.Usage, tx *Txn, tid page.ItemPointer) (page.ItemPointer, error) {
	for hops := 0; hops < 1<<16; hops++ {
		var next page.ItemPointer
		err := t.withRow(u, tid, func(cur Tuple) error {
			if cur == nil || cur.Flags()&FlagMoved == 0 {
				return nil
			}
			rec := t.log.latestRecord(cur)
			if rec != nil && rec.Kind == KindMove && t.log.sees(tx, rec) {
				next = rec.NewTID
			}
			return nil
		})
		if err != nil || !next.Valid() {
			return tid, err
		}
		tid = next
	}
	return tid, nil
}

// CheckUnique says what a dirty snapshot sees at tid: a running other
// transaction's insert, delete or move is in flight (wait for it); else
// the row is live unless deleted. An in-place update never changes a key
// (a changed key moves the row), so one in flight leaves the row live.
func (t *Table) CheckUnique(u *stats.Usage, tx *Txn, tid page.ItemPointer) (tableam.UniqueState, xact.XID, error) {
	state, xid := tableam.RowDead, xact.InvalidXid
	err := t.withRow(u, tid, func(cur Tuple) error {
		if cur == nil {
			return nil
		}
		for urp := cur.URP(); urp != 0 && urp >= t.log.Discard(); {
			rec, err := t.log.readRecord(u, urp)
			if err != nil {
				return err
			}
			if rec == nil {
				break
			}
			if rec.Kind == KindLock || (rec.Kind == KindInplace && !tx.IsCurrent(rec.Xid)) {
				urp = rec.Prev
				continue
			}
			if !tx.IsCurrent(rec.Xid) && t.log.xm.IsRunning(rec.Xid) {
				state, xid = tableam.RowInFlight, rec.Xid
				return nil
			}
			break
		}
		if !cur.IsDeleted() {
			state = tableam.RowLive
		}
		return nil
	})
	return state, xid, err
}

// IndexEntryDead: nothing an index entry at tid leads to can be seen by a
// snapshot with xmin at or after horizon — no tuple there, or one whose
// delete committed before horizon.
func (t *Table) IndexEntryDead(u *stats.Usage, tid page.ItemPointer, horizon xact.XID) (bool, error) {
	dead := false
	err := t.withRow(u, tid, func(cur Tuple) error {
		if cur == nil {
			dead = true
			return nil
		}
		if !cur.IsDeleted() {
			return nil
		}
		urp := cur.URP()
		if urp == 0 || urp < t.log.Discard() {
			dead = true
			return nil
		}
		rec, err := t.log.readRecord(u, urp)
		if err != nil {
			return err
		}
		dead = rec == nil || t.log.xm.State(rec.Xid) == xact.Committed && xact.Precedes(rec.Xid, horizon)
		return nil
	})
	return dead, err
}
