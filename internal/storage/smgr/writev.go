package smgr

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"syscall"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// WriteFault, when installed with SetWriteFault, is called before every
// write system call of WriteBlocks and ExtendBy with the run it is about
// to write; a
// non-nil result is returned as that system call's error (tests inject
// EIO or ENOSPC into combined writes this way).
type WriteFault func(rel RelFileNumber, f ForkNumber, first page.BlockNumber, nblocks int) error

// SyncFault, when installed with SetSyncFault, is called before every
// fsync of SyncAll with the file's name; a non-nil result is that fsync's
// error.
type SyncFault func(name string) error

type faults struct {
	write atomic.Pointer[WriteFault]
	sync  atomic.Pointer[SyncFault]
}

// SetWriteFault installs (or with nil removes) a write fault injector.
func (m *Manager) SetWriteFault(f WriteFault) {
	if f == nil {
		m.faults.write.Store(nil)
		return
	}
	m.faults.write.Store(&f)
}

// SetSyncFault installs (or with nil removes) an fsync fault injector.
func (m *Manager) SetSyncFault(f SyncFault) {
	if f == nil {
		m.faults.sync.Store(nil)
		return
	}
	m.faults.sync.Store(&f)
}

func (m *Manager) syncFault(name string) error {
	if f := m.faults.sync.Load(); f != nil {
		return (*f)(name)
	}
	return nil
}

// WriteBlocks writes len(bufs) consecutive blocks of a fork, the first at
// blk, with one vectored write per segment the run touches (pwritev), as
// PostgreSQL 17's smgrwritev. Every block must already exist, or the run
// must start at the fork's end (extension by write). Each buf is one 8 KiB
// page. It returns the error of the first system call that fails, naming
// the blocks it was writing; blocks before them may be on disk.
func (m *Manager) WriteBlocks(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, bufs [][]byte) error {
	for len(bufs) > 0 {
		seg := int(blk / BlocksPerSegment)
		n := len(bufs)
		if room := int(BlocksPerSegment - blk%BlocksPerSegment); n > room {
			n = room
		}
		if err := m.writeSegmentRun(rel, f, seg, blk, bufs[:n]); err != nil {
			return err
		}
		blk += page.BlockNumber(n)
		bufs = bufs[n:]
	}
	return nil
}

func (m *Manager) writeSegmentRun(rel RelFileNumber, f ForkNumber, seg int, blk page.BlockNumber, bufs [][]byte) error {
	fk := m.get(rel, f)
	fk.mu.Lock()
	fh, err := m.segment(rel, f, fk, seg, true)
	if err == nil {
		fk.dirty = true
		if end := int64(blk) + int64(len(bufs)); fk.nblocks >= 0 && end > fk.nblocks {
			fk.nblocks = end
		}
	}
	fk.mu.Unlock()
	if err != nil {
		return m.writeErr(rel, f, blk, len(bufs), err)
	}
	if inj := m.faults.write.Load(); inj != nil {
		if err := (*inj)(rel, f, blk, len(bufs)); err != nil {
			return m.writeErr(rel, f, blk, len(bufs), err)
		}
	}
	off := int64(blk%BlocksPerSegment) * page.Size
	if err := pwritev(fh, bufs, off); err != nil {
		return m.writeErr(rel, f, blk, len(bufs), err)
	}
	return nil
}

// writeErr is PostgreSQL's message for a failed (combined) write, with
// the SQLSTATE errcode_for_file_access gives the errno.
func (m *Manager) writeErr(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, n int, err error) error {
	path := m.path(rel, f, int(blk/BlocksPerSegment))
	code := pgerr.IOError
	if errors.Is(err, syscall.ENOSPC) {
		code = pgerr.DiskFull
	}
	if n == 1 {
		return pgerr.Errorf(code, "could not write block %d in file %q: %s", blk, path, strerror(err))
	}
	return pgerr.Errorf(code, "could not write blocks %d..%d in file %q: %s", blk, blk+page.BlockNumber(n)-1, path, strerror(err))
}

// strerror renders an OS error as PostgreSQL's %m does ("Input/output
// error"), falling back to the error's own text.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	return err.Error()
}

