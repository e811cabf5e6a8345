package stmtstats

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/stats"
)

func key(id int64) Key { return Key{UserID: 10, DBID: 5, QueryID: id, TopLevel: true} }

func TestRecordAccumulates(t *testing.T) {
	s := New()
	for _, d := range []time.Duration{time.Millisecond, 3 * time.Millisecond} {
		s.Record(key(1), func() string { return "SELECT $1" }, Exec{Time: d, Rows: 2, Usage: stats.Usage{Buf: stats.BufferUsage{SharedHit: 3}, WAL: stats.WALUsage{Records: 1, Bytes: 50}}}, 100)
	}
	es := s.Snapshot()
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	e := es[0]
	if e.Calls != 2 || e.Rows != 4 || e.Buf.SharedHit != 6 || e.WAL.Records != 2 || e.WAL.Bytes != 100 || e.Query != "SELECT $1" {
		t.Fatalf("entry %+v", e)
	}
	if e.TotalExec != 4 || e.MinExec != 1 || e.MaxExec != 3 || e.MeanExec != 2 || math.Abs(e.StddevExec()-1) > 1e-9 {
		t.Fatalf("times %+v stddev %v", e.Counters, e.StddevExec())
	}
}

// A full store evicts the least used 5% (at least 10) and counts it; the
// entry being added is kept.
func TestFullStoreEvictsLeastUsed(t *testing.T) {
	s := New()
	q := func() string { return "q" }
	for id := int64(1); id <= 100; id++ {
		calls := 1
		if id > 10 {
			calls = 5 // ids 1..10 are the least used
		}
		for i := 0; i < calls; i++ {
			s.Record(key(id), q, Exec{}, 100)
		}
	}
	s.Record(key(101), q, Exec{}, 100)
	got := map[int64]bool{}
	for _, e := range s.Snapshot() {
		got[e.QueryID] = true
	}
	if len(got) != 91 || !got[101] || !got[11] {
		t.Fatalf("%d entries after eviction (101: %v)", len(got), got[101])
	}
	for id := int64(1); id <= 10; id++ {
		if got[id] {
			t.Errorf("least used entry %d kept", id)
		}
	}
	if d, _ := s.Info(); d != 1 {
		t.Errorf("dealloc %d", d)
	}
}

func TestResetBySelector(t *testing.T) {
	s := New()
	s.Record(Key{UserID: 1, DBID: 5, QueryID: 7}, func() string { return "a" }, Exec{}, 0)
	s.Record(Key{UserID: 2, DBID: 5, QueryID: 8}, func() string { return "b" }, Exec{}, 0)
	s.Reset(2, 0, 0)
	if es := s.Snapshot(); len(es) != 1 || es[0].QueryID != 7 {
		t.Fatalf("after reset of user 2: %+v", es)
	}
	s.Reset(0, 0, 0)
	if len(s.Snapshot()) != 0 {
		t.Fatal("full reset left entries")
	}
}

// BenchmarkRecord is the store's cost per tracked statement (an existing
// entry: the common case).
func BenchmarkRecord(b *testing.B) {
	s := New()
	q := func() string { return "SELECT abalance FROM pgbench_accounts WHERE aid = $1" }
	x := Exec{Time: 50 * time.Microsecond, Rows: 1, Usage: stats.Usage{Buf: stats.BufferUsage{SharedHit: 4}}}
	for i := 0; i < b.N; i++ {
		s.Record(key(1), q, x, 5000)
	}
}

// Sessions record while others read and reset; a snapshot's counters of
// one entry come from whole executions (rows are 2 per call).
func TestConcurrentRecordSnapshot(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				s.Record(key(int64(i%150)), func() string { return "q" }, Exec{Rows: 2}, 100)
			}
		}(g)
	}
	for i := 0; i < 200; i++ {
		for _, e := range s.Snapshot() {
			if e.Rows != 2*e.Calls {
				t.Fatalf("torn entry: calls %d rows %d", e.Calls, e.Rows)
			}
		}
	}
	wg.Wait()
	if n := len(s.Snapshot()); n > 100 {
		t.Fatalf("%d entries, max 100", n)
	}
}
