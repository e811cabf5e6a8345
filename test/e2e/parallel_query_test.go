package e2e

// Parallel query: Finalize Aggregate → Gather → Partial Aggregate →
// Parallel Seq Scan, with workers drawn from the engine's
// max_parallel_workers pool. The tests make small tables parallel the way
// PostgreSQL's select_parallel.sql does (setup and tuple costs 0,
// min_parallel_table_scan_size 0), so they stay fast.

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// explainLines runs EXPLAIN and returns its lines, trimmed.
func explainLines(t *testing.T, c *pgx.Conn, sql string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	rows, err := c.Query(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(l))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func wantPlan(t *testing.T, c *pgx.Conn, sql string, want ...string) {
	t.Helper()
	got := explainLines(t, c, sql)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot:\n%s\nwant:\n%s", sql, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// parallelTable makes pt with n rows and turns on parallel plans for small
// tables in the session.
func parallelTable(t *testing.T, c *pgx.Conn, n int) {
	t.Helper()
	exec(t, c, "CREATE TABLE pt (a int, b int, c numeric, d float8, e text, f bool)")
	exec(t, c, fmt.Sprintf(`INSERT INTO pt SELECT g, g %% 7, g * 0.25, (g %% 1000) * 0.5, 'v' || (g %% 97), g %% 3 = 0
		FROM generate_series(1, %d) g`, n))
	cheapParallel(t, c)
}

func cheapParallel(t *testing.T, c *pgx.Conn) {
	t.Helper()
	exec(t, c, "SET parallel_setup_cost = 0")
	exec(t, c, "SET parallel_tuple_cost = 0")
	exec(t, c, "SET min_parallel_table_scan_size = 0")
}

func TestParallelAggregatePlan(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	parallelTable(t, c, 30000)

	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT count(*) FROM pt",
		"Finalize Aggregate",
		"->  Gather",
		"Workers Planned: 2",
		"->  Partial Aggregate",
		"->  Parallel Seq Scan on pt")
	wantPlan(t, c, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM pt",
		"Finalize Aggregate (actual rows=1 loops=1)",
		"->  Gather (actual rows=3 loops=1)",
		"Workers Planned: 2",
		"Workers Launched: 2",
		"->  Partial Aggregate (actual rows=1 loops=3)",
		"->  Parallel Seq Scan on pt (actual rows=10000 loops=3)")
	// Quals run in the workers; a grouped aggregate is a partial hash
	// aggregate finalized above the Gather.
	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT b, sum(a) FROM pt WHERE a > 10 GROUP BY b",
		"Finalize HashAggregate",
		"Group Key: b",
		"->  Gather",
		"Workers Planned: 2",
		"->  Partial HashAggregate",
		"Group Key: b",
		"->  Parallel Seq Scan on pt",
		"Filter: (a > 10)")
	if got := query(t, c, "SELECT count(*), sum(a), min(e), max(c) FROM pt WHERE a > 10"); got != "29990|450014945|v0|7500.00" {
		t.Errorf("parallel aggregate = %s", got)
	}

	// A filtering scan alone: Gather over Parallel Seq Scan, the rows
	// (in no particular order) those of the serial scan.
	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT a, e FROM pt WHERE b = 3 AND a > 100",
		"Gather",
		"Workers Planned: 2",
		"->  Parallel Seq Scan on pt",
		"Filter: ((b = 3) AND (a > 100))")
	wantPlan(t, c, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT a FROM pt WHERE b = 3",
		"Gather (actual rows=4286 loops=1)",
		"Workers Planned: 2",
		"Workers Launched: 2",
		"->  Parallel Seq Scan on pt (actual rows=1429 loops=3)",
		"Filter: (b = 3)",
		"Rows Removed by Filter: 8571")
	q := "SELECT a, e FROM pt WHERE b = 3 AND a > 100 ORDER BY a"
	par := query(t, c, q)
	exec(t, c, "SET max_parallel_workers_per_gather = 0")
	if ser := query(t, c, q); par != ser || strings.Count(par, ",") != 4271 {
		t.Errorf("parallel scan rows differ from serial (%d vs %d rows)", strings.Count(par, ","), strings.Count(ser, ","))
	}
	exec(t, c, "RESET max_parallel_workers_per_gather")
	// A LIMIT above the Gather stops the workers early; they give their
	// pool slots back.
	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT a FROM pt WHERE b = 3 LIMIT 5",
		"Limit", "->  Gather", "Workers Planned: 2", "->  Parallel Seq Scan on pt", "Filter: (b = 3)")
	if got := query(t, c, "SELECT a FROM pt WHERE b = 3 LIMIT 5"); strings.Count(got, ",") != 4 {
		t.Errorf("limit over gather: %s", got)
	}
	if n := s.Engine.AMEnv.Workers.InUse(); n != 0 {
		t.Errorf("%d pool slots held after a LIMIT stopped a Gather", n)
	}

	// max_parallel_workers_per_gather caps the plan; 0 keeps it serial.
	exec(t, c, "SET max_parallel_workers_per_gather = 1")
	if l := explainLines(t, c, "EXPLAIN (COSTS OFF) SELECT count(*) FROM pt"); l[2] != "Workers Planned: 1" {
		t.Errorf("per-gather 1: %v", l)
	}
	exec(t, c, "SET max_parallel_workers_per_gather = 0")
	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT count(*) FROM pt", "Aggregate", "->  Seq Scan on pt")
	exec(t, c, "RESET max_parallel_workers_per_gather")

	// An aggregate with no partial form (DISTINCT), or whose argument the
	// workers may not evaluate (random() is parallel restricted), runs in
	// the leader over the rows the workers pass up, as in PostgreSQL.
	for _, q := range []string{"SELECT sum(a * random()) FROM pt", "SELECT count(DISTINCT b) FROM pt"} {
		wantPlan(t, c, "EXPLAIN (COSTS OFF) "+q, "Aggregate", "->  Gather", "Workers Planned: 2", "->  Parallel Seq Scan on pt")
	}
	if got := query(t, c, "SELECT count(DISTINCT b), string_agg(DISTINCT e, ',' ORDER BY e) FILTER (WHERE a < 3) FROM pt"); got != "7|v1,v2" {
		t.Errorf("aggregate over gathered rows = %s", got)
	}
	// What stays serial, as in PostgreSQL: a parallel-unsafe function
	// anywhere in the query, a temporary table, a statement that writes.
	serial := []string{
		"SELECT count(*), nextval('ps') FROM pt",
		"SELECT count(*) FROM ptt",
	}
	exec(t, c, "CREATE SEQUENCE ps")
	exec(t, c, "CREATE TEMP TABLE ptt AS SELECT * FROM pt")
	for _, q := range serial {
		for _, l := range explainLines(t, c, "EXPLAIN (COSTS OFF) "+q) {
			if strings.Contains(l, "Gather") || strings.Contains(l, "Parallel") {
				t.Errorf("%s: parallel plan line %q", q, l)
			}
		}
	}
	exec(t, c, "CREATE TABLE ptsum (n bigint)")
	for _, l := range explainLines(t, c, "EXPLAIN (COSTS OFF) INSERT INTO ptsum SELECT count(*) FROM pt") {
		if strings.Contains(l, "Gather") {
			t.Errorf("INSERT … SELECT planned a Gather: %q", l)
		}
	}

	// Without the session's cheap settings a small table stays serial
	// (min_parallel_table_scan_size is 8MB, parallel_setup_cost 1000).
	exec(t, c, "RESET ALL")
	wantPlan(t, c, "EXPLAIN (COSTS OFF) SELECT count(*) FROM pt", "Aggregate", "->  Seq Scan on pt")
	for q, want := range map[string]string{"SHOW parallel_setup_cost": "1000", "SHOW parallel_tuple_cost": "0.1",
		"SHOW min_parallel_table_scan_size": "8MB", "SHOW parallel_leader_participation": "on"} {
		if got := query(t, c, q); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
	_, err := execErr(c, "SET parallel_setup_cost = -1")
	if pe := wantState(t, "negative parallel_setup_cost", err, "22023"); pe.Message != `-1 is outside the valid range for parameter "parallel_setup_cost" (0 .. 1.79769e+308)` {
		t.Errorf("message %q", pe.Message)
	}
}

