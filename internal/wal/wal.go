// Package wal is the write-ahead log: record assembly with full-page images
// after each checkpoint's redo point, insertion into one log stream, group
// flush with fsync, segment files, reading back for crash recovery, and the
// control file.
//
// See README.md for the record format and the rules. The essential
// invariants:
//   - a page change is WAL-logged while the page is exclusively locked, and
//     the page's LSN is set to the record's end before the lock is released;
//   - a dirty page is written only after WAL is durable up to its LSN;
//   - the first change to a page after a checkpoint's redo point carries a
//     full-page image (when full_page_writes is on), so a torn page write is
//     repaired by redo.
package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// LSN is a byte position in the WAL stream.
type LSN = page.LSN

// SegmentSize is the size of one WAL segment file (wal_segment_size).
const SegmentSize = 16 << 20

// FirstLSN is where a new cluster's WAL begins (segment 1, as PostgreSQL's
// 0/1000000).
const FirstLSN LSN = SegmentSize

// Align rounds an LSN up to the 8-byte record alignment.
func Align(l LSN) LSN { return (l + 7) &^ 7 }

// FormatLSN prints an LSN as PostgreSQL does (hi/lo in hex).
func FormatLSN(l LSN) string { return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l)) }

// WAL is the log of one data directory.
type WAL struct {
	dir   string
	fsync bool

	fullPageWrites atomic.Bool
	redoPtr        atomic.Uint64
	// compression is the server's wal_compression (a Compression), for
	// inserts whose backend chose none; compressors are lent to inserters.
	compression atomic.Uint32
	compressors *compressorPool

	insMu     sync.Mutex
	insertPos LSN // where the next record starts
	prevRec   LSN
	buf       []byte // bytes of [bufStart, insertPos) not yet written
	bufStart  LSN
	spare     []byte

	flushMu sync.Mutex
	flushed atomic.Uint64 // durable up to here
	written LSN           // written (maybe not synced) up to here
	segs    map[uint64]*os.File

	// failed is set when a write or fsync failed: the log can no longer
	// promise durability and every later flush fails (PostgreSQL PANICs).
	failed atomic.Pointer[error]

	unlogged unloggedSet // relations whose page records are not written (unlogged.go)
}

// Options configure a WAL.
type Options struct {
	Fsync          bool
	FullPageWrites bool
	// Compression is wal_compression for full-page images; zero means off.
	Compression Compression
}

// Open opens the log in dir to continue writing at pos (the end of the
// last valid record, as recovery found it; FirstLSN for a new cluster),
// whose record started at prev. Bytes after pos in its segment are zeroed
// and later segments removed, so stale records can never follow new ones.
func Open(dir string, pos, prev LSN, opt Options) (*WAL, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	w := &WAL{dir: dir, fsync: opt.Fsync, segs: make(map[uint64]*os.File), buf: make([]byte, 0, 9<<20)}
	w.fullPageWrites.Store(opt.FullPageWrites)
	w.SetCompression(opt.Compression)
	w.compressors = newCompressorPool(2 * runtime.GOMAXPROCS(0))
	pos = Align(pos)
	w.insertPos, w.prevRec, w.bufStart, w.written = pos, prev, pos, pos
	w.flushed.Store(pos)
	if err := w.cleanTail(pos); err != nil {
		return nil, err
	}
	return w, nil
}

func segName(seg uint64) string {
	const perID = 0x100000000 / SegmentSize
	return fmt.Sprintf("%08X%08X%08X", 1, seg/perID, seg%perID)
}

