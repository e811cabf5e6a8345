package tidstore

import (
	"math"
	"sort"
)

// maxAllocSize is PostgreSQL's MaxAllocSize (1 GB - 1), the largest single
// palloc and therefore the cap on PostgreSQL 15's dead-TID array.
const maxAllocSize = 0x3fffffff

// deadItemsHeader is offsetof(VacDeadItems, items) in PostgreSQL 15: the
// max_items and num_items ints in front of the array.
const deadItemsHeader = 8

// ArrayMaxItems returns the number of TID slots PostgreSQL 15's
// dead_items_max_items would preallocate for a memory budget of maxBytes and
// a table that can hold at most maxTIDs TIDs (rel_pages * MaxHeapTuplesPerPage;
// maxTIDs <= 0 means "unknown", no cap):
//
//	items = (maxBytes - 8) / 6        // MAXDEADITEMS(vac_work_mem * 1024)
//	items = min(items, INT_MAX, (MaxAllocSize - 8) / 6)
//	items = min(items, maxTIDs)       // never more than the table can hold
//	items = max(items, MaxHeapTuplesPerPage)
func ArrayMaxItems(maxBytes, maxTIDs int64) int64 {
	items := (maxBytes - deadItemsHeader) / BytesPerArrayTID
	items = min(items, math.MaxInt32, (maxAllocSize-deadItemsHeader)/BytesPerArrayTID)
	if maxTIDs > 0 {
		items = min(items, maxTIDs)
	}
	return max(items, MaxHeapTuplesPerPage)
}

// ArrayStore is the PostgreSQL 15 dead-TID store: one flat, preallocated
// array of TIDs in (block, offset) order, searched by binary search.
//
// The TIDs are kept as two parallel arrays, a []uint32 of blocks and a
// []uint16 of offsets, so a TID slot really occupies 6 bytes, the size of
// PostgreSQL's ItemPointerData.
//
// Memory accounting: MemoryUsage is 6 bytes per TID in use (6 * NumTIDs),
// the figure PostgreSQL 15 reported in its progress view (num_dead_tuples
// TIDs of 6 bytes) and the one "bytes per TID" comparisons use; it is
// exactly 6.0 bytes per TID by definition. AllocatedBytes is what the store
// really holds: 6 bytes per preallocated slot, whether used or not.
type ArrayStore struct {
	blks     []uint32
	offs     []uint16
	maxItems int64
}

var _ Store = (*ArrayStore)(nil)

// NewArray creates a PostgreSQL 15 style array store and preallocates
// ArrayMaxItems(maxBytes, maxTIDs) slots, like lazy VACUUM's
// dead_items_alloc. Pass maxTIDs = relPages * MaxHeapTuplesPerPage to avoid
// reserving more than the table can need; maxTIDs <= 0 means no such hint,
// in which case up to 1 GB is reserved.
//
// The array does not refuse TIDs beyond its capacity: if the caller ignores
// IsFull, it grows like any Go slice (PostgreSQL 15 would fail an
// assertion). MaxItems keeps reporting the preallocated capacity.
func NewArray(maxBytes, maxTIDs int64) *ArrayStore {
	n := ArrayMaxItems(maxBytes, maxTIDs)
	return &ArrayStore{
		blks:     make([]uint32, 0, n),
		offs:     make([]uint16, 0, n),
		maxItems: n,
	}
}

// MaxItems returns the number of preallocated TID slots (PostgreSQL 15's
// max_dead_tuples).
func (s *ArrayStore) MaxItems() int64 { return s.maxItems }

// AllocatedBytes returns the bytes actually reserved for TIDs: 6 bytes per
// slot of capacity.
func (s *ArrayStore) AllocatedBytes() int64 {
	return int64(cap(s.blks))*4 + int64(cap(s.offs))*2
}

// SetBlockOffsets implements Store. Appending a block beyond the current last
// block is O(len(offsets)); replacing a block or inserting one out of order
// moves the tail of the array.
func (s *ArrayStore) SetBlockOffsets(blk BlockNumber, offsets []OffsetNumber) {
	checkOffsets(offsets)
	n := len(s.blks)
	if n == 0 || s.blks[n-1] < blk {
		for _, o := range offsets {
			s.blks = append(s.blks, blk)
			s.offs = append(s.offs, o)
		}
		return
	}
	lo := sort.Search(n, func(i int) bool { return s.blks[i] >= blk })
	hi := lo + sort.Search(n-lo, func(i int) bool { return s.blks[lo+i] > blk })
	newBlks := make([]uint32, len(offsets))
	for i := range newBlks {
		newBlks[i] = blk
	}
	s.blks = replace(s.blks, lo, hi, newBlks)
	s.offs = replace(s.offs, lo, hi, offsets)
}

// DeleteBlock implements Store: two binary searches find the block's run of
// TIDs, and the tail of the array moves down over it (O(n)). The capacity
// stays preallocated; MemoryUsage drops by 6 bytes per deleted TID.
func (s *ArrayStore) DeleteBlock(blk BlockNumber) bool {
	n := len(s.blks)
	lo := sort.Search(n, func(i int) bool { return s.blks[i] >= blk })
	hi := lo + sort.Search(n-lo, func(i int) bool { return s.blks[lo+i] > blk })
	if lo == hi {
		return false
	}
	s.blks = append(s.blks[:lo], s.blks[hi:]...)
	s.offs = append(s.offs[:lo], s.offs[hi:]...)
	return true
}

// replace is slices.Replace that never shrinks the capacity.
func replace[E any](s []E, i, j int, v []E) []E {
	tail := append([]E(nil), s[j:]...)
	s = append(s[:i], v...)
	return append(s, tail...)
}

// IsMember implements Store: a range check against the first and last TID,
// then a binary search, as PostgreSQL 15's lazy_tid_reaped.
func (s *ArrayStore) IsMember(blk BlockNumber, off OffsetNumber) bool {
	n := len(s.blks)
	if n == 0 {
		return false
	}
	key := uint64(blk)<<16 | uint64(off)
	if key < uint64(s.blks[0])<<16|uint64(s.offs[0]) ||
		key > uint64(s.blks[n-1])<<16|uint64(s.offs[n-1]) {
		return false
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k := uint64(s.blks[m])<<16 | uint64(s.offs[m])
		if k < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < n && s.blks[lo] == blk && s.offs[lo] == off
}

// NumTIDs implements Store.
func (s *ArrayStore) NumTIDs() int64 { return int64(len(s.blks)) }

// MemoryUsage implements Store: 6 bytes per TID in use.
func (s *ArrayStore) MemoryUsage() int64 { return int64(len(s.blks)) * BytesPerArrayTID }

// Iterate implements Store. The offsets slice handed to fn points into the
// store and must not be modified.
func (s *ArrayStore) Iterate(fn func(blk BlockNumber, offsets []OffsetNumber) bool) {
	for i, n := 0, len(s.blks); i < n; {
		blk := s.blks[i]
		j := i + 1
		for j < n && s.blks[j] == blk {
			j++
		}
		if !fn(blk, s.offs[i:j:j]) {
			return
		}
		i = j
	}
}

// Reset implements Store. Like PostgreSQL 15 between index passes, it keeps
// the preallocated slots for reuse: NumTIDs and MemoryUsage drop to 0,
// AllocatedBytes does not. The slots are freed when the store is dropped.
func (s *ArrayStore) Reset() {
	s.blks = s.blks[:0]
	s.offs = s.offs[:0]
}
