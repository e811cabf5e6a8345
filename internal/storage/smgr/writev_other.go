//go:build !linux

package smgr

import "os"

// pwritev writes bufs at off, one WriteAt per block where the system has
// no pwritev the standard library can reach.
func pwritev(fh *os.File, bufs [][]byte, off int64) error {
	for _, b := range bufs {
		if _, err := fh.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
	}
	return nil
}

// writebackHint is a no-op where sync_file_range does not exist.
func writebackHint(fh *os.File, off, n int64) {}
