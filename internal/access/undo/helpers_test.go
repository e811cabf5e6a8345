package undo

import (
	"context"
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
	log  *Log
}

const testRel smgr.RelFileNumber = 16384

func newTestEnv(t testing.TB, nbuf int) *testEnv {
	t.Helper()
	te := &testEnv{dir: t.TempDir()}
	te.open(t, nbuf, wal.FirstLSN, 0, 3)
	return te
}

// open starts the environment on te.dir: WAL continues at pos.
func (te *testEnv) open(t testing.TB, nbuf int, pos, prev wal.LSN, nextXid xact.XID) {
	t.Helper()
	sm, err := smgr.Open(filepath.Join(te.dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	pool := buffer.New(sm, nbuf)
	w, err := wal.Open(filepath.Join(te.dir, "wal"), pos, prev, wal.Options{FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	pool.FlushWAL = w.Flush
	x, err := xact.Open(filepath.Join(te.dir, "xact"), w, nextXid)
	if err != nil {
		t.Fatal(err)
	}
	te.sm, te.pool, te.w, te.x = sm, pool, w, x
	te.log, err = Open(pool, w, x)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); sm.Close() })
}

// crash throws away the buffer pool (nothing written since the last
// flush reaches disk), replays the WAL, reopens, and runs undo recovery.
func (te *testEnv) crash(t testing.TB, nbuf int) int {
	t.Helper()
	if err := te.w.Flush(te.w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	te.w.Close()
	te.sm.Close()
	sm, err := smgr.Open(filepath.Join(te.dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	pool := buffer.New(sm, nbuf)
	x, err := xact.Open(filepath.Join(te.dir, "xact"), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	RegisterRmgr()
	wal.Register(wal.RmXact, wal.Rmgr{Name: "Transaction", Redo: func(d *wal.Decoded) error { x.RedoXact(d); return nil }})
	res, err := wal.Replay(filepath.Join(te.dir, "wal"), pool, wal.FirstLSN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	if err := x.CLOG().Flush(); err != nil {
		t.Fatal(err)
	}
	sm.Close()
	te.open(t, nbuf, res.End, res.Prev, xact.Advance(res.MaxXid))
	n, err := te.log.Recover(nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var boatTypes = []datum.Type{datum.Int4, datum.Text, datum.Float8}

var boat = NewDeformer(boatTypes)

func boatRow(i int, name string) Tuple {
	if name == "" {
		name = fmt.Sprintf("%032x", i)
	}
	return boat.Form([]datum.Datum{datum.Int(int64(i)), datum.Str(name), datum.Float(float64(i) / 3)})
}

func rowOf(t testing.TB, tup Tuple) (int, string) {
	t.Helper()
	out := make([]datum.Datum, 3)
	if err := boat.Deform(tup, out); err != nil {
		t.Fatal(err)
	}
	return int(out[0].Int()), out[1].Str()
}

// begin starts a writing transaction.
func (te *testEnv) begin(t testing.TB) *Txn {
	t.Helper()
	p := te.x.NewProc()
	xid, err := te.x.AssignXid(p)
	if err != nil {
		t.Fatal(err)
	}
	return &Txn{Proc: p, Xid: xid, Snap: te.x.GetSnapshot(p)}
}

// reader takes a snapshot without an xid.
func (te *testEnv) reader() *Txn {
	p := te.x.NewProc()
	return &Txn{Proc: p, Snap: te.x.GetSnapshot(p)}
}

// next starts tx's next command.
func next(tx *Txn) { tx.Cid++; tx.Snap.Cid = tx.Cid }

func (te *testEnv) commit(t testing.TB, tx *Txn) {
	t.Helper()
	if _, err := te.x.Commit(nil, tx.Proc, xact.CommitOptions{Sync: true}); err != nil {
		t.Fatal(err)
	}
	te.x.ReleaseProc(tx.Proc)
}

func (te *testEnv) abort(t testing.TB, tx *Txn) {
	t.Helper()
	te.x.Abort(tx.Proc)
	if e := te.log.failed.Load(); e != nil {
		t.Fatal(*e)
	}
	te.x.ReleaseProc(tx.Proc)
}

func (te *testEnv) done(tx *Txn) {
	te.x.ResetXmin(tx.Proc)
	te.x.ReleaseProc(tx.Proc)
}

// rows returns id → name of what a scan under tx sees, failing on a row
// seen twice.
func rows(t testing.TB, tb *Table, tx *Txn) map[int]string {
	t.Helper()
	out := map[int]string{}
	err := tb.Scan(context.Background(), nil, tx, func(_ page.ItemPointer, tup Tuple) bool {
		id, name := rowOf(t, tup)
		if _, dup := out[id]; dup {
			t.Fatalf("row %d seen twice", id)
		}
		out[id] = name
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fetchName(t testing.TB, tb *Table, tx *Txn, tid page.ItemPointer) (string, bool) {
	t.Helper()
	tup, err := tb.Fetch(nil, tx, tid)
	if err != nil {
		t.Fatal(err)
	}
	if tup == nil {
		return "", false
	}
	_, name := rowOf(t, tup)
	return name, true
}

var nilUsage *stats.Usage
