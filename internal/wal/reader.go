package wal

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Reader reads records sequentially from the segment files. It stops
// (io.EOF) at the first position that does not hold a valid record: a zero
// length, a bad CRC, or a prev-link that does not match — the end of the
// log after a crash.
type Reader struct {
	dir  string
	pos  LSN
	prev LSN
	// checkPrev is false for the very first record, whose predecessor is
	// not known.
	checkPrev bool
	files     map[uint64]*os.File
	hdr       [HeaderSize]byte
	images    imageDecoder // decompresses the images of the records it returns
}

// NewReader starts reading at pos.
func NewReader(dir string, pos LSN) *Reader {
	return &Reader{dir: dir, pos: pos, files: map[uint64]*os.File{}}
}

// Pos is where the next record would start.
func (r *Reader) Pos() LSN { return r.pos }

// Prev is the start of the last record returned.
func (r *Reader) Prev() LSN { return r.prev }

func (r *Reader) readAt(buf []byte, pos LSN) error {
	for len(buf) > 0 {
		seg := uint64(pos / SegmentSize)
		f := r.files[seg]
		if f == nil {
			var err error
			f, err = os.Open(filepath.Join(r.dir, segName(seg)))
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return io.EOF
				}
				return err
			}
			r.files[seg] = f
		}
		off := int64(pos % SegmentSize)
		n := len(buf)
		if off+int64(n) > SegmentSize {
			n = int(SegmentSize - off)
		}
		m, err := f.ReadAt(buf[:n], off)
		if m < n {
			if err == nil || err == io.EOF {
				return io.EOF
			}
			return err
		}
		buf = buf[n:]
		pos += LSN(n)
	}
	return nil
}

// Next returns the next record, or io.EOF at the end of valid WAL.
func (r *Reader) Next() (*Decoded, error) {
	if err := r.readAt(r.hdr[:], r.pos); err != nil {
		return nil, err
	}
	tot := binary.LittleEndian.Uint32(r.hdr[0:])
	if tot < HeaderSize+5 || tot > 1<<30 {
		return nil, io.EOF
	}
	rec := make([]byte, tot)
	if err := r.readAt(rec, r.pos); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(rec[20:]) != recordCRC(rec) {
		return nil, io.EOF
	}
	prev := binary.LittleEndian.Uint64(rec[8:])
	if r.checkPrev && prev != r.prev {
		return nil, io.EOF
	}
	d, err := decode(rec, r.pos, &r.images)
	if err != nil {
		return nil, io.EOF
	}
	r.prev = r.pos
	r.checkPrev = true
	r.pos = Align(r.pos + LSN(tot))
	return d, nil
}

// ReadAt reads the single record at pos (the checkpoint record).
func ReadAt(dir string, pos LSN) (*Decoded, error) {
	r := NewReader(dir, pos)
	defer r.Close()
	return r.Next()
}

// Close closes the files.
func (r *Reader) Close() {
	for _, f := range r.files {
		f.Close()
	}
	r.images.close()
}

func putPrev(rec []byte, prev LSN) { binary.LittleEndian.PutUint64(rec[8:], prev) }
func putCRC(rec []byte)            { binary.LittleEndian.PutUint32(rec[20:], recordCRC(rec)) }
