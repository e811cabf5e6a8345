package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// ControlMagic marks a tidal control file.
const ControlMagic = "TIDALCTL"

// ControlVersion is the on-disk format version of the whole data directory
// (page, WAL and catalog layout). A directory with another version is refused.
const ControlVersion = 1

// Cluster states.
const (
	StateShutdown   = 1 // cleanly shut down
	StateProduction = 2 // running (a crash leaves this)
	StateRecovery   = 3 // in crash recovery
)

// Control is global/pg_control: where the last checkpoint is and what the
// counters were then.
type Control struct {
	Version    uint32
	State      uint32
	Checkpoint LSN // start of the latest checkpoint record
	Redo       LSN // its redo point
	NextXid    uint32
	NextOid    uint32
	Time       int64 // unix seconds of the checkpoint
	SystemID   uint64
	// The multixact counters at the checkpoint: the next id and member
	// offset, and the oldest id still stored.
	NextMulti       uint32
	NextMultiOffset uint32
	OldestMulti     uint32
}

// controlSize is the file's size; control files written before multixacts
// existed are controlSizeV1 bytes (they read as having none).
const (
	controlSizeV1 = 8 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 8 + 4
	controlSize   = controlSizeV1 + 3*4
)

// ControlPath is the control file's path in a data directory.
func ControlPath(dataDir string) string { return filepath.Join(dataDir, "global", "pg_control") }

// ReadControl reads and checks the control file.
func ReadControl(dataDir string) (*Control, error) {
	b, err := os.ReadFile(ControlPath(dataDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, pgerr.Errorf(pgerr.DataCorrupted, "could not open control file %q: no such file", ControlPath(dataDir))
		}
		return nil, fmt.Errorf("could not read control file: %w", err)
	}
	if (len(b) != controlSize && len(b) != controlSizeV1) || string(b[:8]) != ControlMagic {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "%q is not a tidal control file", ControlPath(dataDir))
	}
	size := len(b)
	c := &Control{}
	p := b[8:]
	c.Version = binary.LittleEndian.Uint32(p[0:])
	if c.Version != ControlVersion {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "database files are incompatible with server: the data directory was initialized with format version %d, but this server supports version %d", c.Version, ControlVersion).
			WithHint("Use a tidal server of the version that created the data directory.")
	}
	if binary.LittleEndian.Uint32(b[size-4:]) != crc32.ChecksumIEEE(b[:size-4]) {
		return nil, pgerr.Errorf(pgerr.DataCorrupted, "incorrect checksum in control file %q", ControlPath(dataDir))
	}
	c.State = binary.LittleEndian.Uint32(p[4:])
	c.Checkpoint = binary.LittleEndian.Uint64(p[8:])
	c.Redo = binary.LittleEndian.Uint64(p[16:])
	c.NextXid = binary.LittleEndian.Uint32(p[24:])
	c.NextOid = binary.LittleEndian.Uint32(p[28:])
	c.Time = int64(binary.LittleEndian.Uint64(p[32:]))
	c.SystemID = binary.LittleEndian.Uint64(p[40:])
	if size == controlSize {
		c.NextMulti = binary.LittleEndian.Uint32(p[48:])
		c.NextMultiOffset = binary.LittleEndian.Uint32(p[52:])
		c.OldestMulti = binary.LittleEndian.Uint32(p[56:])
	}
	return c, nil
}

// WriteControl replaces the control file atomically (write, fsync, rename,
// fsync the directory).
func WriteControl(dataDir string, c *Control) error {
	b := make([]byte, controlSize)
	copy(b, ControlMagic)
	p := b[8:]
	binary.LittleEndian.PutUint32(p[0:], ControlVersion)
	binary.LittleEndian.PutUint32(p[4:], c.State)
	binary.LittleEndian.PutUint64(p[8:], c.Checkpoint)
	binary.LittleEndian.PutUint64(p[16:], c.Redo)
	binary.LittleEndian.PutUint32(p[24:], c.NextXid)
	binary.LittleEndian.PutUint32(p[28:], c.NextOid)
	if c.Time == 0 {
		c.Time = time.Now().Unix()
	}
	binary.LittleEndian.PutUint64(p[32:], uint64(c.Time))
	binary.LittleEndian.PutUint64(p[40:], c.SystemID)
	binary.LittleEndian.PutUint32(p[48:], c.NextMulti)
	binary.LittleEndian.PutUint32(p[52:], c.NextMultiOffset)
	binary.LittleEndian.PutUint32(p[56:], c.OldestMulti)
	binary.LittleEndian.PutUint32(b[controlSize-4:], crc32.ChecksumIEEE(b[:controlSize-4]))
	dir := filepath.Dir(ControlPath(dataDir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := ControlPath(dataDir) + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	if err := os.Rename(tmp, ControlPath(dataDir)); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
