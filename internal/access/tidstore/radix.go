package tidstore

import (
	"math/bits"
	"unsafe"
)

// nodeKind is the kind of a radix tree node: how many children it can hold
// and how it finds them.
type nodeKind uint8

const (
	kind4   nodeKind = iota // up to 4 children: sorted key bytes + parallel slots
	kind16                  // up to 16 children: same layout as kind4
	kind48                  // up to 48 children: 256-entry byte index into 48 slots
	kind256                 // up to 256 children: presence bitmap + directly indexed slots
)

// header starts every node. A *header points at the whole node; the kind
// says which node type to convert it to.
type header struct {
	kind  nodeKind
	_     uint8
	count uint16 // children in use (up to 256)
}

// slot is the type of a node's child slots: *header in inner nodes, a uint32
// block value (see value.go) in leaf-level nodes. The zero slot is "empty".
type slot interface{ *header | uint32 }

type node4[V slot] struct {
	header
	keys [4]byte // sorted, first count are valid
	vals [4]V
}

type node16[V slot] struct {
	header
	keys [16]byte // sorted, first count are valid
	vals [16]V
}

type node48[V slot] struct {
	header
	index [256]uint8 // key byte -> slot number + 1; 0 = no child
	vals  [48]V      // filled in insertion order
}

type node256[V slot] struct {
	header
	isset [4]uint64 // one bit per key byte
	vals  [256]V
}

const (
	inner = 0 // index into nodeSize: nodes whose slots are *header
	leaf  = 1 // nodes whose slots are uint32 values
)

// nodeSize[level][kind] is the size in bytes of each node type, as
// allocated by new() (before the Go allocator rounds it to a size class).
var nodeSize = [2][4]int64{
	inner: {
		int64(unsafe.Sizeof(node4[*header]{})),
		int64(unsafe.Sizeof(node16[*header]{})),
		int64(unsafe.Sizeof(node48[*header]{})),
		int64(unsafe.Sizeof(node256[*header]{})),
	},
	leaf: {
		int64(unsafe.Sizeof(node4[uint32]{})),
		int64(unsafe.Sizeof(node16[uint32]{})),
		int64(unsafe.Sizeof(node48[uint32]{})),
		int64(unsafe.Sizeof(node256[uint32]{})),
	},
}

// RadixStore is the PostgreSQL 17 style dead-TID store: an adaptive radix
// tree keyed by block number. See README.md for the design.
//
// Memory accounting: MemoryUsage is the sum of unsafe.Sizeof of every live
// tree node, plus the capacity of every offset-bitmap arena chunk (8 bytes a
// word) and of the arena's chunk directory (24 bytes per slice header).
// Nodes replaced by bigger or smaller ones when they grow or shrink, and
// nodes freed by DeleteBlock, are no longer counted (the garbage collector
// frees them). Arena words released by DeleteBlock or by a replacing
// SetBlockOffsets go onto the arena's free lists, where later bitmaps reuse
// them; they stay counted (see ArenaFreeBytes) until the store becomes empty
// or is Reset, when all chunks are dropped. Not counted: the RadixStore
// struct itself (a few hundred bytes, mostly free-list heads) and the Go
// allocator's rounding of each node to its size class.
type RadixStore struct {
	root      *header // nil when empty
	shift     uint    // key shift of the root's level; 0 means the root is a leaf-level node
	numTIDs   int64
	numBlocks int64
	nodeBytes int64
	arena     arena
	maxBytes  int64
}

var _ Store = (*RadixStore)(nil)

// NewRadix creates an empty radix-tree store. maxBytes is only recorded (see
// MaxBytes): the store does not enforce it, the caller does, with IsFull.
// Its allocations are at most 64 KiB at a time (one arena chunk or a 2 KiB
// node), at most 1/16 of PostgreSQL's smallest maintenance_work_mem (1 MB),
// so the overshoot past the budget stays small, as in PostgreSQL 17.
func NewRadix(maxBytes int64) *RadixStore {
	return &RadixStore{maxBytes: maxBytes}
}

// MaxBytes returns the budget given to NewRadix.
func (t *RadixStore) MaxBytes() int64 { return t.maxBytes }

// NumBlocks returns the number of blocks with at least one dead TID.
func (t *RadixStore) NumBlocks() int64 { return t.numBlocks }

// Height returns the number of node levels (0 when empty, 1..4 otherwise).
func (t *RadixStore) Height() int {
	if t.root == nil {
		return 0
	}
	return int(t.shift/8) + 1
}

