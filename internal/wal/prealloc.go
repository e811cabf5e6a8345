package wal

import (
	"errors"
	"os"
	"path/filepath"
)

// Pre-allocation, as PostgreSQL's PreallocXlogFiles: once writing has
// passed three quarters of its segment, the next segment is made ahead of
// need — zero-filled and synced under a temporary name, then linked into
// place — by a background caller (the engine's WAL writer), not by the
// commit that crosses into it. With the segments checkpoints recycle, a
// filling disk then surfaces in this background step or in a data file
// that cannot extend (a statement error), before a WAL write fails.

// preallocThreshold is how far into its segment writing must be.
const preallocThreshold = SegmentSize * 3 / 4

// Preallocate makes the segment after the one being written if writing
// is past preallocThreshold and it does not exist yet. It reports whether
// it made one; an error (a full disk) leaves nothing behind and the log
// as it was.
func (w *WAL) Preallocate() (bool, error) {
	w.flushMu.Lock()
	written := w.written
	w.flushMu.Unlock()
	if written%SegmentSize < preallocThreshold {
		return false, nil
	}
	next := uint64(written/SegmentSize) + 1
	target := filepath.Join(w.dir, segName(next))
	if _, err := os.Stat(target); err == nil {
		return false, nil
	}
	tmp := filepath.Join(w.dir, "xlogtemp."+segName(next))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, err
	}
	err = w.zeroFill(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return false, err
	}
	// Link, not rename: if the writer made the segment meanwhile (it
	// zero-fills a missing one itself), the link fails and its file stays.
	w.flushMu.Lock()
	err = os.Link(tmp, target)
	w.flushMu.Unlock()
	os.Remove(tmp)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if w.fsync {
		if d, err := os.Open(w.dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return true, nil
}
