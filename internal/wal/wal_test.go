package wal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

func openWAL(t testing.TB, dir string, pos, prev LSN) *WAL {
	t.Helper()
	w, err := Open(dir, pos, prev, Options{Fsync: false, FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func readAll(t testing.TB, dir string, from LSN) ([]*Decoded, *Reader) {
	t.Helper()
	r := NewReader(dir, from)
	var out []*Decoded
	for {
		d, err := r.Next()
		if err == io.EOF {
			return out, r
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
}

func mainRecord(i int, size int) *Record {
	r := NewRecord(RmHeap, uint8(i%16)<<4, uint32(100+i))
	b := make([]byte, size)
	for j := range b {
		b[j] = byte(i + j)
	}
	r.SetMain(b)
	return r
}

// TestInsertReadBack: records come back in order with their fields, LSNs
// and prev-links, across reopening and across a segment boundary.
func TestInsertReadBack(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	var u stats.Usage
	var ends []LSN
	var starts []LSN
	sizes := []int{0, 1, 7, 100, 5000}
	for i := 0; i < 40; i++ {
		starts = append(starts, w.InsertPos())
		end, err := w.Insert(&u, mainRecord(i, sizes[i%len(sizes)]))
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
	}
	if u.WAL.Records != 40 || u.WAL.FPI != 0 {
		t.Fatalf("%+v", u.WAL)
	}
	if err := w.Flush(ends[len(ends)-1]); err != nil {
		t.Fatal(err)
	}
	if w.FlushedLSN() < ends[len(ends)-1] {
		t.Fatal("FlushedLSN")
	}
	// Big records that carry the log into the next segment.
	for i := 40; i < 40+20; i++ {
		starts = append(starts, w.InsertPos())
		end, err := w.Insert(&u, mainRecord(i, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if segs, _ := Segments(dir); len(segs) != 2 || segs[0] != 1 || segs[1] != 2 {
		t.Fatalf("segments %v", segs)
	}
	var total int64
	recs, r := readAll(t, dir, FirstLSN)
	if len(recs) != 60 {
		t.Fatalf("read %d records", len(recs))
	}
	for i, d := range recs {
		size := sizes[i%len(sizes)]
		if i >= 40 {
			size = 1 << 20
		}
		if d.LSN != starts[i] || d.EndLSN != ends[i] || d.LSN%8 != 0 {
			t.Fatalf("record %d at %s..%s, want %s..%s", i, FormatLSN(d.LSN), FormatLSN(d.EndLSN), FormatLSN(starts[i]), FormatLSN(ends[i]))
		}
		if i > 0 && d.Prev != starts[i-1] {
			t.Fatalf("record %d prev %s", i, FormatLSN(d.Prev))
		}
		if d.Rmgr != RmHeap || d.Info != uint8(i%16)<<4 || d.Xid != uint32(100+i) || len(d.Main) != size {
			t.Fatalf("record %d: %+v", i, d)
		}
		if !bytes.Equal(d.Main, mainRecord(i, size).main) {
			t.Fatalf("record %d main data", i)
		}
		total += int64(d.Len)
	}
	if total != u.WAL.Bytes {
		t.Fatalf("bytes counted %d, read %d", u.WAL.Bytes, total)
	}
	// Continue after reopening at the end: new records chain on.
	w = openWAL(t, dir, r.Pos(), r.Prev())
	if _, err := w.Insert(nil, mainRecord(99, 10)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs, _ = readAll(t, dir, FirstLSN)
	if len(recs) != 61 || recs[60].Xid != 199 || recs[60].Prev != starts[59] {
		t.Fatalf("after reopen: %d records", len(recs))
	}
	if d, err := ReadAt(dir, starts[10]); err != nil || d.Xid != 110 {
		t.Fatalf("ReadAt: %v", err)
	}
	if FormatLSN(FirstLSN) != "0/1000000" || FormatLSN(0x1_0000_0028) != "1/28" {
		t.Fatal("FormatLSN")
	}
}

func fileOf(dir string, l LSN) (string, int64) {
	return filepath.Join(dir, segName(uint64(l/SegmentSize))), int64(l % SegmentSize)
}

// TestTornTail: a crash that leaves the last record incomplete or
// corrupt ends the log cleanly at the record before it; reopening there
// wipes the damaged bytes and continues the chain.
func TestTornTail(t *testing.T) {
	for _, mode := range []string{"truncate", "flip", "zero-length"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			w := openWAL(t, dir, FirstLSN, 0)
			var starts []LSN
			for i := 0; i < 10; i++ {
				starts = append(starts, w.InsertPos())
				if _, err := w.Insert(nil, mainRecord(i, 300)); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			name, off := fileOf(dir, starts[9])
			f, _ := os.OpenFile(name, os.O_RDWR, 0)
			switch mode {
			case "truncate":
				f.Truncate(off + 100) // half of the last record reached disk
			case "flip":
				b := []byte{0}
				f.ReadAt(b, off+200)
				b[0] ^= 1
				f.WriteAt(b, off+200)
			case "zero-length":
				f.WriteAt(make([]byte, 4), off)
			}
			f.Close()
			recs, r := readAll(t, dir, FirstLSN)
			if len(recs) != 9 {
				t.Fatalf("%d records survive", len(recs))
			}
			if r.Pos() != starts[9] || r.Prev() != starts[8] {
				t.Fatal("reader position")
			}
			w = openWAL(t, dir, r.Pos(), r.Prev())
			w.Insert(nil, mainRecord(50, 20))
			w.Close()
			recs, _ = readAll(t, dir, FirstLSN)
			if len(recs) != 10 || recs[9].Xid != 150 {
				t.Fatalf("after restart: %d records", len(recs))
			}
		})
	}
}

// TestStaleRecordsNotReplayed: a record left from an earlier, longer log
// whose prev-link does not fit ends the log (reopening zeroes the tail, and
// the prev-link check catches what it did not).
func TestStaleRecordsNotReplayed(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	var starts []LSN
	for i := 0; i < 5; i++ {
		starts = append(starts, w.InsertPos())
		w.Insert(nil, mainRecord(i, 40))
	}
	w.Close()
	// Copy record 4's bytes to after record 2, as garbage of the same
	// shape: the prev-link (starts[3]) does not match starts[2].
	name, off4 := fileOf(dir, starts[4])
	raw, _ := os.ReadFile(name)
	_, off3 := fileOf(dir, starts[3])
	rec4 := append([]byte(nil), raw[off4:off4+int64(binary.LittleEndian.Uint32(raw[off4:]))]...)
	copy(raw[off3:], rec4)
	os.WriteFile(name, raw, 0o600)
	recs, _ := readAll(t, dir, FirstLSN)
	if len(recs) != 3 {
		t.Fatalf("%d records; a stale record was accepted", len(recs))
	}
}

func heapPage(r *rand.Rand, nitems int) page.Page {
	p := make(page.Page, page.Size)
	page.Init(p, 0, nil)
	for i := 0; i < nitems; i++ {
		b := make([]byte, 20+r.Intn(100))
		r.Read(b)
		p.AddItem(b, page.InvalidOffset, false, true, 291, nil)
	}
	return p
}

var testTag = buffer.Tag{Rel: 16384, Fork: smgr.MainFork, Block: 3}

// TestFullPageImageDecision: after BeginCheckpoint the first change to a
// page carries an image, later ones do not; WillInit and NoImage never do,
// ForceImage always does; full_page_writes=off turns images off.
func TestFullPageImageDecision(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	defer w.Close()
	r := rand.New(rand.NewSource(1))
	p := heapPage(r, 10)
	change := func(flags uint8) (fpi int64) {
		var d page.Delta
		d.PutUint16(p, 100, uint16(r.Uint32()))
		rec := NewRecord(RmHeap, 0, 5)
		rec.AddBlock(testTag, p, flags, &d)
		var u stats.Usage
		end, err := w.Insert(&u, rec)
		if err != nil {
			t.Fatal(err)
		}
		p.SetLSN(end)
		return u.WAL.FPI
	}
	w.BeginCheckpoint()
	if change(BlockStandard) != 1 {
		t.Fatal("first change after checkpoint without image")
	}
	if change(BlockStandard) != 0 || change(BlockStandard) != 0 {
		t.Fatal("second change with image")
	}
	if change(BlockStandard|BlockForceImage) != 1 {
		t.Fatal("ForceImage")
	}
	redo := w.BeginCheckpoint()
	if redo != w.RedoPtr() || redo != w.InsertPos() {
		t.Fatal("redo pointer")
	}
	if change(BlockStandard|BlockNoImage) != 0 {
		t.Fatal("NoImage got an image")
	}
	// The page's LSN is now after redo: no image for the next change either.
	if change(BlockStandard) != 0 {
		t.Fatal("image after a logged change")
	}
	w.BeginCheckpoint()
	var d page.Delta
	page.Init(p, 0, &d)
	rec := NewRecord(RmHeap, 0, 5)
	rec.AddBlock(testTag, p, BlockStandard, &d) // WillInit implied by d
	var u stats.Usage
	end, _ := w.Insert(&u, rec)
	p.SetLSN(end)
	if u.WAL.FPI != 0 {
		t.Fatal("image for a WillInit block")
	}
	w.BeginCheckpoint()
	w.SetFullPageWrites(false)
	if change(BlockStandard) != 0 {
		t.Fatal("image with full_page_writes off")
	}
	if change(BlockStandard|BlockForceImage) != 1 {
		t.Fatal("ForceImage with full_page_writes off")
	}
	w.SetFullPageWrites(true)
	w.Flush(w.InsertPos())
	recs, _ := readAll(t, dir, FirstLSN)
	var kinds []string
	for _, d := range recs {
		b := d.Blocks[0]
		switch {
		case b.HasImage:
			kinds = append(kinds, "image")
		case b.WillInit():
			kinds = append(kinds, "init")
		default:
			kinds = append(kinds, "delta")
		}
	}
	want := "[image delta delta image delta delta init delta image]"
	if fmt.Sprint(kinds) != want {
		t.Fatalf("%v, want %s", kinds, want)
	}
}

// TestHoleRemoval: an image of a standard page leaves out the hole
// between pd_lower and pd_upper and restores the page exactly; a page
// without BlockStandard is logged whole.
func TestHoleRemoval(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	r := rand.New(rand.NewSource(2))
	var pages []page.Page
	for _, n := range []int{0, 1, 30, 60} {
		pages = append(pages, heapPage(r, n))
	}
	full := heapPage(r, 0)
	for full.AddItem(make([]byte, 100), page.InvalidOffset, false, false, 0, nil) != page.InvalidOffset {
	}
	pages = append(pages, full)
	var u stats.Usage
	for _, p := range pages {
		rec := NewRecord(RmHeap, 0, 1)
		rec.AddBlock(testTag, p, BlockStandard|BlockForceImage, nil)
		w.Insert(&u, rec)
	}
	rnd := make(page.Page, page.Size)
	r.Read(rnd)
	rec := NewRecord(RmHeap, 0, 1)
	rec.AddBlock(testTag, rnd, BlockForceImage, nil) // not standard: whole
	w.Insert(&u, rec)
	w.Close()
	recs, _ := readAll(t, dir, FirstLSN)
	for i, d := range recs {
		b := d.Blocks[0]
		want := rnd
		if i < len(pages) {
			want = pages[i]
			if b.HoleOff != want.Lower() || b.HoleLen != want.Upper()-want.Lower() {
				t.Fatalf("page %d: hole %d+%d, lower %d upper %d", i, b.HoleOff, b.HoleLen, want.Lower(), want.Upper())
			}
			if d.Len >= HeaderSize+page.Size && b.HoleLen > 0 {
				t.Fatalf("page %d: record of %d bytes still holds the hole", i, d.Len)
			}
		} else if b.HoleLen != 0 || len(b.Image) != page.Size {
			t.Fatal("non-standard page image has a hole")
		}
		got := make(page.Page, page.Size)
		r.Read(got) // restore overwrites everything, the hole with zeroes
		if err := b.RestoreImage(got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("page %d not restored exactly", i)
		}
	}
	// An empty page image is 24 + 4 line... just header and nothing else.
	if len(recs[0].Blocks[0].Image) != page.HeaderSize {
		t.Fatalf("empty page image %d bytes", len(recs[0].Blocks[0].Image))
	}
}

// TestConcurrentInsertFlush: many goroutines insert and flush (group
// commit); every record is read back exactly once, in LSN order, with a
// consistent prev chain. Run with -race.
func TestConcurrentInsertFlush(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	const G, N = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < N; i++ {
				rec := NewRecord(RmXact, 0, uint32(g*N+i+FirstNormal))
				rec.SetMain(make([]byte, i%50))
				end, err := w.Insert(nil, rec)
				if err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					if err := w.Flush(end); err != nil {
						t.Error(err)
						return
					}
					if w.FlushedLSN() < end {
						t.Error("flush returned early")
					}
				}
			}
		}(g)
		if g == G/2 {
			w.BeginCheckpoint()
		}
	}
	wg.Wait()
	w.Close()
	recs, _ := readAll(t, dir, FirstLSN)
	if len(recs) != G*N {
		t.Fatalf("%d records", len(recs))
	}
	seen := map[uint32]bool{}
	for _, d := range recs {
		if seen[d.Xid] {
			t.Fatalf("xid %d twice", d.Xid)
		}
		seen[d.Xid] = true
	}
}

const FirstNormal = 3

func TestRemoveSegmentsBefore(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	defer w.Close()
	for i := 0; i < 40; i++ {
		w.Insert(nil, mainRecord(i, 1<<20))
	}
	w.Flush(w.InsertPos())
	pos := w.InsertPos()
	if err := w.RemoveSegmentsBefore(pos); err != nil {
		t.Fatal(err)
	}
	// The retired segments 0 and 1 are recycled as the next two.
	cur := uint64(pos / SegmentSize)
	segs, _ := Segments(dir)
	if want := []uint64{cur, cur + 1, cur + 2}; fmt.Sprint(segs) != fmt.Sprint(want) {
		t.Fatalf("segments %v, want %v", segs, want)
	}
	// Writing on into the recycled files: the log reads back as exactly
	// the new records, none of the old ones the recycled files still hold.
	var want []uint32
	for i := 0; i < 20; i++ {
		r := mainRecord(i, 1<<20)
		r.Xid = uint32(1000 + i)
		want = append(want, r.Xid)
		w.Insert(nil, r)
	}
	if err := w.Flush(w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	if end := uint64(w.InsertPos() / SegmentSize); end <= cur || end > cur+2 {
		t.Fatalf("test should end inside a recycled segment; at %v", w.InsertPos())
	}
	recs, _ := readAll(t, dir, pos)
	var got []uint32
	for _, d := range recs {
		got = append(got, d.Xid)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("read back xids %v, want %v", got, want)
	}
}

// TestRecycleLimit: at most RecycleSegments future segments are kept; the
// other retired ones are deleted.
func TestRecycleLimit(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	defer w.Close()
	for i := 0; i < 130; i++ {
		w.Insert(nil, mainRecord(i, 1<<20))
	}
	w.Flush(w.InsertPos())
	pos := w.InsertPos()
	if err := w.RemoveSegmentsBefore(pos); err != nil {
		t.Fatal(err)
	}
	segs, _ := Segments(dir)
	if len(segs) != 1+RecycleSegments || segs[0] != uint64(pos/SegmentSize) {
		t.Fatalf("segments %v", segs)
	}
}

func TestSegmentNames(t *testing.T) {
	for _, seg := range []uint64{1, 255, 256, 1000} {
		n := segName(seg)
		back, ok := parseSegName(n)
		if !ok || back != seg {
			t.Fatalf("%s -> %d", n, back)
		}
	}
	// PostgreSQL's 0/1000000 is in 000000010000000000000001.
	if segName(uint64(FirstLSN/SegmentSize)) != "000000010000000000000001" {
		t.Fatal(segName(1))
	}
	if segName(256) != "000000010000000100000000" {
		t.Fatal(segName(256))
	}
	if _, ok := parseSegName("pg_control"); ok {
		t.Fatal("parsed a non-segment")
	}
}

func TestRmgrRegistry(t *testing.T) {
	if RmgrName(30) != "rmgr30" {
		t.Fatal(RmgrName(30))
	}
	Register(30, Rmgr{Name: "Test"})
	defer func() { rmgrMu.Lock(); rmgrs[30] = nil; rmgrMu.Unlock() }()
	if RmgrName(30) != "Test" {
		t.Fatal("registered name")
	}
}

// TestInsertRecordStart: under concurrent inserts, the start LSN that
// InsertRecord returns is the caller's own record (the checkpoint writes it
// into the control file; recovery reads the record there back).
func TestInsertRecordStart(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	const G, N = 4, 300
	starts := make([][]LSN, G)
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < N; i++ {
				rec := NewRecord(RmXact, 0, uint32(g*N+i+FirstNormal))
				rec.SetMain(make([]byte, i%40))
				start, end, err := w.InsertRecord(nil, rec)
				if err != nil {
					t.Error(err)
					return
				}
				if end <= start {
					t.Errorf("end %v not after start %v", end, start)
				}
				starts[g] = append(starts[g], start)
			}
		}(g)
	}
	wg.Wait()
	w.Close()
	for g := range starts {
		for i, start := range starts[g] {
			d, err := ReadAt(dir, start)
			if err != nil {
				t.Fatalf("record at %v: %v", start, err)
			}
			if want := uint32(g*N + i + FirstNormal); d.Xid != want {
				t.Fatalf("record at %v has xid %d, want %d", start, d.Xid, want)
			}
		}
	}
}

// TestWriteKeepsBufferCapacity: once the tail has been written, its buffer
// (with the capacity the inserts grew it to) takes the next inserts, so a
// steady stream of inserts does not regrow and copy the tail each time.
func TestWriteKeepsBufferCapacity(t *testing.T) {
	w := openWAL(t, t.TempDir(), FirstLSN, 0)
	defer w.Close()
	for i := 0; i < 200; i++ {
		if _, err := w.Insert(nil, mainRecord(i, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	grown := cap(w.buf)
	if err := w.Flush(w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	// The flushed buffer is the spare; the next write swaps it in.
	if _, err := w.Insert(nil, mainRecord(0, 10)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	if c := cap(w.buf); c < grown {
		t.Fatalf("after two writes the tail buffer has capacity %d, the grown one had %d", c, grown)
	}
}
