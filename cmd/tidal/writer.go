package main

import (
	"strconv"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
)

// writerConfig reads the checkpointer's and background writer's settings,
// which guc has range-checked.
func writerConfig(get func(string) string) engine.WriterConfig {
	w := engine.DefaultWriterConfig()
	atoi := func(name string) int { n, _ := strconv.Atoi(get(name)); return n }
	real := func(name string) float64 { f, _ := strconv.ParseFloat(get(name), 64); return f }
	w.CheckpointCompletionTarget = real("checkpoint_completion_target")
	w.BgWriterLRUMultiplier = real("bgwriter_lru_multiplier")
	w.CheckpointFlushAfter = atoi("checkpoint_flush_after")
	w.MaxWALSize = int64(atoi("max_wal_size")) << 20
	w.BgWriterDelay = time.Duration(atoi("bgwriter_delay")) * time.Millisecond
	w.BgWriterLRUMaxPages = atoi("bgwriter_lru_maxpages")
	w.BgWriterFlushAfter = atoi("bgwriter_flush_after")
	return w
}
