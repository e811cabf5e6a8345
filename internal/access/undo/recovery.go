package undo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// metaPath is undo/meta: where recovery's scan may start (README "Crash
// recovery").
func (l *Log) metaPath() string { return filepath.Join(l.pool.Smgr().UndoDir(), "meta") }

// readMeta returns the saved scan start, or firstURP without a meta file.
func (l *Log) readMeta() (URP, error) {
	b, err := os.ReadFile(l.metaPath())
	if errors.Is(err, os.ErrNotExist) {
		return firstURP, nil
	}
	if err != nil {
		return 0, fmt.Errorf("could not read undo meta file: %w", err)
	}
	if len(b) != 12 || binary.LittleEndian.Uint32(b[8:]) != crc32.ChecksumIEEE(b[:8]) {
		return 0, pgerr.Errorf(pgerr.DataCorrupted, "undo meta file %q is corrupt", l.metaPath())
	}
	return URP(binary.LittleEndian.Uint64(b)), nil
}

// SaveMeta records that recovery need not scan before start. The caller
// (a checkpoint) passes the discard point it read before its redo point:
// every undo application before that is in WAL the checkpoint made
// durable.
func (l *Log) SaveMeta(start URP) error {
	b := binary.LittleEndian.AppendUint64(nil, uint64(start))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	if err := os.MkdirAll(filepath.Dir(l.metaPath()), 0o700); err != nil {
		return err
	}
	tmp := l.metaPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	f, err := os.Open(tmp)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, l.metaPath())
}

// Recover undoes, newest first, every record from the saved scan start to
// the end of the log whose transaction did not commit. It runs after WAL
// replay and before any transaction starts; afterwards nothing before the
// end of the log is needed by anyone, so that is the discard point.
func (l *Log) Recover(u *stats.Usage) (int, error) {
	start, err := l.readMeta()
	if err != nil {
		return 0, err
	}
	var undo []URP
	var recs []*Record
	err = l.scan(u, start, func(urp URP, rec *Record) {
		if l.xm.State(rec.Xid) != xact.Committed {
			undo = append(undo, urp)
			recs = append(recs, rec)
		}
	})
	if err != nil {
		return 0, err
	}
	for i := len(undo) - 1; i >= 0; i-- {
		if err := l.applyRecord(u, recs[i], undo[i]); err != nil {
			return 0, fmt.Errorf("undo recovery: %w", err)
		}
	}
	l.discard.Store(uint64(l.InsertPos()))
	return len(undo), nil
}

// scan calls fn for every record from start to the insert position.
func (l *Log) scan(u *stats.Usage, start URP, fn func(URP, *Record)) error {
	end := l.InsertPos()
	if start < firstURP {
		start = firstURP
	}
	for blk := start.block(); URP(blk)*page.Size < end; blk++ {
		if ok, err := l.blockExists(blk); err != nil {
			return err
		} else if !ok {
			continue // a removed chunk, or a page never written
		}
		b, err := l.pool.Read(u, l.tag(blk), nil)
		if err != nil {
			return fmt.Errorf("undo log: %w", err)
		}
		l.pool.Lock(b, buffer.Share)
		pg := l.pool.Page(b)
		off := page.HeaderSize
		if blk == start.block() {
			off = start.offset()
		}
		var bad error
		for !pg.IsNew() && off < pg.Lower() {
			n := recordLen(pg[off:pg.Lower()])
			rec, err := decodeRecord(pg[off:pg.Lower()])
			if err != nil {
				bad = pgerr.Errorf(pgerr.DataCorrupted, "undo log is corrupt at %s: %v", URP(blk)*page.Size+URP(off), err)
				break
			}
			fn(URP(blk)*page.Size+URP(off), rec)
			off += page.MaxAlignUp(n)
		}
		l.pool.UnlockRelease(b, buffer.Share)
		if bad != nil {
			return bad
		}
	}
	return nil
}
