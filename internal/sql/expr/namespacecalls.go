package expr

import "github.com/tidal-db/tidal/internal/sql/types"

// The search path and comment functions read the catalog
// (exec/namespacefuncs.go).
func init() {
	for name, spec := range map[string]struct {
		args []types.Type
		min  int
		ret  types.Type
	}{
		"current_schema":    {nil, 0, types.Name},
		"pg_get_expr":       {[]types.Type{types.Text, types.Oid, types.Boolean}, 2, types.Text},
		"obj_description":   {[]types.Type{types.Oid, types.Name}, 1, types.Text},
		"col_description":   {[]types.Type{types.Oid, types.Int4}, 2, types.Text},
		"shobj_description": {[]types.Type{types.Oid, types.Name}, 2, types.Text},
	} {
		catalogCalls[name] = struct {
			args []types.Type
			min  int
			ret  types.Type
		}{spec.args, spec.min, spec.ret}
	}
}
