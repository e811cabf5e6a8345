package tidstore

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// nodeAs converts a node header pointer to its concrete node type.
func nodeAs[N any](h *header) *N { return (*N)(unsafe.Pointer(h)) }

func (m *model) del(blk BlockNumber) bool {
	offs, ok := m.blocks[blk]
	for _, o := range offs {
		delete(m.tids, key(blk, o))
	}
	delete(m.blocks, blk)
	return ok
}

// nodeBounds are the child counts a live node of each kind may have, given
// the grow and shrink thresholds.
var nodeBounds = [4][2]int{
	kind4:   {1, 4},
	kind16:  {shrink16 + 1, 16},
	kind48:  {shrink48 + 1, 48},
	kind256: {shrink256 + 1, 256},
}

// checkRadix verifies the radix tree's structure and accounting against its
// own contents: node layouts and child counts, minimal height, node bytes,
// block and TID counts, and that every arena word is in exactly one of a
// live bitmap, a free run, or the unused end of the last chunk.
func checkRadix(t *testing.T, r *RadixStore) {
	t.Helper()
	if r.root == nil {
		if r.numBlocks != 0 || r.numTIDs != 0 || r.nodeBytes != 0 || r.arena.bytes != 0 || r.arena.freeWords != 0 || r.MemoryUsage() != 0 || r.shift != 0 {
			t.Fatalf("empty tree: blocks %d TIDs %d node bytes %d arena bytes %d free words %d shift %d",
				r.numBlocks, r.numTIDs, r.nodeBytes, r.arena.bytes, r.arena.freeWords, r.shift)
		}
		return
	}
	// Mark arena words: 1 = live bitmap, 2 = free run, 3 = unused tail.
	marks := make([][]uint8, len(r.arena.chunks))
	for i, c := range r.arena.chunks {
		marks[i] = make([]uint8, len(c))
	}
	mark := func(idx uint32, n int, what uint8) {
		ch, w := idx>>arenaChunkShift, int(idx&arenaChunkMask)
		if int(ch) >= len(marks) || w+n > len(marks[ch]) {
			t.Fatalf("arena run %#x+%d out of range", idx, n)
		}
		for i := w; i < w+n; i++ {
			if marks[ch][i] != 0 {
				t.Fatalf("arena word %d of chunk %d used twice (%d and %d)", i, ch, marks[ch][i], what)
			}
			marks[ch][i] = what
		}
	}

	var blocks, tids, nodeBytes int64
	var visit func(h *header, shift uint)
	visit = func(h *header, shift uint) {
		lvl := inner
		if shift == 0 {
			lvl = leaf
		}
		nodeBytes += nodeSize[lvl][h.kind]
		cnt := int(h.count)
		if b := nodeBounds[h.kind]; cnt < b[0] || cnt > b[1] {
			t.Fatalf("node kind %d at shift %d has %d children, allowed %d..%d", h.kind, shift, cnt, b[0], b[1])
		}
		checkNodeLayout(t, h, lvl)
		n := 0
		prev := -1
		if lvl == inner {
			forEach(h, func(c byte, child *header) bool {
				if int(c) <= prev || child == nil {
					t.Fatalf("inner node: child %d after %d, nil %v", c, prev, child == nil)
				}
				prev = int(c)
				n++
				visit(child, shift-8)
				return true
			})
		} else {
			forEach(h, func(c byte, v uint32) bool {
				if int(c) <= prev || v == 0 {
					t.Fatalf("leaf node: key %d after %d, value %#x", c, prev, v)
				}
				prev = int(c)
				n++
				blocks++
				if v&valueBitmapFlag == 0 {
					tids += int64(embeddedCount(v))
				} else {
					w := r.arena.words(v &^ valueBitmapFlag)
					tids += int64(bitmapCount(w))
					mark(v&^valueBitmapFlag, len(w), 1)
				}
				return true
			})
		}
		if n != cnt {
			t.Fatalf("node kind %d: count %d, %d children", h.kind, cnt, n)
		}
	}
	visit(r.root, r.shift)
	if nodeBytes != r.nodeBytes || blocks != r.numBlocks || tids != r.numTIDs {
		t.Fatalf("accounted node bytes %d blocks %d TIDs %d; tree has %d, %d, %d", r.nodeBytes, r.numBlocks, r.numTIDs, nodeBytes, blocks, tids)
	}
	// Minimal height: some child of the root has a non-zero key byte.
	if r.shift > 0 {
		nonZero := false
		forEach(r.root, func(c byte, _ *header) bool { nonZero = c != 0; return !nonZero })
		if !nonZero {
			t.Fatalf("height %d is not minimal: the root's only child is key 0", r.Height())
		}
	}

	// Arena.
	var freeWords int64
	for n := 1; n <= maxBitmapWords; n++ {
		for next := r.arena.freeHead[n]; next != 0; {
			idx := next - 1
			w := r.arena.chunks[idx>>arenaChunkShift][idx&arenaChunkMask]
			if int(w&bitmapHdrMask)+1 != n {
				t.Fatalf("free run %#x on list %d says length %d", idx, n, w&bitmapHdrMask+1)
			}
			mark(idx, n, 2)
			freeWords += int64(n)
			next = uint32(w >> 32)
		}
	}
	if freeWords != r.arena.freeWords {
		t.Fatalf("free words accounted %d, on the lists %d", r.arena.freeWords, freeWords)
	}
	var chunkBytes int64
	for i, c := range r.arena.chunks {
		chunkBytes += int64(cap(c)) * 8
		if i == len(r.arena.chunks)-1 {
			mark(uint32(i)<<arenaChunkShift|uint32(r.arena.used), len(c)-r.arena.used, 3)
		}
	}
	for i, m := range marks {
		if j := slices.Index(m, 0); j >= 0 {
			t.Fatalf("arena word %d of chunk %d is neither live, free nor unused", j, i)
		}
	}
	if want := chunkBytes + int64(cap(r.arena.chunks))*sliceHeaderSize; r.arena.bytes != want {
		t.Fatalf("arena bytes accounted %d, chunks %d", r.arena.bytes, want)
	}
	if r.MemoryUsage() != nodeBytes+r.arena.bytes {
		t.Fatalf("MemoryUsage %d != nodes %d + arena %d", r.MemoryUsage(), nodeBytes, r.arena.bytes)
	}
}

