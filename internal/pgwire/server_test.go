package pgwire

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/lib/pq"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// waitSleeping waits until a session of eng is inside a "sleep" statement.
func waitSleeping(t *testing.T, eng *fakeEngine) {
	t.Helper()
	select {
	case <-eng.sleepStart:
	case <-time.After(10 * time.Second):
		t.Fatal("the sleep statement never started")
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func pgxConnect(t *testing.T, ts *testServer, extra string) *pgx.Conn {
	t.Helper()
	dsn := fmt.Sprintf("postgres://postgres@%s/postgres?default_query_exec_mode=simple_protocol&application_name=pgxtest%s", ts.addr, extra)
	conn, err := pgx.Connect(testCtx(t), dsn)
	if err != nil {
		t.Fatalf("pgx.Connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestPgx(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	ctx := testCtx(t)

	var notices []string
	// sslmode=prefer (the default) exercises SSLRequest → 'N'.
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://postgres@%s/postgres?default_query_exec_mode=simple_protocol&sslmode=prefer", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+" "+n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)

	if v := conn.PgConn().ParameterStatus("server_version"); v != "17.0 (tidal)" {
		t.Errorf("server_version = %q", v)
	}
	if v := conn.PgConn().ParameterStatus("session_authorization"); v != "postgres" {
		t.Errorf("session_authorization = %q", v)
	}

	var n int
	if err := conn.QueryRow(ctx, "select 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("select 1 = %d, %v", n, err)
	}
	var s *string
	if err := conn.QueryRow(ctx, "select null").Scan(&s); err != nil || s != nil {
		t.Fatalf("select null = %v, %v", s, err)
	}

	_, err = conn.Exec(ctx, "bad")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42601" || pgErr.Severity != "ERROR" ||
		pgErr.SeverityUnlocalized != "ERROR" || pgErr.Position != 1 || pgErr.Message != `syntax error at or near "bad"` {
		t.Fatalf("bad: %#v", err)
	}

	tag, err := conn.Exec(ctx, "notice")
	if err != nil || tag.String() != "DO" {
		t.Fatalf("notice: %v %v", tag, err)
	}
	if !slices.Equal(notices, []string{"NOTICE hello from notice"}) {
		t.Errorf("notices = %q", notices)
	}

	// Transaction status follows the session.
	if _, err := conn.Exec(ctx, "begin"); err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'T' {
		t.Errorf("TxStatus after begin = %c", st)
	}
	if _, err := conn.Exec(ctx, "bad"); err == nil {
		t.Fatal("bad in tx succeeded")
	}
	if st := conn.PgConn().TxStatus(); st != 'E' {
		t.Errorf("TxStatus after error = %c", st)
	}
	if tag, err := conn.Exec(ctx, "commit"); err != nil || tag.String() != "ROLLBACK" {
		t.Errorf("commit of failed tx: %v %v", tag, err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		t.Errorf("TxStatus after commit = %c", st)
	}

	// A plain Go error becomes XX000.
	_, err = conn.Exec(ctx, "internal")
	if !errors.As(err, &pgErr) || pgErr.Code != pgerr.InternalError || pgErr.Message != "plain Go error" {
		t.Errorf("internal: %v", err)
	}

	// A result larger than the flush threshold streams.
	rows, err := conn.Query(ctx, "big 20000")
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for rows.Next() {
		var i int
		var pad string
		if err := rows.Scan(&i, &pad); err != nil {
			t.Fatal(err)
		}
		if i != count || len(pad) != 100 {
			t.Fatalf("row %d = %d %d", count, i, len(pad))
		}
		count++
	}
	if rows.Err() != nil || count != 20000 || rows.CommandTag().String() != "SELECT 20000" {
		t.Fatalf("big: %d rows, %v, %v", count, rows.Err(), rows.CommandTag())
	}

	// Several statements in one Query message.
	mrr := conn.PgConn().Exec(ctx, "create table t; select 1")
	results, err := mrr.ReadAll()
	if err != nil || len(results) != 2 || results[0].CommandTag.String() != "CREATE TABLE" ||
		results[1].CommandTag.String() != "SELECT 1" || string(results[1].Rows[0][0]) != "1" {
		t.Fatalf("multi: %v %v", results, err)
	}

	// Empty query.
	if _, err := conn.PgConn().Exec(ctx, " ; ").ReadAll(); err != nil {
		t.Fatalf("empty query: %v", err)
	}

	// CancelRequest reaches the engine with this connection's key and
	// cancels the running statement.
	key := CancelKey{PID: conn.PgConn().PID(), Secret: binary.BigEndian.Uint32(conn.PgConn().SecretKey())}
	if eng.session(key) == nil {
		t.Fatalf("no session for key %+v", key)
	}
	go func() {
		<-eng.sleepStart
		_ = conn.PgConn().CancelRequest(context.Background())
	}()
	_, err = conn.Exec(ctx, "sleep")
	if !errors.As(err, &pgErr) || pgErr.Code != pgerr.QueryCanceled {
		t.Fatalf("sleep: %v", err)
	}
	if got := <-eng.cancels; got != key {
		t.Errorf("cancel key = %+v, want %+v", got, key)
	}
	if err := conn.QueryRow(ctx, "select 1").Scan(&n); err != nil {
		t.Fatalf("after cancel: %v", err)
	}
}

func TestPgxStartupErrors(t *testing.T) {
	ts := startServer(t, newFakeEngine(), nil)
	ctx := testCtx(t)
	for _, tc := range []struct{ dsn, code, msg string }{
		{"postgres://postgres@%s/nodb?sslmode=disable", "3D000", `database "nodb" does not exist`},
		{"postgres://nobody@%s/postgres?sslmode=disable", "28000", `role "nobody" does not exist`},
	} {
		_, err := pgx.Connect(ctx, fmt.Sprintf(tc.dsn, ts.addr))
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != tc.code || pgErr.Severity != "FATAL" || pgErr.Message != tc.msg {
			t.Errorf("%s: %v", tc.dsn, err)
		}
	}
}

func TestLibPQ(t *testing.T) {
	ts := startServer(t, newFakeEngine(), nil)
	ctx := testCtx(t)
	for _, proto := range []string{"", " max_protocol_version=3.2"} {
		t.Run("proto"+proto, func(t *testing.T) {
			db, err := sql.Open("postgres", fmt.Sprintf("host=127.0.0.1 port=%s user=postgres dbname=postgres sslmode=disable binary_parameters=no%s", ts.port(), proto))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int
			if err := db.QueryRowContext(ctx, "select 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("select 1 = %d, %v", n, err)
			}
			_, err = db.ExecContext(ctx, "bad")
			var pqErr *pq.Error
			if !errors.As(err, &pqErr) || pqErr.Code != "42601" || pqErr.Position != "1" {
				t.Fatalf("bad: %#v", err)
			}

			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, q := range []string{"begin", "create table t", "commit"} {
				if _, err := c.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			rows, err := c.QueryContext(ctx, "big 1000")
			if err != nil {
				t.Fatal(err)
			}
			cnt := 0
			for rows.Next() {
				cnt++
			}
			if rows.Err() != nil || cnt != 1000 {
				t.Fatalf("big: %d %v", cnt, rows.Err())
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Raw protocol tests

type rawClient struct {
	t  *testing.T
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, ts *testServer) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// describe renders a backend message compactly.
func describe(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.AuthenticationOk:
		return "AuthOk"
	case *pgproto3.ParameterStatus:
		return "S"
	case *pgproto3.BackendKeyData:
		return "K"
	case *pgproto3.ReadyForQuery:
		return "Z " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		return fmt.Sprintf("T %d", len(m.Fields))
	case *pgproto3.DataRow:
		parts := make([]string, len(m.Values))
		for i, v := range m.Values {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = string(v)
			}
		}
		return "D " + strings.Join(parts, ",")
	case *pgproto3.CommandComplete:
		return "C " + string(m.CommandTag)
	case *pgproto3.EmptyQueryResponse:
		return "I"
	case *pgproto3.ErrorResponse:
		return fmt.Sprintf("E %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.NoticeResponse:
		return fmt.Sprintf("N %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.NegotiateProtocolVersion:
		return fmt.Sprintf("v %d %v", m.NewestMinorProtocol, m.UnrecognizedOptions)
	}
	return fmt.Sprintf("%T", m)
}

// until reads messages up to and including ReadyForQuery, or until EOF
// (reported as "EOF").
func (c *rawClient) until() []string {
	c.t.Helper()
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return append(out, "EOF")
			}
			c.t.Fatalf("receive after %q: %v", out, err)
		}
		d := describe(m)
		if d == "S" {
			continue
		}
		out = append(out, d)
		if strings.HasPrefix(d, "Z ") {
			return out
		}
	}
}

func (c *rawClient) expect(want ...string) {
	c.t.Helper()
	if got := c.until(); !slices.Equal(got, want) {
		c.t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func startupMsg(params ...string) *pgproto3.StartupMessage {
	m := &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{}}
	for i := 0; i+1 < len(params); i += 2 {
		m.Parameters[params[i]] = params[i+1]
	}
	return m
}

// login runs a normal startup and returns the backend key.
func (c *rawClient) login() CancelKey {
	c.t.Helper()
	c.send(startupMsg("user", "postgres", "database", "postgres", "application_name", "psql"))
	var key CancelKey
	for {
		m, err := c.fe.Receive()
		if err != nil {
			c.t.Fatalf("login: %v", err)
		}
		switch m := m.(type) {
		case *pgproto3.BackendKeyData:
			key = CancelKey{PID: m.ProcessID, Secret: binary.BigEndian.Uint32(m.SecretKey)}
		case *pgproto3.ReadyForQuery:
			if m.TxStatus != 'I' {
				c.t.Fatalf("initial status %c", m.TxStatus)
			}
			return key
		case *pgproto3.ErrorResponse:
			c.t.Fatalf("login: %s", m.Message)
		}
	}
}

func packet(code uint32, rest ...byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(rest)))
	b = binary.BigEndian.AppendUint32(b, code)
	return append(b, rest...)
}

func TestRawStartup(t *testing.T) {
	ts := startServer(t, newFakeEngine(), nil)

	t.Run("SSLRequest", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write(packet(sslRequestCode))
		var b [1]byte
		if _, err := io.ReadFull(c.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("SSLRequest answer %q %v", b, err)
		}
		c.write(packet(gssEncRequestCode))
		if _, err := io.ReadFull(c.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("GSSEncRequest answer %q %v", b, err)
		}
		c.login()
		c.send(&pgproto3.Query{String: "select 1"})
		c.expect("T 1", "D 1", "C SELECT 1", "Z I")
	})

	t.Run("SecondSSLRequest", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write(packet(sslRequestCode))
		var b [1]byte
		io.ReadFull(c.nc, b[:])
		c.write(packet(sslRequestCode))
		c.expect("E FATAL 0A000 unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0", "EOF")
	})

	t.Run("NoUser", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.send(startupMsg("database", "postgres"))
		c.expect("E FATAL 28000 no PostgreSQL user name specified in startup packet", "EOF")
	})

	t.Run("EmptyParams", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write(packet(pgproto3.ProtocolVersion30, 0))
		c.expect("E FATAL 28000 no PostgreSQL user name specified in startup packet", "EOF")
	})

	t.Run("Protocol2", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write(packet(2<<16, 'u', 's', 'e', 'r', 0, 'x', 0, 0))
		c.expect("E FATAL 0A000 unsupported frontend protocol 2.0: server supports 3.0 to 3.0", "EOF")
	})

	t.Run("BadLayout", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write(packet(pgproto3.ProtocolVersion30, 'u', 's', 'e', 'r', 0, 'x', 0))
		c.expect("E FATAL 08P01 invalid startup packet layout: expected terminator as last byte", "EOF")
	})

	t.Run("Protocol32Negotiated", func(t *testing.T) {
		c := dialRaw(t, ts)
		m := startupMsg("user", "postgres", "_pq_.frob", "1")
		m.ProtocolVersion = pgproto3.ProtocolVersion32
		c.send(m)
		c.expect("v 0 [_pq_.frob]", "AuthOk", "K", "Z I")
	})

	t.Run("DatabaseDefaultsToUser", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.send(startupMsg("user", "nodb"))
		c.expect("AuthOk", `E FATAL 3D000 database "nodb" does not exist`, "EOF")
	})

	t.Run("BadStartupLength", func(t *testing.T) {
		c := dialRaw(t, ts)
		c.write([]byte{0, 0, 0, 2})
		c.expect("EOF")
	})
}

