package e2e

// Autovacuum through a real client: the launcher and its workers, seed
// 002's experiments at CI scale. Every assertion is about what the code
// guarantees — the order tables are vacuumed in (one worker), the log
// lines and their counts, the counters in the statistics views — never
// about how long anything takes. The servers run with
// autovacuum_naptime = 1s and waits poll the views with a generous
// deadline.

import (
	"context"
	"fmt"
	"log"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// logCapture collects a server's log lines.
type logCapture struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logCapture) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logCapture) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// avServer starts a server with autovacuum on, a one-second naptime, no
// cost delay (the tests assert order and counts, not pacing) and every
// autovacuum logged, plus conf.
func avServer(t *testing.T, conf map[string]string) (*testutil.Server, *logCapture) {
	t.Helper()
	lc := &logCapture{}
	c := map[string]string{"autovacuum": "on", "autovacuum_naptime": "1", "log_autovacuum_min_duration": "0", "autovacuum_vacuum_cost_delay": "0"}
	for k, v := range conf {
		c[k] = v
	}
	s := testutil.Start(t, testutil.Options{Conf: c, Logger: log.New(lc, "", 0)})
	return s, lc
}

func avConnect(t *testing.T, s *testutil.Server) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func avExec(t *testing.T, conn *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, q := range sqls {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// avWait polls cond until it holds, failing after a minute (autovacuum
// runs once per naptime on a machine other tests load too).
func avWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func autovacuumCount(t *testing.T, conn *pgx.Conn, table string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relname = $1", table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var (
	reAutoVacuumed = regexp.MustCompile(`automatic vacuum of table "postgres\.public\.(\w+)"`)
	reAutoAnalyzed = regexp.MustCompile(`automatic analyze of table "postgres\.public\.(\w+)"\n\tavg read rate: [0-9.]+ MB/s, avg write rate: [0-9.]+ MB/s\n\tbuffer usage: \d+ hits, \d+ misses, \d+ dirtied\n\tWAL usage: \d+ records, \d+ full page images, \d+ bytes\n\tsystem usage: CPU: user: [0-9.]+ s, system: [0-9.]+ s, elapsed: [0-9.]+ s`)
)

// vacuumedOrder is the order of the tables in the log's "automatic vacuum"
// entries.
func vacuumedOrder(log string) []string {
	var out []string
	for _, m := range reAutoVacuumed.FindAllStringSubmatch(log, -1) {
		out = append(out, m[1])
	}
	return out
}

// sixTables makes seed 002's six tables, smallest first, each with n dead
// tuples, and autovacuum disabled on them until the end, when one
// transaction enables it on all six.
func sixTables(t *testing.T, conn *pgx.Conn, dead []int) []string {
	var names []string
	for i, n := range dead {
		name := fmt.Sprintf("score_t%d", i+1)
		names = append(names, name)
		avExec(t, conn, fmt.Sprintf("CREATE TABLE %s (id int, pad text) WITH (autovacuum_enabled = off)", name),
			fmt.Sprintf("INSERT INTO %s SELECT g, 'x' FROM generate_series(1, %d) g", name, n),
			fmt.Sprintf("DELETE FROM %s", name))
	}
	var alter strings.Builder
	alter.WriteString("BEGIN;")
	for _, name := range names {
		fmt.Fprintf(&alter, "ALTER TABLE %s SET (autovacuum_enabled = on);", name)
	}
	alter.WriteString("COMMIT")
	avExec(t, conn, alter.String())
	return names
}

// TestAutovacuumScoreOrder: seed 002's scoring run. One worker vacuums the
// six tables strictly by descending dead tuples (their scores), the
// reverse of pg_class order; with every score weight 0 it keeps pg_class
// order.
func TestAutovacuumScoreOrder(t *testing.T) {
	dead := []int{100, 500, 2000, 5000, 10000, 20000}
	for _, tc := range []struct {
		name    string
		weights string
		reverse bool
	}{{"scores", "1", true}, {"weights0", "0", false}} {
		t.Run(tc.name, func(t *testing.T) {
			conf := map[string]string{"autovacuum_max_workers": "1"}
			for _, w := range []string{"freeze", "multixact_freeze", "vacuum", "vacuum_insert", "analyze"} {
				conf["autovacuum_"+w+"_score_weight"] = tc.weights
			}
			s, lc := avServer(t, conf)
			conn := avConnect(t, s)
			names := sixTables(t, conn, dead)
			avWait(t, "six autovacuums", func() bool { return len(vacuumedOrder(lc.String())) >= 6 })
			want := append([]string(nil), names...)
			if tc.reverse {
				for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
					want[i], want[j] = want[j], want[i]
				}
			}
			if got := vacuumedOrder(lc.String())[:6]; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("vacuumed in order %v, want %v\nlog:\n%s", got, want, lc.String())
			}
			for _, n := range names {
				if c := autovacuumCount(t, conn, n); c != 1 {
					t.Errorf("%s: autovacuum_count %d, want 1", n, c)
				}
			}
			// Each table's VACUUM is followed by its ANALYZE (its
			// n_mod_since_analyze passed the analyze threshold too).
			avWait(t, "six autoanalyzes", func() bool { return len(reAutoAnalyzed.FindAllString(lc.String(), -1)) >= 6 })
			var analyzed []string
			for _, m := range reAutoAnalyzed.FindAllStringSubmatch(lc.String(), -1) {
				analyzed = append(analyzed, m[1])
			}
			if strings.Join(analyzed[:6], ",") != strings.Join(want, ",") {
				t.Fatalf("analyzed in order %v, want %v", analyzed, want)
			}
			var anl int64
			if err := conn.QueryRow(context.Background(), "SELECT sum(autoanalyze_count) FROM pg_stat_user_tables WHERE last_autoanalyze IS NOT NULL AND n_mod_since_analyze = 0").Scan(&anl); err != nil || anl != 6 {
				t.Fatalf("autoanalyze counters: %d, %v", anl, err)
			}
		})
	}
}

