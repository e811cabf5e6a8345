package engine

import (
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Giving memory back after a big statement.
//
// Go's collector runs when the heap grows, not when it stops growing: after
// a statement that held much (an in-memory sort with a large work_mem, a
// big IN list), the dead memory stays mapped until the next collection,
// and the runtime's background scavenger only returns what lies beyond the
// heap goal of the last one — a server gone idle keeps the peak resident.
// A soft memory limit (debug.SetMemoryLimit) would be the other lever, but
// it is process-wide and makes the collector run hard whenever a legitimate
// large work_mem brings the heap near it. So instead, when a session goes
// idle and the runtime retains much more than the live heap, the engine
// runs debug.FreeOSMemory (a collection that returns every free page) in
// the background, at most once a second: a statement's peak is returned
// within a second of its end, at the cost of one collection of the small
// live heap (the buffer pool is outside it, see buffer/framemem.go).

// returnSlack is how far the runtime's retained memory may exceed the
// live heap before it is worth returning.
const returnSlack = 64 << 20

type memReturn struct {
	busy atomic.Bool
	last atomic.Int64 // unix nanoseconds of the last return
}

// ReturnMemory gives free heap memory back to the operating system if
// the runtime holds much more than it uses (see above). It never blocks.
func (e *Engine) ReturnMemory() {
	now := time.Now().UnixNano()
	if now-e.memReturn.last.Load() < int64(time.Second) || !retainsMuchMore() {
		return
	}
	if !e.memReturn.busy.CompareAndSwap(false, true) {
		return
	}
	e.memReturn.last.Store(now)
	go func() {
		defer e.memReturn.busy.Store(false)
		debug.FreeOSMemory()
	}()
}

// retainsMuchMore: the memory the runtime has mapped and not released
// exceeds the heap live at the last collection by returnSlack.
func retainsMuchMore() bool {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return false
		}
	}
	retained := s[0].Value.Uint64() - s[1].Value.Uint64()
	return retained > s[2].Value.Uint64()+returnSlack
}