// NumTIDs implements Store.
func (t *RadixStore) NumTIDs() int64 { return t.numTIDs }

// MemoryUsage implements Store; see the type comment for what is counted.
func (t *RadixStore) MemoryUsage() int64 { return t.nodeBytes + t.arena.bytes }

// ArenaFreeBytes returns the part of MemoryUsage that is arena words on the
// free lists: bitmaps released by DeleteBlock or by a replacing
// SetBlockOffsets (and chunk tails too short for the bitmap that opened the
// next chunk), kept for reuse by later bitmaps.
func (t *RadixStore) ArenaFreeBytes() int64 { return t.arena.freeWords * 8 }

// Reset implements Store: the tree and the arena are dropped for the garbage
// collector and MemoryUsage returns to 0.
func (t *RadixStore) Reset() {
	*t = RadixStore{maxBytes: t.maxBytes}
}

// IsMember implements Store.
func (t *RadixStore) IsMember(blk BlockNumber, off OffsetNumber) bool {
	n := t.root
	// blk>>(shift+8) is 0 for every key when shift is 24 (Go shifts past
	// the width yield 0).
	if n == nil || off == 0 || blk>>(t.shift+8) != 0 {
		return false
	}
	for shift := t.shift; shift > 0; shift -= 8 {
		n = findInner(n, byte(blk>>shift))
		if n == nil {
			return false
		}
	}
	v := findLeaf(n, byte(blk))
	if v&valueBitmapFlag == 0 {
		return embeddedHas(v, off) // v == 0 (absent) never matches off != 0
	}
	return t.arena.has(v&^valueBitmapFlag, off)
}

// findInner and findLeaf are findChild specialised by hand for the lookup
// hot path (the generic version goes through a dictionary for pointer
// slots).
func findInner(h *header, c byte) *header {
	if h.kind == kind256 {
		return (*node256[*header])(unsafe.Pointer(h)).vals[c]
	}
	return findChild[*header](h, c)
}

func findLeaf(h *header, c byte) uint32 {
	if h.kind == kind256 {
		return (*node256[uint32])(unsafe.Pointer(h)).vals[c]
	}
	return findChild[uint32](h, c)
}

// findChild returns the slot of node h for key byte c, or the zero slot.
func findChild[V slot](h *header, c byte) V {
	switch h.kind {
	case kind4:
		n := (*node4[V])(unsafe.Pointer(h))
		for i := 0; i < int(n.count); i++ {
			if n.keys[i] == c {
				return n.vals[i]
			}
		}
	case kind16:
		n := (*node16[V])(unsafe.Pointer(h))
		if i := search16(&n.keys, int(n.count), c); i >= 0 {
			return n.vals[i]
		}
	case kind48:
		n := (*node48[V])(unsafe.Pointer(h))
		if s := n.index[c]; s != 0 {
			return n.vals[s-1]
		}
	case kind256:
		return (*node256[V])(unsafe.Pointer(h)).vals[c]
	}
	var zero V
	return zero
}

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// search16 returns the index of c among the first count sorted keys, or -1.
// It compares eight keys at a time (SWAR), the portable cousin of
// PostgreSQL's SIMD node16 search.
func search16(keys *[16]byte, count int, c byte) int {
	pattern := uint64(c) * lsb8
	for base := 0; base < count; base += 8 {
		w := uint64(keys[base]) | uint64(keys[base+1])<<8 | uint64(keys[base+2])<<16 |
			uint64(keys[base+3])<<24 | uint64(keys[base+4])<<32 | uint64(keys[base+5])<<40 |
			uint64(keys[base+6])<<48 | uint64(keys[base+7])<<56
		x := w ^ pattern
		// Exact zero-byte detection (no false positives from borrows).
		z := ^(((x &^ msb8) + (msb8 - lsb8)) | x) & msb8
		if z != 0 {
			i := base + bits.TrailingZeros64(z)>>3
			if i < count {
				return i
			}
			return -1
		}
	}
	return -1
}

// childRef returns a pointer to the slot of node h for key byte c, or nil if
// h has no child c.
func childRef[V slot](h *header, c byte) *V {
	switch h.kind {
	case kind4:
		n := (*node4[V])(unsafe.Pointer(h))
		for i := 0; i < int(n.count); i++ {
			if n.keys[i] == c {
				return &n.vals[i]
			}
		}
	case kind16:
		n := (*node16[V])(unsafe.Pointer(h))
		if i := search16(&n.keys, int(n.count), c); i >= 0 {
			return &n.vals[i]
		}
	case kind48:
		n := (*node48[V])(unsafe.Pointer(h))
		if s := n.index[c]; s != 0 {
			return &n.vals[s-1]
		}
	case kind256:
		n := (*node256[V])(unsafe.Pointer(h))
		if n.isset[c>>6]&(1<<(c&63)) != 0 {
			return &n.vals[c]
		}
	}
	return nil
}

