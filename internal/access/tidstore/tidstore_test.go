package tidstore

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// op is one SetBlockOffsets call.
type op struct {
	blk  BlockNumber
	offs []OffsetNumber
}

// model is the reference: the set of TIDs as map[uint64]bool (blk<<16|off),
// plus each block's current offsets so a replacing SetBlockOffsets can drop
// the old ones.
type model struct {
	tids   map[uint64]bool
	blocks map[BlockNumber][]OffsetNumber
}

func newModel() *model {
	return &model{tids: map[uint64]bool{}, blocks: map[BlockNumber][]OffsetNumber{}}
}

func key(blk BlockNumber, off OffsetNumber) uint64 { return uint64(blk)<<16 | uint64(off) }

func (m *model) set(blk BlockNumber, offs []OffsetNumber) {
	for _, o := range m.blocks[blk] {
		delete(m.tids, key(blk, o))
	}
	m.blocks[blk] = slices.Clone(offs)
	for _, o := range offs {
		m.tids[key(blk, o)] = true
	}
}

// randomOffsets returns a sorted non-empty subset of 1..maxOff where each
// offset is present with probability p (at least one offset).
func randomOffsets(rng *rand.Rand, maxOff int, p float64) []OffsetNumber {
	var offs []OffsetNumber
	for o := 1; o <= maxOff; o++ {
		if rng.Float64() < p {
			offs = append(offs, OffsetNumber(o))
		}
	}
	if len(offs) == 0 {
		offs = append(offs, OffsetNumber(1+rng.IntN(maxOff)))
	}
	return offs
}

// fewOffsets returns n distinct sorted offsets in 1..maxOff.
func fewOffsets(rng *rand.Rand, n, maxOff int) []OffsetNumber {
	set := map[OffsetNumber]bool{}
	for len(set) < n {
		set[OffsetNumber(1+rng.IntN(maxOff))] = true
	}
	offs := make([]OffsetNumber, 0, n)
	for o := range set {
		offs = append(offs, o)
	}
	slices.Sort(offs)
	return offs
}

func seq(n int) []OffsetNumber {
	offs := make([]OffsetNumber, n)
	for i := range offs {
		offs[i] = OffsetNumber(i + 1)
	}
	return offs
}

type scenario struct {
	name string
	gen  func(rng *rand.Rand) []op
}

