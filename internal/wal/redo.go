package wal

import (
	"fmt"
	"io"
	"sync"

	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Rmgr is a resource manager's entry: its name (as pg_waldump prints it),
// a description of its record kinds, and redo for what is not a page
// change (page changes are redone generically from images and deltas).
type Rmgr struct {
	Name string
	Desc func(info uint8) string
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
	sm := pool.Smgr()
	for i := range d.Blocks {
		b := &d.Blocks[i]
		if !b.HasImage && b.Delta == nil && !b.WillInit() {
			continue
		}
		// Make sure the block exists: redo may see a relation grow.
		if !sm.Exists(b.Tag.Rel, b.Tag.Fork) {
			if err := sm.Create(b.Tag.Rel, b.Tag.Fork); err != nil {
				return err
			}
		}
		n, err := sm.NBlocks(b.Tag.Rel, b.Tag.Fork)
		if err != nil {
			return err
		}
		for n <= b.Tag.Block {
			if _, err := sm.Extend(b.Tag.Rel, b.Tag.Fork); err != nil {
				return err
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
			return fmt.Errorf("redo of %s at %s: %w", RmgrName(d.Rmgr), FormatLSN(d.LSN), err)
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
		if err := RedoBlocks(pool, d); err != nil {
			return res, err
		}
		rmgrMu.RLock()
		rm := rmgrs[d.Rmgr]
		rmgrMu.RUnlock()
		if rm != nil && rm.Redo != nil {
			if err := rm.Redo(d); err != nil {
				return res, fmt.Errorf("redo of %s record at %s: %w", rm.Name, FormatLSN(d.LSN), err)
			}
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
