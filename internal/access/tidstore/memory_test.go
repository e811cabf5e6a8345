package tidstore

import (
	"runtime"
	"sync"
	"testing"
)

// benchRows is N of the measurement: 10,000,000 rows, 44,248 blocks.
const benchRows = 10_000_000

// TestBytesPerTID asserts the memory goals on the three patterns at
// N = 10,000,000 rows (the numbers are deterministic): the radix store must
// use at most PostgreSQL 17's measured bytes per dead TID on the dense and
// 40 % patterns and at most 6.0 on the sparse one, and the array exactly 6.
// It also logs the bytes/TID table and, for the radix store, the Go heap
// growth measured by the runtime next to MemoryUsage.
func TestBytesPerTID(t *testing.T) {
	for _, p := range deadPatterns {
		t.Run(p.name, func(t *testing.T) {
			r := NewRadix(1 << 30)
			before := heapAlloc()
			buildPattern(r, benchRows, p.dead)
			after := heapAlloc()
			n := r.NumTIDs()
			radixBPT := float64(r.MemoryUsage()) / float64(n)
			census, _ := nodeCensus(r)
			ab := allocatorBytes(r)
			t.Logf("%-6s radix: %9d TIDs in %6d blocks, MemoryUsage %9d B = %.3f B/TID (PG17 %.3f), %.1f B/block; rounded to Go size classes %d B = %.3f B/TID; Go heap growth (runtime, noisy) %d B; height %d, nodes [inner|leaf][4,16,48,256] %v",
				p.name, n, r.NumBlocks(), r.MemoryUsage(), radixBPT, p.pg17BytesPerTID,
				float64(r.MemoryUsage())/float64(r.NumBlocks()), ab, float64(ab)/float64(n), after-before, r.Height(), census)
			if radixBPT > p.goalBytesPerTID {
				t.Errorf("%s: radix uses %.3f bytes per dead TID, goal <= %.3f", p.name, radixBPT, p.goalBytesPerTID)
			}
			if float64(ab)/float64(n) > p.goalBytesPerTID {
				t.Errorf("%s: radix uses %.3f bytes per dead TID after Go size-class rounding, goal <= %.3f", p.name, float64(ab)/float64(n), p.goalBytesPerTID)
			}
			runtime.KeepAlive(r)

			a := NewArray(1<<30, tableTIDs(benchRows))
			buildPattern(a, benchRows, p.dead)
			if a.NumTIDs() != n {
				t.Fatalf("array holds %d TIDs, radix %d", a.NumTIDs(), n)
			}
			if a.MemoryUsage() != 6*n {
				t.Errorf("array MemoryUsage = %d, want exactly 6 * %d", a.MemoryUsage(), n)
			}
			t.Logf("%-6s array: %9d TIDs, MemoryUsage %9d B = %.3f B/TID; preallocated %d slots = %d B (%.3f B/TID)",
				p.name, n, a.MemoryUsage(), float64(a.MemoryUsage())/float64(n), a.MaxItems(), a.AllocatedBytes(),
				float64(a.AllocatedBytes())/float64(n))
		})
	}
}

// goSizeClasses are the Go allocator's small-object size classes
// (runtime/sizeclasses.go); larger objects are rounded up to 8 KiB pages.
var goSizeClasses = []int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

func goAllocSize(n int64) int64 {
	for _, c := range goSizeClasses {
		if n <= c {
			return c
		}
	}
	return (n + 8191) &^ 8191
}

// allocatorBytes is MemoryUsage with every node and arena chunk rounded up
// to the size the Go allocator really hands out.
func allocatorBytes(r *RadixStore) int64 {
	census, _ := nodeCensus(r)
	var n int64
	for lvl := range 2 {
		for k := range 4 {
			n += int64(census[lvl][k]) * goAllocSize(nodeSize[lvl][k])
		}
	}
	for _, c := range r.arena.chunks {
		n += goAllocSize(int64(cap(c)) * 8)
	}
	return n + goAllocSize(int64(cap(r.arena.chunks))*sliceHeaderSize)
}

// TestBytesPerTIDScattered logs the radix store's weak spot, which
// PostgreSQL 17 shares: one dead TID on every 300th block, so every
// leaf-level node holds a single block (no assertion beyond sanity).
func TestBytesPerTIDScattered(t *testing.T) {
	r := NewRadix(1 << 30)
	for b := BlockNumber(0); b < 3_000_000; b += 300 {
		r.SetBlockOffsets(b, []OffsetNumber{7})
	}
	bpt := float64(r.MemoryUsage()) / float64(r.NumTIDs())
	t.Logf("scattered radix: %d TIDs, MemoryUsage %d B = %.2f B/TID (array: 6)", r.NumTIDs(), r.MemoryUsage(), bpt)
	if bpt > 64 {
		t.Errorf("scattered: %.2f B/TID", bpt)
	}
}