// sixIndexTable is seed 002's parallel-autovacuum table at CI scale: six
// indexes, every row updated twice (indexed columns, so no HOT), kept from
// autovacuum until it is enabled at the end.
func sixIndexTable(t *testing.T, conn *pgx.Conn, rows int) {
	t.Helper()
	avExec(t, conn, "CREATE TABLE par6 (id int, a int, b int, c int, d int, e int) WITH (autovacuum_enabled = off)")
	for _, c := range []string{"id", "a", "b", "c", "d", "e"} {
		avExec(t, conn, fmt.Sprintf("CREATE INDEX par6_%s ON par6 (%s)", c, c))
	}
	avExec(t, conn, fmt.Sprintf("INSERT INTO par6 SELECT g, g, g, g, g, g FROM generate_series(1, %d) g", rows),
		"UPDATE par6 SET a = a + 1, b = b + 1, c = c + 1, d = d + 1, e = e + 1",
		"UPDATE par6 SET a = a + 1, b = b + 1, c = c + 1, d = d + 1, e = e + 1",
		"ALTER TABLE par6 SET (autovacuum_enabled = on)")
}

var (
	reParallelLine = regexp.MustCompile(`parallel workers: index vacuum: (\d+) planned, (\d+) launched in total`)
	reStoreBytes   = regexp.MustCompile(`automatic vacuum of table "postgres\.public\.par6"[^\n]*(?:\n\t[^\n]*)*?\n\tdead item storage: radix tree, (\d+) bytes at most`)
	reShortWarning = regexp.MustCompile(`WARNING:  autovacuum of table "postgres\.public\.par6": 4 parallel index vacuum workers planned, (\d) launched: ([^\n]*)`)
)

