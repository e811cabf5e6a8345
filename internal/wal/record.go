package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// RmgrID names a resource manager: the owner of a kind of WAL record.
type RmgrID uint8

// Resource managers. Numbers are tidal's own; names match PostgreSQL's
// pg_waldump names where PostgreSQL has the same thing.
const (
	RmXLOG      RmgrID = 0
	RmXact      RmgrID = 1
	RmSmgr      RmgrID = 2
	RmMultiXact RmgrID = 6
	RmHeap2     RmgrID = 9
	RmHeap      RmgrID = 10
	RmBtree     RmgrID = 11
	RmUndo      RmgrID = 20
	RmSeq       RmgrID = 15
	RmCatalog   RmgrID = 21
	numRmgrs           = 32
)

// Block reference flags.
const (
	// BlockStandard: the page has the standard layout, so the hole between
	// pd_lower and pd_upper is left out of a full-page image.
	BlockStandard uint8 = 1 << iota
	// BlockWillInit: the change formats the page from scratch; no image is
	// needed and redo starts from a zeroed page.
	BlockWillInit
	// BlockForceImage: always include a full-page image.
	BlockForceImage
	// BlockNoImage: never include an image (the change is redone on top
	// of whatever the page holds, like PostgreSQL's REGBUF_NO_IMAGE).
	BlockNoImage

	// flagHasData: the block carries resource-manager data (a logical
	// change redone by the rmgr's RedoPages, PostgreSQL's block data),
	// left out when the block has an image.
	flagHasData  = 1 << 5
	flagHasImage = 1 << 6
	flagHasDelta = 1 << 7
)

// HeaderSize is the fixed record header: total length, xid, prev-link,
// info, rmgr, reserved, CRC — 24 bytes like PostgreSQL's XLogRecord.
const HeaderSize = 24

// Record is a WAL record being assembled by a caller that holds exclusive
// locks on the pages it changed.
type Record struct {
	Rmgr RmgrID
	Info uint8
	Xid  uint32

	blocks []blockRef
	main   []byte
}

type blockRef struct {
	id    uint8
	tag   buffer.Tag
	pg    page.Page
	flags uint8
	delta *page.Delta
	// logical: data describes the change for the rmgr's redo (no delta).
	logical bool
	data    []byte
}

// NewRecord starts a record.
func NewRecord(rm RmgrID, info uint8, xid uint32) *Record {
	return &Record{Rmgr: rm, Info: info, Xid: xid}
}

// AddBlock registers a changed page. d says which bytes changed (it may
// be nil for a page registered only to carry an image).
func (r *Record) AddBlock(tag buffer.Tag, pg page.Page, flags uint8, d *page.Delta) {
	if d.IsInit() {
		flags |= BlockWillInit
	}
	r.blocks = append(r.blocks, blockRef{id: uint8(len(r.blocks)), tag: tag, pg: pg, flags: flags, delta: d})
}

// AddBlockData registers a page changed in a way the resource manager's
// RedoPages redoes from data (PostgreSQL's XLogRegisterBuffer plus
// XLogRegisterBufData): data is written only when the block gets no
// full-page image. With BlockWillInit the change formats the page and no
// image is ever taken. data may be empty (the record's main data says it
// all) and must stay unchanged until Insert returns.
func (r *Record) AddBlockData(tag buffer.Tag, pg page.Page, flags uint8, data []byte) {
	r.blocks = append(r.blocks, blockRef{id: uint8(len(r.blocks)), tag: tag, pg: pg, flags: flags, logical: true, data: data})
}

// SetMain sets the record's main data (resource-manager specific).
func (r *Record) SetMain(b []byte) { r.main = b }

// encode builds the record bytes (prev-link and CRC filled later),
// deciding per block whether a full-page image is needed: the page's LSN is
// at or before redoPtr (first change since the checkpoint began). Images
// are compressed as ic says (nil: not at all).
func (r *Record) encode(dst []byte, redoPtr page.LSN, fullPageWrites bool, ic *imageCompression) ([]byte, int) {
	start := len(dst)
	var hdr [HeaderSize]byte
	dst = append(dst, hdr[:]...)
	dst = append(dst, byte(len(r.blocks)))
	fpis := 0
	for i := range r.blocks {
		b := &r.blocks[i]
		image := false
		if b.flags&BlockWillInit == 0 && b.flags&BlockNoImage == 0 {
			image = b.flags&BlockForceImage != 0 || (fullPageWrites && b.pg.LSN() <= redoPtr)
		}
		fl := b.flags &^ (flagHasImage | flagHasDelta | flagHasData)
		if image {
			fl |= flagHasImage
		} else if b.logical {
			fl |= flagHasData
		} else if !b.delta.Empty() {
			fl |= flagHasDelta
		}
		ref := len(dst)
		dst = append(dst, b.id, byte(b.tag.Fork), fl, 0)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(b.tag.Rel))
		dst = binary.LittleEndian.AppendUint32(dst, b.tag.Block)
		if image {
			fpis++
			var info uint8
			dst, info = appendImage(dst, b.pg, b.flags&BlockStandard != 0, ic)
			dst[ref+3] = info
		} else if fl&flagHasData != 0 {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(len(b.data)))
			dst = append(dst, b.data...)
		} else if fl&flagHasDelta != 0 {
			lenPos := len(dst)
			dst = append(dst, 0, 0, 0, 0)
			dst = b.delta.Encode(dst, b.pg)
			binary.LittleEndian.PutUint32(dst[lenPos:], uint32(len(dst)-lenPos-4))
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(r.main)))
	dst = append(dst, r.main...)
	rec := dst[start:]
	binary.LittleEndian.PutUint32(rec[0:], uint32(len(rec)))
	binary.LittleEndian.PutUint32(rec[4:], r.Xid)
	rec[16] = r.Info
	rec[17] = byte(r.Rmgr)
	return dst, fpis
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func recordCRC(rec []byte) uint32 {
	c := crc32.Update(0, castagnoli, rec[HeaderSize:])
	return crc32.Update(c, castagnoli, rec[:20])
}

