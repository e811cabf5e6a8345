package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
)

// assignIndirection compiles UPDATE … SET col[…] = value over base, the
// column's value so far (the old row's, or an earlier SET of the same
// column's subscripts).
func (p *Planner) assignIndirection(comp *expr.Compiler, a catalog.Attr, rt *pg.ResTarget, base expr.Expr) (expr.Expr, error) {
	ai, err := comp.CompileAssignIndirection(a.Name, a.Type, rt.Indirection)
	if err != nil {
		return nil, atTarget(err, rt)
	}
	if rt.Val.GetSetToDefault() != nil {
		return nil, atTarget(pgerr.Errorf(pgerr.FeatureNotSupported, "DEFAULT in a subscripted assignment is not supported yet"), rt)
	}
	v, err := comp.Compile(rt.Val)
	if err != nil {
		return nil, err
	}
	e, err := ai.Apply(base, v)
	return e, atTarget(err, rt)
}

// atTarget places an error of an assignment target at its column.
func atTarget(err error, rt *pg.ResTarget) error {
	if pe, ok := err.(*pgerr.Error); ok && pe.Position == 0 {
		pe.Position = rt.Location + 1
	}
	return err
}
