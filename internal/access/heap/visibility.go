package heap

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/xact"
)

// Txn is what heap operations need to know about the calling transaction.
type Txn struct {
	Proc  *xact.Proc
	Xid   xact.XID // InvalidXid until the first write assigns one
	Cid   uint32   // current command id
	Snap  *xact.Snapshot
	Combo *ComboCids
}

// ComboCids maps combo command ids to (cmin, cmax) pairs for tuples a
// transaction both inserted and deleted (PostgreSQL's combocid.c). Only the
// owning transaction ever reads them.
type ComboCids struct {
	pairs [][2]uint32
	index map[[2]uint32]uint32
}

// Reset forgets all pairs (transaction end).
func (c *ComboCids) Reset() {
	c.pairs = c.pairs[:0]
	c.index = nil
}

func (c *ComboCids) get(cmin, cmax uint32) uint32 {
	k := [2]uint32{cmin, cmax}
	if c.index == nil {
		c.index = map[[2]uint32]uint32{}
	}
	if id, ok := c.index[k]; ok {
		return id
	}
	id := uint32(len(c.pairs))
	c.pairs = append(c.pairs, k)
	c.index[k] = id
	return id
}

// cmin and cmax decode a tuple's cid field for the owning transaction.
func (t Tuple) cmin(c *ComboCids) uint32 {
	if t.Infomask()&ComboCid != 0 && c != nil && int(t.RawCid()) < len(c.pairs) {
		return c.pairs[t.RawCid()][0]
	}
	return t.RawCid()
}

func (t Tuple) cmax(c *ComboCids) uint32 {
	if t.Infomask()&ComboCid != 0 && c != nil && int(t.RawCid()) < len(c.pairs) {
		return c.pairs[t.RawCid()][1]
	}
	return t.RawCid()
}

// hintSetter sets hint bits on a tuple that lives on a shared page; the
// caller marks the buffer dirty (MarkDirtyHint) when it returns true.
func setHint(t Tuple, bits uint16) {
	m := binary.LittleEndian.Uint16(t[offInfomask:])
	binary.LittleEndian.PutUint16(t[offInfomask:], m|bits)
}

// Visible is HeapTupleSatisfiesMVCC. It may set hint bits on t (which must
// then alias a page held with at least a share lock); hinted reports that
// it did, so the caller can mark the buffer dirty.
func Visible(x *xact.Manager, t Tuple, tx *Txn) (visible, hinted bool) {
	mask := t.Infomask()
	snap := tx.Snap
	if mask&XminCommitted == 0 {
		if mask&XminInvalid != 0 {
			return false, false
		}
		xmin := t.Xmin()
		if xmin == tx.Xid && xmin != xact.InvalidXid {
			if t.cmin(tx.Combo) >= tx.Cid {
				return false, false // inserted by this or a later command
			}
			if mask&XmaxInvalid != 0 || mask&XmaxLockOnly != 0 {
				return true, false
			}
			if t.Xmax() != tx.Xid {
				return true, false
			}
			return t.cmax(tx.Combo) >= tx.Cid, false
		}
		if snap.XidInSnapshot(xmin) {
			return false, false
		}
		if x.CLOG().Get(xmin) == xact.Committed || xmin == xact.BootstrapXid || xmin == xact.FrozenXid {
			setHint(t, XminCommitted)
			hinted = true
		} else {
			setHint(t, XminInvalid)
			return false, true
		}
	} else if mask&XminFrozen != XminFrozen && snap.XidInSnapshot(t.Xmin()) {
		return false, false
	}
	mask = t.Infomask()
	if mask&XmaxInvalid != 0 || mask&XmaxLockOnly != 0 {
		return true, hinted
	}
	xmax := t.Xmax()
	if mask&XmaxCommitted == 0 {
		if xmax == tx.Xid && xmax != xact.InvalidXid {
			return t.cmax(tx.Combo) >= tx.Cid, hinted
		}
		if snap.XidInSnapshot(xmax) {
			return true, hinted
		}
		if x.CLOG().Get(xmax) != xact.Committed {
			setHint(t, XmaxInvalid)
			return true, true
		}
		setHint(t, XmaxCommitted)
		return false, true
	}
	if snap.XidInSnapshot(xmax) {
		return true, hinted
	}
	return false, hinted
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

// VacuumVisibility classifies a tuple against the horizon oldestXmin.
func VacuumVisibility(x *xact.Manager, t Tuple, oldestXmin xact.XID) (VacuumState, bool) {
	mask := t.Infomask()
	hinted := false
	if mask&XminCommitted == 0 {
		if mask&XminInvalid != 0 {
			return TupleDead, false
		}
		switch x.State(t.Xmin()) {
		case xact.InProgress:
			return TupleInsertInProgress, false
		case xact.Committed:
			setHint(t, XminCommitted)
			hinted = true
		default:
			setHint(t, XminInvalid)
			return TupleDead, true
		}
	}
	mask = t.Infomask()
	if mask&XmaxInvalid != 0 || mask&XmaxLockOnly != 0 {
		return TupleLive, hinted
	}
	xmax := t.Xmax()
	if mask&XmaxCommitted == 0 {
		switch x.State(xmax) {
		case xact.InProgress:
			return TupleDeleteInProgress, hinted
		case xact.Committed:
			setHint(t, XmaxCommitted)
			hinted = true
		default:
			setHint(t, XmaxInvalid)
			return TupleLive, true
		}
	}
	if xmax < oldestXmin {
		return TupleDead, hinted
	}
	return TupleRecentlyDead, hinted
}