// checkNodeLayout checks a node's internal consistency: sorted keys and
// cleared unused slots in node4/16, a dense slot array in node48, and a
// presence bitmap matching the non-zero slots in node256.
func checkNodeLayout(t *testing.T, h *header, lvl int) {
	t.Helper()
	if lvl == inner {
		checkLayout[*header](t, h)
	} else {
		checkLayout[uint32](t, h)
	}
}

func checkLayout[V slot](t *testing.T, h *header) {
	t.Helper()
	var zero V
	cnt := int(h.count)
	sortedKeys := func(keys []byte, vals []V) {
		for i := range keys {
			if i < cnt && (vals[i] == zero || (i > 0 && keys[i] <= keys[i-1])) {
				t.Fatalf("kind %d: bad key/slot %d", h.kind, i)
			}
			if i >= cnt && (vals[i] != zero || keys[i] != 0) {
				t.Fatalf("kind %d: unused slot %d not cleared", h.kind, i)
			}
		}
	}
	switch h.kind {
	case kind4:
		n := nodeAs[node4[V]](h)
		sortedKeys(n.keys[:], n.vals[:])
	case kind16:
		n := nodeAs[node16[V]](h)
		sortedKeys(n.keys[:], n.vals[:])
	case kind48:
		n := nodeAs[node48[V]](h)
		seen := make([]bool, 48)
		for _, s := range n.index {
			if s == 0 {
				continue
			}
			if int(s) > cnt || seen[s-1] {
				t.Fatalf("node48: slot %d out of range or shared (count %d)", s-1, cnt)
			}
			seen[s-1] = true
		}
		for i := range n.vals {
			if (i < cnt) != (n.vals[i] != zero) || (i < cnt && !seen[i]) {
				t.Fatalf("node48: slots not dense at %d (count %d)", i, cnt)
			}
		}
	case kind256:
		n := nodeAs[node256[V]](h)
		pop := 0
		for _, w := range n.isset {
			pop += bits.OnesCount64(w)
		}
		for c := range n.vals {
			if (n.isset[c>>6]>>(c&63)&1 != 0) != (n.vals[c] != zero) {
				t.Fatalf("node256: presence bit and slot disagree at %d", c)
			}
		}
		if pop != cnt {
			t.Fatalf("node256: %d bits set, count %d", pop, cnt)
		}
	}
}

