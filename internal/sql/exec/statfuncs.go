package exec

import (
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// statCall answers the statistics functions: pg_blocking_pids and the
// pg_stat_reset family. pg_stat_force_next_flush and
// pg_stat_clear_snapshot have nothing to do: tidal publishes counters as
// they change and reads them live, with no pending or cached snapshot.
func (f *catalogFuncs) statCall(name string, args []types.Datum) (types.Datum, error) {
	switch name {
	case "pg_blocking_pids":
		if args[0].IsNull() {
			return types.Null(), nil
		}
		var out []types.Datum
		for _, pid := range f.c.Eng.Xact.BlockingPIDs(int32(args[0].Int())) {
			out = append(out, types.Int(int64(pid)))
		}
		return types.Array(out), nil
	case "pg_stat_reset", "pg_stat_reset_single_table_counters":
		// PostgreSQL grants EXECUTE on them to no one but superusers.
		if f.c.Setting != nil && f.c.Setting("is_superuser") != "on" {
			return types.Null(), pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for function %s", name)
		}
		if name == "pg_stat_reset" {
			f.c.Eng.Stats.Reset(time.Now())
		} else if !args[0].IsNull() {
			f.c.Eng.Stats.ResetRelation(uint32(args[0].Int()), time.Now())
		}
		return voidValue, nil
	}
	return voidValue, nil
}
