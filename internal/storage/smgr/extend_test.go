package smgr

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// A fork that cannot grow fails the extension with PostgreSQL's mdextend
// error, and extends again once the write fault (a full disk) is gone.
func TestExtendOnFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "base") // as the engine opens it
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rel := RelFileNumber(16600)
	if err := m.Create(rel, MainFork); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ExtendBy(rel, MainFork, 3); err != nil {
		t.Fatal(err)
	}
	m.SetWriteFault(func(r RelFileNumber, f ForkNumber, blk page.BlockNumber, n int) error {
		if r == rel && blk >= 3 {
			return syscall.ENOSPC
		}
		return nil
	})
	_, err = m.Extend(rel, MainFork)
	pe := pgerr.From(err)
	if pe.Code != pgerr.DiskFull || pe.Message != `could not extend file "base/16600": No space left on device` || pe.Hint != "Check free disk space." {
		t.Fatalf("got %s %q hint %q", pe.Code, pe.Message, pe.Hint)
	}
	mustN(t, m, rel, MainFork, 3)
	m.SetWriteFault(func(RelFileNumber, ForkNumber, page.BlockNumber, int) error { return syscall.EIO })
	if _, err := m.Extend(rel, MainFork); pgerr.Code(err) != pgerr.IOError {
		t.Fatalf("EIO: got %v", err)
	}
	m.SetWriteFault(nil)
	blk, err := m.Extend(rel, MainFork)
	if err != nil || blk != 3 {
		t.Fatalf("after space came back: block %d, %v", blk, err)
	}
	mustN(t, m, rel, MainFork, 4)
}