// deleteOffsets returns a random offset set of one of the value forms:
// embedded, a short bitmap, a heap-page bitmap or a long (index AM) bitmap.
func deleteOffsets(rng *rand.Rand) []OffsetNumber {
	switch rng.IntN(5) {
	case 0, 1:
		return fewOffsets(rng, 1+rng.IntN(3), MaxHeapTuplesPerPage)
	case 2:
		return fewOffsets(rng, 4+rng.IntN(10), 13+rng.IntN(MaxHeapTuplesPerPage-12))
	case 3:
		return randomOffsets(rng, 1+rng.IntN(MaxHeapTuplesPerPage), rng.Float64())
	default:
		return fewOffsets(rng, 1+rng.IntN(40), MaxOffset)
	}
}

// TestDeleteAgainstModel runs random interleavings of SetBlockOffsets and
// DeleteBlock against the map model for both implementations, over block
// universes of different shapes, checking every DeleteBlock result and, at
// intervals, the whole store (and for the radix store its structure and
// accounting). Finally it deletes every block in random order: the stores
// must end up empty with MemoryUsage 0.
func TestDeleteAgainstModel(t *testing.T) {
	t.Parallel()
	universes := []struct {
		name string
		gen  func(rng *rand.Rand) []BlockNumber
	}{
		{"dense", func(rng *rand.Rand) []BlockNumber {
			start := BlockNumber(rng.IntN(1 << 20))
			u := make([]BlockNumber, 700)
			for i := range u {
				u[i] = start + BlockNumber(i)
			}
			return u
		}},
		{"one-leaf", func(rng *rand.Rand) []BlockNumber {
			// 256 blocks of a single leaf node: all kinds, grow and shrink.
			u := make([]BlockNumber, 256)
			for i := range u {
				u[i] = BlockNumber(i)
			}
			return u
		}},
		{"wide-keys", func(rng *rand.Rand) []BlockNumber {
			u := make([]BlockNumber, 600)
			for i := range u {
				u[i] = rng.Uint32() >> uint(rng.IntN(28))
			}
			return u
		}},
		{"inner-fanout", func(rng *rand.Rand) []BlockNumber {
			// Blocks i<<16 | j: the inner levels grow and shrink through
			// every kind too, and the height changes with block 0's subtree.
			var u []BlockNumber
			for i := range BlockNumber(256) {
				for j := range BlockNumber(1 + rng.IntN(3)) {
					u = append(u, i<<16|j*97)
				}
			}
			return u
		}},
	}
	for _, kind := range kinds {
		for ui, un := range universes {
			t.Run(kind+"/"+un.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(ui), 99))
				u := un.gen(rng)
				s := newStore(t, kind, 0)
				r, _ := s.(*RadixStore)
				m := newModel()
				verify := func() {
					t.Helper()
					check(t, s, m, rng)
					if r != nil {
						checkRadix(t, r)
					}
				}
				// Phases with different insert probabilities make the store
				// fill up, drain, and hover.
				step := 0
				for _, pInsert := range []float64{0.8, 0.5, 0.2, 0.6, 0.1, 0.5} {
					for range 600 {
						step++
						blk := u[rng.IntN(len(u))]
						if rng.IntN(20) == 0 {
							blk = rng.Uint32() // most likely absent
						}
						if rng.Float64() < pInsert {
							offs := deleteOffsets(rng)
							s.SetBlockOffsets(blk, offs)
							m.set(blk, offs)
						} else if got, want := s.DeleteBlock(blk), m.del(blk); got != want {
							t.Fatalf("step %d: DeleteBlock(%d) = %v, want %v", step, blk, got, want)
						}
						if int64(len(m.tids)) != s.NumTIDs() {
							t.Fatalf("step %d: NumTIDs %d, want %d", step, s.NumTIDs(), len(m.tids))
						}
						if step%150 == 0 {
							verify()
						}
					}
				}
				verify()

				// Delete everything in random order.
				left := make([]BlockNumber, 0, len(m.blocks))
				for b := range m.blocks {
					left = append(left, b)
				}
				slices.Sort(left)
				rng.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
				for i, b := range left {
					if !s.DeleteBlock(b) || s.DeleteBlock(b) {
						t.Fatalf("DeleteBlock(%d) twice: want true, then false", b)
					}
					m.del(b)
					if i%97 == 0 {
						verify()
					}
				}
				verify()
				if s.NumTIDs() != 0 || s.MemoryUsage() != 0 {
					t.Fatalf("after deleting everything: NumTIDs %d, MemoryUsage %d", s.NumTIDs(), s.MemoryUsage())
				}
				if r != nil && (r.Height() != 0 || r.NumBlocks() != 0) {
					t.Fatalf("after deleting everything: height %d, %d blocks", r.Height(), r.NumBlocks())
				}

				// The emptied store is as good as new.
				apply(s, m, scenarios[ui].gen(rng))
				verify()
			})
		}
	}
}