// Writeback collects ranges written and asks the kernel to start writing
// them back once `after` blocks are pending (PostgreSQL's WritebackContext
// behind checkpoint_flush_after and bgwriter_flush_after), so the final
// fsync finds little left to do and the disk is kept busy during the
// writes rather than after them. A zero `after` turns it off.
type Writeback struct {
	m       *Manager
	after   int
	pending []wbRange
	npages  int
	// Issued counts the writeback requests made (pg_stat_io's writebacks).
	Issued int64
}

type wbRange struct {
	rel  RelFileNumber
	fork ForkNumber
	blk  page.BlockNumber
	n    int
}

// NewWriteback returns a writeback context that flushes every `after`
// blocks.
func (m *Manager) NewWriteback(after int) *Writeback { return &Writeback{m: m, after: after} }

// Add notes n blocks written from blk on, issuing the hints if enough are
// pending.
func (w *Writeback) Add(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, n int) {
	if w == nil || w.after <= 0 {
		return
	}
	w.pending = append(w.pending, wbRange{rel, f, blk, n})
	w.npages += n
	if w.npages >= w.after {
		w.Issue()
	}
}

// Issue sends the pending hints: ranges are sorted and adjacent ones
// merged, one sync_file_range per merged range. Hints are advisory:
// failures are ignored (the fsync that follows reports any real error).
func (w *Writeback) Issue() {
	if w == nil || len(w.pending) == 0 {
		return
	}
	p := w.pending
	sort.Slice(p, func(i, j int) bool {
		a, b := p[i], p[j]
		if a.rel != b.rel {
			return a.rel < b.rel
		}
		if a.fork != b.fork {
			return a.fork < b.fork
		}
		return a.blk < b.blk
	})
	cur := p[0]
	for _, r := range p[1:] {
		if r.rel == cur.rel && r.fork == cur.fork && r.blk == cur.blk+page.BlockNumber(cur.n) &&
			r.blk/BlocksPerSegment == cur.blk/BlocksPerSegment {
			cur.n += r.n
			continue
		}
		w.hint(cur)
		cur = r
	}
	w.hint(cur)
	w.pending = w.pending[:0]
	w.npages = 0
}

func (w *Writeback) hint(r wbRange) {
	fk := w.m.get(r.rel, r.fork)
	seg := int(r.blk / BlocksPerSegment)
	fk.mu.Lock()
	var fh *os.File
	if seg < len(fk.segs) {
		fh = fk.segs[seg]
	}
	fk.mu.Unlock()
	if fh == nil {
		return
	}
	writebackHint(fh, int64(r.blk%BlocksPerSegment)*page.Size, int64(r.n)*page.Size)
	w.Issued++
}

// SyncFork fsyncs one fork's open segments now (smgrimmedsync), for a
// writer that bypassed shared buffers and must make its pages durable
// before it commits; unlike SyncAll it leaves every other file to the
// checkpoint. A failed fsync wraps ErrFsync.
func (m *Manager) SyncFork(rel RelFileNumber, f ForkNumber) error {
	fk := m.get(rel, f)
	fk.mu.Lock()
	var files []*os.File
	for _, fh := range fk.segs {
		if fh != nil {
			files = append(files, fh)
		}
	}
	fk.mu.Unlock()
	return m.syncFiles(files)
}

// syncParallelism is how many fsyncs run at once: the device takes
// several flushes in parallel, and the files' dirty data are independent.
const syncParallelism = 4

// syncFiles fsyncs each file, up to syncParallelism at a time. A file
// closed meanwhile belongs to a relation unlinked since (DROP, TRUNCATE):
// its data need not survive, so that is not an error. Any other failure is
// returned wrapping ErrFsync: the kernel may have dropped the dirty pages,
// so retrying could falsely succeed, and callers must treat it as fatal
// (PostgreSQL PANICs, data_sync_retry = off).
func (m *Manager) syncFiles(files []*os.File) error {
	sem := make(chan struct{}, syncParallelism)
	errs := make(chan error, len(files))
	for _, fh := range files {
		sem <- struct{}{}
		go func(fh *os.File) {
			defer func() { <-sem }()
			err := m.syncFault(fh.Name())
			if err == nil {
				err = fh.Sync()
			}
			if err != nil && !errors.Is(err, os.ErrClosed) {
				errs <- fmt.Errorf("%w: could not fsync file %q: %v", ErrFsync, fh.Name(), err)
			}
		}(fh)
	}
	for i := 0; i < cap(sem); i++ {
		sem <- struct{}{}
	}
	close(errs)
	return <-errs
}
