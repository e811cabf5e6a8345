package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// subscriptAssign compiles SET col[…] = value of UPDATE into newRow:
// jsonb columns only (types.JSONBSubscriptAssign). Several assignments
// to subscripts of one column apply in order, as in PostgreSQL; a plain
// assignment of the same column besides is refused. set marks columns
// assigned whole.
func (p *Planner) subscriptAssign(comp *expr.Compiler, rel *catalog.Relation, rt *pg.ResTarget, newRow []expr.Expr, set map[int]bool) error {
	i := rel.AttrByName(rt.Name)
	if i < 0 {
		e := pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, rel.Name)
		e.Position = rt.Location + 1
		return e
	}
	var subs []*pg.A_Indices
	for _, n := range rt.Indirection {
		ai := n.GetAIndices()
		if ai == nil {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "assignment to an element or field of a column is not supported yet")
		}
		subs = append(subs, ai)
	}
	t := rel.Attrs[i].Type
	if t.OID != types.JSONBOID {
		if _, isArr := types.ElemType(t); isArr {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "assignment to an element or field of a column is not supported yet")
		}
		return pgerr.Errorf(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", t)
	}
	if set[i] {
		return pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name)
	}
	path, intFirst, err := comp.JSONBSubscriptPath(subs)
	if err != nil {
		return err
	}
	val, err := comp.Compile(rt.Val)
	if err != nil {
		return err
	}
	if val, err = assignCoerce(val, t); err != nil {
		return err
	}
	e, err := comp.BuiltinCall(types.JSONBSubscriptAssign, []expr.Expr{newRow[i], path, val,
		&expr.Const{Val: types.Bool(intFirst), T: types.Boolean, Loc: -1}}, -1)
	if err != nil {
		return err
	}
	newRow[i] = e
	return nil
}
