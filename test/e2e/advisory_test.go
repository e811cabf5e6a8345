package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Advisory locks between sessions, as PostgreSQL's: session locks outlive
// transactions and end with the session or pg_advisory_unlock; _xact_ locks
// end with their transaction (or the savepoint they were taken in); shared
// locks share; waits are deadlock-checked and cancellable. Run against
// PostgreSQL with TIDAL_E2E_REFERENCE_DSN to check the expectations.
func TestAdvisoryLocks(t *testing.T) {
	cs := sessions(t, 4)
	a, b, c, d := cs[0], cs[1], cs[2], cs[3]
	try := func(conn *pgx.Conn, sql string, want string) {
		t.Helper()
		if got := query(t, conn, sql); got != want {
			t.Fatalf("%s: %s, want %s", sql, got, want)
		}
	}

	// A session lock survives its transaction's rollback.
	exec(t, a, "BEGIN")
	query(t, a, "SELECT pg_advisory_lock(42)")
	exec(t, a, "ROLLBACK")
	try(b, "SELECT pg_try_advisory_lock(42)", "false")
	p := start(b, "SELECT pg_advisory_lock(42)")
	p.stillBlocked(t)
	try(a, "SELECT pg_advisory_unlock(42)", "true")
	p.waitOK(t, "SELECT 1")
	try(a, "SELECT pg_try_advisory_lock(42)", "false")
	try(b, "SELECT pg_advisory_unlock(42)", "true")

	// Keys: a bigint and a pair of integers are different locks.
	query(t, a, "SELECT pg_advisory_lock(1, 2)")
	try(b, "SELECT pg_try_advisory_lock((1::bigint << 32) + 2)", "true")
	try(b, "SELECT pg_try_advisory_lock(1, 2)", "false")
	query(t, b, "SELECT pg_advisory_unlock_all()")
	query(t, a, "SELECT pg_advisory_unlock_all()")

	// Shared locks share; an exclusive one waits for all of them.
	query(t, a, "SELECT pg_advisory_lock_shared(7)")
	try(b, "SELECT pg_try_advisory_lock_shared(7)", "true")
	try(c, "SELECT pg_try_advisory_lock(7)", "false")
	try(a, "SELECT pg_advisory_unlock_shared(7)", "true")
	try(c, "SELECT pg_try_advisory_lock(7)", "false")
	try(b, "SELECT pg_advisory_unlock_shared(7)", "true")
	try(c, "SELECT pg_try_advisory_lock(7)", "true")
	try(c, "SELECT pg_advisory_unlock(7)", "true")
	try(c, "SELECT pg_advisory_unlock(7)", "false") // with a WARNING

	// Transaction locks end with the transaction, or with the savepoint
	// they were taken in.
	exec(t, a, "BEGIN")
	query(t, a, "SELECT pg_advisory_xact_lock(100)")
	exec(t, a, "SAVEPOINT s")
	query(t, a, "SELECT pg_advisory_xact_lock(101)")
	try(b, "SELECT pg_try_advisory_xact_lock(101)", "false")
	exec(t, a, "ROLLBACK TO s")
	try(b, "SELECT pg_try_advisory_xact_lock(101)", "true") // b's implicit transaction ends at once
	try(b, "SELECT pg_try_advisory_xact_lock(100)", "false")
	exec(t, a, "COMMIT")
	try(b, "SELECT pg_try_advisory_xact_lock(100)", "true")

	// A session lock is released when the session ends.
	query(t, d, "SELECT pg_advisory_lock(500)")
	try(a, "SELECT pg_try_advisory_lock(500)", "false")
	d.Close(context.Background())
	// The server ends the session asynchronously after the client goes.
	p = start(a, "SELECT pg_advisory_lock(500)")
	p.waitOK(t, "SELECT 1")
	query(t, a, "SELECT pg_advisory_unlock_all()")

	// A deadlock between advisory locks is detected: one of the two waits
	// fails with 40P01, its transaction (and so its transaction locks)
	// ends, and the other goes on. (Session locks would stay held past
	// the error, as in PostgreSQL, so the partner would wait on.)
	exec(t, a, "BEGIN")
	exec(t, b, "BEGIN")
	query(t, a, "SELECT pg_advisory_xact_lock(1)")
	query(t, b, "SELECT pg_advisory_xact_lock(2)")
	pa := start(a, "SELECT pg_advisory_xact_lock(2)")
	pa.stillBlocked(t)
	pb := start(b, "SELECT pg_advisory_xact_lock(1)")
	ra, rb := pa.wait(t), pb.wait(t)
	switch {
	case sqlState(ra.err) == "40P01" && rb.err == nil:
	case sqlState(rb.err) == "40P01" && ra.err == nil:
	default:
		t.Fatalf("deadlock: a %v, b %v; want one 40P01 and one success", ra.err, rb.err)
	}
	exec(t, a, "ROLLBACK")
	exec(t, b, "ROLLBACK")

	// A wait ends with statement_timeout, and the session goes on.
	query(t, a, "SELECT pg_advisory_lock(9)")
	exec(t, b, "SET statement_timeout = '200ms'")
	_, err := execErr(b, "SELECT pg_advisory_lock(9)")
	wantState(t, "advisory lock wait past statement_timeout", err, "57014")
	exec(t, b, "RESET statement_timeout")
	wantUsable(t, b)
	query(t, a, "SELECT pg_advisory_unlock_all()")
}
