// Package check verifies a table and its indexes, in the spirit of
// PostgreSQL's amcheck (bt_index_check with heapallindexed) and
// pg_visibility (pg_check_visible):
//
//   - each B-tree's structure: keys in order within and across pages,
//     high keys, sibling links, downlinks (btree.Index.Check);
//   - every index entry points at a line pointer that exists and is not
//     unused, and an entry pointing at a tuple carries that tuple's key;
//   - every heap row whose chain still has a live version is indexed by
//     every index;
//   - every page whose visibility-map bit is set is really all-visible.
//
// It reads under share locks and is meant for quiescent tables (tests
// after VACUUM, or the `tidal_check` SQL function).
package check

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Problems are what a check found; empty means the relation is consistent.
type Problems []string

func (p *Problems) addf(format string, args ...any) {
	if len(*p) < 50 {
		*p = append(*p, fmt.Sprintf(format, args...))
	}
}

// Table checks rel and all its indexes, and its TOAST table and index.
func Table(cat *catalog.Catalog, u *stats.Usage, rel *catalog.Relation) (Problems, error) {
	probs, err := table(cat, u, rel)
	if err != nil || rel.ToastRel == nil {
		return probs, err
	}
	tp, err := table(cat, u, rel.ToastRel)
	for _, p := range tp {
		probs.addf("TOAST table %s: %s", rel.ToastRel.Name, p)
	}
	return probs, err
}

