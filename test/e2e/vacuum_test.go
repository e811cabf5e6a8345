package e2e

// VACUUM through a real client: PostgreSQL 17's radix-tree dead-TID store
// against PostgreSQL 15's flat array (vacuum_dead_tid_store), the VERBOSE
// report in the format /work/shared/bench/seeds.sh parses, the dead-TID
// memory per TID, pg_stat_progress_vacuum seen from another session, the
// vacuum ring buffer (BUFFER_USAGE_LIMIT), concurrent sessions, FREEZE,
// TRUNCATE, INDEX_CLEANUP, PARALLEL and option errors. The workloads are
// the seed-002 ones (vac6, deadtid) scaled down to CI size: the counters
// (index passes, dead item identifiers, bytes per TID) are exact and are
// asserted exactly; the full-scale figures are in bench/results.

import (
	"context"
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// ---------------------------------------------------------------------------
// helpers

// vacServer starts a server for one VACUUM test (autovacuum off, so that
// nothing but the test vacuums its tables).
func vacServer(t *testing.T, sharedBuffers int) *testutil.Server {
	t.Helper()
	return testutil.Start(t, testutil.Options{SharedBuffers: sharedBuffers, Conf: onHeap(map[string]string{"autovacuum": "off"})})
}

// noticeConn is a connection that keeps the INFO/NOTICE messages it gets,
// formatted as psql prints them on stderr ("INFO:  " + message, the
// message's continuation lines unchanged), which is what seeds.sh parses.
type noticeConn struct {
	*pgx.Conn
	mu    sync.Mutex
	lines []string
}

func vconn(t *testing.T, dsn string) *noticeConn {
	t.Helper()
	nc := &noticeConn{}
	cfg, err := pgx.ParseConfig(dsn + "&default_query_exec_mode=simple_protocol")
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		nc.mu.Lock()
		defer nc.mu.Unlock()
		nc.lines = append(nc.lines, strings.Split(n.Severity+":  "+n.Message, "\n")...)
	}
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	nc.Conn = c
	return nc
}

// verbose runs a VACUUM (VERBOSE ...) statement and returns the report
// parsed as seeds.sh parses it, plus the raw lines.
func (nc *noticeConn) verbose(t *testing.T, sql, table string) (map[string]string, []string) {
	t.Helper()
	nc.mu.Lock()
	nc.lines = nil
	nc.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := nc.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	nc.mu.Lock()
	lines := append([]string(nil), nc.lines...)
	nc.mu.Unlock()
	return parseVacuumVerbose(lines, table), lines
}

// The regular expressions of seeds.sh's parse_vacuum_verbose (Perl),
// verbatim but for Go syntax, plus the lines seeds.sh does not read that
// these tests assert (dead item storage, frozen, new relfrozenxid).
var (
	reLaunched   = regexp.MustCompile(`launched (\d+) parallel vacuum workers? for index (vacuuming|cleanup) \(planned: (\d+)\)`)
	reScannedIdx = regexp.MustCompile(`scanned index "[^"]*" to remove (\d+) row versions`)
	reBlockEnd   = regexp.MustCompile(`^(?:\S*\s+)?(INFO|WARNING|ERROR|NOTICE):`)
	rePages      = regexp.MustCompile(`^pages: (\d+) removed, (\d+) remain, (\d+) scanned`)
	reTuples     = regexp.MustCompile(`^tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable`)
	reIdxNeeded  = regexp.MustCompile(`^index scan (?:not )?needed: (\d+) pages from table \(([0-9.]+)% of total\) had (\d+) dead item identifiers removed`)
	reIdxBypass  = regexp.MustCompile(`^index scan bypassed.*: (\d+) pages from table .* have (\d+) dead item identifiers`)
	reIdxPages   = regexp.MustCompile(`^index "[^"]*": pages: (\d+) in total`)
	reBufUsage   = regexp.MustCompile(`^buffer usage: (\d+) hits, (\d+) misses, (\d+) dirtied`)
	reWALUsage   = regexp.MustCompile(`^WAL usage: (\d+) records, (\d+) full page images, (\d+) bytes`)
	reSysUsage   = regexp.MustCompile(`^system usage: CPU: user: ([0-9.]+) s, system: ([0-9.]+) s, elapsed: ([0-9.]+) s`)
	// not parsed by seeds.sh
	reDeadStore = regexp.MustCompile(`^dead item storage: (radix tree|flat array \(PostgreSQL 15\)), (\d+) bytes at most \(([0-9.]+) bytes per dead item identifier\), limit (\d+) kB$`)
	reFrozen    = regexp.MustCompile(`^frozen: (\d+) pages from table \(([0-9.]+)% of total\) had (\d+) tuples frozen`)
	reRelFrozen = regexp.MustCompile(`^new relfrozenxid: (\d+), which is (-?\d+) XIDs ahead of previous value`)
)

