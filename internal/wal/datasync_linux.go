package wal

import (
	"os"
	"syscall"
)

// datasync flushes a file's data (and only the metadata needed to read it
// back), as PostgreSQL's default wal_sync_method fdatasync.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
