package xact

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// SubTrans is the parent map of subtransaction ids (PostgreSQL's
// pg_subtrans): for every xid it holds the xid of the transaction that was
// open when it was assigned, or InvalidXid for a top-level transaction.
// Other backends need it when a snapshot could not list all of a busy
// transaction's subtransaction ids (Snapshot.SubOverflowed): they map a
// subxid to its top-level xid and look that up instead.
//
// Like pg_subtrans it only matters for transactions that are still
// running, so it is not WAL-logged and is emptied at start-up (after a
// crash no transaction is running; commit and abort records carry the
// subxids that crash recovery needs). Pages of 2048 xids are kept in
// memory up to maxResident; beyond that the least recently used page is
// written to dir and read back on demand, so a transaction with millions
// of subtransactions does not need all of them in memory. Pages that only
// hold xids older than every running transaction are dropped by Truncate.
type SubTrans struct {
	dir string

	mu    sync.Mutex
	pages map[uint32]*subtransPage
	clock uint64 // LRU stamp source
	// maxResident is how many pages stay in memory before the least
	// recently used is written out.
	maxResident int
}

// xidsPerSubtransPage: 8 KiB pages of 4-byte parent xids, as PostgreSQL's.
const xidsPerSubtransPage = 2048

type subtransPage struct {
	parents [xidsPerSubtransPage]XID
	used    uint64 // clock stamp of the last access
	dirty   bool   // differs from the file on disk (or there is none)
}

func openSubTrans(dir string) (*SubTrans, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("reset subtransaction map: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create subtransaction map: %w", err)
	}
	return &SubTrans{dir: dir, pages: map[uint32]*subtransPage{}, maxResident: 256}, nil
}

// SetParent records that xid is a subtransaction of parent.
func (s *SubTrans) SetParent(xid, parent XID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	pg, err := s.page(xid/xidsPerSubtransPage, true)
	if err != nil {
		return err
	}
	pg.parents[xid%xidsPerSubtransPage] = parent
	pg.dirty = true
	return nil
}

// Parent returns xid's parent (InvalidXid for a top-level xid or one the
// map no longer covers).
func (s *SubTrans) Parent(xid XID) XID {
	s.mu.Lock()
	defer s.mu.Unlock()
	pg, err := s.page(xid/xidsPerSubtransPage, false)
	if err != nil || pg == nil {
		return InvalidXid
	}
	return pg.parents[xid%xidsPerSubtransPage]
}

// Topmost follows parents up to the top-level transaction.
func (s *SubTrans) Topmost(xid XID) XID {
	for {
		p := s.Parent(xid)
		if p == InvalidXid {
			return xid
		}
		// Parents are assigned before their children: a parent that does
		// not precede its child means the page was reused — stop there.
		if !Precedes(p, xid) {
			return xid
		}
		xid = p
	}
}

// Truncate drops every page whose xids all precede oldest (no running
// transaction can have a subtransaction there).
func (s *SubTrans) Truncate(oldest XID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cut := oldest / xidsPerSubtransPage
	for n := range s.pages {
		if n < cut {
			delete(s.pages, n)
		}
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		var n uint32
		if _, err := fmt.Sscanf(e.Name(), "%08X", &n); err == nil && n < cut {
			os.Remove(filepath.Join(s.dir, e.Name()))
		}
	}
}

// page returns page n, reading it from disk if it was written out; with
// create, a missing page is made (zero: no parents). s.mu is held.
func (s *SubTrans) page(n uint32, create bool) (*subtransPage, error) {
	s.clock++
	if pg := s.pages[n]; pg != nil {
		pg.used = s.clock
		return pg, nil
	}
	b, err := os.ReadFile(s.pagePath(n))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return nil, nil
		}
		b = nil
	case err != nil:
		return nil, fmt.Errorf("read subtransaction map page %d: %w", n, err)
	}
	if err := s.evict(); err != nil {
		return nil, err
	}
	pg := &subtransPage{used: s.clock, dirty: b == nil}
	for i := 0; i+4 <= len(b) && i/4 < xidsPerSubtransPage; i += 4 {
		pg.parents[i/4] = binary.LittleEndian.Uint32(b[i:])
	}
	s.pages[n] = pg
	return pg, nil
}

// evict writes out the least recently used page when memory is full.
func (s *SubTrans) evict() error {
	if len(s.pages) < s.maxResident {
		return nil
	}
	var victim uint32
	var oldest *subtransPage
	for n, pg := range s.pages {
		if oldest == nil || pg.used < oldest.used {
			victim, oldest = n, pg
		}
	}
	if oldest.dirty {
		b := make([]byte, 4*xidsPerSubtransPage)
		for i, x := range oldest.parents {
			binary.LittleEndian.PutUint32(b[4*i:], x)
		}
		// Not fsynced: the map is rebuilt empty after a crash anyway.
		if err := os.WriteFile(s.pagePath(victim), b, 0o600); err != nil {
			return fmt.Errorf("write subtransaction map page %d: %w", victim, err)
		}
	}
	delete(s.pages, victim)
	return nil
}

func (s *SubTrans) pagePath(n uint32) string {
	return filepath.Join(s.dir, fmt.Sprintf("%08X", n))
}