func TestCancelRequest(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	key := c.login()
	if key.PID == 0 {
		t.Fatal("no BackendKeyData")
	}
	c.send(&pgproto3.Query{String: "sleep"})
	waitSleeping(t, eng)

	cc := dialRaw(t, ts)
	cc.send(&pgproto3.CancelRequest{ProcessID: key.PID, SecretKey: binary.BigEndian.AppendUint32(nil, key.Secret)})
	cc.expect("EOF") // the server closes the cancel connection
	if got := <-eng.cancels; got != key {
		t.Fatalf("Cancel(%+v), want %+v", got, key)
	}
	c.expect("E ERROR 57014 canceling statement due to user request", "Z I")

	// A wrong key is passed on too; the engine ignores it.
	cc = dialRaw(t, ts)
	cc.send(&pgproto3.CancelRequest{ProcessID: key.PID, SecretKey: []byte{1, 2, 3, 4}})
	cc.expect("EOF")
	if got := <-eng.cancels; got.Secret != 0x01020304 {
		t.Fatalf("Cancel(%+v)", got)
	}
}

func TestSimpleQueryFlow(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	c.login()

	// psql-style multi-statement query where the second fails.
	c.send(&pgproto3.Query{String: "select 1; bad; select 1"})
	c.expect("T 1", "D 1", "C SELECT 1", `E ERROR 42601 syntax error at or near "bad"`, "Z I")

	c.send(&pgproto3.Query{String: "begin; select 1; bad"})
	c.expect("C BEGIN", "T 1", "D 1", "C SELECT 1", `E ERROR 42601 syntax error at or near "bad"`, "Z E")
	c.send(&pgproto3.Query{String: "select 1"})
	c.expect("E ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block", "Z E")
	c.send(&pgproto3.Query{String: "rollback"})
	c.expect("C ROLLBACK", "Z I")

	c.send(&pgproto3.Query{String: "notice; select null"})
	c.expect("N NOTICE 00000 hello from notice", "C DO", "T 1", "D NULL", "C SELECT 1", "Z I")

	c.send(&pgproto3.Query{String: ""})
	c.expect("I", "Z I")

	// Pipelined queries are answered in order.
	c.send(&pgproto3.Query{String: "select 1"}, &pgproto3.Query{String: "bad"}, &pgproto3.Query{String: "create table t"})
	c.expect("T 1", "D 1", "C SELECT 1", "Z I")
	c.expect(`E ERROR 42601 syntax error at or near "bad"`, "Z I")
	c.expect("C CREATE TABLE", "Z I")

	// Malformed Query body (no terminator) is an ERROR, not fatal.
	c.write([]byte{'Q', 0, 0, 0, 7, 'a', 'b', 'c'})
	c.expect("E ERROR 08P01 invalid message format", "Z I")

	// A FATAL from the session ends the connection.
	c.send(&pgproto3.Query{String: "fatal"})
	c.expect("E FATAL 57P01 terminating connection due to idle-in-transaction timeout", "EOF")
}

