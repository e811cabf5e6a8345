package btree

import (
	"math/rand"
	"os"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchIx   *Index
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchIndex is a 1M-row int4 index (pgbench's accounts primary key at
// scale 10), with every page cached.
func benchIndex(b *testing.B) *Index {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "btree-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		te := newTestEnvIn(b, dir, 8192)
		bl := NewBuilder(te.env, 900, int4Opts("pgbench_accounts_pkey"))
		for i := 1; i <= 1000000; i++ {
			bl.Add([]datum.Datum{datum.Int(int64(i))}, tidOf(i))
		}
		ix, err := bl.Finish(nil, 1)
		if err != nil {
			b.Fatal(err)
		}
		// warm the cache
		scanAll(b, ix, ix.Scan(nil, nil, nil))
		benchIx = ix
	})
	return benchIx
}

// BenchmarkLookup is the pgbench hot path: an equality lookup of a random
// key in a cached 1M-entry index.
func BenchmarkLookup(b *testing.B) {
	ix := benchIndex(b)
	rng := rand.New(rand.NewSource(1))
	key := make([]datum.Datum, 1)
	var m cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	defer m.Report(b)
	defer m.Stop()
	for i := 0; i < b.N; i++ {
		k := 1 + rng.Intn(1000000)
		key[0] = datum.Int(int64(k))
		c := ix.ScanEqual(nil, key)
		tid, _, ok, err := c.Next()
		if err != nil || !ok || tid != tidOf(k) {
			b.Fatalf("lookup %d: %v %v %v", k, tid, ok, err)
		}
		if _, _, ok, _ := c.Next(); ok {
			b.Fatal("two entries")
		}
	}
}

// BenchmarkLookupParallel runs lookups on every core.
func BenchmarkLookupParallel(b *testing.B) {
	ix := benchIndex(b)
	var m cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	defer m.Report(b)
	defer m.Stop()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewSource(rand.Int63()))
		key := make([]datum.Datum, 1)
		for pb.Next() {
			k := 1 + rng.Intn(1000000)
			key[0] = datum.Int(int64(k))
			c := ix.ScanEqual(nil, key)
			if _, _, ok, err := c.Next(); err != nil || !ok {
				b.Fatal("lookup failed")
			}
		}
	})
}

// BenchmarkInsertRandom inserts random int4 keys into a growing index.
func BenchmarkInsertRandom(b *testing.B) {
	te := newTestEnv(b, 16384)
	ix := emptyIndex(b, te, 901, int4Opts("ins"))
	rng := rand.New(rand.NewSource(1))
	key := make([]datum.Datum, 1)
	var m cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	defer m.Report(b)
	defer m.Stop()
	for i := 0; i < b.N; i++ {
		key[0] = datum.Int(int64(rng.Int31()))
		if err := ix.Insert(nil, 2, key, page.ItemPointer{Block: page.BlockNumber(i / 100), Offset: page.OffsetNumber(i%100 + 1)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertSequential appends ascending keys (rightmost leaf).
func BenchmarkInsertSequential(b *testing.B) {
	te := newTestEnv(b, 16384)
	ix := emptyIndex(b, te, 902, int4Opts("seq"))
	key := make([]datum.Datum, 1)
	var m cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	defer m.Report(b)
	defer m.Stop()
	for i := 0; i < b.N; i++ {
		key[0] = datum.Int(int64(i))
		if err := ix.Insert(nil, 2, key, page.ItemPointer{Block: page.BlockNumber(i / 100), Offset: page.OffsetNumber(i%100 + 1)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
