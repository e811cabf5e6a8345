package tempfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
)

// BlockSize is the unit temporary files are written and read in, and
// counted in (EXPLAIN's "temp read=… written=…" are BLCKSZ blocks).
const BlockSize = 8192

// Dir is where temporary files live, relative to the data directory
// (PostgreSQL's base/pgsql_tmp).
const Dir = "base/pgsql_tmp"

// Hooks tell the engine about temporary files. Either may be nil.
type Hooks struct {
	// Removed reports a file's removal and the bytes it held
	// (pg_stat_database's temp_files and temp_bytes).
	Removed func(size int64)
	// Logf writes a server log line (log_temp_files').
	Logf func(format string, args ...any)
}

// Manager owns an engine's temporary-file directory.
type Manager struct {
	dataDir string
	seq     atomic.Uint64
	hooks   Hooks
}

// NewManager empties (or creates) dataDir/base/pgsql_tmp: files left by
// a server that stopped mid-query belong to no one now.
func NewManager(dataDir string, hooks Hooks) (*Manager, error) {
	dir := filepath.Join(dataDir, Dir)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("could not remove temporary files in %q: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("could not create directory %q: %w", dir, err)
	}
	return &Manager{dataDir: dataDir, hooks: hooks}, nil
}

// Space is one backend's temporary files: temp_file_limit bounds the
// bytes they hold together at any moment, as PostgreSQL bounds a
// process's. A Space is used by one goroutine at a time, except that
// CloseAll may run after the owner's files were closed.
type Space struct {
	m   *Manager
	pid int32

	mu sync.Mutex
	// limit is temp_file_limit in bytes (<0: none); logMin is
	// log_temp_files in bytes (<0: off).
	limit, logMin int64
	used          int64
	open          map[*File]struct{}
}

// NewSpace returns the temporary-file space of backend pid.
func (m *Manager) NewSpace(pid int32) *Space {
	return &Space{m: m, pid: pid, limit: -1, logMin: -1, open: map[*File]struct{}{}}
}

// SetLimits sets temp_file_limit and log_temp_files, in kB (-1: none,
// off): the settings of the statement now creating files.
func (s *Space) SetLimits(limitKB, logMinKB int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit, s.logMin = -1, -1
	if limitKB >= 0 {
		s.limit = limitKB * 1024
	}
	if logMinKB >= 0 {
		s.logMin = logMinKB * 1024
	}
}

// Used is the bytes the space's open files hold.
func (s *Space) Used() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// OpenFiles is how many of the space's files exist.
func (s *Space) OpenFiles() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// CloseAll removes every file of the space still open: the safety net
// for files whose owner ended without closing them (a session that
// ends, a statement whose plan was abandoned).
func (s *Space) CloseAll() {
	s.mu.Lock()
	files := make([]*File, 0, len(s.open))
	for f := range s.open {
		files = append(files, f)
	}
	s.mu.Unlock()
	for _, f := range files {
		f.Close()
	}
}

// grow charges n more bytes to the space, refusing past temp_file_limit.
func (s *Space) grow(n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit >= 0 && s.used+n > s.limit {
		return pgerr.Errorf(pgerr.ConfigurationLimitExceeded, "temporary file size exceeds temp_file_limit (%dkB)", s.limit/1024)
	}
	s.used += n
	return nil
}

// File is a temporary file written once, from the start, then read
// (any number of times, by any number of Readers) until it is closed.
// Writes go out in BlockSize blocks; the file's owner charges the blocks
// it writes and reads to its usage counters.
type File struct {
	sp      *Space
	f       *os.File
	relPath string
	usage   *stats.Usage
	buf     []byte
	rowBuf  []byte // WriteRow's encoding buffer
	size    int64  // bytes written to the OS file
	closed  bool
}

// Create makes a new temporary file. usage (may be nil) is charged with
// the blocks it writes and its readers read.
func (s *Space) Create(usage *stats.Usage) (*File, error) {
	name := "pgsql_tmp" + strconv.Itoa(int(s.pid)) + "." + strconv.FormatUint(s.m.seq.Add(1)-1, 10)
	rel := Dir + "/" + name
	f, err := os.OpenFile(filepath.Join(s.m.dataDir, rel), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fileErr("could not create temporary file", rel, err)
	}
	tf := &File{sp: s, f: f, relPath: rel, usage: usage, buf: make([]byte, 0, BlockSize)}
	s.mu.Lock()
	s.open[tf] = struct{}{}
	s.mu.Unlock()
	return tf, nil
}

// Path is the file's path relative to the data directory.
func (f *File) Path() string { return f.relPath }

// Size is the bytes written so far (buffered ones included).
func (f *File) Size() int64 { return f.size + int64(len(f.buf)) }

