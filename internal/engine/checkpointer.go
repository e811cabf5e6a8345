package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/wal"
)

// WriterConfig holds the checkpointer's and background writer's settings
// (PostgreSQL's names; DefaultConfig gives PostgreSQL 15's defaults).
type WriterConfig struct {
	CheckpointCompletionTarget float64 // fraction of the interval a spread checkpoint's writes take
	CheckpointFlushAfter       int     // blocks between writeback hints during a checkpoint (0: none)
	MaxWALSize                 int64   // bytes of WAL that trigger a checkpoint (0: never)
	BgWriterDelay              time.Duration
	BgWriterLRUMaxPages        int
	BgWriterLRUMultiplier      float64
	BgWriterFlushAfter         int // blocks between the background writer's writeback hints
}

// DefaultWriterConfig is PostgreSQL 15's defaults on Linux.
func DefaultWriterConfig() WriterConfig {
	return WriterConfig{
		CheckpointCompletionTarget: 0.9,
		CheckpointFlushAfter:       32, // 256kB
		MaxWALSize:                 1 << 30,
		BgWriterDelay:              200 * time.Millisecond,
		BgWriterLRUMaxPages:        100,
		BgWriterLRUMultiplier:      2.0,
		BgWriterFlushAfter:         64, // 512kB
	}
}

// ckptCause is why a checkpoint runs; only immediate ones skip pacing.
type ckptCause int

const (
	ckptImmediate ckptCause = iota // CHECKPOINT, shutdown, end of recovery, initdb
	ckptTimed                      // checkpoint_timeout elapsed
	ckptWAL                        // max_wal_size worth of WAL since the last one
)

// writerStats are pg_stat_bgwriter's and pg_stat_checkpointer's
// checkpoint counters, per engine.
type writerStats struct {
	timed, requested      atomic.Int64
	writeTimeMs, syncTime atomic.Int64 // milliseconds, as the views show them
	resetMu               sync.Mutex
	resetAt               time.Time
}

// CheckpointerStats is a snapshot for pg_stat_bgwriter and
// pg_stat_checkpointer.
type CheckpointerStats struct {
	Timed, Requested      int64
	WriteTimeMs, SyncTime float64
	Buffers               buffer.WriterStats
	ResetAt               time.Time
}

// CheckpointerStats returns the counters since start or the last reset.
func (e *Engine) CheckpointerStats() CheckpointerStats {
	w := &e.writerStats
	w.resetMu.Lock()
	at := w.resetAt
	w.resetMu.Unlock()
	return CheckpointerStats{
		Timed: w.timed.Load(), Requested: w.requested.Load(),
		WriteTimeMs: float64(w.writeTimeMs.Load()), SyncTime: float64(w.syncTime.Load()),
		Buffers: e.Pool.WriterStats(), ResetAt: at,
	}
}

// ResetCheckpointerStats is pg_stat_reset_shared('bgwriter') (and
// 'checkpointer').
func (e *Engine) ResetCheckpointerStats() {
	w := &e.writerStats
	w.timed.Store(0)
	w.requested.Store(0)
	w.writeTimeMs.Store(0)
	w.syncTime.Store(0)
	e.Pool.ResetWriterStats()
	w.resetMu.Lock()
	w.resetAt = time.Now()
	w.resetMu.Unlock()
}

// RequestCheckpoint is the CHECKPOINT command: an immediate checkpoint. If
// it fails, the cause goes to the server log and the client gets
// PostgreSQL's "checkpoint request failed"; the buffers it could not write
// stay dirty for the next checkpoint.
func (e *Engine) RequestCheckpoint() error {
	if err := e.Checkpoint(false); err != nil {
		e.log.Printf("ERROR:  %v", pgerr.From(err).Message)
		return pgerr.Errorf(pgerr.InternalError, "checkpoint request failed").
			WithHint("Consult recent messages in the server log for details.")
	}
	return nil
}

// pacer returns the buffer pass's Pace function: a spread checkpoint
// sleeps while it is ahead of schedule (IsCheckpointOnSchedule): its
// progress, scaled by checkpoint_completion_target, must stay ahead of both
// the elapsed fraction of checkpoint_timeout and the fraction of
// max_wal_size's checkpoint distance written since the redo point. An
// immediate request, or shutdown, makes it run at full speed from then on.
func (e *Engine) pacer(cause ckptCause, start time.Time, redo uint64) func(float64) {
	if cause == ckptImmediate {
		return nil
	}
	target := e.cfg.Writer.CheckpointCompletionTarget
	return func(done float64) {
		for {
			if e.immediatePending.Load() > 0 || e.stopping() {
				return
			}
			progress := done * target
			if e.cfg.CheckpointTimeout > 0 && progress < float64(time.Since(start))/float64(e.cfg.CheckpointTimeout) {
				return
			}
			if d := e.checkpointDistance(); d > 0 && progress < float64(uint64(e.WAL.InsertPos())-redo)/float64(d) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// checkpointDistance is how much WAL triggers a checkpoint: max_wal_size
// spread over 1 + checkpoint_completion_target checkpoint cycles, as
// PostgreSQL's CheckPointSegments (0: none).
func (e *Engine) checkpointDistance() uint64 {
	w := e.cfg.Writer
	if w.MaxWALSize <= 0 {
		return 0
	}
	d := uint64(float64(w.MaxWALSize) / (1 + w.CheckpointCompletionTarget))
	return max(d, wal.SegmentSize)
}

func (e *Engine) stopping() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// checkpointer runs timed checkpoints every checkpoint_timeout and
// WAL-triggered ones when checkpointDistance of WAL has been written since
// the last redo point, both spread out by pacer. A failed one is logged and
// tried again after ckptRetry (its buffers are still dirty).
func (e *Engine) checkpointer() {
	defer e.wg.Done()
	if e.cfg.CheckpointTimeout <= 0 && e.checkpointDistance() == 0 {
		return
	}
	const poll = time.Second
	const ckptRetry = 10 * time.Second
	t := time.NewTicker(poll)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		cause := ckptImmediate
		if e.cfg.CheckpointTimeout > 0 && time.Since(last) >= e.cfg.CheckpointTimeout {
			cause = ckptTimed
		} else if d := e.checkpointDistance(); d > 0 && uint64(e.WAL.InsertPos())-e.lastRedo() >= d {
			cause = ckptWAL
		}
		if cause == ckptImmediate {
			continue
		}
		last = time.Now()
		if err := e.checkpoint(false, cause); err != nil {
			e.log.Printf("ERROR:  checkpoint failed: %v", err)
			last = time.Now().Add(ckptRetry - e.cfg.CheckpointTimeout)
		}
	}
}

func (e *Engine) lastRedo() uint64 { return e.redoLSN.Load() }

// bgWriter is the background writer: every bgwriter_delay it cleans the
// frames the clock sweep will reach next (buffer.BgWriter.Round), so that
// backends seldom have to write a dirty victim themselves.
func (e *Engine) bgWriter() {
	defer e.wg.Done()
	w := e.cfg.Writer
	if w.BgWriterDelay <= 0 || w.BgWriterLRUMaxPages <= 0 {
		return
	}
	bw := e.Pool.NewBgWriter(w.BgWriterFlushAfter)
	s := buffer.BgWriterSettings{MaxPages: w.BgWriterLRUMaxPages, Multiplier: w.BgWriterLRUMultiplier}
	t := time.NewTicker(w.BgWriterDelay)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if _, err := bw.Round(s); err != nil {
				e.log.Printf("ERROR:  background writer: %v", pgerr.From(err).Message)
			}
		}
	}
}
