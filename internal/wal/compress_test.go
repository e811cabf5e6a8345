package wal

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

var allCompressions = []Compression{CompressionNone, CompressionPGLZ, CompressionLZ4, CompressionZstd}

// boatPage is a heap page of seed 003's boat rows (a tuple header, an
// integer, md5(i::text), log(i)), n of them: text-like, compressible data.
func boatPage(first, n int) page.Page {
	p := make(page.Page, page.Size)
	page.Init(p, 0, nil)
	for i := first; i < first+n; i++ {
		t := make([]byte, 23, 80)
		binary.LittleEndian.PutUint32(t, 740)    // xmin
		binary.LittleEndian.PutUint16(t[18:], 3) // natts
		t[22] = 24                               // t_hoff
		t = append(t, 0)
		t = binary.LittleEndian.AppendUint32(t, uint32(i))
		sum := md5.Sum([]byte(fmt.Sprint(i)))
		t = append(t, 33<<1|1)
		t = append(t, hex.EncodeToString(sum[:])...)
		for len(t)%8 != 0 {
			t = append(t, 0)
		}
		t = binary.LittleEndian.AppendUint64(t, math.Float64bits(math.Log10(float64(i))))
		if p.AddItem(t, page.InvalidOffset, false, true, 291, nil) == page.InvalidOffset {
			break
		}
	}
	return p
}

type testImage struct {
	name     string
	pg       page.Page
	standard bool
	// compressible: every method must shrink it
	compressible bool
}

func testImages() []testImage {
	r := rand.New(rand.NewSource(7))
	random := make(page.Page, page.Size)
	r.Read(random)
	zero := make(page.Page, page.Size)
	return []testImage{
		{"empty heap page", boatPage(1, 0), true, false},
		{"ten boat rows", boatPage(1, 10), true, true},
		{"full boat page", boatPage(1000, 291), true, true},
		{"random tuples", heapPage(r, 30), true, false},
		{"random bytes, not standard", random, false, false},
		{"zero page, not standard", zero, false, true},
	}
}

// imageRecord inserts a record carrying an image of pg, charged to u, and
// returns the image's decoded block.
func imageRecord(t *testing.T, w *WAL, dir string, u *stats.Usage, pg page.Page, standard bool) (*Decoded, DecodedBlock) {
	t.Helper()
	start := w.InsertPos()
	flags := BlockForceImage
	if standard {
		flags |= BlockStandard
	}
	rec := NewRecord(RmHeap, 0, 9)
	rec.AddBlock(testTag, pg, flags, nil)
	if _, err := w.Insert(u, rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	d, err := ReadAt(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	return d, d.Blocks[0]
}

// TestImageCompressionRoundTrip: each method stores a compressible page in
// fewer bytes, flagged with its BKPIMAGE_COMPRESS_* bit, and restores it
// exactly; a page it cannot shrink is stored plainly; the record's bytes
// (what EXPLAIN (WAL) counts) are the compressed ones, the image count
// the same.
func TestImageCompressionRoundTrip(t *testing.T) {
	for _, m := range allCompressions {
		t.Run(m.String(), func(t *testing.T) {
			dir := t.TempDir()
			w, err := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: m})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for _, ti := range testImages() {
				var u stats.Usage
				d, b := imageRecord(t, w, dir, &u, ti.pg, ti.standard)
				holeOff, holeLen := pageHole(ti.pg, ti.standard)
				plain := page.Size - holeLen
				if b.HoleOff != holeOff || b.HoleLen != holeLen || b.BimgInfo&bkpImageApply == 0 {
					t.Fatalf("%s: hole %d+%d info %#x, want %d+%d", ti.name, b.HoleOff, b.HoleLen, b.BimgInfo, holeOff, holeLen)
				}
				if (holeLen > 0) != (b.BimgInfo&bkpImageHasHole != 0) {
					t.Fatalf("%s: BKPIMAGE_HAS_HOLE %#x with hole length %d", ti.name, b.BimgInfo, holeLen)
				}
				compressed := b.Compression() != CompressionNone
				if compressed && b.Compression() != m {
					t.Fatalf("%s: stored with %s under %s", ti.name, b.Compression(), m)
				}
				if m != CompressionNone && ti.compressible && !compressed {
					t.Fatalf("%s: %s did not compress a compressible page", ti.name, m)
				}
				if compressed && len(b.Image) >= plain {
					t.Fatalf("%s: compressed image of %d bytes, plain %d", ti.name, len(b.Image), plain)
				}
				if !compressed && len(b.Image) != plain {
					t.Fatalf("%s: plain image of %d bytes, want %d", ti.name, len(b.Image), plain)
				}
				if u.WAL.FPI != 1 || u.WAL.Records != 1 || u.WAL.Bytes != int64(d.Len) {
					t.Fatalf("%s: usage %+v, record %d bytes", ti.name, u.WAL, d.Len)
				}
				got := make(page.Page, page.Size)
				for i := range got {
					got[i] = 0xEE // restoring must overwrite everything, the hole with zeroes
				}
				if err := b.RestoreImage(got); err != nil {
					t.Fatalf("%s: %v", ti.name, err)
				}
				want := append(page.Page(nil), ti.pg...)
				clear(want[holeOff : holeOff+holeLen])
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: %s image not restored exactly", ti.name, m)
				}
			}
		})
	}
}

