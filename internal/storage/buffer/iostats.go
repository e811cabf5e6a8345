package buffer

import (
	"time"

	"github.com/tidal-db/tidal/internal/stats"
)

// IOContext is the pg_stat_io context of I/O done under strategy s.
func IOContext(s *Strategy) stats.IOContext {
	if s == nil {
		return stats.CtxNormal
	}
	switch s.kind {
	case BulkRead:
		return stats.CtxBulkRead
	case BulkWrite:
		return stats.CtxBulkWrite
	case Vacuum:
		return stats.CtxVacuum
	}
	return stats.CtxNormal
}

// backendOf is the backend type u's I/O is charged to. Reads with no
// Usage are recovery's (redo, undo log recovery at start-up).
func backendOf(u *stats.Usage) stats.BackendType {
	if u == nil {
		return stats.Startup
	}
	return u.Backend
}

// timed returns d when the backend tracks I/O timing, else 0.
func (p *Pool) timed(u *stats.Usage, d time.Duration) time.Duration {
	if u == nil || !u.IO.TrackTiming {
		return 0
	}
	return d
}

// count adds n of op to pg_stat_io for u's backend in s's context.
func (p *Pool) count(u *stats.Usage, s *Strategy, op stats.IOOp, n int64, d time.Duration) {
	p.IO.Count(backendOf(u), stats.ObjRelation, IOContext(s), op, n, d)
}

// countRead charges n blocks read with calls system calls taking took.
func (p *Pool) countRead(u *stats.Usage, s *Strategy, n, calls int, took time.Duration) {
	took = p.timed(u, took)
	if u != nil {
		u.Buf.SharedRead += int64(n)
		u.Buf.ReadTime += took
	}
	p.count(u, s, stats.OpRead, int64(n), took)
	p.IO.CountCalls(backendOf(u), stats.ObjRelation, IOContext(s), stats.CallRead, int64(calls))
}

// countWrite charges n blocks written with calls system calls taking took.
func (p *Pool) countWrite(u *stats.Usage, s *Strategy, n, calls int, took time.Duration) {
	took = p.timed(u, took)
	if u != nil {
		u.Buf.WriteTime += took
	}
	p.count(u, s, stats.OpWrite, int64(n), took)
	p.IO.CountCalls(backendOf(u), stats.ObjRelation, IOContext(s), stats.CallWrite, int64(calls))
}

// CountWrites lets writers outside this package's eviction path (the
// checkpointer, the background writer, bulk writers) report n blocks
// written with calls system calls, in d (pass the real duration: it is
// dropped unless the writer's Usage tracks timing), as backend b.
func (p *Pool) CountWrites(b stats.BackendType, ctx stats.IOContext, n, calls int, d time.Duration, track bool) {
	if !track {
		d = 0
	}
	p.IO.Count(b, stats.ObjRelation, ctx, stats.OpWrite, int64(n), d)
	p.IO.CountCalls(b, stats.ObjRelation, ctx, stats.CallWrite, int64(calls))
}