func heapAlloc() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// baselineBlocks returns the dense pattern's blocks on the baseline
// measurement's table (20 M rows), computed once.
var baselineBlocks = sync.OnceValue(func() []benchBlock {
	blocks, _ := patternBlockList(20_000_000, deadPatterns[0].dead)
	return blocks
})

// passes simulates lazy VACUUM's first heap pass over an N-row table: before
// each heap block it asks IsFull and, if so, runs an "index pass" (records
// the number of TIDs) and Resets the store.
func passes(s Store, blocks []benchBlock, maxBytes int64) (tidsPerPass []int64, bytesAtPass []int64) {
	pass := func() {
		tidsPerPass = append(tidsPerPass, s.NumTIDs())
		bytesAtPass = append(bytesAtPass, s.MemoryUsage())
		s.Reset()
	}
	for _, b := range blocks {
		if IsFull(s, maxBytes) {
			pass()
		}
		s.SetBlockOffsets(b.blk, b.offs)
	}
	if s.NumTIDs() > 0 {
		pass()
	}
	return tidsPerPass, bytesAtPass
}

// TestIsFullArrayMatchesPG15 replays the baseline measurement (20 M rows,
// dense pattern, 88,496 blocks) and checks that the array store triggers
// index passes exactly where PostgreSQL 15 did.
func TestIsFullArrayMatchesPG15(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("20 M rows; skipped in -short mode and under the race detector")
	}
	t.Parallel()
	const relPages = 88_496
	blocks := baselineBlocks()
	if len(blocks) != relPages {
		t.Fatalf("%d blocks, the baseline table has %d", len(blocks), relPages)
	}
	for _, c := range []struct {
		mwm        int64
		maxItems   int64
		passes     int
		firstPass  int64
		secondPass int64
	}{
		{1 << 30, 25_752_336, 1, 18_000_000, 0},
		{64 << 20, 11_184_809, 2, 11_184_560, 6_815_440},
		{2 << 20, 349_524, 52, 349_238, 0},
		{1 << 20, 174_761, 104, 174_518, 0},
	} {
		a := NewArray(c.mwm, relPages*MaxHeapTuplesPerPage)
		if a.MaxItems() != c.maxItems {
			t.Fatalf("mwm %d: MaxItems %d, PG15 max_dead_tuples %d", c.mwm, a.MaxItems(), c.maxItems)
		}
		tids, _ := passes(a, blocks, c.mwm)
		if len(tids) != c.passes || tids[0] != c.firstPass || (c.secondPass != 0 && tids[1] != c.secondPass) {
			t.Fatalf("mwm %d: %d passes, first %v; PG15: %d passes of %d, %d", c.mwm, len(tids), tids[:min(2, len(tids))], c.passes, c.firstPass, c.secondPass)
		}
	}
}

// TestIsFullRadix replays the same table with the radix store (PostgreSQL
// 17's rule) and checks it never needs more index passes than PostgreSQL 17
// did, that a pass starts only once MemoryUsage exceeds the budget, and that
// an empty store is never full.
func TestIsFullRadix(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("20 M rows; skipped in -short mode and under the race detector")
	}
	t.Parallel()
	blocks := baselineBlocks()
	for _, c := range []struct {
		mwm        int64
		pg17Passes int
	}{{1 << 30, 1}, {64 << 20, 1}, {2 << 20, 3}, {1 << 20, 6}} {
		r := NewRadix(c.mwm)
		tids, bytes := passes(r, blocks, c.mwm)
		t.Logf("mwm %8d: %d passes (PG17 %d), TIDs per pass %v, bytes when triggered %v", c.mwm, len(tids), c.pg17Passes, tids, bytes)
		if len(tids) > c.pg17Passes {
			t.Errorf("mwm %d: %d index passes, PostgreSQL 17 needed %d", c.mwm, len(tids), c.pg17Passes)
		}
		for i := 0; i < len(bytes)-1; i++ {
			if bytes[i] <= c.mwm {
				t.Errorf("mwm %d: pass %d started at %d bytes, not over budget", c.mwm, i, bytes[i])
			}
		}
	}
	if IsFull(NewRadix(0), 0) {
		t.Error("an empty radix store is full with a 0 budget")
	}
	// The array always has room for one whole page (max_items >= 291).
	a := NewArray(0, 0)
	if a.MaxItems() != MaxHeapTuplesPerPage || IsFull(a, 0) {
		t.Errorf("tiny array: MaxItems %d, full when empty %v", a.MaxItems(), IsFull(a, 0))
	}
	a.SetBlockOffsets(0, []OffsetNumber{1})
	if !IsFull(a, 0) {
		t.Error("tiny array with one TID has room for another page")
	}
}
