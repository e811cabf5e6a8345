package smgr

import (
	"os"
	"syscall"
	"unsafe"
)

// pwritev writes bufs at off with pwritev(2), continuing after a short
// write, so a run of adjacent blocks costs one system call.
func pwritev(fh *os.File, bufs [][]byte, off int64) error {
	iov := make([]syscall.Iovec, 0, len(bufs))
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		v := syscall.Iovec{Base: &b[0]}
		v.SetLen(len(b))
		iov = append(iov, v)
	}
	rc, err := fh.SyscallConn()
	if err != nil {
		return err
	}
	for len(iov) > 0 {
		var n uintptr
		var errno syscall.Errno
		cerr := rc.Control(func(fd uintptr) {
			for {
				// pos_h is 0: on 64-bit Linux pos_l carries the whole offset.
				n, _, errno = syscall.Syscall6(syscall.SYS_PWRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)), uintptr(off), 0, 0)
				if errno != syscall.EINTR {
					return
				}
			}
		})
		if cerr != nil {
			return cerr
		}
		if errno != 0 {
			return errno
		}
		if n == 0 {
			return syscall.EIO
		}
		off += int64(n)
		iov = advanceIovecs(iov, int(n))
	}
	return nil
}

// advanceIovecs drops n written bytes from the front of iov.
func advanceIovecs(iov []syscall.Iovec, n int) []syscall.Iovec {
	for n > 0 && len(iov) > 0 {
		l := int(iov[0].Len)
		if n < l {
			iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(iov[0].Base), n))
			iov[0].SetLen(l - n)
			return iov
		}
		n -= l
		iov = iov[1:]
	}
	return iov
}

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writeback of the
// range's dirty pages without waiting for it.
const syncFileRangeWrite = 2

// writebackHint asks the kernel to start writing a range back
// (sync_file_range, as PostgreSQL's pg_flush_data on Linux).
func writebackHint(fh *os.File, off, n int64) {
	rc, err := fh.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, fd, uintptr(off), uintptr(n), syncFileRangeWrite, 0, 0)
	})
}
