package undo

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// pgbench_accounts' row: (aid int4, bid int4, abalance int4, filler
// char(84)).
var accountTypes = []datum.Type{datum.Int4, datum.Int4, datum.Int4, datum.Text}

// growth loads rows accounts into rel, opens a REPEATABLE READ-style
// snapshot and keeps it, then runs updates single-row transactions that
// add to a random account's balance (pgbench's accounts update), and
// returns the table's size in pages before and after.
func growth(t testing.TB, te *testEnv, rel tableam.Relation, f tableam.Format, rows, updates int) (before, after page.BlockNumber) {
	filler := strings.Repeat(" ", 84)
	begin := func() *tableam.Txn {
		p := te.x.NewProc()
		xid, err := te.x.AssignXid(p)
		if err != nil {
			t.Fatal(err)
		}
		return &tableam.Txn{Proc: p, Xid: xid, Snap: te.x.GetSnapshot(p), Combo: &tableam.ComboCids{}}
	}
	end := func(tx *tableam.Txn) {
		if _, err := te.x.Commit(nil, tx.Proc, xact.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		te.x.ReleaseProc(tx.Proc)
	}
	w := begin()
	tids := make([]page.ItemPointer, rows)
	for i := range tids {
		var err error
		tids[i], err = rel.Insert(nil, w, f.Form([]datum.Datum{datum.Int(int64(i + 1)), datum.Int(1), datum.Int(0), datum.Str(filler)}), nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	end(w)
	before, _ = rel.NBlocks()
	old := te.reader() // the long snapshot
	rnd := rand.New(rand.NewSource(1))
	vals := make([]datum.Datum, 4)
	for n := 0; n < updates; n++ {
		i := rnd.Intn(rows)
		tx := begin()
		tup, tid, ok, err := rel.Fetch(nil, tx, tids[i])
		if err != nil || !ok {
			t.Fatalf("fetch %d: %v %v", i, ok, err)
		}
		f.Deform(tup, vals)
		vals[2] = datum.Int(vals[2].Int() + int64(rnd.Intn(10000)-5000))
		res, err := rel.Update(bg, nil, tx, tid, f.Form(vals), tableam.UpdateHint{})
		if err != nil || res.Result != tableam.Ok {
			t.Fatalf("update %d: %+v %v", i, res, err)
		}
		tids[i] = res.NewTID
		end(tx)
	}
	te.done(old)
	after, _ = rel.NBlocks()
	return before, after
}

// BenchmarkLongSnapshotGrowth is zheap's headline at the storage level:
// pgbench-like updates of random accounts while one snapshot stays open,
// heap against undo, reporting each table's pages before and after (heap
// cannot prune what the snapshot may still see; undo rewrites in place
// and keeps the old versions in its log).
func BenchmarkLongSnapshotGrowth(b *testing.B) {
	const rows, updates = 100000, 100000
	for i := 0; i < b.N; i++ {
		te := newTestEnv(b, 4096)
		spec := tableam.RelSpec{File: testRel, Name: "pgbench_accounts", Types: accountTypes, FillFactor: 100}
		fs := tableam.FormatSpec{Layout: datum.NewDeformer(accountTypes)}
		hb, ha := growth(b, te, heap.AM{}.Open(&tableam.Env{Pool: te.pool, WAL: te.w, Xact: te.x}, spec), heap.AM{}.NewFormat(fs), rows, updates)
		spec.File++
		am := NewAMOver(te.log)
		ub, ua := growth(b, te, am.Open(nil, spec), am.NewFormat(fs), rows, updates)
		b.ReportMetric(float64(hb), "heap-pages-before")
		b.ReportMetric(float64(ha), "heap-pages-after")
		b.ReportMetric(float64(ub), "undo-pages-before")
		b.ReportMetric(float64(ua), "undo-pages-after")
	}
}

// TestLongSnapshotDoesNotGrowUndoTable: the same at a small size, as a
// check of the mechanism: the undo table does not grow at all.
func TestLongSnapshotDoesNotGrowUndoTable(t *testing.T) {
	te := newTestEnv(t, 512)
	am := NewAMOver(te.log)
	spec := tableam.RelSpec{File: testRel, Name: "pgbench_accounts", Types: accountTypes}
	before, after := growth(t, te, am.Open(nil, spec), am.NewFormat(tableam.FormatSpec{Layout: datum.NewDeformer(accountTypes)}), 2000, 4000)
	if after != before {
		t.Fatalf("undo table grew from %d to %d pages", before, after)
	}
}