func table(cat *catalog.Catalog, u *stats.Usage, rel *catalog.Relation) (Problems, error) {
	var probs Problems
	env := cat.Env()
	pool := env.Pool
	x := env.Xact
	h := rel.Heap
	horizon := x.OldestXmin()
	nb, err := h.NBlocks()
	if err != nil {
		return nil, err
	}
	def := rel.NewDeformer()

	// Heap pass: line pointer states, roots of live chains, VM bits.
	type lpInfo struct {
		flags    int
		heapOnly bool
		live     bool // the chain from this root has a version not dead to all
		vals     []types.Datum
	}
	lps := map[page.ItemPointer]*lpInfo{}
	for blk := page.BlockNumber(0); blk < nb; blk++ {
		vm, err := h.VMBits(u, blk)
		if err != nil {
			return nil, err
		}
		b, err := pool.Read(u, h.Tag(blk), nil)
		if err != nil {
			return nil, err
		}
		pool.Lock(b, buffer.Share)
		p := pool.Page(b)
		if p.IsNew() {
			pool.UnlockRelease(b, buffer.Share)
			if vm != 0 {
				probs.addf("block %d is uninitialised but its visibility-map bits are %d", blk, vm)
			}
			continue
		}
		if vm&heap.VMAllVisible != 0 && p.Flags()&page.FlagAllVisible == 0 {
			probs.addf("block %d: visibility map says all-visible but PD_ALL_VISIBLE is not set", blk)
		}
		max := p.MaxOffset()
		for off := page.OffsetNumber(1); off <= max; off++ {
			it := p.Item(off)
			tid := page.ItemPointer{Block: blk, Offset: off}
			info := &lpInfo{flags: it.Flags}
			switch it.Flags {
			case page.LPNormal:
				t := heap.Tuple(append([]byte(nil), p[it.Off:it.Off+it.Len]...))
				info.heapOnly = t.IsHeapOnly()
				st, _ := heap.VacuumVisibilityHints(x, t, horizon)
				if vm&heap.VMAllVisible != 0 {
					if st != heap.TupleLive || t.Infomask()&heap.XmaxInvalid == 0 && t.Infomask()&heap.XmaxLockOnly == 0 {
						probs.addf("tuple %s is on an all-visible page but is not visible to everyone", tid)
					}
				}
				info.live = st != heap.TupleDead
				// A dead version's TOAST values may already be gone
				// (VACUUM of the TOAST table); every other version must
				// decode, its TOAST values included.
				if info.live {
					info.vals = make([]types.Datum, len(rel.Attrs))
					if err := def.Deform(t, info.vals); err != nil {
						probs.addf("tuple %s cannot be decoded: %v", tid, err)
					}
				}
			case page.LPDead:
				if vm&heap.VMAllVisible != 0 {
					probs.addf("block %d is all-visible but has dead line pointer %d", blk, off)
				}
			case page.LPRedirect:
				if int(it.Off) < 1 || page.OffsetNumber(it.Off) > max {
					probs.addf("redirect %s points outside the page (to %d)", tid, it.Off)
				}
			}
			lps[tid] = info
		}
		pool.UnlockRelease(b, buffer.Share)
	}
	// Resolve live-ness of redirect roots and HOT chains.
	chainLive := func(root page.ItemPointer) (bool, []types.Datum) {
		tid := root
		for steps := 0; steps < heap.MaxTuplesPerPage+1; steps++ {
			info := lps[tid]
			if info == nil {
				return false, nil
			}
			switch info.flags {
			case page.LPRedirect:
				// follow below
			case page.LPNormal:
				if info.live {
					return true, info.vals
				}
			default:
				return false, nil
			}
			next, ok := nextInChain(h, u, tid)
			if !ok {
				return false, nil
			}
			tid = next
		}
		return false, nil
	}

	for _, ir := range rel.Indexes {
		ix := cat.IndexFor(rel, ir)
		if err := ix.Check(u); err != nil {
			probs.addf("index %q: %v", ir.Name, err)
			continue
		}
		indexed := map[page.ItemPointer]bool{}
		cur := ix.Scan(u, nil, nil)
		var keys []types.Datum
		for {
			tid, tup, ok, err := cur.Next()
			if err != nil {
				cur.Close()
				return nil, err
			}
			if !ok {
				break
			}
			indexed[tid] = true
			info := lps[tid]
			if info == nil {
				probs.addf("index %q: entry points to %s, which does not exist", ir.Name, tid)
				continue
			}
			switch info.flags {
			case page.LPUnused:
				probs.addf("index %q: entry points to unused line pointer %s", ir.Name, tid)
			case page.LPNormal:
				if info.heapOnly {
					probs.addf("index %q: entry points to heap-only tuple %s", ir.Name, tid)
					continue
				}
				if info.vals == nil {
					continue // a dead version: its key is not checked
				}
				keys, err = ix.Keys(tup, keys)
				if err != nil {
					return nil, err
				}
				for i, k := range ir.Index.Keys {
					a, b := keys[i], info.vals[k-1]
					if a.IsNull() != b.IsNull() || (!a.IsNull() && !types.Equal(rel.Attrs[k-1].Type, a, b)) {
						probs.addf("index %q: entry for %s has key %s but the tuple has %s", ir.Name, tid,
							types.FormatText(rel.Attrs[k-1].Type, a), types.FormatText(rel.Attrs[k-1].Type, b))
					}
				}
			}
		}
		cur.Close()
		// heapallindexed: every root of a chain with a live version.
		for tid, info := range lps {
			if info.heapOnly || (info.flags != page.LPNormal && info.flags != page.LPRedirect) {
				continue
			}
			if live, _ := chainLive(tid); live && !indexed[tid] {
				probs.addf("index %q: heap row %s is not indexed", ir.Name, tid)
			}
		}
	}
	return probs, nil
}

// nextInChain follows a redirect or a HOT link from tid.
func nextInChain(h *heap.Relation, u *stats.Usage, tid page.ItemPointer) (page.ItemPointer, bool) {
	pool := h.Env().Pool
	b, err := pool.Read(u, h.Tag(tid.Block), nil)
	if err != nil {
		return tid, false
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	p := pool.Page(b)
	if tid.Offset > p.MaxOffset() {
		return tid, false
	}
	it := p.Item(tid.Offset)
	switch it.Flags {
	case page.LPRedirect:
		return page.ItemPointer{Block: tid.Block, Offset: page.OffsetNumber(it.Off)}, true
	case page.LPNormal:
		t := heap.Tuple(p[it.Off : it.Off+it.Len])
		if t.IsHotUpdated() && t.Ctid().Block == tid.Block && t.Ctid() != tid {
			return t.Ctid(), true
		}
	}
	return tid, false
}

// Error turns problems into one XX002 error (index_corrupted), or nil.
func (p Problems) Error() error {
	if len(p) == 0 {
		return nil
	}
	e := pgerr.Errorf("XX002", "%d consistency problem(s) found: %s", len(p), p[0])
	if len(p) > 1 {
		msg := ""
		for _, s := range p[1:] {
			msg += s + "\n"
		}
		e.Detail = msg
	}
	return e
}