var scenarios = []scenario{
	{"dense", func(rng *rand.Rand) []op {
		var ops []op
		start := BlockNumber(rng.IntN(1 << 20))
		for b := range BlockNumber(1500) {
			ops = append(ops, op{start + b, randomOffsets(rng, 1+rng.IntN(MaxHeapTuplesPerPage), 0.9)})
		}
		return ops
	}},
	{"sparse", func(rng *rand.Rand) []op {
		var ops []op
		blk := BlockNumber(rng.IntN(100))
		for range 3000 {
			ops = append(ops, op{blk, fewOffsets(rng, 1+rng.IntN(3), MaxHeapTuplesPerPage)})
			blk += BlockNumber(1 + rng.IntN(1000))
		}
		return ops
	}},
	{"clustered", func(rng *rand.Rand) []op {
		var ops []op
		blk := BlockNumber(0)
		for range 20 {
			p := rng.Float64()
			for range 1 + rng.IntN(300) {
				ops = append(ops, op{blk, randomOffsets(rng, 1+rng.IntN(MaxHeapTuplesPerPage), p)})
				blk++
			}
			blk += BlockNumber(rng.IntN(1 << 24))
		}
		return ops
	}},
	{"gaps", func(rng *rand.Rand) []op {
		var ops []op
		for _, b := range []BlockNumber{0, 1, 255, 256, 257, 65535, 65536, 1<<24 - 1, 1 << 24, 0x7FFFFFFF, 0xFFFFFF00, 0xFFFFFFFE} {
			ops = append(ops, op{b, fewOffsets(rng, 1+rng.IntN(6), MaxHeapTuplesPerPage)})
		}
		return ops
	}},
	{"wide-keys", func(rng *rand.Rand) []op {
		// Random blocks over the whole 32-bit space: every inner level sees
		// many distinct key bytes, so all node kinds appear.
		set := map[BlockNumber]bool{}
		for len(set) < 8000 {
			set[rng.Uint32()>>uint(rng.IntN(24))] = true
		}
		blks := make([]BlockNumber, 0, len(set))
		for b := range set {
			blks = append(blks, b)
		}
		slices.Sort(blks)
		ops := make([]op, len(blks))
		for i, b := range blks {
			ops[i] = op{b, fewOffsets(rng, 1+rng.IntN(8), MaxHeapTuplesPerPage)}
		}
		return ops
	}},
	{"big-offsets", func(rng *rand.Rand) []op {
		// Offsets above MaxHeapTuplesPerPage (index AMs), including a
		// block with <= 3 offsets above the embeddable limit.
		return []op{
			{1, []OffsetNumber{1024}},
			{2, []OffsetNumber{1, 1023}},
			{3, []OffsetNumber{5, 700, 2048}},
			{4, fewOffsets(rng, 100, MaxOffset)},
			{5, seq(MaxOffset)},
			{6, []OffsetNumber{MaxOffset}},
			{7, []OffsetNumber{63, 64, 65, 127, 128, 129}},
		}
	}},
	{"replace", func(rng *rand.Rand) []op {
		// Repeated blocks switch between embedded and bitmap forms and
		// between bitmap sizes; later blocks also come out of order.
		return []op{
			{10, []OffsetNumber{3}},
			{11, seq(200)},
			{10, seq(50)},
			{10, []OffsetNumber{1, 2}},
			{11, []OffsetNumber{7, 8, 9, 10}},
			{11, seq(291)},
			{12, []OffsetNumber{4, 5, 6, 291}},
			{12, []OffsetNumber{9}},
			{5, []OffsetNumber{1, 2, 3}},
			{11, []OffsetNumber{17}},
			{0, seq(4)},
			{70000, seq(3)},
			{300, fewOffsets(rng, 30, MaxHeapTuplesPerPage)},
			{70000, seq(100)},
		}
	}},
	{"shuffled", func(rng *rand.Rand) []op {
		var ops []op
		for b := range BlockNumber(2000) {
			if rng.IntN(3) > 0 {
				ops = append(ops, op{b * 37, randomOffsets(rng, MaxHeapTuplesPerPage, rng.Float64()*0.3)})
			}
		}
		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		return ops
	}},
}

