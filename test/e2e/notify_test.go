package e2e

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"
)

// waitNote waits for the next notification on an idle connection.
func waitNote(t *testing.T, c *pgx.Conn) *pgconn.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	n, err := c.WaitForNotification(ctx)
	if err != nil {
		t.Fatalf("WaitForNotification: %v", err)
	}
	return n
}

// TestNotifyIdleListener: a notification reaches a listener that sits idle
// (it sends nothing), with the sender's pid, channel and payload; a
// rolled-back NOTIFY is never delivered, and identical notifications of
// one transaction arrive once, in order.
func TestNotifyIdleListener(t *testing.T) {
	dsn := target(t)
	l := connect(t, dsn)
	snd := connect(t, dsn)
	exec(t, l, "LISTEN jobs")
	if got, want := query(t, l, "SELECT pg_backend_pid()"), strconv.Itoa(int(l.PgConn().PID())); got != want {
		t.Fatalf("pg_backend_pid() %s, BackendKeyData %s", got, want)
	}

	exec(t, snd, "NOTIFY jobs, 'first'")
	n := waitNote(t, l)
	if n.PID != snd.PgConn().PID() || n.Channel != "jobs" || n.Payload != "first" {
		t.Fatalf("got %+v, want pid %d jobs/first", n, snd.PgConn().PID())
	}

	exec(t, snd, "BEGIN")
	exec(t, snd, "NOTIFY jobs, 'rolled back'")
	exec(t, snd, "ROLLBACK")
	exec(t, snd, "BEGIN")
	exec(t, snd, "NOTIFY jobs, 'x'")
	exec(t, snd, "NOTIFY other, 'not listened'")
	exec(t, snd, "SELECT pg_notify('jobs', 'x')")
	exec(t, snd, "NOTIFY jobs, 'y'")
	exec(t, snd, "NOTIFY jobs")
	exec(t, snd, "NOTIFY jobs, 'x'")
	exec(t, snd, "COMMIT")
	var got []string
	for _, want := range []string{"x", "y", ""} {
		n := waitNote(t, l)
		got = append(got, n.Payload)
		if n.Payload != want {
			t.Fatalf("payloads %q, want x, y, \"\"", got)
		}
	}
	// A rolled-back savepoint's NOTIFY is dropped, a released one's kept.
	for _, q := range []string{"BEGIN", "SAVEPOINT s", "NOTIFY jobs, 'rolled back sub'", "ROLLBACK TO s",
		"SAVEPOINT t", "NOTIFY jobs, 'released sub'", "RELEASE t", "COMMIT"} {
		exec(t, snd, q)
	}
	if n := waitNote(t, l); n.Payload != "released sub" {
		t.Fatalf("after savepoints: %q, want released sub", n.Payload)
	}
	exec(t, snd, "NOTIFY jobs, 'last'")
	if n := waitNote(t, l); n.Payload != "last" {
		t.Fatalf("after the folded ones: %q, want last", n.Payload)
	}
}

// TestNotifyBusyListener: a listener inside a transaction block gets its
// notifications when the block ends, before COMMIT's ReadyForQuery; a
// session hears its own NOTIFY after the command.
func TestNotifyBusyListener(t *testing.T) {
	dsn := target(t)
	var mu sync.Mutex
	var heard []string
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) {
		mu.Lock()
		heard = append(heard, n.Channel+"/"+n.Payload)
		mu.Unlock()
	}
	l, err := pgx.ConnectConfig(tctx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	snd := connect(t, dsn)
	heardNow := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(heard, ",")
	}

	exec(t, l, "LISTEN q")
	exec(t, l, "BEGIN")
	exec(t, snd, "NOTIFY q, 'during block'") // committed when Exec returns
	exec(t, l, "SELECT 1")
	if h := heardNow(); h != "" {
		t.Fatalf("delivered inside a transaction block: %s", h)
	}
	exec(t, l, "COMMIT")
	if h := heardNow(); h != "q/during block" {
		t.Fatalf("after COMMIT heard %q, want q/during block", h)
	}

	exec(t, l, "NOTIFY q, 'self'")
	if h := heardNow(); h != "q/during block,q/self" {
		t.Fatalf("own notification: heard %q", h)
	}
	if pid := l.PgConn().PID(); pid == snd.PgConn().PID() {
		t.Fatalf("two sessions share pid %d", pid)
	}
}

// TestListenTransactional: LISTEN and UNLISTEN take effect at commit;
// pg_listening_channels lists the channels listened on.
func TestListenTransactional(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	exec(t, c, "LISTEN b")
	exec(t, c, "LISTEN a")
	exec(t, c, "LISTEN a")
	if got := query(t, c, "SELECT * FROM pg_listening_channels()"); got != "b,a" {
		t.Fatalf("channels %q, want b,a (in the order of LISTEN)", got)
	}
	exec(t, c, "BEGIN")
	exec(t, c, "LISTEN c")
	exec(t, c, "UNLISTEN a")
	if got := query(t, c, "SELECT * FROM pg_listening_channels() ORDER BY 1"); got != "a,b" {
		t.Fatalf("channels before COMMIT %q, want a,b", got)
	}
	exec(t, c, "ROLLBACK")
	if got := query(t, c, "SELECT pg_listening_channels()"); got != "b,a" {
		t.Fatalf("channels after ROLLBACK %q, want b,a", got)
	}
	exec(t, c, "UNLISTEN a")
	if got := query(t, c, "SELECT * FROM pg_listening_channels()"); got != "b" {
		t.Fatalf("channels %q, want b", got)
	}
	exec(t, c, "UNLISTEN *")
	if got := query(t, c, "SELECT count(*) FROM pg_listening_channels()"); got != "0" {
		t.Fatalf("channels after UNLISTEN *: %s", got)
	}
}

// TestNotifyBadInput: PostgreSQL's limits and errors; the session goes on.
func TestNotifyBadInput(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	exec(t, c, "NOTIFY ch, '"+strings.Repeat("x", 7999)+"'")
	for _, q := range []string{
		"NOTIFY ch, '" + strings.Repeat("x", 8000) + "'",
		"SELECT pg_notify('ch', repeat('x', 8000))",
		"SELECT pg_notify('', 'p')",
		"SELECT pg_notify(NULL, 'p')",
		"SELECT pg_notify('" + strings.Repeat("c", 64) + "', 'p')",
	} {
		_, err := execErr(c, q)
		wantState(t, q[:min(len(q), 40)], err, "22023")
	}
	exec(t, c, "SELECT pg_notify('ch', NULL)")
	if got := query(t, c, "SELECT 1"); got != "1" {
		t.Fatalf("session after errors: %s", got)
	}
}

// TestNotifyLibpqListener: lib/pq's Listener (its own connection, idle,
// simple protocol) receives notifications sent through database/sql.
func TestNotifyLibpqListener(t *testing.T) {
	dsn := target(t)
	l := pq.NewListener(dsn, 10*time.Millisecond, time.Second, nil)
	defer l.Close()
	if err := l.Listen("pqchan"); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SELECT pg_notify('pqchan', 'from database/sql')"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-l.Notify:
		if n == nil || n.Channel != "pqchan" || n.Extra != "from database/sql" || n.BePid == 0 {
			t.Fatalf("got %+v", n)
		}
	case <-time.After(waitTimeout):
		t.Fatal("no notification")
	}
}
