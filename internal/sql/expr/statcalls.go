package expr

import "github.com/tidal-db/tidal/internal/sql/types"

// The statistics functions (exec/statfuncs.go).
func init() {
	int4Array, _ := types.ArrayOf(types.Int4)
	for name, spec := range map[string]struct {
		args []types.Type
		ret  types.Type
	}{
		"pg_blocking_pids":                    {[]types.Type{types.Int4}, int4Array},
		"pg_stat_reset":                       {nil, types.Void},
		"pg_stat_reset_single_table_counters": {[]types.Type{types.Oid}, types.Void},
		"pg_stat_force_next_flush":            {nil, types.Void},
		"pg_stat_clear_snapshot":              {nil, types.Void},
	} {
		e := catalogCalls[name]
		e.args, e.min, e.ret = spec.args, len(spec.args), spec.ret
		catalogCalls[name] = e
	}
	// pg_stat_statements_reset(userid oid DEFAULT 0, dbid oid DEFAULT 0,
	// queryid bigint DEFAULT 0).
	e := catalogCalls["pg_stat_statements_reset"]
	e.args, e.min, e.ret = []types.Type{types.Oid, types.Oid, types.Int8}, 0, types.Void
	catalogCalls["pg_stat_statements_reset"] = e
}