func init() {
	singles := []BlockNumber{0, 1, 255, 256, 65536, 1 << 24, 0xFFFFFFFE}
	for _, n := range []int{1, 2, 3, 4, MaxHeapTuplesPerPage} {
		for _, b := range singles {
			scenarios = append(scenarios, scenario{
				name: "single-" + itoa(n) + "-offsets-block-" + itoa(int(b)),
				gen: func(rng *rand.Rand) []op {
					return []op{{b, fewOffsets(rng, n, MaxHeapTuplesPerPage)}}
				},
			})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// check compares the store with the model in every way the API allows.
func check(t *testing.T, s Store, m *model, rng *rand.Rand) {
	t.Helper()
	if got, want := s.NumTIDs(), int64(len(m.tids)); got != want {
		t.Fatalf("NumTIDs = %d, want %d", got, want)
	}

	// Iterate: block order and exact contents.
	wantBlks := make([]BlockNumber, 0, len(m.blocks))
	for b := range m.blocks {
		wantBlks = append(wantBlks, b)
	}
	slices.Sort(wantBlks)
	i := 0
	s.Iterate(func(blk BlockNumber, offs []OffsetNumber) bool {
		if i >= len(wantBlks) {
			t.Fatalf("Iterate: extra block %d", blk)
		}
		if blk != wantBlks[i] {
			t.Fatalf("Iterate: block #%d = %d, want %d", i, blk, wantBlks[i])
		}
		if !slices.Equal(offs, m.blocks[blk]) {
			t.Fatalf("Iterate: block %d offsets = %v, want %v", blk, offs, m.blocks[blk])
		}
		i++
		return true
	})
	if i != len(wantBlks) {
		t.Fatalf("Iterate visited %d blocks, want %d", i, len(wantBlks))
	}
	if len(wantBlks) >= 2 {
		calls := 0
		s.Iterate(func(BlockNumber, []OffsetNumber) bool { calls++; return calls < 2 })
		if calls != 2 {
			t.Fatalf("Iterate did not stop when fn returned false (%d calls)", calls)
		}
	}

	// IsMember: every present TID, and absent TIDs around them.
	probe := func(blk BlockNumber, off OffsetNumber) {
		if got, want := s.IsMember(blk, off), m.tids[key(blk, off)]; got != want {
			t.Fatalf("IsMember%s = %v, want %v", tidString(blk, off), got, want)
		}
	}
	for k := range m.tids {
		if !s.IsMember(BlockNumber(k>>16), OffsetNumber(k)) {
			t.Fatalf("IsMember%s = false for a stored TID", tidString(BlockNumber(k>>16), OffsetNumber(k)))
		}
	}
	// Neighbourhood probes around (a sample of at most 400) stored blocks.
	sample := wantBlks
	if len(sample) > 400 {
		sample = make([]BlockNumber, 400)
		for i := range sample {
			sample[i] = wantBlks[rng.IntN(len(wantBlks))]
		}
	}
	for _, b := range sample {
		offs := m.blocks[b]
		last := offs[len(offs)-1]
		for _, off := range []OffsetNumber{0, 1, 2, 3, 63, 64, 65, last - 1, last + 1, last + 64, MaxHeapTuplesPerPage, 1023, 1024, MaxOffset, MaxOffset + 1, 0xFFFF, OffsetNumber(1 + rng.IntN(MaxOffset))} {
			probe(b, off)
			probe(b+1, off)
			probe(b-1, off)
			probe(b^0x100, off)
			probe(b^0x10000, off)
		}
	}
	for range 2000 {
		probe(rng.Uint32(), OffsetNumber(rng.IntN(MaxOffset+2)))
	}
	for _, b := range []BlockNumber{0, 1, 0xFFFFFFFE, 0xFFFFFFFF} {
		probe(b, 1)
	}
}

func apply(s Store, m *model, ops []op) {
	for _, o := range ops {
		s.SetBlockOffsets(o.blk, o.offs)
		m.set(o.blk, o.offs)
	}
}

// TestAgainstModel runs every scenario against both implementations, then
// Resets the store and reuses it for another scenario.
func TestAgainstModel(t *testing.T) {
	t.Parallel()
	for _, kind := range kinds {
		for si, sc := range scenarios {
			t.Run(kind+"/"+sc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(si), 42))
				s := newStore(t, kind, 0)
				m := newModel()
				apply(s, m, sc.gen(rng))
				check(t, s, m, rng)
				if s.MemoryUsage() <= 0 {
					t.Fatalf("MemoryUsage = %d for a non-empty store", s.MemoryUsage())
				}

				s.Reset()
				if s.NumTIDs() != 0 || s.MemoryUsage() != 0 {
					t.Fatalf("after Reset: NumTIDs = %d, MemoryUsage = %d", s.NumTIDs(), s.MemoryUsage())
				}
				check(t, s, newModel(), rng)

				// Reuse with the next scenario.
				next := scenarios[(si+1)%len(scenarios)]
				m = newModel()
				apply(s, m, next.gen(rng))
				check(t, s, m, rng)
			})
		}
	}
}

// TestKindsAgree builds the same random stores with both kinds and compares
// them TID by TID and block by block.
func TestKindsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 5 {
		var ops []op
		blk := BlockNumber(rng.IntN(1000))
		for range 2000 {
			switch rng.IntN(3) {
			case 0:
				ops = append(ops, op{blk, fewOffsets(rng, 1+rng.IntN(3), MaxHeapTuplesPerPage)})
			case 1:
				ops = append(ops, op{blk, randomOffsets(rng, MaxHeapTuplesPerPage, rng.Float64())})
			}
			blk += BlockNumber(1 + rng.IntN(1<<(2*round+1)))
		}
		r := newStore(t, KindRadix, 0)
		a := newStore(t, KindArray, 0)
		for _, o := range ops {
			r.SetBlockOffsets(o.blk, o.offs)
			a.SetBlockOffsets(o.blk, o.offs)
		}
		type blockOffs struct {
			blk  BlockNumber
			offs []OffsetNumber
		}
		collect := func(s Store) (out []blockOffs) {
			s.Iterate(func(b BlockNumber, o []OffsetNumber) bool {
				out = append(out, blockOffs{b, slices.Clone(o)})
				return true
			})
			return out
		}
		rb, ab := collect(r), collect(a)
		if !slices.EqualFunc(rb, ab, func(x, y blockOffs) bool { return x.blk == y.blk && slices.Equal(x.offs, y.offs) }) {
			t.Fatalf("round %d: radix and array iterate differently", round)
		}
		if r.NumTIDs() != a.NumTIDs() {
			t.Fatalf("round %d: NumTIDs radix %d array %d", round, r.NumTIDs(), a.NumTIDs())
		}
		for range 20000 {
			b := BlockNumber(rng.IntN(int(blk) + 10))
			o := OffsetNumber(rng.IntN(MaxHeapTuplesPerPage + 2))
			if r.IsMember(b, o) != a.IsMember(b, o) {
				t.Fatalf("round %d: IsMember%s radix %v array %v", round, tidString(b, o), r.IsMember(b, o), a.IsMember(b, o))
			}
		}
	}
}