// TestCompressedImageHeader: the bytes after a compressed image's block
// reference are PostgreSQL's: bimg_len, hole_offset, then (image with a
// hole) hole_length; bimg_info sits in the reference's fourth byte. An
// uncompressed image has no hole_length: it is 8192 − bimg_len.
func TestCompressedImageHeader(t *testing.T) {
	pg := boatPage(1, 40)
	holeOff, holeLen := pageHole(pg, true)
	for _, m := range allCompressions {
		dir := t.TempDir()
		w, _ := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: m})
		rec := NewRecord(RmHeap, 0, 9)
		rec.AddBlock(testTag, pg, BlockStandard|BlockForceImage, nil)
		w.Insert(nil, rec)
		w.Close()
		name, off := fileOf(dir, FirstLSN)
		raw, _ := os.ReadFile(name)
		blk := raw[off+HeaderSize+1:]
		info := blk[3]
		bimgLen := int(binary.LittleEndian.Uint16(blk[12:]))
		if int(binary.LittleEndian.Uint16(blk[14:])) != holeOff {
			t.Fatalf("%s: hole_offset %d, want %d", m, binary.LittleEndian.Uint16(blk[14:]), holeOff)
		}
		wantInfo := bkpImageApply | bkpImageHasHole | m.imageFlag()
		if info != wantInfo {
			t.Fatalf("%s: bimg_info %#x, want %#x", m, info, wantInfo)
		}
		if m == CompressionNone {
			if bimgLen != page.Size-holeLen {
				t.Fatalf("bimg_len %d, want %d", bimgLen, page.Size-holeLen)
			}
			continue
		}
		if got := int(binary.LittleEndian.Uint16(blk[16:])); got != holeLen {
			t.Fatalf("%s: hole_length %d, want %d", m, got, holeLen)
		}
		// Header (24), block count, reference (12), image header (6), the
		// image, main data length: nothing else.
		if total := int(binary.LittleEndian.Uint32(raw[off:])); total != HeaderSize+1+12+6+bimgLen+4 {
			t.Fatalf("%s: record of %d bytes with a %d-byte image", m, total, bimgLen)
		}
	}
}

// TestCompressionSettings: the server's method applies to inserts whose
// backend chose none; a backend's own choice (stats.Usage's
// WALCompression, what SET wal_compression sets) wins, off included; the
// server's can change while running. Images and records are counted the
// same whatever the method.
func TestCompressionSettings(t *testing.T) {
	dir := t.TempDir()
	w, _ := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: CompressionLZ4})
	defer w.Close()
	pg := boatPage(1, 100)
	stored := func(u *stats.Usage) Compression {
		_, b := imageRecord(t, w, dir, u, pg, true)
		return b.Compression()
	}
	if got := stored(nil); got != CompressionLZ4 {
		t.Fatalf("server lz4: stored %s", got)
	}
	if got := stored(&stats.Usage{}); got != CompressionLZ4 {
		t.Fatalf("backend without a choice: stored %s", got)
	}
	if got := stored(&stats.Usage{WALCompression: uint8(CompressionZstd)}); got != CompressionZstd {
		t.Fatalf("backend zstd: stored %s", got)
	}
	if got := stored(&stats.Usage{WALCompression: uint8(CompressionNone)}); got != CompressionNone {
		t.Fatalf("backend off: stored %s", got)
	}
	w.SetCompression(CompressionPGLZ)
	if got := stored(nil); got != CompressionPGLZ || w.Compression() != CompressionPGLZ {
		t.Fatalf("server changed to pglz: stored %s", got)
	}
	w.SetCompression(0)
	if got := stored(nil); got != CompressionNone {
		t.Fatalf("server off: stored %s", got)
	}
	var sizes []int64
	for _, m := range allCompressions {
		u := stats.Usage{WALCompression: uint8(m)}
		for i := 0; i < 5; i++ {
			imageRecord(t, w, dir, &u, boatPage(1+i*100, 100), true)
		}
		if u.WAL.Records != 5 || u.WAL.FPI != 5 {
			t.Fatalf("%s: %+v", m, u.WAL)
		}
		sizes = append(sizes, u.WAL.Bytes)
	}
	for i, m := range allCompressions[1:] {
		if sizes[i+1] >= sizes[0]*3/4 {
			t.Fatalf("%s: %d bytes of WAL, off %d", m, sizes[i+1], sizes[0])
		}
	}
}

