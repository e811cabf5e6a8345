package btree

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/access/indexam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// Delete-marked entries (README "Delete-marking"). A table AM that
// rewrites a row in place while an index key changes (the undo AM) keeps
// the old key's entry, which older snapshots still reach the row through,
// and marks it; it inserts the new key's entry marked as well (so that if
// the change rolls back, VACUUM finds the entry that no longer leads to
// its key). A mark is a hint for VACUUM only: scans return marked entries
// like any other and the caller rechecks the key against the row version
// it fetched; VACUUM asks the table about each marked entry and removes
// it, clears its mark, or keeps it (BulkDeleteMarked).

var _ indexam.DeleteMarker = (*Index)(nil)

// DeleteMarked reports whether the entry carries a delete mark.
func (t Tuple) DeleteMarked() bool { return tupInfo(t)&infoDeleteMarked != 0 }

// MarkDeleted marks the existing entry (key, tid); xid labels the WAL
// record. The entry must exist (an in-place update marks the entry of the
// key the row had).
func (ix *Index) MarkDeleted(u *stats.Usage, xid xact.XID, key []datum.Datum, tid page.ItemPointer) error {
	return ix.setMark(u, uint32(xid), key, tid, true)
}

// UnmarkDeleted clears the mark of the entry (key, tid), if it exists.
func (ix *Index) UnmarkDeleted(u *stats.Usage, key []datum.Datum, tid page.ItemPointer) error {
	return ix.setMark(u, 0, key, tid, false)
}

func (ix *Index) setMark(u *stats.Usage, xid uint32, key []datum.Datum, tid page.ItemPointer, mark bool) error {
	if len(key) != ix.nkeys {
		return pgerr.Errorf(pgerr.InternalError, "btree: index %q has %d key columns, got %d", ix.opt.Name, ix.nkeys, len(key))
	}
	o := ix.newOp(u)
	sk := &scanKey{keys: key, tail: tailExact, tid: tid}
	for {
		_, lb, err := o.search(sk, true, xid)
		if err != nil {
			return err
		}
		if getOpaque(o.page(lb)).incomplete() {
			if err := o.finishSplit(lb, xid); err != nil {
				return err
			}
			continue
		}
		off, found, err := o.findExact(lb, sk)
		if err == nil && found {
			err = o.setMarkAt(lb, off, mark, xid)
		}
		o.release(lb)
		if err != nil {
			return err
		}
		if !found && mark {
			return pgerr.Errorf(pgerr.InternalError, "btree: no entry for %s in index %q to delete-mark", tid, ix.opt.Name)
		}
		return nil
	}
}

// findExact finds the entry sk (an exact key and TID) on the locked leaf
// lb, where a search for sk landed.
func (o *op) findExact(lb lockedBuf, sk *scanKey) (page.OffsetNumber, bool, error) {
	p := o.page(lb)
	off, err := o.binsrch(p, getOpaque(p), sk)
	if err != nil || off > p.MaxOffset() {
		return off, false, err
	}
	c, err := o.ix.compare(sk, itemAt(p, off), o.scratch)
	return off, err == nil && c == 0, err
}

// setMarkAt sets (or clears) the mark of the entry at off on the
// exclusively locked leaf lb, in one MARK_DELETED record.
func (o *op) setMarkAt(lb lockedBuf, off page.OffsetNumber, mark bool, xid uint32) error {
	p := o.page(lb)
	d := o.delta(0)
	if !markItem(p, off, mark, d) {
		return nil
	}
	var main [3]byte
	binary.LittleEndian.PutUint16(main[:], uint16(off))
	if mark {
		main[2] = 1
	}
	return o.logPages(infoMarkDeleted, xid, main[:], []lockedBuf{lb}, []*page.Delta{d})
}

// markItem sets or clears the mark of item off in d; false when it is
// already so.
func markItem(p page.Page, off page.OffsetNumber, mark bool, d *page.Delta) bool {
	pos := p.Item(off).Off + 6
	info := binary.LittleEndian.Uint16(p[pos:])
	want := info &^ infoDeleteMarked
	if mark {
		want |= infoDeleteMarked
	}
	if want == info {
		return false
	}
	d.PutUint16(p, pos, want)
	return true
}

// MarkVerdict is what VACUUM's table decided about a marked entry.
type MarkVerdict uint8

const (
	MarkKeep   MarkVerdict = iota // a snapshot may still need it, or cannot tell yet
	MarkRemove                    // no snapshot can reach the row through this key
	MarkClear                     // the row's version every snapshot sees has this key
)

// MarkedCheck decides about a marked leaf entry (tup, whose heap TID is
// tid). It runs with the leaf exclusively locked, so a concurrent
// in-place update cannot re-mark or re-insert the entry between the
// decision and its removal (an updater changes the table first and the
// index after).
type MarkedCheck func(tid page.ItemPointer, tup Tuple) (MarkVerdict, error)

// HasKey reports whether leaf entry tup's key equals keys (compared with
// the index's comparators, as a search would).
func (ix *Index) HasKey(tup Tuple, keys []datum.Datum) (bool, error) {
	if len(keys) != ix.nkeys {
		return false, pgerr.Errorf(pgerr.InternalError, "btree: index %q has %d key columns, got %d", ix.opt.Name, ix.nkeys, len(keys))
	}
	return ix.keysEqual(keys, tup, make([]datum.Datum, 2*ix.nkeys))
}
