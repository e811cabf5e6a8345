package tempfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
)

func TestStartUpEmptiesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, Dir, "pgsql_tmp99.0")
	os.MkdirAll(filepath.Dir(stale), 0o700)
	os.WriteFile(stale, []byte("left by a crash"), 0o600)
	if _, err := NewManager(dir, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temporary file survived start-up: %v", err)
	}
}

func TestWriteReadCountsBlocksAndRemoves(t *testing.T) {
	dir := t.TempDir()
	var removed []int64
	var logged []string
	m, err := NewManager(dir, Hooks{Removed: func(n int64) { removed = append(removed, n) },
		Logf: func(f string, a ...any) { logged = append(logged, f) }})
	if err != nil {
		t.Fatal(err)
	}
	sp := m.NewSpace(42)
	sp.SetLimits(-1, 0)
	var u stats.Usage
	f, err := sp.Create(&u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.Path(), "base/pgsql_tmp/pgsql_tmp42.") {
		t.Fatalf("path %q", f.Path())
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*BlockSize/16+7) // 3 blocks and a bit
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if u.Buf.TempWritten != 4 || sp.Used() != int64(len(data)) {
		t.Fatalf("written %d blocks, used %d; want 4, %d", u.Buf.TempWritten, sp.Used(), len(data))
	}
	r := f.NewReader(0, -1, 2)
	got := make([]byte, len(data))
	if err := r.ReadFull(got); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back differs (err %v)", err)
	}
	if _, err := r.ReadByte(); !IsEOF(err) {
		t.Fatalf("want EOF after the data, got %v", err)
	}
	if u.Buf.TempRead != 4 {
		t.Fatalf("read %d blocks, want 4", u.Buf.TempRead)
	}
	f.Close()
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, f.Path())); !os.IsNotExist(err) {
		t.Fatal("closed file still exists")
	}
	if len(removed) != 1 || removed[0] != int64(len(data)) || len(logged) != 1 || sp.Used() != 0 {
		t.Fatalf("removed %v, logged %v, used %d", removed, logged, sp.Used())
	}
}

func TestTempFileLimit(t *testing.T) {
	m, _ := NewManager(t.TempDir(), Hooks{})
	sp := m.NewSpace(1)
	sp.SetLimits(16, -1) // 16 kB: two blocks
	f, _ := sp.Create(nil)
	defer f.Close()
	_, err := f.Write(make([]byte, 3*BlockSize))
	if pgerr.Code(err) != pgerr.ConfigurationLimitExceeded || !strings.Contains(err.Error(), "temporary file size exceeds temp_file_limit (16kB)") {
		t.Fatalf("got %v", err)
	}
	// A second file shares the limit: the space is the backend's.
	g, _ := sp.Create(nil)
	defer g.Close()
	if _, err := g.Write(make([]byte, BlockSize+1)); err == nil {
		if err = g.Flush(); err == nil {
			t.Fatal("the second file was allowed past the space's limit")
		}
	}
}

func TestCloseAllRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	m, _ := NewManager(dir, Hooks{})
	sp := m.NewSpace(7)
	for i := 0; i < 3; i++ {
		f, _ := sp.Create(nil)
		f.Write([]byte("x"))
		f.Flush()
	}
	sp.CloseAll()
	ents, _ := os.ReadDir(filepath.Join(dir, Dir))
	if len(ents) != 0 || sp.OpenFiles() != 0 || sp.Used() != 0 {
		t.Fatalf("left %d files, %d open, %d bytes", len(ents), sp.OpenFiles(), sp.Used())
	}
}
