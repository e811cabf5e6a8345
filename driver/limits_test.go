package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	tidal "github.com/tidal-db/tidal/driver"
)

// statement_timeout from the DSN, and a canceled context, end a statement
// waiting for a row lock with 57014, as over the wire.
func TestEmbeddedStatementTimeoutAndCancel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := open(t, dir)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Exec("CREATE TABLE lk (id int PRIMARY KEY, n int); INSERT INTO lk VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec("UPDATE lk SET n = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}

	want57014 := func(what string, err error, msg string) {
		t.Helper()
		var pe *tidal.Error
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != msg {
			t.Fatalf("%s: %v, want 57014 %q", what, err, msg)
		}
	}
	timed, err := sql.Open("tidal", dir+"?shared_buffers=16MB&statement_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	defer timed.Close()
	start := time.Now()
	_, err = timed.Exec("UPDATE lk SET n = 2 WHERE id = 1")
	want57014("statement_timeout from the DSN", err, "canceling statement due to statement timeout")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timed out after %v", d)
	}

	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = db.ExecContext(cctx, "UPDATE lk SET n = 3 WHERE id = $1", 1)
	want57014("canceled context", err, "canceling statement due to user request")

	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT n FROM lk").Scan(&n); err != nil || n != 1 {
		t.Fatalf("n = %d, %v", n, err)
	}
}

// Embedded sessions have process IDs of their own, and one can cancel
// another's statement with pg_cancel_backend, as over the wire.
func TestEmbeddedPgCancelBackend(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "data"))
	defer db.Close()
	ctx := context.Background()
	victim, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	admin, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var pid, adminPID int
	if err := victim.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&adminPID); err != nil {
		t.Fatal(err)
	}
	if pid == adminPID || pid < 10000 {
		t.Fatalf("process IDs %d and %d", pid, adminPID)
	}
	done := make(chan error, 1)
	go func() {
		_, err := victim.ExecContext(ctx, "SELECT pg_sleep(3600)")
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ok bool
		if err := admin.QueryRowContext(ctx, "SELECT pg_cancel_backend($1)", pid).Scan(&ok); err != nil || !ok {
			t.Fatalf("pg_cancel_backend: %v %v", ok, err)
		}
		select {
		case err := <-done:
			var pe *tidal.Error
			if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
				t.Fatalf("canceled sleep: %v", err)
			}
			return
		case <-time.After(50 * time.Millisecond):
			// The cancel came before the sleep started: send another.
		}
		if time.Now().After(deadline) {
			t.Fatal("pg_sleep was not canceled")
		}
	}
}