// TestDeleteKindsAgree applies the same random inserts and deletes to both
// kinds and compares them block by block.
func TestDeleteKindsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	r, a := NewRadix(0), NewArray(1<<20, 0)
	for range 4000 {
		blk := BlockNumber(rng.IntN(3000)) * BlockNumber(1+rng.IntN(50))
		if rng.IntN(3) > 0 {
			offs := deleteOffsets(rng)
			r.SetBlockOffsets(blk, offs)
			a.SetBlockOffsets(blk, offs)
		} else if r.DeleteBlock(blk) != a.DeleteBlock(blk) {
			t.Fatalf("DeleteBlock(%d) differs", blk)
		}
	}
	var rb, ab []uint64
	collect := func(out *[]uint64) func(BlockNumber, []OffsetNumber) bool {
		return func(b BlockNumber, offs []OffsetNumber) bool {
			for _, o := range offs {
				*out = append(*out, key(b, o))
			}
			return true
		}
	}
	r.Iterate(collect(&rb))
	a.Iterate(collect(&ab))
	if !slices.Equal(rb, ab) || r.NumTIDs() != a.NumTIDs() || a.MemoryUsage() != 6*a.NumTIDs() {
		t.Fatalf("radix (%d TIDs) and array (%d TIDs, %d B) differ after deletes", r.NumTIDs(), a.NumTIDs(), a.MemoryUsage())
	}
	checkRadix(t, r)
}

// kindFor is the node kind a node has while growing to n children.
func kindFor(n int) nodeKind {
	switch {
	case n <= 4:
		return kind4
	case n <= 16:
		return kind16
	case n <= 48:
		return kind48
	}
	return kind256
}

// shrunkKindFor is the node kind a node256 has after deleting down to n
// children.
func shrunkKindFor(n int) nodeKind {
	switch {
	case n > shrink256:
		return kind256
	case n > shrink48:
		return kind48
	case n > shrink16:
		return kind16
	}
	return kind4
}

