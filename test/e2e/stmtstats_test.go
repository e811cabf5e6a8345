package e2e

import (
	"context"
	"fmt"
	osexec "os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// pgbench's TPC-B-like transaction, PostgreSQL 15's normalised texts.
var pgbenchShapes = []string{
	"BEGIN",
	"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
	"SELECT abalance FROM pgbench_accounts WHERE aid = $1",
	"UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
	"UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
	"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
	"END",
}

func pgbenchTables(t *testing.T, c *pgx.Conn) {
	t.Helper()
	exec(t, c, "CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88))")
	exec(t, c, "CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84))")
	exec(t, c, "CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))")
	exec(t, c, "CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))")
	exec(t, c, "INSERT INTO pgbench_branches SELECT 1, 0")
	exec(t, c, "INSERT INTO pgbench_tellers SELECT g, 1, 0 FROM generate_series(1, 10) g")
	exec(t, c, "INSERT INTO pgbench_accounts SELECT g, 1, 0 FROM generate_series(1, 1000) g")
}

// stmtCalls is pg_stat_statements' calls and rows by query text.
func stmtCalls(t *testing.T, c *pgx.Conn) map[string][2]int64 {
	t.Helper()
	rows, err := c.Query(context.Background(), "SELECT query, calls, rows FROM pg_stat_statements")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for rows.Next() {
		var q string
		var calls, n int64
		if err := rows.Scan(&q, &calls, &n); err != nil {
			t.Fatal(err)
		}
		out[q] = [2]int64{calls, n}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A pgbench-like loop (its statements with literal values, through the
// simple protocol, as pgbench sends them) leaves one entry per statement
// shape, with PostgreSQL's normalised text and calls equal to the number
// of transactions.
func TestStmtStatsPgbenchLoop(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	exec(t, c, "CREATE EXTENSION pg_stat_statements")
	exec(t, c, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	pgbenchTables(t, c)
	exec(t, c, "SELECT pg_stat_statements_reset()")
	const txns = 40
	for i := 0; i < txns; i++ {
		aid, tid, delta := 1+i*7%1000, 1+i%10, i-20
		for _, q := range []string{
			"BEGIN;",
			fmt.Sprintf("UPDATE pgbench_accounts SET abalance = abalance + %d WHERE aid = %d;", delta, aid),
			fmt.Sprintf("SELECT abalance FROM pgbench_accounts WHERE aid = %d;", aid),
			fmt.Sprintf("UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %d;", delta, tid),
			fmt.Sprintf("UPDATE pgbench_branches SET bbalance = bbalance + %d WHERE bid = 1;", delta),
			fmt.Sprintf("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%d, 1, %d, %d, CURRENT_TIMESTAMP);", tid, aid, delta),
			"END;",
		} {
			if _, err := c.Exec(context.Background(), q, pgx.QueryExecModeSimpleProtocol); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	got := stmtCalls(t, c)
	for _, q := range pgbenchShapes {
		want := [2]int64{txns, txns}
		if q == "BEGIN" || q == "END" {
			want[1] = 0
		}
		if got[q] != want {
			t.Errorf("%q: calls, rows %v, want %v", q, got[q], want)
		}
	}
	// The reset call itself and the statements above: nothing else.
	if len(got) != len(pgbenchShapes)+1 {
		t.Errorf("%d entries: %v", len(got), got)
	}
	var hit, dirtied, walRecs, ids int64
	err := c.QueryRow(context.Background(), `SELECT sum(shared_blks_hit)::int8, sum(shared_blks_dirtied)::int8, sum(wal_records)::int8, count(DISTINCT queryid)
		FROM pg_stat_statements WHERE query LIKE 'UPDATE%'`).Scan(&hit, &dirtied, &walRecs, &ids)
	if err != nil {
		t.Fatal(err)
	}
	if hit == 0 || walRecs < 3*txns || ids != 3 {
		t.Errorf("UPDATE counters: hit %d dirtied %d wal_records %d distinct ids %d", hit, dirtied, walRecs, ids)
	}

	// pg_stat_statements.track = none records nothing; a reset by query
	// id removes only that entry.
	exec(t, c, "SET pg_stat_statements.track = none")
	exec(t, c, "SELECT abalance FROM pgbench_accounts WHERE aid = 5")
	exec(t, c, "RESET pg_stat_statements.track")
	if n := stmtCalls(t, c)["SELECT abalance FROM pgbench_accounts WHERE aid = $1"][0]; n != txns {
		t.Errorf("track = none counted: calls %d", n)
	}
	exec(t, c, "SELECT pg_stat_statements_reset(0, 0, (SELECT queryid FROM pg_stat_statements WHERE query = 'END'))")
	after := stmtCalls(t, c)
	if _, ok := after["END"]; ok || after["BEGIN"][0] != txns {
		t.Errorf("after reset of END: %v", after)
	}
	_, err = c.Exec(context.Background(), "CREATE EXTENSION no_such_ext")
	wantState(t, "CREATE EXTENSION no_such_ext", err, "58P01")
}

// A real pgbench run, when the binary is installed: calls equal the
// transactions pgbench reports.
func TestStmtStatsRealPgbench(t *testing.T) {
	bin, err := osexec.LookPath("pgbench")
	if err != nil {
		// environment, not behaviour: TestStmtStatsPgbenchLoop asserts the
		// same counts without the binary; .ci/run installs it where it can
		t.Skip("pgbench binary not on PATH (Debian package postgresql-client)")
	}
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	port := strconv.Itoa(srv.Port)
	run := func(args ...string) string {
		out, err := osexec.Command(bin, append([]string{"-h", "127.0.0.1", "-p", port, "-U", "postgres"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("-i", "-s", "1", "-q", "postgres")
	exec(t, c, "SELECT pg_stat_statements_reset()")
	out := run("-c", "2", "-t", "50", "postgres")
	if !strings.Contains(out, "number of transactions actually processed: 100/100") {
		t.Fatalf("pgbench: %s", out)
	}
	got := stmtCalls(t, c)
	for _, q := range pgbenchShapes {
		if got[q][0] != 100 {
			t.Errorf("%q: calls %d, want 100", q, got[q][0])
		}
	}
}

// BenchmarkStmtStatsSelectOnly is pgbench -S's statement through the
// simple protocol, with pg_stat_statements.track = top and none
// interleaved in blocks of 100 statements in the same run, each mode
// first in every other round (so load on the machine and any ordering
// effect fall on both alike); it reports each mode's time per statement
// and the overhead of tracking (target: at most 3%).
func BenchmarkStmtStatsSelectOnly(b *testing.B) {
	srv := testutil.Start(b, testutil.Options{})
	c, err := pgx.Connect(context.Background(), srv.DSN())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))",
		"INSERT INTO pgbench_accounts SELECT g, 1, 0 FROM generate_series(1, 100000) g",
		"VACUUM ANALYZE pgbench_accounts",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	var spent [2]time.Duration
	var count [2]int
	modes := []string{"top", "none"}
	b.ResetTimer()
	for i, round := 0, 0; i < b.N; round++ {
		for k := range modes {
			m := (k + round) % 2 // alternate which mode goes first
			mode := modes[m]
			if _, err := c.Exec(ctx, "SET pg_stat_statements.track = "+mode, pgx.QueryExecModeSimpleProtocol); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			for j := 0; j < 100 && i < b.N; j, i = j+1, i+1 {
				q := fmt.Sprintf("SELECT abalance FROM pgbench_accounts WHERE aid = %d;", 1+(i*7919)%100000)
				if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
					b.Fatal(err)
				}
				count[m]++
			}
			spent[m] += time.Since(start)
		}
	}
	b.StopTimer()
	if count[0] > 0 && count[1] > 0 {
		on := float64(spent[0].Nanoseconds()) / float64(count[0])
		off := float64(spent[1].Nanoseconds()) / float64(count[1])
		b.ReportMetric(on, "ns/stmt-tracked")
		b.ReportMetric(off, "ns/stmt-untracked")
		b.ReportMetric(100*(on-off)/off, "%overhead")
	}
}