func parseSegName(name string) (uint64, bool) {
	if len(name) != 24 {
		return 0, false
	}
	hi, err1 := strconv.ParseUint(name[8:16], 16, 32)
	lo, err2 := strconv.ParseUint(name[16:24], 16, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const perID = 0x100000000 / SegmentSize
	return hi*perID + lo, true
}

// Segments lists the segment numbers present, ascending.
func Segments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, e := range ents {
		if s, ok := parseSegName(e.Name()); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (w *WAL) cleanTail(pos LSN) error {
	segs, err := Segments(w.dir)
	if err != nil {
		return err
	}
	// A pre-allocation cut short by a crash leaves its temporary file.
	if tmps, err := filepath.Glob(filepath.Join(w.dir, "xlogtemp.*")); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	cur := uint64(pos / SegmentSize)
	for _, s := range segs {
		if s > cur {
			if err := os.Remove(filepath.Join(w.dir, segName(s))); err != nil {
				return err
			}
		}
	}
	f, err := w.segFile(cur)
	if err != nil {
		return err
	}
	off := int64(pos % SegmentSize)
	zeros := make([]byte, 64<<10)
	for o := off; o < SegmentSize; o += int64(len(zeros)) {
		n := int64(len(zeros))
		if o+n > SegmentSize {
			n = SegmentSize - o
		}
		if _, err := f.WriteAt(zeros[:n], o); err != nil {
			return err
		}
	}
	if w.fsync {
		if err := f.Sync(); err != nil {
			return err
		}
		if d, err := os.Open(w.dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}

func (w *WAL) segFile(seg uint64) (*os.File, error) {
	if f := w.segs[seg]; f != nil {
		return f, nil
	}
	path := filepath.Join(w.dir, segName(seg))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() < SegmentSize {
		if err := w.zeroFill(f, st.Size()); err != nil {
			f.Close()
			return nil, err
		}
	}
	w.segs[seg] = f
	return f, nil
}

// zeroFill writes zeros to a new segment from offset from to its end and
// makes that durable (as PostgreSQL's wal_init_zero): its blocks are then
// allocated, and a commit's flush of a segment written in place needs only
// fdatasync, which writes no file metadata.
func (w *WAL) zeroFill(f *os.File, from int64) error {
	zeros := make([]byte, 256<<10)
	for o := from; o < SegmentSize; o += int64(len(zeros)) {
		n := min(int64(len(zeros)), SegmentSize-o)
		if _, err := f.WriteAt(zeros[:n], o); err != nil {
			return err
		}
	}
	if !w.fsync {
		return nil
	}
	if err := f.Sync(); err != nil {
		return err
	}
	d, err := os.Open(w.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// SetFullPageWrites changes full_page_writes.
func (w *WAL) SetFullPageWrites(on bool) { w.fullPageWrites.Store(on) }

// SetCompression changes the server's wal_compression: the method for
// records whose inserting backend has not chosen one (stats.Usage's
// WALCompression). Zero means off.
func (w *WAL) SetCompression(c Compression) {
	if c == 0 {
		c = CompressionNone
	}
	w.compression.Store(uint32(c))
}

// Compression is the server's wal_compression.
func (w *WAL) Compression() Compression { return Compression(w.compression.Load()) }

// compressionFor is the method an insert charged to u uses: its backend's
// wal_compression, or else the server's.
func (w *WAL) compressionFor(u *stats.Usage) Compression {
	if u != nil && u.WALCompression != 0 {
		return Compression(u.WALCompression)
	}
	return w.Compression()
}

// RedoPtr is the redo point of the latest checkpoint (started or done).
func (w *WAL) RedoPtr() LSN { return LSN(w.redoPtr.Load()) }

// BeginCheckpoint fixes a new redo point at the current insert position:
// from now on the first change to any page carries a full-page image.
func (w *WAL) BeginCheckpoint() LSN {
	w.insMu.Lock()
	defer w.insMu.Unlock()
	w.redoPtr.Store(uint64(w.insertPos))
	return w.insertPos
}

// SetRedoPtr sets the redo point (recovery sets it from the checkpoint).
func (w *WAL) SetRedoPtr(l LSN) { w.redoPtr.Store(uint64(l)) }

// InsertPos is where the next record will start.
func (w *WAL) InsertPos() LSN {
	w.insMu.Lock()
	defer w.insMu.Unlock()
	return w.insertPos
}

// FlushedLSN is how far the log is durable.
func (w *WAL) FlushedLSN() LSN { return LSN(w.flushed.Load()) }

var (
	encodePool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}
	zeroPad    [8]byte
)

// Insert appends a record and returns its end LSN, which the caller stores
// as the LSN of every page the record changed. u, if not nil, is charged
// with the record, its full-page images and its bytes.
func (w *WAL) Insert(u *stats.Usage, r *Record) (LSN, error) {
	_, end, err := w.InsertRecord(u, r)
	return end, err
}

// InsertRecord is Insert that also returns where the record starts. A
// caller that must point at its own record later (the checkpoint, whose
// location goes into the control file) needs this: reading InsertPos before
// Insert races with other backends inserting in between.
func (w *WAL) InsertRecord(u *stats.Usage, r *Record) (start, end LSN, err error) {
	if e := w.failed.Load(); e != nil {
		return 0, 0, *e
	}
	if w.skipsRecord(r) {
		return 0, 0, nil
	}
	scratch := encodePool.Get().(*[]byte)
	defer encodePool.Put(scratch)
	ic := imageCompression{method: w.compressionFor(u), pool: w.compressors}
	defer ic.release()
	for {
		redo := w.RedoPtr()
		rec, fpis := r.encode((*scratch)[:0], redo, w.fullPageWrites.Load(), &ic)
		*scratch = rec
		w.insMu.Lock()
		if w.RedoPtr() != redo {
			// A checkpoint began meanwhile; images must be decided again.
			w.insMu.Unlock()
			continue
		}
		lsn := w.insertPos
		putPrev(rec, w.prevRec)
		putCRC(rec)
		w.buf = append(w.buf, rec...)
		if pad := int(Align(LSN(len(rec)))) - len(rec); pad > 0 {
			w.buf = append(w.buf, zeroPad[:pad]...)
		}
		w.prevRec = lsn
		w.insertPos = Align(lsn + LSN(len(rec)))
		big := len(w.buf) > 8<<20
		w.insMu.Unlock()
		if u != nil {
			u.WAL.Records++
			u.WAL.FPI += int64(fpis)
			u.WAL.Bytes += int64(len(rec))
		}
		end := lsn + LSN(len(rec))
		if big {
			// Keep the in-memory tail bounded: write (not sync) it now.
			if err := w.write(false); err != nil {
				return 0, 0, err
			}
		}
		return lsn, end, nil
	}
}

// Flush makes the log durable at least up to lsn (group commit: whoever
// holds the flush lock writes everything inserted so far, and the others
// find their records already durable).
func (w *WAL) Flush(lsn LSN) error {
	if LSN(w.flushed.Load()) >= lsn {
		return nil
	}
	if e := w.failed.Load(); e != nil {
		return *e
	}
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	if LSN(w.flushed.Load()) >= lsn {
		return nil
	}
	return w.writeLocked(true)
}

func (w *WAL) write(sync bool) error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	return w.writeLocked(sync)
}

// writeLocked writes the pending tail and, with sync, fsyncs it. flushMu
// is held.
func (w *WAL) writeLocked(sync bool) error {
	w.insMu.Lock()
	data, start, end := w.buf, w.bufStart, w.insertPos
	w.buf = w.spare[:0]
	w.spare = nil
	w.bufStart = end
	w.insMu.Unlock()

	written := data // the whole buffer, to be reused: the loop advances data
	touched := map[uint64]*os.File{}
	pos := start
	for len(data) > 0 {
		seg := uint64(pos / SegmentSize)
		f, err := w.segFile(seg)
		if err != nil {
			return w.fail(err)
		}
		off := int64(pos % SegmentSize)
		n := int64(len(data))
		if off+n > SegmentSize {
			n = SegmentSize - off
		}
		if _, err := f.WriteAt(data[:n], off); err != nil {
			return w.fail(err)
		}
		touched[seg] = f
		data = data[n:]
		pos += LSN(n)
	}
	w.written = end
	if sync {
		// Segments written earlier without sync must be synced too.
		for seg, f := range w.segs {
			if LSN(seg+1)*SegmentSize > LSN(w.flushed.Load()) {
				touched[seg] = f
			}
		}
		if w.fsync {
			for _, f := range touched {
				// Segments are zero-filled when created, so a write
				// changes no metadata a read needs: fdatasync suffices.
				if err := datasync(f); err != nil {
					return w.fail(err)
				}
			}
		}
		w.flushed.Store(uint64(end))
	}
	w.insMu.Lock()
	if w.spare == nil {
		// The written buffer, with its capacity, becomes the next tail
		// (data[:0] here would keep only what was left past its end, and
		// every insert burst would regrow and copy the tail from nothing).
		w.spare = written[:0]
	}
	w.insMu.Unlock()
	return nil
}

func (w *WAL) fail(err error) error {
	e := fmt.Errorf("could not write to WAL: %w", err)
	w.failed.Store(&e)
	return e
}

// RecycleSegments is how many retired segments a checkpoint keeps, renamed
// to future segment names, instead of deleting them (PostgreSQL keeps
// min_wal_size = 80MB, five segments, the same way).
const RecycleSegments = 4

// RemoveSegmentsBefore retires segments that end at or before lsn (no
// longer needed for recovery after a checkpoint). Up to RecycleSegments of
// them are renamed to the next future segment names rather than deleted,
// as PostgreSQL recycles WAL files: the commit that crosses into a new
// segment then finds its blocks allocated and need not zero-fill 16 MiB
// first. A recycled file still holds its old records; they can never be
// replayed, because each one's prev-link points into its old life and the
// reader stops at the first record whose prev-link is not the record
// before it.
//
// The renames happen under the flush lock (the writer may open the future
// names); the unlinks, which take milliseconds each for 16 MiB files,
// happen after it is released so that commits are not held up.
func (w *WAL) RemoveSegmentsBefore(lsn LSN) error {
	remove, err := w.retireSegments(lsn)
	for _, name := range remove {
		if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}

// retireSegments closes the segments before lsn, recycles up to
// RecycleSegments of them and returns the paths of the others to remove.
func (w *WAL) retireSegments(lsn LSN) (remove []string, err error) {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	segs, err := Segments(w.dir)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		return nil, nil
	}
	keep := uint64(lsn / SegmentSize)
	writing := uint64(w.written / SegmentSize)
	next := max(segs[len(segs)-1], writing) + 1
	future := 0
	for _, s := range segs {
		if s > writing {
			future++
		}
	}
	renamed := false
	for _, s := range segs {
		if s >= keep || s >= writing {
			break
		}
		if f := w.segs[s]; f != nil {
			f.Close()
			delete(w.segs, s)
		}
		old := filepath.Join(w.dir, segName(s))
		if future < RecycleSegments {
			if st, err := os.Stat(old); err == nil && st.Size() == SegmentSize {
				if err := os.Rename(old, filepath.Join(w.dir, segName(next))); err != nil {
					return remove, err
				}
				next++
				future++
				renamed = true
				continue
			}
		}
		remove = append(remove, old)
	}
	if renamed && w.fsync {
		if d, err := os.Open(w.dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return remove, nil
}

// Close flushes and closes the segment files.
func (w *WAL) Close() error {
	err := w.Flush(w.InsertPos())
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	for s, f := range w.segs {
		f.Close()
		delete(w.segs, s)
	}
	return err
}
