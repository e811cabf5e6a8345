package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// refuseUnsupportedSelect rejects SELECT clauses the planner does not
// implement. Each would otherwise be dropped silently and the query
// would return a wrong answer instead of an error.
func refuseUnsupportedSelect(s *pg.SelectStmt) error {
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "FETCH ... WITH TIES is not supported")
	}
	for _, d := range s.DistinctClause {
		// plain DISTINCT is a list holding one empty node
		if d != nil && d.Node != nil {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "SELECT DISTINCT ON is not supported")
		}
	}
	if s.IntoClause != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "SELECT INTO is not supported yet")
	}
	return nil
}