// TestNodeShrink grows one node to 256 children, at the leaf level and at an
// inner level, then deletes them one by one: the node must become a node48
// at 36 children, a node16 at 12, a node4 at 3 and disappear with the last
// one, MemoryUsage must never rise and end at 0, and the height must shrink
// back when only block 0's subtree is left.
func TestNodeShrink(t *testing.T) {
	for _, level := range []struct {
		name   string
		blk    func(i int) BlockNumber
		height int
	}{
		{"leaf", func(i int) BlockNumber { return BlockNumber(i) }, 1},
		{"inner", func(i int) BlockNumber { return BlockNumber(i)<<16 | 5 }, 3},
	} {
		t.Run(level.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			s := NewRadix(0)
			m := newModel()
			for i := range 256 {
				offs := seq(1 + i%10)
				s.SetBlockOffsets(level.blk(i), offs)
				m.set(level.blk(i), offs)
				if s.root.kind != kindFor(i+1) {
					t.Fatalf("%d children: kind %d, want %d", i+1, s.root.kind, kindFor(i+1))
				}
			}
			checkRadix(t, s)
			kindsSeen := []nodeKind{s.root.kind}
			mem := s.MemoryUsage()
			// Delete from the top so that block 0 (key byte 0) goes last
			// but one: the inner tree collapses to height 1 when only it is
			// left.
			for i := 255; i >= 0; i-- {
				if !s.DeleteBlock(level.blk(i)) {
					t.Fatalf("DeleteBlock(%d) = false", level.blk(i))
				}
				m.del(level.blk(i))
				if s.MemoryUsage() > mem {
					t.Fatalf("MemoryUsage rose from %d to %d on a deletion", mem, s.MemoryUsage())
				}
				mem = s.MemoryUsage()
				checkRadix(t, s)
				switch {
				case i == 0:
					if s.root != nil || s.MemoryUsage() != 0 {
						t.Fatalf("empty: root %v, MemoryUsage %d", s.root, s.MemoryUsage())
					}
				case i == 1:
					if s.Height() != 1 {
						t.Fatalf("only block %d left: height %d, want 1", level.blk(0), s.Height())
					}
				default:
					if s.Height() != level.height || s.root.kind != shrunkKindFor(i) {
						t.Fatalf("%d children left: height %d kind %d, want height %d kind %d", i, s.Height(), s.root.kind, level.height, shrunkKindFor(i))
					}
					if k := s.root.kind; k != kindsSeen[len(kindsSeen)-1] {
						kindsSeen = append(kindsSeen, k)
					}
				}
				if i%16 == 0 {
					check(t, s, m, rng)
				}
			}
			if !slices.Equal(kindsSeen, []nodeKind{kind256, kind48, kind16, kind4}) {
				t.Fatalf("kinds while shrinking: %v", kindsSeen)
			}
		})
	}
}

// TestShrinkHysteresis alternates deleting and re-inserting one block at
// every grow threshold (a node that just grew) and every shrink threshold (a
// node that just shrank): the node must keep its kind and nothing may be
// allocated.
func TestShrinkHysteresis(t *testing.T) {
	for _, c := range []struct {
		grow     bool // start by growing to n children, else by shrinking from 256 down to n
		n        int
		kindHigh nodeKind // kind with n children
	}{
		{true, 5, kind16}, {true, 17, kind48}, {true, 49, kind256},
		{false, 36, kind48}, {false, 12, kind16}, {false, 3, kind4},
	} {
		s := NewRadix(0)
		offs := []OffsetNumber{7}
		total := c.n
		if !c.grow {
			total = 256
		}
		for b := range BlockNumber(total) {
			s.SetBlockOffsets(b, offs)
		}
		for b := BlockNumber(total - 1); b >= BlockNumber(c.n); b-- {
			s.DeleteBlock(b)
		}
		if s.root.kind != c.kindHigh {
			t.Fatalf("%d children: kind %d, want %d", c.n, s.root.kind, c.kindHigh)
		}
		mem := s.MemoryUsage()
		blk := BlockNumber(c.n - 1)
		if !c.grow {
			blk = BlockNumber(c.n) // insert first, then delete
		}
		allocs := testing.AllocsPerRun(200, func() {
			if c.grow {
				s.DeleteBlock(blk)
				s.SetBlockOffsets(blk, offs)
			} else {
				s.SetBlockOffsets(blk, offs)
				s.DeleteBlock(blk)
			}
		})
		if allocs != 0 || s.root.kind != c.kindHigh || s.MemoryUsage() != mem {
			t.Fatalf("alternating at %d children (grow %v): %.1f allocs per round, kind %d (want %d), MemoryUsage %d (was %d)",
				c.n, c.grow, allocs, s.root.kind, c.kindHigh, s.MemoryUsage(), mem)
		}
		checkRadix(t, s)
	}
}