func TestExtendedProtocolRejected(t *testing.T) {
	ts := startServer(t, newFakeEngine(), nil)
	c := dialRaw(t, ts)
	c.login()
	c.send(
		&pgproto3.Parse{Query: "select 1"},
		&pgproto3.Bind{},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Query{String: "select 1"}, // skipped until Sync, as PostgreSQL does
		&pgproto3.Sync{},
	)
	c.expect("E ERROR 0A000 extended query protocol is not supported yet", "Z I")
	c.send(&pgproto3.Sync{})
	c.expect("Z I")
	c.send(&pgproto3.Flush{}, &pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "select 1"})
	c.expect("T 1", "D 1", "C SELECT 1", "Z I")
	c.send(&pgproto3.FunctionCall{Function: 1})
	c.expect("E ERROR 0A000 fast-path function calls are not supported yet", "Z I")
}

func TestGarbageAndTerminate(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)

	c := dialRaw(t, ts)
	key := c.login()
	c.write([]byte("Zgarbage"))
	c.expect("E FATAL 08P01 invalid frontend message type 90", "EOF")
	if got := <-eng.closed; got != key {
		t.Errorf("closed %+v, want %+v", got, key)
	}

	// The server goes on.
	c = dialRaw(t, ts)
	key = c.login()
	c.write([]byte{'Q', 0, 0, 0, 2})
	c.expect("E FATAL 08P01 invalid message length", "EOF")
	<-eng.closed

	c = dialRaw(t, ts)
	key = c.login()
	c.send(&pgproto3.Terminate{})
	c.expect("EOF")
	if got := <-eng.closed; got != key {
		t.Errorf("closed %+v, want %+v", got, key)
	}

	// 'p' outside authentication is not a valid message type.
	c = dialRaw(t, ts)
	c.login()
	c.send(&pgproto3.PasswordMessage{Password: "x"})
	c.expect("E FATAL 08P01 invalid frontend message type 112", "EOF")
	<-eng.closed

	// EOF closes the session.
	c = dialRaw(t, ts)
	key = c.login()
	c.nc.Close()
	if got := <-eng.closed; got != key {
		t.Errorf("closed %+v, want %+v", got, key)
	}
}

