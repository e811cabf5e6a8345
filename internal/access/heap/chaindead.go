package heap

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// ChainDead reports whether every version an index entry at tid leads to
// (the HOT chain from its root, through a redirect) is dead to every
// snapshot whose xmin is at or after horizon, so the entry may be removed
// (PostgreSQL's heap_index_delete_tuples answer for one entry). An
// LP_DEAD or unused root is dead; hints learnt are not written.
func (r *Relation) ChainDead(u *stats.Usage, tid page.ItemPointer, horizon xact.XID) (bool, error) {
	pool := r.env.Pool
	nb, err := r.NBlocks()
	if err != nil || tid.Block >= nb {
		return err == nil, err
	}
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return false, err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	p := pool.Page(b)
	off := tid.Offset
	for steps := 0; steps <= MaxTuplesPerPage; steps++ {
		if off < 1 || off > p.MaxOffset() {
			return true, nil
		}
		it := p.Item(off)
		if it.Flags == page.LPRedirect {
			off = page.OffsetNumber(it.Off)
			continue
		}
		if it.Flags != page.LPNormal {
			return true, nil
		}
		t := Tuple(p[it.Off : it.Off+it.Len])
		if st, _ := VacuumVisibilityHints(r.env.Xact, t, horizon); st != TupleDead {
			return false, nil
		}
		if !t.IsHotUpdated() || t.Ctid().Block != tid.Block {
			return true, nil
		}
		off = t.Ctid().Offset
	}
	return true, nil
}
