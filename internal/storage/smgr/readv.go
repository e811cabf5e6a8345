package smgr

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// DirectAlign is the buffer and offset alignment O_DIRECT needs (the
// logical block size of every common file system is at most 4 KiB).
const DirectAlign = 4096

// maxIOV bounds the iovecs of one preadv (IOV_MAX is 1024 on Linux; a
// combined read is at most 32 blocks anyway).
const maxIOV = 1024

// AlignedBlocks returns n zeroed blocks in one slice whose start is
// DirectAlign-aligned, as O_DIRECT needs.
func AlignedBlocks(n int) []byte {
	raw := make([]byte, n*page.Size+DirectAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % DirectAlign); r != 0 {
		off = DirectAlign - r
	}
	return raw[off : off+n*page.Size : off+n*page.Size]
}

func aligned(b []byte) bool { return uintptr(unsafe.Pointer(&b[0]))%DirectAlign == 0 }

// SetDirect makes the manager open relation files with O_DIRECT
// (io_direct = data), so reads bypass the kernel's page cache and its
// read-ahead. It must be called before any file is opened; it fails with
// a clear message when the file system refuses O_DIRECT.
func (m *Manager) SetDirect(on bool) error {
	if !on {
		m.direct = false
		return nil
	}
	probe := filepath.Join(m.dir, ".direct_io_probe")
	fh, err := os.OpenFile(probe, os.O_RDWR|os.O_CREATE|syscall.O_DIRECT, 0o600)
	if err == nil {
		buf := AlignedBlocks(1)
		_, err = fh.WriteAt(buf, 0)
		fh.Close()
	}
	os.Remove(probe)
	if err != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "io_direct = data is not supported by the file system of %q: %v", m.dir, errnoText(err)).
			WithHint("Set io_direct to an empty string, or put the data directory on a file system that allows O_DIRECT.")
	}
	m.direct = true
	return nil
}

// Direct reports whether relation files are opened with O_DIRECT.
func (m *Manager) Direct() bool { return m.direct }

// ReadFaultFunc may fail the read of a block with an injected error (tests
// of the error paths: EIO, a short read).
type ReadFaultFunc func(rel RelFileNumber, f ForkNumber, blk page.BlockNumber) error

// ErrShortRead, returned by a ReadFaultFunc, makes the read of that block
// come back short (as at the end of the file).
var ErrShortRead = errors.New("short read")

// SetReadFault installs (nil: removes) a read fault injector.
func (m *Manager) SetReadFault(fn ReadFaultFunc) {
	if fn == nil {
		m.readFault.Store(nil)
		return
	}
	m.readFault.Store(&fn)
}

// ReadV reads the consecutive blocks first, first+1, … into bufs (one
// 8 KiB slice per block) with as few preadv calls as it can: one per
// segment the run touches, plus one more for each short read it must
// continue. It returns the number of read system calls made, so callers
// can report them. Reading past the end of the fork, or any I/O error,
// fails the whole run with PostgreSQL's "could not read block N in file"
// naming the first block not read.
func (m *Manager) ReadV(rel RelFileNumber, f ForkNumber, first page.BlockNumber, bufs [][]byte) (int, error) {
	calls := 0
	for len(bufs) > 0 {
		seg := int(first / BlocksPerSegment)
		n := len(bufs)
		if room := int(BlocksPerSegment - first%BlocksPerSegment); n > room {
			n = room
		}
		if n > maxIOV {
			n = maxIOV
		}
		c, err := m.readSegment(rel, f, seg, first, bufs[:n])
		calls += c
		if err != nil {
			return calls, err
		}
		first += page.BlockNumber(n)
		bufs = bufs[n:]
	}
	return calls, nil
}

