package exec

import (
	"github.com/tidal-db/tidal/internal/autovacuum"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// pg_stat_autovacuum_scores is PostgreSQL 19's view of every table's
// autovacuum scores (each component, the score that orders the work list,
// and whether autovacuum would vacuum or analyze it now), with tidal's
// cumulative parallel-worker counts beside them: how many parallel index
// vacuum workers autovacuum planned for the table and how many the
// max_parallel_workers pool let it launch.
func init() {
	systemViews["pg_stat_autovacuum_scores"] = &systemView{
		cols: []Column{col("relid", types.Oid), col("schemaname", types.Name), col("relname", types.Name),
			col("score", types.Float8), col("xid_score", types.Float8), col("mxid_score", types.Float8),
			col("vacuum_score", types.Float8), col("vacuum_insert_score", types.Float8), col("analyze_score", types.Float8),
			col("do_vacuum", types.Boolean), col("do_analyze", types.Boolean), col("for_wraparound", types.Boolean),
			col("parallel_workers_planned", types.Int8), col("parallel_workers_launched", types.Int8)},
		rows: func(c *Ctx) ([]Row, error) {
			all, err := autovacuum.Evaluated(c.Eng.Catalog, c.Tx, c.Eng.Stats, autovacuum.ReadSettings(c.Setting))
			if err != nil {
				return nil, err
			}
			out := make([]Row, 0, len(all))
			for _, t := range all {
				st := c.Eng.Stats.Get(t.Rel.OID)
				out = append(out, Row{types.Int(int64(t.Rel.OID)), types.Str(t.Schema), types.Str(t.Rel.Name),
					types.Float(t.Score), types.Float(t.XID), types.Float(t.MXID),
					types.Float(t.Vac), types.Float(t.VacIns), types.Float(t.Anl),
					types.Bool(t.DoVacuum), types.Bool(t.DoAnalyze), types.Bool(t.Wraparound),
					types.Int(st.ParallelPlanned), types.Int(st.ParallelLaunched)})
			}
			return out, nil
		},
	}
}
