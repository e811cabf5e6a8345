package undo

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// Txn is the calling transaction (tableam's: process, current xid —
// assigned by the caller before a write —, command id, snapshot).
type Txn = tableam.Txn

// sees reports whether the change rec describes is visible to tx's
// snapshot.
func (l *Log) sees(tx *Txn, rec *Record) bool {
	if tx.IsCurrent(rec.Xid) {
		return rec.Cid < tx.Cid
	}
	if tx.Snap.XidInSnapshot(rec.Xid) {
		return false
	}
	return l.xm.State(rec.Xid) == xact.Committed
}

// versionFor returns the version of the row whose current bytes are cur
// (a private copy) that tx's snapshot sees, or nil if it sees none. The
// caller holds the data page's share (or exclusive) lock, so the chain
// cannot be rolled back under the walk. skipped, if not nil, is called
// with each change undone on the way (SSI's conflict out, ssi.go).
func (l *Log) versionFor(u *stats.Usage, tx *Txn, cur Tuple, skipped func(*Record) error) (Tuple, error) {
	v := cur
	for {
		urp := v.URP()
		if urp == 0 || urp < l.Discard() {
			break
		}
		rec, err := l.readRecord(u, urp)
		if err != nil {
			return nil, err
		}
		if rec == nil || l.sees(tx, rec) {
			break
		}
		if skipped != nil {
			if err := skipped(rec); err != nil {
				return nil, err
			}
		}
		if v = rec.rebuild(v); v == nil {
			return nil, nil
		}
	}
	if v.IsDeleted() {
		return nil, nil
	}
	return v, nil
}