// insertSorted puts (c, v) into the sorted keys/vals arrays of a node4 or
// node16 holding count entries (count < len(keys)).
func insertSorted[V slot](keys []byte, vals []V, count int, c byte, v V) {
	i := count
	for i > 0 && keys[i-1] > c {
		i--
	}
	copy(keys[i+1:count+1], keys[i:count])
	copy(vals[i+1:count+1], vals[i:count])
	keys[i] = c
	vals[i] = v
}

// addChild adds key byte c with slot v to the node at *ref, which must not
// have c yet. A full node is replaced by a node of the next kind (the
// reference is updated) and the store's node bytes adjusted.
func addChild[V slot](t *RadixStore, lvl int, ref **header, c byte, v V) {
	h := *ref
	switch h.kind {
	case kind4:
		n := (*node4[V])(unsafe.Pointer(h))
		if n.count < 4 {
			insertSorted(n.keys[:], n.vals[:], int(n.count), c, v)
			n.count++
			return
		}
		g := &node16[V]{header: header{kind: kind16, count: 4}}
		copy(g.keys[:], n.keys[:])
		copy(g.vals[:], n.vals[:])
		insertSorted(g.keys[:], g.vals[:], 4, c, v)
		g.count++
		t.nodeBytes += nodeSize[lvl][kind16] - nodeSize[lvl][kind4]
		*ref = &g.header
	case kind16:
		n := (*node16[V])(unsafe.Pointer(h))
		if n.count < 16 {
			insertSorted(n.keys[:], n.vals[:], int(n.count), c, v)
			n.count++
			return
		}
		g := &node48[V]{header: header{kind: kind48, count: 16}}
		copy(g.vals[:], n.vals[:])
		for i, k := range n.keys {
			g.index[k] = uint8(i + 1)
		}
		g.vals[16] = v
		g.index[c] = 17
		g.count++
		t.nodeBytes += nodeSize[lvl][kind48] - nodeSize[lvl][kind16]
		*ref = &g.header
	case kind48:
		n := (*node48[V])(unsafe.Pointer(h))
		if n.count < 48 {
			n.vals[n.count] = v
			n.count++
			n.index[c] = uint8(n.count)
			return
		}
		g := &node256[V]{header: header{kind: kind256, count: 48}}
		for k, s := range n.index {
			if s != 0 {
				g.vals[k] = n.vals[s-1]
				g.isset[k>>6] |= 1 << (k & 63)
			}
		}
		g.vals[c] = v
		g.isset[c>>6] |= 1 << (c & 63)
		g.count++
		t.nodeBytes += nodeSize[lvl][kind256] - nodeSize[lvl][kind48]
		*ref = &g.header
	case kind256:
		n := (*node256[V])(unsafe.Pointer(h))
		n.vals[c] = v
		n.isset[c>>6] |= 1 << (c & 63)
		n.count++
	}
}

// newNode4 allocates an empty node4 for the given level (inner or leaf).
func (t *RadixStore) newNode4(lvl int) *header {
	t.nodeBytes += nodeSize[lvl][kind4]
	if lvl == leaf {
		return &(&node4[uint32]{}).header
	}
	return &(&node4[*header]{}).header
}

// valueRef returns the leaf-level slot of blk, creating the path and an
// empty (zero) slot if needed. The caller must store a non-zero value in it
// before anything else touches the tree.
func (t *RadixStore) valueRef(blk BlockNumber) *uint32 {
	if t.root == nil {
		t.shift = 0
		for blk>>(t.shift+8) != 0 {
			t.shift += 8
		}
		lvl := inner
		if t.shift == 0 {
			lvl = leaf
		}
		t.root = t.newNode4(lvl)
	}
	// Grow the tree upwards until blk fits: the old root becomes child 0 of
	// a new root one level up.
	for blk>>(t.shift+8) != 0 {
		nr := &node4[*header]{header: header{kind: kind4, count: 1}}
		nr.vals[0] = t.root
		t.nodeBytes += nodeSize[inner][kind4]
		t.root = &nr.header
		t.shift += 8
	}
	ref := &t.root
	for shift := t.shift; shift > 0; shift -= 8 {
		c := byte(blk >> shift)
		p := childRef[*header](*ref, c)
		if p == nil {
			lvl := inner
			if shift == 8 {
				lvl = leaf
			}
			addChild(t, inner, ref, c, t.newNode4(lvl))
			p = childRef[*header](*ref, c)
		}
		ref = p
	}
	c := byte(blk)
	if v := childRef[uint32](*ref, c); v != nil {
		return v
	}
	addChild(t, leaf, ref, c, uint32(0))
	return childRef[uint32](*ref, c)
}