// readSegment reads blocks of one segment, continuing after short reads.
func (m *Manager) readSegment(rel RelFileNumber, f ForkNumber, seg int, first page.BlockNumber, bufs [][]byte) (int, error) {
	fk := m.get(rel, f)
	fk.mu.Lock()
	fh, err := m.segment(rel, f, fk, seg, false)
	fk.mu.Unlock()
	if err != nil {
		return 0, m.readErr(rel, f, first, err)
	}
	if fault := m.readFault.Load(); fault != nil {
		for i := range bufs {
			if ferr := (*fault)(rel, f, first+page.BlockNumber(i)); ferr != nil {
				if errors.Is(ferr, ErrShortRead) {
					return 1, m.shortReadErr(rel, f, first+page.BlockNumber(i), 0)
				}
				return 1, m.readErr(rel, f, first+page.BlockNumber(i), ferr)
			}
		}
	}
	dst := bufs
	var bounce []byte
	if m.direct && !allAligned(bufs) {
		bounce = AlignedBlocks(len(bufs))
		dst = make([][]byte, len(bufs))
		for i := range dst {
			dst[i] = bounce[i*page.Size : (i+1)*page.Size]
		}
	}
	off := int64(first%BlocksPerSegment) * page.Size
	total := len(dst) * page.Size
	done, calls := 0, 0
	for done < total {
		if lat := m.IOLatency.Load(); lat > 0 {
			injectLatency(time.Duration(lat))
		}
		calls++
		n, err := preadv(fh, dst, done, off+int64(done))
		if err != nil {
			return calls, m.readErr(rel, f, first+page.BlockNumber(done/page.Size), err)
		}
		if n == 0 {
			blk := first + page.BlockNumber(done/page.Size)
			return calls, m.shortReadErr(rel, f, blk, done%page.Size)
		}
		done += n
	}
	if bounce != nil {
		for i := range bufs {
			copy(bufs[i][:page.Size], dst[i])
		}
	}
	return calls, nil
}

func allAligned(bufs [][]byte) bool {
	for _, b := range bufs {
		if !aligned(b) {
			return false
		}
	}
	return true
}

// preadv reads into bufs, skipping the first skip bytes of them, at off.
func preadv(fh *os.File, bufs [][]byte, skip int, off int64) (int, error) {
	iov := make([]syscall.Iovec, 0, len(bufs))
	for _, b := range bufs {
		b = b[:page.Size]
		if skip >= len(b) {
			skip -= len(b)
			continue
		}
		b = b[skip:]
		skip = 0
		v := syscall.Iovec{Base: &b[0]}
		v.SetLen(len(b))
		iov = append(iov, v)
	}
	rc, err := fh.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n uintptr
	var errno syscall.Errno
	cerr := rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.Syscall6(syscall.SYS_PREADV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)), uintptr(off), 0, 0)
			if errno != syscall.EINTR {
				return true
			}
		}
	})
	if cerr != nil {
		return 0, cerr
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// relPath names a segment relative to the data directory ("base/16385.1"),
// as PostgreSQL's messages do.
func (m *Manager) relPath(rel RelFileNumber, f ForkNumber, blk page.BlockNumber) string {
	p := m.path(rel, f, int(blk/BlocksPerSegment))
	return filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p)
}

func (m *Manager) shortReadErr(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, got int) error {
	return pgerr.Errorf(pgerr.DataCorrupted, "could not read block %d in file \"%s\": read only %d of %d bytes", blk, m.relPath(rel, f, blk), got, page.Size)
}

func (m *Manager) readErr(rel RelFileNumber, f ForkNumber, blk page.BlockNumber, err error) error {
	return pgerr.Errorf(pgerr.IOError, "could not read block %d in file \"%s\": %s", blk, m.relPath(rel, f, blk), errnoText(err))
}

// errnoText is strerror's wording (what PostgreSQL's %m prints) for the
// errors a read or write meets; others keep Go's text.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EIO:
			return "Input/output error"
		case syscall.ENOSPC:
			return "No space left on device"
		case syscall.EINVAL:
			return "Invalid argument"
		case syscall.ENOENT:
			return "No such file or directory"
		case syscall.EACCES:
			return "Permission denied"
		}
	}
	return fmt.Sprint(err)
}

// injectLatency blocks the calling thread for d, as a slow read system
// call would. nanosleep rather than time.Sleep: Go's timers wake on a
// millisecond tick here, which turned 200µs into well over 1ms.
func injectLatency(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
