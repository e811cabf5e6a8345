package catalog

import "github.com/tidal-db/tidal/internal/pgerr"

// SystemColumnNames are the names of the system columns every table has
// (attnums -1 … -6, as in PostgreSQL); no user column may take one.
var SystemColumnNames = []string{"ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"}

// checkColumnName refuses a column name that is a system column's.
func checkColumnName(name string) error {
	for _, n := range SystemColumnNames {
		if n == name {
			return pgerr.Errorf(pgerr.DuplicateColumn, "column name \"%s\" conflicts with a system column name", name)
		}
	}
	return nil
}
