package heap

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// PruneOpt prunes a page opportunistically (heap_page_prune_opt): only when
// some deleted tuple may be dead to everyone (pd_prune_xid is older than
// the horizon), the page is short of space, and its exclusive lock can be
// had without waiting. The buffer is pinned and not locked.
func (r *Relation) PruneOpt(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber) {
	pool := r.env.Pool
	p := pool.Page(b)
	// A quick look under the share lock (PostgreSQL peeks without one;
	// in Go that would be a data race).
	pool.Lock(b, buffer.Share)
	pruneXid := p.PruneXid()
	full := p.Flags()&page.FlagPageFull != 0
	free := pageFree(p)
	pool.Unlock(b, buffer.Share)
	if pruneXid == 0 {
		return
	}
	horizon := r.env.Xact.OldestXmin()
	if !xact.Precedes(pruneXid, horizon) {
		return
	}
	minFree := r.saveFreeSpace()
	if minFree < page.Size/10 {
		minFree = page.Size / 10
	}
	if !full && free >= minFree {
		return
	}
	if !pool.TryLockExclusive(b) {
		return
	}
	defer pool.Unlock(b, buffer.Exclusive)
	if pageFree(p) >= minFree && p.Flags()&page.FlagPageFull == 0 {
		return
	}
	r.Prune(u, b, blk, horizon)
}

// PruneResult counts what a prune did.
type PruneResult struct {
	TuplesDeleted int                 // tuples whose storage was removed
	NowDead       []page.OffsetNumber // line pointers left LP_DEAD (index entries still point at them)
}

