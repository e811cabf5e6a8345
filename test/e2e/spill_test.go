package e2e

// Sorts bigger than work_mem spill to temporary files (issue 16): the
// result is the in-memory sort's, EXPLAIN says how it ran as PostgreSQL
// 15 prints it, temp_file_limit refuses with 53400, and no file outlives
// its statement — finished, failed or cancelled.

import (
	"context"
	"crypto/md5"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

func tempFilesIn(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "base", "pgsql_tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// inMemoryResults runs queries with work_mem = 1GB (nothing spills) and
// returns their results, for comparison with a spilling run.
func inMemoryResults(t *testing.T, c *pgx.Conn, queries []string) []string {
	t.Helper()
	exec(t, c, "SET work_mem = '1GB'")
	var want []string
	for _, q := range queries {
		want = append(want, query(t, c, q))
	}
	return want
}

// sameResults runs queries again and fails on the first whose result
// differs from want.
func sameResults(t *testing.T, c *pgx.Conn, queries, want []string, what string) {
	t.Helper()
	for i, q := range queries {
		if got := query(t, c, q); got != want[i] {
			t.Fatalf("%s: %s\n%s\nwant\n%s", q, what, got, want[i])
		}
	}
}

func TestSortSpillsPastWorkMem(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE sp (id int, t text, n int)")
	exec(t, c, "INSERT INTO sp SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE md5((g % 5000)::text) END, g % 7 FROM generate_series(1, 30000) g")
	// A total order (id last): an in-memory sort leaves ties in
	// PostgreSQL's quicksort order, a spilled one in input order.
	q := "SELECT id, t, n FROM sp ORDER BY n DESC, t NULLS FIRST, id % 3, id"
	exec(t, c, "SET work_mem = '1GB'")
	inMemory := query(t, c, q)
	exec(t, c, "SET work_mem = '64kB'")
	if got := query(t, c, q); got != inMemory {
		t.Fatal("the spilled sort's rows differ from the in-memory sort's")
	}

	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "+q)
	if !regexp.MustCompile(`Sort Method: external merge  Disk: [0-9]+kB`).MatchString(plan) {
		t.Fatalf("no external merge line in\n%s", plan)
	}
	if !regexp.MustCompile(`Buffers: shared hit=[0-9]+, temp read=[0-9]+ written=[0-9]+`).MatchString(plan) {
		t.Fatalf("no temp buffers line in\n%s", plan)
	}
	exec(t, c, "SET work_mem = '64MB'")
	plan = query(t, c, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q)
	if !regexp.MustCompile(`Sort Method: quicksort  Memory: [0-9]+kB`).MatchString(plan) {
		t.Fatalf("no quicksort line in\n%s", plan)
	}
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after the statements", n)
	}
	// pg_stat_database counts every file removed, and its bytes.
	exec(t, c, "SET work_mem = '64kB'")
	before := queryInt(t, c, "SELECT temp_files FROM pg_stat_database WHERE datname = 'postgres'")
	query(t, c, q)
	if after := queryInt(t, c, "SELECT temp_files FROM pg_stat_database WHERE datname = 'postgres'"); after <= before {
		t.Fatalf("temp_files %d -> %d", before, after)
	}
	if b := queryInt(t, c, "SELECT temp_bytes FROM pg_stat_database WHERE datname = 'postgres'"); b <= 0 {
		t.Fatalf("temp_bytes %d", b)
	}
}

func TestTempFileLimitAndCleanup(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	big := "SELECT count(*) FROM (SELECT g FROM generate_series(1, 300000) g ORDER BY md5(g::text)) s"
	exec(t, c, "SET work_mem = '64kB'")
	exec(t, c, "SET temp_file_limit = '100kB'")
	_, err := queryErr(c, big)
	pe := wantState(t, "sort past temp_file_limit", err, "53400")
	if pe.Message != "temporary file size exceeds temp_file_limit (100kB)" {
		t.Fatalf("message %q", pe.Message)
	}
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after the error", n)
	}
	// Inside a block the error aborts the block, as any error does.
	exec(t, c, "RESET temp_file_limit")
	exec(t, c, "BEGIN")
	exec(t, c, "SET LOCAL temp_file_limit = '100kB'")
	_, err = queryErr(c, big)
	wantState(t, "in a block", err, "53400")
	_, err = queryErr(c, "SELECT 1")
	wantState(t, "after the error", err, "25P02")
	exec(t, c, "ROLLBACK")
	if got := query(t, c, big); got != "300000" {
		t.Fatalf("count %s", got)
	}

	// A cancel mid-sort (statement_timeout) removes the files too.
	exec(t, c, "SET statement_timeout = '300ms'")
	_, err = queryErr(c, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 50000000) g ORDER BY md5(g::text)) s")
	wantState(t, "cancelled sort", err, "57014")
	exec(t, c, "RESET statement_timeout")
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after the cancel", n)
	}
}

