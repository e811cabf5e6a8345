package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// RelationsByFileNode maps each relation's file number to its OID: lock
// tags and predicate locks name relations by file, pg_locks by OID.
func (c *Catalog) RelationsByFileNode(tx *Txn) (map[uint32]uint32, error) {
	out := map[uint32]uint32{}
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if f := uint32(v[cRelfilenode].Int()); f != 0 {
			out[f] = uint32(v[cOid].Int())
		}
		return true, nil
	})
	return out, err
}