func TestParseCompression(t *testing.T) {
	for in, want := range map[string]Compression{"off": CompressionNone, "pglz": CompressionPGLZ, "ON": CompressionPGLZ,
		"true": CompressionPGLZ, "1": CompressionPGLZ, "no": CompressionNone, "lz4": CompressionLZ4, " zstd ": CompressionZstd} {
		got, err := ParseCompression(in)
		if err != nil || got != want {
			t.Fatalf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	if _, err := ParseCompression("gzip"); err == nil || pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Fatalf("gzip: %v", err)
	}
}

// corruptions damage a compressed image's bytes in ways no decoder can
// take for a valid stream of exactly the expected length.
var corruptions = []struct {
	name string
	f    func([]byte) []byte
}{
	{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
	{"empty", func(b []byte) []byte { return b[:0] }},
	{"trailing bytes", func(b []byte) []byte { return append(b, 1, 2, 3, 4, 5, 6, 7, 8) }},
	{"garbage", func(b []byte) []byte {
		r := rand.New(rand.NewSource(int64(len(b))))
		r.Read(b)
		return b
	}},
}

// TestCorruptCompressedImage: a compressed image that does not decode to
// exactly the page without its hole makes RestoreImage fail with
// PostgreSQL's message and XX000, for every method and kind of damage.
func TestCorruptCompressedImage(t *testing.T) {
	for _, m := range allCompressions[1:] {
		dir := t.TempDir()
		w, _ := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: m})
		_, b := imageRecord(t, w, dir, nil, boatPage(1, 200), true)
		w.Close()
		if b.Compression() != m {
			t.Fatalf("%s: not compressed", m)
		}
		for _, c := range corruptions {
			bad := b
			bad.Image = c.f(append([]byte(nil), b.Image...))
			err := bad.RestoreImage(make(page.Page, page.Size))
			if err == nil {
				t.Fatalf("%s, %s: corrupt image restored", m, c.name)
			}
			if pgerr.Code(err) != pgerr.InternalError || !strings.Contains(err.Error(), "could not decompress image at 0/1000000, block 0") {
				t.Fatalf("%s, %s: %v", m, c.name, err)
			}
		}
	}
	var b DecodedBlock
	b.BimgInfo = bkpImageApply | bkpImageCompressLZ4 | bkpImageCompressZstd
	b.Image = []byte{1, 2, 3}
	if err := b.RestoreImage(make(page.Page, page.Size)); err == nil || !strings.Contains(err.Error(), "compressed with unknown method") {
		t.Fatalf("two methods at once: %v", err)
	}
}