// Write appends p.
func (f *File) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := copy(f.buf[len(f.buf):cap(f.buf)], p)
		f.buf = f.buf[:len(f.buf)+k]
		p = p[k:]
		if len(f.buf) == cap(f.buf) {
			if err := f.Flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// Flush writes the buffered bytes out (a last partial block included),
// so Readers see everything written.
func (f *File) Flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	if err := f.sp.grow(int64(len(f.buf))); err != nil {
		return err
	}
	if _, err := f.f.WriteAt(f.buf, f.size); err != nil {
		f.sp.grow(-int64(len(f.buf)))
		return fileErr("could not write to file", f.relPath, err)
	}
	f.size += int64(len(f.buf))
	if f.usage != nil {
		f.usage.Buf.TempWritten++
	}
	f.buf = f.buf[:0]
	return nil
}

// Close removes the file. It is safe to call more than once.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	s := f.sp
	s.mu.Lock()
	delete(s.open, f)
	s.used -= f.size
	logMin := s.logMin
	s.mu.Unlock()
	f.f.Close()
	err := os.Remove(filepath.Join(s.m.dataDir, f.relPath))
	if h := s.m.hooks; h.Removed != nil {
		h.Removed(f.size)
	}
	if h := s.m.hooks; h.Logf != nil && logMin >= 0 && f.size >= logMin {
		h.Logf("[%d] LOG:  temporary file: path \"%s\", size %d", s.pid, f.relPath, f.size)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fileErr("could not remove file", f.relPath, err)
	}
	return nil
}

// Reader reads a flushed File sequentially from an offset through its
// own buffer of bufBlocks blocks (at least one), so many runs of one
// merge can be read side by side.
type Reader struct {
	f        *File
	off, end int64
	buf      []byte
	pos      int
	rowBuf   []byte // ReadRow's body buffer
}

// NewReader reads [off, end) of f (end<0: to the flushed end).
func (f *File) NewReader(off, end int64, bufBlocks int) *Reader {
	if end < 0 {
		end = f.size
	}
	return &Reader{f: f, off: off, end: end, buf: make([]byte, 0, max(bufBlocks, 1)*BlockSize)}
}

// fill reads the next buffer's worth; io.EOF-like false at the end.
func (r *Reader) fill() (bool, error) {
	if r.off >= r.end {
		return false, nil
	}
	n := min(int64(cap(r.buf)), r.end-r.off)
	b := r.buf[:n]
	got, err := r.f.f.ReadAt(b, r.off)
	if int64(got) < n {
		if err == nil {
			err = errors.New("short read")
		}
		return false, pgerr.Errorf(pgerr.IOError, "could not read from temporary file %q: read only %d of %d bytes: %s", r.f.relPath, got, n, pgerr.Strerror(err))
	}
	r.off += n
	r.buf, r.pos = b, 0
	if r.f.usage != nil {
		r.f.usage.Buf.TempRead += (n + BlockSize - 1) / BlockSize
	}
	return true, nil
}

// ReadByte reads one byte.
func (r *Reader) ReadByte() (byte, error) {
	if r.pos >= len(r.buf) {
		ok, err := r.fill()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, errEOF
		}
	}
	b := r.buf[r.pos]
	r.pos++
	return b, nil
}

// ReadFull fills p, or fails: the caller knows how much is there.
func (r *Reader) ReadFull(p []byte) error {
	for len(p) > 0 {
		if r.pos >= len(r.buf) {
			ok, err := r.fill()
			if err != nil {
				return err
			}
			if !ok {
				return pgerr.Errorf(pgerr.DataCorrupted, "unexpected end of temporary file %q", r.f.relPath)
			}
		}
		k := copy(p, r.buf[r.pos:])
		r.pos += k
		p = p[k:]
	}
	return nil
}

// errEOF is the clean end of a Reader's range.
var errEOF = errors.New("tempfile: end of file")

// IsEOF reports the clean end of a Reader's range.
func IsEOF(err error) bool { return err == errEOF }

// fileErr is PostgreSQL's message for a failed file operation, with the
// SQLSTATE errcode_for_file_access gives the errno.
func fileErr(what, relPath string, err error) error {
	code := pgerr.IOError
	if errors.Is(err, syscall.ENOSPC) {
		code = pgerr.DiskFull
	}
	return pgerr.Errorf(code, "%s %q: %s", what, relPath, pgerr.Strerror(err))
}

// Extend lets r read on to f's flushed end: a file written while it is
// read (a growing tuple store) flushes, then its readers extend.
func (r *Reader) Extend() { r.end = r.f.size }

// Offset is the file offset of the next byte r returns.
func (r *Reader) Offset() int64 { return r.off - int64(len(r.buf)) + int64(r.pos) }
