package buffer

import (
	"sort"
	"time"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// MaxCombine is how many adjacent blocks one combined write covers at most
// (128 kB, PostgreSQL 17's io_combine_limit default).
const MaxCombine = 16

// SyncOptions steer a checkpoint's buffer pass (BufferSync).
type SyncOptions struct {
	// Pace, when set, is called after every combined write with the
	// fraction of the pass done; it sleeps to spread the writes over the
	// checkpoint's schedule, or returns at once for an immediate checkpoint.
	Pace func(done float64)
	// FlushAfter is checkpoint_flush_after in blocks: writeback hints are
	// issued every FlushAfter blocks written (0: none).
	FlushAfter int
}

// SyncResult describes a finished buffer pass, for the checkpoint's log
// line and pg_stat_bgwriter / pg_stat_checkpointer.
type SyncResult struct {
	Written    int   // buffers written
	Writes     int   // write system calls (combined writes)
	Writebacks int64 // writeback hints issued
	WriteTime  time.Duration
	SyncTime   time.Duration
}

type dirtyBuf struct {
	tag Tag
	id  int32
}

// SyncBuffers is the checkpoint's buffer pass: it writes every buffer that
// is dirty when it starts, sorted by file, fork and block so that adjacent
// blocks go out in one vectored write, with WAL flushed first up to the
// highest page LSN of each write (WAL before data), and then fsyncs each
// file written since the last checkpoint once. A buffer dirtied after the
// pass began is left to the next checkpoint: its WAL is after the redo
// point. On a write error the buffers not yet written stay dirty, so the
// next checkpoint writes them again; a failed fsync is returned wrapping
// smgr.ErrFsync and must stop the server.
func (p *Pool) SyncBuffers(o SyncOptions) (SyncResult, error) {
	var res SyncResult
	start := time.Now()
	todo := p.dirtySorted()
	wb := p.smgr.NewWriteback(o.FlushAfter)
	w := newRunWriter(p)
	for i := 0; i < len(todo); {
		n, written, err := w.writeRun(todo[i:])
		if err != nil {
			return res, err
		}
		i += n
		if written > 0 {
			res.Written += written
			res.Writes++
			wb.Add(w.tag.Rel, w.tag.Fork, w.tag.Block, written)
		}
		if o.Pace != nil {
			o.Pace(float64(i) / float64(len(todo)))
		}
	}
	wb.Issue()
	res.Writebacks = wb.Issued
	res.WriteTime = time.Since(start)
	syncStart := time.Now()
	err := p.smgr.SyncAll()
	res.SyncTime = time.Since(syncStart)
	p.counters.checkpointWritten.Add(int64(res.Written))
	return res, err
}

// dirtySorted lists the buffers dirty now, in (file, fork, block) order.
func (p *Pool) dirtySorted() []dirtyBuf {
	var out []dirtyBuf
	for i := range p.descs {
		d := &p.descs[i]
		d.hdr.Lock()
		if d.dirty && d.valid {
			out = append(out, dirtyBuf{d.tag, int32(i)})
		}
		d.hdr.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return tagLess(out[i].tag, out[j].tag) })
	return out
}

func tagLess(a, b Tag) bool {
	if a.Rel != b.Rel {
		return a.Rel < b.Rel
	}
	if a.Fork != b.Fork {
		return a.Fork < b.Fork
	}
	return a.Block < b.Block
}

// runWriter writes runs of adjacent dirty buffers with one system call.
type runWriter struct {
	p       *Pool
	ids     []int32
	bufs    [][]byte
	staging []byte // checksummed copies, when Checksums is on
	tag     Tag    // the first block of the last run written
}

func newRunWriter(p *Pool) *runWriter {
	w := &runWriter{p: p, ids: make([]int32, 0, MaxCombine), bufs: make([][]byte, 0, MaxCombine)}
	if p.Checksums {
		w.staging = make([]byte, MaxCombine*page.Size)
	}
	return w
}

