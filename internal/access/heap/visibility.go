package heap

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/access/tableam"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"

	"github.com/tidal-db/tidal/internal/xact"
)

// Txn is the calling transaction (tableam's, shared by every access method).
type Txn = tableam.Txn

// ComboCids are a transaction's combo command ids (combocid.c).
type ComboCids = tableam.ComboCids

// cmin and cmax decode a tuple's cid field for the owning transaction.
func (t Tuple) cmin(c *ComboCids) uint32 {
	if t.Infomask()&ComboCid != 0 {
		if cmin, _, ok := c.Pair(t.RawCid()); ok {
			return cmin
		}
	}
	return t.RawCid()
}

func (t Tuple) cmax(c *ComboCids) uint32 {
	if t.Infomask()&ComboCid != 0 {
		if _, cmax, ok := c.Pair(t.RawCid()); ok {
			return cmax
		}
	}
	return t.RawCid()
}

// hintSetter sets hint bits on a tuple that lives on a shared page; the
// caller marks the buffer dirty (MarkDirtyHint) when it returns true.
func setHint(t Tuple, bits uint16) {
	m := binary.LittleEndian.Uint16(t[offInfomask:])
	binary.LittleEndian.PutUint16(t[offInfomask:], m|bits)
}

// Visible is HeapTupleSatisfiesMVCC. It sets the hint bits it learns on t
// directly, so t must be a private copy or on a page the caller holds
// exclusively; hinted reports that it did. Code holding only a share lock
// uses VisibleHints and applies the bits later under an exclusive lock.
func Visible(x *xact.Manager, t Tuple, tx *Txn) (visible, hinted bool) {
	vis, bits := VisibleHints(x, t, tx)
	if bits != 0 {
		setHint(t, bits)
	}
	return vis, bits != 0
}

// VisibleHints is HeapTupleSatisfiesMVCC without side effects: it returns
// the hint bits the check proved (xmin/xmax committed or invalid).
func VisibleHints(x *xact.Manager, t Tuple, tx *Txn) (visible bool, hints uint16) {
	mask := t.Infomask()
	snap := tx.Snap
	if mask&XminCommitted == 0 {
		if mask&XminInvalid != 0 {
			return false, 0
		}
		xmin := t.Xmin()
		if tx.IsCurrent(xmin) {
			if t.cmin(tx.Combo) >= tx.Cid {
				return false, 0 // inserted by this or a later command
			}
			if mask&XmaxInvalid != 0 || lockedOnly(mask) {
				return true, 0
			}
			if !tx.IsCurrent(UpdateXid(x, t)) {
				return true, 0 // the deleting subtransaction aborted
			}
			return t.cmax(tx.Combo) >= tx.Cid, 0
		}
		if snap.XidInSnapshot(xmin) {
			return false, 0
		}
		if x.CLOG().Get(xmin) == xact.Committed || xmin == xact.BootstrapXid || xmin == xact.FrozenXid {
			if x.HintSafe(xmin) {
				hints |= XminCommitted
			}
			mask |= XminCommitted
		} else {
			return false, XminInvalid
		}
	} else if mask&XminFrozen != XminFrozen && snap.XidInSnapshot(t.Xmin()) {
		return false, 0
	}
	if mask&XmaxInvalid != 0 || lockedOnly(mask) {
		return true, hints
	}
	xmax := t.Xmax()
	if mask&XmaxIsMulti != 0 {
		// The multixact's updater decides; its lockers do not (and a
		// multixact xmax is never hinted).
		upd := UpdateXid(x, t)
		switch {
		case tx.IsCurrent(upd):
			return t.cmax(tx.Combo) >= tx.Cid, hints
		case snap.XidInSnapshot(upd):
			return true, hints
		}
		return x.CLOG().Get(upd) != xact.Committed, hints
	}
	if mask&XmaxCommitted == 0 {
		if tx.IsCurrent(xmax) {
			return t.cmax(tx.Combo) >= tx.Cid, hints
		}
		if snap.XidInSnapshot(xmax) {
			return true, hints
		}
		if x.CLOG().Get(xmax) != xact.Committed {
			return true, hints | XmaxInvalid
		}
		if !x.HintSafe(xmax) {
			return false, hints
		}
		return false, hints | XmaxCommitted
	}
	if snap.XidInSnapshot(xmax) {
		return true, hints
	}
	return false, hints
}

// HintSet collects hint bits learnt under a share lock, to be applied
// once the page's exclusive lock can be had without waiting. (PostgreSQL
// writes hint bits under a share lock; in Go that is a data race with
// other readers of the same bytes, so tidal defers them.)
type HintSet struct {
	items []pendingHint
}

