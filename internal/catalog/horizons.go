package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// FreezeHorizons are a table's relfrozenxid and relminmxid.
type FreezeHorizons struct{ FrozenXid, MinMxid uint32 }

// AllFreezeHorizons reads every table's relfrozenxid and relminmxid in one
// pg_class scan (autovacuum's per-naptime look at every table).
func (c *Catalog) AllFreezeHorizons(tx *Txn) (map[uint32]FreezeHorizons, error) {
	fx, mx := PgClass.ColumnIndex("relfrozenxid"), PgClass.ColumnIndex("relminmxid")
	out := map[uint32]FreezeHorizons{}
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if byte(v[cRelkind].Int()) == KindTable {
			out[uint32(v[cOid].Int())] = FreezeHorizons{FrozenXid: uint32(v[fx].Int()), MinMxid: uint32(v[mx].Int())}
		}
		return true, nil
	})
	return out, err
}