// writeRun writes the longest run at the head of todo that it can lock,
// and returns how many entries of todo it consumed and how many buffers
// it wrote. The first buffer's content lock is waited for; later ones are
// only tried, because waiting for a second lock while holding the first
// could deadlock with a backend that locks pages in another order. A
// buffer that is no longer dirty (a backend or the background writer
// wrote it, or it was evicted) is skipped.
func (w *runWriter) writeRun(todo []dirtyBuf) (consumed, written int, err error) {
	p := w.p
	w.ids, w.bufs = w.ids[:0], w.bufs[:0]
	consumed = 1
	if !p.pinIfDirty(todo[0]) {
		return consumed, 0, nil
	}
	d := &p.descs[todo[0].id]
	d.content.RLock()
	if !p.stillDirty(todo[0]) {
		d.content.RUnlock()
		p.unpin(todo[0].id)
		return consumed, 0, nil
	}
	w.ids = append(w.ids, todo[0].id)
	w.tag = todo[0].tag
	for _, next := range todo[1:] {
		prev := todo[consumed-1].tag
		t := next.tag
		if len(w.ids) == MaxCombine || t.Rel != prev.Rel || t.Fork != prev.Fork || t.Block != prev.Block+1 ||
			t.Block%smgr.BlocksPerSegment == 0 {
			break
		}
		if !p.pinIfDirty(next) {
			break
		}
		nd := &p.descs[next.id]
		if !nd.content.TryRLock() {
			p.unpin(next.id)
			break
		}
		if !p.stillDirty(next) {
			nd.content.RUnlock()
			p.unpin(next.id)
			break
		}
		w.ids = append(w.ids, next.id)
		consumed++
	}
	err = w.writeLocked()
	for _, id := range w.ids {
		p.descs[id].content.RUnlock()
		p.unpin(id)
	}
	if err != nil {
		return consumed, 0, err
	}
	return consumed, len(w.ids), nil
}

// writeLocked writes the share-locked, pinned buffers w.ids, which hold
// adjacent blocks from w.tag on, as one write, after flushing WAL up to the
// highest LSN among them. Each stays dirty if it was dirtied again during
// the write (a hint bit under a share lock) or if the write failed.
func (w *runWriter) writeLocked() error {
	p := w.p
	var maxLSN page.LSN
	for i, id := range w.ids {
		d := &p.descs[id]
		d.hdr.Lock()
		d.justDirtied = false
		d.hdr.Unlock()
		pg := p.Page(Buffer(id + 1))
		if lsn := pg.LSN(); lsn > maxLSN {
			maxLSN = lsn
		}
		if p.Checksums {
			tmp := w.staging[i*page.Size : (i+1)*page.Size]
			copy(tmp, pg)
			setChecksum(tmp, Tag{w.tag.Rel, w.tag.Fork, w.tag.Block + page.BlockNumber(i)})
			w.bufs = append(w.bufs, tmp)
		} else {
			w.bufs = append(w.bufs, pg)
		}
	}
	if p.FlushWAL != nil {
		if err := p.FlushWAL(maxLSN); err != nil {
			return err
		}
	}
	if err := p.smgr.WriteBlocks(w.tag.Rel, w.tag.Fork, w.tag.Block, w.bufs); err != nil {
		return err
	}
	for _, id := range w.ids {
		d := &p.descs[id]
		d.hdr.Lock()
		if !d.justDirtied {
			d.dirty = false
		}
		d.hdr.Unlock()
	}
	return nil
}

// pinIfDirty pins b's frame if it still holds b's block and is dirty.
func (p *Pool) pinIfDirty(b dirtyBuf) bool {
	d := &p.descs[b.id]
	d.hdr.Lock()
	defer d.hdr.Unlock()
	if d.tag != b.tag || !d.valid || !d.dirty {
		return false
	}
	d.refcount++
	return true
}

// stillDirty re-checks a pinned frame after its content lock was taken.
func (p *Pool) stillDirty(b dirtyBuf) bool {
	d := &p.descs[b.id]
	d.hdr.Lock()
	defer d.hdr.Unlock()
	return d.tag == b.tag && d.valid && d.dirty
}
