package e2e

// Interrupts as clients see them (PostgreSQL's CHECK_FOR_INTERRUPTS):
// statement_timeout, a CancelRequest, pg_cancel_backend,
// pg_terminate_backend, lock_timeout and a client that disconnects each
// end a statement that would otherwise run for hours, with PostgreSQL's
// SQLSTATE; the session goes on (or, when terminated, ends with FATAL
// 57P01) and a block the statement ran in is aborted (25P02 afterwards).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/testutil"
)

// runaway is a three-way cross join of 2,000 rows: 8e9 combinations,
// hours of work, so any answer within seconds came from an interrupt.
const runaway = "SELECT count(*) FROM intr_t a, intr_t b, intr_t c"

// interruptBound is how soon an interrupted statement must end: far less
// than the statement's own run time, generous for a loaded machine.
const interruptBound = 10 * time.Second

func startInterruptServer(t *testing.T) *testutil.Server {
	t.Helper()
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE intr_t AS SELECT g FROM generate_series(1, 2000) g")
	return s
}

// wantEndsWith waits for p and checks its SQLSTATE and message.
func wantEndsWith(t *testing.T, p *pending, began time.Time, code, msg string) {
	t.Helper()
	r := p.wait(t)
	pe := wantState(t, p.sql, r.err, code)
	if pe.Message != msg {
		t.Errorf("%s: message %q, want %q", p.sql, pe.Message, msg)
	}
	if d := time.Since(began); d > interruptBound {
		t.Errorf("%s ended after %v", p.sql, d)
	}
}

// wantBlockAborted checks PostgreSQL's transaction-block state after a
// statement of the block was interrupted, and leaves the block.
func wantBlockAborted(t *testing.T, c *pgx.Conn) {
	t.Helper()
	if s := txStatus(c); s != 'E' {
		t.Errorf("transaction status %q after the interrupt, want 'E'", s)
	}
	_, err := execErr(c, "SELECT 1")
	wantState(t, "a statement after the interrupt in a block", err, "25P02")
	exec(t, c, "ROLLBACK")
	wantUsable(t, c)
}

func TestStatementTimeoutEndsCPUBoundStatements(t *testing.T) {
	s := startInterruptServer(t)
	for _, mode := range []string{"extended", "simple"} {
		t.Run(mode, func(t *testing.T) {
			c := connectDefault(t, s.DSN())
			if mode == "simple" {
				c = connect(t, s.DSN())
			}
			exec(t, c, "SET statement_timeout = '300ms'")
			for _, q := range []string{
				runaway,
				"SELECT count(*) FROM generate_series(1, 1e10)",
				"SELECT count(*) FROM intr_t a, intr_t b, intr_t c WHERE a.g + b.g < c.g - 5000",
				"SELECT count(*) FROM intr_t a JOIN intr_t b ON a.g % 2 = b.g % 2 JOIN intr_t c ON b.g % 2 = c.g % 2",
				"SELECT count(DISTINCT a.g * b.g + c.g) FROM intr_t a, intr_t b, intr_t c",
				"SELECT a.g FROM intr_t a, intr_t b, intr_t c ORDER BY 1 LIMIT 1",
			} {
				began := time.Now()
				wantEndsWith(t, start(c, q), began, "57014", "canceling statement due to statement timeout")
				wantUsable(t, c)
			}
			exec(t, c, "BEGIN")
			exec(t, c, "SELECT 1")
			began := time.Now()
			wantEndsWith(t, start(c, runaway), began, "57014", "canceling statement due to statement timeout")
			wantBlockAborted(t, c)
		})
	}
}

func TestCancelRequestEndsCPUBoundStatement(t *testing.T) {
	s := startInterruptServer(t)
	for _, mode := range []string{"extended", "simple"} {
		t.Run(mode, func(t *testing.T) {
			c := connectDefault(t, s.DSN())
			if mode == "simple" {
				c = connect(t, s.DSN())
			}
			exec(t, c, "BEGIN")
			p := start(c, runaway)
			p.stillBlocked(t)
			began := time.Now()
			if err := c.PgConn().CancelRequest(context.Background()); err != nil {
				t.Fatal(err)
			}
			wantEndsWith(t, p, began, "57014", "canceling statement due to user request")
			wantBlockAborted(t, c)
		})
	}
}

// backendPID is what the session itself says its process ID is; it must
// be the one in the cancel key.
func backendPID(t *testing.T, c *pgx.Conn) uint32 {
	t.Helper()
	pid := queryInt(t, c, "SELECT pg_backend_pid()")
	if uint32(pid) != c.PgConn().PID() {
		t.Fatalf("pg_backend_pid() = %d, BackendKeyData says %d", pid, c.PgConn().PID())
	}
	return uint32(pid)
}

