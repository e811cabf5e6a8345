package btree

import (
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

type testEnv struct {
	dir  string
	sm   *smgr.Manager
	pool *buffer.Pool
	w    *wal.WAL
	env  *Env
}

func newTestEnv(t testing.TB, nbuf int) *testEnv {
	t.Helper()
	te := newTestEnvIn(t, t.TempDir(), nbuf)
	t.Cleanup(func() { te.w.Close(); te.sm.Close() })
	return te
}

// newTestEnvIn sets up an environment in dir, without cleanup.
func newTestEnvIn(t testing.TB, dir string, nbuf int) *testEnv {
	t.Helper()
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
	return &testEnv{dir: dir, sm: sm, pool: pool, w: w, env: &Env{Pool: pool, WAL: w}}
}

func int4Opts(name string) Options {
	return Options{Name: name, KeyTypes: []datum.Type{datum.Int4}, ColumnNames: []string{"id"}}
}

// emptyIndex builds an empty index (metapage only).
func emptyIndex(t testing.TB, te *testEnv, rel smgr.RelFileNumber, opt Options) *Index {
	t.Helper()
	ix, err := NewBuilder(te.env, rel, opt).Finish(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

type entry struct {
	keys []datum.Datum
	tid  page.ItemPointer
}

// scanAll returns every entry of a cursor.
func scanAll(t testing.TB, ix *Index, c *Cursor) []entry {
	t.Helper()
	var out []entry
	for {
		tid, tup, ok, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		if tup.TID() != tid {
			t.Fatalf("tuple TID %v != %v", tup.TID(), tid)
		}
		k, err := ix.Keys(tup, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{keys: k, tid: tid})
	}
}

func tidOf(i int) page.ItemPointer {
	return page.ItemPointer{Block: page.BlockNumber(i / 100), Offset: page.OffsetNumber(i%100 + 1)}
}

func mustCheck(t testing.TB, ix *Index) {
	t.Helper()
	if err := ix.Check(nil); err != nil {
		t.Fatal(err)
	}
}

var nilUsage *stats.Usage
