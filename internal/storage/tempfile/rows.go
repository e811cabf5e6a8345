package tempfile

import (
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/datum"
)

// Rows of Datums in a temporary file, in datum's spill form (each row
// carries its length): what sorted runs and hash batches hold.

// maxRowBytes bounds a row read back: a larger length means a damaged file.
const maxRowBytes = 1 << 30

// WriteRow appends one row.
func (f *File) WriteRow(row []datum.Datum) error {
	f.rowBuf = datum.AppendSpill(f.rowBuf[:0], row)
	_, err := f.Write(f.rowBuf)
	return err
}

// ReadRow reads the next row, nil at the end of the range.
func (r *Reader) ReadRow() ([]datum.Datum, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		if IsEOF(err) {
			return nil, nil
		}
		return nil, err
	}
	if n > maxRowBytes {
		return nil, fmt.Errorf("corrupt temporary file %q: row of %d bytes", r.f.relPath, n)
	}
	if uint64(cap(r.rowBuf)) < n {
		r.rowBuf = make([]byte, n)
	}
	b := r.rowBuf[:n]
	if err := r.ReadFull(b); err != nil {
		return nil, err
	}
	row, err := datum.DecodeSpill(b)
	if err != nil {
		return nil, fmt.Errorf("temporary file %q: %w", r.f.relPath, err)
	}
	return row, nil
}