// parseVacuumVerbose is seeds.sh's parse_vacuum_verbose in Go: the same
// keys, from the same regular expressions, plus store_kind, store_bytes,
// store_bytes_per_tid, store_limit_kb, frozen_pages, tuples_frozen,
// new_relfrozenxid and relfrozenxid_ahead.
func parseVacuumVerbose(lines []string, tbl string) map[string]string {
	out := map[string]string{}
	reFinished := regexp.MustCompile(`finished vacuuming "(?:[^"]*\.)?` + regexp.QuoteMeta(tbl) + `": index scans: (\d+)`)
	in := false
	scanned, nidx, idxPages := 0, 0, 0
	for _, l := range lines {
		if m := reLaunched.FindStringSubmatch(l); m != nil {
			p := "cleanup"
			if m[2] == "vacuuming" {
				p = "vacuum"
			}
			out["workers_launched_"+p], out["workers_planned_"+p] = m[1], m[3]
			continue
		}
		if reScannedIdx.MatchString(l) {
			scanned++
			continue
		}
		if m := reFinished.FindStringSubmatch(l); m != nil {
			in = true
			out["index_scans"] = m[1]
			continue
		}
		if in && reBlockEnd.MatchString(l) {
			in = false
		}
		if !in {
			continue
		}
		if m := rePages.FindStringSubmatch(l); m != nil {
			out["pages_removed"], out["pages_remain"], out["pages_scanned"] = m[1], m[2], m[3]
		} else if m := reTuples.FindStringSubmatch(l); m != nil {
			out["tuples_removed"], out["tuples_remain"], out["tuples_not_removable"] = m[1], m[2], m[3]
		} else if m := reIdxNeeded.FindStringSubmatch(l); m != nil {
			out["lpdead_pages"], out["dead_item_ids_removed"] = m[1], m[3]
		} else if m := reIdxBypass.FindStringSubmatch(l); m != nil {
			out["index_scan_bypassed"], out["lpdead_pages"], out["dead_item_ids_removed"] = "1", m[1], "0"
			out["lpdead_items"] = m[2] // not a seeds.sh key
		} else if m := reIdxPages.FindStringSubmatch(l); m != nil {
			nidx++
			n, _ := strconv.Atoi(m[1])
			idxPages += n
		} else if m := reBufUsage.FindStringSubmatch(l); m != nil {
			out["buf_hits"], out["buf_misses"], out["buf_dirtied"] = m[1], m[2], m[3]
		} else if m := reWALUsage.FindStringSubmatch(l); m != nil {
			out["wal_records"], out["wal_fpi"], out["wal_bytes"] = m[1], m[2], m[3]
		} else if m := reSysUsage.FindStringSubmatch(l); m != nil {
			out["cpu_user_s"], out["cpu_sys_s"], out["elapsed_s"] = m[1], m[2], m[3]
		} else if m := reDeadStore.FindStringSubmatch(l); m != nil {
			out["store_kind"], out["store_bytes"], out["store_bytes_per_tid"], out["store_limit_kb"] = m[1], m[2], m[3], m[4]
		} else if m := reFrozen.FindStringSubmatch(l); m != nil {
			out["frozen_pages"], out["tuples_frozen"] = m[1], m[3]
		} else if m := reRelFrozen.FindStringSubmatch(l); m != nil {
			out["new_relfrozenxid"], out["relfrozenxid_ahead"] = m[1], m[2]
		}
	}
	if nidx > 0 {
		out["indexes"], out["index_pages_total"] = strconv.Itoa(nidx), strconv.Itoa(idxPages)
	}
	if scanned > 0 {
		out["scanned_index_msgs"] = strconv.Itoa(scanned)
	}
	return out
}

// num returns a parsed key as a number, failing the test if it is missing.
func num(t *testing.T, rep map[string]string, key string, lines []string) float64 {
	t.Helper()
	v, ok := rep[key]
	if !ok {
		t.Fatalf("VACUUM VERBOSE report has no %q (seeds.sh's parser would miss it); report:\n%s", key, strings.Join(lines, "\n"))
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s = %q: %v", key, v, err)
	}
	return f
}

// wantNum asserts an exact value of a parsed key.
func wantNum(t *testing.T, rep map[string]string, lines []string, key string, want float64) {
	t.Helper()
	if got := num(t, rep, key, lines); got != want {
		t.Fatalf("%s = %v, want %v; report:\n%s", key, got, want, strings.Join(lines, "\n"))
	}
}

// checkOK asserts SELECT tidal_check('table') = 'ok'.
func checkOK(t *testing.T, c *pgx.Conn, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var s string
	if err := c.QueryRow(ctx, "SELECT tidal_check('"+table+"')").Scan(&s); err != nil {
		t.Fatalf("tidal_check(%s): %v", table, err)
	}
	if s != "ok" {
		t.Fatalf("tidal_check(%s) = %q", table, s)
	}
}