func TestOversizedMessage(t *testing.T) {
	ts := startServer(t, newFakeEngine(), func(cfg *Config) { cfg.MaxMessageSize = 1 << 20 })
	c := dialRaw(t, ts)
	c.login()
	c.write([]byte{'Q', 0, 0x20, 0, 0}) // 2 MiB
	c.expect(`E FATAL 08P01 invalid message length`, "EOF")

	c = dialRaw(t, ts)
	c.login()
	c.write([]byte{'S', 0, 1, 0, 0}) // small message types have a small limit
	c.expect(`E FATAL 08P01 invalid message length`, "EOF")

	// The default limit is 1 GiB - 1.
	ts2 := startServer(t, newFakeEngine(), nil)
	c = dialRaw(t, ts2)
	c.login()
	c.write([]byte{'Q', 0x40, 0, 0, 4})
	c.expect(`E FATAL 08P01 invalid message length`, "EOF")

	// A large but legal query works.
	c = dialRaw(t, ts)
	c.login()
	c.send(&pgproto3.Query{String: "select 1" + strings.Repeat(" ", 500000)})
	c.expect("T 1", "D 1", "C SELECT 1", "Z I")
}

func TestDroppedConnectionCancelsQuery(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	c.login()
	c.send(&pgproto3.Query{String: "sleep"})
	waitSleeping(t, eng)
	c.nc.Close()
	select {
	case err := <-eng.sleepEnd:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("sleep ended with %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("query context not cancelled when the client went away")
	}
}

func TestPanicRecovered(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	panics := make(chan any, 1)
	hook := func(v any) { panics <- v }
	ts.srv.panicHook.Store(&hook)
	c := dialRaw(t, ts)
	c.login()
	c.send(&pgproto3.Query{String: "panic"})
	c.expect("E FATAL XX000 internal error: boom", "EOF")
	if v := <-panics; v != "boom" {
		t.Errorf("panic %v", v)
	}
	c = dialRaw(t, ts)
	c.login()
}

func TestLogging(t *testing.T) {
	eng := newFakeEngine()
	ts := startServer(t, eng, nil)
	c := dialRaw(t, ts)
	c.login()
	c.send(&pgproto3.Terminate{})
	c.expect("EOF")
	<-eng.closed
	port := c.nc.LocalAddr().(*net.TCPAddr).Port
	logs := ts.logs.String()
	for _, re := range []string{
		fmt.Sprintf(`\[\d+\] LOG:  connection received: host=127\.0\.0\.1 port=%d\n`, port),
		`\[\d+\] LOG:  connection authorized: user=postgres database=postgres application_name=psql\n`,
		fmt.Sprintf(`\[\d+\] LOG:  disconnection: session time: 0:00:\d\d\.\d\d\d user=postgres database=postgres host=127\.0\.0\.1 port=%d\n`, port),
	} {
		if !regexp.MustCompile(re).MatchString(logs) {
			t.Errorf("log lacks %s:\n%s", re, logs)
		}
	}
}

func TestShutdown(t *testing.T) {
	eng := newFakeEngine()
	eng.sleepMax = 300 * time.Millisecond
	ts := startServer(t, eng, nil)

	idle := dialRaw(t, ts)
	idle.login()
	busy := dialRaw(t, ts)
	busy.login()
	busy.send(&pgproto3.Query{String: "sleep"})
	waitSleeping(t, eng)

	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- ts.srv.Shutdown(ctx)
	}()
	idle.expect("E FATAL 57P01 terminating connection due to administrator command", "EOF")
	// The busy connection finishes its statement first.
	busy.expect("C SELECT 1", "Z I")
	busy.expect("E FATAL 57P01 terminating connection due to administrator command", "EOF")
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-ts.done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Shutdown")
	}
	if _, err := net.Dial("tcp", ts.addr); err == nil {
		t.Error("still accepting after Shutdown")
	}
}

