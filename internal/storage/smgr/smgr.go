// Package smgr is the storage manager: relation forks as files of 8 KiB
// blocks, split into 1 GiB segments, under the data directory's base/.
//
// File names follow PostgreSQL: base/<relfilenumber> for the main fork,
// base/<relfilenumber>_fsm and _vm for the free space and visibility map
// forks, and .1, .2, … suffixes for segments after the first.
//
// smgr knows nothing of page contents. It is safe for concurrent use: reads
// and writes of different blocks proceed in parallel (pread/pwrite), while
// extend, truncate, create and unlink of one fork are serialised.
package smgr

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// RelFileNumber names a relation's files on disk (pg_class.relfilenode).
type RelFileNumber uint32

// ForkNumber selects one of a relation's files.
type ForkNumber uint8

const (
	MainFork ForkNumber = 0
	FSMFork  ForkNumber = 1
	VMFork   ForkNumber = 2
	NumForks            = 3
	// UndoFork holds an undo log (internal/access/undo). It is not one of a
	// relation's forks (Unlink leaves it alone, NumForks does not count it):
	// its files live in the data directory's undo/ folder, named by the
	// log's number.
	UndoFork ForkNumber = 3
)

var forkSuffix = [NumForks]string{"", "_fsm", "_vm"}

func (f ForkNumber) String() string {
	switch f {
	case MainFork:
		return "main"
	case FSMFork:
		return "fsm"
	case VMFork:
		return "vm"
	case UndoFork:
		return "undo"
	}
	return fmt.Sprintf("fork%d", f)
}

// BlocksPerSegment is RELSEG_SIZE: 1 GiB of 8 KiB blocks.
const BlocksPerSegment = (1 << 30) / page.Size

// ErrFsync marks a failed fsync of a relation file.
var ErrFsync = errors.New("fsync failed")

// Manager owns the open files of a data directory's base/.
type Manager struct {
	dir string

	mu    sync.Mutex
	forks map[forkKey]*fork

	// IOLatency, when non-zero, is slept before every read system call
	// (tidal.io_read_latency: benchmarks of read-ahead on a fast disk).
	IOLatency atomic.Int64

	faults    faults // injected write and fsync errors (tests)
	direct    bool   // O_DIRECT (io_direct = data); set before any file opens
	readFault atomic.Pointer[ReadFaultFunc]
}

type forkKey struct {
	rel  RelFileNumber
	fork ForkNumber
}

type fork struct {
	mu      sync.Mutex // guards segs and nblocks changes
	segs    []*os.File
	nblocks int64 // cached size in blocks; -1 unknown
	dirty   bool  // written since last Sync
}

// Open returns a manager for dir (the data directory's base/ folder).
func Open(dir string) (*Manager, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("smgr: %w", err)
	}
	return &Manager{dir: dir, forks: make(map[forkKey]*fork)}, nil
}

// Dir is the folder holding the relation files.
func (m *Manager) Dir() string { return m.dir }

func (m *Manager) path(rel RelFileNumber, f ForkNumber, seg int) string {
	dir, suffix := m.dir, ""
	if f == UndoFork {
		dir = m.UndoDir()
	} else {
		suffix = forkSuffix[f]
	}
	name := fmt.Sprintf("%d%s", rel, suffix)
	if seg > 0 {
		name = fmt.Sprintf("%s.%d", name, seg)
	}
	return filepath.Join(dir, name)
}

// UndoDir is the folder of the undo logs: undo/ beside base/.
func (m *Manager) UndoDir() string { return filepath.Join(filepath.Dir(m.dir), "undo") }

func (m *Manager) get(rel RelFileNumber, f ForkNumber) *fork {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := forkKey{rel, f}
	fk := m.forks[k]
	if fk == nil {
		fk = &fork{nblocks: -1}
		m.forks[k] = fk
	}
	return fk
}

// segment returns the open file of segment seg, opening (and with create,
// creating) it. fk.mu must be held.
func (m *Manager) segment(rel RelFileNumber, f ForkNumber, fk *fork, seg int, create bool) (*os.File, error) {
	for len(fk.segs) <= seg {
		fk.segs = append(fk.segs, nil)
	}
	if fk.segs[seg] != nil {
		return fk.segs[seg], nil
	}
	flags := os.O_RDWR
	if m.direct && f != UndoFork {
		flags |= syscall.O_DIRECT
	}
	if create {
		flags |= os.O_CREATE
		if f == UndoFork {
			if err := os.MkdirAll(m.UndoDir(), 0o700); err != nil {
				return nil, err
			}
		}
	}
	fh, err := os.OpenFile(m.path(rel, f, seg), flags, 0o600)
	if err != nil {
		return nil, err
	}
	fk.segs[seg] = fh
	return fh, nil
}