type pendingHint struct {
	lp         page.OffsetNumber
	off        int
	xmin, xmax uint32
	bits       uint16
}

// Add records that the tuple at line pointer lp (stored at page offset
// off) may have bits set.
func (h *HintSet) Add(lp page.OffsetNumber, off int, t Tuple, bits uint16) {
	if bits != 0 {
		h.items = append(h.items, pendingHint{lp, off, t.Xmin(), t.Xmax(), bits})
	}
}

// Apply sets the collected bits if the buffer's exclusive lock is free
// (the caller holds no lock on it, only a pin). Tuples that moved or
// changed meanwhile are skipped; hints are only ever an optimisation.
func (h *HintSet) Apply(pool *buffer.Pool, u *stats.Usage, b buffer.Buffer) {
	if len(h.items) == 0 {
		return
	}
	if pool.TryLockExclusive(b) {
		p := pool.Page(b)
		done := false
		for _, it := range h.items {
			if it.lp > p.MaxOffset() {
				continue
			}
			lp := p.Item(it.lp)
			if lp.Flags != page.LPNormal || lp.Off != it.off {
				continue
			}
			t := Tuple(p[lp.Off : lp.Off+lp.Len])
			if t.Xmin() != it.xmin || t.Xmax() != it.xmax {
				continue
			}
			setHint(t, it.bits)
			done = true
		}
		if done {
			pool.MarkDirtyHint(u, b)
		}
		pool.Unlock(b, buffer.Exclusive)
	}
	h.items = h.items[:0]
}

// VacuumState is HeapTupleSatisfiesVacuum's answer.
type VacuumState int

const (
	TupleLive         VacuumState = iota
	TupleDead                     // dead to everyone: can be removed
	TupleRecentlyDead             // deleted, but some snapshot may still see it
	TupleInsertInProgress
	TupleDeleteInProgress
)

// VacuumVisibility classifies a tuple against the horizon oldestXmin,
// setting the hint bits it proves on t (exclusive lock or private copy).
func VacuumVisibility(x *xact.Manager, t Tuple, oldestXmin xact.XID) (VacuumState, bool) {
	st, bits := VacuumVisibilityHints(x, t, oldestXmin)
	if bits != 0 {
		setHint(t, bits)
	}
	return st, bits != 0
}

// VacuumVisibilityHints is VacuumVisibility without side effects.
func VacuumVisibilityHints(x *xact.Manager, t Tuple, oldestXmin xact.XID) (VacuumState, uint16) {
	mask := t.Infomask()
	var hints uint16
	if mask&XminCommitted == 0 {
		if mask&XminInvalid != 0 {
			return TupleDead, 0
		}
		switch x.State(t.Xmin()) {
		case xact.InProgress:
			return TupleInsertInProgress, 0
		case xact.Committed:
			if x.HintSafe(t.Xmin()) {
				hints |= XminCommitted
			}
			mask |= XminCommitted
		default:
			return TupleDead, XminInvalid
		}
	}
	if mask&XmaxInvalid != 0 {
		return TupleLive, hints
	}
	if lockedOnly(mask) {
		// Only locked: live whatever the locker did; once it has ended
		// its xmax is of no interest any more.
		if xmaxRunning(x, t) {
			return TupleLive, hints
		}
		return TupleLive, hints | XmaxInvalid
	}
	xmax := t.Xmax()
	if mask&XmaxIsMulti != 0 {
		upd := UpdateXid(x, t)
		switch x.State(upd) {
		case xact.InProgress:
			return TupleDeleteInProgress, hints
		case xact.Committed:
			// Lockers may still run, but they lock the newer version too.
			if xact.Precedes(upd, oldestXmin) {
				return TupleDead, hints
			}
			return TupleRecentlyDead, hints
		}
		if xmaxRunning(x, t) {
			return TupleLive, hints
		}
		return TupleLive, hints | XmaxInvalid
	}
	if mask&XmaxCommitted == 0 {
		switch x.State(xmax) {
		case xact.InProgress:
			return TupleDeleteInProgress, hints
		case xact.Committed:
			if x.HintSafe(xmax) {
				hints |= XmaxCommitted
			}
		default:
			return TupleLive, hints | XmaxInvalid
		}
	}
	if xact.Precedes(xmax, oldestXmin) {
		return TupleDead, hints
	}
	return TupleRecentlyDead, hints
}

// xmaxRunning reports whether a transaction in t's xmax (any multixact
// member) is still running.
func xmaxRunning(x *xact.Manager, t Tuple) bool {
	if t.Infomask()&XmaxIsMulti == 0 {
		return x.IsRunning(t.Xmax())
	}
	running, err := x.MultiIsRunning(nil, t.Xmax())
	return running || err != nil
}
