package wal

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/tidal-db/tidal/internal/datum/pglz"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Compression is a wal_compression method for full-page images. The zero
// value means "not chosen": an insert whose backend names no method uses
// the log's own (the server's wal_compression).
type Compression uint8

const (
	CompressionNone Compression = iota + 1 // wal_compression = off
	CompressionPGLZ
	CompressionLZ4
	CompressionZstd
)

// ParseCompression reads a wal_compression value, with PostgreSQL's
// spellings: "on" and the boolean words mean pglz, the legacy method.
func ParseCompression(s string) (Compression, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "false", "no", "0":
		return CompressionNone, nil
	case "pglz", "on", "true", "yes", "1":
		return CompressionPGLZ, nil
	case "lz4":
		return CompressionLZ4, nil
	case "zstd":
		return CompressionZstd, nil
	}
	return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"wal_compression\": \"%s\"", s)
}

// String is the method's wal_compression name.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "off"
	case CompressionPGLZ:
		return "pglz"
	case CompressionLZ4:
		return "lz4"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("compression(%d)", uint8(c))
}

// bimg_info bits: PostgreSQL's BKPIMAGE_* flags of a block image.
const (
	bkpImageHasHole      uint8 = 0x01 // the hole [hole_offset, +hole_length) was left out
	bkpImageApply        uint8 = 0x02 // redo restores the image (always, without wal_consistency_checking)
	bkpImageCompressPGLZ uint8 = 0x04
	bkpImageCompressLZ4  uint8 = 0x08
	bkpImageCompressZstd uint8 = 0x10
	bkpImageCompressed         = bkpImageCompressPGLZ | bkpImageCompressLZ4 | bkpImageCompressZstd
)

func (c Compression) imageFlag() uint8 {
	switch c {
	case CompressionPGLZ:
		return bkpImageCompressPGLZ
	case CompressionLZ4:
		return bkpImageCompressLZ4
	case CompressionZstd:
		return bkpImageCompressZstd
	}
	return 0
}

// imageCompressor holds one inserter's compression state: the page with
// its hole removed, and the encoders, whose tables are costly to set up
// (zstd's are over a megabyte) and so are kept from record to record.
// Not safe for concurrent use; the WAL lends one per Insert.
type imageCompressor struct {
	raw  [page.Size]byte
	pglz pglz.Compressor
	lz4  lz4.CompressorCCompat
	zstd *zstd.Encoder
}

// compressorPool lends imageCompressors to concurrent inserters. It is a
// free list rather than a sync.Pool so that a garbage collection does not
// throw the encoders away: rebuilding them costs more than compressing a
// page.
type compressorPool struct {
	free chan *imageCompressor
}

func newCompressorPool(n int) *compressorPool {
	return &compressorPool{free: make(chan *imageCompressor, n)}
}

func (p *compressorPool) get() *imageCompressor {
	select {
	case c := <-p.free:
		return c
	default:
		return &imageCompressor{}
	}
}

func (p *compressorPool) put(c *imageCompressor) {
	select {
	case p.free <- c:
	default: // more were lent at once than the list keeps
	}
}

// imageCompression is what one record's encoding needs to compress its
// images: the method, and a compressor borrowed on the first image.
type imageCompression struct {
	method Compression
	pool   *compressorPool
	c      *imageCompressor
}

func (ic *imageCompression) compressor() *imageCompressor {
	if ic.c == nil {
		ic.c = ic.pool.get()
	}
	return ic.c
}

// release returns the borrowed compressor, if any.
func (ic *imageCompression) release() {
	if ic.c != nil {
		ic.pool.put(ic.c)
		ic.c = nil
	}
}

// pageHole is the part of pg an image leaves out: [pd_lower, pd_upper) of
// a standard page whose header is sane, else nothing.
func pageHole(pg page.Page, standard bool) (off, length int) {
	if !standard {
		return 0, 0
	}
	lo, up := pg.Lower(), pg.Upper()
	if lo >= page.HeaderSize && lo < up && up <= page.Size {
		return lo, up - lo
	}
	return 0, 0
}