func TestShutdownForce(t *testing.T) {
	eng := newFakeEngine()
	eng.sleepMax = 10 * time.Second
	ts := startServer(t, eng, nil)
	busy := dialRaw(t, ts)
	busy.login()
	busy.send(&pgproto3.Query{String: "sleep"})
	waitSleeping(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	busy.expect("EOF")
	if err := <-eng.sleepEnd; !errors.Is(err, context.Canceled) {
		t.Errorf("busy statement's ctx: %v", err)
	}
}

func TestServeContextCancel(t *testing.T) {
	eng := newFakeEngine()
	srv := NewServer(Config{ListenAddrs: []string{"127.0.0.1:0", "127.0.0.1:0"}}, eng)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	addrs := srv.Addr()
	if len(addrs) != 2 {
		t.Fatalf("Addr = %v", addrs)
	}
	ts := &testServer{srv: srv, addr: addrs[1].String()}
	c := dialRaw(t, ts)
	c.login()
	cancel()
	c.expect("E FATAL 57P01 terminating connection due to administrator command", "EOF")
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
}

func TestListenError(t *testing.T) {
	srv := NewServer(Config{ListenAddrs: []string{"256.0.0.1:0"}}, newFakeEngine())
	if err := srv.Serve(context.Background()); err == nil {
		t.Fatal("Serve on a bad address succeeded")
	}
	if a := srv.Addr(); a != nil {
		t.Fatalf("Addr = %v", a)
	}
}
