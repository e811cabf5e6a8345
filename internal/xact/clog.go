package xact

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// XID is a transaction id.
type XID = uint32

// Special transaction ids, as PostgreSQL's.
const (
	InvalidXid     XID = 0
	BootstrapXid   XID = 1 // the catalog rows initdb writes
	FrozenXid      XID = 2 // visible to everyone
	FirstNormalXid XID = 3
)

// Status is a transaction's recorded outcome.
type Status uint8

const (
	InProgress Status = 0 // or crashed: see Manager.State
	Committed  Status = 1
	Aborted    Status = 2
)

// xidsPerChunk is how many transactions one commit-log file covers (2 bits
// each, 256 KiB files like PostgreSQL's pg_xact segments).
const xidsPerChunk = 1 << 20

// CLOG is the commit log: two bits of status per transaction id, kept in
// memory and written to xact/ at checkpoints. Entries after the last
// checkpoint are rebuilt by WAL replay of commit and abort records.
type CLOG struct {
	dir    string
	mu     sync.RWMutex
	chunks map[uint32][]byte
	dirty  map[uint32]bool
}

func openCLOG(dir string) (*CLOG, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c := &CLOG{dir: dir, chunks: map[uint32][]byte{}, dirty: map[uint32]bool{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		var n uint32
		if _, err := fmt.Sscanf(e.Name(), "%04X", &n); err != nil || len(e.Name()) != 4 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if len(b) != xidsPerChunk/4 {
			return nil, fmt.Errorf("commit log file %q has wrong size %d", e.Name(), len(b))
		}
		c.chunks[n] = b
	}
	return c, nil
}

// Get returns the recorded status of xid.
func (c *CLOG) Get(xid XID) Status {
	// The byte is read under the lock too: Set rewrites whole bytes, each
	// holding four transactions' status, so an unlocked read here races
	// with the commit of a neighbouring xid.
	c.mu.RLock()
	defer c.mu.RUnlock()
	ch := c.chunks[xid/xidsPerChunk]
	if ch == nil {
		return InProgress
	}
	i := xid % xidsPerChunk
	return Status(ch[i/4]>>((i%4)*2)) & 3
}

// Set records the status of xid.
func (c *CLOG) Set(xid XID, s Status) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := xid / xidsPerChunk
	ch := c.chunks[n]
	if ch == nil {
		ch = make([]byte, xidsPerChunk/4)
		c.chunks[n] = ch
	}
	i := xid % xidsPerChunk
	sh := (i % 4) * 2
	ch[i/4] = ch[i/4]&^(3<<sh) | byte(s)<<sh
	c.dirty[n] = true
}

// Flush writes changed chunks durably (at a checkpoint).
func (c *CLOG) Flush() error {
	c.mu.Lock()
	type job struct {
		n uint32
		b []byte
	}
	var jobs []job
	for n := range c.dirty {
		jobs = append(jobs, job{n, append([]byte(nil), c.chunks[n]...)})
	}
	c.dirty = map[uint32]bool{}
	c.mu.Unlock()
	for _, j := range jobs {
		path := filepath.Join(c.dir, fmt.Sprintf("%04X", j.n))
		tmp := path + ".tmp"
		if err := writeFileSync(tmp, j.b); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	if len(jobs) > 0 {
		if d, err := os.Open(c.dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}

func writeFileSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
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
	return f.Close()
}

var errNoCLOG = errors.New("commit log not open")