// Decoded is a record read back from WAL.
type Decoded struct {
	LSN    page.LSN // start
	EndLSN page.LSN // end (what pages carry as their LSN after this change)
	Prev   page.LSN
	Xid    uint32
	Rmgr   RmgrID
	Info   uint8
	Blocks []DecodedBlock
	Main   []byte
	Len    int
}

// DecodedBlock is one block reference of a decoded record.
type DecodedBlock struct {
	ID       uint8
	Tag      buffer.Tag
	Flags    uint8
	HasImage bool
	BimgInfo uint8 // the image's BKPIMAGE_* bits
	HoleOff  int
	HoleLen  int
	Image    []byte // the stored image: the page without its hole, compressed when BimgInfo says so
	Delta    []byte // encoded page.Delta
	Data     []byte // resource-manager data of a logical change (HasData)
	lsn      LSN
	dec      *imageDecoder // the reader's, for compressed images
}

// HasData reports whether the block's change is logical: redone by the
// resource manager's RedoPages from Data, not by RedoBlocks.
func (b *DecodedBlock) HasData() bool { return b.Flags&flagHasData != 0 }

// WillInit reports whether redo starts from a zeroed page.
func (b *DecodedBlock) WillInit() bool { return b.Flags&BlockWillInit != 0 }

// Compression is the method the image is stored with (CompressionNone for
// an uncompressed image).
func (b *DecodedBlock) Compression() Compression {
	switch b.BimgInfo & bkpImageCompressed {
	case bkpImageCompressPGLZ:
		return CompressionPGLZ
	case bkpImageCompressLZ4:
		return CompressionLZ4
	case bkpImageCompressZstd:
		return CompressionZstd
	}
	return CompressionNone
}

// RestoreImage writes the full-page image into pg, decompressing it first
// when it is compressed. A compressed image that does not decode to
// exactly the page without its hole is an error (XX000, PostgreSQL's
// "could not decompress image"), never a wrongly restored page.
func (b *DecodedBlock) RestoreImage(pg page.Page) error {
	n := page.Size - b.HoleLen
	if b.BimgInfo&bkpImageCompressed == 0 {
		copy(pg[:b.HoleOff], b.Image[:b.HoleOff])
		copy(pg[b.HoleOff+b.HoleLen:page.Size], b.Image[b.HoleOff:n])
		clear(pg[b.HoleOff : b.HoleOff+b.HoleLen])
		return nil
	}
	dec := b.dec
	if dec == nil {
		dec = &imageDecoder{}
		defer dec.close()
	}
	if err := dec.decompress(b.BimgInfo, b.Image, pg[:n]); err != nil {
		if err == errUnknownMethod {
			return pgerr.Errorf(pgerr.InternalError, "could not restore image at %s compressed with unknown method, block %d", FormatLSN(b.lsn), b.ID)
		}
		return pgerr.Errorf(pgerr.InternalError, "could not decompress image at %s, block %d", FormatLSN(b.lsn), b.ID).
			WithDetail("%s: %v", b.Compression(), err)
	}
	// The page came out without its hole: move the part after the hole
	// into place and zero the hole.
	copy(pg[b.HoleOff+b.HoleLen:page.Size], pg[b.HoleOff:n])
	clear(pg[b.HoleOff : b.HoleOff+b.HoleLen])
	return nil
}