// appendImage appends a full-page image of pg — bimg_len u16, hole_offset
// u16, hole_length u16 when the image is compressed and has a hole, then
// bimg_len bytes — and returns its bimg_info. The page without its hole
// is compressed with ic's method when the result, with the extra
// hole_length field, is smaller than the page without its hole (as
// PostgreSQL's XLogCompressBackupBlock decides); otherwise it is stored
// as it is.
func appendImage(dst []byte, pg page.Page, standard bool, ic *imageCompression) ([]byte, uint8) {
	holeOff, holeLen := pageHole(pg, standard)
	info := bkpImageApply
	if holeLen > 0 {
		info |= bkpImageHasHole
	}
	if ic != nil && ic.method > CompressionNone {
		if out, ok := ic.compressor().compressImage(dst, pg, holeOff, holeLen, ic.method); ok {
			return out, info | ic.method.imageFlag()
		}
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(page.Size-holeLen))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(holeOff))
	dst = append(dst, pg[:holeOff]...)
	return append(dst, pg[holeOff+holeLen:page.Size]...), info
}

// compressImage appends the compressed image's header and bytes to dst,
// or reports false (dst unchanged) when compression would not save space.
func (c *imageCompressor) compressImage(dst []byte, pg page.Page, holeOff, holeLen int, m Compression) ([]byte, bool) {
	raw := pg[:page.Size]
	if holeLen > 0 {
		n := copy(c.raw[:], pg[:holeOff])
		n += copy(c.raw[n:], pg[holeOff+holeLen:page.Size])
		raw = c.raw[:n]
	}
	extra := 0
	if holeLen > 0 {
		extra = 2 // hole_length is stored only for a compressed image
	}
	bound := 0
	mark := len(dst)
	dst = append(dst, 0, 0) // bimg_len, once known
	dst = binary.LittleEndian.AppendUint16(dst, uint16(holeOff))
	if holeLen > 0 {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(holeLen))
	}
	start := len(dst)
	n, ok := 0, false
	switch m {
	case CompressionPGLZ:
		bound = pglz.OutputBound(len(raw), pglz.Default)
		dst = slices.Grow(dst, bound)
		n, ok = c.pglz.Compress(raw, dst[start:start+bound], pglz.Default)
	case CompressionLZ4:
		bound = lz4.CompressBlockBound(len(raw))
		dst = slices.Grow(dst, bound)
		k, err := c.lz4.CompressBlock(raw, dst[start:start+bound])
		n, ok = k, err == nil && k > 0
	case CompressionZstd:
		if c.zstd == nil {
			c.zstd = newZstdEncoder()
		}
		out := c.zstd.EncodeAll(raw, dst[:start])
		dst, n, ok = out, len(out)-start, true
	}
	if !ok || n+extra >= len(raw) {
		return dst[:mark], false
	}
	dst = dst[:start+n]
	binary.LittleEndian.PutUint16(dst[mark:], uint16(n))
	return dst, true
}

// newZstdEncoder makes an encoder like PostgreSQL's ZSTD_compress at
// ZSTD_CLEVEL_DEFAULT (3): one frame, no content checksum (the record's
// CRC covers the bytes), and literals entropy-coded even in a block
// without matches, as libzstd does (so a page of few distinct bytes still
// shrinks).
func newZstdEncoder() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithWindowSize(page.Size), zstd.WithAllLitEntropyCompression(true))
	if err != nil {
		panic(fmt.Sprintf("zstd encoder options: %v", err)) // the options are constants
	}
	return e
}

// imageDecoder decompresses images for one reader of the log (recovery).
// Only zstd keeps state; pglz and lz4 decode without any.
type imageDecoder struct {
	zstd *zstd.Decoder
}

func (d *imageDecoder) zstdDecoder() (*zstd.Decoder, error) {
	if d.zstd == nil {
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(page.Size))
		if err != nil {
			return nil, err
		}
		d.zstd = z
	}
	return d.zstd, nil
}

// close releases the zstd decoder's goroutines and buffers.
func (d *imageDecoder) close() {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}

// decompress fills dst (exactly) from a compressed image, or says why not.
func (d *imageDecoder) decompress(info uint8, src, dst []byte) error {
	switch info & bkpImageCompressed {
	case bkpImageCompressPGLZ:
		return pglz.Decompress(src, dst)
	case bkpImageCompressLZ4:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return err
		}
		if n != len(dst) {
			return fmt.Errorf("lz4: %d bytes decompressed, %d expected", n, len(dst))
		}
		return nil
	case bkpImageCompressZstd:
		z, err := d.zstdDecoder()
		if err != nil {
			return err
		}
		out, err := z.DecodeAll(src, dst[:0])
		if err != nil {
			return err
		}
		if len(out) != len(dst) {
			return fmt.Errorf("zstd: %d bytes decompressed, %d expected", len(out), len(dst))
		}
		if &out[0] != &dst[0] {
			copy(dst, out)
		}
		return nil
	}
	return errUnknownMethod
}

var errUnknownMethod = fmt.Errorf("unknown compression method")
