package e2e

import (
	"context"
	"errors"
	"fmt"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Timeouts for statements run in goroutines: a statement that should
// finish but hangs fails the test after waitTimeout instead of blocking the
// suite; the statement's own context (stmtTimeout) then cancels it on the
// server so the connection can be closed.
const (
	blockedFor  = 300 * time.Millisecond // "still blocked" means no answer for this long
	waitTimeout = 10 * time.Second
	stmtTimeout = 20 * time.Second
	// setupTimeout bounds an isolation spec's setup and teardown blocks,
	// which isolationtester runs without any limit: multiple-row-versions
	// loads a million rows, which on a loaded two-core machine can take
	// longer than a step may.
	setupTimeout = 2 * time.Minute
)

// onHeap are the server settings of a test whose expected figures are the
// heap's — PostgreSQL's page counts, HOT, lazy VACUUM's report, psql's
// "Access method: heap" — so that it keeps heap as the default table AM
// when the suite runs with TIDAL_TEST_TABLE_AM=undo (testutil applies the
// variable only where Conf names no default). extra adds settings.
func onHeap(extra map[string]string) map[string]string {
	conf := map[string]string{"default_table_access_method": "heap"}
	for k, v := range extra {
		conf[k] = v
	}
	return conf
}

// exec runs sql and fails the test on error. It returns the command tag.
func exec(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	tag, err := c.Exec(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.String()
}

// execErr runs sql and returns its tag and error.
func execErr(c *pgx.Conn, sql string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	tag, err := c.Exec(ctx, sql)
	return tag.String(), err
}

// sqlState is the SQLSTATE of a server error, or "" for no/other error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// wantState fails unless err carries SQLSTATE code.
func wantState(t *testing.T, what string, err error, code string) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: want SQLSTATE %s, got %v", what, code, err)
	}
	if pe.Code != code {
		t.Fatalf("%s: want SQLSTATE %s, got %s: %s", what, code, pe.Code, pe.Message)
	}
	return pe
}

// query returns the rows of sql formatted as "a|b,c|d" (columns joined by
// "|", rows by ","), NULL as "null".
func query(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	s, err := queryErr(c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func queryErr(c *pgx.Conn, sql string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "", err
		}
		cols := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				cols[i] = "null"
			case pgtype.Numeric:
				cols[i] = numericText(v, "") // sum(int8), avg(...) are numeric
			default:
				cols[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(cols, "|"))
	}
	return strings.Join(out, ","), rows.Err()
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, c *pgx.Conn, sql string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	var n int64
	if err := c.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// result is the outcome of a statement run in a goroutine.
type result struct {
	tag string
	err error
}

// pending is a statement running in its own goroutine. The connection
// belongs to that goroutine until wait returns.
type pending struct {
	sql string
	ch  chan result
}

// start runs sql on c in a goroutine.
func start(c *pgx.Conn, sql string) *pending {
	p := &pending{sql: sql, ch: make(chan result, 1)}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
		defer cancel()
		tag, err := c.Exec(ctx, sql)
		p.ch <- result{tag.String(), err}
	}()
	return p
}

// stillBlocked fails the test if the statement finishes within blockedFor.
func (p *pending) stillBlocked(t *testing.T) {
	t.Helper()
	select {
	case r := <-p.ch:
		p.ch <- r
		t.Fatalf("%q should block, but returned %q, %v", p.sql, r.tag, r.err)
	case <-time.After(blockedFor):
	}
}

// wait returns the statement's outcome, failing the test if it does not
// finish within waitTimeout.
func (p *pending) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-p.ch:
		p.ch <- r // wait may be called again
		return r
	case <-time.After(waitTimeout):
		t.Fatalf("%q did not finish within %v (hang)", p.sql, waitTimeout)
	}
	return result{}
}

// waitOK waits and fails unless the statement succeeded with tag want.
func (p *pending) waitOK(t *testing.T, want string) {
	t.Helper()
	r := p.wait(t)
	if r.err != nil {
		t.Fatalf("%q: %v", p.sql, r.err)
	}
	if r.tag != want {
		t.Fatalf("%q: tag %q, want %q", p.sql, r.tag, want)
	}
}

// txStatus is the ReadyForQuery status of c: 'I' idle, 'T' in a block,
// 'E' in a failed block.
func txStatus(c *pgx.Conn) byte { return c.PgConn().TxStatus() }

// wantUsable checks that c answers a query and is not inside a transaction.
func wantUsable(t *testing.T, c *pgx.Conn) {
	t.Helper()
	if got := queryInt(t, c, "SELECT 41 + 1"); got != 42 {
		t.Fatalf("SELECT 41 + 1 = %d", got)
	}
	if s := txStatus(c); s != 'I' {
		t.Fatalf("transaction status %q, want 'I'", s)
	}
}

// needPsql is the path of the psql client; the test is skipped where the
// PostgreSQL client tools are not installed (the README's CI machine has
// them).
func needPsql(t *testing.T) string {
	t.Helper()
	psql, err := osexec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	return psql
}

// psqlRunner runs psql (no psqlrc, stop on the first error) against the
// server on port and returns its output; an error fails the test.
func psqlRunner(t *testing.T, psql string, port int) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		base := []string{"-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1"}
		out, err := osexec.Command(psql, append(base, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
}
