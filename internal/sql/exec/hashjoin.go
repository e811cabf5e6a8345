package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Hash reads its input into memory for a HashJoin (EXPLAIN shows it, with
// the join's bucket, batch and memory figures).
type Hash struct {
	nodeBase
	Input Node
	stats hashStats
}

// hashStats are what EXPLAIN ANALYZE prints under a Hash node.
type hashStats struct {
	buckets int   // power of two ≥ the most rows a batch held, at least 1024
	batches int   // final number of batches (1: no spill)
	memPeak int64 // most bytes the in-memory batch held
}

func (h *Hash) Columns() []Column        { return h.Input.Columns() }
func (h *Hash) Open(c *Ctx) error        { return Open(c, h.Input) }
func (h *Hash) Next(c *Ctx) (Row, error) { return Next(c, h.Input) }
func (h *Hash) Close(c *Ctx)             { Close(c, h.Input) }

// HashJoin joins on equality conditions: it builds a hash table of the
// right (inner) rows, then probes it with each left row. Past hash_mem
// (work_mem × hash_mem_multiplier) it splits both sides into batches by
// their key hashes, as PostgreSQL's hybrid hash join: hashjoin_spill.go.
type HashJoin struct {
	nodeBase
	Left      Node
	Hash      *Hash
	Kind      pg.JoinType
	LeftKeys  []expr.Expr
	RightKeys []expr.Expr
	Eqs       []*types.Func // equality of LeftKeys[i], RightKeys[i]
	Conds     []string      // Hash Cond, as EXPLAIN prints it
	Qual      expr.Expr     // further join conditions (Join Filter)
	cols      []Column

	lw, rw int
	// the in-memory batch: inner rows, their keys and hashes (hashed is
	// false for a row with a NULL key, which matches nothing), the table
	// from hash to row indexes, and which rows matched (RIGHT/FULL)
	rows    []Row
	keys    [][]types.Datum
	hashes  []uint64
	hashed  []bool
	table   map[uint64][]int
	matched []bool
	mem     int64

	cur        Row
	curKeys    []types.Datum
	cands      []int
	ci         int
	curMatched bool
	tail       int  // next inner row the unmatched-inner pass looks at; -1: not in it
	done       bool // no batch is left
	batches    hashBatches
}

func (h *HashJoin) Columns() []Column { return h.cols }

func (h *HashJoin) hashKeys(c *Ctx, es []expr.Expr, row Row) ([]types.Datum, uint64, bool, error) {
	ks := make([]types.Datum, len(es))
	var hv uint64 = 14695981039346656037
	for i, e := range es {
		d, err := e.Eval(c.Env, row)
		if err != nil {
			return nil, 0, false, err
		}
		if d.IsNull() {
			return nil, 0, false, nil
		}
		ks[i] = d
		hv = (hv ^ types.Hash(e.Type(), d)) * 1099511628211
	}
	return ks, hv, true, nil
}

func (h *HashJoin) Open(c *Ctx) error {
	h.lw, h.rw = len(h.Left.Columns()), len(h.Hash.Columns())
	h.cur, h.tail, h.done = nil, -1, false
	h.resetTable()
	h.batches.start(c)
	h.Hash.stats = hashStats{batches: 1}
	if err := Open(c, h.Hash); err != nil {
		return err
	}
	if err := h.build(c, func() (Row, error) { return Next(c, h.Hash) }); err != nil {
		return err
	}
	return Open(c, h.Left)
}

func (h *HashJoin) resetTable() {
	h.rows, h.keys, h.hashes, h.hashed, h.matched = nil, nil, nil, nil, nil
	h.table, h.mem = map[uint64][]int{}, 0
}

// build loads the current batch's inner rows from next into the table,
// writing rows of later batches to their files and splitting the batch
// further whenever it outgrows hash_mem.
func (h *HashJoin) build(c *Ctx, next func() (Row, error)) error {
	hb := &h.batches
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := c.checkCancel(); err != nil {
				return err
			}
		}
		r, err := next()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		ks, hv, ok, err := h.hashKeys(c, h.RightKeys, r)
		if err != nil {
			return err
		}
		if !ok && !keepsUnmatchedInner(h.Kind) {
			continue // a NULL key matches nothing, and nothing asks for it
		}
		if ok && hb.of(hv) != hb.cur {
			if err := hb.save(c, hb.inner, hb.of(hv), r); err != nil {
				return err
			}
			continue
		}
		h.add(r, ks, hv, ok)
		if h.mem > hb.limit && hb.canGrow() {
			if err := h.split(c); err != nil {
				return err
			}
		}
	}
	h.matched = make([]bool, len(h.rows))
	h.noteBatchStats()
	return nil
}

