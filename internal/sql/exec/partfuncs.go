package exec

import (
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"strconv"
)

// The partitioning functions of PostgreSQL's partitionfuncs.c:
// pg_partition_ancestors(rel) (the relation, then its ancestors up to the
// root) and pg_partition_tree(rel) (rel and every partition under it,
// breadth first: relid, parentrelid, isleaf, level). Both give no rows
// for a relation that is neither partitioned nor a partition. Their relid
// columns are OIDs (tidal has no regclass type).

func init() {
	// Each takes a regclass: an OID, or a name as text (tidal has no
	// regclass input type for an unknown literal).
	for _, arg := range []types.Type{types.Oid, types.Text} {
		types.RegisterSRF(&types.SRF{Name: "pg_partition_ancestors", Args: []types.Type{arg},
			Cols: []types.SRFColumn{{Name: "relid", Type: types.Oid}}, FnRowsCtx: partitionAncestorsRows})
		types.RegisterSRF(&types.SRF{Name: "pg_partition_tree", Args: []types.Type{arg},
			Cols: []types.SRFColumn{{Name: "relid", Type: types.Oid}, {Name: "parentrelid", Type: types.Oid},
				{Name: "isleaf", Type: types.Boolean}, {Name: "level", Type: types.Int4}}, FnRowsCtx: partitionTreeRows})
	}
}

func execCtx(ctx any) (*Ctx, error) {
	c, ok := ctx.(*Ctx)
	if !ok || c == nil {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "catalog functions are not available here")
	}
	return c, nil
}

func rowsIter(rows [][]types.Datum) func() ([]types.Datum, bool, error) {
	i := 0
	return func() ([]types.Datum, bool, error) {
		if i >= len(rows) {
			return nil, false, nil
		}
		i++
		return rows[i-1], true, nil
	}
}

// partitioningRel opens rel for the partition functions: nil when it
// does not exist or takes no part in partitioning.
func partitioningRel(c *Ctx, d types.Datum) (*catalog.Relation, error) {
	if d.IsNull() {
		return nil, nil
	}
	oid := uint32(0)
	if n, err := strconv.ParseUint(d.Str(), 10, 32); d.Kind() == datum.KindStr && err == nil {
		oid = uint32(n) // an OID written as a literal ('16384')
	} else if d.Kind() == datum.KindStr {
		schema, name := splitQualified(d.Str())
		r, err := c.Eng.Catalog.Lookup(c.Tx, schema, name)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", d.Str())
		}
		oid = r.OID
	} else {
		oid = uint32(d.Int())
	}
	rel, err := c.Eng.Catalog.ByOID(c.Tx, oid)
	if err != nil || rel == nil || (!rel.IsPartitioned() && !rel.IsPartition()) {
		return nil, err
	}
	return rel, nil
}

func partitionAncestorsRows(ctx any, args []types.Datum) (func() ([]types.Datum, bool, error), error) {
	c, err := execCtx(ctx)
	if err != nil {
		return nil, err
	}
	rel, err := partitioningRel(c, args[0])
	if err != nil || rel == nil {
		return rowsIter(nil), err
	}
	rows := [][]types.Datum{{types.Int(int64(rel.OID))}}
	for rel.IsPartition() && len(rel.Parents) == 1 {
		if rel, err = c.Eng.Catalog.ByOID(c.Tx, rel.Parents[0]); err != nil || rel == nil {
			return nil, err
		}
		rows = append(rows, []types.Datum{types.Int(int64(rel.OID))})
	}
	return rowsIter(rows), nil
}

func partitionTreeRows(ctx any, args []types.Datum) (func() ([]types.Datum, bool, error), error) {
	c, err := execCtx(ctx)
	if err != nil {
		return nil, err
	}
	root, err := partitioningRel(c, args[0])
	if err != nil || root == nil {
		return rowsIter(nil), err
	}
	parentOf := func(r *catalog.Relation) types.Datum {
		if r.OID != root.OID && len(r.Parents) == 1 {
			return types.Int(int64(r.Parents[0]))
		}
		if r.IsPartition() && len(r.Parents) == 1 {
			return types.Int(int64(r.Parents[0]))
		}
		return types.Null()
	}
	type item struct {
		rel   *catalog.Relation
		level int
	}
	queue := []item{{root, 0}}
	var rows [][]types.Datum
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		rows = append(rows, []types.Datum{types.Int(int64(it.rel.OID)), parentOf(it.rel), types.Bool(!it.rel.IsPartitioned()), types.Int(int64(it.level))})
		if !it.rel.IsPartitioned() {
			continue
		}
		kids, err := c.Eng.Catalog.InheritChildren(c.Tx, it.rel.OID)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			kr, err := c.Eng.Catalog.ByOID(c.Tx, k)
			if err != nil {
				return nil, err
			}
			if kr != nil {
				queue = append(queue, item{kr, it.level + 1})
			}
		}
	}
	return rowsIter(rows), nil
}