// Exists reports whether the fork's first segment exists.
func (m *Manager) Exists(rel RelFileNumber, f ForkNumber) bool {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	if len(fk.segs) > 0 && fk.segs[0] != nil {
		return true
	}
	// Opening it caches the answer for next time.
	_, err := m.segment(rel, f, fk, 0, false)
	return err == nil
}

// Create makes the fork's first segment if it does not exist (idempotent,
// as redo needs).
func (m *Manager) Create(rel RelFileNumber, f ForkNumber) error {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	if _, err := m.segment(rel, f, fk, 0, true); err != nil {
		return fmt.Errorf("could not create file %q: %w", m.path(rel, f, 0), err)
	}
	fk.nblocks = -1
	return nil
}

// NBlocks returns the fork's size in blocks (0 if it does not exist).
func (m *Manager) NBlocks(rel RelFileNumber, f ForkNumber) (page.BlockNumber, error) {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	n, err := m.nblocksLocked(rel, f, fk)
	return page.BlockNumber(n), err
}

func (m *Manager) nblocksLocked(rel RelFileNumber, f ForkNumber, fk *fork) (int64, error) {
	if fk.nblocks >= 0 {
		return fk.nblocks, nil
	}
	var total int64
	for seg := 0; ; seg++ {
		fh, err := m.segment(rel, f, fk, seg, false)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return 0, err
		}
		st, err := fh.Stat()
		if err != nil {
			return 0, err
		}
		n := st.Size() / page.Size
		total += n
		if n < BlocksPerSegment {
			break
		}
	}
	fk.nblocks = total
	return total, nil
}

// Read reads block blk into buf. Reading past the end is an error.
func (m *Manager) Read(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, buf []byte) error {
	_, err := m.ReadV(rel, f, blk, [][]byte{buf})
	return err
}

// Write writes buf as block blk, which must already exist or be the next
// block (extension by write, as redo may need).
func (m *Manager) Write(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, buf []byte) error {
	fk := m.get(rel, f)
	seg := int(blk / BlocksPerSegment)
	fk.mu.Lock()
	fh, err := m.segment(rel, f, fk, seg, true)
	if err == nil {
		fk.dirty = true
		if fk.nblocks >= 0 && int64(blk) >= fk.nblocks {
			fk.nblocks = int64(blk) + 1
		}
	}
	fk.mu.Unlock()
	if err != nil {
		return m.ioErr("write", rel, f, blk, err)
	}
	off := int64(blk%BlocksPerSegment) * page.Size
	if m.direct && f != UndoFork && !aligned(buf) {
		b := AlignedBlocks(1)
		copy(b, buf[:page.Size])
		buf = b
	}
	if _, err := fh.WriteAt(buf[:page.Size], off); err != nil {
		return m.ioErr("write", rel, f, blk, err)
	}
	return nil
}

// Extend adds one zero-filled block at the end and returns its number.
func (m *Manager) Extend(rel RelFileNumber, f ForkNumber) (page.BlockNumber, error) {
	return m.ExtendBy(rel, f, 1)
}

var zeroPage [page.Size]byte

// ExtendBy adds n zero-filled blocks and returns the first new block number.
func (m *Manager) ExtendBy(rel RelFileNumber, f ForkNumber, n int) (page.BlockNumber, error) {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	cur, err := m.nblocksLocked(rel, f, fk)
	if err != nil {
		return 0, m.ioErr("extend", rel, f, page.BlockNumber(cur), err)
	}
	first := cur
	zeros := zeroPage[:]
	if m.direct && f != UndoFork {
		zeros = AlignedBlocks(1)
	}
	for i := 0; i < n; i++ {
		blk := cur + int64(i)
		seg := int(blk / BlocksPerSegment)
		fh, err := m.segment(rel, f, fk, seg, true)
		if err != nil {
			return 0, m.ioErr("extend", rel, f, page.BlockNumber(blk), err)
		}
		if inj := m.faults.write.Load(); inj != nil {
			if err := (*inj)(rel, f, page.BlockNumber(blk), 1); err != nil {
				fk.nblocks = -1 // blocks before this one may have been added
				return 0, m.extendErr(rel, f, page.BlockNumber(blk), err)
			}
		}
		if _, err := fh.WriteAt(zeros, (blk%BlocksPerSegment)*page.Size); err != nil {
			fk.nblocks = -1
			return 0, m.extendErr(rel, f, page.BlockNumber(blk), err)
		}
	}
	fk.nblocks = cur + int64(n)
	fk.dirty = true
	return page.BlockNumber(first), nil
}

