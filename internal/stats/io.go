package stats

import (
	"sync"
	"sync/atomic"
	"time"
)

// BackendType is PostgreSQL's BackendType as pg_stat_io names it. The
// order is PostgreSQL 17's enum order, which is the view's row order.
type BackendType uint8

const (
	ClientBackend BackendType = iota // zero value: a session
	AutovacuumLauncher
	AutovacuumWorker
	BackgroundWorker // parallel workers
	StandaloneBackend
	BackgroundWriter
	Checkpointer
	Startup // crash recovery
	Walwriter
	NumBackendTypes
)

var backendTypeNames = [NumBackendTypes]string{
	"client backend", "autovacuum launcher", "autovacuum worker", "background worker",
	"standalone backend", "background writer", "checkpointer", "startup", "walwriter",
}

func (b BackendType) String() string { return backendTypeNames[b] }

// IOObject is what the I/O was on (IOObject).
type IOObject uint8

const (
	ObjRelation IOObject = iota
	ObjTempRelation
	NumIOObjects
)

var ioObjectNames = [NumIOObjects]string{"relation", "temp relation"}

func (o IOObject) String() string { return ioObjectNames[o] }

// IOContext is the buffer access strategy the I/O was done under
// (IOContext), in PostgreSQL's order.
type IOContext uint8

const (
	CtxBulkRead IOContext = iota
	CtxBulkWrite
	CtxNormal
	CtxVacuum
	NumIOContexts
)

var ioContextNames = [NumIOContexts]string{"bulkread", "bulkwrite", "normal", "vacuum"}

func (c IOContext) String() string { return ioContextNames[c] }

// IOOp is one kind of I/O operation (IOOp). Reads, writes, writebacks,
// extends and fsyncs have times; evictions, reuses and hits do not.
type IOOp uint8

const (
	OpEvict IOOp = iota
	OpExtend
	OpFsync
	OpHit
	OpRead
	OpReuse
	OpWrite
	OpWriteback
	NumIOOps
)

// OpTimed reports whether the view has a time column for op.
func OpTimed(op IOOp) bool {
	switch op {
	case OpRead, OpWrite, OpWriteback, OpExtend, OpFsync:
		return true
	}
	return false
}

// IO is one engine's pg_stat_io counters: blocks (or operations) and
// nanoseconds per backend type × object × context × operation, plus
// tidal's count of read and write system calls (tidal_stat_io_calls).
// Every method is safe for concurrent use; the counters are atomics, so
// counting costs no lock.
type IO struct {
	counts [NumBackendTypes][NumIOObjects][NumIOContexts][NumIOOps]atomic.Int64
	times  [NumBackendTypes][NumIOObjects][NumIOContexts][NumIOOps]atomic.Int64
	calls  [NumBackendTypes][NumIOObjects][NumIOContexts][2]atomic.Int64 // read, write

	resetMu sync.Mutex
	resetAt atomic.Int64 // unix nanoseconds
}

// NewIO makes zeroed counters whose stats_reset is now.
func NewIO() *IO {
	io := &IO{}
	io.resetAt.Store(time.Now().UnixNano())
	return io
}

// Count adds n operations taking d (0 when track_io_timing is off).
func (io *IO) Count(b BackendType, o IOObject, c IOContext, op IOOp, n int64, d time.Duration) {
	if io == nil || n == 0 {
		return
	}
	io.counts[b][o][c][op].Add(n)
	if d > 0 {
		io.times[b][o][c][op].Add(int64(d))
	}
}

// Syscall kinds for CountCalls.
const (
	CallRead  = 0
	CallWrite = 1
)

// CountCalls adds n read (CallRead) or write (CallWrite) system calls.
func (io *IO) CountCalls(b BackendType, o IOObject, c IOContext, kind int, n int64) {
	if io == nil || n == 0 {
		return
	}
	io.calls[b][o][c][kind].Add(n)
}

// IORow is one (backend type, object, context) cell of the counters.
type IORow struct {
	Backend BackendType
	Object  IOObject
	Context IOContext
	Counts  [NumIOOps]int64
	Times   [NumIOOps]time.Duration
	Calls   [2]int64
}