// add puts an inner row in the in-memory batch.
func (h *HashJoin) add(r Row, ks []types.Datum, hv uint64, hashed bool) {
	h.rows = append(h.rows, r)
	h.keys = append(h.keys, ks)
	h.hashes = append(h.hashes, hv)
	h.hashed = append(h.hashed, hashed)
	if hashed {
		h.table[hv] = append(h.table[hv], len(h.rows)-1)
	}
	h.mem += innerRowMem(r, ks)
}

// innerRowMem is what one inner row costs in memory: the row, its keys,
// and its table and bookkeeping entries.
func innerRowMem(r Row, ks []types.Datum) int64 {
	return datum.SpillMemSize(r) + datum.SpillMemSize(ks) + 48
}

func (h *HashJoin) Next(c *Ctx) (Row, error) {
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		if h.tail >= 0 {
			if r := nextUnmatched(h.rows, h.matched, &h.tail, h.lw, h.rw); r != nil {
				return r, nil
			}
			h.tail = -1
			if err := h.nextBatch(c); err != nil {
				return nil, err
			}
			continue
		}
		if h.cur == nil {
			if h.done {
				return nil, nil
			}
			l, ks, hv, ok, err := h.nextOuter(c)
			if err != nil {
				return nil, err
			}
			if l == nil {
				if keepsUnmatchedInner(h.Kind) {
					h.tail = 0
					continue
				}
				if err := h.nextBatch(c); err != nil {
					return nil, err
				}
				continue
			}
			h.cur, h.curKeys, h.ci, h.curMatched, h.cands = l, ks, 0, false, nil
			if ok {
				h.cands = h.table[hv]
			}
		}
		if h.ci >= len(h.cands) {
			cur := h.cur
			h.cur = nil
			if !h.curMatched && (h.Kind == pg.JoinType_JOIN_LEFT || h.Kind == pg.JoinType_JOIN_FULL) {
				return joinRow(cur, nil, h.lw, h.rw), nil
			}
			continue
		}
		idx := h.cands[h.ci]
		h.ci++
		out, ok, err := h.tryMatch(c, idx)
		if err != nil {
			return nil, err
		}
		if ok {
			return out, nil
		}
	}
}

// tryMatch joins the current outer row with inner row idx if their keys
// are equal and the join filter passes.
func (h *HashJoin) tryMatch(c *Ctx, idx int) (Row, bool, error) {
	rk := h.keys[idx]
	for i, f := range h.Eqs {
		d, err := f.Fn([]types.Datum{h.curKeys[i], rk[i]})
		if err != nil {
			return nil, false, err
		}
		if d.IsNull() || !d.Bool() {
			return nil, false, nil
		}
	}
	out := joinRow(h.cur, h.rows[idx], h.lw, h.rw)
	if h.Qual != nil {
		ok, err := expr.IsTrue(c.Env, h.Qual, out)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			h.instr.Filtered++
			return nil, false, nil
		}
	}
	h.curMatched = true
	h.matched[idx] = true
	return out, true, nil
}

func (h *HashJoin) Close(c *Ctx) {
	Close(c, h.Left)
	Close(c, h.Hash)
	h.batches.close()
	h.resetTable()
}