// TestAutovacuumParallel: seed 002's parallel runs. With
// autovacuum_max_parallel_workers = 4, max_parallel_maintenance_workers = 0
// does not cap autovacuum's workers ("4 planned, 4 launched");
// max_parallel_workers = 0 does ("4 planned, 0 launched", and a WARNING
// says why). The dead-TID store is one for the leader and its workers:
// its size does not change with the worker count.
func TestAutovacuumParallel(t *testing.T) {
	storeBytes := map[string]int{}
	for _, tc := range []struct {
		name              string
		conf              map[string]string
		held              int // pool slots held by someone else (a parallel query)
		planned, launched string
		warning           string
	}{
		{"serial", map[string]string{}, 0, "", "", ""},
		{"parallel4", map[string]string{"autovacuum_max_parallel_workers": "4", "max_parallel_maintenance_workers": "0"}, 0, "4", "4", ""},
		{"pool0", map[string]string{"autovacuum_max_parallel_workers": "4", "max_parallel_workers": "0"}, 0, "4", "0", "max_parallel_workers is 0"},
		{"pool3of4held", map[string]string{"autovacuum_max_parallel_workers": "4", "max_parallel_workers": "4"}, 3, "4", "1", "3 of the 4 max_parallel_workers slots were in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, lc := avServer(t, tc.conf)
			if tc.held > 0 {
				// What seed 002's slow parallel query does to the pool.
				if got := s.Engine.AMEnv.Workers.Acquire(tc.held, 4); got != tc.held {
					t.Fatalf("held %d slots, want %d", got, tc.held)
				}
				defer s.Engine.AMEnv.Workers.Release(tc.held)
			}
			conn := avConnect(t, s)
			sixIndexTable(t, conn, 3000)
			avWait(t, "the autovacuum of par6", func() bool { return autovacuumCount(t, conn, "par6") >= 1 })
			log := lc.String()
			m := reParallelLine.FindStringSubmatch(log)
			switch {
			case tc.planned == "" && m != nil:
				t.Fatalf("serial autovacuum logged %q", m[0])
			case tc.planned != "" && (m == nil || m[1] != tc.planned || m[2] != tc.launched):
				t.Fatalf("want \"index vacuum: %s planned, %s launched in total\"; log:\n%s", tc.planned, tc.launched, log)
			}
			w := reShortWarning.FindStringSubmatch(log)
			if (w != nil) != (tc.warning != "") || (w != nil && (w[1] != tc.launched || w[2] != tc.warning)) {
				t.Fatalf("shortfall warning %q, want %q; log:\n%s", w, tc.warning, log)
			}
			sm := reStoreBytes.FindStringSubmatch(log)
			if sm == nil {
				t.Fatalf("no dead item storage line; log:\n%s", log)
			}
			var n int
			fmt.Sscan(sm[1], &n)
			storeBytes[tc.name] = n
			var planned, launched int64
			if err := conn.QueryRow(context.Background(), "SELECT parallel_workers_planned, parallel_workers_launched FROM pg_stat_autovacuum_scores WHERE relname = 'par6'").Scan(&planned, &launched); err != nil {
				t.Fatal(err)
			}
			if want := map[string][2]int64{"serial": {0, 0}, "parallel4": {4, 4}, "pool0": {4, 0}, "pool3of4held": {4, 1}}[tc.name]; planned != want[0] || launched != want[1] {
				t.Fatalf("cumulative planned/launched %d/%d, want %d/%d", planned, launched, want[0], want[1])
			}
		})
	}
	if s, p := storeBytes["serial"], storeBytes["parallel4"]; s == 0 || float64(p) > 1.05*float64(s) {
		t.Fatalf("dead-TID store: %d bytes serial, %d with 4 workers; want ≤ 1.05×", s, p)
	}
}

const seed000ProgressQuery = `SELECT 
    p.pid,
    c.relname AS table_name,
    p.phase,
    p.heap_blks_total,
    p.heap_blks_scanned,
    p.heap_blks_vacuumed,
    p.index_vacuum_count,
    p.num_dead_item_ids
FROM pg_stat_progress_vacuum p
JOIN pg_class c ON c.oid = p.relid`