// Prune removes dead tuples from an exclusively locked page (heap_page_prune):
// dead heap-only tuples become unused, a dead chain root becomes a redirect
// to the chain's first live member or, if none, an LP_DEAD stub, and the
// page is compacted. One WAL record describes it.
func (r *Relation) Prune(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, horizon xact.XID) PruneResult {
	pool := r.env.Pool
	p := pool.Page(b)
	max := p.MaxOffset()
	if max == 0 || p.IsNew() {
		return PruneResult{}
	}
	x := r.env.Xact
	const (
		keep = iota
		setUnused
		setDead
		setRedirect
	)
	type action struct {
		kind   int
		target page.OffsetNumber
	}
	acts := make([]action, max+1)
	states := make([]VacuumState, max+1)
	reached := make([]bool, max+1)
	hinted := false
	for off := page.OffsetNumber(1); off <= max; off++ {
		it := p.Item(off)
		if it.Flags == page.LPNormal {
			st, h := VacuumVisibility(x, Tuple(p[it.Off:it.Off+it.Len]), horizon)
			states[off] = st
			hinted = hinted || h
		}
	}
	var res PruneResult
	newPruneXid := xact.XID(0)
	notePrune := func(t Tuple) {
		if t.Infomask()&XmaxInvalid == 0 && !lockedOnly(t.Infomask()) {
			if xm := UpdateXid(x, t); xm != xact.InvalidXid && (newPruneXid == 0 || xact.Precedes(xm, newPruneXid)) {
				newPruneXid = xm
			}
		}
	}
	for root := page.OffsetNumber(1); root <= max; root++ {
		it := p.Item(root)
		if it.Flags == page.LPNormal && Tuple(p[it.Off:it.Off+it.Len]).IsHeapOnly() {
			continue // reached from its root, or an orphan handled below
		}
		if it.Flags != page.LPNormal && it.Flags != page.LPRedirect {
			continue
		}
		var chain []page.OffsetNumber
		off := root
		if it.Flags == page.LPRedirect {
			off = page.OffsetNumber(it.Off)
		}
		var prevXmax uint32
		for steps := 0; steps <= int(max); steps++ {
			if off < 1 || off > max {
				break
			}
			mi := p.Item(off)
			if mi.Flags != page.LPNormal {
				break
			}
			t := Tuple(p[mi.Off : mi.Off+mi.Len])
			if len(chain) > 0 && t.Xmin() != prevXmax {
				break
			}
			if len(chain) > 0 || it.Flags == page.LPRedirect {
				if !t.IsHeapOnly() {
					break
				}
			}
			chain = append(chain, off)
			reached[off] = true
			if !t.IsHotUpdated() || t.Ctid().Block != blk {
				break
			}
			prevXmax = UpdateXid(x, t)
			off = t.Ctid().Offset
		}
		// Members up to the last DEAD one are removable, but the walk
		// stops at the first member that is neither dead nor recently dead
		// (as heap_prune_chain): after a rolled-back HOT update the chain
		// is [live original, dead aborted copy], and the original stays.
		latestDead := -1
	walk:
		for i, o := range chain {
			switch states[o] {
			case TupleDead:
				latestDead = i
			case TupleRecentlyDead:
				notePrune(Tuple(p.ItemBytes(o)))
			default:
				if states[o] == TupleDeleteInProgress {
					notePrune(Tuple(p.ItemBytes(o)))
				}
				// Members past the stop are not part of this chain for
				// pruning: dead ones among them are orphans (below).
				for _, rest := range chain[i+1:] {
					reached[rest] = false
				}
				chain = chain[:i+1]
				break walk
			}
		}
		if latestDead < 0 {
			continue
		}
		// chain[0..latestDead] are removable.
		for i := 0; i <= latestDead; i++ {
			o := chain[i]
			if o != root {
				acts[o] = action{kind: setUnused}
				res.TuplesDeleted++
			}
		}
		if it.Flags == page.LPNormal {
			res.TuplesDeleted++
		}
		if latestDead+1 < len(chain) {
			acts[root] = action{kind: setRedirect, target: chain[latestDead+1]}
		} else {
			acts[root] = action{kind: setDead}
		}
	}
	// Orphaned heap-only tuples (their inserting update aborted).
	for off := page.OffsetNumber(1); off <= max; off++ {
		it := p.Item(off)
		if it.Flags == page.LPNormal && !reached[off] && states[off] == TupleDead && acts[off].kind == keep {
			if Tuple(p[it.Off : it.Off+it.Len]).IsHeapOnly() {
				acts[off] = action{kind: setUnused}
				res.TuplesDeleted++
			}
		}
	}
	changed := false
	for off := page.OffsetNumber(1); off <= max; off++ {
		if acts[off].kind != keep {
			changed = true
			break
		}
	}
	if !changed {
		if hinted {
			pool.MarkDirtyHint(u, b)
		}
		if p.PruneXid() != newPruneXid || p.Flags()&page.FlagPageFull != 0 {
			// Nothing to remove yet: remember when to look again. This is
			// a hint, like PostgreSQL's, so it is not WAL-logged.
			p.SetPruneXid(newPruneXid, nil)
			p.SetFlags(p.Flags()&^page.FlagPageFull, nil)
			pool.MarkDirtyHint(u, b)
		}
		return res
	}
	var d page.Delta
	var main []byte
	for off := page.OffsetNumber(1); off <= max; off++ {
		a := acts[off]
		switch a.kind {
		case setUnused:
			p.SetItem(off, page.ItemID{Flags: page.LPUnused}, &d)
		case setDead:
			p.SetItem(off, page.ItemID{Flags: page.LPDead}, &d)
			res.NowDead = append(res.NowDead, off)
		case setRedirect:
			p.SetItem(off, page.ItemID{Off: int(a.target), Flags: page.LPRedirect}, &d)
		default:
			continue
		}
		main = binary.LittleEndian.AppendUint16(main, off)
	}
	p.RepairFragmentation(&d)
	p.SetPruneXid(newPruneXid, &d)
	p.SetFlags(p.Flags()&^page.FlagPageFull, &d)
	rec := wal.NewRecord(wal.RmHeap2, Info2Prune, 0)
	rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
	rec.SetMain(main)
	pool.MarkDirty(u, b)
	if lsn, err := r.env.WAL.Insert(u, rec); err == nil {
		p.SetLSN(lsn)
	}
	return res
}
