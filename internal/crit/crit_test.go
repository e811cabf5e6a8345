package crit

import (
	"runtime"
	"testing"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// stackOfPanic runs f, recovers its panic and returns the program counters
// at the recover, as a statement's recovery sees them.
func stackOfPanic(t *testing.T, f func()) (pcs []uintptr) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("f did not panic")
		}
		pcs = make([]uintptr, 64)
		pcs = pcs[:runtime.Callers(1, pcs)]
	}()
	f()
	return nil
}

const recoverer = module + "crit.stackOfPanic"

func TestRecoverable(t *testing.T) {
	if ok, where := Recoverable(stackOfPanic(t, func() { panic("executor bug") }), recoverer); !ok {
		t.Errorf("a panic outside storage code: not recoverable (%s)", where)
	}
	var nilMap map[string]int
	if ok, where := Recoverable(stackOfPanic(t, func() { nilMap["x"] = 1 }), recoverer); !ok {
		t.Errorf("a runtime error outside storage code: not recoverable (%s)", where)
	}
	// Opening an index holds nothing (the old ADD PRIMARY KEY USING
	// INDEX crash was here).
	if ok, where := Recoverable(stackOfPanic(t, func() { btree.Open(nil, 1, btree.Options{Name: "none"}) }), recoverer); !ok {
		t.Errorf("btree.Open: not recoverable (%s)", where)
	}
	// A panic inside storage code may leave a page locked: PANIC.
	ok, where := Recoverable(stackOfPanic(t, func() { var p page.Page; p.Item(1) }), recoverer)
	if ok || where == "" {
		t.Errorf("a panic in page code: recoverable=%v where=%q", ok, where)
	}
}

func TestHoldsLocks(t *testing.T) {
	for fn, want := range map[string]bool{
		module + "access/heap.(*Scan).collect":             false,
		module + "access/heap.(*Scan).loadPage.deferwrap1": false,
		module + "access/btree.(*op).checkUnique.func1":    false,
		module + "access/btree.(*op).insertOnPage":         true,
		module + "access/heap.(*Relation).Update":          true,
		module + "storage/buffer.(*Pool).unpin":            true,
		module + "wal.(*WAL).InsertRecord":                 true,
		module + "xact.(*Manager).Lock":                    true,
		module + "sql/exec.(*SeqScan).Next":                false,
		module + "sql/types.Compare":                       false,
		module + "catalog.(*Catalog).IndexFor":             false,
	} {
		if got := holdsLocks(fn); got != want {
			t.Errorf("holdsLocks(%s) = %v", fn, got)
		}
	}
}