func TestPgCancelBackend(t *testing.T) {
	s := startInterruptServer(t)
	victim, admin := connectDefault(t, s.DSN()), connect(t, s.DSN())
	pid := backendPID(t, victim)
	if pid == backendPID(t, admin) {
		t.Fatal("two sessions share a process ID")
	}
	// With nothing running, a cancel is ignored.
	if got := query(t, admin, fmt.Sprintf("SELECT pg_cancel_backend(%d)", pid)); got != "true" {
		t.Fatalf("pg_cancel_backend of an idle session = %s", got)
	}
	wantUsable(t, victim)

	exec(t, victim, "BEGIN")
	p := start(victim, runaway)
	p.stillBlocked(t)
	began := time.Now()
	if got := query(t, admin, fmt.Sprintf("SELECT pg_cancel_backend(%d)", pid)); got != "true" {
		t.Fatalf("pg_cancel_backend = %s", got)
	}
	wantEndsWith(t, p, began, "57014", "canceling statement due to user request")
	wantBlockAborted(t, victim)

	// A session can cancel itself: its statement ends at the next check.
	_, err := execErr(victim, "SELECT pg_cancel_backend(pg_backend_pid())")
	wantState(t, "cancelling oneself", err, "57014")
	wantUsable(t, victim)
}

func TestPgCancelBackendUnknownPID(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	var notices []string
	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for _, q := range []string{"SELECT pg_cancel_backend(1)", "SELECT pg_terminate_backend(1)", "SELECT pg_terminate_backend(1, 100)"} {
		notices = nil
		if got := query(t, c, q); got != "false" {
			t.Errorf("%s = %s", q, got)
		}
		if len(notices) != 1 || notices[0] != "WARNING: PID 1 is not a PostgreSQL backend process" {
			t.Errorf("%s: notices %q", q, notices)
		}
	}
	_, err = execErr(c, "SELECT pg_terminate_backend(1, -1)")
	if pe := wantState(t, "negative timeout", err, "22003"); pe.Message != `"timeout" must not be negative` {
		t.Errorf("message %q", pe.Message)
	}
}

// nextError reads messages until an ErrorResponse and returns it.
func (r *rawSession) nextError(t *testing.T) *pgproto3.ErrorResponse {
	t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(interruptBound))
	for {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatalf("waiting for an ErrorResponse: %v", err)
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			return e
		}
	}
}

func wantFatalTerminate(t *testing.T, what string, e *pgproto3.ErrorResponse) {
	t.Helper()
	if e.Severity != "FATAL" || e.Code != "57P01" || e.Message != "terminating connection due to administrator command" {
		t.Fatalf("%s: %s %s %q, want FATAL 57P01", what, e.Severity, e.Code, e.Message)
	}
}

func (r *rawSession) wantClosed(t *testing.T, what string) {
	t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(interruptBound))
	if _, err := r.fe.Receive(); err == nil {
		t.Fatalf("%s: the connection is still open", what)
	} else if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection is still open after %v", what, interruptBound)
	}
}

func (r *rawSession) simpleQuery(t *testing.T, sql string) {
	t.Helper()
	r.fe.Send(&pgproto3.Query{String: sql})
	if err := r.fe.Flush(); err != nil {
		t.Fatal(err)
	}
}

// readyAfter reads up to ReadyForQuery, returning the last error if any.
func (r *rawSession) readyAfter(t *testing.T) *pgproto3.ErrorResponse {
	t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(interruptBound))
	var last *pgproto3.ErrorResponse
	for {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatalf("waiting for ReadyForQuery: %v", err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			last = m
		case *pgproto3.ReadyForQuery:
			return last
		}
	}
}

