package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

var textArray, _ = types.ArrayOf(types.Text)

// JSONBSubscriptPath compiles the subscripts of a jsonb value into the
// text[] path of types.JSONBSubscriptFetch/Assign; intFirst reports
// whether the first subscript is an integer (an assignment to a NULL
// document then starts from an empty array).
func (c *Compiler) JSONBSubscriptPath(subs []*pg.A_Indices) (path Expr, intFirst bool, err error) {
	var elems []Expr
	for i, ai := range subs {
		if ai.IsSlice {
			loc := ai.Uidx
			if loc == nil {
				loc = ai.Lidx
			}
			return nil, false, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "jsonb subscript does not support slices"), nodeLocation(loc))
		}
		e, err := c.Compile(ai.Uidx)
		if err != nil {
			return nil, false, err
		}
		t := e.Type()
		switch {
		case t.OID == types.UnknownOID || t.OID == types.TextOID:
		case types.CanCast(t, types.Int4, types.CastImplicit):
			if e, err = Coerce(e, types.Int4, types.CastImplicit); err != nil {
				return nil, false, err
			}
			intFirst = intFirst || i == 0
		case types.CanCast(t, types.Text, types.CastImplicit):
		default:
			return nil, false, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "subscript type %s is not supported", t).
				WithHint("jsonb subscript must be coercible to either integer or text."), nodeLocation(ai.Uidx))
		}
		if e, err = Coerce(e, types.Text, types.CastExplicit); err != nil {
			return nil, false, err
		}
		elems = append(elems, e)
	}
	return &ArrayExpr{Elems: elems, T: textArray}, intFirst, nil
}

// jsonbSubscript compiles e[…][…] for a jsonb e.
func (c *Compiler) jsonbSubscript(e Expr, subs []*pg.A_Indices) (Expr, error) {
	path, _, err := c.JSONBSubscriptPath(subs)
	if err != nil {
		return nil, err
	}
	return c.BuiltinCall(types.JSONBSubscriptFetch, []Expr{e, path}, -1)
}

// nodeLocation is the parse position of a few expression kinds, -1 if
// unknown.
func nodeLocation(n *pg.Node) int32 {
	switch {
	case n == nil:
		return -1
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	case n.GetTypeCast() != nil:
		return n.GetTypeCast().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	}
	return -1
}
