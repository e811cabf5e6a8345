package vacuum

import (
	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// Delete-marked index entries (btree README "Delete-marking"): a table
// whose in-place updates change keys (tableam.MarkedEntryChecker) leaves
// marked entries that no dead TID names, so every VACUUM of it runs one
// index pass that shows them to the table, even with no dead TIDs. An
// in-place update leaves nothing in the table itself: no dead-TID heap
// pass is needed for it.

// marksToPurge: does VACUUM of rel owe its indexes a pass for marks?
func marksToPurge(rel *catalog.Relation) bool {
	_, ok := rel.Table.(tableam.MarkedEntryChecker)
	return ok
}

// bulkDeleteIndex is index i's bulk delete of the dead TIDs in dead, with
// the marked entries' check when the table makes marks.
func bulkDeleteIndex(u *stats.Usage, cat *catalog.Catalog, rel *catalog.Relation, i int, xid xact.XID, horizon xact.XID, dead func(page.ItemPointer) bool, s *buffer.Strategy) (btree.BulkDeleteStats, error) {
	ir := rel.Indexes[i]
	ix := cat.IndexFor(rel, ir)
	mc, ok := rel.Table.(tableam.MarkedEntryChecker)
	if !ok {
		return ix.BulkDeleteWith(u, uint32(xid), dead, s)
	}
	def := rel.NewDeformer()
	row := make([]datum.Datum, len(rel.Attrs))
	key := make([]datum.Datum, len(ir.Index.Keys))
	check := func(tid page.ItemPointer, tup btree.Tuple) (btree.MarkVerdict, error) {
		v, err := mc.MarkedEntryState(u, tid, horizon, func(t tableam.Tuple) (bool, error) {
			if err := def.Deform(t, row); err != nil {
				return false, err
			}
			for j, a := range ir.Index.Keys {
				key[j] = row[a-1]
			}
			return ix.HasKey(tup, key)
		})
		switch {
		case err != nil:
			return btree.MarkKeep, err
		case v == tableam.MarkedRemove:
			return btree.MarkRemove, nil
		case v == tableam.MarkedClear:
			return btree.MarkClear, nil
		}
		return btree.MarkKeep, nil
	}
	return ix.BulkDeleteMarked(u, uint32(xid), dead, check, s)
}
