package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// isKeyColumn reports whether column i (0-based) of rel is a key column of
// a unique index — one a foreign key can reference (PostgreSQL's
// INDEX_ATTR_BITMAP_KEY: tidal's indexes have neither expressions nor
// predicates). An UPDATE that changes such a column takes the FOR UPDATE
// row-lock strength; others take FOR NO KEY UPDATE.
func isKeyColumn(rel *catalog.Relation, i int) bool {
	for _, ir := range rel.Indexes {
		if !ir.Index.Unique {
			continue
		}
		for _, k := range ir.Index.Keys {
			if int(k-1) == i {
				return true
			}
		}
	}
	return false
}

// keysChanged reports whether an update from old to row changes a key
// column's value (HeapDetermineColumnsInfo on the key attributes).
func keysChanged(rel *catalog.Relation, old, row Row) bool {
	for i := range rel.Attrs {
		if !isKeyColumn(rel, i) {
			continue
		}
		a, b := old[i], row[i]
		if a.IsNull() != b.IsNull() || (!a.IsNull() && !types.Equal(rel.Attrs[i].Type, a, b)) {
			return true
		}
	}
	return false
}

// conflictLockMode is the row-lock strength ON CONFLICT DO UPDATE locks
// the conflicting row in: FOR UPDATE when its SET assigns a key column
// (ExecUpdateLockMode), else FOR NO KEY UPDATE.
func (m *ModifyTable) conflictLockMode() tableam.LockMode {
	for i, e := range m.Conflict.Set {
		if v, ok := e.(*expr.Var); ok && v.Index == i {
			continue // not assigned
		}
		if isKeyColumn(m.Rel, i) {
			return tableam.LockExclusive
		}
	}
	return tableam.LockNoKeyExclusive
}
