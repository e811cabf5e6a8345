package heap

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// ReadToastChunk calls fn, under a share lock, with the tuple at tid when
// it may hold a chunk of a TOAST value (HeapTupleSatisfiesToast): any
// tuple whose inserting transaction did not abort. A chunk's visibility
// follows from the main row's that points at it — chunk ids are unique in
// a TOAST table and only the row's own transaction creates the chunks —
// so neither a snapshot nor the chunk's xmax is consulted, and a value
// stays readable to old snapshots after a later transaction deleted it.
// found is false when no such tuple is there.
func (r *Relation) ReadToastChunk(u *stats.Usage, tid page.ItemPointer, fn func(t Tuple) error) (found bool, err error) {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return false, err
	}
	pool.Lock(b, buffer.Share)
	defer pool.UnlockRelease(b, buffer.Share)
	p := pool.Page(b)
	if tid.Offset < 1 || tid.Offset > p.MaxOffset() || p.Item(tid.Offset).Flags != page.LPNormal {
		return false, nil
	}
	t := Tuple(p.ItemBytes(tid.Offset))
	mask := t.Infomask()
	if mask&XminInvalid != 0 && mask&XminCommitted == 0 {
		return false, nil
	}
	if xmin := t.Xmin(); xmin == uint32(xact.InvalidXid) || (mask&XminCommitted == 0 && r.env.Xact.State(xmin) == xact.Aborted) {
		return false, nil
	}
	return true, fn(t)
}
