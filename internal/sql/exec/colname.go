package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// figureColname is PostgreSQL's FigureColnameInternal: the column name a
// select-list expression gets without AS, and how strong the choice is
// (2: a real name, such as a column's or a function's; 1: a fallback, such
// as a cast's type name or "case", which a stronger inner name beats;
// 0: none, "?column?").
func figureColname(n *pg.Node) (string, int) {
	switch {
	case n == nil:
		return "", 0
	case n.GetColumnRef() != nil:
		cr := n.GetColumnRef()
		if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		return fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval(), 2
	case n.GetGroupingFunc() != nil:
		return "grouping", 2
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if name, strength := figureColname(tc.Arg); strength > 1 {
			return name, strength
		}
		if tc.TypeName != nil && len(tc.TypeName.Names) > 0 {
			return tc.TypeName.Names[len(tc.TypeName.Names)-1].GetString_().GetSval(), 1
		}
	case n.GetCollateClause() != nil:
		return figureColname(n.GetCollateClause().Arg)
	case n.GetAIndirection() != nil:
		ind := n.GetAIndirection().Indirection
		for i := len(ind) - 1; i >= 0; i-- {
			if s := ind[i].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
		return figureColname(n.GetAIndirection().Arg)
	case n.GetCaseExpr() != nil:
		if name, strength := figureColname(n.GetCaseExpr().Defresult); strength > 1 {
			return name, strength
		}
		return "case", 1
	case n.GetAExpr() != nil:
		if n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case n.GetRowExpr() != nil:
		return "row", 2
	case n.GetCoalesceExpr() != nil:
		return "coalesce", 2
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case n.GetSqlvalueFunction() != nil:
		name := strings.ToLower(strings.TrimPrefix(n.GetSqlvalueFunction().Op.String(), "SVFOP_"))
		return strings.TrimSuffix(name, "_n"), 2
	}
	if name := subLinkName(n); name != "" {
		return name, 2
	}
	return "", 0
}