// nodeCensus counts the radix tree's nodes per level kind (inner/leaf) and
// node kind.
func nodeCensus(t *RadixStore) (census [2][4]int, bytes int64) {
	var visit func(h *header, shift uint)
	visit = func(h *header, shift uint) {
		lvl := inner
		if shift == 0 {
			lvl = leaf
		}
		census[lvl][h.kind]++
		bytes += nodeSize[lvl][h.kind]
		if shift > 0 {
			forEach(h, func(_ byte, c *header) bool { visit(c, shift-8); return true })
		}
	}
	if t.root != nil {
		visit(t.root, t.shift)
	}
	return census, bytes
}

// TestNodeGrowth checks that nodes grow through kinds 4, 16, 48 and 256 at
// the leaf level and at inner levels, and that the tree height follows the
// largest key.
func TestNodeGrowth(t *testing.T) {
	for _, c := range []struct {
		children int
		kind     nodeKind
	}{{1, kind4}, {4, kind4}, {5, kind16}, {16, kind16}, {17, kind48}, {48, kind48}, {49, kind256}, {256, kind256}} {
		// Leaf level: blocks 0..children-1 share one leaf node.
		s := NewRadix(0)
		m := newModel()
		for b := range BlockNumber(c.children) {
			o := []OffsetNumber{OffsetNumber(b%7 + 1)}
			s.SetBlockOffsets(b, o)
			m.set(b, o)
		}
		if s.Height() != 1 || s.root.kind != c.kind {
			t.Fatalf("%d leaf children: height %d kind %d, want height 1 kind %d", c.children, s.Height(), s.root.kind, c.kind)
		}
		check(t, s, m, rand.New(rand.NewPCG(1, 2)))

		// Inner level: blocks i<<16 give the root (third level) that many
		// children.
		s = NewRadix(0)
		m = newModel()
		for i := range BlockNumber(c.children) {
			s.SetBlockOffsets(i<<16|5, seq(10))
			m.set(i<<16|5, seq(10))
		}
		wantHeight := 3
		if c.children == 1 {
			wantHeight = 1 // only block 5
		}
		if s.Height() != wantHeight || s.root.kind != c.kind {
			t.Fatalf("%d inner children: height %d kind %d, want height %d kind %d", c.children, s.Height(), s.root.kind, wantHeight, c.kind)
		}
		census, bytes := nodeCensus(s)
		if s.nodeBytes != bytes {
			t.Fatalf("node bytes accounted %d, census %d (%v)", s.nodeBytes, bytes, census)
		}
		check(t, s, m, rand.New(rand.NewPCG(3, 4)))
	}

	// Height grows with the largest key: 1 level up to block 255, 4 for
	// blocks >= 1<<24; old keys stay reachable.
	s := NewRadix(0)
	for i, b := range []BlockNumber{7, 255, 256, 65535, 65536, 1<<24 - 1, 1 << 24, 0xFFFFFFFE} {
		s.SetBlockOffsets(b, []OffsetNumber{1})
		want := []int{1, 1, 2, 2, 3, 3, 4, 4}[i]
		if s.Height() != want {
			t.Fatalf("after block %d: height %d, want %d", b, s.Height(), want)
		}
	}
	for _, b := range []BlockNumber{7, 255, 256, 65535, 65536, 1<<24 - 1, 1 << 24, 0xFFFFFFFE} {
		if !s.IsMember(b, 1) {
			t.Fatalf("block %d lost after the tree grew", b)
		}
	}
}

