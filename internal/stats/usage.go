// Package stats holds tidal's instrumentation counters: per-backend buffer
// and WAL usage (what EXPLAIN (BUFFERS, WAL) and VACUUM VERBOSE print), with
// PostgreSQL's meanings; per-engine I/O counters by backend type, object
// and context (pg_stat_io, io.go); per-table activity (tables.go).
package stats

import "time"

// BufferUsage counts shared-buffer activity, as PostgreSQL's BufferUsage.
//
//   - SharedHit: a block was found in shared buffers.
//   - SharedRead: a block was read from disk into shared buffers.
//   - SharedDirtied: a clean buffer was made dirty.
//   - SharedWritten: a buffer was written out by this backend (eviction),
//     or a new block was added to a relation (relation extension), as
//     PostgreSQL 15 counts it.
type BufferUsage struct {
	SharedHit     int64
	SharedRead    int64
	SharedDirtied int64
	SharedWritten int64
	// TempRead and TempWritten count BLCKSZ blocks of temporary files
	// (sorts and hashes that spilled), EXPLAIN's "temp read=… written=…".
	TempRead, TempWritten int64
	// ReadTime and WriteTime are the time spent reading and writing
	// blocks when track_io_timing is on (EXPLAIN's "I/O Timings").
	ReadTime, WriteTime time.Duration
}

// WALUsage counts WAL generation, as PostgreSQL's WalUsage.
type WALUsage struct {
	Records int64 // WAL records inserted
	FPI     int64 // full-page images among them
	Bytes   int64 // total record bytes
}

// Usage is one backend's counters. A backend goroutine owns its Usage; it
// is not safe for concurrent use.
type Usage struct {
	Buf BufferUsage
	WAL WALUsage
	// WALCompression is the backend's wal_compression, numbered as the
	// wal package's Compression (0: not chosen, the server's applies). It
	// rides here because Usage is the one per-backend value every WAL
	// insert is handed; Sub and Add leave it alone.
	WALCompression uint8
	// Backend is the backend type pg_stat_io charges this backend's I/O
	// to, and IO its read-ahead settings; like WALCompression they ride
	// here because every buffer read is handed the Usage, and Sub and Add
	// leave them alone.
	Backend BackendType
	IO      IOSettings
}

// Sub returns u - o, for measuring an interval.
func (u Usage) Sub(o Usage) Usage {
	return Usage{
		Buf: BufferUsage{
			SharedHit:     u.Buf.SharedHit - o.Buf.SharedHit,
			SharedRead:    u.Buf.SharedRead - o.Buf.SharedRead,
			SharedDirtied: u.Buf.SharedDirtied - o.Buf.SharedDirtied,
			SharedWritten: u.Buf.SharedWritten - o.Buf.SharedWritten,
			TempRead:      u.Buf.TempRead - o.Buf.TempRead,
			TempWritten:   u.Buf.TempWritten - o.Buf.TempWritten,
			ReadTime:      u.Buf.ReadTime - o.Buf.ReadTime,
			WriteTime:     u.Buf.WriteTime - o.Buf.WriteTime,
		},
		WAL: WALUsage{
			Records: u.WAL.Records - o.WAL.Records,
			FPI:     u.WAL.FPI - o.WAL.FPI,
			Bytes:   u.WAL.Bytes - o.WAL.Bytes,
		},
	}
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Buf.SharedHit += o.Buf.SharedHit
	u.Buf.SharedRead += o.Buf.SharedRead
	u.Buf.SharedDirtied += o.Buf.SharedDirtied
	u.Buf.SharedWritten += o.Buf.SharedWritten
	u.Buf.TempRead += o.Buf.TempRead
	u.Buf.TempWritten += o.Buf.TempWritten
	u.Buf.ReadTime += o.Buf.ReadTime
	u.Buf.WriteTime += o.Buf.WriteTime
	u.WAL.Records += o.WAL.Records
	u.WAL.FPI += o.WAL.FPI
	u.WAL.Bytes += o.WAL.Bytes
}