func TestLogTempFiles(t *testing.T) {
	buf := &logCapture{}
	s := testutil.Start(t, testutil.Options{Logger: log.New(buf, "", 0)})
	c := connectDefault(t, s.DSN())
	exec(t, c, "SET work_mem = '64kB'")
	exec(t, c, "SET log_temp_files = 0")
	query(t, c, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000) g ORDER BY md5(g::text)) s")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil && !strings.Contains(buf.String(), "LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp") {
		time.Sleep(10 * time.Millisecond)
	}
	if !regexp.MustCompile(`LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp[0-9]+\.[0-9]+", size [0-9]+`).MatchString(buf.String()) {
		t.Fatalf("no log_temp_files line in the log:\n%s", buf.String())
	}
}

func TestHashAggregateSpillsPastHashMem(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE ha (k int, v int, t text)")
	exec(t, c, "INSERT INTO ha SELECT g % 20011, g, md5(g::text) FROM generate_series(1, 60000) g")
	exec(t, c, "INSERT INTO ha VALUES (NULL, 1, 'x'), (NULL, 2, 'y')")
	queries := []string{
		"SELECT k, count(*), sum(v), min(t), max(v), avg(v), string_agg(t, ',' ORDER BY v), array_agg(v ORDER BY v DESC), count(DISTINCT v % 3) FROM ha GROUP BY k ORDER BY k",
		"SELECT DISTINCT t FROM ha WHERE v % 2 = 0 ORDER BY t",
		"SELECT k % 100, count(*) FROM ha GROUP BY k % 100 HAVING count(*) > 1 ORDER BY 1",
	}
	want := inMemoryResults(t, c, queries)
	exec(t, c, "SET work_mem = '64kB'")
	exec(t, c, "SET hash_mem_multiplier = 1")
	sameResults(t, c, queries, want, "the spilled aggregate's rows differ from the in-memory one's")
	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT k, count(*) FROM ha GROUP BY k")
	if !regexp.MustCompile(`Batches: [0-9]+  Memory Usage: [0-9]+kB  Disk Usage: [0-9]+kB`).MatchString(plan) ||
		!strings.Contains(plan, "temp read=") {
		t.Fatalf("no spill lines in\n%s", plan)
	}
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left", n)
	}
	exec(t, c, "SET work_mem = '64MB'")
	plan = query(t, c, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT k, count(*) FROM ha GROUP BY k")
	if !regexp.MustCompile(`Batches: 1  Memory Usage: [0-9]+kB,`).MatchString(plan) {
		t.Fatalf("no in-memory batch line in\n%s", plan)
	}
	// Closed early (LIMIT), the aggregate removes the partitions it did not read.
	exec(t, c, "SET work_mem = '64kB'")
	query(t, c, "SELECT * FROM (SELECT k, count(*) FROM ha GROUP BY k) s LIMIT 3")
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after LIMIT", n)
	}
}

