package exec

import (
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// rowStore keeps rows for readers that read them more than once or at
// their own pace — a WITH query's result, a nested loop's inner side, a
// recursive query's working table — within work_mem, as PostgreSQL's
// tuplestore: in memory while they fit, then all of them in a temporary
// file, appended to as more come. Readers are rowCursors, each with its
// own position; one may read while rows are still being added.
//
// Invariant: while spilled, rows is nil and the file holds every row in
// order; a cursor reading the file holds its own Reader positioned at its
// next row. A cursor that was reading memory when the store spilled is
// moved to its row's offset in the file, which the spill records for it.
type rowStore struct {
	limit   int64 // bytes; < 0: no limit
	mem     int64
	rows    []Row
	n       int
	file    *tempfile.File
	cursors []*rowCursor
	// peakMem is the most bytes held in memory; spilled says the rows
	// went to disk (EXPLAIN's Storage lines)
	peakMem int64
}

// newRowStore makes a store bounded by work_mem (unbounded with no
// temporary-file space, as outside a session).
func newRowStore(c *Ctx) *rowStore {
	s := &rowStore{limit: -1}
	if c.TempFiles != nil {
		s.limit = c.settingKB("work_mem", 4096) * 1024
	}
	return s
}

// Len is how many rows the store holds.
func (s *rowStore) Len() int { return s.n }

// add appends a row, spilling every row to a file when memory is full.
func (s *rowStore) add(c *Ctx, r Row) error {
	s.n++
	if s.file != nil {
		return s.file.WriteRow(r)
	}
	s.rows = append(s.rows, r)
	s.mem += datum.SpillMemSize(r)
	s.peakMem = max(s.peakMem, s.mem)
	if s.limit >= 0 && s.mem > s.limit {
		return s.spill(c)
	}
	return nil
}

// spill writes the rows in memory to a new file and moves the cursors
// reading memory to their rows' offsets.
func (s *rowStore) spill(c *Ctx) error {
	f, err := c.tempSpace().Create(c.U())
	if err != nil {
		return err
	}
	at := map[int][]*rowCursor{}
	for _, cur := range s.cursors {
		if cur.rd == nil {
			at[cur.i] = append(at[cur.i], cur)
		}
	}
	for i, r := range s.rows {
		for _, cur := range at[i] {
			cur.off = f.Size()
		}
		if err := f.WriteRow(r); err != nil {
			f.Close()
			return err
		}
	}
	for _, cur := range at[len(s.rows)] {
		cur.off = f.Size()
	}
	s.file, s.rows, s.mem = f, nil, 0
	return nil
}

// reset drops every row (and the file); open cursors start over.
func (s *rowStore) reset() {
	if s.file != nil {
		s.file.Close()
	}
	s.rows, s.n, s.mem, s.file = nil, 0, 0, nil
	for _, cur := range s.cursors {
		cur.i, cur.off, cur.rd = 0, 0, nil
	}
}

// cursor opens a reader at the first row; close it when done.
func (s *rowStore) cursor() *rowCursor {
	cur := &rowCursor{s: s}
	s.cursors = append(s.cursors, cur)
	return cur
}

// rowCursor is one reader of a rowStore.
type rowCursor struct {
	s   *rowStore
	i   int   // index of the next row
	off int64 // its file offset, until rd reads from there
	rd  *tempfile.Reader
}

// rewind moves the cursor back to the first row.
func (cur *rowCursor) rewind() { cur.i, cur.off, cur.rd = 0, 0, nil }

// next returns the cursor's next row, nil when it has read every row
// added so far.
func (cur *rowCursor) next() (Row, error) {
	s := cur.s
	if cur.i >= s.n {
		return nil, nil
	}
	if s.file == nil {
		cur.i++
		return s.rows[cur.i-1], nil
	}
	if cur.rd == nil {
		if err := s.file.Flush(); err != nil {
			return nil, err
		}
		cur.rd = s.file.NewReader(cur.off, -1, 1)
	}
	r, err := cur.rd.ReadRow()
	if err == nil && r == nil {
		// rows were added since the reader last reached the flushed end
		if err := s.file.Flush(); err != nil {
			return nil, err
		}
		cur.rd.Extend()
		r, err = cur.rd.ReadRow()
	}
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errRowStoreShort(s)
	}
	cur.i++
	return Row(r), nil
}

// close forgets the cursor.
func (cur *rowCursor) close() {
	cs := cur.s.cursors
	for i, x := range cs {
		if x == cur {
			cur.s.cursors = append(cs[:i], cs[i+1:]...)
			return
		}
	}
}

// close removes the store's file.
func (s *rowStore) close() {
	s.reset()
	s.cursors = nil
}

// errRowStoreShort: the file ended before the rows the store counted.
func errRowStoreShort(s *rowStore) error {
	return pgerr.Errorf(pgerr.DataCorrupted, "unexpected end of temporary file %q: %d rows were written", s.file.Path(), s.n)
}
