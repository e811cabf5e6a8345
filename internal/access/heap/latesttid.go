package heap

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// LatestVisibleTID follows the update chain that starts at tid and returns
// the newest member visible to the transaction's snapshot, or tid itself
// when none is (PostgreSQL's heap_get_latest_tid). UPDATE … WHERE CURRENT
// OF uses it: the cursor remembers the version it read, and the statement
// must act on the version its own snapshot sees, which an earlier UPDATE of
// the same transaction may have replaced.
func (r *Relation) LatestVisibleTID(u *stats.Usage, tx *Txn, tid page.ItemPointer) (page.ItemPointer, error) {
	pool := r.env.Pool
	result, at := tid, tid
	var priorXmax uint32
	for steps := 0; steps < 1<<20; steps++ {
		b, err := pool.Read(u, r.tag(at.Block), nil)
		if err != nil {
			return result, err
		}
		pool.Lock(b, buffer.Share)
		p := pool.Page(b)
		if at.Offset < 1 || at.Offset > p.MaxOffset() || p.Item(at.Offset).Flags != page.LPNormal {
			pool.UnlockRelease(b, buffer.Share)
			return result, nil
		}
		it := p.Item(at.Offset)
		t := append(Tuple(nil), p[it.Off:it.Off+it.Len]...)
		pool.UnlockRelease(b, buffer.Share)
		// A link may lead to an unrelated tuple once the slot is reused.
		if priorXmax != 0 && t.Xmin() != priorXmax {
			return result, nil
		}
		if VisibleTo(r, t, tx) {
			result = at
		}
		mask := t.Infomask()
		if mask&XmaxInvalid != 0 || mask&XmaxLockOnly != 0 || t.Ctid() == at {
			return result, nil
		}
		priorXmax = t.Xmax()
		at = t.Ctid()
	}
	return result, nil
}
