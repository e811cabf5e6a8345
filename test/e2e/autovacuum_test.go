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

var reAutoVacuumed = regexp.MustCompile(`automatic vacuum of table "postgres\.public\.(\w+)"`)

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
		})
	}
}
