package exec

import (
	"fmt"
	"math/bits"

	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// A HashJoin bigger than hash_mem runs as PostgreSQL's hybrid hash join
// (nodeHash.c, nodeHashjoin.c). The join starts with one batch. When the
// inner rows in memory outgrow hash_mem, the number of batches doubles
// and the rows whose hash now names a later batch move to that batch's
// inner file; from then on, an inner row of a later batch goes straight
// to its file. While probing, an outer row of a later batch goes to that
// batch's outer file. When the current batch's outer rows are done (and,
// for RIGHT and FULL joins, its unmatched inner rows emitted), the next
// batch's inner file is loaded — splitting again if it is still too big
// — and probed with its outer file.
//
// Invariant: a row's batch is the low bits of its mixed hash, and the
// count only doubles, so a row of batch b stays in b or moves to
// b + nbatch; it never moves to a batch already done. Rows with a NULL
// key have no batch: outer ones are answered at once, inner ones (kept
// only for RIGHT and FULL joins) stay in the first batch's memory.
//
// As PostgreSQL, a split that moves no row (or every row) out of memory
// stops further splitting — the batch is one key's rows, which no split
// can divide — and the batch runs over hash_mem.

// maxHashBatches bounds the number of batches (PostgreSQL's is INT_MAX/2;
// files per batch make a smaller bound sensible here).
const maxHashBatches = 1 << 16

// hashBatches is a HashJoin's batch state.
type hashBatches struct {
	limit   int64 // hash_mem in bytes
	spill   bool  // temporary files may be used
	nbatch  int
	cur     int
	growOff bool
	// inner[b] and outer[b] are batch b's rows of each side (nil: none)
	inner, outer []*tempfile.File
	// the current batch's outer rows, when it is not the first
	outerRd *tempfile.Reader
}

func (hb *hashBatches) start(c *Ctx) {
	hb.close()
	*hb = hashBatches{limit: c.hashMemKB() * 1024, spill: c.TempFiles != nil, nbatch: 1}
}

// of is the batch of a row with hash hv.
func (hb *hashBatches) of(hv uint64) int {
	if hb.nbatch == 1 {
		return 0
	}
	hv ^= hv >> 33
	hv *= 0xff51afd7ed558ccd
	hv ^= hv >> 33
	return int(hv & uint64(hb.nbatch-1))
}

func (hb *hashBatches) canGrow() bool {
	return hb.spill && !hb.growOff && hb.nbatch < maxHashBatches
}

// save appends row r to batch b's file of one side.
func (hb *hashBatches) save(c *Ctx, files []*tempfile.File, b int, r Row) error {
	if files[b] == nil {
		f, err := c.tempSpace().Create(c.U())
		if err != nil {
			return err
		}
		files[b] = f
	}
	return files[b].WriteRow(r)
}

// grow doubles the number of batches.
func (hb *hashBatches) grow() {
	hb.nbatch *= 2
	hb.inner = append(hb.inner, make([]*tempfile.File, hb.nbatch-len(hb.inner))...)
	hb.outer = append(hb.outer, make([]*tempfile.File, hb.nbatch-len(hb.outer))...)
}

// close removes every file left (a join closed early, or failed).
func (hb *hashBatches) close() {
	for _, fs := range [][]*tempfile.File{hb.inner, hb.outer} {
		for i, f := range fs {
			if f != nil {
				f.Close()
				fs[i] = nil
			}
		}
	}
	hb.outerRd = nil
}

// split doubles the batches and moves the in-memory rows that now belong
// to a later batch to its inner file.
func (h *HashJoin) split(c *Ctx) error {
	hb := &h.batches
	hb.grow()
	rows, keys, hashes, hashed := h.rows, h.keys, h.hashes, h.hashed
	h.resetTable()
	moved := 0
	for i, r := range rows {
		if hashed[i] && hb.of(hashes[i]) != hb.cur {
			if err := hb.save(c, hb.inner, hb.of(hashes[i]), r); err != nil {
				return err
			}
			moved++
			continue
		}
		h.add(r, keys[i], hashes[i], hashed[i])
	}
	if moved == 0 || moved == len(rows) {
		hb.growOff = true
	}
	return nil
}

// nextOuter returns the next outer row of the current batch with its keys
// and hash (ok false: a NULL key), or nil when the batch has no more;
// outer rows of later batches go to their files on the way.
func (h *HashJoin) nextOuter(c *Ctx) (Row, []types.Datum, uint64, bool, error) {
	hb := &h.batches
	for n := 1; ; n++ {
		if n&4095 == 0 {
			if err := c.checkCancel(); err != nil {
				return nil, nil, 0, false, err
			}
		}
		var l Row
		var err error
		switch {
		case hb.cur == 0:
			l, err = Next(c, h.Left)
		case hb.outerRd != nil:
			l, err = hb.outerRd.ReadRow()
		}
		if err != nil || l == nil {
			return nil, nil, 0, false, err
		}
		ks, hv, ok, err := h.hashKeys(c, h.LeftKeys, l)
		if err != nil {
			return nil, nil, 0, false, err
		}
		if ok && hb.of(hv) != hb.cur {
			if err := hb.save(c, hb.outer, hb.of(hv), l); err != nil {
				return nil, nil, 0, false, err
			}
			continue
		}
		return l, ks, hv, ok, nil
	}
}

// nextBatch moves to the next batch that can produce rows, loading its
// inner rows; h.done when none is left.
func (h *HashJoin) nextBatch(c *Ctx) error {
	hb := &h.batches
	hb.outerRd = nil
	if hb.cur < len(hb.outer) && hb.outer[hb.cur] != nil {
		hb.outer[hb.cur].Close()
		hb.outer[hb.cur] = nil
	}
	for hb.cur++; hb.cur < hb.nbatch; hb.cur++ {
		in, out := hb.inner[hb.cur], hb.outer[hb.cur]
		hb.inner[hb.cur] = nil
		// A batch with rows on one side only still runs: its file can
		// hold rows of later batches, written before the count last grew.
		if in == nil && out == nil {
			continue
		}
		h.resetTable()
		next := func() (Row, error) { return nil, nil }
		if in != nil {
			if err := in.Flush(); err != nil {
				in.Close()
				return err
			}
			next = in.NewReader(0, -1, 4).ReadRow
		}
		err := h.build(c, next)
		if in != nil {
			in.Close()
		}
		if err != nil {
			return err
		}
		if out != nil {
			if err := out.Flush(); err != nil {
				return err
			}
			hb.outerRd = out.NewReader(0, -1, 4)
		}
		return nil
	}
	h.done = true
	h.resetTable()
	return nil
}

// noteBatchStats records the batch just built for EXPLAIN ANALYZE.
func (h *HashJoin) noteBatchStats() {
	st := &h.Hash.stats
	st.batches = h.batches.nbatch
	st.memPeak = max(st.memPeak, h.mem)
	b := 1024
	if n := len(h.rows); n > b {
		b = 1 << bits.Len(uint(n-1))
	}
	st.buckets = max(st.buckets, b)
}

// explainLine is PostgreSQL's line under a Hash node. tidal sizes its
// table as it fills (a Go map), so the bucket count is the power of two
// PostgreSQL's NTUP_PER_BUCKET = 1 sizing would reach for the largest
// batch, and the join always starts with one batch.
func (st hashStats) explainLine() string {
	kb := (st.memPeak + 1023) / 1024
	if st.batches != 1 {
		return fmt.Sprintf("Buckets: %d (originally %d)  Batches: %d (originally 1)  Memory Usage: %dkB", st.buckets, st.buckets, st.batches, kb)
	}
	return fmt.Sprintf("Buckets: %d  Batches: %d  Memory Usage: %dkB", st.buckets, st.batches, kb)
}