func TestParallelLaunchesWhatThePoolAllows(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	parallelTable(t, c, 20000)
	launched := func() string {
		t.Helper()
		for _, l := range explainLines(t, c, "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM pt") {
			if strings.HasPrefix(l, "Workers Launched: ") {
				return strings.TrimPrefix(l, "Workers Launched: ")
			}
		}
		t.Fatal("no Workers Launched line")
		return ""
	}
	pool := s.Engine.AMEnv.Workers
	if got := launched(); got != "2" {
		t.Errorf("free pool: launched %s, want 2", got)
	}
	// Another parallel operation holds 7 of the 8 max_parallel_workers
	// slots: the query gets the one left and does not wait.
	if n := pool.Acquire(7, 8); n != 7 {
		t.Fatalf("acquired %d", n)
	}
	if got := launched(); got != "1" {
		t.Errorf("one free slot: launched %s, want 1", got)
	}
	pool.Acquire(1, 8)
	if got := launched(); got != "0" {
		t.Errorf("full pool: launched %s, want 0", got)
	}
	// The leader alone still returns every row.
	if got := queryInt(t, c, "SELECT count(*) FROM pt"); got != 20000 {
		t.Errorf("count with no workers = %d", got)
	}
	pool.Release(8)
	exec(t, c, "SET max_parallel_workers = 1")
	if got := launched(); got != "1" {
		t.Errorf("max_parallel_workers 1: launched %s", got)
	}
	exec(t, c, "SET max_parallel_workers = 0")
	if got := launched(); got != "0" {
		t.Errorf("max_parallel_workers 0: launched %s", got)
	}
	if pool.InUse() != 0 {
		t.Errorf("%d pool slots still held after the queries", pool.InUse())
	}
}

