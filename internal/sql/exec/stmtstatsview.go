package exec

import (
	"strconv"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stmtstats"
)

// pg_stat_statements and pg_stat_statements_info (PostgreSQL 15's
// columns; pg_stat_statements' module is built in), over the engine's
// stmtstats.Store.

func init() {
	systemViews["pg_stat_statements"] = &systemView{cols: colSpec(
		"userid", types.Oid, "dbid", types.Oid, "toplevel", types.Boolean, "queryid", types.Int8, "query", types.Text,
		"plans", types.Int8, "total_plan_time", types.Float8, "min_plan_time", types.Float8, "max_plan_time", types.Float8,
		"mean_plan_time", types.Float8, "stddev_plan_time", types.Float8,
		"calls", types.Int8, "total_exec_time", types.Float8, "min_exec_time", types.Float8, "max_exec_time", types.Float8,
		"mean_exec_time", types.Float8, "stddev_exec_time", types.Float8, "rows", types.Int8,
		"shared_blks_hit", types.Int8, "shared_blks_read", types.Int8, "shared_blks_dirtied", types.Int8, "shared_blks_written", types.Int8,
		"local_blks_hit", types.Int8, "local_blks_read", types.Int8, "local_blks_dirtied", types.Int8, "local_blks_written", types.Int8,
		"temp_blks_read", types.Int8, "temp_blks_written", types.Int8, "blk_read_time", types.Float8, "blk_write_time", types.Float8,
		"temp_blk_read_time", types.Float8, "temp_blk_write_time", types.Float8,
		"wal_records", types.Int8, "wal_fpi", types.Int8, "wal_bytes", types.Numeric,
		"jit_functions", types.Int8, "jit_generation_time", types.Float8, "jit_inlining_count", types.Int8,
		"jit_inlining_time", types.Float8, "jit_optimization_count", types.Int8, "jit_optimization_time", types.Float8,
		"jit_emission_count", types.Int8, "jit_emission_time", types.Float8), rows: stmtStatsRows}
	systemViews["pg_stat_statements_info"] = &systemView{cols: colSpec("dealloc", types.Int8, "stats_reset", types.Timestamptz),
		rows: func(c *Ctx) ([]Row, error) {
			dealloc, reset := c.Eng.StmtStats.Info()
			return []Row{{types.Int(dealloc), ts(reset)}}, nil
		}}
}

func stmtStatsRows(c *Ctx) ([]Row, error) {
	canSee, err := statsVisibility(c)
	if err != nil {
		return nil, err
	}
	entries := c.Eng.StmtStats.Snapshot()
	out := make([]Row, 0, len(entries))
	for _, e := range entries {
		out = append(out, stmtStatsRow(e, canSee(e.UserID)))
	}
	return out, nil
}

func stmtStatsRow(e stmtstats.Entry, visible bool) Row {
	f, i := types.Float, func(n int64) types.Datum { return types.Int(n) }
	queryID, query := types.Int(e.QueryID), types.Str(e.Query)
	if !visible {
		// As pg_stat_statements shows another role's statements to those
		// without pg_read_all_stats.
		queryID, query = types.Null(), types.Str("<insufficient privilege>")
	}
	walBytes, _ := types.ParseNumeric(strconv.FormatInt(e.WAL.Bytes, 10))
	b := e.Buf
	return Row{types.Int(int64(e.UserID)), types.Int(int64(e.DBID)), types.Bool(e.TopLevel), queryID, query,
		// track_planning is off: no planning figures.
		i(0), f(0), f(0), f(0), f(0), f(0),
		i(e.Calls), f(e.TotalExec), f(e.MinExec), f(e.MaxExec), f(e.MeanExec), f(e.StddevExec()), i(e.Rows),
		i(b.SharedHit), i(b.SharedRead), i(b.SharedDirtied), i(b.SharedWritten), i(0), i(0), i(0), i(0),
		i(b.TempRead), i(b.TempWritten), f(ms(b.ReadTime)), f(ms(b.WriteTime)), f(0), f(0),
		i(e.WAL.Records), i(e.WAL.FPI), walBytes,
		i(0), f(0), i(0), f(0), i(0), f(0), i(0), f(0)}
}

// resetStmtStats is pg_stat_statements_reset(userid, dbid, queryid).
func resetStmtStats(c *Ctx, args []types.Datum) error {
	if c.Setting != nil && c.Setting("is_superuser") != "on" {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for function pg_stat_statements_reset")
	}
	var user, db uint32
	var id int64
	for k, a := range args {
		if a.IsNull() {
			continue
		}
		switch k {
		case 0:
			user = uint32(a.Int())
		case 1:
			db = uint32(a.Int())
		case 2:
			id = a.Int()
		}
	}
	c.Eng.StmtStats.Reset(user, db, id)
	return nil
}
