package heap

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// tupleFreeze is what VACUUM changes in one tuple header
// (heap_prepare_freeze_tuple's plan): xmin marked frozen, and/or xmax
// replaced — cleared, or a multixact replaced by its updater or by a
// smaller multixact of the members still running.
type tupleFreeze struct {
	off   page.OffsetNumber
	xmin  bool // set XMIN_FROZEN
	xmax  bool // write newXmax, mask, mask2
	xid   xact.XID
	mask  uint16 // the new xmax bits of t_infomask
	mask2 uint16 // the new KEYS_UPDATED bit
	orig  Tuple  // the tuple as it was
}

func (f tupleFreeze) apply(p page.Page, d *page.Delta) {
	base := p.Item(f.off).Off
	t := f.orig
	mask := t.Infomask()
	mask2 := t.Infomask2()
	if f.xmin {
		mask |= XminFrozen
	}
	if f.xmax {
		mask = mask&^xmaxBits | f.mask
		mask2 = mask2&^KeysUpdated | f.mask2
		if f.mask&XmaxInvalid != 0 {
			mask2 &^= HotUpdated
		}
		var x4 [4]byte
		binary.LittleEndian.PutUint32(x4[:], f.xid)
		d.PutBytes(p, base+offXmax, x4[:])
		d.PutUint16(p, base+offInfomask2, mask2)
	}
	d.PutUint16(p, base+offInfomask, mask)
}

// prepareFreezeXmax plans the freezing of t's xmax: a lock whose locker
// has ended, or an aborted updater, older than the xid limit goes; a
// multixact older than the multixact limit is replaced by its updater or
// goes (its members cannot be running), a newer one that has members
// older than the xid limit keeps only its running lockers and live
// updater (FreezeMultiXactId). fz.mask keeps XMAX_INVALID when nothing
// remains in xmax.
func (r *Relation) prepareFreezeXmax(t Tuple, off page.OffsetNumber, lim FreezeLimits) (tupleFreeze, error) {
	x := r.env.Xact
	fz := tupleFreeze{off: off, orig: append(Tuple(nil), t[:HeaderSize]...)}
	mask := t.Infomask()
	invalidate := func() (tupleFreeze, error) {
		fz.xmax, fz.xid, fz.mask, fz.mask2 = true, xact.InvalidXid, XmaxInvalid, 0
		return fz, nil
	}
	keep := func() (tupleFreeze, error) {
		fz.mask, fz.mask2 = mask&xmaxBits, t.Infomask2()&KeysUpdated
		return fz, nil
	}
	// A multixact is frozen even when hinted invalid: relminmxid must be
	// able to pass every multixact id left in an xmax.
	if mask&XmaxInvalid != 0 && mask&XmaxIsMulti == 0 {
		fz.mask = XmaxInvalid
		return fz, nil
	}
	xmax := t.Xmax()
	if mask&XmaxIsMulti == 0 {
		if !xact.IsNormal(xmax) || !xact.Precedes(xmax, lim.Xid) || x.IsRunning(xmax) {
			return keep()
		}
		if !lockedOnly(mask) && x.State(xmax) == xact.Committed {
			return fz, pgerr.Errorf(pgerr.DataCorrupted, "cannot freeze committed xmax %d", xmax)
		}
		return invalidate()
	}
	if xmax == xact.InvalidMulti {
		return invalidate()
	}
	if xact.MultiPrecedes(xmax, lim.Multi) {
		if running, err := x.MultiIsRunning(nil, xmax); err != nil || running {
			return fz, errorOr(err, pgerr.Errorf(pgerr.DataCorrupted, "multixact %d from before cutoff %d found to be still running", xmax, lim.Multi))
		}
		if lockedOnly(mask) {
			return invalidate()
		}
		upd := UpdateXid(x, t)
		if upd == xact.InvalidXid || xact.Precedes(upd, lim.Xid) {
			if upd != xact.InvalidXid && x.State(upd) == xact.Committed {
				return fz, pgerr.Errorf(pgerr.DataCorrupted, "cannot freeze committed update xid %d", upd)
			}
			return invalidate()
		}
		return r.freezeToXid(fz, t, upd)
	}
	members, err := x.Multi().Members(xmax)
	if err != nil {
		return fz, err
	}
	old := false
	for _, m := range members {
		old = old || xact.Precedes(m.Xid, lim.Xid)
	}
	if !old {
		return keep()
	}
	return r.freezeMembers(fz, t, members)
}

// freezeMembers is the second pass of FreezeMultiXactId: keep running
// lockers and an updater that did not abort.
func (r *Relation) freezeMembers(fz tupleFreeze, t Tuple, members []xact.MultiMember) (tupleFreeze, error) {
	x := r.env.Xact
	var survivors []xact.MultiMember
	update, lockers := xact.InvalidXid, false
	for _, m := range members {
		switch {
		case m.Status.IsUpdate():
			if st := x.State(m.Xid); st != xact.Aborted {
				update = m.Xid
				survivors = append(survivors, m)
			}
		case x.IsRunning(m.Xid):
			lockers = true
			survivors = append(survivors, m)
		}
	}
	switch {
	case len(survivors) == 0:
		fz.xmax, fz.xid, fz.mask, fz.mask2 = true, xact.InvalidXid, XmaxInvalid, 0
		return fz, nil
	case update != xact.InvalidXid && !lockers:
		return r.freezeToXid(fz, t, update)
	}
	id, err := x.Multi().Create(survivors)
	if err != nil {
		return fz, err
	}
	fz.xmax, fz.xid = true, id
	fz.mask, fz.mask2 = multiHintBits(survivors)
	return fz, nil
}

// freezeToXid replaces a multixact xmax by its updater's xid.
func (r *Relation) freezeToXid(fz tupleFreeze, t Tuple, upd xact.XID) (tupleFreeze, error) {
	fz.xmax, fz.xid, fz.mask, fz.mask2 = true, upd, 0, t.Infomask2()&KeysUpdated
	if st := r.env.Xact.State(upd); st == xact.Committed && r.env.Xact.HintSafe(upd) {
		fz.mask |= XmaxCommitted
	}
	return fz, nil
}

func errorOr(err error, alt error) error {
	if err != nil {
		return fmt.Errorf("freeze multixact: %w", err)
	}
	return alt
}
