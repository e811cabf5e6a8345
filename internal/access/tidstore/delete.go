package tidstore

import (
	"math/bits"
	"unsafe"
)

// Shrink thresholds. After a deletion leaves a node with at most this many
// children, the node is replaced by one of the next smaller kind. As in
// PostgreSQL's radixtree.h the threshold is 3/4 of the smaller kind's
// capacity, well below the count at which that kind grew into this one, so
// alternating inserts and deletes at either boundary never copy nodes back
// and forth:
//
//	kind     grows at (children)   shrinks at (children left)
//	node4          5  -> node16        0 (freed)
//	node16        17  -> node48        3 -> node4
//	node48        49  -> node256      12 -> node16
//	node256        -                  36 -> node48
//
// Consequently a live node4 has 1-4 children, a node16 4-16, a node48 13-48
// and a node256 37-256.
const (
	shrink16  = 4 * 3 / 4  // 3
	shrink48  = 16 * 3 / 4 // 12
	shrink256 = 48 * 3 / 4 // 36
)

// DeleteBlock implements Store: it removes blk and its whole offset set and
// reports whether blk was present.
//
// The block's slot is removed from its leaf-level node, which shrinks to the
// next smaller kind when it falls to its shrink threshold (see shrink16 and
// friends). A node that loses its last child is freed and removed from its
// parent, recursively up to the root. Afterwards the tree's height shrinks
// while the root is a node4 whose only child has key byte 0, so the height is
// again just enough for the largest block stored, exactly as if the
// remaining blocks had been inserted into an empty store. The block's bitmap
// words, if any, go onto the arena's free lists. When the last block is
// deleted the arena is dropped too, and MemoryUsage returns to 0.
func (t *RadixStore) DeleteBlock(blk BlockNumber) bool {
	if t.root == nil || blk>>(t.shift+8) != 0 {
		return false
	}
	// refs[d] is the reference (root pointer or parent slot) to the node at
	// depth d of blk's path; the leaf-level node is at depth top.
	var refs [4]**header
	top := int(t.shift / 8)
	ref := &t.root
	for d := 0; d < top; d++ {
		refs[d] = ref
		if ref = childRef[*header](*ref, byte(blk>>(8*(top-d)))); ref == nil {
			return false
		}
	}
	refs[top] = ref
	p := childRef[uint32](*ref, byte(blk))
	if p == nil {
		return false
	}

	if v := *p; v&valueBitmapFlag == 0 {
		t.numTIDs -= int64(embeddedCount(v))
	} else {
		w := t.arena.words(v &^ valueBitmapFlag)
		t.numTIDs -= int64(bitmapCount(w))
		t.arena.free(v&^valueBitmapFlag, len(w))
	}
	t.numBlocks--

	// Remove the slot bottom-up: a node whose only child goes away is freed
	// instead, and its own slot is removed from the parent.
	lvl := leaf
	for d := top; d >= 0; d-- {
		ref := refs[d]
		c := byte(blk >> (8 * (top - d)))
		if (*ref).count > 1 {
			if lvl == leaf {
				removeChild[uint32](t, leaf, ref, c)
			} else {
				removeChild[*header](t, inner, ref, c)
			}
			break
		}
		t.nodeBytes -= nodeSize[lvl][(*ref).kind]
		*ref = nil // for the root: the tree is empty now
		lvl = inner
	}

	if t.root == nil {
		// numBlocks is 0 now: drop the arena and its free lists as well.
		t.shift = 0
		t.arena = arena{}
		return true
	}
	t.collapseRoot()
	return true
}

// collapseRoot removes root levels whose node is a node4 with key byte 0 as
// its only child (only a node4 can have a single child), the inverse of the
// upward growth in valueRef.
func (t *RadixStore) collapseRoot() {
	for t.shift > 0 && t.root.kind == kind4 && t.root.count == 1 {
		n := (*node4[*header])(unsafe.Pointer(t.root))
		if n.keys[0] != 0 {
			return
		}
		t.nodeBytes -= nodeSize[inner][kind4]
		t.root = n.vals[0]
		t.shift -= 8
	}
}

// deleteSorted removes key c from the sorted keys/vals arrays of a node4 or
// node16 holding count entries, clearing the vacated last slot (so dropped
// child pointers do not keep nodes alive).
func deleteSorted[V slot](keys []byte, vals []V, count int, c byte) {
	i := 0
	for keys[i] != c {
		i++
	}
	copy(keys[i:count-1], keys[i+1:count])
	copy(vals[i:count-1], vals[i+1:count])
	var zero V
	keys[count-1] = 0
	vals[count-1] = zero
}

// removeChild removes key byte c, which must be present, from the node at
// *ref, which must have at least two children. A node that falls to its
// shrink threshold is replaced by a node of the next smaller kind (the
// reference is updated) and the store's node bytes adjusted.
func removeChild[V slot](t *RadixStore, lvl int, ref **header, c byte) {
	var zero V
	h := *ref
	switch h.kind {
	case kind4:
		n := (*node4[V])(unsafe.Pointer(h))
		deleteSorted(n.keys[:], n.vals[:], int(n.count), c)
		n.count--
	case kind16:
		n := (*node16[V])(unsafe.Pointer(h))
		deleteSorted(n.keys[:], n.vals[:], int(n.count), c)
		n.count--
		if n.count > shrink16 {
			return
		}
		s := &node4[V]{header: header{kind: kind4, count: n.count}}
		copy(s.keys[:], n.keys[:n.count])
		copy(s.vals[:], n.vals[:n.count])
		t.nodeBytes -= nodeSize[lvl][kind16] - nodeSize[lvl][kind4]
		*ref = &s.header
	case kind48:
		n := (*node48[V])(unsafe.Pointer(h))
		// Keep the slots dense (addChild appends at vals[count]): move the
		// last slot into the hole and repoint its key.
		hole := n.index[c] - 1
		n.index[c] = 0
		last := uint8(n.count - 1)
		if hole != last {
			n.vals[hole] = n.vals[last]
			for k := range n.index {
				if n.index[k] == last+1 {
					n.index[k] = hole + 1
					break
				}
			}
		}
		n.vals[last] = zero
		n.count--
		if n.count > shrink48 {
			return
		}
		s := &node16[V]{header: header{kind: kind16, count: n.count}}
		i := 0
		for k, sl := range n.index {
			if sl != 0 {
				s.keys[i] = byte(k)
				s.vals[i] = n.vals[sl-1]
				i++
			}
		}
		t.nodeBytes -= nodeSize[lvl][kind48] - nodeSize[lvl][kind16]
		*ref = &s.header
	case kind256:
		n := (*node256[V])(unsafe.Pointer(h))
		n.vals[c] = zero
		n.isset[c>>6] &^= 1 << (c & 63)
		n.count--
		if n.count > shrink256 {
			return
		}
		s := &node48[V]{header: header{kind: kind48, count: n.count}}
		i := 0
		for w, bitsw := range n.isset {
			for bitsw != 0 {
				k := w*64 + bits.TrailingZeros64(bitsw)
				bitsw &= bitsw - 1
				s.vals[i] = n.vals[k]
				i++
				s.index[k] = uint8(i)
			}
		}
		t.nodeBytes -= nodeSize[lvl][kind256] - nodeSize[lvl][kind48]
		*ref = &s.header
	}
}