func TestPgTerminateBackend(t *testing.T) {
	s := startInterruptServer(t)
	admin := connect(t, s.DSN())
	exec(t, admin, "CREATE TABLE intr_w (n int)")
	// An idle session in a block that wrote: it is told FATAL 57P01 at
	// once, and its write is rolled back.
	idle := rawStartup(t, s.Addr)
	idle.simpleQuery(t, "BEGIN; INSERT INTO intr_w VALUES (1)")
	if e := idle.readyAfter(t); e != nil {
		t.Fatalf("BEGIN; INSERT: %s", e.Message)
	}
	pid := idle.pid(t)
	began := time.Now()
	if got := query(t, admin, fmt.Sprintf("SELECT pg_terminate_backend(%d, 5000)", pid)); got != "true" {
		t.Fatalf("pg_terminate_backend(idle, 5000) = %s", got)
	}
	wantFatalTerminate(t, "idle session", idle.nextError(t))
	idle.wantClosed(t, "idle session")
	if d := time.Since(began); d > interruptBound {
		t.Errorf("the idle session ended after %v", d)
	}
	if got := query(t, admin, "SELECT count(*) FROM intr_w"); got != "0" {
		t.Errorf("the terminated session's insert is visible: %s rows", got)
	}

	// A busy session: its statement ends with FATAL 57P01.
	busy := rawStartup(t, s.Addr)
	pid = busy.pid(t)
	busy.simpleQuery(t, runaway)
	time.Sleep(blockedFor)
	began = time.Now()
	if got := query(t, admin, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid)); got != "true" {
		t.Fatalf("pg_terminate_backend(busy) = %s", got)
	}
	wantFatalTerminate(t, "busy session", busy.nextError(t))
	busy.wantClosed(t, "busy session")
	if d := time.Since(began); d > interruptBound {
		t.Errorf("the busy session ended after %v", d)
	}
	waitFor(t, "the terminated backends to be gone", func() bool {
		return query(t, admin, fmt.Sprintf("SELECT pg_cancel_backend(%d)", pid)) == "false"
	})

	// Terminating oneself.
	self := rawStartup(t, s.Addr)
	self.simpleQuery(t, "SELECT pg_terminate_backend(pg_backend_pid())")
	wantFatalTerminate(t, "terminating oneself", self.nextError(t))
	self.wantClosed(t, "terminating oneself")
	wantUsable(t, admin)
}

// pid asks the session for its process ID and checks it against the key
// in BackendKeyData.
func (r *rawSession) pid(t *testing.T) int64 {
	t.Helper()
	r.simpleQuery(t, "SELECT pg_backend_pid()")
	r.nc.SetReadDeadline(time.Now().Add(interruptBound))
	var pid int64 = -1
	for {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.DataRow:
			fmt.Sscan(string(m.Values[0]), &pid)
		case *pgproto3.ErrorResponse:
			t.Fatalf("pg_backend_pid(): %s", m.Message)
		case *pgproto3.ReadyForQuery:
			if r.keyPID != 0 && uint32(pid) != r.keyPID {
				t.Fatalf("pg_backend_pid() = %d, BackendKeyData %d", pid, r.keyPID)
			}
			return pid
		}
	}
}

func TestSignalPermissions(t *testing.T) {
	s := startInterruptServer(t)
	admin := connect(t, s.DSN())
	for _, q := range []string{
		"CREATE ROLE intr_a LOGIN", "CREATE ROLE intr_b LOGIN", "CREATE ROLE intr_sig LOGIN",
		"GRANT pg_signal_backend TO intr_sig", "GRANT intr_b TO intr_a",
	} {
		exec(t, admin, q)
	}
	as := func(role string) *pgx.Conn {
		return connect(t, strings.Replace(s.DSN(), "postgres@", role+"@", 1))
	}
	a, b, b2, sig := as("intr_a"), as("intr_b"), as("intr_b"), as("intr_sig")
	superPID, aPID, bPID := backendPID(t, admin), backendPID(t, a), backendPID(t, b)
	b2PID, sigPID := backendPID(t, b2), backendPID(t, sig)

	denied := func(c *pgx.Conn, q, msg string) {
		t.Helper()
		_, err := execErr(c, q)
		if pe := wantState(t, q, err, "42501"); pe.Message != msg {
			t.Errorf("%s: %q, want %q", q, pe.Message, msg)
		}
	}
	allowed := func(c *pgx.Conn, q string) {
		t.Helper()
		if got := query(t, c, q); got != "true" {
			t.Errorf("%s = %s", q, got)
		}
	}
	denied(b, fmt.Sprintf("SELECT pg_cancel_backend(%d)", superPID), "must be a superuser to cancel superuser query")
	denied(sig, fmt.Sprintf("SELECT pg_terminate_backend(%d)", superPID), "must be a superuser to terminate superuser process")
	denied(b, fmt.Sprintf("SELECT pg_cancel_backend(%d)", aPID), "must be a member of the role whose query is being canceled or member of pg_signal_backend")
	denied(b, fmt.Sprintf("SELECT pg_terminate_backend(%d)", sigPID), "must be a member of the role whose process is being terminated or member of pg_signal_backend")
	// Members of the backend's role, of pg_signal_backend, and superusers may.
	allowed(a, fmt.Sprintf("SELECT pg_cancel_backend(%d)", bPID))
	allowed(sig, fmt.Sprintf("SELECT pg_cancel_backend(%d)", aPID))
	allowed(b, fmt.Sprintf("SELECT pg_cancel_backend(%d)", b2PID))
	allowed(admin, fmt.Sprintf("SELECT pg_cancel_backend(%d)", sigPID))
	wantUsable(t, b)
}

