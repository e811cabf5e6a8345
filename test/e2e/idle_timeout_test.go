package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/testutil"
)

// idle_in_transaction_session_timeout: a session left idle inside a
// transaction block longer than the setting is terminated with FATAL 25P03
// and its transaction rolled back; idle outside a block it is left alone.
//
// The margins are wall-clock time on a shared machine: a session stays
// idle a fifth of the timeout where it must survive, and four
// times the timeout where it must be ended (timers and goroutines can
// start late under load; the statement sent after the wait must not win
// the race against a late timer).
func TestIdleInTransactionSessionTimeout(t *testing.T) {
	const timeout = 500 * time.Millisecond
	dsn := testutil.Start(t, testutil.Options{}).DSN()
	c := connect(t, dsn)
	exec(t, c, "CREATE TABLE idle_t (id int PRIMARY KEY)")
	exec(t, c, fmt.Sprintf("SET idle_in_transaction_session_timeout = '%dms'", timeout.Milliseconds()))

	// Idle outside a transaction block: nothing happens.
	time.Sleep(2 * timeout)
	wantUsable(t, c)

	// Each message restarts the timer: a block that lasts longer than the
	// timeout but is never idle that long survives.
	exec(t, c, "BEGIN")
	exec(t, c, "INSERT INTO idle_t VALUES (1)")
	for range 6 { // 6 x timeout/5: the block outlasts the timeout
		time.Sleep(timeout / 5)
		exec(t, c, "SELECT 1")
	}
	exec(t, c, "COMMIT")

	exec(t, c, "BEGIN")
	exec(t, c, "INSERT INTO idle_t VALUES (2)")
	time.Sleep(4 * timeout)
	_, err := execErr(c, "INSERT INTO idle_t VALUES (3)")
	if err == nil {
		t.Fatal("statement after the idle timeout succeeded")
	}
	t.Logf("after idle timeout: %v", err)
	if code := sqlState(err); code != "" {
		pe := wantState(t, "after idle timeout", err, "25P03")
		if pe.Severity != "FATAL" || pe.Message != "terminating connection due to idle-in-transaction timeout" {
			t.Fatalf("got %s %q", pe.Severity, pe.Message)
		}
	}
	if !c.IsClosed() {
		t.Fatal("connection still open after the idle-in-transaction timeout")
	}

	// The transaction was rolled back; a failed block times out too.
	c2 := connect(t, dsn)
	if got := query(t, c2, "SELECT id FROM idle_t ORDER BY id"); got != "1" {
		t.Fatalf("rows after timeout: %q, want 1", got)
	}
	exec(t, c2, fmt.Sprintf("SET idle_in_transaction_session_timeout = %d", timeout.Milliseconds())) // plain number: milliseconds
	exec(t, c2, "BEGIN")
	if _, err := execErr(c2, "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	time.Sleep(4 * timeout)
	if _, err := execErr(c2, "ROLLBACK"); err == nil || !c2.IsClosed() {
		t.Fatalf("failed block not terminated: %v", err)
	}
}
