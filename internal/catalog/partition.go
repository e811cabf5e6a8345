package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Declarative partitioning, stored as PostgreSQL 15 stores it. A
// partitioned table is a pg_class row of relkind 'p' with a
// pg_partitioned_table row (strategy, key columns, key expressions, the
// default partition); a partition is a table (or a partitioned table)
// with relispartition set, its bound in relpartbound and one pg_inherits
// row naming its parent, so the inheritance machinery reads it as a
// child. Differences from PostgreSQL: relpartbound holds the bound as
// pg_get_expr prints it (FOR VALUES …, DEFAULT), partexprs the key
// expressions as SQL text, and a partitioned table keeps an empty heap
// so that code treating it as a table (scans, locks) needs no branch; in
// memory its Kind is KindTable with PartKey set, relkind 'p' being the
// catalog's view. Partitioned indexes (relkind 'I') are likewise
// KindIndex in memory with Partitioned set.

// KindPartitioned and KindPartitionedIndex are pg_class.relkind of a
// partitioned table and a partitioned index.
const (
	KindPartitioned      = 'p'
	KindPartitionedIndex = 'I'
)

// PgPartitionedTableRelID is pg_partitioned_table's OID (PostgreSQL's).
const PgPartitionedTableRelID = 3350

// PgPartitionedTable is PostgreSQL's pg_partitioned_table, less
// partclass and partcollation.
var PgPartitionedTable = &TableDef{PgPartitionedTableRelID, "pg_partitioned_table", []Column{
	col("partrelid", tOid), col("partstrat", tChar), col("partnatts", tInt2), col("partdefid", tOid),
	col("partattrs", tI2Vec), col("partexprs", tTextArr),
}}

// PartitionKey is a partitioned table's key.
type PartitionKey struct {
	Strategy byte // 'r' range, 'l' list, 'h' hash
	// Attrs are the key's column numbers, 0 where the key has an
	// expression; Exprs the expressions (SQL text) in order.
	Attrs      []int16
	Exprs      []string
	DefaultOID uint32 // partdefid: the default partition, 0 if none
}

// AddPartitionKey makes table oid a partitioned table with key k.
func (c *Catalog) AddPartitionKey(tx *Txn, oid uint32, k *PartitionKey) error {
	exprs := make([]types.Datum, len(k.Exprs))
	for i, e := range k.Exprs {
		exprs[i] = types.Str(e)
	}
	var ex types.Datum = types.Null()
	if len(exprs) > 0 {
		ex = types.Array(exprs)
	}
	row := []types.Datum{ov(oid), cv(k.Strategy), iv(int64(len(k.Attrs))), ov(k.DefaultOID), types.Int2Vector(k.Attrs), ex}
	if _, err := c.insert(tx, PgPartitionedTable, row); err != nil {
		return err
	}
	// No storage of its own in PostgreSQL, so relam 0 (tidal reads 0 as
	// heap for the empty heap it keeps).
	return c.updateClassRow(tx, oid, map[int]types.Datum{cRelkind: cv(KindPartitioned), cRelam: ov(0)})
}

func (c *Catalog) partitionKeyRow(tx *Txn, oid uint32) (*PartitionKey, page.ItemPointer, []types.Datum, error) {
	var k *PartitionKey
	var at page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, PgPartitionedTable, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) != oid {
			return true, nil
		}
		k = &PartitionKey{Strategy: byte(v[1].Int()), DefaultOID: uint32(v[3].Int()), Attrs: v[4].Int2Vector()}
		if !v[5].IsNull() {
			for _, e := range v[5].Elems() {
				k.Exprs = append(k.Exprs, e.Str())
			}
		}
		at, vals = tid, append([]types.Datum(nil), v...)
		return false, nil
	})
	return k, at, vals, err
}

// SetDefaultPartition records def (0: none) as the default partition of
// partitioned table oid.
func (c *Catalog) SetDefaultPartition(tx *Txn, oid, def uint32) error {
	k, at, vals, err := c.partitionKeyRow(tx, oid)
	if err != nil || k == nil {
		return err
	}
	vals[3] = ov(def)
	tx.Dirty = true
	if _, _, err := c.updateRow(tx, PgPartitionedTable, at, vals); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// SetPartitionBound makes table oid a partition with bound (as
// pg_get_expr prints it), or, with bound "", no partition any more.
func (c *Catalog) SetPartitionBound(tx *Txn, oid uint32, bound string) error {
	d := types.Null()
	if bound != "" {
		d = types.Str(bound)
	}
	return c.updateClassRow(tx, oid, map[int]types.Datum{
		PgClass.ColumnIndex("relispartition"): bv(bound != ""),
		PgClass.ColumnIndex("relpartbound"):   d,
	})
}

// SetPartitionedIndex marks index oid a partitioned index (relkind 'I').
func (c *Catalog) SetPartitionedIndex(tx *Txn, oid uint32) error {
	return c.updateClassRow(tx, oid, map[int]types.Datum{cRelkind: cv(KindPartitionedIndex)})
}

// dropPartitionKey removes table oid's pg_partitioned_table row.
func (c *Catalog) dropPartitionKey(tx *Txn, oid uint32) error {
	k, at, _, err := c.partitionKeyRow(tx, oid)
	if err != nil || k == nil {
		return err
	}
	return c.delete(tx, PgPartitionedTable, at)
}

// loadPartitioning fills r's partitioning fields from its pg_class row v
// and, for a partitioned table, pg_partitioned_table.
func (c *Catalog) loadPartitioning(tx *Txn, r *Relation, v []types.Datum) error {
	if b := v[PgClass.ColumnIndex("relpartbound")]; v[PgClass.ColumnIndex("relispartition")].Bool() && !b.IsNull() {
		r.PartBound = b.Str()
	}
	if r.Kind != KindPartitioned {
		return nil
	}
	r.Kind = KindTable
	k, _, _, err := c.partitionKeyRow(tx, r.OID)
	if err != nil {
		return err
	}
	if k == nil {
		k = &PartitionKey{Strategy: 'r'}
	}
	r.PartKey = k
	return nil
}

// IsPartitioned: r is a partitioned table.
func (r *Relation) IsPartitioned() bool { return r.PartKey != nil }

// IsPartition: r is a partition of a partitioned table.
func (r *Relation) IsPartition() bool { return r.PartBound != "" }