// Snapshot reads one cell.
func (io *IO) Snapshot(b BackendType, o IOObject, c IOContext) IORow {
	r := IORow{Backend: b, Object: o, Context: c}
	for op := IOOp(0); op < NumIOOps; op++ {
		r.Counts[op] = io.counts[b][o][c][op].Load()
		r.Times[op] = time.Duration(io.times[b][o][c][op].Load())
	}
	r.Calls[0] = io.calls[b][o][c][0].Load()
	r.Calls[1] = io.calls[b][o][c][1].Load()
	return r
}

// ResetTime is stats_reset.
func (io *IO) ResetTime() time.Time { return time.Unix(0, io.resetAt.Load()) }

// Reset zeroes every counter (pg_stat_reset_shared('io')). Counts racing
// with it land on one side or the other, as in PostgreSQL.
func (io *IO) Reset() {
	io.resetMu.Lock()
	defer io.resetMu.Unlock()
	for b := range io.counts {
		for o := range io.counts[b] {
			for c := range io.counts[b][o] {
				for op := range io.counts[b][o][c] {
					io.counts[b][o][c][op].Store(0)
					io.times[b][o][c][op].Store(0)
				}
				io.calls[b][o][c][0].Store(0)
				io.calls[b][o][c][1].Store(0)
			}
		}
	}
	io.resetAt.Store(time.Now().UnixNano())
}

// TracksObject is pgstat_tracks_io_object of PostgreSQL 17: whether the
// view has a row for this backend type, object and context. The
// walwriter does no relation I/O and PostgreSQL 17 shows no row for it.
func TracksObject(b BackendType, o IOObject, c IOContext) bool {
	if b == Walwriter {
		return false
	}
	if o == ObjTempRelation {
		if c != CtxNormal {
			return false
		}
		switch b {
		case AutovacuumLauncher, BackgroundWriter, Checkpointer, AutovacuumWorker, StandaloneBackend, Startup:
			return false
		}
	}
	if (b == Checkpointer || b == BackgroundWriter) && c != CtxNormal {
		return false
	}
	if b == AutovacuumLauncher && c == CtxVacuum {
		return false
	}
	if (b == AutovacuumWorker || b == AutovacuumLauncher) && c == CtxBulkWrite {
		return false
	}
	return true
}

// TracksOp is pgstat_tracks_io_op of PostgreSQL 17: an operation the view
// shows as NULL for this cell when false.
func TracksOp(b BackendType, o IOObject, c IOContext, op IOOp) bool {
	if !TracksObject(b, o, c) {
		return false
	}
	if (b == BackgroundWriter || b == Checkpointer) && (op == OpRead || op == OpEvict || op == OpHit) {
		return false
	}
	if (b == AutovacuumLauncher || b == BackgroundWriter || b == Checkpointer) && op == OpExtend {
		return false
	}
	if o == ObjTempRelation && (op == OpFsync || op == OpWriteback) {
		return false
	}
	if c == CtxBulkRead && op == OpExtend {
		return false
	}
	strategy := c == CtxBulkRead || c == CtxBulkWrite || c == CtxVacuum
	if !strategy && op == OpReuse {
		return false
	}
	if strategy && op == OpFsync {
		return false
	}
	return true
}

// IOSettings are the backend's read-ahead settings, carried on its Usage
// because the Usage is the one per-backend value every buffer read is
// handed. The zero value means PostgreSQL's defaults.
type IOSettings struct {
	Set bool // false: the defaults below apply
	// CombineLimit is io_combine_limit in blocks.
	CombineLimit int
	// Concurrency is effective_io_concurrency; MaintenanceConcurrency is
	// maintenance_io_concurrency (VACUUM, ANALYZE).
	Concurrency, MaintenanceConcurrency int
	// TrackTiming is track_io_timing.
	TrackTiming bool
}

// Default read-ahead settings (PostgreSQL 17's).
const (
	DefaultCombineLimit           = 16
	DefaultConcurrency            = 1
	DefaultMaintenanceConcurrency = 10
)

// Effective returns the settings with defaults filled in.
func (s IOSettings) Effective() IOSettings {
	if !s.Set {
		return IOSettings{Set: true, CombineLimit: DefaultCombineLimit, Concurrency: DefaultConcurrency, MaintenanceConcurrency: DefaultMaintenanceConcurrency}
	}
	if s.CombineLimit < 1 {
		s.CombineLimit = 1
	}
	return s
}
