// Package indexam is the index access method side of the contract in
// internal/access/tableam: what a table AM's in-place update asks of the
// indexes. README.md has the design.
package indexam

import (
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// DeleteMarker is implemented by indexes that can delete-mark an entry:
// after a table AM rewrote a row in place with a changed key
// (tableam.UpdateInPlace), the entry (oldKey, tid) no longer leads to a row
// with that key for new snapshots, but older snapshots may still need it.
// The entry stays, marked with the marking transaction; scans return it
// and the table AM's Fetch decides (it rebuilds the version the snapshot
// sees, whose key the caller rechecks); VACUUM removes it once
// tableam.Relation.IndexEntryDead says no snapshot needs it. Rolling back
// the marking transaction clears the mark (the table AM's undo does it
// through UnmarkDeleted).
type DeleteMarker interface {
	MarkDeleted(u *stats.Usage, xid xact.XID, key []datum.Datum, tid page.ItemPointer) error
	UnmarkDeleted(u *stats.Usage, key []datum.Datum, tid page.ItemPointer) error
}
