package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// uniqueEntryState is what a unique check (or ON CONFLICT's arbiter
// search) knows of the row an entry (key, tid) of ir leads to. A table
// whose in-place updates change keys under a TID is asked about the key
// too (tableam.KeyedUniqueChecker): the row may have moved on from it, or
// a running update may be moving it there or away.
func uniqueEntryState(c *Ctx, rel, ir *catalog.Relation, key []types.Datum, tid page.ItemPointer) (tableam.UniqueState, xact.XID, page.ItemPointer, error) {
	kc, ok := rel.Table.(tableam.KeyedUniqueChecker)
	if !ok {
		return rel.Table.CheckUnique(c.U(), c.Tx.Heap, tid)
	}
	def := rel.NewDeformerFor(c.Context, c.U())
	row := make(Row, len(rel.Attrs))
	return kc.CheckUniqueKey(c.U(), c.Tx.Heap, tid, func(t tableam.Tuple) (bool, error) {
		if err := def.Deform(t, row); err != nil {
			return false, err
		}
		return entryMatches(rel, ir, key, row), nil
	})
}