// TestAutovacuumProgressAndYield: seed 000's pg_stat_progress_vacuum query,
// run from another session, shows an autovacuum worker (a backend of type
// "autovacuum worker") while it runs; a conflicting lock request then
// cancels the autovacuum, which logs it, and the lock is granted.
func TestAutovacuumProgressAndYield(t *testing.T) {
	s, lc := avServer(t, nil)
	conn := avConnect(t, s)
	// A cost delay that makes the scan take minutes: 100 ms × 4 per page.
	avExec(t, conn, "CREATE TABLE slow (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off, autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 1)",
		"INSERT INTO slow SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g",
		"DELETE FROM slow WHERE id % 2 = 0",
		"ALTER TABLE slow SET (autovacuum_enabled = on)")
	other := avConnect(t, s)
	var pid int32
	var table, phase string
	var total, scanned, vacuumed, passes, dead int64
	avWait(t, "an autovacuum in pg_stat_progress_vacuum", func() bool {
		err := other.QueryRow(context.Background(), seed000ProgressQuery).Scan(&pid, &table, &phase, &total, &scanned, &vacuumed, &passes, &dead)
		return err == nil && scanned > 0
	})
	if table != "slow" || phase != "scanning heap" || total == 0 || passes != 0 {
		t.Fatalf("progress row: table %s phase %q total %d scanned %d passes %d", table, phase, total, scanned, passes)
	}
	b := s.Engine.Backends.Lookup(pid)
	if b == nil || b.Type != "autovacuum worker" {
		t.Fatalf("pid %d is %+v, want an autovacuum worker", pid, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := other.Exec(ctx, "ALTER TABLE slow ADD COLUMN extra int"); err != nil {
		t.Fatalf("ALTER TABLE behind an autovacuum: %v", err)
	}
	avWait(t, "the cancelled autovacuum's log", func() bool {
		return strings.Contains(lc.String(), "ERROR:  canceling autovacuum task\n\tCONTEXT:  automatic vacuum of table \"postgres.public.slow\"")
	})
	if want := fmt.Sprintf("sending cancel to blocking autovacuum PID %d", pid); !strings.Contains(lc.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, lc.String())
	}
	if n := autovacuumCount(t, conn, "slow"); n != 0 {
		t.Fatalf("autovacuum_count %d after a cancelled autovacuum, want 0", n)
	}
}

// TestAutovacuumWorkerErrorAndRestart: counters survive a clean restart,
// so autovacuum after the restart still sees the dead tuples; a table
// whose page is corrupt makes its autovacuum fail, which is logged with
// its context, and the worker goes on to the next table.
func TestAutovacuumWorkerErrorAndRestart(t *testing.T) {
	dir := t.TempDir() + "/data"
	s1 := testutil.Start(t, testutil.Options{Dir: dir})
	conn := avConnect(t, s1)
	avExec(t, conn, "CREATE TABLE bad (id int, pad text)", "CREATE TABLE good (id int, pad text)",
		"INSERT INTO bad SELECT g, 'x' FROM generate_series(1, 5000) g", "INSERT INTO good SELECT g, 'x' FROM generate_series(1, 1000) g",
		"DELETE FROM bad", "DELETE FROM good")
	var badFile uint32
	if err := conn.QueryRow(context.Background(), "SELECT relfilenode FROM pg_class WHERE relname = 'bad'").Scan(&badFile); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fmt.Sprintf("%s/base/%d", dir, badFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("corrupt!corrupt!"), 4000); err != nil {
		t.Fatal(err)
	}
	f.Close()

	lc := &logCapture{}
	s2 := testutil.Start(t, testutil.Options{Dir: dir, Logger: log.New(lc, "", 0),
		Conf: map[string]string{"autovacuum": "on", "autovacuum_naptime": "1", "log_autovacuum_min_duration": "0", "autovacuum_vacuum_cost_delay": "0"}})
	conn2 := avConnect(t, s2)
	avWait(t, "good's autovacuum", func() bool { return autovacuumCount(t, conn2, "good") >= 1 })
	log := lc.String()
	if !regexp.MustCompile(`ERROR:  invalid page in block 0 of relation base/\d+: page verification failed[^\n]*\n\tCONTEXT:  automatic vacuum of table "postgres\.public\.bad"`).MatchString(log) {
		t.Fatalf("no logged error for bad's autovacuum:\n%s", log)
	}
	if n := autovacuumCount(t, conn2, "bad"); n != 0 {
		t.Fatalf("bad: autovacuum_count %d, want 0", n)
	}
}

// TestAutovacuumScoresView: pg_stat_autovacuum_scores shows each
// component as its ratio to its threshold, the score (their maximum), and
// what autovacuum would do; the PostgreSQL 19 reloption
// autovacuum_parallel_workers is range-checked (22023).
func TestAutovacuumScoresView(t *testing.T) {
	// A naptime of an hour: no worker starts while the view is read.
	s, _ := avServer(t, map[string]string{"autovacuum_naptime": "3600", "autovacuum_analyze_score_weight": "0.5"})
	conn := avConnect(t, s)
	avExec(t, conn, "CREATE TABLE sv (id int)", "INSERT INTO sv SELECT g FROM generate_series(1, 200) g", "DELETE FROM sv WHERE id <= 100",
		"CREATE TABLE sv_off (id int) WITH (autovacuum_enabled = false)", "INSERT INTO sv_off SELECT g FROM generate_series(1, 200) g", "DELETE FROM sv_off")
	type row struct {
		score, xid, mxid, vac, vacIns, anl float64
		doVac, doAnl, wrap                 bool
	}
	get := func(name string) row {
		var r row
		err := conn.QueryRow(context.Background(), `SELECT score, xid_score, mxid_score, vacuum_score, vacuum_insert_score, analyze_score,
			do_vacuum, do_analyze, for_wraparound FROM pg_stat_autovacuum_scores WHERE relname = $1`, name).
			Scan(&r.score, &r.xid, &r.mxid, &r.vac, &r.vacIns, &r.anl, &r.doVac, &r.doAnl, &r.wrap)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Never vacuumed (reltuples -1, taken as 0): thresholds 50, 1000, 50.
	r := get("sv")
	if r.vac != 2 || r.vacIns != 0.2 || r.anl != 3 || r.score != 3 || !r.doVac || !r.doAnl || r.wrap || r.xid <= 0 || r.xid >= 1e-3 {
		t.Fatalf("sv: %+v", r)
	}
	if r := get("sv_off"); r.vac != 4 || r.doVac || r.doAnl {
		t.Fatalf("sv_off: %+v", r)
	}
	for _, bad := range []string{"ALTER TABLE sv SET (autovacuum_parallel_workers = 1025)", "ALTER TABLE sv SET (autovacuum_parallel_workers = -2)"} {
		_, err := conn.Exec(context.Background(), bad)
		if err == nil || !strings.Contains(err.Error(), "22023") || !strings.Contains(err.Error(), `value `) {
			t.Fatalf("%s: %v, want 22023 out of bounds", bad, err)
		}
	}
	avExec(t, conn, "ALTER TABLE sv SET (autovacuum_parallel_workers = 2)")
}

// TestAutovacuumCrash: a kill -9 while an autovacuum is in the middle of a
// table loses nothing committed: after recovery the table has every live
// row, its indexes agree with it, and a VACUUM completes the cleanup.
func TestAutovacuumCrash(t *testing.T) {
	dir := t.TempDir() + "/data"
	p := testutil.StartProcess(t, dir, testutil.FreePort(t), "-c", "autovacuum=on", "-c", "autovacuum_naptime=1")
	killed := false
	defer func() {
		if !killed {
			p.Kill()
		}
	}()
	conn, err := pgx.Connect(context.Background(), p.DSN())
	if err != nil {
		t.Fatal(err)
	}
	// Slow enough (the cost delay) that the kill lands mid-table.
	avExec(t, conn, "CREATE TABLE crash_av (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off, autovacuum_vacuum_cost_delay = 20, autovacuum_vacuum_cost_limit = 1)",
		"INSERT INTO crash_av SELECT g, repeat('y', 100) FROM generate_series(1, 20000) g",
		"DELETE FROM crash_av WHERE id % 3 = 0",
		"ALTER TABLE crash_av SET (autovacuum_enabled = on)")
	avWait(t, "the autovacuum's heap scan", func() bool {
		var scanned int64
		err := conn.QueryRow(context.Background(), "SELECT heap_blks_scanned FROM pg_stat_progress_vacuum WHERE relid = 'crash_av'::regclass").Scan(&scanned)
		return err == nil && scanned > 5
	})
	conn.Close(context.Background())
	p.Kill()
	killed = true

	p2 := testutil.StartProcess(t, dir, testutil.FreePort(t))
	defer p2.Kill()
	conn2, err := pgx.Connect(context.Background(), p2.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(context.Background())
	check := func(when string) {
		var n, sum int64
		var ok string
		if err := conn2.QueryRow(context.Background(), "SELECT count(*), sum(id) FROM crash_av").Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		var want, wantSum int64
		for i := int64(1); i <= 20000; i++ {
			if i%3 != 0 {
				want, wantSum = want+1, wantSum+i
			}
		}
		if n != want || sum != wantSum {
			t.Fatalf("%s: %d rows (sum %d), want %d (sum %d)", when, n, sum, want, wantSum)
		}
		if err := conn2.QueryRow(context.Background(), "SELECT tidal_check('crash_av')").Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("%s: tidal_check: %q, %v", when, ok, err)
		}
	}
	check("after recovery")
	avExec(t, conn2, "VACUUM crash_av")
	check("after VACUUM")
}
