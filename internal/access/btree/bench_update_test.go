package btree

import (
	"crypto/md5"
	"encoding/hex"
	"math/rand"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

const updateRows = 100000

// procCPU is the process's user+system CPU time. The benchmarks report it
// per op next to ns/op ("cpu-ns/op"): on a shared, loaded machine it is far
// less noisy than wall time.
func procCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type cpuMeter struct{ start, total time.Duration }

func (m *cpuMeter) Start() { m.start = procCPU() }
func (m *cpuMeter) Stop()  { m.total += procCPU() - m.start }
func (m *cpuMeter) Report(b *testing.B) {
	b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func md5Key(i int) string {
	h := md5.Sum([]byte(strconv.Itoa(i)))
	return hex.EncodeToString(h[:])
}

// benchUpdate imitates a non-HOT UPDATE of every row of a 100k-row table
// (SET k = k + 1): for each existing entry, in heap order, the new row
// version's entry (key of row i+1, a TID on a new heap page) is inserted.
// One op is one insert; the index is rebuilt (untimed) every 100k ops.
func benchUpdate(b *testing.B, typ datum.Type, key func(i int) datum.Datum) {
	te := newTestEnv(b, 16384)
	rel := smgr.RelFileNumber(910)
	opt := Options{Name: "upd", KeyTypes: []datum.Type{typ}}
	build := func() *Index {
		rel++
		bl := NewBuilder(te.env, rel, opt)
		for i := 1; i <= updateRows; i++ {
			j := i - 1
			bl.Add([]datum.Datum{key(i)}, page.ItemPointer{Block: page.BlockNumber(j / 107), Offset: page.OffsetNumber(j%107 + 1)})
		}
		ix, err := bl.Finish(nil, 1)
		if err != nil {
			b.Fatal(err)
		}
		scanAll(b, ix, ix.Scan(nil, nil, nil)) // cache it
		return ix
	}
	keys := make([]datum.Datum, updateRows+1)
	for i := 1; i <= updateRows; i++ {
		keys[i] = key(i + 1)
	}
	var ix *Index
	kd := make([]datum.Datum, 1)
	var m cpuMeter
	var u stats.Usage
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	for n := 0; n < b.N; n++ {
		i := n%updateRows + 1
		if i == 1 {
			b.StopTimer()
			m.Stop()
			ix = build()
			m.Start()
			b.StartTimer()
		}
		j := updateRows + i - 1
		kd[0] = keys[i]
		if err := ix.Insert(&u, 2, kd, page.ItemPointer{Block: page.BlockNumber(j / 107), Offset: page.OffsetNumber(j%107 + 1)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	m.Stop()
	m.Report(b)
	b.ReportMetric(float64(u.WAL.Bytes)/float64(b.N), "WAL-B/op")
}

func BenchmarkUpdateInt4(b *testing.B) {
	benchUpdate(b, datum.Int4, func(i int) datum.Datum { return datum.Int(int64(i)) })
}

func BenchmarkUpdateText(b *testing.B) {
	benchUpdate(b, datum.Text, func(i int) datum.Datum { return datum.Str(md5Key(i)) })
}

// BenchmarkInsertRandomText inserts random md5 text keys into a growing index.
func BenchmarkInsertRandomText(b *testing.B) {
	te := newTestEnv(b, 16384)
	ix := emptyIndex(b, te, 903, Options{Name: "txt", KeyTypes: []datum.Type{datum.Text}})
	rng := rand.New(rand.NewSource(1))
	key := make([]datum.Datum, 1)
	var m cpuMeter
	b.ReportAllocs()
	b.ResetTimer()
	m.Start()
	defer m.Report(b)
	defer m.Stop()
	for i := 0; i < b.N; i++ {
		key[0] = datum.Str(md5Key(rng.Int()))
		if err := ix.Insert(nil, 2, key, page.ItemPointer{Block: page.BlockNumber(i / 100), Offset: page.OffsetNumber(i%100 + 1)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
