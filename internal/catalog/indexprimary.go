package catalog

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// MarkIndexPrimary makes an existing unique index its table's primary key
// index (indisprimary; ALTER TABLE … ADD PRIMARY KEY USING INDEX). The
// caller sets the key columns NOT NULL and adds the constraint.
func (c *Catalog) MarkIndexPrimary(tx *Txn, index uint32) error {
	var target page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, PgIndex, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == index {
			target, vals = tid, append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if !target.Valid() {
		return pgerr.Errorf(pgerr.InternalError, "cache lookup failed for index %d", index)
	}
	vals[PgIndex.ColumnIndex("indisprimary")] = bv(true)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgIndex, target, vals)
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}