func TestCreateIndexSortsWithinMaintenanceWorkMem(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE ix (id int, t text)")
	exec(t, c, "INSERT INTO ix SELECT g, md5(g::text) FROM generate_series(1, 40000) g")
	exec(t, c, "SET maintenance_work_mem = '1MB'")
	before := queryInt(t, c, "SELECT temp_files FROM pg_stat_database WHERE datname = 'postgres'")
	exec(t, c, "CREATE UNIQUE INDEX ix_t ON ix (t)")
	if after := queryInt(t, c, "SELECT temp_files FROM pg_stat_database WHERE datname = 'postgres'"); after <= before {
		t.Fatalf("CREATE INDEX with maintenance_work_mem = 1MB wrote no temporary file (%d -> %d)", before, after)
	}
	if plan := query(t, c, "EXPLAIN (COSTS OFF) SELECT id FROM ix WHERE t = md5('31337')"); !strings.Contains(plan, "Index") {
		t.Fatalf("no index scan: %s", plan)
	}
	if got := query(t, c, "SELECT id FROM ix WHERE t = md5('31337')"); got != "31337" {
		t.Fatalf("index lookup = %q", got)
	}
	if got := query(t, c, "SELECT count(*) FROM (SELECT t FROM ix ORDER BY t) s"); got != "40000" {
		t.Fatalf("count = %s", got)
	}
	// A duplicate found by the spilled sort fails as PostgreSQL says it.
	exec(t, c, "DROP INDEX ix_t")
	exec(t, c, "INSERT INTO ix VALUES (40001, md5('777'))")
	_, err := execErr(c, "CREATE UNIQUE INDEX ix_t2 ON ix (t)")
	pe := wantState(t, "duplicate key", err, "23505")
	if pe.Message != `could not create unique index "ix_t2"` || pe.Detail != "Key (t)=("+md5hex("777")+") is duplicated." {
		t.Fatalf("got %q / %q", pe.Message, pe.Detail)
	}
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left", n)
	}
}

func md5hex(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }

// TestHashJoinSpillsPastHashMem: a hash join whose inner side outgrows
// hash_mem splits into batches on temporary files (PostgreSQL's hybrid
// hash join) and returns the in-memory join's rows for every join kind,
// NULL keys, join filters and one key's rows that no split can divide;
// EXPLAIN ANALYZE gives the batch count, and no file outlives the join.
func TestHashJoinSpillsPastHashMem(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE hjl AS SELECT g AS id, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 1000 END AS k, md5(g::text) AS pad FROM generate_series(1, 20000) g")
	exec(t, c, "CREATE TABLE hjr AS SELECT g AS id, CASE WHEN g % 89 = 0 THEN NULL ELSE g % 1500 END AS k, md5(g::text) AS pad FROM generate_series(1, 20000) g")
	queries := []string{
		"SELECT count(*), sum(l.id), sum(r.id) FROM hjl l JOIN hjr r ON l.k = r.k",
		"SELECT count(*), sum(l.id), sum(r.id), count(r.id) FROM hjl l LEFT JOIN hjr r ON l.k = r.k",
		"SELECT count(*), sum(l.id), count(l.id), sum(r.id) FROM hjl l RIGHT JOIN hjr r ON l.k = r.k",
		"SELECT count(*), count(l.id), count(r.id), sum(l.id), sum(r.id) FROM hjl l FULL JOIN hjr r ON l.k = r.k",
		"SELECT count(*), count(l.id), count(r.id) FROM hjl l FULL JOIN hjr r ON l.k = r.k AND l.id < r.id",
		"SELECT l.id, r.id FROM hjl l JOIN hjr r ON l.k = r.k AND l.pad = r.pad ORDER BY 1, 2",
		// 3000 inner rows of one key: splitting cannot help, the batch runs over hash_mem
		"SELECT count(*), sum(l.id) FROM hjl l JOIN (SELECT 7 AS k, g, md5(g::text) FROM generate_series(1, 3000) g) r ON l.k = r.k",
	}
	want := inMemoryResults(t, c, queries)
	exec(t, c, "SET work_mem = '64kB'")
	exec(t, c, "SET hash_mem_multiplier = 1")
	sameResults(t, c, queries, want, "the batched join's rows differ from the in-memory one's")
	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*) FROM hjl l JOIN hjr r ON l.k = r.k")
	m := regexp.MustCompile(`Buckets: [0-9]+ \(originally [0-9]+\)  Batches: ([0-9]+) \(originally 1\)  Memory Usage: ([0-9]+)kB`).FindStringSubmatch(plan)
	if m == nil || !strings.Contains(plan, "temp read=") {
		t.Fatalf("no batch lines in\n%s", plan)
	}
	if kb, _ := strconv.Atoi(m[2]); kb > 64+8 {
		t.Errorf("a batch held %d kB with hash_mem 64kB:\n%s", kb, plan)
	}
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left", n)
	}
	exec(t, c, "SET work_mem = '64MB'")
	plan = query(t, c, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM hjl l JOIN hjr r ON l.k = r.k")
	if !regexp.MustCompile(`Buckets: 32768  Batches: 1  Memory Usage: [0-9]+kB`).MatchString(plan) {
		t.Fatalf("no in-memory hash line in\n%s", plan)
	}
	// Closed early (LIMIT), the join removes the batches it did not read.
	exec(t, c, "SET work_mem = '64kB'")
	query(t, c, "SELECT * FROM hjl l JOIN hjr r ON l.k = r.k LIMIT 3")
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after LIMIT", n)
	}
}