// Truncate shortens the fork to nblocks blocks.
func (m *Manager) Truncate(rel RelFileNumber, f ForkNumber, nblocks page.BlockNumber) error {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	cur, err := m.nblocksLocked(rel, f, fk)
	if err != nil {
		return err
	}
	if int64(nblocks) >= cur {
		return nil
	}
	lastSeg := int(cur / BlocksPerSegment)
	for seg := lastSeg; seg >= 0; seg-- {
		segStart := int64(seg) * BlocksPerSegment
		fh, err := m.segment(rel, f, fk, seg, false)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		keep := int64(nblocks) - segStart
		if keep < 0 {
			keep = 0
		}
		if keep >= BlocksPerSegment {
			break
		}
		if err := fh.Truncate(keep * page.Size); err != nil {
			return m.ioErr("truncate", rel, f, nblocks, err)
		}
		if err := fh.Sync(); err != nil {
			return m.ioErr("fsync", rel, f, nblocks, err)
		}
	}
	fk.nblocks = int64(nblocks)
	return nil
}

// SyncAll fsyncs every open segment of every fork written since the last
// SyncAll (syncFiles: each file once, a few at a time).
func (m *Manager) SyncAll() error {
	m.mu.Lock()
	forks := make([]*fork, 0, len(m.forks))
	for _, fk := range m.forks {
		forks = append(forks, fk)
	}
	m.mu.Unlock()
	var files []*os.File
	for _, fk := range forks {
		fk.mu.Lock()
		if fk.dirty {
			for _, fh := range fk.segs {
				if fh != nil {
					files = append(files, fh)
				}
			}
			fk.dirty = false
		}
		fk.mu.Unlock()
	}
	return m.syncFiles(files)
}

// Unlink removes every fork and segment of rel. Missing files are fine
// (redo may unlink twice).
func (m *Manager) Unlink(rel RelFileNumber) error {
	for f := ForkNumber(0); f < NumForks; f++ {
		fk := m.get(rel, f)
		fk.mu.Lock()
		for _, fh := range fk.segs {
			if fh != nil {
				fh.Close()
			}
		}
		fk.segs = nil
		fk.nblocks = -1
		for seg := 0; ; seg++ {
			err := os.Remove(m.path(rel, f, seg))
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if err != nil {
				fk.mu.Unlock()
				return fmt.Errorf("could not remove file %q: %w", m.path(rel, f, seg), err)
			}
		}
		fk.mu.Unlock()
		m.mu.Lock()
		delete(m.forks, forkKey{rel, f})
		m.mu.Unlock()
	}
	return nil
}

// UnlinkFork removes every segment of one fork of rel (an undo log chunk,
// whose relation number names no relation). Missing files are fine.
func (m *Manager) UnlinkFork(rel RelFileNumber, f ForkNumber) error {
	fk := m.get(rel, f)
	fk.mu.Lock()
	defer fk.mu.Unlock()
	for _, fh := range fk.segs {
		if fh != nil {
			fh.Close()
		}
	}
	fk.segs = nil
	fk.nblocks = -1
	fk.dirty = false
	for seg := 0; ; seg++ {
		err := os.Remove(m.path(rel, f, seg))
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("could not remove file %q: %w", m.path(rel, f, seg), err)
		}
	}
	m.mu.Lock()
	delete(m.forks, forkKey{rel, f})
	m.mu.Unlock()
	return nil
}

// Close closes every open file.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, fk := range m.forks {
		fk.mu.Lock()
		for _, fh := range fk.segs {
			if fh != nil {
				fh.Close()
			}
		}
		fk.segs = nil
		fk.mu.Unlock()
	}
	return nil
}

// extendErr is PostgreSQL's mdextend failure: 53100 for a full disk
// (errcode_for_file_access), with its hint. The statement fails; nothing
// is half-done (the fork's size is read again from the file next time),
// so writes succeed again once there is space.
func (m *Manager) extendErr(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, err error) error {
	code := pgerr.IOError
	if errors.Is(err, syscall.ENOSPC) {
		code = pgerr.DiskFull
	}
	return pgerr.Errorf(code, "could not extend file \"%s\": %s", m.relPath(rel, f, blk), errnoText(err)).WithHint("Check free disk space.")
}

func (m *Manager) ioErr(op string, rel RelFileNumber, f ForkNumber, blk page.BlockNumber, err error) error {
	return pgerr.Errorf(pgerr.IOError, "could not %s block %d in file %q: %v", op, blk, m.path(rel, f, int(blk/BlocksPerSegment)), err)
}
