package heap

import (
	"context"
	"testing"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// TestTableAM drives the heap through tableam's interface only: the update
// kind follows the hint (HOT without a changed index, a new version with
// one), scans filter, and IndexEntryDead turns true only once the chain's
// versions are dead to the horizon.
func TestTableAM(t *testing.T) {
	te := newTestEnv(t, 64)
	var am tableam.AM = AM{}
	rel := am.Open(te.env, tableam.RelSpec{File: 16390, Name: "t", Types: boatTypes, FillFactor: 100})
	f := am.NewFormat(tableam.FormatSpec{Layout: datum.NewDeformer(boatTypes)})
	row := func(i int) tableam.Tuple {
		return f.Form([]datum.Datum{datum.Int(int64(i)), datum.Str("x"), datum.Float(1)})
	}
	ctx := context.Background()
	tx := te.begin()
	tid, err := rel.Insert(nil, tx, row(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	te.commit(t, tx)

	tx = te.begin()
	res, err := rel.Update(ctx, nil, tx, tid, row(2), tableam.UpdateHint{})
	if err != nil || res.Result != tableam.Ok || res.Kind != tableam.UpdateHOT {
		t.Fatalf("update without changed index: %+v %v", res, err)
	}
	te.commit(t, tx)
	var hint tableam.UpdateHint
	hint.MarkIndexChanged(0)
	tx = te.begin()
	res2, err := rel.Update(ctx, nil, tx, res.NewTID, row(3), hint)
	if err != nil || res2.Result != tableam.Ok || res2.Kind != tableam.UpdateNewVersion {
		t.Fatalf("update with a changed index: %+v %v", res2, err)
	}
	te.commit(t, tx)
	latest, _, ok, err := rel.FetchLatest(nil, nil, tid)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if sv := f.System(latest); sv.Xmin != tx.Xid || sv.Xmax != 0 {
		t.Fatalf("system values %+v, xid %d", sv, tx.Xid)
	}

	rd := te.reader()
	filtered := 0
	s, err := rel.BeginScan(nil, rd, tableam.ScanOptions{Filter: func(tup tableam.Tuple) (bool, error) {
		out := make([]datum.Datum, 1)
		err := f.DeformUpTo(tup, out, 1)
		if out[0].Int() != 3 {
			filtered++
		}
		return out[0].Int() != 99, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		tup, _, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		out := make([]datum.Datum, 3)
		if err := f.Deform(tup, out); err != nil || out[0].Int() != 3 {
			t.Fatalf("scan saw %v (%v)", out, err)
		}
		n++
	}
	if n != 1 || filtered != 0 || s.Filtered() != 0 {
		t.Fatalf("scan returned %d rows, filter saw %d others, Filtered %d", n, filtered, s.Filtered())
	}
	te.done(rd)

	// The root's chain (versions 1 and 2) is dead once the horizon passes
	// the updates; the newest version's entry is not.
	horizon := te.x.NextXid()
	if dead, err := rel.IndexEntryDead(nil, tid, horizon); err != nil || !dead {
		t.Fatalf("root chain dead = %v, %v", dead, err)
	}
	if dead, err := rel.IndexEntryDead(nil, res2.NewTID, horizon); err != nil || dead {
		t.Fatalf("live version dead = %v, %v", dead, err)
	}
	if dead, _ := rel.IndexEntryDead(nil, tid, tx.Xid); dead {
		t.Fatal("chain dead before the horizon passed its deleter")
	}
	if dead, err := rel.IndexEntryDead(nil, page.ItemPointer{Block: 9, Offset: 1}, horizon); err != nil || !dead {
		t.Fatalf("entry past the end dead = %v, %v", dead, err)
	}
}
