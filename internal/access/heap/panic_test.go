package heap

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"runtime"
	"testing"

	"github.com/tidal-db/tidal/internal/crit"
	"github.com/tidal-db/tidal/internal/storage/buffer"
)

// A panic in a scan's filter (the executor's code, run under the page's
// share lock) unwinds with the page unlocked and unpinned, and
// crit.Recoverable lets the statement turn it into an ERROR.
func TestScanFilterPanicReleasesPage(t *testing.T) {
	te := newTestEnv(t, 64)
	r := Open(te.env, 16384, "boat", boatTypes, 100)
	tx := te.begin()
	for i := 1; i <= 10; i++ {
		if _, err := r.Insert(nil, tx, boatRow(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	te.commit(t, tx)
	s, err := r.BeginScan(nil, te.reader())
	if err != nil {
		t.Fatal(err)
	}
	s.Filter = func(tableam.Tuple) (bool, error) { panic("filter bug") }
	pcs := panicStack(t, func() { s.Next() })
	if ok, where := crit.Recoverable(pcs, "github.com/tidal-db/tidal/internal/access/heap.panicStack"); !ok {
		t.Errorf("a panic in a scan filter is not recoverable: held in %s", where)
	}
	if _, _, pinned := te.pool.Stats(); pinned != 0 {
		t.Errorf("%d buffers still pinned", pinned)
	}
	b, err := te.pool.Read(nil, r.tag(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !te.pool.TryLockExclusive(b) {
		t.Fatal("the page is still locked after the panic")
	}
	te.pool.UnlockRelease(b, buffer.Exclusive)
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