func TestLockTimeout(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	holder := lockRow(t, s.DSN())
	c := connectDefault(t, s.DSN())
	exec(t, c, "SET lock_timeout = '200ms'")
	if got := query(t, c, "SHOW lock_timeout"); got != "200ms" {
		t.Errorf("SHOW lock_timeout = %s", got)
	}
	for _, q := range []string{"UPDATE limits_t SET n = n + 10 WHERE id = 1", "ALTER TABLE limits_t ADD COLUMN x int"} {
		exec(t, c, "BEGIN")
		began := time.Now()
		p := start(c, q)
		wantEndsWith(t, p, began, "55P03", "canceling statement due to lock timeout")
		if d := time.Since(began); d < 200*time.Millisecond {
			t.Errorf("%s gave up after %v, before lock_timeout", q, d)
		}
		wantBlockAborted(t, c)
	}
	// statement_timeout shorter than lock_timeout wins, with its own error.
	exec(t, c, "SET lock_timeout = '1h'")
	exec(t, c, "SET statement_timeout = '200ms'")
	_, err := execErr(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
	wantState(t, "statement_timeout during a lock wait", err, "57014")
	exec(t, c, "RESET statement_timeout")
	exec(t, c, "RESET lock_timeout")
	exec(t, holder, "COMMIT")
	if got := query(t, c, "SELECT n FROM limits_t"); got != "1" {
		t.Errorf("n = %s: an update that gave up took effect", got)
	}
}

// A client that disconnects mid-statement stops it: the statement's
// transaction (which holds a row lock) ends soon, so another session
// gets the row; without the interrupt it would wait for hours.
func TestDisconnectStopsStatement(t *testing.T) {
	s := startInterruptServer(t)
	gone := rawStartup(t, s.Addr)
	gone.simpleQuery(t, "BEGIN; UPDATE intr_t SET g = g WHERE g = 1; "+runaway)
	time.Sleep(blockedFor)
	waiter := connect(t, s.DSN())
	p := start(waiter, "UPDATE intr_t SET g = g WHERE g = 1")
	p.stillBlocked(t)
	began := time.Now()
	gone.nc.Close()
	if r := p.wait(t); r.err != nil {
		t.Fatalf("after the client left: %v", r.err)
	}
	if d := time.Since(began); d > interruptBound {
		t.Errorf("the lock was released %v after the client left", d)
	}
}

func TestPgSleep(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	began := time.Now()
	res := c.PgConn().ExecParams(context.Background(), "SELECT pg_sleep(0.2), pg_sleep_for('0.1 s'), pg_sleep_until(now() + '0.1 s'), pg_sleep(-1), pg_sleep('NaN')", nil, nil, nil, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	for i, f := range res.FieldDescriptions {
		if f.DataTypeOID != 2278 || len(res.Rows) != 1 || res.Rows[0][i] == nil || len(res.Rows[0][i]) != 0 {
			t.Errorf("column %s: type %d, rows %q; want one empty void value", f.Name, f.DataTypeOID, res.Rows)
		}
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Errorf("the sleeps took %v, want at least 0.3 s", d)
	}
	if got := query(t, c, "SELECT pg_sleep(NULL) IS NULL, pg_sleep(0) IS NULL"); got != "true|false" {
		t.Errorf("pg_sleep(NULL) IS NULL, pg_sleep(0) IS NULL = %s", got)
	}
	exec(t, c, "SET statement_timeout = '200ms'")
	for _, q := range []string{"SELECT pg_sleep(3600)", "SELECT pg_sleep('Infinity')", "SELECT pg_sleep_for('1 day')", "SELECT pg_sleep_until(now() + '1 hour')"} {
		began := time.Now()
		wantEndsWith(t, start(c, q), began, "57014", "canceling statement due to statement timeout")
	}
	exec(t, c, "RESET statement_timeout")
	other := connect(t, s.DSN())
	p := start(c, "SELECT pg_sleep(3600)")
	p.stillBlocked(t)
	began = time.Now()
	query(t, other, fmt.Sprintf("SELECT pg_cancel_backend(%d)", c.PgConn().PID()))
	wantEndsWith(t, p, began, "57014", "canceling statement due to user request")
	wantUsable(t, c)
}
