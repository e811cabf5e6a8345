package exec

import "github.com/tidal-db/tidal/internal/sql/types"

// srfColumns names the columns of a multi-column set-returning function
// in FROM: the function's own names, overridden by the alias's column
// list (jsonb_each(j) AS e(k, v)).
func srfColumns(srf *types.SRF, alias string, colAliases []string) ([]scopeCol, []string) {
	var cols []scopeCol
	var names []string
	for i, c := range srf.Cols {
		name := c.Name
		if i < len(colAliases) {
			name = colAliases[i]
		}
		names = append(names, name)
		cols = append(cols, scopeCol{rel: alias, name: name, t: c.Type, index: i})
	}
	return cols, names
}
