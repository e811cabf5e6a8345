package undo

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// Row locks (README "Writers and row locks"). An exclusive lock (FOR NO
// KEY UPDATE, FOR UPDATE) and every change are records in the row's undo
// chain: nobody else can change the row while one is held, so they are
// found at the chain's head. Shared locks (FOR KEY SHARE, FOR SHARE) can
// be held by many transactions at once and outlive a non-key update on
// top of them, so they are kept in memory, by row, until their holder
// ends — as locks they need no durability: a crash ends every holder.

// heldMode is the row lock the change r records holds while its
// transaction runs: an in-place update NO KEY UPDATE, a lock its own
// strength, anything else (insert, delete, move) UPDATE.
func (r *Record) heldMode() tableam.LockMode {
	switch r.Kind {
	case KindLock:
		return tableam.LockMode(r.Mode)
	case KindInplace:
		if tableam.LockMode(r.Mode) == tableam.LockExclusive {
			return tableam.LockExclusive // a unique key changed in place
		}
		return tableam.LockNoKeyExclusive
	}
	return tableam.LockExclusive
}

// epqSeen reports whether p was already told (Updated) about the change
// at urp of the row — READ COMMITTED's EvalPlanQual then re-read the row
// with FetchLatest and retries on what it read, which heap lets through
// because the retry names the new version's TID; an in-place row keeps
// its TID, so the log remembers the change instead. Otherwise it notes
// the change and reports false. The note goes with the transaction or
// savepoint that failed (a REPEATABLE READ error never retries with it).
func (l *Log) epqSeen(p *xact.Proc, rel smgr.RelFileNumber, tid page.ItemPointer, urp URP) bool {
	st := l.stateFor(p)
	m := epqMark{rel, tid, urp}
	if st.epq == m {
		return true
	}
	st.epq = m
	return false
}

// conflicts is PostgreSQL's row-lock conflict table.
func conflicts(a, b tableam.LockMode) bool {
	return int(a)+int(b) >= int(tableam.LockExclusive)
}

type rowKey struct {
	rel smgr.RelFileNumber
	tid page.ItemPointer
}

type sharedLock struct {
	proc  *xact.Proc
	xid   xact.XID
	mode  tableam.LockMode
	level int // savepoint depth it was taken at
}

// sharedConflict returns a running other transaction holding a shared
// lock on the row that conflicts with want (0: none).
func (l *Log) sharedConflict(rel smgr.RelFileNumber, tid page.ItemPointer, tx *Txn, want tableam.LockMode) xact.XID {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	for _, s := range l.shared[rowKey{rel, tid}] {
		if s.proc != tx.Proc && conflicts(want, s.mode) && l.xm.IsRunning(s.xid) {
			return s.xid
		}
	}
	return 0
}

// holdsShared reports whether p holds a shared lock on the row.
func (l *Log) holdsShared(p *xact.Proc, rel smgr.RelFileNumber, tid page.ItemPointer) bool {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	for _, s := range l.shared[rowKey{rel, tid}] {
		if s.proc == p {
			return true
		}
	}
	return false
}

// addShared records tx's shared lock on the row (once per strength).
func (l *Log) addShared(rel smgr.RelFileNumber, tid page.ItemPointer, tx *Txn, mode tableam.LockMode) {
	level := 0
	if st := l.lookup(tx.Proc); st != nil {
		level = len(st.marks)
	} else {
		level = len(l.stateFor(tx.Proc).marks)
	}
	l.lmu.Lock()
	defer l.lmu.Unlock()
	k := rowKey{rel, tid}
	for _, s := range l.shared[k] {
		if s.proc == tx.Proc && s.mode >= mode {
			return
		}
	}
	if l.shared == nil {
		l.shared = map[rowKey][]sharedLock{}
		l.heldBy = map[*xact.Proc][]rowKey{}
	}
	l.shared[k] = append(l.shared[k], sharedLock{proc: tx.Proc, xid: tx.Xid, mode: mode, level: level})
	l.heldBy[tx.Proc] = append(l.heldBy[tx.Proc], k)
}

// releaseShared drops p's shared locks taken deeper than level (all of
// them for level < 0); with fold, those are kept and moved to level
// instead (RELEASE SAVEPOINT).
func (l *Log) releaseShared(p *xact.Proc, level int, fold bool) {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	keys := l.heldBy[p]
	if len(keys) == 0 {
		return
	}
	var keep []rowKey
	for _, k := range keys {
		locks := l.shared[k][:0]
		mine := false
		for _, s := range l.shared[k] {
			if s.proc == p && s.level > level {
				if !fold {
					continue
				}
				s.level = level
			}
			if s.proc == p {
				mine = true
			}
			locks = append(locks, s)
		}
		if len(locks) == 0 {
			delete(l.shared, k)
		} else {
			l.shared[k] = locks
		}
		if mine {
			keep = append(keep, k)
		}
	}
	if len(keep) == 0 {
		delete(l.heldBy, p)
	} else {
		l.heldBy[p] = dedupKeys(keep)
	}
}

func dedupKeys(ks []rowKey) []rowKey {
	seen := map[rowKey]bool{}
	out := ks[:0]
	for _, k := range ks {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
