package tableam

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// Index entries of relations whose in-place updates change keys under a
// TID (InPlaceUpdates; internal/access/btree README "Delete-marking"): an
// entry's TID alone no longer says whether the row has the entry's key,
// so unique checks and VACUUM pass a hasKey test, which reports whether a
// version of the row has the entry's key. Versions passed to it are
// copies; it runs with no page of the table locked.

// KeyedUniqueChecker is CheckUnique for one index entry's key: RowLive
// when the row's latest committed version (or the caller's own) has the
// key and is not deleted; RowInFlight (with the xid to wait for) when a
// running other transaction's change makes or replaces a version with the
// key; RowDead otherwise.
type KeyedUniqueChecker interface {
	CheckUniqueKey(u *stats.Usage, tx *Txn, tid TID, hasKey func(Tuple) (bool, error)) (UniqueState, xact.XID, TID, error)
}

// MarkedVerdict is VACUUM's decision about a delete-marked index entry.
type MarkedVerdict uint8

const (
	// MarkedKeep: a snapshot may still need the entry (or the row's latest
	// change is too recent to tell).
	MarkedKeep MarkedVerdict = iota
	// MarkedRemove: the version every snapshot with xmin at or after the
	// horizon sees lacks the key (or there is none): no one can need it.
	MarkedRemove
	// MarkedClear: that version has the key; the entry is an ordinary one
	// again (the change that marked it rolled back, or changed it back).
	MarkedClear
)

// MarkedEntryChecker decides about delete-marked index entries at VACUUM.
type MarkedEntryChecker interface {
	MarkedEntryState(u *stats.Usage, tid TID, horizon xact.XID, hasKey func(Tuple) (bool, error)) (MarkedVerdict, error)
}
