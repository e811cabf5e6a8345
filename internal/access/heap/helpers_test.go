package heap

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

type testEnv struct {
	dir  string
	sm   *smgr.Manager
	pool *buffer.Pool
	w    *wal.WAL
	x    *xact.Manager
	env  *Env
}

func newTestEnv(t testing.TB, nbuf int) *testEnv {
	t.Helper()
	dir := t.TempDir()
	sm, err := smgr.Open(filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	pool := buffer.New(sm, nbuf)
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.FirstLSN, 0, wal.Options{Fsync: false, FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	pool.FlushWAL = w.Flush
	x, err := xact.Open(filepath.Join(dir, "xact"), w, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); sm.Close() })
	return &testEnv{dir: dir, sm: sm, pool: pool, w: w, x: x, env: &Env{Pool: pool, WAL: w, Xact: x}}
}

// boatTypes is seed 003's row: (id integer, name text, reg double precision).
var boatTypes = []datum.Type{datum.Int4, datum.Text, datum.Float8}

func boatRow(i int) Tuple {
	return Form(boatTypes, []datum.Datum{datum.Int(int64(i)), datum.Str(fmt.Sprintf("%032x", i)), datum.Float(float64(i) / 3)})
}

func rowID(t testing.TB, tup Tuple) int {
	t.Helper()
	out := make([]datum.Datum, 3)
	if err := NewDeformer(boatTypes).Deform(tup, out); err != nil {
		t.Fatal(err)
	}
	return int(out[0].Int())
}

// begin starts a writing transaction with an xid and a snapshot.
func (te *testEnv) begin() *Txn {
	p := te.x.NewProc()
	tx := &Txn{Proc: p, Combo: &ComboCids{}}
	tx.Xid = mustXid(te.x, p)
	tx.Snap = te.x.GetSnapshot(p)
	return tx
}

// reader is a read-only transaction's view.
func (te *testEnv) reader() *Txn {
	p := te.x.NewProc()
	return &Txn{Proc: p, Snap: te.x.GetSnapshot(p), Combo: &ComboCids{}}
}

func (te *testEnv) commit(t testing.TB, tx *Txn) {
	t.Helper()
	if _, err := te.x.Commit(nil, tx.Proc, xact.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	te.x.ReleaseProc(tx.Proc)
}

func (te *testEnv) abort(tx *Txn) {
	te.x.Abort(tx.Proc)
	te.x.ReleaseProc(tx.Proc)
}

func (te *testEnv) done(tx *Txn) {
	te.x.ResetXmin(tx.Proc)
	te.x.ReleaseProc(tx.Proc)
}

// scanIDs returns the ids of the rows a sequential scan sees.
func scanIDs(t testing.TB, r *Relation, tx *Txn) map[int]page.ItemPointer {
	t.Helper()
	s, err := r.BeginScan(nil, tx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]page.ItemPointer{}
	for {
		tup, tid, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		id := rowID(t, tup)
		if _, dup := out[id]; dup {
			t.Fatalf("row %d seen twice", id)
		}
		out[id] = tid
	}
}

// walRecords reads the records inserted from pos on.
func (te *testEnv) walRecords(t testing.TB, from page.LSN) []*wal.Decoded {
	t.Helper()
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	r := wal.NewReader(filepath.Join(te.dir, "wal"), from)
	defer r.Close()
	var out []*wal.Decoded
	for {
		d, err := r.Next()
		if err != nil {
			return out
		}
		out = append(out, d)
	}
}

func (te *testEnv) item(t testing.TB, r *Relation, tid page.ItemPointer) (page.ItemID, Tuple) {
	t.Helper()
	b, err := te.pool.Read(nil, r.tag(tid.Block), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.pool.Release(b)
	p := te.pool.Page(b)
	if tid.Offset > p.MaxOffset() {
		return page.ItemID{}, nil
	}
	it := p.Item(tid.Offset)
	if it.Flags != page.LPNormal {
		return it, nil
	}
	return it, append(Tuple(nil), p.ItemBytes(tid.Offset)...)
}

var nilUsage *stats.Usage

func mustXid(m interface {
	AssignXid(*xact.Proc) (xact.XID, error)
}, p *xact.Proc) xact.XID {
	x, err := m.AssignXid(p)
	if err != nil {
		panic(err)
	}
	return x
}
