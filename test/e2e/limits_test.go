package e2e

// Limits and connection control as clients see them: max_connections,
// statement_timeout, CancelRequest, SSLRequest and a clean shutdown.
// (idle_in_transaction_session_timeout: idle_timeout_test.go.)

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/testutil"
)

// connectDefault connects with pgx's default configuration (extended
// protocol, statement cache).
func connectDefault(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func TestMaxConnections(t *testing.T) {
	s := testutil.Start(t, testutil.Options{Conf: map[string]string{"max_connections": "3"}})
	ctx := context.Background()
	var conns []*pgx.Conn
	for range 3 {
		conns = append(conns, connectDefault(t, s.DSN()))
	}
	if got := query(t, conns[0], "SHOW max_connections"); got != "3" {
		t.Errorf("SHOW max_connections = %s", got)
	}
	_, err := pgx.Connect(ctx, s.DSN())
	pe := wantState(t, "fourth connection", err, "53300")
	if pe.Severity != "FATAL" || pe.Message != "sorry, too many clients already" {
		t.Errorf("got %s %q", pe.Severity, pe.Message)
	}
	// A closed connection frees its slot.
	conns[2].Close(ctx)
	waitFor(t, "a free slot after close", func() bool {
		c, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			return false
		}
		conns[2] = c
		return true
	})
	defer conns[2].Close(ctx)
	// So does a session the server ends (idle-in-transaction timeout).
	exec(t, conns[1], "SET idle_in_transaction_session_timeout = 100")
	exec(t, conns[1], "BEGIN")
	waitFor(t, "a free slot after the server ended a session", func() bool {
		c, err := pgx.Connect(ctx, s.DSN())
		if err != nil {
			return false
		}
		c.Close(ctx)
		return true
	})
}

// TestMaxLocksPerTransaction: a transaction that locks more objects than
// the lock table (max_locks_per_transaction × max_connections) holds
// fails with PostgreSQL's 53200 and hint, the block is aborted, and after
// ROLLBACK the session and the others go on.
func TestMaxLocksPerTransaction(t *testing.T) {
	s := testutil.Start(t, testutil.Options{Conf: map[string]string{"max_locks_per_transaction": "10", "max_connections": "2"}})
	c := connectDefault(t, s.DSN())
	other := connectDefault(t, s.DSN())
	if got := query(t, c, "SHOW max_locks_per_transaction"); got != "10" {
		t.Errorf("SHOW max_locks_per_transaction = %s", got)
	}
	const tables = 30 // more than the 20 the table holds
	for i := range tables {
		exec(t, c, "CREATE TABLE lk"+strconv.Itoa(i)+" (a int)")
	}
	ctx := context.Background()
	exec(t, c, "BEGIN")
	var err error
	locked := 0 // tables read before the failure
	for ; locked < tables; locked++ {
		if _, err = c.Exec(ctx, "SELECT count(*) FROM lk"+strconv.Itoa(locked)); err != nil {
			break
		}
	}
	pe := wantState(t, "locking "+strconv.Itoa(tables)+" tables in one transaction", err, "53200")
	if pe.Message != "out of shared memory" || pe.Hint != "You might need to increase max_locks_per_transaction." {
		t.Errorf("got %q hint %q", pe.Message, pe.Hint)
	}
	if locked > 20 {
		t.Errorf("%d tables were locked; the table holds 20 locks", locked)
	}
	_, err = c.Exec(ctx, "SELECT 1")
	wantState(t, "in the aborted block", err, "25P02")
	exec(t, c, "ROLLBACK")
	if got := query(t, c, "SELECT count(*) FROM lk29"); got != "0" {
		t.Errorf("after ROLLBACK: %s", got)
	}
	if got := query(t, other, "SELECT count(*) FROM lk0"); got != "0" {
		t.Errorf("another session: %s", got)
	}
}

// waitFor polls cond for up to waitTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockRow creates limits_t with one row and holds a lock on it that blocks
// any other update until the returned connection commits or closes.
func lockRow(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	holder := connect(t, dsn)
	exec(t, holder, "CREATE TABLE limits_t (id int PRIMARY KEY, n int)")
	exec(t, holder, "INSERT INTO limits_t VALUES (1, 0)")
	exec(t, holder, "BEGIN")
	exec(t, holder, "UPDATE limits_t SET n = n + 1 WHERE id = 1")
	return holder
}

