package smgr

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

func block(tag byte, blk page.BlockNumber) []byte {
	b := make([]byte, page.Size)
	for i := range b {
		b[i] = tag + byte(blk) + byte(i/512)
	}
	return b
}

func mustN(t *testing.T, m *Manager, rel RelFileNumber, f ForkNumber, want page.BlockNumber) {
	t.Helper()
	n, err := m.NBlocks(rel, f)
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("nblocks %d, want %d", n, want)
	}
}

func TestFileNames(t *testing.T) {
	m, _ := Open(t.TempDir())
	cases := []struct {
		f    ForkNumber
		seg  int
		want string
	}{{MainFork, 0, "16384"}, {FSMFork, 0, "16384_fsm"}, {VMFork, 0, "16384_vm"}, {MainFork, 2, "16384.2"}, {FSMFork, 1, "16384_fsm.1"}}
	for _, c := range cases {
		if got := filepath.Base(m.path(16384, c.f, c.seg)); got != c.want {
			t.Errorf("%v seg %d: %s, want %s", c.f, c.seg, got, c.want)
		}
	}
	if BlocksPerSegment != 131072 {
		t.Fatal("RELSEG_SIZE")
	}
}

func TestCreateExtendReadWrite(t *testing.T) {
	dir := t.TempDir()
	m, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const rel = 100
	if m.Exists(rel, MainFork) {
		t.Fatal("exists before create")
	}
	mustN(t, m, rel, MainFork, 0)
	if err := m.Create(rel, MainFork); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(rel, MainFork); err != nil { // idempotent
		t.Fatal(err)
	}
	if !m.Exists(rel, MainFork) || m.Exists(rel, VMFork) {
		t.Fatal("Exists")
	}
	for i := 0; i < 5; i++ {
		blk, err := m.Extend(rel, MainFork)
		if err != nil || blk != page.BlockNumber(i) {
			t.Fatalf("extend: %d %v", blk, err)
		}
	}
	first, err := m.ExtendBy(rel, MainFork, 3)
	if err != nil || first != 5 {
		t.Fatalf("extendby: %d %v", first, err)
	}
	mustN(t, m, rel, MainFork, 8)
	buf := make([]byte, page.Size)
	if err := m.Read(rel, MainFork, 6, buf); err != nil || !bytes.Equal(buf, make([]byte, page.Size)) {
		t.Fatal("extended block not zero")
	}
	for blk := page.BlockNumber(0); blk < 8; blk++ {
		if err := m.Write(rel, MainFork, blk, block(1, blk)); err != nil {
			t.Fatal(err)
		}
	}
	// Extension by writing the next block (redo does this).
	if err := m.Write(rel, MainFork, 8, block(1, 8)); err != nil {
		t.Fatal(err)
	}
	mustN(t, m, rel, MainFork, 9)
	// A fresh manager sees the same sizes and bytes.
	m2, _ := Open(dir)
	mustN(t, m2, rel, MainFork, 9)
	for blk := page.BlockNumber(0); blk < 9; blk++ {
		if err := m2.Read(rel, MainFork, blk, buf); err != nil || !bytes.Equal(buf, block(1, blk)) {
			t.Fatalf("block %d: %v", blk, err)
		}
	}
	// Reading past the end: XX001, like PostgreSQL's "read only 0 of 8192 bytes".
	err = m2.Read(rel, MainFork, 9, buf)
	if pgerr.Code(err) != pgerr.DataCorrupted {
		t.Fatalf("read past end: %v", err)
	}
	// Reading a missing fork: I/O error 58030.
	if err := m2.Read(rel, VMFork, 0, buf); pgerr.Code(err) != pgerr.IOError {
		t.Fatalf("missing fork: %v", err)
	}
	if err := m2.Truncate(rel, MainFork, 4); err != nil {
		t.Fatal(err)
	}
	mustN(t, m2, rel, MainFork, 4)
	if st, _ := os.Stat(filepath.Join(dir, "100")); st.Size() != 4*page.Size {
		t.Fatalf("file size %d", st.Size())
	}
	if err := m2.Truncate(rel, MainFork, 10); err != nil { // growing is a no-op
		t.Fatal(err)
	}
	mustN(t, m2, rel, MainFork, 4)
	if err := m2.SyncAll(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m2.Close()
}

// makeFullSegment creates segment 0 of a fork as a sparse file of exactly
// BlocksPerSegment blocks, so that segment boundaries can be tested
// without writing 1 GiB (BlocksPerSegment is a constant; the file takes
// no disk space until written). Block 0 and the last block get contents.
func makeFullSegment(t *testing.T, dir string, rel RelFileNumber, f ForkNumber) {
	t.Helper()
	fh, err := os.Create((&Manager{dir: dir}).path(rel, f, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := fh.Truncate(BlocksPerSegment * page.Size); err != nil {
		t.Skipf("no sparse files: %v", err)
	}
	if _, err := fh.WriteAt(block(2, 0), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt(block(2, BlocksPerSegment-1), (BlocksPerSegment-1)*page.Size); err != nil {
		t.Fatal(err)
	}
}

// TestSegmentBoundary extends, writes, reads and truncates across the
// 1 GiB boundary between segment 0 and segment 1 (file "<rel>.1").
func TestSegmentBoundary(t *testing.T) {
	dir := t.TempDir()
	const rel = 200
	makeFullSegment(t, dir, rel, MainFork)
	m, _ := Open(dir)
	defer m.Close()
	mustN(t, m, rel, MainFork, BlocksPerSegment)
	first, err := m.ExtendBy(rel, MainFork, 3)
	if err != nil || first != BlocksPerSegment {
		t.Fatalf("extend into segment 1: %d %v", first, err)
	}
	seg1 := filepath.Join(dir, "200.1")
	if st, err := os.Stat(seg1); err != nil || st.Size() != 3*page.Size {
		t.Fatalf("segment 1: %v", err)
	}
	mustN(t, m, rel, MainFork, BlocksPerSegment+3)
	for _, blk := range []page.BlockNumber{BlocksPerSegment - 1, BlocksPerSegment, BlocksPerSegment + 2} {
		if err := m.Write(rel, MainFork, blk, block(3, blk)); err != nil {
			t.Fatal(err)
		}
	}
	// A new manager finds the size by walking the segments.
	m2, _ := Open(dir)
	defer m2.Close()
	mustN(t, m2, rel, MainFork, BlocksPerSegment+3)
	buf := make([]byte, page.Size)
	for _, blk := range []page.BlockNumber{BlocksPerSegment - 1, BlocksPerSegment, BlocksPerSegment + 2} {
		if err := m2.Read(rel, MainFork, blk, buf); err != nil || !bytes.Equal(buf, block(3, blk)) {
			t.Fatalf("block %d: %v", blk, err)
		}
	}
	if err := m2.Read(rel, MainFork, 0, buf); err != nil || !bytes.Equal(buf, block(2, 0)) {
		t.Fatal("block 0")
	}
	// Block BlocksPerSegment+1 lives at offset 8192 of segment 1.
	raw, _ := os.ReadFile(seg1)
	if !bytes.Equal(raw[2*page.Size:], block(3, BlocksPerSegment+2)) {
		t.Fatal("segment 1 offset")
	}
	// Truncate to the boundary exactly: segment 1 becomes empty.
	if err := m2.Truncate(rel, MainFork, BlocksPerSegment); err != nil {
		t.Fatal(err)
	}
	mustN(t, m2, rel, MainFork, BlocksPerSegment)
	if st, err := os.Stat(seg1); err == nil && st.Size() != 0 {
		t.Fatalf("segment 1 still %d bytes", st.Size())
	}
	// Extend again, then truncate into segment 0.
	if _, err := m2.ExtendBy(rel, MainFork, 2); err != nil {
		t.Fatal(err)
	}
	mustN(t, m2, rel, MainFork, BlocksPerSegment+2)
	if err := m2.Truncate(rel, MainFork, 10); err != nil {
		t.Fatal(err)
	}
	mustN(t, m2, rel, MainFork, 10)
	m3, _ := Open(dir)
	defer m3.Close()
	mustN(t, m3, rel, MainFork, 10)
	if err := m3.Read(rel, MainFork, BlocksPerSegment, buf); err == nil {
		t.Fatal("read a truncated block")
	}
	if err := m3.Unlink(rel); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("files left after unlink: %v", ents)
	}
}

func TestUnlinkAllForks(t *testing.T) {
	dir := t.TempDir()
	m, _ := Open(dir)
	for f := ForkNumber(0); f < NumForks; f++ {
		if _, err := m.Extend(300, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Unlink(300); err != nil {
		t.Fatal(err)
	}
	if err := m.Unlink(300); err != nil { // twice: fine (redo)
		t.Fatal(err)
	}
	for f := ForkNumber(0); f < NumForks; f++ {
		if m.Exists(300, f) {
			t.Fatalf("%v survives", f)
		}
		mustN(t, m, 300, f, 0)
	}
}

// TestConcurrentIO: parallel writers of distinct blocks and extenders of
// another fork, under -race.
func TestConcurrentIO(t *testing.T) {
	m, _ := Open(t.TempDir())
	defer m.Close()
	const rel, nblk = 400, 64
	if _, err := m.ExtendBy(rel, MainFork, nblk); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, page.Size)
			for i := 0; i < 50; i++ {
				blk := page.BlockNumber(g*8 + i%8)
				if err := m.Write(rel, MainFork, blk, block(byte(g), blk)); err != nil {
					t.Error(err)
					return
				}
				if err := m.Read(rel, MainFork, blk, buf); err != nil || !bytes.Equal(buf, block(byte(g), blk)) {
					t.Errorf("block %d: %v", blk, err)
					return
				}
				if _, err := m.Extend(rel, FSMFork); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	mustN(t, m, rel, FSMFork, 8*50)
}

// TestWriteBlocksAcrossSegments: a combined write that crosses a segment
// boundary is split at it, each part one system call, and reads back.
func TestWriteBlocksAcrossSegments(t *testing.T) {
	dir := t.TempDir()
	m, _ := Open(dir)
	defer m.Close()
	const rel RelFileNumber = 16500
	if err := m.Create(rel, MainFork); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "16500"), int64(BlocksPerSegment-2)*page.Size); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m, _ = Open(dir)
	first := page.BlockNumber(BlocksPerSegment - 2)
	var calls [][2]int
	m.SetWriteFault(func(r RelFileNumber, f ForkNumber, blk page.BlockNumber, n int) error {
		calls = append(calls, [2]int{int(blk), n})
		return nil
	})
	bufs := [][]byte{block(1, first), block(1, first+1), block(1, first+2), block(1, first+3)}
	if err := m.WriteBlocks(rel, MainFork, first, bufs); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0] != [2]int{int(first), 2} || calls[1] != [2]int{int(first) + 2, 2} {
		t.Fatalf("write calls %v", calls)
	}
	mustN(t, m, rel, MainFork, first+4)
	got := make([]byte, page.Size)
	for i := range bufs {
		if err := m.Read(rel, MainFork, first+page.BlockNumber(i), got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bufs[i]) {
			t.Fatalf("block %d differs", first+page.BlockNumber(i))
		}
	}
	// Four adjacent blocks pending are merged into one hint per segment.
	wb := m.NewWriteback(4)
	wb.Add(rel, MainFork, first+1, 1)
	wb.Add(rel, MainFork, first, 1)
	if wb.Issued != 0 {
		t.Fatal("hint issued before flush_after blocks were pending")
	}
	wb.Add(rel, MainFork, first+2, 2)
	if wb.Issued != 2 {
		t.Fatalf("writeback hints %d, want 2 (one per segment)", wb.Issued)
	}
}
