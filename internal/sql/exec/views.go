package exec

import (
	"time"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// A system view is computed from in-memory state rather than stored:
// pg_stat_progress_vacuum, pg_stat_user_tables.
type systemView struct {
	cols []Column
	rows func(c *Ctx) ([]Row, error)
}

func col(name string, t types.Type) Column { return Column{Name: name, Type: t} }

var systemViews = map[string]*systemView{
	"pg_stat_progress_vacuum": {
		cols: []Column{col("pid", types.Int4), col("datid", types.Oid), col("datname", types.Name), col("relid", types.Oid),
			col("phase", types.Text), col("heap_blks_total", types.Int8), col("heap_blks_scanned", types.Int8),
			col("heap_blks_vacuumed", types.Int8), col("index_vacuum_count", types.Int8), col("max_dead_tuple_bytes", types.Int8),
			col("dead_tuple_bytes", types.Int8), col("num_dead_item_ids", types.Int8), col("indexes_total", types.Int8),
			col("indexes_processed", types.Int8), col("parallel_workers_planned", types.Int8), col("parallel_workers_launched", types.Int8)},
		rows: func(c *Ctx) ([]Row, error) {
			var out []Row
			for _, p := range c.Eng.Vacuums.Running() {
				r := p.Snapshot() // one consistent row, as pg_stat_get_progress_info
				out = append(out, Row{types.Int(int64(p.PID)), types.Int(catalog.DatabaseOID), types.Str("postgres"), types.Int(int64(p.RelID)),
					types.Str(r.Phase), types.Int(r.HeapBlksTotal), types.Int(r.HeapBlksScanned),
					types.Int(r.HeapBlksVacuumed), types.Int(r.IndexVacuumCount), types.Int(r.MaxDeadTupleBytes),
					types.Int(r.DeadTupleBytes), types.Int(r.NumDeadItemIDs), types.Int(r.IndexesTotal),
					types.Int(r.IndexesProcessed), types.Int(r.WorkersPlanned), types.Int(r.WorkersLaunched)})
			}
			return out, nil
		},
	},
	"pg_stat_user_tables": {
		cols: []Column{col("relid", types.Oid), col("schemaname", types.Name), col("relname", types.Name),
			col("seq_scan", types.Int8), col("seq_tup_read", types.Int8), col("idx_scan", types.Int8), col("idx_tup_fetch", types.Int8),
			col("n_tup_ins", types.Int8), col("n_tup_upd", types.Int8), col("n_tup_del", types.Int8), col("n_tup_hot_upd", types.Int8),
			col("n_live_tup", types.Int8), col("n_dead_tup", types.Int8), col("n_mod_since_analyze", types.Int8),
			col("n_ins_since_vacuum", types.Int8), col("last_vacuum", types.Timestamptz), col("last_autovacuum", types.Timestamptz), col("last_analyze", types.Timestamptz),
			col("last_autoanalyze", types.Timestamptz), col("vacuum_count", types.Int8), col("autovacuum_count", types.Int8),
			col("analyze_count", types.Int8), col("autoanalyze_count", types.Int8),
			// tidal's: after every PostgreSQL 15 column (see inplacestats.go)
			col("n_tup_inplace_upd", types.Int8)},
		rows: func(c *Ctx) ([]Row, error) {
			tables, err := c.Eng.Catalog.UserTables(c.Tx)
			if err != nil {
				return nil, err
			}
			snap := c.Eng.Stats.Snapshot()
			ts := func(t time.Time) types.Datum {
				if t.IsZero() {
					return types.Null()
				}
				return types.TimestampMicros(types.TimestampFromTime(t.UTC()))
			}
			var out []Row
			for _, r := range tables {
				s := snap[r.OID]
				nsp := nspName(c.Eng.Catalog, r.Namespace)
				out = append(out, Row{types.Int(int64(r.OID)), types.Str(nsp), types.Str(r.Name),
					types.Int(s.SeqScan), types.Int(s.SeqTupRead), types.Int(s.IdxScan), types.Int(s.IdxTupFetch),
					types.Int(s.TupIns), types.Int(s.TupUpd), types.Int(s.TupDel), types.Int(s.TupHotUpd),
					types.Int(s.LiveTup), types.Int(s.DeadTup), types.Int(s.ModSinceAnalyze),
					types.Int(s.InsSinceVacuum), ts(s.LastVacuum), ts(s.LastAutovacuum), ts(s.LastAnalyze), ts(s.LastAutoanalyze),
					types.Int(s.VacuumCount), types.Int(s.AutovacuumCount), types.Int(s.AnalyzeCount), types.Int(s.AutoanalyzeCount),
					types.Int(s.TupInplaceUpd)})
			}
			return out, nil
		},
	},
	"tidal_stat_undo": undoStatView,
}

// ViewScan produces a system view's rows.
type ViewScan struct {
	nodeBase
	Name  string
	Alias string
	view  *systemView
	Qual  expr.Expr
	rows  []Row
	i     int
}

func (v *ViewScan) Columns() []Column { return v.view.cols }
func (v *ViewScan) Open(c *Ctx) error {
	var err error
	v.rows, err = v.view.rows(c)
	v.i = 0
	return err
}
func (v *ViewScan) Next(c *Ctx) (Row, error) {
	for v.i < len(v.rows) {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		r := v.rows[v.i]
		v.i++
		if v.Qual != nil {
			ok, err := expr.IsTrue(c.Env, v.Qual, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				v.instr.Filtered++
				continue
			}
		}
		return r, nil
	}
	return nil, nil
}
func (v *ViewScan) Close(c *Ctx) {}