func TestStatementTimeout(t *testing.T) {
	dsn := testutil.Start(t, testutil.Options{}).DSN()
	holder := lockRow(t, dsn)
	ctx := context.Background()
	wantTimeout := func(what string, err error) {
		t.Helper()
		pe := wantState(t, what, err, "57014")
		if pe.Message != "canceling statement due to statement timeout" {
			t.Errorf("%s: message %q", what, pe.Message)
		}
	}

	for _, mode := range []string{"extended", "simple"} {
		t.Run(mode, func(t *testing.T) {
			c := connectDefault(t, dsn)
			if mode == "simple" {
				c = connect(t, dsn)
			}
			exec(t, c, "SET statement_timeout = '150ms'")
			if got := query(t, c, "SHOW statement_timeout"); got != "150ms" {
				t.Errorf("SHOW statement_timeout = %s", got)
			}
			start := time.Now()
			_, err := execErr(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
			wantTimeout("blocked update", err)
			if d := time.Since(start); d < 150*time.Millisecond || d > 5*time.Second {
				t.Errorf("timed out after %v", d)
			}
			// The session goes on; in a block, the timeout fails the block.
			wantUsable(t, c)
			exec(t, c, "BEGIN")
			_, err = execErr(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
			wantTimeout("blocked update in a block", err)
			_, err = execErr(c, "SELECT 1")
			wantState(t, "after the timeout in a block", err, "25P02")
			exec(t, c, "ROLLBACK")
			exec(t, c, "SET statement_timeout = 0")
			wantUsable(t, c)
		})
	}

	// Set in the startup packet, as PGOPTIONS='-c statement_timeout=150' does.
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["options"] = "-c statement_timeout=150"
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if got := query(t, c, "SHOW statement_timeout"); got != "150ms" {
		t.Errorf("statement_timeout from options = %s", got)
	}
	_, err = execErr(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
	wantTimeout("blocked update, timeout from options", err)

	exec(t, holder, "COMMIT")
	if got := query(t, holder, "SELECT n FROM limits_t"); got != "1" {
		t.Errorf("n = %s: a timed-out update took effect", got)
	}
}

func TestCancelRequestEndToEnd(t *testing.T) {
	dsn := testutil.Start(t, testutil.Options{}).DSN()
	holder := lockRow(t, dsn)
	c := connectDefault(t, dsn)
	p := start(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
	p.stillBlocked(t)
	if err := c.PgConn().CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-p.ch:
		pe := wantState(t, "canceled update", r.err, "57014")
		if pe.Message != "canceling statement due to user request" {
			t.Errorf("message %q", pe.Message)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the canceled statement did not end")
	}
	wantUsable(t, c)
	// A CancelRequest with a wrong key cancels nothing.
	p = start(c, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
	p.stillBlocked(t)
	other := connectDefault(t, dsn)
	if err := other.PgConn().CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.stillBlocked(t)
	exec(t, holder, "COMMIT")
	select {
	case r := <-p.ch:
		if r.err != nil {
			t.Fatalf("update after the lock was released: %v", r.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the update did not finish after the lock was released")
	}
}

// tidal has no TLS: it answers SSLRequest with 'N', so sslmode=prefer
// (pgx's and libpq's default) goes on in plain text and sslmode=require
// fails on the client's side.
func TestSSLRequestRefused(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	base := strings.TrimSuffix(s.DSN(), "?sslmode=disable")
	c := connectDefault(t, base+"?sslmode=prefer")
	wantUsable(t, c)
	_, err := pgx.Connect(context.Background(), base+"?sslmode=require")
	if err == nil || !strings.Contains(err.Error(), "server refused TLS connection") {
		t.Fatalf("sslmode=require: %v", err)
	}
}

// rawSession is a started-up protocol connection read message by message.
type rawSession struct {
	nc     net.Conn
	fe     *pgproto3.Frontend
	keyPID uint32 // the process ID in BackendKeyData
}

func rawStartup(t *testing.T, addr string) *rawSession {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "postgres", "database": "postgres"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var pid uint32
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		switch m := m.(type) {
		case *pgproto3.BackendKeyData:
			pid = m.ProcessID
		case *pgproto3.ReadyForQuery:
			return &rawSession{nc: nc, fe: fe, keyPID: pid}
		}
	}
}

// TestShutdownTellsClients stops a tidal server process (SIGINT) with an
// idle session, one idle in a transaction block and one waiting for a
// lock: each is told FATAL 57P01 "terminating connection due to
// administrator command" before its connection closes, and the process
// exits.
func TestShutdownTellsClients(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p := testutil.StartProcess(t, dir, testutil.FreePort(t))
	stopped := false
	defer func() {
		if !stopped {
			p.Kill()
		}
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port))
	idle := rawStartup(t, addr)
	holder := lockRow(t, p.DSN())
	busy := connectDefault(t, p.DSN())
	pend := start(busy, "UPDATE limits_t SET n = n + 10 WHERE id = 1")
	pend.stillBlocked(t)

	stopErr := make(chan error, 1)
	go func() { stopErr <- p.Stop() }()

	m, err := idle.fe.Receive()
	if er, ok := m.(*pgproto3.ErrorResponse); !ok || er.Severity != "FATAL" || er.Code != "57P01" || er.Message != "terminating connection due to administrator command" {
		t.Errorf("idle session got %#v, %v", m, err)
	}
	if m, err := idle.fe.Receive(); err == nil {
		t.Errorf("idle session: %#v after the FATAL, want the connection closed", m)
	}
	select {
	case r := <-pend.ch:
		// tidal lets a running statement finish before it ends the
		// session (PostgreSQL's fast shutdown would cancel it): the lock
		// holder, idle in its block, is ended at once, its transaction
		// rolled back, so the waiting update gets the row and completes.
		if r.err != nil || r.tag != "UPDATE 1" {
			t.Errorf("busy session's statement: %q, %v", r.tag, r.err)
		}
		_, err := execErr(busy, "SELECT 1")
		if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" {
			t.Errorf("busy session after its statement: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the busy session was not ended by the shutdown")
	}
	if _, err := execErr(holder, "COMMIT"); err == nil {
		t.Error("the lock holder's COMMIT succeeded after shutdown")
	}
	select {
	case err := <-stopErr:
		stopped = true
		if err != nil {
			t.Errorf("server exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit")
	}
}