// TestRowStoresSpillPastWorkMem: a WITH query's rows (read by two scans,
// and read lazily by a recursive query), a nested loop's inner side and a
// recursive query's working table keep at most work_mem in memory, then
// go on from a temporary file, with the in-memory results; no file
// outlives the transaction.
func TestRowStoresSpillPastWorkMem(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectDefault(t, s.DSN())
	exec(t, c, "CREATE TABLE rs (id int, t text)")
	exec(t, c, "INSERT INTO rs SELECT g, md5(g::text) FROM generate_series(1, 5000) g")
	queries := []string{
		// a CTE read by two scans at different paces
		"WITH w AS MATERIALIZED (SELECT id, t FROM rs) SELECT count(*), sum(a.id), max(b.t) FROM w a JOIN w b ON a.id = b.id + 1",
		"WITH w AS MATERIALIZED (SELECT id, t FROM rs) SELECT (SELECT count(*) FROM w), (SELECT max(t) FROM w WHERE id % 7 = 0)",
		// a nested loop (non-equality join) rereads its inner side per outer row
		"SELECT count(*), sum(a.id - b.id) FROM (SELECT id FROM rs WHERE id <= 40) a JOIN rs b ON b.id < a.id * 100 AND b.t > a.id::text",
		"SELECT count(*), count(b.id) FROM (SELECT id FROM rs WHERE id <= 30) a FULL JOIN (SELECT id, t FROM rs WHERE id % 3 = 0) b ON b.id < a.id",
		// a recursive query whose working table holds 2000 wide rows a round
		"WITH RECURSIVE r(n, pad) AS (SELECT id, t FROM rs WHERE id <= 2000 UNION ALL SELECT n + 2000, md5(pad) FROM r WHERE n <= 8000) SELECT count(*), max(n), min(pad) FROM r",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 20000) SELECT count(*), sum(n) FROM r",
	}
	want := inMemoryResults(t, c, queries)
	exec(t, c, "SET work_mem = '64kB'")
	exec(t, c, "BEGIN")
	sameResults(t, c, queries, want, "with work_mem 64kB")
	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "+queries[0])
	if !strings.Contains(plan, "temp read=") {
		t.Fatalf("the WITH query did not spill:\n%s", plan)
	}
	exec(t, c, "COMMIT")
	if n := tempFilesIn(t, s.Dir); n != 0 {
		t.Fatalf("%d temporary files left after the transaction", n)
	}
}
