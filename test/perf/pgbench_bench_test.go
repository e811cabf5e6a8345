package perf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// The statements of pgbench's built-in scripts, one client, in each of
// pgbench's query modes: the per-statement path (parse, plan, execute,
// protocol) without the network latency and client of a real pgbench run.
// For profiles: go test -run '^$' -bench PgbenchSelect -cpuprofile cpu.out ./test/perf

const pgbenchAccounts = 100000

func startPgbench(b *testing.B, mode pgx.QueryExecMode) *pgx.Conn {
	b.Helper()
	s := testutil.Start(b, testutil.Options{SharedBuffers: 128 << 20, Conf: map[string]string{"fsync": "off"}})
	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		b.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	for _, q := range []string{
		"CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88))",
		"CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84))",
		"CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))",
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
		"INSERT INTO pgbench_branches SELECT 1, 0",
		"INSERT INTO pgbench_tellers SELECT g, 1, 0 FROM generate_series(1, 10) g",
		fmt.Sprintf("INSERT INTO pgbench_accounts SELECT g, 1, 0, '' FROM generate_series(1, %d) g", pgbenchAccounts),
	} {
		if _, err := c.Exec(context.Background(), q, pgx.QueryExecModeSimpleProtocol); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	return c
}

var pgbenchModes = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"simple", pgx.QueryExecModeSimpleProtocol},
	{"extended", pgx.QueryExecModeDescribeExec}, // unnamed statement: Parse, Describe, Bind, Execute each time
	{"prepared", pgx.QueryExecModeCacheStatement},
}

// BenchmarkPgbenchSelect is pgbench -S's one statement.
func BenchmarkPgbenchSelect(b *testing.B) {
	for _, m := range pgbenchModes {
		b.Run(m.name, func(b *testing.B) {
			c := startPgbench(b, m.mode)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var bal int32
				if err := c.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", rand.IntN(pgbenchAccounts)+1).Scan(&bal); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPgbenchTPCB is pgbench's tpcb-like transaction (fsync off).
func BenchmarkPgbenchTPCB(b *testing.B) { benchTPCB(b, false) }

// BenchmarkPgbenchTPCBSavepoint wraps each statement of tpcb-like in
// SAVEPOINT … RELEASE, as pgjdbc's autosave and psql's ON_ERROR_ROLLBACK
// do (bench/tpcb-savepoint.sql).
func BenchmarkPgbenchTPCBSavepoint(b *testing.B) { benchTPCB(b, true) }

func benchTPCB(b *testing.B, savepoints bool) {
	for _, m := range pgbenchModes {
		b.Run(m.name, func(b *testing.B) {
			c := startPgbench(b, m.mode)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				aid, tid, delta := rand.IntN(pgbenchAccounts)+1, rand.IntN(10)+1, rand.IntN(10001)-5000
				tx, err := c.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				var bal int32
				for _, st := range []struct {
					q    string
					args []any
				}{
					{"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", []any{delta, aid}},
					{"UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", []any{delta, tid}},
					{"UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2", []any{delta, 1}},
					{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", []any{tid, 1, aid, delta}},
				} {
					if savepoints {
						if _, err := tx.Exec(ctx, "SAVEPOINT s"); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := tx.Exec(ctx, st.q, st.args...); err != nil {
						b.Fatalf("%s: %v", st.q, err)
					}
					if savepoints {
						if _, err := tx.Exec(ctx, "RELEASE s"); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := tx.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", aid).Scan(&bal); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
