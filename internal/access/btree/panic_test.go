package btree

import (
	"runtime"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/crit"
	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// A panic in a unique check (the executor's code, run with the leaf
// locked) unwinds with the leaf released: the next insert does not hang,
// and crit.Recoverable lets the statement turn it into an ERROR.
func TestUniqueCheckPanicReleasesLeaf(t *testing.T) {
	te := newTestEnv(t, 64)
	opt := int4Opts("u")
	opt.Unique = true
	ix := emptyIndex(t, te, 16384, opt)
	key := []datum.Datum{datum.Int(1)}
	if err := ix.Insert(nil, 2, key, page.ItemPointer{Block: 0, Offset: 1}, nil); err != nil {
		t.Fatal(err)
	}
	pcs := panicStack(t, func() {
		ix.Insert(nil, 2, key, page.ItemPointer{Block: 0, Offset: 2}, func(page.ItemPointer) (UniqueVerdict, error) {
			panic("check bug")
		})
	})
	if ok, where := crit.Recoverable(pcs, "github.com/tidal-db/tidal/internal/access/btree.panicStack"); !ok {
		t.Errorf("a panic in a unique check is not recoverable: held in %s", where)
	}
	done := make(chan error, 1)
	go func() {
		done <- ix.Insert(nil, 2, []datum.Datum{datum.Int(2)}, page.ItemPointer{Block: 0, Offset: 3}, nil)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the leaf stayed locked after the panic")
	}
	if _, _, pinned := te.pool.Stats(); pinned != 0 {
		t.Errorf("%d buffers still pinned", pinned)
	}
}

// panicStack runs f, recovers its panic and returns the program counters
// at the recover, as a statement's recovery sees them.
func panicStack(t *testing.T, f func()) (pcs []uintptr) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
		pcs = make([]uintptr, 64)
		pcs = pcs[:runtime.Callers(1, pcs)]
	}()
	f()
	return nil
}
