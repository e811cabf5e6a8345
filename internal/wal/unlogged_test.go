package wal

import (
	"math/rand"
	"testing"

	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// TestUnloggedRecords: a record that changes only pages of unlogged
// relations is not written (LSN 0, nothing counted, the insert position
// stays); one that also changes a logged relation's page is written in
// full; forgetting the relation logs it again.
func TestUnloggedRecords(t *testing.T) {
	dir := t.TempDir()
	w := openWAL(t, dir, FirstLSN, 0)
	defer w.Close()
	r := rand.New(rand.NewSource(2))
	p, q := heapPage(r, 5), heapPage(r, 5)
	temp := buffer.Tag{Rel: 90001, Block: 0}
	perm := buffer.Tag{Rel: 90002, Block: 0}
	insert := func(tags ...buffer.Tag) (LSN, stats.Usage) {
		rec := NewRecord(RmHeap, 0, 7)
		for i, tag := range tags {
			var d page.Delta
			pg := p
			if i > 0 {
				pg = q
			}
			d.PutUint16(pg, 100, uint16(r.Uint32()))
			rec.AddBlock(tag, pg, BlockStandard, &d)
		}
		var u stats.Usage
		end, err := w.Insert(&u, rec)
		if err != nil {
			t.Fatal(err)
		}
		return end, u
	}
	w.SetUnlogged(uint32(temp.Rel), true)
	if !w.IsUnlogged(uint32(temp.Rel)) || w.IsUnlogged(uint32(perm.Rel)) {
		t.Fatal("IsUnlogged")
	}
	before := w.InsertPos()
	end, u := insert(temp, temp)
	if end != 0 || u.WAL.Records != 0 || u.WAL.Bytes != 0 || w.InsertPos() != before {
		t.Fatalf("unlogged record written: end %v, usage %+v", end, u.WAL)
	}
	if end, u = insert(temp, perm); end == 0 || u.WAL.Records != 1 {
		t.Fatalf("a record that also changes a logged page: end %v, usage %+v", end, u.WAL)
	}
	// A record without blocks (commit, smgr) is always written.
	var u2 stats.Usage
	if end, err := w.Insert(&u2, mainRecord(1, 8)); err != nil || end == 0 {
		t.Fatalf("blockless record: %v %v", end, err)
	}
	w.SetUnlogged(uint32(temp.Rel), false)
	if end, _ = insert(temp); end == 0 {
		t.Fatal("forgotten relation still unlogged")
	}
	w.Flush(w.InsertPos())
	recs, _ := readAll(t, dir, FirstLSN)
	if len(recs) != 3 {
		t.Fatalf("%d records in the log, want 3", len(recs))
	}
}
