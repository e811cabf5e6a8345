package undo

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

var _ tableam.Checker = (*Relation)(nil)

// CheckStorage is the undo side of tidal_check: every line pointer's
// state, that every row decodes, that its undo chain down to the discard
// point is readable and names this row, and per TID what an index entry
// finds (in-place updates never change a key, so the entries of a TID
// match its newest bytes).
func (r *Relation) CheckStorage(u *stats.Usage, f tableam.Format, horizon xact.XID) (map[page.ItemPointer]tableam.IndexTarget, []string, error) {
	t := r.t
	nb, err := t.NBlocks()
	if err != nil {
		return nil, nil, err
	}
	var probs []string
	addf := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	out := map[page.ItemPointer]tableam.IndexTarget{}
	pool := t.log.pool
	for blk := page.BlockNumber(0); blk < nb; blk++ {
		b, err := pool.Read(u, t.tag(blk), nil)
		if err != nil {
			return nil, probs, err
		}
		pool.Lock(b, buffer.Share)
		err = t.checkPage(u, f, pool.Page(b), blk, horizon, out, addf)
		pool.UnlockRelease(b, buffer.Share)
		if err != nil {
			return nil, probs, err
		}
	}
	return out, probs, nil
}

func (t *Table) checkPage(u *stats.Usage, f tableam.Format, pg page.Page, blk page.BlockNumber, horizon xact.XID, out map[page.ItemPointer]tableam.IndexTarget, addf func(string, ...any)) error {
	if pg.IsNew() {
		return nil
	}
	for off := page.OffsetNumber(1); off <= pg.MaxOffset(); off++ {
		tid := page.ItemPointer{Block: blk, Offset: off}
		it := pg.Item(off)
		switch it.Flags {
		case page.LPUnused:
			out[tid] = tableam.IndexTarget{Kind: tableam.TargetUnused}
			continue
		case page.LPDead:
			out[tid] = tableam.IndexTarget{Kind: tableam.TargetDeadStub}
			continue
		case page.LPRedirect:
			addf("undo table %q: redirect line pointer at %s", t.Name, tid)
			continue
		}
		if it.Off+it.Len > page.Size || it.Len < HeaderSize {
			addf("undo table %q: line pointer %s out of the page (offset %d, length %d)", t.Name, tid, it.Off, it.Len)
			continue
		}
		cur := append(Tuple(nil), pg.ItemBytes(off)...)
		// Every column of the relation, as the heap's checker: those added
		// after the row was written come back as their missing values, and
		// an index on one of them is checked against those.
		vals := make([]tableam.Datum, max(cur.Natts(), formatColumns(f)))
		if err := f.Deform(tableam.Tuple(cur), vals); err != nil {
			addf("undo table %q: row %s does not decode: %v", t.Name, tid, err)
			continue
		}
		for urp, n := cur.URP(), 0; urp != 0 && n < 1<<20; n++ {
			rec, err := t.log.readRecord(u, urp)
			if err != nil {
				addf("undo table %q: row %s: %v", t.Name, tid, err)
				break
			}
			if rec == nil {
				break
			}
			if rec.Rel != t.Rel || rec.TID != tid {
				addf("undo table %q: row %s points at undo record %s of %d %s", t.Name, tid, urp, rec.Rel, rec.TID)
				break
			}
			urp = rec.Prev
		}
		dead, err := t.deleteVisibleToAll(u, cur, horizon)
		if err != nil {
			return err
		}
		tg := tableam.IndexTarget{Kind: tableam.TargetRoot, Live: !dead}
		if !dead {
			tg.Vals = vals
		}
		out[tid] = tg
	}
	return nil
}

// formatColumns is the number of columns of the row type f decodes (0
// for a format not the undo AM's).
func formatColumns(f tableam.Format) int {
	if uf, ok := f.(format); ok {
		return uf.d.n
	}
	return 0
}
