// Package tidstore is VACUUM's dead-TID store: the set of heap item
// identifiers (block, offset) that lazy VACUUM's first heap pass found dead
// and that the index bulk-delete pass and the second heap pass must remove.
//
// Two implementations share the Store interface:
//
//   - "radix" (the default, PostgreSQL 17 style): an adaptive radix tree keyed
//     by block number, one byte per level, whose per-block value is a 32-bit
//     word holding up to three offsets inline, or else a reference to an offset
//     bitmap kept in a bump arena. Memory grows with the number of blocks that
//     have dead items, not with the number of dead items.
//   - "array" (PostgreSQL 15 style): a preallocated flat array of 6-byte TIDs
//     searched by binary search. Kept as a baseline and for comparison.
//
// The caller (VACUUM) adds the dead offsets of one heap block at a time with
// SetBlockOffsets, checks IsFull before each heap block to decide when to run
// an index pass, hands IsMember to every index AM as the bulk-delete
// callback, walks the blocks with Iterate for the second heap pass, and calls
// Reset afterwards.
//
// Concurrency: a Store has no internal locking. Any number of goroutines may
// call IsMember, NumTIDs, MemoryUsage and Iterate at the same time as long as
// nobody modifies the store (SetBlockOffsets, DeleteBlock, Reset)
// concurrently; writers need exclusive access. That is exactly VACUUM's
// pattern: one writer during the heap scan, then several parallel
// index-vacuum workers that only read.
//
// See README.md in this directory for the design and the memory accounting.
package tidstore

import "fmt"

// BlockNumber is a heap block (page) number.
type BlockNumber = uint32

// OffsetNumber is a 1-based line pointer number within a heap block.
type OffsetNumber = uint16

const (
	// MaxHeapTuplesPerPage is the largest heap offset for 8 KiB pages
	// (PostgreSQL's MaxHeapTuplesPerPage). The PostgreSQL 15 array uses it to
	// decide when an index pass is due.
	MaxHeapTuplesPerPage = 291

	// MaxOffset is the largest offset a Store accepts. It is larger than
	// MaxHeapTuplesPerPage so that index AMs with bigger pages or denser
	// items can use the store too.
	MaxOffset = 2048

	// BytesPerArrayTID is the size of one TID in the array store, as in
	// PostgreSQL's ItemPointerData: 4 bytes of block, 2 bytes of offset.
	BytesPerArrayTID = 6

	// KindRadix and KindArray are the names accepted by New.
	KindRadix = "radix"
	KindArray = "array"
)

// Store collects dead item identifiers of a heap, block by block, in
// increasing block order.
type Store interface {
	// SetBlockOffsets records the dead offsets of one heap block. offsets
	// must be non-empty, strictly ascending and within 1..MaxOffset;
	// otherwise SetBlockOffsets panics (a caller bug, like an elog(ERROR) in
	// PostgreSQL). Blocks normally arrive in increasing block order (VACUUM's
	// heap scan order), which is the fast path; any order is accepted.
	// Calling it for a block that is already present replaces that block's
	// whole offset set (it does not merge), as TidStoreSetBlockOffsets does.
	// The offsets slice is not retained.
	SetBlockOffsets(blk BlockNumber, offsets []OffsetNumber)

	// DeleteBlock removes blk and its whole offset set from the store and
	// reports whether blk was present. Deleting an absent block is a no-op.
	// MemoryUsage drops accordingly (see each implementation for what is
	// returned and what is kept for reuse).
	DeleteBlock(blk BlockNumber) bool

	// IsMember reports whether (blk, off) is in the store. It is the index
	// bulk-delete callback, called once per index tuple. It never allocates
	// and is safe to call from many goroutines at once while nobody writes.
	IsMember(blk BlockNumber, off OffsetNumber) bool

	// NumTIDs returns the number of TIDs in the store.
	NumTIDs() int64

	// MemoryUsage returns the bytes the store has allocated for its data;
	// what exactly is counted is documented on each implementation. VACUUM
	// compares it against maintenance_work_mem and reports it as
	// dead_tuple_bytes.
	MemoryUsage() int64

	// Iterate calls fn for each block in increasing block order with that
	// block's offsets in increasing order, until fn returns false. The
	// offsets slice is only valid during the call (it may be reused) and
	// must not be modified.
	Iterate(fn func(blk BlockNumber, offsets []OffsetNumber) bool)

	// Reset empties the store and releases its memory (MemoryUsage drops to
	// about 0; the array store keeps its preallocated slots, see ArrayStore).
	Reset()
}

// New creates an empty store of the given kind: "radix" (also the default
// when kind is "") or "array". maxBytes is the memory budget
// (maintenance_work_mem in bytes). The radix store does not enforce it; the
// caller compares MemoryUsage with it, see IsFull. The array store
// preallocates its slots from it, see NewArray (New passes no table-size
// hint).
func New(kind string, maxBytes int64) (Store, error) {
	switch kind {
	case "", KindRadix:
		return NewRadix(maxBytes), nil
	case KindArray:
		return NewArray(maxBytes, 0), nil
	default:
		return nil, fmt.Errorf("tidstore: unknown store kind %q (want %q or %q)", kind, KindRadix, KindArray)
	}
}

// IsFull reports whether VACUUM must stop scanning the heap and run an index
// pass (then a heap-vacuum pass, then Reset) before it processes the next
// heap block. It is checked before each heap block, as lazy_scan_heap does:
//
//   - array (PostgreSQL 15): the remaining free slots cannot hold one whole
//     page's dead items, maxItems - NumTIDs < MaxHeapTuplesPerPage, where
//     maxItems is the array's preallocated capacity further capped by
//     ArrayMaxItems(maxBytes, 0). A page's dead items are therefore always
//     recorded whole and never overflow the array.
//   - radix (PostgreSQL 17): NumTIDs > 0 && MemoryUsage > maxBytes. The store
//     may overshoot maxBytes by the size of the last block's allocations;
//     the NumTIDs guard makes sure a pass always does some work even if the
//     budget is tiny.
func IsFull(s Store, maxBytes int64) bool {
	switch st := s.(type) {
	case *ArrayStore:
		maxItems := min(st.MaxItems(), ArrayMaxItems(maxBytes, 0))
		return maxItems-st.NumTIDs() < MaxHeapTuplesPerPage
	default:
		return s.NumTIDs() > 0 && s.MemoryUsage() > maxBytes
	}
}

// checkOffsets panics unless offsets is a valid argument of SetBlockOffsets.
func checkOffsets(offsets []OffsetNumber) {
	if len(offsets) == 0 {
		panic("tidstore: SetBlockOffsets with no offsets")
	}
	prev := 0
	for _, o := range offsets {
		if int(o) <= prev {
			if o == 0 {
				panic("tidstore: offset 0 is not a valid offset number")
			}
			panic(fmt.Sprintf("tidstore: offsets not strictly ascending (%d after %d)", o, prev))
		}
		prev = int(o)
	}
	if prev > MaxOffset {
		panic(fmt.Sprintf("tidstore: offset %d exceeds MaxOffset %d", prev, MaxOffset))
	}
}