// TestDeleteArenaReuse checks that bitmap words of deleted and replaced
// blocks are reused: deleting half of the dense pattern's blocks and adding
// as many new ones does not grow the arena, and replacing bitmaps by shorter
// bitmaps or embedded values puts the freed words on the free lists.
func TestDeleteArenaReuse(t *testing.T) {
	const rows = 200_000
	blocks, _ := patternBlockList(rows, deadPatterns[0].dead)
	s := NewRadix(0)
	for _, b := range blocks {
		s.SetBlockOffsets(b.blk, b.offs)
	}
	arenaBytes := s.arena.bytes
	for i, b := range blocks {
		if i%2 == 0 {
			s.DeleteBlock(b.blk)
		}
	}
	checkRadix(t, s)
	if s.ArenaFreeBytes() == 0 || s.arena.bytes != arenaBytes {
		t.Fatalf("after deleting half: free %d B, arena %d B (was %d)", s.ArenaFreeBytes(), s.arena.bytes, arenaBytes)
	}
	// The same bitmaps again, under new block numbers.
	for i, b := range blocks {
		if i%2 == 0 {
			s.SetBlockOffsets(b.blk+1<<20, b.offs)
		}
	}
	checkRadix(t, s)
	if s.arena.bytes != arenaBytes || s.ArenaFreeBytes() != 0 {
		t.Fatalf("after re-adding: arena %d B (was %d), free %d B", s.arena.bytes, arenaBytes, s.ArenaFreeBytes())
	}

	// Replacing: a 4-word bitmap by a 1-word one frees 3 words, by an
	// embedded value all 4.
	s.Reset()
	s.SetBlockOffsets(1, seq(200))
	s.SetBlockOffsets(2, seq(200))
	s.SetBlockOffsets(1, seq(20))
	if s.ArenaFreeBytes() != 3*8 {
		t.Fatalf("shortened bitmap: free %d B, want 24", s.ArenaFreeBytes())
	}
	s.SetBlockOffsets(1, []OffsetNumber{1, 2})
	if s.ArenaFreeBytes() != 4*8 {
		t.Fatalf("bitmap replaced by an embedded value: free %d B, want 32", s.ArenaFreeBytes())
	}
	s.SetBlockOffsets(3, seq(100)) // 2 words from the 3-word run, 1 left
	checkRadix(t, s)
	if s.ArenaFreeBytes() != 2*8 || !s.IsMember(3, 100) || s.IsMember(1, 3) {
		t.Fatalf("reuse: free %d B, want 16", s.ArenaFreeBytes())
	}
	// Deleting the last bitmap of the bump region moves the bump pointer
	// back instead of growing a free list.
	used := s.arena.used
	s.SetBlockOffsets(4, seq(291))
	s.DeleteBlock(4)
	if s.arena.used != used {
		t.Fatalf("bump pointer %d, want %d", s.arena.used, used)
	}
	checkRadix(t, s)
}

// BenchmarkDeleteBlock measures one DeleteBlock call on a store holding the
// N = 10 M row pattern, deleting its blocks in heap order ("seq") or in a
// scattered order ("random"); when all are gone the store is refilled with
// the timer stopped. ns/TID divides by the pattern's dead TIDs per block.
func BenchmarkDeleteBlock(b *testing.B) {
	for _, p := range benchPatterns {
		blocks, tids := patternBlockList(benchRows, p.dead)
		for _, kind := range kinds {
			for _, order := range []string{"seq", "random"} {
				b.Run(kind+"/"+p.name+"/"+order, func(b *testing.B) {
					var s Store
					if kind == KindArray {
						s = NewArray(1<<30, tableTIDs(benchRows))
					} else {
						s = NewRadix(1 << 30)
					}
					perm := make([]int, len(blocks))
					for i := range perm {
						perm[i] = i
					}
					if order == "random" {
						rand.New(rand.NewPCG(1, 2)).Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
					}
					fill := func() {
						for _, bl := range blocks {
							s.SetBlockOffsets(bl.blk, bl.offs)
						}
					}
					fill()
					i := 0
					for b.Loop() {
						if i == len(perm) {
							b.StopTimer()
							fill()
							i = 0
							b.StartTimer()
						}
						if !s.DeleteBlock(blocks[perm[i]].blk) {
							b.Fatal("block not found")
						}
						i++
					}
					perBlock := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(perBlock*float64(len(blocks))/float64(tids), "ns/TID")
				})
			}
		}
	}
}
