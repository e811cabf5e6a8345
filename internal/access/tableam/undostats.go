package tableam

import "github.com/tidal-db/tidal/internal/xact"

// UndoLogStats are an undo log's figures (the tidal_stat_undo view).
// Byte counts are positions in the log: what it grew by, including the
// page headers and page tails a record did not fit in.
type UndoLogStats struct {
	// Written and Discarded: log bytes written, and passed by the discard
	// point (no longer needed by any snapshot or rollback), since the
	// server started.
	Written, Discarded int64
	// Retained: bytes between the discard point and the end of the log,
	// the undo still kept for rollbacks and older snapshots.
	Retained int64
	// Size: bytes of undo files on disk now; Removed: bytes of undo files
	// removed since the server started.
	Size, Removed int64
	// InsertPos and DiscardPos are the end of the log and the discard
	// point (undo record pointers: byte positions).
	InsertPos, DiscardPos uint64
	// OldestXid is the transaction whose undo at the discard point is the
	// oldest still needed (InvalidXid when nothing is retained).
	OldestXid xact.XID
}

// UndoLogReporter is implemented by an AM that keeps an undo log.
type UndoLogReporter interface {
	UndoLogStats() (UndoLogStats, error)
}