// TestParallelMatchesSerial runs random aggregate queries over random data
// (NULLs included) with a parallel plan and with a serial one: the results
// must be equal. Float inputs are multiples of 1/4 below 2^20, so their
// sums are exact in any order.
func TestParallelMatchesSerial(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	exec(t, c, "CREATE TABLE pr (i2 smallint, i4 int, i8 bigint, n numeric, f float8, t text, b bool, g int)")
	var vals []string
	null := func(v string) string {
		if rng.Intn(10) == 0 {
			return "NULL"
		}
		return v
	}
	for i := 0; i < 8000; i++ {
		vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %d)",
			null(fmt.Sprint(rng.Intn(2000)-1000)), null(fmt.Sprint(rng.Int31()-1<<30)),
			null(fmt.Sprint(rng.Int63()>>8-1<<50)), null(fmt.Sprintf("%d.%03d", rng.Intn(100000)-50000, rng.Intn(1000))),
			null(fmt.Sprint(float64(rng.Intn(1<<22))/4)), null(fmt.Sprintf("'s%d'", rng.Intn(500))),
			null(fmt.Sprint(rng.Intn(5) != 0)), rng.Intn(12)))
		if len(vals) == 1000 {
			exec(t, c, "INSERT INTO pr VALUES "+strings.Join(vals, ","))
			vals = vals[:0]
		}
	}
	aggs := []string{"count(*)", "count(i4)", "count(t)", "sum(i2)", "sum(i4)", "sum(i8)", "sum(n)", "sum(f)",
		"avg(i2)", "avg(i4)", "avg(i8)", "avg(n)", "avg(f)", "min(i4)", "max(i8)", "min(n)", "max(n)",
		"min(t)", "max(t)", "min(f)", "max(f)", "bool_and(b)", "bool_or(b)", "count(*) FILTER (WHERE b)"}
	quals := []string{"", "WHERE i4 > 0", "WHERE t < 's250' AND i2 IS NOT NULL", "WHERE g = 3", "WHERE false", "WHERE n BETWEEN -1000 AND 1000 OR b"}
	cheapParallel(t, c)
	for k := 0; k < 40; k++ {
		var sel []string
		for j := 0; j < 1+rng.Intn(5); j++ {
			sel = append(sel, aggs[rng.Intn(len(aggs))])
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM pr " + quals[rng.Intn(len(quals))]
		if rng.Intn(3) == 0 {
			q = "SELECT g, " + strings.Join(sel, ", ") + " FROM pr " + quals[rng.Intn(len(quals))] + " GROUP BY g ORDER BY g"
		}
		exec(t, c, "SET max_parallel_workers_per_gather = 2")
		plan := strings.Join(explainLines(t, c, "EXPLAIN (COSTS OFF) "+q), "\n")
		if !strings.Contains(plan, "Parallel Seq Scan") {
			t.Fatalf("%s: not a parallel plan:\n%s", q, plan)
		}
		par := query(t, c, q)
		exec(t, c, "SET max_parallel_workers_per_gather = 0")
		ser := query(t, c, q)
		if par != ser {
			t.Errorf("%s:\nparallel %s\nserial   %s", q, par, ser)
		}
	}
}

