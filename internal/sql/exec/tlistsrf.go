package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// srfOnlySelect rewrites SELECT srf(args) [AS name] — a lone
// set-returning function in the target list of a query without FROM,
// WHERE or grouping — to SELECT * FROM srf(args) AS name, which returns
// the same rows under the same column name. (General target-list SRFs are
// not supported.) It returns nil when s has another shape.
func srfOnlySelect(s *pg.SelectStmt, userSRF func(*pg.FuncCall) bool) *pg.SelectStmt {
	if len(s.FromClause) > 0 || s.WhereClause != nil || len(s.GroupClause) > 0 || s.HavingClause != nil ||
		len(s.TargetList) != 1 || len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || len(s.DistinctClause) > 0 {
		return nil
	}
	rt := s.TargetList[0].GetResTarget()
	fc := rt.GetVal().GetFuncCall()
	if fc == nil || len(fc.Funcname) == 0 || fc.AggStar || fc.Over != nil {
		return nil
	}
	name := fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
	if !types.IsSRF(name) && !userSRF(fc) {
		return nil
	}
	alias := name
	if rt.Name != "" {
		alias = rt.Name
	}
	star := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}}}}
	call := &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{rt.Val, nil}}}}
	rf := &pg.RangeFunction{Functions: []*pg.Node{call}, Alias: &pg.Alias{Aliasname: alias}}
	return &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: star}}}},
		FromClause: []*pg.Node{{Node: &pg.Node_RangeFunction{RangeFunction: rf}}},
	}
}

// noUserSRF is srfOnlySelect's predicate where user routines are not
// looked at (a builtin set-returning function only).
func noUserSRF(*pg.FuncCall) bool { return false }