func decode(rec []byte, lsn page.LSN, dec *imageDecoder) (*Decoded, error) {
	if len(rec) < HeaderSize+5 {
		return nil, fmt.Errorf("record too short")
	}
	d := &Decoded{
		LSN:  lsn,
		Len:  len(rec),
		Xid:  binary.LittleEndian.Uint32(rec[4:]),
		Prev: binary.LittleEndian.Uint64(rec[8:]),
		Info: rec[16],
		Rmgr: RmgrID(rec[17]),
	}
	d.EndLSN = lsn + page.LSN(len(rec))
	p := rec[HeaderSize:]
	nb := int(p[0])
	p = p[1:]
	for i := 0; i < nb; i++ {
		if len(p) < 12 {
			return nil, fmt.Errorf("truncated block header")
		}
		b := DecodedBlock{ID: p[0], Flags: p[2], BimgInfo: p[3], lsn: lsn, dec: dec}
		b.Tag.Fork = smgr.ForkNumber(p[1])
		b.Tag.Rel = smgr.RelFileNumber(binary.LittleEndian.Uint32(p[4:]))
		b.Tag.Block = binary.LittleEndian.Uint32(p[8:])
		p = p[12:]
		if b.Flags&flagHasImage != 0 {
			var err error
			if p, err = decodeImage(&b, p); err != nil {
				return nil, err
			}
		} else if b.Flags&flagHasData != 0 {
			if len(p) < 2 {
				return nil, fmt.Errorf("truncated block data")
			}
			n := int(binary.LittleEndian.Uint16(p))
			if len(p) < 2+n {
				return nil, fmt.Errorf("bad block data length")
			}
			b.Data = p[2 : 2+n]
			p = p[2+n:]
		} else if b.Flags&flagHasDelta != 0 {
			if len(p) < 4 {
				return nil, fmt.Errorf("truncated delta")
			}
			n := int(binary.LittleEndian.Uint32(p))
			p = p[4:]
			if len(p) < n {
				return nil, fmt.Errorf("bad delta length")
			}
			b.Delta = p[:n]
			p = p[n:]
		}
		d.Blocks = append(d.Blocks, b)
	}
	if len(p) < 4 {
		return nil, fmt.Errorf("truncated main data")
	}
	n := int(binary.LittleEndian.Uint32(p))
	p = p[4:]
	if len(p) < n {
		return nil, fmt.Errorf("bad main data length")
	}
	d.Main = p[:n]
	return d, nil
}

// decodeImage reads a block's image header and bytes from p and returns
// the rest. bimg_info 0 is the layout before wal_compression (hole offset,
// hole length, the page without its hole), still read so that a log
// written by an older build replays. The checks are PostgreSQL's
// DecodeXLogRecord's: a header that contradicts itself ends the log.
func decodeImage(b *DecodedBlock, p []byte) ([]byte, error) {
	b.HasImage = true
	if len(p) < 4 {
		return nil, fmt.Errorf("truncated image header")
	}
	if b.BimgInfo == 0 {
		b.HoleOff = int(binary.LittleEndian.Uint16(p))
		b.HoleLen = int(binary.LittleEndian.Uint16(p[2:]))
		b.BimgInfo = bkpImageApply
		if b.HoleLen > 0 {
			b.BimgInfo |= bkpImageHasHole
		}
		p = p[4:]
		n := page.Size - b.HoleLen
		if b.HoleOff+b.HoleLen > page.Size || len(p) < n {
			return nil, fmt.Errorf("bad image")
		}
		b.Image = p[:n]
		return p[n:], nil
	}
	bimgLen := int(binary.LittleEndian.Uint16(p))
	b.HoleOff = int(binary.LittleEndian.Uint16(p[2:]))
	p = p[4:]
	hasHole := b.BimgInfo&bkpImageHasHole != 0
	compressed := b.BimgInfo&bkpImageCompressed != 0
	switch {
	case hasHole && compressed:
		if len(p) < 2 {
			return nil, fmt.Errorf("truncated image header")
		}
		b.HoleLen = int(binary.LittleEndian.Uint16(p))
		p = p[2:]
	case hasHole:
		b.HoleLen = page.Size - bimgLen
	}
	switch {
	case hasHole && (b.HoleOff == 0 || b.HoleLen <= 0 || bimgLen == page.Size || b.HoleOff+b.HoleLen > page.Size):
		return nil, fmt.Errorf("BKPIMAGE_HAS_HOLE set, but hole offset %d length %d block image length %d", b.HoleOff, b.HoleLen, bimgLen)
	case !hasHole && b.HoleOff != 0:
		return nil, fmt.Errorf("BKPIMAGE_HAS_HOLE not set, but hole offset %d", b.HoleOff)
	case compressed && bimgLen >= page.Size-b.HoleLen:
		return nil, fmt.Errorf("BKPIMAGE_COMPRESSED set, but block image length %d", bimgLen)
	case !hasHole && !compressed && bimgLen != page.Size:
		return nil, fmt.Errorf("neither BKPIMAGE_HAS_HOLE nor BKPIMAGE_COMPRESSED set, but block image length is %d", bimgLen)
	case len(p) < bimgLen:
		return nil, fmt.Errorf("truncated image")
	}
	b.Image = p[:bimgLen]
	return p[bimgLen:], nil
}