// TestReplayCorruptCompressedImage: recovery that meets a compressed image
// it cannot decompress, in a record whose CRC is right (so not the torn
// end of the log), stops with that error instead of restoring a wrong
// page or ending the log early.
func TestReplayCorruptCompressedImage(t *testing.T) {
	for _, m := range allCompressions[1:] {
		dir := t.TempDir()
		w, _ := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: m})
		_, b := imageRecord(t, w, dir, nil, boatPage(1, 200), true)
		w.Insert(nil, mainRecord(1, 10))
		w.Close()
		name, off := fileOf(dir, FirstLSN)
		raw, _ := os.ReadFile(name)
		rec := raw[off : off+int64(binary.LittleEndian.Uint32(raw[off:]))]
		img := bytes.Index(rec, b.Image)
		// Keep the lengths, ruin the stream: a back reference or frame
		// header that points nowhere.
		for i := img; i < img+len(b.Image); i++ {
			rec[i] = 0xFF
		}
		putCRC(rec)
		os.WriteFile(name, raw, 0o600)
		sm, _ := smgr.Open(t.TempDir())
		pool := buffer.New(sm, 16)
		_, err := Replay(dir, pool, FirstLSN)
		sm.Close()
		if err == nil || !strings.Contains(err.Error(), "could not decompress image at 0/1000000, block 0") {
			t.Fatalf("%s: replay of a corrupt image: %v", m, err)
		}
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.InternalError {
			t.Fatalf("%s: %v is not XX000", m, err)
		}
	}
}

