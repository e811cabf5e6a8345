package sequence

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

const testFile smgr.RelFileNumber = 16384

type testEnv struct {
	dir  string
	sm   *smgr.Manager
	pool *buffer.Pool
	w    *wal.WAL
	rel  Rel
}

func newTestEnv(t *testing.T, st State) *testEnv {
	t.Helper()
	dir := t.TempDir()
	sm, err := smgr.Open(filepath.Join(dir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	pool := buffer.New(sm, 16)
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.FirstLSN, 0, wal.Options{Fsync: false, FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	pool.FlushWAL = w.Flush
	t.Cleanup(func() { w.Close(); sm.Close() })
	if err := sm.Create(testFile, smgr.MainFork); err != nil {
		t.Fatal(err)
	}
	te := &testEnv{dir: dir, sm: sm, pool: pool, w: w, rel: Rel{Env: &heap.Env{Pool: pool, WAL: w}, Heap: heap.AM{}, File: testFile, Name: "s"}}
	if err := Init(nil, te.rel, st, 0); err != nil {
		t.Fatal(err)
	}
	return te
}

// model is the sequence as the SQL standard describes it: the values in
// order, wrapping or stopping at the bounds.
type model struct {
	o      Options
	next   int64
	called bool
}

func (m *model) nextval() (int64, bool) {
	if !m.called {
		m.called = true
		return m.next, true
	}
	v, wrapped := step(m.next, m.o)
	if wrapped && !m.o.Cycle {
		return 0, false
	}
	m.next = v
	return v, true
}

func randomOptions(r *rand.Rand) Options {
	o := Options{Increment: int64(r.IntN(5) + 1), Cache: int64(r.IntN(4) + 1), Cycle: r.IntN(2) == 0}
	switch r.IntN(3) {
	case 0: // near the top of int64: no overflow on the way
		o.Min, o.Max = math.MaxInt64-200, math.MaxInt64
	case 1:
		o.Min, o.Max = -50, 60
	default:
		o.Min, o.Max = math.MinInt64, math.MinInt64+150
	}
	if r.IntN(2) == 0 {
		o.Increment = -o.Increment
	}
	o.Start = o.Min + r.Int64N(o.Max-o.Min+1)
	return o
}

// TestNextvalModel: one session's nextval gives the model's values in
// order, whatever the cache, through wrap-around and up to the error at
// the end of a non-cycling sequence.
func TestNextvalModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 60; round++ {
		o := randomOptions(r)
		te := newTestEnv(t, State{LastValue: o.Start})
		var s Session
		m := &model{o: o, next: o.Start}
		for i := 0; i < 300; i++ {
			want, ok := m.nextval()
			got, err := s.Next(nil, te.rel, 1, o, 0)
			if !ok {
				if pgerr.Code(err) != SequenceGeneratorLimitExceeded {
					t.Fatalf("round %d (%+v) call %d: want the limit error, got %d, %v", round, o, i, got, err)
				}
				break
			}
			if err != nil || got != want {
				t.Fatalf("round %d (%+v) call %d: got %d, %v; want %d", round, o, i, got, err, want)
			}
			if cur, err := s.Current(1, "s"); err != nil || cur != got {
				t.Fatalf("currval %d, %v after nextval %d", cur, err, got)
			}
		}
	}
}

// TestCachedSessionsDistinct: sessions with caches interleaved never hand
// out the same value of a non-cycling sequence.
func TestCachedSessionsDistinct(t *testing.T) {
	o := Options{Start: 1, Increment: 2, Min: 1, Max: math.MaxInt64, Cache: 5}
	te := newTestEnv(t, State{LastValue: 1})
	sessions := make([]Session, 4)
	seen := map[int64]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		v, err := sessions[r.IntN(len(sessions))].Next(nil, te.rel, 1, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		if seen[v] || v%2 != 1 {
			t.Fatalf("value %d handed out twice or off the grid", v)
		}
		seen[v] = true
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCrashNeverRepeats simulates crashes: data files as last written
// (buffer pool flushes and checkpoints at random moments), WAL as last
// flushed, redo from the last checkpoint. The recovered sequence must
// continue above every value handed out before the crash.
func TestCrashNeverRepeats(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 20; round++ {
		o := Options{Start: 1, Increment: 1, Min: 1, Max: math.MaxInt64, Cache: int64(1 + r.IntN(3))}
		te := newTestEnv(t, State{LastValue: 1})
		if _, err := te.pool.FlushAll(); err != nil {
			t.Fatal(err)
		}
		redo := wal.FirstLSN
		var s Session
		maxSeen := int64(0)
		steps := 1 + r.IntN(200)
		for i := 0; i < steps; i++ {
			switch r.IntN(20) {
			case 0: // checkpoint
				redo = te.w.BeginCheckpoint()
				if _, err := te.pool.FlushAll(); err != nil {
					t.Fatal(err)
				}
			case 1: // the page written by eviction
				if _, err := te.pool.FlushAll(); err != nil {
					t.Fatal(err)
				}
			case 2:
				v := maxSeen + int64(r.IntN(50))
				if err := s.Set(nil, te.rel, 1, o, max(v, 1), true, 0); err != nil {
					t.Fatal(err)
				}
				maxSeen = max(v, 1)
			default:
				v, err := s.Next(nil, te.rel, 1, o, 0)
				if err != nil {
					t.Fatal(err)
				}
				maxSeen = max(maxSeen, v)
			}
		}
		// Crash: copy what is on disk, replay onto it.
		crashDir := filepath.Join(te.dir, "crash")
		copyTree(t, filepath.Join(te.dir, "base"), crashDir)
		sm2, err := smgr.Open(crashDir)
		if err != nil {
			t.Fatal(err)
		}
		pool2 := buffer.New(sm2, 16)
		pool2.FlushWAL = func(page.LSN) error { return nil }
		if _, err := wal.Replay(filepath.Join(te.dir, "wal"), pool2, redo); err != nil {
			t.Fatal(err)
		}
		w2, err := wal.Open(filepath.Join(t.TempDir(), "wal"), wal.FirstLSN, 0, wal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var fresh Session
		got, err := fresh.Next(nil, Rel{Env: &heap.Env{Pool: pool2, WAL: w2}, Heap: heap.AM{}, File: testFile, Name: "s"}, 1, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got <= maxSeen {
			t.Fatalf("round %d: nextval after crash = %d, but %d was handed out", round, got, maxSeen)
		}
		w2.Close()
		sm2.Close()
	}
}

// TestTupleLayout: the fixed data offset is the heap's header, aligned.
func TestTupleLayout(t *testing.T) {
	if want := (heap.HeaderSize + page.MaxAlign - 1) &^ (page.MaxAlign - 1); offData != want {
		t.Fatalf("offData %d, heap data offset %d", offData, want)
	}
}
