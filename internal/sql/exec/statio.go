package exec

import (
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
)

// pg_stat_io (PostgreSQL 17's columns and rows) and tidal_stat_io_calls
// (tidal's count of the read and write system calls behind them: a
// combined read is one call for many blocks), from the engine's
// stats.IO.

// ioBackendTypes are the backend types tidal runs, in PostgreSQL's order.
var ioBackendTypes = []stats.BackendType{
	stats.ClientBackend, stats.AutovacuumLauncher, stats.AutovacuumWorker, stats.BackgroundWorker,
	stats.StandaloneBackend, stats.BackgroundWriter, stats.Checkpointer, stats.Startup,
}

// forEachIORow calls fn for each row PostgreSQL 17 shows.
func forEachIORow(io *stats.IO, fn func(r stats.IORow)) {
	for _, b := range ioBackendTypes {
		for o := stats.IOObject(0); o < stats.NumIOObjects; o++ {
			for c := stats.IOContext(0); c < stats.NumIOContexts; c++ {
				if stats.TracksObject(b, o, c) {
					fn(io.Snapshot(b, o, c))
				}
			}
		}
	}
}

func statsResetDatum(io *stats.IO) types.Datum {
	return types.TimestampMicros(types.TimestampFromTime(io.ResetTime().UTC()))
}

func init() {
	systemViews["pg_stat_io"] = &systemView{
		cols: []Column{col("backend_type", types.Text), col("object", types.Text), col("context", types.Text),
			col("reads", types.Int8), col("read_time", types.Float8), col("writes", types.Int8), col("write_time", types.Float8),
			col("writebacks", types.Int8), col("writeback_time", types.Float8), col("extends", types.Int8), col("extend_time", types.Float8),
			col("op_bytes", types.Int8), col("hits", types.Int8), col("evictions", types.Int8), col("reuses", types.Int8),
			col("fsyncs", types.Int8), col("fsync_time", types.Float8), col("stats_reset", types.Timestamptz)},
		rows: func(c *Ctx) ([]Row, error) {
			io := c.Eng.Pool.IO
			var out []Row
			forEachIORow(io, func(r stats.IORow) {
				count := func(op stats.IOOp) types.Datum {
					if !stats.TracksOp(r.Backend, r.Object, r.Context, op) {
						return types.Null()
					}
					return types.Int(r.Counts[op])
				}
				timeMs := func(op stats.IOOp) types.Datum {
					if !stats.TracksOp(r.Backend, r.Object, r.Context, op) {
						return types.Null()
					}
					return types.Float(float64(r.Times[op]) / float64(time.Millisecond))
				}
				out = append(out, Row{types.Str(r.Backend.String()), types.Str(r.Object.String()), types.Str(r.Context.String()),
					count(stats.OpRead), timeMs(stats.OpRead), count(stats.OpWrite), timeMs(stats.OpWrite),
					count(stats.OpWriteback), timeMs(stats.OpWriteback), count(stats.OpExtend), timeMs(stats.OpExtend),
					types.Int(8192), count(stats.OpHit), count(stats.OpEvict), count(stats.OpReuse),
					count(stats.OpFsync), timeMs(stats.OpFsync), statsResetDatum(io)})
			})
			return out, nil
		},
	}
	systemViews["tidal_stat_io_calls"] = &systemView{
		cols: []Column{col("backend_type", types.Text), col("object", types.Text), col("context", types.Text),
			col("read_calls", types.Int8), col("write_calls", types.Int8), col("stats_reset", types.Timestamptz)},
		rows: func(c *Ctx) ([]Row, error) {
			io := c.Eng.Pool.IO
			var out []Row
			forEachIORow(io, func(r stats.IORow) {
				out = append(out, Row{types.Str(r.Backend.String()), types.Str(r.Object.String()), types.Str(r.Context.String()),
					types.Int(r.Calls[stats.CallRead]), types.Int(r.Calls[stats.CallWrite]), statsResetDatum(io)})
			})
			return out, nil
		},
	}
}

// statResetShared is pg_stat_reset_shared(target): 'io' (or NULL, every
// target) zeroes pg_stat_io and tidal_stat_io_calls. PostgreSQL 17's other
// targets are accepted; tidal keeps no counters for them yet.
func statResetShared(c *Ctx, target types.Datum) error {
	if target.IsNull() {
		c.Eng.Pool.IO.Reset()
		return nil
	}
	switch strings.ToLower(target.Str()) {
	case "io":
		c.Eng.Pool.IO.Reset()
	case "archiver", "bgwriter", "checkpointer", "recovery_prefetch", "slru", "wal":
	default:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized reset target: \"%s\"", target.Str()).
			WithHint("Target must be \"archiver\", \"bgwriter\", \"checkpointer\", \"io\", \"recovery_prefetch\", \"slru\", or \"wal\".")
	}
	return nil
}
