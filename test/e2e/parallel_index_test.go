package e2e

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestParallelCreateIndex: CREATE INDEX and ALTER TABLE ADD PRIMARY KEY
// share the heap scan and the sort with max_parallel_maintenance_workers
// workers from the engine's pool, and build the same index a serial build
// does; a unique violation across participants, a worker's panic and a
// statement_timeout end the statement as PostgreSQL's would, with every
// pool slot given back.
func TestParallelCreateIndex(t *testing.T) {
	var mu sync.Mutex
	var panics []string
	s := testutil.Start(t, testutil.Options{OnPanic: func(err error) {
		mu.Lock()
		panics = append(panics, err.Error())
		mu.Unlock()
	}})
	c := connect(t, s.DSN())
	parallelTable(t, c, 60000)
	exec(t, c, "INSERT INTO pt SELECT g, g % 7, g * 0.25, NULL::float8, 'w' || (g % 13), g % 2 = 0 FROM generate_series(60001, 80000) g")
	pool := s.Engine.AMEnv.Workers
	var started atomic.Int32
	var mode sync.Map
	s.Sessions.SetParallelWorkerHook(func() {
		started.Add(1)
		switch v, _ := mode.Load("m"); v {
		case "panic":
			var m map[string]int
			m["worker"]++
		case "slow":
			time.Sleep(500 * time.Millisecond)
		}
	})
	// Two workers need 3 x 32 MB of maintenance_work_mem (as PostgreSQL's
	// plan_create_index_workers).
	exec(t, c, "SET maintenance_work_mem = '96MB'")
	for _, col := range []string{"a", "b", "d", "e", "b, e"} {
		started.Store(0)
		exec(t, c, "CREATE INDEX par_idx ON pt ("+col+")")
		if n := started.Load(); n != 2 {
			t.Errorf("CREATE INDEX (%s): %d workers started, want 2", col, n)
		}
		exec(t, c, "SET max_parallel_maintenance_workers = 0")
		started.Store(0)
		exec(t, c, "CREATE INDEX ser_idx ON pt ("+col+")")
		if n := started.Load(); n != 0 {
			t.Errorf("serial CREATE INDEX (%s): %d workers started", col, n)
		}
		exec(t, c, "RESET max_parallel_maintenance_workers")
		if p, s := queryInt(t, c, "SELECT pg_relation_size('par_idx')"), queryInt(t, c, "SELECT pg_relation_size('ser_idx')"); p != s {
			t.Errorf("(%s): parallel build %d bytes, serial %d", col, p, s)
		}
		if got := query(t, c, "SELECT tidal_check('pt')"); got != "ok" {
			t.Errorf("(%s): tidal_check: %s", col, got)
		}
		exec(t, c, "DROP INDEX par_idx, ser_idx")
	}
	exec(t, c, "SET enable_seqscan = off")
	exec(t, c, "CREATE INDEX par_a ON pt (a)")
	if got := queryInt(t, c, "SELECT count(*) FROM pt WHERE a BETWEEN 1000 AND 70000"); got != 69001 {
		t.Errorf("index scan after the parallel build: %d rows", got)
	}
	exec(t, c, "RESET enable_seqscan")
	exec(t, c, "DROP INDEX par_a")

	// ALTER TABLE ADD PRIMARY KEY builds in parallel too.
	started.Store(0)
	exec(t, c, "ALTER TABLE pt ADD PRIMARY KEY (a)")
	if n := started.Load(); n != 2 {
		t.Errorf("ADD PRIMARY KEY: %d workers started, want 2", n)
	}
	_, err := execErr(c, "INSERT INTO pt (a) VALUES (5)")
	wantState(t, "duplicate after ADD PRIMARY KEY", err, "23505")

	// Duplicates found only when the participants' spools are merged.
	_, err = execErr(c, "CREATE UNIQUE INDEX dup_b ON pt (b)")
	if pe := wantState(t, "unique index on duplicates", err, "23505"); pe.Message != `could not create unique index "dup_b"` || pe.Detail != "Key (b)=(0) is duplicated." {
		t.Errorf("%q %q", pe.Message, pe.Detail)
	}
	wantUsable(t, c)

	// A panicking worker is an ERROR; the index is not created.
	mode.Store("m", "panic")
	_, err = execErr(c, "CREATE INDEX pan_idx ON pt (c)")
	wantState(t, "a panicking index build worker", err, "XX000")
	wantUsable(t, c)

	// statement_timeout stops the leader and the workers.
	mode.Store("m", "slow")
	exec(t, c, "SET statement_timeout = '100ms'")
	start := time.Now()
	_, err = execErr(c, "CREATE INDEX slow_idx ON pt (c)")
	wantState(t, "statement_timeout during a parallel build", err, "57014")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timed-out build took %v", d)
	}
	exec(t, c, "RESET statement_timeout")
	mode.Store("m", "")
	if got := queryInt(t, c, "SELECT count(*) FROM pg_class WHERE relname IN ('pan_idx', 'slow_idx')"); got != 0 {
		t.Errorf("%d failed indexes left in pg_class", got)
	}
	if pool.InUse() != 0 {
		t.Errorf("%d pool slots leaked by parallel index builds", pool.InUse())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(panics) > 0 {
		t.Errorf("server PANIC: %v", panics)
	}
}