func TestParallelWorkerFailures(t *testing.T) {
	var mu sync.Mutex
	var panics []string
	s := testutil.Start(t, testutil.Options{OnPanic: func(err error) {
		mu.Lock()
		panics = append(panics, err.Error())
		mu.Unlock()
	}})
	c := connect(t, s.DSN())
	parallelTable(t, c, 20000)
	pool := s.Engine.AMEnv.Workers

	// An error in a worker's share of the rows is the statement's error.
	_, err := execErr(c, "SELECT sum(100 / (a - 15000)) FROM pt")
	wantState(t, "division by zero in a worker's rows", err, "22012")
	wantUsable(t, c)

	// A panic in a worker is an ERROR XX000, not a dead server.
	var mode sync.Map
	s.Sessions.SetParallelWorkerHook(func() {
		if v, _ := mode.Load("m"); v == "panic" {
			var m map[string]int
			m["worker"]++
		} else if v == "slow" {
			time.Sleep(500 * time.Millisecond)
		}
	})
	mode.Store("m", "panic")
	_, err = execErr(c, "SELECT count(*) FROM pt")
	if pe := wantState(t, "a panicking worker", err, "XX000"); pe.Message != "assignment to entry in nil map" || pe.Severity != "ERROR" {
		t.Errorf("%s %q", pe.Severity, pe.Message)
	}
	wantUsable(t, c)
	exec(t, c, "BEGIN")
	_, err = execErr(c, "SELECT count(*) FROM pt")
	wantState(t, "a panicking worker in a block", err, "XX000")
	_, err = execErr(c, "SELECT 1")
	wantState(t, "after the worker's panic", err, "25P02")
	exec(t, c, "ROLLBACK")

	// statement_timeout cancels the workers too.
	mode.Store("m", "slow")
	exec(t, c, "SET statement_timeout = '100ms'")
	start := time.Now()
	_, err = execErr(c, "SELECT count(*) FROM pt")
	wantState(t, "statement_timeout with slow workers", err, "57014")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timed-out parallel query took %v", d)
	}
	exec(t, c, "RESET statement_timeout")
	mode.Store("m", "")
	if got := queryInt(t, c, "SELECT count(*) FROM pt"); got != 20000 {
		t.Errorf("count after the failures = %d", got)
	}
	if pool.InUse() != 0 {
		t.Errorf("%d pool slots leaked by failed parallel queries", pool.InUse())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(panics) > 0 {
		t.Errorf("server PANIC: %v", panics)
	}
}

