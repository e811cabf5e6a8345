package wal

import (
	"fmt"
	"io"
	"sync"

	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Rmgr is a resource manager's entry: its name (as pg_waldump prints it),
// a description of its record kinds, redo of its logical page changes,
// and redo for what is not a page change. Images and deltas are redone
// generically (RedoBlocks).
type Rmgr struct {
	Name string
	Desc func(info uint8) string
	// RedoPages redoes the blocks registered with AddBlockData (their
	// images, when they have one, are already restored), reading each
	// through ReadForRedo. It runs after RedoBlocks and may be nil.
	RedoPages func(pool *buffer.Pool, d *Decoded) error
	// Redo runs after the record's blocks have been redone. It may be nil.
	Redo func(d *Decoded) error
}

var (
	rmgrMu sync.RWMutex
	rmgrs  [numRmgrs]*Rmgr
)

// Register installs a resource manager (at start-up, before recovery).
func Register(id RmgrID, r Rmgr) {
	rmgrMu.Lock()
	defer rmgrMu.Unlock()
	rmgrs[id] = &r
}

// RmgrName returns a resource manager's name.
func RmgrName(id RmgrID) string {
	rmgrMu.RLock()
	defer rmgrMu.RUnlock()
	if int(id) < len(rmgrs) && rmgrs[id] != nil {
		return rmgrs[id].Name
	}
	return fmt.Sprintf("rmgr%d", id)
}

// RedoBlocks applies a record's page changes: a full-page image is
// restored; otherwise the delta is applied if the page has not seen this
// record yet (its LSN is before the record's end).
func RedoBlocks(pool *buffer.Pool, d *Decoded) error {
	for i := range d.Blocks {
		b := &d.Blocks[i]
		if !b.HasImage && (b.HasData() || b.Delta == nil && !b.WillInit()) {
			continue
		}
		buf, err := readBlockForRedo(pool, d, b)
		if err != nil {
			return err
		}
		pool.Lock(buf, buffer.Exclusive)
		pg := pool.Page(buf)
		switch {
		case b.HasImage:
			if err := b.RestoreImage(pg); err != nil {
				pool.UnlockRelease(buf, buffer.Exclusive)
				return fmt.Errorf("redo of %s: %w", RmgrName(d.Rmgr), err)
			}
			pg.SetLSN(d.EndLSN)
			pool.MarkDirty(nil, buf)
		case b.WillInit() || pg.LSN() < d.EndLSN:
			if !page.ApplyDelta(pg, b.WillInit(), b.Delta) {
				pool.UnlockRelease(buf, buffer.Exclusive)
				return fmt.Errorf("redo of %s at %s: malformed page delta", RmgrName(d.Rmgr), FormatLSN(d.LSN))
			}
			pg.SetLSN(d.EndLSN)
			pool.MarkDirty(nil, buf)
		}
		pool.UnlockRelease(buf, buffer.Exclusive)
	}
	return nil
}

// readBlockForRedo pins the block, creating and extending its fork as
// needed (redo may see a relation grow); an imaged or re-initialized
// block starts from a zeroed frame.
func readBlockForRedo(pool *buffer.Pool, d *Decoded, b *DecodedBlock) (buffer.Buffer, error) {
	sm := pool.Smgr()
	if !sm.Exists(b.Tag.Rel, b.Tag.Fork) {
		if err := sm.Create(b.Tag.Rel, b.Tag.Fork); err != nil {
			return buffer.InvalidBuffer, err
		}
	}
	n, err := sm.NBlocks(b.Tag.Rel, b.Tag.Fork)
	if err != nil {
		return buffer.InvalidBuffer, err
	}
	for n <= b.Tag.Block {
		if _, err := sm.Extend(b.Tag.Rel, b.Tag.Fork); err != nil {
			return buffer.InvalidBuffer, err
		}
		n++
	}
	var buf buffer.Buffer
	if b.HasImage || b.WillInit() {
		buf, err = pool.ReadZero(nil, b.Tag)
	} else {
		buf, err = pool.Read(nil, b.Tag, nil)
	}
	if err != nil {
		return buffer.InvalidBuffer, fmt.Errorf("redo of %s at %s: %w", RmgrName(d.Rmgr), FormatLSN(d.LSN), err)
	}
	return buf, nil
}

// ReadForRedo pins and exclusively locks block i of d for a resource
// manager's RedoPages (XLogReadBufferForRedo). redo says whether the change
// must be applied: the block was not restored from an image and the page
// has not seen the record (its LSN is before the record's end), or the
// change re-initializes the page (its frame is then zeroed). The caller
// applies the change when redo is set and calls FinishRedo.
func ReadForRedo(pool *buffer.Pool, d *Decoded, i int) (buf buffer.Buffer, pg page.Page, redo bool, err error) {
	b := &d.Blocks[i]
	if b.HasImage {
		// Restored by RedoBlocks: only pin it to report it done.
		buf, err = pool.Read(nil, b.Tag, nil)
	} else {
		buf, err = readBlockForRedo(pool, d, b)
	}
	if err != nil {
		return buffer.InvalidBuffer, nil, false, err
	}
	pool.Lock(buf, buffer.Exclusive)
	pg = pool.Page(buf)
	redo = !b.HasImage && (b.WillInit() || pg.LSN() < d.EndLSN)
	return buf, pg, redo, nil
}

// FinishRedo releases a block read by ReadForRedo; when it was redone, the
// page gets the record's end LSN and is marked dirty.
func FinishRedo(pool *buffer.Pool, buf buffer.Buffer, d *Decoded, redone bool) {
	if redone {
		pool.Page(buf).SetLSN(d.EndLSN)
		pool.MarkDirty(nil, buf)
	}
	pool.UnlockRelease(buf, buffer.Exclusive)
}

// RedoRecord redoes one record: its images and deltas, then its resource
// manager's logical page changes and other effects.
func RedoRecord(pool *buffer.Pool, d *Decoded) error {
	if err := RedoBlocks(pool, d); err != nil {
		return err
	}
	rmgrMu.RLock()
	rm := rmgrs[d.Rmgr]
	rmgrMu.RUnlock()
	if rm == nil {
		return nil
	}
	if rm.RedoPages != nil {
		if err := rm.RedoPages(pool, d); err != nil {
			return fmt.Errorf("redo of %s record at %s: %w", rm.Name, FormatLSN(d.LSN), err)
		}
	}
	if rm.Redo != nil {
		if err := rm.Redo(d); err != nil {
			return fmt.Errorf("redo of %s record at %s: %w", rm.Name, FormatLSN(d.LSN), err)
		}
	}
	return nil
}

// RecoveryResult is what replay found.
type RecoveryResult struct {
	End     LSN    // where new WAL continues
	Prev    LSN    // start of the last valid record
	Records int    // records replayed
	MaxXid  uint32 // largest transaction id seen
}

// Replay redoes every record from redo to the end of valid WAL.
func Replay(dir string, pool *buffer.Pool, redo LSN) (RecoveryResult, error) {
	r := NewReader(dir, redo)
	defer r.Close()
	var res RecoveryResult
	res.End = redo
	for {
		d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, err
		}
		if err := RedoRecord(pool, d); err != nil {
			return res, err
		}
		if res.MaxXid == 0 || (d.Xid != 0 && int32(d.Xid-res.MaxXid) > 0) {
			res.MaxXid = d.Xid
		}
		res.Records++
		res.Prev = d.LSN
		res.End = r.Pos()
	}
	return res, nil
}
