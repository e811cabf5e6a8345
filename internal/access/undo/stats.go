package undo

import (
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// logCounters are the log's statistics since the server started.
type logCounters struct {
	written, discarded atomic.Int64
}

// UndoLogStats reports the log's figures (tidal_stat_undo).
func (a AM) UndoLogStats() (tableam.UndoLogStats, error) {
	if a.s.log == nil {
		return tableam.UndoLogStats{}, nil
	}
	return a.s.log.Stats()
}

var _ tableam.UndoLogReporter = AM{}

// Stats reports the log's figures.
func (l *Log) Stats() (tableam.UndoLogStats, error) {
	l.AdvanceDiscard() // show the discard point as of now
	ins, disc := l.InsertPos(), l.Discard()
	st := tableam.UndoLogStats{
		Written:    l.counters.written.Load(),
		Discarded:  l.counters.discarded.Load(),
		Removed:    l.Discarded.Load(),
		InsertPos:  uint64(ins),
		DiscardPos: uint64(disc),
	}
	if ins > disc {
		st.Retained = int64(ins - disc)
	}
	size, err := l.sizeOnDisk()
	if err != nil {
		return st, err
	}
	st.Size = size
	if first := l.oldestRetained(); first != 0 {
		// No data page lock is held here, so reading an undo page first
		// keeps the lock order (data page, then undo page).
		rec, err := l.readRecord(nil, first)
		if err != nil {
			return st, err
		}
		if rec != nil {
			st.OldestXid = rec.Xid
		}
	}
	return st, nil
}

// oldestRetained is the first record of the transaction that holds the
// discard point back (AdvanceDiscard), 0 when none does.
func (l *Log) oldestRetained() URP {
	l.smu.Lock()
	defer l.smu.Unlock()
	var first URP
	consider := func(u URP) {
		if u >= l.Discard() && (first == 0 || u < first) {
			first = u
		}
	}
	for _, st := range l.xacts {
		if st.first != 0 {
			consider(st.first)
		}
	}
	if len(l.pending) > 0 {
		consider(l.pending[0].first)
	}
	return first
}

// sizeOnDisk is the size of the chunk files not yet removed.
func (l *Log) sizeOnDisk() (int64, error) {
	l.chunkMu.RLock()
	defer l.chunkMu.RUnlock()
	chunks, err := l.chunks()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range chunks {
		if c <= l.removed {
			continue
		}
		b, err := l.chunkBlocks(c)
		if err != nil {
			return 0, err
		}
		n += int64(b) * page.Size
	}
	return n, nil
}