// TestNodeAccounting checks on a large random tree that MemoryUsage is the
// sum of the live nodes' sizes plus the arena.
func TestNodeAccounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := NewRadix(0)
	for _, sc := range scenarios[:5] {
		for _, o := range sc.gen(rng) {
			s.SetBlockOffsets(o.blk, o.offs)
		}
	}
	census, bytes := nodeCensus(s)
	if s.nodeBytes != bytes {
		t.Fatalf("node bytes accounted %d, census %d", s.nodeBytes, bytes)
	}
	var arenaBytes int64
	for _, c := range s.arena.chunks {
		arenaBytes += int64(cap(c)) * 8
	}
	arenaBytes += int64(cap(s.arena.chunks)) * sliceHeaderSize
	if s.arena.bytes != arenaBytes || s.MemoryUsage() != bytes+arenaBytes {
		t.Fatalf("arena bytes accounted %d, real %d; MemoryUsage %d", s.arena.bytes, arenaBytes, s.MemoryUsage())
	}
	for lvl := range 2 {
		for k := range 4 {
			if census[lvl][k] == 0 {
				t.Errorf("no node of level %d kind %d in the random tree: %v", lvl, k, census)
			}
		}
	}
	t.Logf("node census [inner|leaf][4,16,48,256] = %v, node bytes %d, arena bytes %d", census, bytes, arenaBytes)
}

// TestConcurrentIsMember has many goroutines probe a finished store at once
// (the parallel index-vacuum pattern); run it under -race.
func TestConcurrentIsMember(t *testing.T) {
	t.Parallel()
	const rows = 100_000
	for _, p := range deadPatterns {
		for _, kind := range kinds {
			t.Run(kind+"/"+p.name, func(t *testing.T) {
				s := newStore(t, kind, tableTIDs(rows))
				buildPattern(s, rows, p.dead)
				var wg sync.WaitGroup
				errs := make(chan string, 16)
				for g := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						// Each worker walks the index in its own order.
						for i := range int64(rows) {
							id := (i*int64(2*g+1) + int64(g)*7919) % rows
							id++
							blk := BlockNumber((id - 1) / tuplesPerPage)
							off := OffsetNumber((id-1)%tuplesPerPage + 1)
							if s.IsMember(blk, off) != p.dead(id) {
								errs <- "IsMember" + tidString(blk, off) + " wrong"
								return
							}
						}
						var n int64
						s.Iterate(func(_ BlockNumber, offs []OffsetNumber) bool { n += int64(len(offs)); return true })
						if n != s.NumTIDs() {
							errs <- "concurrent Iterate saw a different count"
						}
					}()
				}
				wg.Wait()
				close(errs)
				for e := range errs {
					t.Fatal(e)
				}
			})
		}
	}
}

func TestNew(t *testing.T) {
	for _, c := range []struct {
		kind string
		want string
	}{{"", "*tidstore.RadixStore"}, {"radix", "*tidstore.RadixStore"}, {"array", "*tidstore.ArrayStore"}} {
		s, err := New(c.kind, 64<<20)
		if err != nil {
			t.Fatalf("New(%q): %v", c.kind, err)
		}
		if got := typeName(s); got != c.want {
			t.Fatalf("New(%q) = %s, want %s", c.kind, got, c.want)
		}
	}
	if _, err := New("btree", 1<<20); err == nil || !strings.Contains(err.Error(), "btree") {
		t.Fatalf("New(btree) error = %v", err)
	}
}

func typeName(s Store) string {
	switch s.(type) {
	case *RadixStore:
		return "*tidstore.RadixStore"
	case *ArrayStore:
		return "*tidstore.ArrayStore"
	}
	return "?"
}

func TestInvalidOffsetsPanic(t *testing.T) {
	for _, kind := range kinds {
		for _, offs := range [][]OffsetNumber{nil, {}, {0}, {0, 1}, {2, 1}, {3, 3}, {MaxOffset + 1}, {1, MaxOffset + 1}} {
			s := newStore(t, kind, 0)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: SetBlockOffsets(%v) did not panic", kind, offs)
					}
				}()
				s.SetBlockOffsets(1, offs)
			}()
			if s.NumTIDs() != 0 {
				t.Errorf("%s: rejected SetBlockOffsets(%v) changed the store", kind, offs)
			}
		}
	}
}