// longExec runs a statement that may take longer than stmtTimeout.
func longExec(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tag, err := c.Exec(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.String()
}

func relPages(t *testing.T, c *pgx.Conn, rel string) int64 {
	t.Helper()
	return queryInt(t, c, "SELECT pg_relation_size('"+rel+"') / 8192")
}

// buildVac6 creates seeds.sh's six-index table (vac_build_sql) with n rows
// and updates every row twice: 2n dead tuples, none of them HOT.
func buildVac6(t *testing.T, c *pgx.Conn, tbl string, n int) {
	t.Helper()
	for _, q := range []string{
		fmt.Sprintf(`CREATE TABLE %s (id integer NOT NULL, a integer NOT NULL, b integer NOT NULL,
			c integer NOT NULL, d text NOT NULL, e text NOT NULL)`, tbl),
		fmt.Sprintf(`INSERT INTO %[1]s (id, a, b, c, d, e)
			SELECT i, i, ((i::bigint * 7919) %% %[2]d)::integer, i %% 100, md5(i::text), md5((i + 1)::text)
			FROM generate_series(1, %[2]d) AS i`, tbl, n),
		fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (id)", tbl),
		fmt.Sprintf("CREATE INDEX %[1]s_a ON %[1]s (a)", tbl),
		fmt.Sprintf("CREATE INDEX %[1]s_b ON %[1]s (b)", tbl),
		fmt.Sprintf("CREATE INDEX %[1]s_c ON %[1]s (c)", tbl),
		fmt.Sprintf("CREATE INDEX %[1]s_d ON %[1]s (d)", tbl),
		fmt.Sprintf("CREATE INDEX %[1]s_e ON %[1]s (e)", tbl),
		fmt.Sprintf("UPDATE %s SET a = a + 1", tbl),
		fmt.Sprintf("UPDATE %s SET a = a + 1", tbl),
		"CHECKPOINT",
	} {
		longExec(t, c, q)
	}
}

// arrayCapacity is PostgreSQL 15's dead_items_max_items: (mwm - 8) / 6
// TID slots, capped at what the table can hold (rel_pages * 291), at
// least 291 (internal/access/tidstore ArrayMaxItems).
func arrayCapacity(mwmBytes, relPages int64) int64 {
	n := (mwmBytes - 8) / 6
	n = min(n, relPages*291)
	return max(n, 291)
}

// arrayPasses replays PostgreSQL 15's rule over the dead items per heap
// block (in block order): an index pass runs as soon as fewer than
// MaxHeapTuplesPerPage (291) free slots remain, and once at the end.
func arrayPasses(perBlock []int, capItems int64) int {
	var n int64
	passes := 0
	for _, k := range perBlock {
		n += int64(k)
		if capItems-n < 291 {
			passes++
			n = 0
		}
	}
	if n > 0 {
		passes++
	}
	return passes
}

// progressSample is one row of pg_stat_progress_vacuum.
type progressSample struct {
	phase                                  string
	indexVacuumCount                       int64
	maxDeadTupleBytes, deadTupleBytes, num int64
}

// pollProgress samples pg_stat_progress_vacuum from its own session until
// stop is called, which returns the samples.
func pollProgress(t *testing.T, dsn string) (stop func() []progressSample) {
	t.Helper()
	c := connect(t, dsn)
	done := make(chan struct{})
	res := make(chan []progressSample, 1)
	var pollErr error
	go func() {
		var out []progressSample
		for {
			select {
			case <-done:
				res <- out
				return
			default:
			}
			rows, err := c.Query(context.Background(), `SELECT phase, index_vacuum_count, max_dead_tuple_bytes,
				dead_tuple_bytes, num_dead_item_ids FROM pg_stat_progress_vacuum`)
			if err != nil {
				pollErr = err
				res <- out
				return
			}
			for rows.Next() {
				var s progressSample
				if err := rows.Scan(&s.phase, &s.indexVacuumCount, &s.maxDeadTupleBytes, &s.deadTupleBytes, &s.num); err != nil {
					pollErr = err
				}
				out = append(out, s)
			}
			rows.Close()
		}
	}()
	return func() []progressSample {
		close(done)
		s := <-res
		if pollErr != nil {
			t.Fatalf("polling pg_stat_progress_vacuum: %v", pollErr)
		}
		return s
	}
}

// afterScan are the samples taken once the heap scan filled the store
// (index or heap vacuuming), when dead_tuple_bytes is the batch's size.
func afterScan(ss []progressSample) []progressSample {
	var out []progressSample
	for _, s := range ss {
		if (s.phase == "vacuuming indexes" || s.phase == "vacuuming heap") && s.num > 0 {
			out = append(out, s)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// seed 002, workload vac6

// Six indexes, every row updated twice: one index pass removes all 2n dead
// item identifiers, the default VACUUM runs parallel (2 workers), the
// checker passes, and repeating the updates reuses the freed space. The
// second VACUUM is PARALLEL 0: no "launched" line.
func TestVacuumSixIndexes(t *testing.T) {
	const n = 40000 // seed: 400,000
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	buildVac6(t, c.Conn, "vac6", n)
	pagesBefore := relPages(t, c.Conn, "vac6")

	rep, lines := c.verbose(t, "VACUUM (VERBOSE) vac6", "vac6")
	wantNum(t, rep, lines, "index_scans", 1)
	wantNum(t, rep, lines, "dead_item_ids_removed", 2*n)
	wantNum(t, rep, lines, "tuples_remain", n)
	wantNum(t, rep, lines, "tuples_not_removable", 0)
	// As PostgreSQL 15 (400,000 removed of 800,000 dead at seed scale):
	// the other half were pruned to LP_DEAD by the second UPDATE already.
	wantNum(t, rep, lines, "tuples_removed", n)
	wantNum(t, rep, lines, "indexes", 6)
	wantNum(t, rep, lines, "pages_removed", 0)
	wantNum(t, rep, lines, "pages_remain", float64(pagesBefore))
	wantNum(t, rep, lines, "pages_scanned", float64(pagesBefore))
	// PostgreSQL 13+'s default: #indexes - 1 workers, capped by
	// max_parallel_maintenance_workers (2).
	wantNum(t, rep, lines, "workers_planned_vacuum", 2)
	wantNum(t, rep, lines, "workers_launched_vacuum", 2)
	// Two thirds of the pages hold the dead versions (seed: 11,429 of
	// 17,143 = 66.67 %).
	if lp := num(t, rep, "lpdead_pages", lines); lp < 0.6*float64(pagesBefore) || lp > 0.7*float64(pagesBefore) {
		t.Fatalf("lpdead_pages = %v of %d pages, want about 2/3", lp, pagesBefore)
	}
	for _, k := range []string{"buf_hits", "buf_misses", "buf_dirtied", "wal_records", "wal_fpi", "wal_bytes", "cpu_user_s", "elapsed_s"} {
		num(t, rep, k, lines)
	}
	if num(t, rep, "buf_dirtied", lines) == 0 || num(t, rep, "wal_records", lines) == 0 {
		t.Fatalf("VACUUM dirtied nothing / wrote no WAL:\n%s", strings.Join(lines, "\n"))
	}
	if rep["store_kind"] != "radix tree" {
		t.Fatalf("default dead-TID store %q, want radix tree:\n%s", rep["store_kind"], strings.Join(lines, "\n"))
	}
	checkOK(t, c.Conn, "vac6")
	if got := query(t, c.Conn, "SELECT count(*), sum(a::bigint) - sum(id::bigint) FROM vac6"); got != fmt.Sprintf("%d|%d", n, 2*n) {
		t.Fatalf("count, sum(a - id) = %s", got)
	}
	if got := query(t, c.Conn, "SELECT vacuum_count, n_live_tup, last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'vac6'"); got != fmt.Sprintf("1|%d|true", n) {
		t.Fatalf("pg_stat_user_tables after VACUUM: %s", got)
	}

	// The same two updates again go into the space VACUUM freed.
	longExec(t, c.Conn, "UPDATE vac6 SET a = a + 1")
	longExec(t, c.Conn, "UPDATE vac6 SET a = a + 1")
	pagesAfter := relPages(t, c.Conn, "vac6")
	if float64(pagesAfter) >= 1.10*float64(pagesBefore) {
		t.Fatalf("table grew from %d to %d pages repeating the updates after VACUUM (want < +10%%)", pagesBefore, pagesAfter)
	}
	t.Logf("heap pages: %d after the updates, %d after repeating them post-VACUUM", pagesBefore, pagesAfter)
	checkOK(t, c.Conn, "vac6")
	if got := query(t, c.Conn, "SELECT count(*), sum(a::bigint) - sum(id::bigint) FROM vac6"); got != fmt.Sprintf("%d|%d", n, 4*n) {
		t.Fatalf("count, sum(a - id) after more updates = %s", got)
	}
	if got := query(t, c.Conn, fmt.Sprintf("SELECT count(*) FROM vac6 WHERE a = %d", n/2+4)); got != "1" {
		t.Fatalf("index lookup on a after more updates: %s rows", got)
	}

	// PARALLEL 0 is really serial: no workers line.
	rep, lines = c.verbose(t, "VACUUM (VERBOSE, PARALLEL 0) vac6", "vac6")
	if _, ok := rep["workers_launched_vacuum"]; ok {
		t.Fatalf("PARALLEL 0 launched workers:\n%s", strings.Join(lines, "\n"))
	}
	wantNum(t, rep, lines, "index_scans", 1)
	wantNum(t, rep, lines, "dead_item_ids_removed", 2*n)
	wantNum(t, rep, lines, "tuples_remain", n)
	checkOK(t, c.Conn, "vac6")
	if got := queryInt(t, c.Conn, "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'vac6'"); got != 2 {
		t.Fatalf("vacuum_count = %d, want 2", got)
	}
}

// ---------------------------------------------------------------------------
// seed 002, workload deadtid

// The deadtid workload scaled down: 60,000 rows of the six-index table
// updated twice = 120,000 dead TIDs at maintenance_work_mem = 64kB (the
// seed: 2,000,000 at 1MB, about the same TIDs per byte). The flat array
// holds (65536 - 8) / 6 = 10,921 TIDs and runs an index pass whenever
// fewer than 291 slots remain: 12 passes, exactly what the capacity rule
// predicts from the dead items per page (PostgreSQL 15 needs 12 at seed
// scale too). The radix store holds them all in one pass (at most 2).
// pg_stat_progress_vacuum, polled from another session, shows the store
// filling up and its limit.
func TestVacuumDeadTIDPasses(t *testing.T) {
	const n = 60000
	const mwm = 64 << 10
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())

	passes := map[string]int{}
	for _, store := range []string{"array", "radix"} {
		tbl := "dt6_" + store
		buildVac6(t, c.Conn, tbl, n)
		pages := relPages(t, c.Conn, tbl)
		exec(t, c.Conn, "SET maintenance_work_mem = '64kB'")
		exec(t, c.Conn, "SET vacuum_dead_tid_store = '"+store+"'")
		stop := pollProgress(t, s.DSN())
		rep, lines := c.verbose(t, "VACUUM (VERBOSE, PARALLEL 0) "+tbl, tbl)
		samples := stop()

		wantNum(t, rep, lines, "dead_item_ids_removed", 2*n)
		wantNum(t, rep, lines, "tuples_remain", n)
		wantNum(t, rep, lines, "store_limit_kb", 64)
		passes[store] = int(num(t, rep, "index_scans", lines))
		lpPages := int(num(t, rep, "lpdead_pages", lines))
		checkOK(t, c.Conn, tbl)
		during := afterScan(samples)
		t.Logf("%s: %d index passes; %d progress samples, %d after a heap scan", store, passes[store], len(samples), len(during))
		if len(during) == 0 {
			t.Fatalf("%s: pg_stat_progress_vacuum never showed a filled store (%d samples)", store, len(samples))
		}
		maxCount := int64(0)
		for _, sm := range samples {
			maxCount = max(maxCount, sm.indexVacuumCount)
		}

		switch store {
		case "array":
			// Every dead page holds the same number of dead versions
			// (fixed-width rows), but for the last one.
			d := 2 * n
			k := (d + lpPages - 1) / lpPages
			perBlock := make([]int, lpPages)
			for i := range perBlock {
				perBlock[i] = min(k, d-k*i)
			}
			capItems := arrayCapacity(mwm, pages)
			want := arrayPasses(perBlock, capItems)
			if passes[store] != want {
				t.Fatalf("array: %d index passes, the PostgreSQL 15 rule gives %d (capacity %d, %d dead pages of %d)", passes[store], want, capItems, lpPages, k)
			}
			if want < 10 {
				t.Fatalf("test too small: the array needs only %d passes", want)
			}
			wantNum(t, rep, lines, "store_bytes_per_tid", 6)
			for _, sm := range samples {
				if sm.maxDeadTupleBytes != capItems*6 {
					t.Fatalf("array: max_dead_tuple_bytes = %d, want %d (%d slots)", sm.maxDeadTupleBytes, capItems*6, capItems)
				}
			}
			for _, sm := range during {
				if sm.deadTupleBytes != 6*sm.num || sm.num > capItems {
					t.Fatalf("array: dead_tuple_bytes %d for %d TIDs (capacity %d)", sm.deadTupleBytes, sm.num, capItems)
				}
			}
		case "radix":
			if passes[store] > 2 || passes[store] >= passes["array"] {
				t.Fatalf("radix: %d index passes, want at most 2 and fewer than the array's %d", passes[store], passes["array"])
			}
			for _, sm := range samples {
				if sm.maxDeadTupleBytes != mwm {
					t.Fatalf("radix: max_dead_tuple_bytes = %d, want %d", sm.maxDeadTupleBytes, mwm)
				}
			}
			for _, sm := range during {
				// The store may overshoot the limit by the last block's
				// allocation (PostgreSQL 17 does too), never by more than
				// one 64 KiB arena chunk.
				if sm.deadTupleBytes <= 0 || sm.deadTupleBytes > 2*mwm {
					t.Fatalf("radix: dead_tuple_bytes %d with %d TIDs", sm.deadTupleBytes, sm.num)
				}
				if per := float64(sm.deadTupleBytes) / float64(sm.num); per >= 1 {
					t.Fatalf("radix: %d bytes for %d TIDs = %.3f bytes per TID in pg_stat_progress_vacuum", sm.deadTupleBytes, sm.num, per)
				}
			}
			if per := num(t, rep, "store_bytes_per_tid", lines); per >= 1 {
				t.Fatalf("radix: VERBOSE says %.3f bytes per TID", per)
			}
		}
		if int(maxCount) > passes[store] {
			t.Fatalf("%s: index_vacuum_count reached %d, VERBOSE says %d index scans", store, maxCount, passes[store])
		}
	}
}

// ---------------------------------------------------------------------------
// Dead-TID memory per TID

// tidPattern is one of PostgreSQL 17 baseline's delete patterns on a
// (id int, v int) table (226 rows per page).
type tidPattern struct {
	name  string
	where string
	dead  func(id int) bool
	limit float64 // PostgreSQL 17's bytes per TID (dense, forty); 6 for sparse
}

var tidPatterns = []tidPattern{
	{"dense", "id % 10 <> 0", func(id int) bool { return id%10 != 0 }, 0.280},
	{"forty", "id % 5 IN (0, 1)", func(id int) bool { return id%5 == 0 || id%5 == 1 }, 0.631},
	{"sparse", "id % 200 = 0", func(id int) bool { return id%200 == 0 }, 6},
}

// Bytes per dead TID, from VERBOSE's "dead item storage" line and from
// pg_stat_progress_vacuum: the radix store at most PostgreSQL 17's 0.280
// (dense) and 0.631 (40 %) bytes per TID and below the array's 6 on the
// sparse pattern; the array exactly 6. At maintenance_work_mem = 64kB the
// array's index passes follow PostgreSQL 15's rule exactly, computed from
// the known position of every row (row i at block (i-1)/226), while the
// radix store needs a single pass.
func TestVacuumDeadTIDBytesPerTID(t *testing.T) {
	const blocks = 1000
	const n = 226 * blocks // seed: 10,000,000 rows (44,248 blocks)
	const mwm = 64 << 10
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())

	build := func(tbl string, p tidPattern) {
		exec(t, c.Conn, "DROP TABLE IF EXISTS "+tbl)
		exec(t, c.Conn, "CREATE TABLE "+tbl+" (id int, v int)")
		longExec(t, c.Conn, fmt.Sprintf("INSERT INTO %s SELECT g, g FROM generate_series(1, %d) g", tbl, n))
		longExec(t, c.Conn, fmt.Sprintf("CREATE INDEX %s_id ON %s (id)", tbl, tbl))
		longExec(t, c.Conn, fmt.Sprintf("DELETE FROM %s WHERE %s", tbl, p.where))
		if got := relPages(t, c.Conn, tbl); got != blocks {
			t.Fatalf("%d rows of (int, int) take %d pages, want %d (226 per page)", n, got, blocks)
		}
	}
	exec(t, c.Conn, "SET maintenance_work_mem = '64kB'")
	for _, p := range tidPatterns {
		perBlock := make([]int, blocks)
		dead := 0
		for id := 1; id <= n; id++ {
			if p.dead(id) {
				perBlock[(id-1)/226]++
				dead++
			}
		}
		for _, store := range []string{"radix", "array"} {
			t.Run(p.name+"/"+store, func(t *testing.T) {
				tbl := "tb_" + p.name + "_" + store
				exec(t, c.Conn, "SET vacuum_dead_tid_store = '"+store+"'")
				var rep map[string]string
				var lines []string
				var during []progressSample
				// The progress view must be caught after the heap scan,
				// when dead_tuple_bytes holds the whole batch; the VACUUM
				// is short, so rebuild and retry a few times if missed.
				for attempt := 1; ; attempt++ {
					build(tbl, p)
					stop := pollProgress(t, s.DSN())
					rep, lines = c.verbose(t, "VACUUM (VERBOSE) "+tbl, tbl)
					during = afterScan(stop())
					if len(during) > 0 || store == "array" || attempt == 4 {
						break
					}
				}
				wantNum(t, rep, lines, "dead_item_ids_removed", float64(dead))
				wantNum(t, rep, lines, "tuples_remain", float64(n-dead))
				checkOK(t, c.Conn, tbl)
				bytes := num(t, rep, "store_bytes", lines)
				per := num(t, rep, "store_bytes_per_tid", lines)
				scans := int(num(t, rep, "index_scans", lines))
				t.Logf("%s %s: %d dead TIDs, %d index scans, %v bytes at most, %v bytes per TID (VERBOSE)", p.name, store, dead, scans, bytes, per)
				switch store {
				case "array":
					if per != 6 {
						t.Fatalf("array: %v bytes per TID, want exactly 6:\n%s", per, strings.Join(lines, "\n"))
					}
					capItems := arrayCapacity(mwm, blocks)
					if want := arrayPasses(perBlock, capItems); scans != want {
						t.Fatalf("array: %d index scans, PostgreSQL 15's rule gives %d", scans, want)
					}
					for _, sm := range during {
						if sm.deadTupleBytes != 6*sm.num {
							t.Fatalf("array: dead_tuple_bytes %d for %d TIDs in pg_stat_progress_vacuum", sm.deadTupleBytes, sm.num)
						}
					}
				case "radix":
					if scans != 1 {
						t.Fatalf("radix: %d index scans, want 1", scans)
					}
					if per > p.limit || (p.name == "sparse" && per >= 6) {
						t.Fatalf("radix %s: %.3f bytes per TID, want at most %.3f (PostgreSQL 17) and below the array's 6", p.name, per, p.limit)
					}
					if got := bytes / float64(dead); got-per > 0.001 || per-got > 0.001 {
						t.Fatalf("radix: %v bytes / %d TIDs = %.4f, VERBOSE says %.3f", bytes, dead, got, per)
					}
					if len(during) == 0 {
						t.Fatalf("radix: pg_stat_progress_vacuum never caught the VACUUM after its heap scan (4 tries)")
					}
					for _, sm := range during {
						if sm.num != int64(dead) || float64(sm.deadTupleBytes) != bytes {
							t.Fatalf("radix: pg_stat_progress_vacuum shows %d bytes for %d TIDs, VERBOSE %v bytes for %d", sm.deadTupleBytes, sm.num, bytes, dead)
						}
					}
					t.Logf("radix %s: pg_stat_progress_vacuum: %d bytes for %d TIDs = %.3f bytes per TID", p.name, during[0].deadTupleBytes, during[0].num, float64(during[0].deadTupleBytes)/float64(during[0].num))
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Vacuum ring buffer

// explainBuffers returns the top plan node's shared hit and read counts of
// EXPLAIN (ANALYZE, BUFFERS) sql.
func explainBuffers(t *testing.T, c *pgx.Conn, sql string) (hit, read int64) {
	t.Helper()
	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS false) "+sql)
	m := regexp.MustCompile(`Buffers: shared ([^,]*)`).FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("no Buffers line in:\n%s", plan)
	}
	for _, f := range strings.Fields(m[1]) {
		if v, ok := strings.CutPrefix(f, "hit="); ok {
			hit, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(f, "read="); ok {
			read, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return hit, read
}

// VACUUM (BUFFER_USAGE_LIMIT '256kB') of a table three times the size of
// shared_buffers recycles its own 32 buffers and leaves a small table's
// cached pages alone; without a ring (BUFFER_USAGE_LIMIT 0) the same
// VACUUM evicts them.
func TestVacuumBufferUsageLimit(t *testing.T) {
	const shared = 16 << 20
	s := vacServer(t, shared)
	c := vconn(t, s.DSN())
	exec(t, c.Conn, "CREATE TABLE big (id int, pad text)")
	// ~48 MB: rows of ~530 bytes, 15 per page.
	longExec(t, c.Conn, "INSERT INTO big SELECT g, repeat(md5(g::text), 16) FROM generate_series(1, 90000) g")
	bigPages := relPages(t, c.Conn, "big")
	if bigPages*8192 < 3*shared-shared/4 {
		t.Fatalf("big has %d pages, want about 3x shared_buffers", bigPages)
	}
	exec(t, c.Conn, "CHECKPOINT")
	exec(t, c.Conn, "CREATE TABLE small (id int, v int)")
	exec(t, c.Conn, "INSERT INTO small SELECT g, g FROM generate_series(1, 10000) g")
	smallPages := relPages(t, c.Conn, "small")
	cache := func() {
		t.Helper()
		for i := 0; i < 3; i++ {
			query(t, c.Conn, "SELECT count(*) FROM small")
		}
		if hit, read := explainBuffers(t, c.Conn, "SELECT count(*) FROM small"); read != 0 || hit < smallPages {
			t.Fatalf("small table not cached before VACUUM: hit=%d read=%d of %d pages", hit, read, smallPages)
		}
	}

	cache()
	rep, lines := c.verbose(t, "VACUUM (VERBOSE, BUFFER_USAGE_LIMIT '256kB') big", "big")
	if misses := num(t, rep, "buf_misses", lines); misses < float64(bigPages-shared/8192) {
		t.Fatalf("VACUUM read only %v pages of %d from disk: the table is not bigger than shared_buffers?", misses, bigPages)
	}
	wantNum(t, rep, lines, "pages_scanned", float64(bigPages))
	hit, read := explainBuffers(t, c.Conn, "SELECT count(*) FROM small")
	t.Logf("after VACUUM (BUFFER_USAGE_LIMIT '256kB') of %d pages: small table hit=%d read=%d (%d pages)", bigPages, hit, read, smallPages)
	if read != 0 || hit < smallPages {
		t.Fatalf("VACUUM with a 256kB ring evicted the small table: hit=%d read=%d of %d pages", hit, read, smallPages)
	}

	// Control: no ring. FREEZE so that every page is read again (the
	// first VACUUM set the visibility map, which a plain VACUUM skips).
	cache()
	rep, lines = c.verbose(t, "VACUUM (VERBOSE, FREEZE, BUFFER_USAGE_LIMIT 0) big", "big")
	wantNum(t, rep, lines, "pages_scanned", float64(bigPages))
	hit, read = explainBuffers(t, c.Conn, "SELECT count(*) FROM small")
	t.Logf("after VACUUM (BUFFER_USAGE_LIMIT 0): small table hit=%d read=%d", hit, read)
	if read == 0 {
		t.Fatalf("VACUUM without a ring left every small-table page cached (hit=%d): the ring test above proves nothing", hit)
	}
	checkOK(t, c.Conn, "big")
}

// ---------------------------------------------------------------------------
// Concurrency

// Reads and writes go on while VACUUM runs again and again: no errors,
// every statement's snapshot consistent, final counts exact, checker ok.
func TestVacuumConcurrentSessions(t *testing.T) {
	const rows = 20000
	const runFor = 4 * time.Second
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	exec(t, c.Conn, "CREATE TABLE acc (id int PRIMARY KEY, bal int NOT NULL, grp int NOT NULL)")
	exec(t, c.Conn, "CREATE INDEX acc_bal ON acc (bal)") // updates are not HOT
	longExec(t, c.Conn, fmt.Sprintf("INSERT INTO acc SELECT g, 0, g %% 10 FROM generate_series(1, %d) g", rows))

	var (
		stopFlag  atomic.Bool
		wg        sync.WaitGroup
		errMu     sync.Mutex
		errs      []string
		inserted  atomic.Int64
		transfers atomic.Int64
		reads     atomic.Int64
	)
	fail := func(format string, args ...any) {
		errMu.Lock()
		errs = append(errs, fmt.Sprintf(format, args...))
		errMu.Unlock()
		stopFlag.Store(true)
	}
	run := func(name string, body func(c *pgx.Conn, r *rand.Rand) error) {
		cc := connect(t, s.DSN())
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(len(name))))
			for !stopFlag.Load() {
				if err := body(cc, r); err != nil {
					fail("%s: %v", name, err)
					return
				}
			}
		}()
	}
	ctx := context.Background()
	// Transfers between random accounts (the total stays 0).
	run("updater", func(c *pgx.Conn, r *rand.Rand) error {
		a, b := 1+r.Intn(rows), 1+r.Intn(rows)
		if _, err := c.Exec(ctx, fmt.Sprintf("BEGIN; UPDATE acc SET bal = bal - 1 WHERE id = %d; UPDATE acc SET bal = bal + 1 WHERE id = %d; COMMIT", a, b)); err != nil {
			return err
		}
		transfers.Add(1)
		return nil
	})
	// New rows beyond the original ids, 50 at a time.
	run("inserter", func(c *pgx.Conn, r *rand.Rand) error {
		from := rows + 1 + inserted.Load()
		tag, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO acc SELECT g, 0, g %% 10 FROM generate_series(%d, %d) g", from, from+49))
		if err != nil {
			return err
		}
		inserted.Add(tag.RowsAffected())
		return nil
	})
	// Sequential scans: a consistent snapshot sees the total of 0.
	run("scanner", func(c *pgx.Conn, r *rand.Rand) error {
		var cnt, sum int64
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT count(*), coalesce(sum(bal), 0) FROM acc WHERE id <= %d", rows)).Scan(&cnt, &sum); err != nil {
			return err
		}
		if cnt != rows || sum != 0 {
			return fmt.Errorf("seq scan saw %d rows with total %d, want %d and 0", cnt, sum, rows)
		}
		reads.Add(1)
		return nil
	})
	// Index lookups: every account exists exactly once.
	run("lookup", func(c *pgx.Conn, r *rand.Rand) error {
		id := 1 + r.Intn(rows)
		var cnt int64
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM acc WHERE id = %d", id)).Scan(&cnt); err != nil {
			return err
		}
		if cnt != 1 {
			return fmt.Errorf("index lookup of id %d found %d rows", id, cnt)
		}
		reads.Add(1)
		return nil
	})

	vacuums := 0
	deadline := time.Now().Add(runFor)
	for time.Now().Before(deadline) && !stopFlag.Load() {
		if _, err := execErr(c.Conn, "VACUUM acc"); err != nil {
			fail("VACUUM: %v", err)
			break
		}
		vacuums++
	}
	stopFlag.Store(true)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("during %d VACUUMs: %s", vacuums, strings.Join(errs, "; "))
	}
	t.Logf("%d VACUUMs alongside %d transfers, %d inserted rows, %d reads", vacuums, transfers.Load(), inserted.Load(), reads.Load())
	if vacuums < 2 || transfers.Load() < 20 || inserted.Load() < 100 || reads.Load() < 20 {
		t.Fatalf("too little concurrency: %d VACUUMs, %d transfers, %d inserted, %d reads", vacuums, transfers.Load(), inserted.Load(), reads.Load())
	}
	if got, want := query(t, c.Conn, "SELECT count(*), sum(bal) FROM acc"), fmt.Sprintf("%d|0", int64(rows)+inserted.Load()); got != want {
		t.Fatalf("final count, total = %s, want %s", got, want)
	}
	checkOK(t, c.Conn, "acc")
	rep, lines := c.verbose(t, "VACUUM (VERBOSE) acc", "acc")
	// (tuples_remain is an estimate when all-visible pages were skipped,
	// as in PostgreSQL; the exact count is checked above.)
	wantNum(t, rep, lines, "tuples_not_removable", 0)
	checkOK(t, c.Conn, "acc")
}

// ---------------------------------------------------------------------------
// FREEZE, TRUNCATE, INDEX_CLEANUP, tables without indexes

// VACUUM (FREEZE) freezes every tuple and reports the new relfrozenxid,
// which pg_class then holds; the next one reports how far it moved.
func TestVacuumFreeze(t *testing.T) {
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	exec(t, c.Conn, "CREATE TABLE fz (id int PRIMARY KEY, v int)")
	exec(t, c.Conn, "INSERT INTO fz SELECT g, g FROM generate_series(1, 10000) g")
	pages := relPages(t, c.Conn, "fz")

	rep, lines := c.verbose(t, "VACUUM (VERBOSE, FREEZE) fz", "fz")
	wantNum(t, rep, lines, "tuples_frozen", 10000)
	wantNum(t, rep, lines, "frozen_pages", float64(pages))
	x1 := int64(num(t, rep, "new_relfrozenxid", lines))
	if got := query(t, c.Conn, "SELECT relfrozenxid FROM pg_class WHERE relname = 'fz'"); got != strconv.FormatInt(x1, 10) {
		t.Fatalf("pg_class.relfrozenxid = %s, VERBOSE said %d", got, x1)
	}
	checkOK(t, c.Conn, "fz")

	for i := 0; i < 5; i++ {
		exec(t, c.Conn, fmt.Sprintf("UPDATE fz SET v = v + 1 WHERE id = %d", i+1))
	}
	rep, lines = c.verbose(t, "VACUUM (VERBOSE, FREEZE) fz", "fz")
	x2 := int64(num(t, rep, "new_relfrozenxid", lines))
	if x2 <= x1 {
		t.Fatalf("second VACUUM FREEZE: relfrozenxid %d, not after %d", x2, x1)
	}
	wantNum(t, rep, lines, "relfrozenxid_ahead", float64(x2-x1))
	wantNum(t, rep, lines, "tuples_frozen", 5)
	if got := query(t, c.Conn, "SELECT count(*), sum(v) FROM fz"); got != "10000|50005005" {
		t.Fatalf("count, sum = %s", got)
	}
	checkOK(t, c.Conn, "fz")
}

// Deleting the table's tail empties its last pages; VACUUM removes them
// ("pages: N removed") in the same run, unless TRUNCATE false.
func TestVacuumTruncate(t *testing.T) {
	const pages, keep = 100, 40
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	for _, tbl := range []string{"tr", "notr"} {
		exec(t, c.Conn, "CREATE TABLE "+tbl+" (id int, v int)")
		exec(t, c.Conn, fmt.Sprintf("INSERT INTO %s SELECT g, g FROM generate_series(1, %d) g", tbl, 226*pages))
		exec(t, c.Conn, fmt.Sprintf("CREATE INDEX %s_id ON %s (id)", tbl, tbl))
		exec(t, c.Conn, fmt.Sprintf("DELETE FROM %s WHERE id > %d", tbl, 226*keep))
	}
	rep, lines := c.verbose(t, "VACUUM (VERBOSE) tr", "tr")
	wantNum(t, rep, lines, "pages_removed", pages-keep)
	wantNum(t, rep, lines, "pages_remain", keep)
	wantNum(t, rep, lines, "dead_item_ids_removed", 226*(pages-keep))
	if got := relPages(t, c.Conn, "tr"); got != keep {
		t.Fatalf("after truncation the table has %d pages, want %d", got, keep)
	}
	checkOK(t, c.Conn, "tr")
	exec(t, c.Conn, "INSERT INTO tr SELECT g, g FROM generate_series(1, 226) g")
	if got := query(t, c.Conn, "SELECT count(*), count(DISTINCT id) FROM tr"); got != fmt.Sprintf("%d|%d", 226*keep+226, 226*keep) {
		t.Fatalf("after inserting into the truncated table: %s", got)
	}
	checkOK(t, c.Conn, "tr")

	rep, lines = c.verbose(t, "VACUUM (VERBOSE, TRUNCATE false) notr", "notr")
	wantNum(t, rep, lines, "pages_removed", 0)
	wantNum(t, rep, lines, "pages_remain", pages)
	if got := relPages(t, c.Conn, "notr"); got != pages {
		t.Fatalf("TRUNCATE false: %d pages, want %d", got, pages)
	}
	checkOK(t, c.Conn, "notr")
}

// INDEX_CLEANUP off bypasses the index pass: 0 index scans, the dead items
// stay (reported as "index scan bypassed ... have N dead item
// identifiers"), and the next ordinary VACUUM removes them.
func TestVacuumIndexCleanupOff(t *testing.T) {
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	exec(t, c.Conn, "CREATE TABLE ic (id int PRIMARY KEY, v int)")
	exec(t, c.Conn, "INSERT INTO ic SELECT g, g FROM generate_series(1, 20000) g")
	exec(t, c.Conn, "DELETE FROM ic WHERE id % 2 = 0")

	rep, lines := c.verbose(t, "VACUUM (VERBOSE, INDEX_CLEANUP off) ic", "ic")
	wantNum(t, rep, lines, "index_scans", 0)
	wantNum(t, rep, lines, "index_scan_bypassed", 1)
	wantNum(t, rep, lines, "lpdead_items", 10000)
	wantNum(t, rep, lines, "tuples_remain", 10000)
	checkOK(t, c.Conn, "ic")
	if got := query(t, c.Conn, "SELECT count(*), sum(id % 2) FROM ic"); got != "10000|10000" {
		t.Fatalf("after INDEX_CLEANUP off: count, odd rows = %s", got)
	}

	rep, lines = c.verbose(t, "VACUUM (VERBOSE) ic", "ic")
	wantNum(t, rep, lines, "index_scans", 1)
	wantNum(t, rep, lines, "dead_item_ids_removed", 10000)
	checkOK(t, c.Conn, "ic")
	if got := queryInt(t, c.Conn, "SELECT count(*) FROM ic WHERE id BETWEEN 101 AND 200"); got != 50 {
		t.Fatalf("index range scan after VACUUM: %d rows, want 50", got)
	}
}

// A table without indexes is vacuumed in one pass (PostgreSQL's one-pass
// strategy): dead items become unused at once, the report says "index
// scan not needed", and new rows reuse the space.
func TestVacuumTableWithoutIndexes(t *testing.T) {
	s := vacServer(t, 0)
	c := vconn(t, s.DSN())
	exec(t, c.Conn, "CREATE TABLE ni (id int, v int)")
	exec(t, c.Conn, "INSERT INTO ni SELECT g, g FROM generate_series(1, 22600) g")
	pages := relPages(t, c.Conn, "ni")
	exec(t, c.Conn, "DELETE FROM ni WHERE id % 2 = 0")
	rep, lines := c.verbose(t, "VACUUM (VERBOSE) ni", "ni")
	wantNum(t, rep, lines, "index_scans", 0)
	wantNum(t, rep, lines, "dead_item_ids_removed", 11300)
	wantNum(t, rep, lines, "tuples_remain", 11300)
	exec(t, c.Conn, "INSERT INTO ni SELECT g, g FROM generate_series(1, 22600) g WHERE g % 2 = 0")
	if got := relPages(t, c.Conn, "ni"); got > pages+pages/10 {
		t.Fatalf("table without indexes grew from %d to %d pages refilling deleted rows after VACUUM", pages, got)
	}
	if got := query(t, c.Conn, "SELECT count(*), count(DISTINCT id) FROM ni"); got != "22600|22600" {
		t.Fatalf("count, distinct = %s", got)
	}
	checkOK(t, c.Conn, "ni")
}

// ---------------------------------------------------------------------------
// errors

func TestVacuumOptionErrors(t *testing.T) {
	s := vacServer(t, 0)
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE ve (id int PRIMARY KEY)")
	for _, tc := range []struct{ sql, code string }{
		{"VACUUM FULL ve", "0A000"},
		{"VACUUM (FULL) ve", "0A000"},
		{"VACUUM (NO_SUCH_OPTION) ve", "42601"},
		{"VACUUM (BUFFER_USAGE_LIMIT '1kB') ve", "22023"},
		{"VACUUM (PARALLEL -1) ve", "42601"},
		{"VACUUM (INDEX_CLEANUP maybe) ve", "22023"},
		{"VACUUM no_such_table", "42P01"},
		{"SET vacuum_dead_tid_store = 'btree'", "22023"},
	} {
		_, err := execErr(c, tc.sql)
		wantState(t, tc.sql, err, tc.code)
		wantUsable(t, c)
	}
	// The accepted forms.
	for _, q := range []string{
		"VACUUM ve", "VACUUM (ANALYZE) ve", "VACUUM (BUFFER_USAGE_LIMIT '256kB') ve", "VACUUM (BUFFER_USAGE_LIMIT 0) ve",
		"VACUUM (PARALLEL 0, INDEX_CLEANUP on, TRUNCATE false) ve", "SET vacuum_dead_tid_store = 'array'", "VACUUM ve",
	} {
		exec(t, c, q)
	}
}
