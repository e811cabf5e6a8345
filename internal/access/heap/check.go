package heap

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// CheckStorage is the heap side of tidal_check: line pointer states, the
// visibility map's promises, that every version not dead to all decodes,
// and per root the liveness of its HOT chain (what the index cross-check
// needs, tableam.Checker).
func (t *Table) CheckStorage(u *stats.Usage, f tableam.Format, horizon xact.XID) (map[page.ItemPointer]tableam.IndexTarget, []string, error) {
	r := t.r
	nb, err := r.NBlocks()
	if err != nil {
		return nil, nil, err
	}
	var probs []string
	addf := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	lps := map[page.ItemPointer]*checkItem{}
	for blk := page.BlockNumber(0); blk < nb; blk++ {
		if err := r.checkBlock(u, f, blk, horizon, lps, addf); err != nil {
			return nil, probs, err
		}
	}
	out := make(map[page.ItemPointer]tableam.IndexTarget, len(lps))
	for tid, it := range lps {
		tg := tableam.IndexTarget{Kind: it.kind(), Vals: it.vals}
		if tg.Kind == tableam.TargetRoot {
			tg.Live = chainLive(lps, tid)
		}
		out[tid] = tg
	}
	return out, probs, nil
}

// checkItem is what CheckStorage learnt of one line pointer.
type checkItem struct {
	flags    int
	heapOnly bool
	live     bool              // this version is not dead to all
	next     page.OffsetNumber // redirect target or same-page HOT successor, 0 if none
	vals     []tableam.Datum
}

func (c *checkItem) kind() tableam.TargetKind {
	switch {
	case c.flags == page.LPUnused:
		return tableam.TargetUnused
	case c.flags == page.LPDead:
		return tableam.TargetDeadStub
	case c.heapOnly:
		return tableam.TargetNotRoot
	}
	return tableam.TargetRoot
}

// chainLive reports whether the chain from root has a version not dead to all.
func chainLive(lps map[page.ItemPointer]*checkItem, root page.ItemPointer) bool {
	tid := root
	for steps := 0; steps <= MaxTuplesPerPage; steps++ {
		it := lps[tid]
		if it == nil || (it.flags != page.LPNormal && it.flags != page.LPRedirect) {
			return false
		}
		if it.flags == page.LPNormal && it.live {
			return true
		}
		if it.next == 0 {
			return false
		}
		tid.Offset = it.next
	}
	return false
}

func (r *Relation) checkBlock(u *stats.Usage, f tableam.Format, blk page.BlockNumber, horizon xact.XID, lps map[page.ItemPointer]*checkItem, addf func(string, ...any)) error {
	pool := r.env.Pool
	vm, err := r.VMBits(u, blk)
	if err != nil {
		return err
	}
	b, err := pool.Read(u, r.tag(blk), nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	p := pool.Page(b)
	if p.IsNew() {
		if vm != 0 {
			addf("block %d is uninitialised but its visibility-map bits are %d", blk, vm)
		}
		return nil
	}
	allVisible := vm&VMAllVisible != 0
	if allVisible && p.Flags()&page.FlagAllVisible == 0 {
		addf("block %d: visibility map says all-visible but PD_ALL_VISIBLE is not set", blk)
	}
	max := p.MaxOffset()
	for off := page.OffsetNumber(1); off <= max; off++ {
		it := p.Item(off)
		tid := page.ItemPointer{Block: blk, Offset: off}
		info := &checkItem{flags: it.Flags}
		switch it.Flags {
		case page.LPNormal:
			t := Tuple(append([]byte(nil), p[it.Off:it.Off+it.Len]...))
			info.heapOnly = t.IsHeapOnly()
			if t.IsHotUpdated() && t.Ctid().Block == blk && t.Ctid() != tid {
				info.next = t.Ctid().Offset
			}
			st, _ := VacuumVisibilityHints(r.env.Xact, t, horizon)
			if allVisible && (st != TupleLive || t.Infomask()&XmaxInvalid == 0 && t.Infomask()&XmaxLockOnly == 0) {
				addf("tuple %s is on an all-visible page but is not visible to everyone", tid)
			}
			info.live = st != TupleDead
			// A dead version's TOAST values may already be gone (VACUUM
			// of the TOAST table); every other version must decode, its
			// TOAST values included.
			if info.live {
				info.vals = make([]tableam.Datum, len(r.Types))
				if err := f.Deform(tableam.Tuple(t), info.vals); err != nil {
					addf("tuple %s cannot be decoded: %v", tid, err)
				}
			}
		case page.LPDead:
			if allVisible {
				addf("block %d is all-visible but has dead line pointer %d", blk, off)
			}
		case page.LPRedirect:
			if int(it.Off) < 1 || page.OffsetNumber(it.Off) > max {
				addf("redirect %s points outside the page (to %d)", tid, it.Off)
			} else {
				info.next = page.OffsetNumber(it.Off)
			}
		}
		lps[tid] = info
	}
	return nil
}
