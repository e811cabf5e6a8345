// Package crit decides what a Go panic during a statement may be turned
// into. PostgreSQL turns an error into ERROR, rolls the transaction back and
// releases what the backend held (its resource owners release buffer pins,
// LWLockReleaseAll drops content locks); an error inside a critical section
// (between changing a shared page and logging the change) is PANIC: shared
// memory may no longer match the WAL, so the server restarts and recovers.
//
// tidal's buffer pool does not record which backend holds a pin or a content
// lock, so a panic cannot be cleaned up after the fact. Instead a panic is an
// ERROR only when nothing it unwinds through can be holding one: Recoverable
// looks at the frames the panic unwound (the stack at the recover) and
// allows storage frames only from an explicit list of functions that hold no
// page or storage lock, or release it as they unwind. Anything else — a panic
// raised in, or unwinding through, heap, B-tree, buffer, WAL or lock-manager
// code, which covers every critical section — is PANIC.
package crit

import (
	"runtime"
	"strings"
)

const module = "github.com/tidal-db/tidal/internal/"

// lockHolding are the packages whose code may hold a buffer pin, a page
// content lock or a storage mutex without releasing it on unwind.
var lockHolding = []string{module + "storage/", module + "access/", module + "wal.", module + "xact."}

// releasesOnUnwind are storage functions (and their closures) that hold no
// page lock or storage mutex when they can panic, or release it as a panic
// unwinds through them. Every entry must stay true as the code changes.
var releasesOnUnwind = []string{
	// A sequential scan runs the executor's pushed-down filter under the
	// page's share lock, released by a defer (collect); Next and
	// loadPage hold only the pin, also released by a defer.
	module + "access/heap.(*Scan).Next",
	module + "access/heap.(*Scan).loadPage",
	module + "access/heap.(*Scan).collect",
	// A unique insert runs the executor's heap check (and the key's text
	// for the error) with the leaf locked; checkUnique releases the leaf
	// and the page to its right on unwind, and Insert holds nothing else
	// then (Lehman-Yao: no parent locks during the check). Insert is
	// InsertFor without a serializable record; InsertFor and
	// InsertMarked are insert.
	module + "access/btree.(*op).checkUnique",
	// A bottom-up deletion pass asks the table whether entries are dead
	// with the leaf locked, and releases it on unwind like checkUnique;
	// makeRoom and InsertWith hold nothing else then.
	module + "access/btree.(*op).bottomUpPass",
	module + "access/btree.(*op).makeRoom",
	module + "access/btree.(*Index).InsertWith",
	module + "access/btree.(*Index).Insert",
	module + "access/btree.(*Index).InsertFor",
	module + "access/btree.(*Index).InsertMarked",
	module + "access/btree.(*Index).insert",
	// Opening an index handle or a build holds nothing.
	module + "access/btree.Open",
	module + "access/btree.NewBuilder",
}

// Recoverable reports whether a recovered panic may become an ERROR, from
// the program counters of the stack at the recover (runtime.Callers in the
// deferred function: its frames, runtime.gopanic, the frames the panic
// unwinds, then recoverer — the function whose deferred call recovers —
// and its callers, which are not unwound). where names the frame that
// forbids it.
func Recoverable(pcs []uintptr, recoverer string) (ok bool, where string) {
	frames := runtime.CallersFrames(pcs)
	unwinding := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			unwinding = true
		case unwinding && f.Function == recoverer:
			return true, ""
		case unwinding && holdsLocks(f.Function):
			return false, f.Function
		}
		if !more {
			return true, ""
		}
	}
}

func holdsLocks(fn string) bool {
	for _, p := range releasesOnUnwind {
		if fn == p || strings.HasPrefix(fn, p+".") { // its closures and defer wrappers
			return false
		}
	}
	for _, p := range lockHolding {
		if strings.HasPrefix(fn, p) {
			// A storage package's own tests stand in for the executor.
			return !strings.Contains(fn[len(p):], ".Test")
		}
	}
	return false
}