// TestParallelWorkersUseTheLeadersSnapshot: workers read under copies of
// the leader's snapshot, so a REPEATABLE READ transaction's parallel count
// ignores rows another session changed after it began, and sees its own
// uncommitted ones.
func TestParallelWorkersUseTheLeadersSnapshot(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c, other := connect(t, s.DSN()), connect(t, s.DSN())
	parallelTable(t, c, 20000)
	exec(t, c, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	if got := queryInt(t, c, "SELECT count(*) FROM pt"); got != 20000 {
		t.Fatalf("count = %d", got)
	}
	exec(t, other, "DELETE FROM pt WHERE a <= 5000")
	exec(t, other, "INSERT INTO pt (a) SELECT g FROM generate_series(1, 300) g")
	exec(t, c, "INSERT INTO pt (a) VALUES (-1), (-2)")
	plan := strings.Join(explainLines(t, c, "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM pt"), "\n")
	if !strings.Contains(plan, "Workers Launched: 2") {
		t.Fatalf("no parallel plan:\n%s", plan)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM pt"); got != 20002 {
		t.Errorf("repeatable read parallel count = %d, want 20002 (snapshot plus own rows)", got)
	}
	exec(t, c, "COMMIT")
	if got := queryInt(t, c, "SELECT count(*) FROM pt"); got != 15302 {
		t.Errorf("count after commit = %d, want 15302", got)
	}
}

// TestParallelUndoTable: the undo access method's scan splits into block
// chunks too, and sees the same versions in parallel as serially, also
// after in-place updates whose old versions live in the undo log.
func TestParallelUndoTable(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE pu (a int, b int) USING undo")
	exec(t, c, "INSERT INTO pu SELECT g, g % 10 FROM generate_series(1, 20000) g")
	exec(t, c, "UPDATE pu SET b = b + 100 WHERE a % 3 = 0")
	cheapParallel(t, c)
	q := "SELECT b, count(*), sum(a), max(a) FROM pu GROUP BY b ORDER BY b"
	plan := strings.Join(explainLines(t, c, "EXPLAIN (ANALYZE, COSTS OFF) "+q), "\n")
	if !strings.Contains(plan, "Parallel Seq Scan on pu") || !strings.Contains(plan, "Workers Launched: 2") {
		t.Fatalf("undo table: no parallel plan:\n%s", plan)
	}
	par := query(t, c, q)
	exec(t, c, "SET max_parallel_workers_per_gather = 0")
	if ser := query(t, c, q); par != ser {
		t.Errorf("undo table: parallel %s\nserial %s", par, ser)
	}
	if got := query(t, c, "SELECT count(*) FILTER (WHERE b >= 100) FROM pu"); got != "6666" {
		t.Errorf("updated rows = %s", got)
	}
}

// TestParallelSerializable: PostgreSQL 15 runs parallel plans in
// SERIALIZABLE transactions; the predicate locks the workers take belong
// to the leader's transaction, so a write skew whose reads were parallel
// is still caught.
func TestParallelSerializable(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c1, c2 := connect(t, s.DSN()), connect(t, s.DSN())
	parallelTable(t, c1, 20000)
	cheapParallel(t, c2)
	// Only the workers read, so only their predicate locks can conflict.
	exec(t, c1, "SET parallel_leader_participation = off")
	exec(t, c2, "SET parallel_leader_participation = off")
	exec(t, c1, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, c2, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	for _, c := range []*pgx.Conn{c1, c2} {
		l := explainLines(t, c, "EXPLAIN (ANALYZE, COSTS OFF) SELECT sum(b) FROM pt")
		if strings.Join(l, "\n") == "" || !strings.Contains(strings.Join(l, "\n"), "Workers Launched: 2") {
			t.Fatalf("serializable: no parallel plan:\n%s", strings.Join(l, "\n"))
		}
	}
	exec(t, c1, "INSERT INTO pt (a, b) VALUES (-1, 1)")
	exec(t, c2, "INSERT INTO pt (a, b) VALUES (-2, 2)")
	exec(t, c1, "COMMIT")
	_, err := execErr(c2, "COMMIT")
	wantState(t, "write skew over parallel reads", err, "40001")
}