// SetBlockOffsets implements Store. Replacing a block whose old value is a
// bitmap at least as long as the new one rewrites that bitmap in place and
// frees its unused tail; otherwise the old bitmap's words are freed (to the
// arena's free lists) and the new value stored elsewhere.
func (t *RadixStore) SetBlockOffsets(blk BlockNumber, offsets []OffsetNumber) {
	checkOffsets(offsets)
	p := t.valueRef(blk)
	old := *p
	switch {
	case old == 0:
		t.numBlocks++
	case old&valueBitmapFlag == 0:
		t.numTIDs -= int64(embeddedCount(old))
	default:
		t.numTIDs -= int64(bitmapCount(t.arena.words(old &^ valueBitmapFlag)))
	}
	t.numTIDs += int64(len(offsets))
	v := embeddedValue(offsets)
	nw := 0
	if v == 0 {
		nw = bitmapWords(offsets[len(offsets)-1])
	}
	if old&valueBitmapFlag != 0 {
		oldIdx := old &^ valueBitmapFlag
		w := t.arena.words(oldIdx)
		if v == 0 && len(w) >= nw {
			writeBitmap(w[:nw], offsets)
			if len(w) > nw {
				t.arena.free(oldIdx+uint32(nw), len(w)-nw)
			}
			return
		}
		t.arena.free(oldIdx, len(w))
	}
	if v != 0 {
		*p = v
		return
	}
	idx := t.arena.alloc(nw)
	c := t.arena.chunks[idx>>arenaChunkShift]
	s := int(idx & arenaChunkMask)
	writeBitmap(c[s:s+nw:s+nw], offsets)
	*p = valueBitmapFlag | idx
}

// Iterate implements Store. Blocks are visited in increasing order; the
// offsets slice is reused between calls.
func (t *RadixStore) Iterate(fn func(blk BlockNumber, offsets []OffsetNumber) bool) {
	if t.root == nil {
		return
	}
	buf := make([]OffsetNumber, 0, MaxHeapTuplesPerPage)
	t.walk(t.root, t.shift, 0, fn, &buf)
}

// walk visits the subtree h whose keys are prefix | (key byte << shift) | ...
func (t *RadixStore) walk(h *header, shift uint, prefix uint32, fn func(BlockNumber, []OffsetNumber) bool, buf *[]OffsetNumber) bool {
	if shift > 0 {
		return forEach(h, func(c byte, child *header) bool {
			return t.walk(child, shift-8, prefix|uint32(c)<<shift, fn, buf)
		})
	}
	return forEach(h, func(c byte, v uint32) bool {
		b := (*buf)[:0]
		if v&valueBitmapFlag == 0 {
			b = appendEmbeddedOffsets(b, v)
		} else {
			b = appendBitmapOffsets(b, t.arena.words(v&^valueBitmapFlag))
		}
		*buf = b
		return fn(prefix|uint32(c), b)
	})
}

// forEach calls f for each child of h in increasing key order until f
// returns false.
func forEach[V slot](h *header, f func(c byte, v V) bool) bool {
	switch h.kind {
	case kind4:
		n := (*node4[V])(unsafe.Pointer(h))
		for i := 0; i < int(n.count); i++ {
			if !f(n.keys[i], n.vals[i]) {
				return false
			}
		}
	case kind16:
		n := (*node16[V])(unsafe.Pointer(h))
		for i := 0; i < int(n.count); i++ {
			if !f(n.keys[i], n.vals[i]) {
				return false
			}
		}
	case kind48:
		n := (*node48[V])(unsafe.Pointer(h))
		for k, s := range n.index {
			if s != 0 && !f(byte(k), n.vals[s-1]) {
				return false
			}
		}
	case kind256:
		n := (*node256[V])(unsafe.Pointer(h))
		for w, bitsw := range n.isset {
			for bitsw != 0 {
				k := w*64 + bits.TrailingZeros64(bitsw)
				bitsw &= bitsw - 1
				if !f(byte(k), n.vals[k]) {
					return false
				}
			}
		}
	}
	return true
}