// TestLegacyImageLayout: an image written before wal_compression (its
// reference's fourth byte 0; hole offset and length, then the page
// without the hole) still decodes and restores.
func TestLegacyImageLayout(t *testing.T) {
	pg := boatPage(1, 20)
	holeOff, holeLen := pageHole(pg, true)
	rec := make([]byte, HeaderSize, 9000)
	rec = append(rec, 1, 0, byte(smgr.MainFork), BlockStandard|flagHasImage, 0)
	rec = binary.LittleEndian.AppendUint32(rec, uint32(testTag.Rel))
	rec = binary.LittleEndian.AppendUint32(rec, testTag.Block)
	rec = binary.LittleEndian.AppendUint16(rec, uint16(holeOff))
	rec = binary.LittleEndian.AppendUint16(rec, uint16(holeLen))
	rec = append(rec, pg[:holeOff]...)
	rec = append(rec, pg[holeOff+holeLen:]...)
	rec = binary.LittleEndian.AppendUint32(rec, 0)
	binary.LittleEndian.PutUint32(rec, uint32(len(rec)))
	d, err := decode(rec, FirstLSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := d.Blocks[0]
	if !b.HasImage || b.HoleOff != holeOff || b.HoleLen != holeLen || b.Compression() != CompressionNone {
		t.Fatalf("%+v", b)
	}
	got := make(page.Page, page.Size)
	if err := b.RestoreImage(got); err != nil || !bytes.Equal(got, pg) {
		t.Fatalf("legacy image not restored: %v", err)
	}
}

// TestImageHeaderChecks: image headers that contradict themselves do not
// decode (PostgreSQL's DecodeXLogRecord checks), so they end the log
// rather than restore garbage.
func TestImageHeaderChecks(t *testing.T) {
	build := func(info uint8, hdr ...uint16) []byte {
		rec := make([]byte, HeaderSize)
		rec = append(rec, 1, 0, byte(smgr.MainFork), flagHasImage, info)
		rec = binary.LittleEndian.AppendUint32(rec, 1)
		rec = binary.LittleEndian.AppendUint32(rec, 0)
		for _, h := range hdr {
			rec = binary.LittleEndian.AppendUint16(rec, h)
		}
		rec = append(rec, make([]byte, page.Size)...)
		return binary.LittleEndian.AppendUint32(rec, 0)
	}
	a, h, z := bkpImageApply, bkpImageHasHole, bkpImageCompressZstd
	for name, rec := range map[string][]byte{
		"hole at offset 0":           build(a|h, 8000, 0),
		"hole flag, full length":     build(a|h, page.Size, 100),
		"no hole flag, offset":       build(a, page.Size, 100),
		"plain, short":               build(a, 8000, 0),
		"compressed, full length":    build(a|z, page.Size, 0),
		"compressed hole, zero":      build(a|h|z, 100, 24, 0),
		"compressed hole past page":  build(a|h|z, 100, 4000, 5000),
		"compressed, not smaller":    build(a|h|z, 8000, 24, 192),
		"truncated compressed image": build(a|z, 1, 0)[:HeaderSize+1+12+4],
	} {
		if _, err := decode(rec, FirstLSN, nil); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := decode(build(a|h|z, 100, 24, 100), FirstLSN, nil); err != nil {
		t.Fatalf("a sane compressed header: %v", err)
	}
}

// TestConcurrentCompressedInserts: backends compressing at once, each
// with its own method, share the log's lent compressors safely (run with
// -race) and every image reads back.
func TestConcurrentCompressedInserts(t *testing.T) {
	dir := t.TempDir()
	w, _ := Open(dir, FirstLSN, 0, Options{FullPageWrites: true, Compression: CompressionZstd})
	const G, N = 6, 40
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			u := stats.Usage{WALCompression: uint8(allCompressions[g%len(allCompressions)])}
			for i := 0; i < N; i++ {
				rec := NewRecord(RmHeap, 0, uint32(g))
				rec.AddBlock(buffer.Tag{Rel: 1, Block: uint32(g*N + i)}, boatPage(g*N+i, 50+i), BlockStandard|BlockForceImage, nil)
				if _, err := w.Insert(&u, rec); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	w.Close()
	recs, _ := readAll(t, dir, FirstLSN)
	if len(recs) != G*N {
		t.Fatalf("%d records", len(recs))
	}
	for _, d := range recs {
		b := d.Blocks[0]
		g, i := int(b.Tag.Block)/N, int(b.Tag.Block)%N
		if want := allCompressions[g%len(allCompressions)]; b.Compression() != want {
			t.Fatalf("backend %d: image stored with %s, want %s", g, b.Compression(), want)
		}
		got := make(page.Page, page.Size)
		want := boatPage(g*N+i, 50+i)
		if err := b.RestoreImage(got); err != nil || !bytes.Equal(got[:want.Lower()], want[:want.Lower()]) || !bytes.Equal(got[want.Upper():], want[want.Upper():]) {
			t.Fatalf("block %d not restored: %v", b.Tag.Block, err)
		}
	}
}

// indexLeafPage is a B-tree leaf of boat_idx1 (integer keys from first
// on, each an index tuple of TID, t_info and the key, 16 bytes) or, with
// float, of boat_idx2 (log(i) keys, 16 bytes too): the other two thirds
// of the seed's full-page images.
func indexLeafPage(first int, float bool) page.Page {
	p := make(page.Page, page.Size)
	page.Init(p, 16, nil)
	for i := first; ; i++ {
		t := make([]byte, 0, 16)
		t = binary.LittleEndian.AppendUint16(t, 0)
		t = binary.LittleEndian.AppendUint16(t, uint16(i/107))
		t = binary.LittleEndian.AppendUint16(t, uint16(i%107+1))
		if float {
			t = binary.LittleEndian.AppendUint16(t, 16)
			t = binary.LittleEndian.AppendUint64(t, math.Float64bits(math.Log10(float64(i))))
		} else {
			t = binary.LittleEndian.AppendUint16(t, 16)
			t = binary.LittleEndian.AppendUint32(t, uint32(i))
			t = append(t, 0, 0, 0, 0)
		}
		if p.AddItem(t, page.InvalidOffset, false, false, 0, nil) == page.InvalidOffset {
			return p
		}
	}
}

// BenchmarkImageCompression: the cost of one full-page image per method
// of each kind of page the seed's UPDATE images (a full boat heap page,
// leaves of its two indexes), with the lent compressor (what an insert
// pays). It reports the stored size as image-bytes.
func BenchmarkImageCompression(b *testing.B) {
	for _, kind := range []struct {
		name string
		pg   page.Page
	}{{"heap", boatPage(1000, 291)}, {"idx1", indexLeafPage(100000, false)}, {"idx2", indexLeafPage(100000, true)}} {
		for _, m := range allCompressions {
			benchImage(b, kind.name, kind.pg, m)
		}
	}
}

func benchImage(b *testing.B, kind string, pg page.Page, m Compression) {
	{
		b.Run(kind+"/"+m.String(), func(b *testing.B) {
			ic := imageCompression{method: m, pool: newCompressorPool(1)}
			dst := make([]byte, 0, 3*page.Size)
			var n int
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out, _ := appendImage(dst[:0], pg, true, &ic)
				n = len(out)
				ic.release()
			}
			b.ReportMetric(float64(n), "image-bytes")
		})
	}
}

// BenchmarkImageRestore: decompressing one such image in redo.
func BenchmarkImageRestore(b *testing.B) {
	pg := boatPage(1000, 291)
	for _, m := range allCompressions {
		b.Run(m.String(), func(b *testing.B) {
			ic := imageCompression{method: m, pool: newCompressorPool(1)}
			out, info := appendImage(nil, pg, true, &ic)
			ic.release()
			blk := DecodedBlock{BimgInfo: info, dec: &imageDecoder{}}
			blk.HoleOff = int(binary.LittleEndian.Uint16(out[2:]))
			hdr := 4
			if info&bkpImageCompressed != 0 && info&bkpImageHasHole != 0 {
				blk.HoleLen = int(binary.LittleEndian.Uint16(out[4:]))
				hdr = 6
			} else if info&bkpImageHasHole != 0 {
				blk.HoleLen = page.Size - int(binary.LittleEndian.Uint16(out))
			}
			blk.Image = out[hdr:]
			dst := make(page.Page, page.Size)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := blk.RestoreImage(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReplayAcrossCompressionSettings: WAL written with one method, then
// others (the server's setting changed while running, a backend's own
// choice, a restart of the log with another setting), replays onto a torn
// copy of the data as of the first checkpoint and gives the pages the
// running system had: images are decompressed by what their flags say,
// not by the setting recovery runs with.
func TestReplayAcrossCompressionSettings(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	sm, _ := smgr.Open(base)
	defer sm.Close()
	pool := buffer.New(sm, 64)
	w, _ := Open(filepath.Join(dir, "wal"), FirstLSN, 0, Options{FullPageWrites: true, Compression: CompressionZstd})
	pool.FlushWAL = w.Flush
	wl := &workload{t: t, r: rand.New(rand.NewSource(11)), pool: pool, w: w, touched: map[page.BlockNumber]bool{}, text: true}
	const nblk = 10
	for i := 0; i < nblk; i++ {
		wl.extend()
	}
	for i := 0; i < 200; i++ {
		wl.change(page.BlockNumber(wl.r.Intn(nblk)))
	}
	redo := w.BeginCheckpoint()
	if _, err := pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	copyDir(t, base, filepath.Join(dir, "old"))
	phase := func(n int) {
		for i := 0; i < n; i++ {
			wl.change(page.BlockNumber(wl.r.Intn(nblk)))
		}
	}
	phase(150) // zstd
	w.SetCompression(CompressionLZ4)
	wl.w.BeginCheckpoint()
	phase(150)
	// "Restart": the log continues where it ended, with pglz.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := Open(filepath.Join(dir, "wal"), w.InsertPos(), w.prevRec, Options{FullPageWrites: true, Compression: CompressionPGLZ})
	if err != nil {
		t.Fatal(err)
	}
	w2.SetRedoPtr(w.RedoPtr())
	pool.FlushWAL = w2.Flush
	wl.w = w2
	w2.BeginCheckpoint()
	phase(150)
	w2.SetCompression(CompressionNone)
	w2.BeginCheckpoint()
	phase(100)
	if err := w2.Flush(w2.InsertPos()); err != nil {
		t.Fatal(err)
	}
	want := make([]page.Page, nblk)
	for blk := range want {
		b, _ := pool.Read(nil, buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: page.BlockNumber(blk)}, nil)
		want[blk] = append(page.Page(nil), pool.Page(b)...)
		pool.Release(b)
	}
	w2.Close()

	recs, _ := readAll(t, filepath.Join(dir, "wal"), redo)
	images := map[Compression]int{}
	for _, d := range recs {
		for _, b := range d.Blocks {
			if b.HasImage {
				images[b.Compression()]++
			}
		}
	}
	for _, m := range allCompressions {
		if images[m] == 0 {
			t.Fatalf("no image stored with %s: %v", m, images)
		}
	}
	oldFile := filepath.Join(dir, "old", "5000")
	raw, _ := os.ReadFile(oldFile)
	wl.r.Read(raw[3*page.Size+100 : 3*page.Size+5000]) // a torn page
	os.WriteFile(oldFile, raw, 0o600)
	sm2, _ := smgr.Open(filepath.Join(dir, "old"))
	defer sm2.Close()
	pool2 := buffer.New(sm2, 64)
	pool2.FlushWAL = func(page.LSN) error { return nil }
	if _, err := Replay(filepath.Join(dir, "wal"), pool2, redo); err != nil {
		t.Fatal(err)
	}
	for blk := range want {
		b, err := pool2.Read(nil, buffer.Tag{Rel: redoRel, Fork: smgr.MainFork, Block: page.BlockNumber(blk)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !samePage(want[blk], pool2.Page(b)) {
			t.Fatalf("block %d differs after replay", blk)
		}
		pool2.Release(b)
	}
	t.Logf("images replayed: %v", images)
}
