package exec

import (
	"time"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// pg_stat_bgwriter (PostgreSQL 15's columns, which include PostgreSQL
// 17's) and PostgreSQL 17's pg_stat_checkpointer, from the engine's
// checkpointer and buffer pool counters. buffers_backend_fsync is 0: tidal
// backends never fsync relation files themselves. There are no standby
// restartpoints.
func init() {
	systemViews["pg_stat_bgwriter"] = &systemView{
		cols: []Column{col("checkpoints_timed", types.Int8), col("checkpoints_req", types.Int8),
			col("checkpoint_write_time", types.Float8), col("checkpoint_sync_time", types.Float8),
			col("buffers_checkpoint", types.Int8), col("buffers_clean", types.Int8), col("maxwritten_clean", types.Int8),
			col("buffers_backend", types.Int8), col("buffers_backend_fsync", types.Int8), col("buffers_alloc", types.Int8),
			col("stats_reset", types.Timestamptz)},
		rows: func(c *Ctx) ([]Row, error) {
			s := c.Eng.CheckpointerStats()
			b := s.Buffers
			return []Row{{types.Int(s.Timed), types.Int(s.Requested), types.Float(s.WriteTimeMs), types.Float(s.SyncTime),
				types.Int(b.BuffersCheckpoint), types.Int(b.BuffersClean), types.Int(b.MaxWrittenClean),
				types.Int(b.BuffersBackend), types.Int(0), types.Int(b.BuffersAlloc), statsReset(s.ResetAt, c)}}, nil
		},
	}
	systemViews["pg_stat_checkpointer"] = &systemView{
		cols: []Column{col("num_timed", types.Int8), col("num_requested", types.Int8),
			col("restartpoints_timed", types.Int8), col("restartpoints_req", types.Int8), col("restartpoints_done", types.Int8),
			col("write_time", types.Float8), col("sync_time", types.Float8), col("buffers_written", types.Int8),
			col("stats_reset", types.Timestamptz)},
		rows: func(c *Ctx) ([]Row, error) {
			s := c.Eng.CheckpointerStats()
			return []Row{{types.Int(s.Timed), types.Int(s.Requested), types.Int(0), types.Int(0), types.Int(0),
				types.Float(s.WriteTimeMs), types.Float(s.SyncTime), types.Int(s.Buffers.BuffersCheckpoint),
				statsReset(s.ResetAt, c)}}, nil
		},
	}
}

// statsReset is the reset time, or the server start when never reset (as
// PostgreSQL, whose shared stats start out reset at initdb/startup).
func statsReset(at time.Time, c *Ctx) types.Datum {
	if at.IsZero() {
		at = c.Eng.StartedAt
	}
	return types.TimestampMicros(types.TimestampFromTime(at.UTC()))
}
