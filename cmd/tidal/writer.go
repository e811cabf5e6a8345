package main

import (
	"strconv"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// writerConfig reads the checkpointer's and background writer's settings.
// Integer ones were range-checked by guc; the two real ones are checked
// here with PostgreSQL's ranges.
func writerConfig(get func(string) string) (engine.WriterConfig, error) {
	w := engine.DefaultWriterConfig()
	atoi := func(name string) int { n, _ := strconv.Atoi(get(name)); return n }
	real := func(name string, lo, hi float64) (float64, error) {
		v := get(name)
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
		}
		if f < lo || f > hi {
			return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "%g is outside the valid range for parameter \"%s\" (%g .. %g)", f, name, lo, hi)
		}
		return f, nil
	}
	var err error
	if w.CheckpointCompletionTarget, err = real("checkpoint_completion_target", 0, 1); err != nil {
		return w, err
	}
	if w.BgWriterLRUMultiplier, err = real("bgwriter_lru_multiplier", 0, 10); err != nil {
		return w, err
	}
	w.CheckpointFlushAfter = atoi("checkpoint_flush_after")
	w.MaxWALSize = int64(atoi("max_wal_size")) << 20
	w.BgWriterDelay = time.Duration(atoi("bgwriter_delay")) * time.Millisecond
	w.BgWriterLRUMaxPages = atoi("bgwriter_lru_maxpages")
	w.BgWriterFlushAfter = atoi("bgwriter_flush_after")
	return w, nil
}
