package undo

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// Index entries when in-place updates change keys (README "Indexes"). An
// entry (key, tid) may lead to a row whose versions have other keys: the
// old key's entry after the update, or the new key's after a rollback.
// Readers recheck the key on the version they fetch; unique checks and
// VACUUM decide with the versions below. Versions are collected as copies
// under the page's share lock and tested after it is released (hasKey
// may read TOAST).

var (
	_ tableam.InPlaceUpdates     = (*Relation)(nil)
	_ tableam.KeyedUniqueChecker = (*Relation)(nil)
	_ tableam.MarkedEntryChecker = (*Relation)(nil)
)

// UpdatesInPlace: a row keeps its TID when an indexed column changes.
func (r *Relation) UpdatesInPlace() bool { return true }

func (r *Relation) CheckUniqueKey(u *stats.Usage, tx *Txn, tid page.ItemPointer, hasKey func(tableam.Tuple) (bool, error)) (tableam.UniqueState, xact.XID, page.ItemPointer, error) {
	st, xid, err := r.t.CheckUniqueKey(u, tx, tid, func(v Tuple) (bool, error) { return hasKey(tableam.Tuple(v)) })
	return st, xid, tid, err
}

func (r *Relation) MarkedEntryState(u *stats.Usage, tid page.ItemPointer, horizon xact.XID, hasKey func(tableam.Tuple) (bool, error)) (tableam.MarkedVerdict, error) {
	return r.t.MarkedEntryState(u, tid, horizon, func(v Tuple) (bool, error) { return hasKey(tableam.Tuple(v)) })
}

// inFlightChange is a running other transaction's change of a row: the
// version it made and the one it replaced (nil: it inserted the row).
type inFlightChange struct {
	xid      xact.XID
	new, old Tuple
}

// CheckUniqueKey is CheckUnique for an entry with a key (tableam's
// KeyedUniqueChecker): the running changes on top of the row's latest
// committed (or our own) version, newest first, then that version.
func (t *Table) CheckUniqueKey(u *stats.Usage, tx *Txn, tid page.ItemPointer, hasKey func(Tuple) (bool, error)) (tableam.UniqueState, xact.XID, error) {
	var running []inFlightChange
	var latest Tuple
	err := t.withRow(u, tid, func(cur Tuple) error {
		v := cur
		for urp := urpOf(v); urp != 0 && urp >= t.log.Discard(); {
			rec, err := t.log.readRecord(u, urp)
			if err != nil {
				return err
			}
			if rec == nil {
				break // discarded meanwhile: visible to everyone
			}
			if rec.Kind == KindLock {
				urp = rec.Prev
				continue
			}
			if tx.IsCurrent(rec.Xid) || !t.log.xm.IsRunning(rec.Xid) {
				break
			}
			old := rec.rebuild(v)
			running = append(running, inFlightChange{xid: rec.Xid, new: v, old: old})
			if v = old; v == nil {
				break
			}
			urp = rec.Prev
		}
		latest = v
		return nil
	})
	if err != nil {
		return tableam.RowDead, 0, err
	}
	has := func(v Tuple) (bool, error) {
		if v == nil || v.IsDeleted() {
			return false, nil
		}
		return hasKey(v)
	}
	for _, c := range running {
		for _, v := range []Tuple{c.new, c.old} {
			if ok, err := has(v); err != nil || ok {
				return tableam.RowInFlight, c.xid, err
			}
		}
	}
	if ok, err := has(latest); err != nil || ok {
		return tableam.RowLive, 0, err
	}
	return tableam.RowDead, 0, nil
}

func urpOf(v Tuple) URP {
	if v == nil {
		return 0
	}
	return v.URP()
}

// MarkedEntryState decides about a delete-marked entry at VACUUM with
// horizon (tableam.MarkedEntryChecker): only once the row's latest data
// change is visible to every snapshot does one version decide for all.
func (t *Table) MarkedEntryState(u *stats.Usage, tid page.ItemPointer, horizon xact.XID, hasKey func(Tuple) (bool, error)) (tableam.MarkedVerdict, error) {
	var settled Tuple // the version every snapshot sees, when there is one
	gone, recent := false, false
	err := t.withRow(u, tid, func(cur Tuple) error {
		if cur == nil {
			gone = true
			return nil
		}
		for urp := cur.URP(); urp != 0 && urp >= t.log.Discard(); {
			rec, err := t.log.readRecord(u, urp)
			if err != nil {
				return err
			}
			if rec == nil {
				break // discarded meanwhile: visible to everyone
			}
			if rec.Kind == KindLock {
				urp = rec.Prev // a row lock leaves the bytes as they were
				continue
			}
			if t.log.xm.State(rec.Xid) != xact.Committed || !xact.Precedes(rec.Xid, horizon) {
				recent = true
				return nil
			}
			break
		}
		settled = cur
		return nil
	})
	switch {
	case err != nil || recent:
		return tableam.MarkedKeep, err
	case gone || settled.IsDeleted():
		return tableam.MarkedRemove, nil
	}
	ok, err := hasKey(settled)
	if err != nil {
		return tableam.MarkedKeep, err
	}
	if ok {
		return tableam.MarkedClear, nil
	}
	return tableam.MarkedRemove, nil
}
