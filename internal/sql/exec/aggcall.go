package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// planAggCall turns an aggregate call into an AggCall. Arguments, FILTER
// and the aggregate's own ORDER BY are compiled by comp, in the scope of
// the rows being aggregated. Every part of the call syntax is either
// honoured here or refused: an ignored clause would give a wrong answer.
func planAggCall(comp *expr.Compiler, name string, fc *pg.FuncCall) (*AggCall, error) {
	if err := windowCallInAggregate(fc); err != nil {
		return nil, err
	}
	call := &AggCall{Name: name, Distinct: fc.AggDistinct}
	argT := types.Type{}
	if !fc.AggStar {
		if len(fc.Args) == 0 && name == "count" {
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "count(*) must be used to call a parameterless aggregate function")
		}
		_, objectAgg := types.IsJSONAgg(name)
		if len(fc.Args) != 1 && !((name == "string_agg" || objectAgg) && len(fc.Args) == 2) || objectAgg && len(fc.Args) != 2 {
			return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(fc.Args))
		}
		if objectAgg {
			v, err := comp.Compile(fc.Args[1])
			if err != nil {
				return nil, err
			}
			if v.Type().OID == types.UnknownOID {
				v, _ = expr.Coerce(v, types.Text, types.CastImplicit)
			}
			call.Arg2 = v
		} else if len(fc.Args) == 2 {
			d, err := comp.Compile(fc.Args[1])
			if err != nil {
				return nil, err
			}
			if call.Arg2, err = expr.Coerce(d, types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		a, err := comp.Compile(fc.Args[0])
		if err != nil {
			return nil, err
		}
		if a.Type().OID == types.UnknownOID {
			a, _ = expr.Coerce(a, types.Text, types.CastImplicit)
		}
		call.Arg, argT = a, a.Type()
	} else if name != "count" {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name)
	}
	if fc.AggFilter != nil {
		f, err := comp.Compile(fc.AggFilter)
		if err != nil {
			return nil, err
		}
		if call.Filter, err = coerceBoolArg("FILTER", f); err != nil {
			return nil, err
		}
	}
	for _, o := range fc.AggOrder {
		by := o.GetSortBy()
		e, err := comp.Compile(by.Node)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == types.UnknownOID {
			e, _ = expr.Coerce(e, types.Text, types.CastImplicit)
		}
		k, err := sortKeyFor(by, e)
		if err != nil {
			return nil, err
		}
		if call.Distinct && !isAggArgument(call, e) {
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
		}
		call.OrderBy = append(call.OrderBy, k)
	}
	if onlyOuterReferences(call) {
		// PostgreSQL evaluates such an aggregate in the outer query,
		// over the outer rows; computing it here would be wrong.
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "aggregates whose arguments refer only to outer-query columns are not supported")
	}
	t, err := AggResultType(name, argT)
	if err != nil {
		return nil, err
	}
	call.T = t
	return call, nil
}

// isAggArgument: e is one of the aggregate's arguments (DISTINCT can only
// sort by those, as the duplicates it drops must be adjacent).
func isAggArgument(call *AggCall, e expr.Expr) bool {
	s := e.String()
	return (call.Arg != nil && call.Arg.String() == s) || (call.Arg2 != nil && call.Arg2.String() == s)
}

// sortKeyFor builds the sort key of one ORDER BY item over e.
func sortKeyFor(by *pg.SortBy, e expr.Expr) (SortKey, error) {
	k := SortKey{Expr: e}
	switch by.SortbyDir {
	case pg.SortByDir_SORTBY_DESC:
		k.Desc = true
	case pg.SortByDir_SORTBY_USING:
		op := ""
		if len(by.UseOp) == 1 {
			op = by.UseOp[0].GetString_().GetSval()
		}
		switch op {
		case "<":
		case ">":
			k.Desc = true
		default:
			return k, pgerr.Errorf(pgerr.FeatureNotSupported, "ORDER BY USING %s is not supported", op)
		}
	}
	k.NullsFirst = k.Desc
	switch by.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	}
	return k, nil
}

// onlyOuterReferences: the aggregate's arguments and FILTER mention
// columns, all of them of an enclosing query (which then owns it).
func onlyOuterReferences(call *AggCall) bool {
	local, outer := false, false
	for _, e := range []expr.Expr{call.Arg, call.Arg2, call.Filter} {
		expr.Walk(e, func(x expr.Expr) bool {
			switch x.(type) {
			case *expr.Var:
				local = true
			case *expr.OuterVar:
				outer = true
			}
			return true
		})
	}
	return outer && !local
}
