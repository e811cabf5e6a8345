package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Support for ALTER TABLE: evaluating a new column's default, and
// rewriting a table into a new file.

// ColumnDefault compiles column a's default expression (a NULL constant
// when it has none), coerced to the column's type.
func (p *Planner) ColumnDefault(a catalog.Attr) (expr.Expr, error) {
	return p.defaultExpr(a)
}

// IsVolatile reports whether e may give a different value each time it is
// evaluated (random(), clock_timestamp(), a subquery…), so that a column
// added with it as default needs a value per existing row.
func IsVolatile(e expr.Expr) bool {
	volatile := false
	complete := expr.Walk(e, func(x expr.Expr) bool {
		if f, ok := x.(*expr.Func); ok && f.Fn != nil && f.Fn.Volatile {
			volatile = true
		}
		return !volatile
	})
	return volatile || !complete
}

// CompileOnRow compiles n over the columns of rel's rows (ALTER COLUMN …
// USING).
func (p *Planner) CompileOnRow(rel *catalog.Relation, n *pg.Node) (expr.Expr, error) {
	sc := &scope{}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(rel.Name, a, a.Name, i))
	}
	return p.compiler(sc).Compile(n)
}

// RewriteTable copies every row of oldRel visible to the transaction into
// newRel — the same table after its pg_class row got a new, empty file —
// through transform, maintaining newRel's (empty, already built) indexes.
// The old file is removed when the transaction commits.
func RewriteTable(c *Ctx, oldRel, newRel *catalog.Relation, transform func(Row) (Row, error)) error {
	all := make([]int, len(newRel.Attrs))
	for i := range all {
		all[i] = i
	}
	ins, err := NewCopyInserter(c, newRel, all)
	if err != nil {
		return err
	}
	scan := &SeqScan{Rel: oldRel}
	return Run(c, scan, func(r Row) error {
		nr, err := transform(r)
		if err != nil {
			return err
		}
		return ins.Insert(c, []Row{nr})
	})
}

// CoerceForColumn converts e to a column's type by assignment cast, as
// an INSERT would.
func CoerceForColumn(e expr.Expr, t types.Type) (expr.Expr, error) {
	return assignCoerce(e, t)
}
