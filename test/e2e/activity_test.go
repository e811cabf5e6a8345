package e2e

// The activity views as a DBA reads them, through a real client: a
// session blocked on a row lock shows in pg_stat_activity (wait_event_type
// Lock, wait_event transactionid), in pg_locks (a ShareLock on the
// holder's xid, not granted) and in pg_blocking_pids; a SERIALIZABLE
// reader's SIREAD locks show in pg_locks; pg_stat_database's counters move
// by what the sessions did. Like the bad-input tests they run against a
// real PostgreSQL 15 too (TIDAL_E2E_REFERENCE_DSN), which is how their
// expectations were checked.

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// eventually polls sql on c until it returns want: what another session
// publishes (its wait, its state) is visible only once that session gets
// there, which the test cannot time.
func eventually(t *testing.T, c *pgx.Conn, sql, want string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		got := query(t, c, sql)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q, want %q", sql, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestActivityAndLocksOfARowLockWait(t *testing.T) {
	cs := sessions(t, 3, "CREATE TABLE act_t (a int PRIMARY KEY, b int)", "INSERT INTO act_t VALUES (1, 0), (2, 0)")
	holder, waiter, dba := cs[0], cs[1], cs[2]
	hp, wp := backendPID(t, holder), backendPID(t, waiter)
	activity := func(pid uint32) string {
		return fmt.Sprintf("SELECT state, wait_event_type, wait_event, query, backend_type, datname, usename FROM pg_stat_activity WHERE pid = %d", pid)
	}

	exec(t, holder, "BEGIN")
	exec(t, holder, "UPDATE act_t SET b = 1 WHERE a = 1")
	eventually(t, dba, activity(hp), "idle in transaction|Client|ClientRead|UPDATE act_t SET b = 1 WHERE a = 1|client backend|postgres|postgres")
	xid := query(t, dba, fmt.Sprintf("SELECT backend_xid FROM pg_stat_activity WHERE pid = %d", hp))
	if _, err := strconv.ParseUint(xid, 10, 32); err != nil {
		t.Fatalf("holder's backend_xid %q: want its transaction id", xid)
	}

	p := start(waiter, "UPDATE act_t SET b = 2 WHERE a = 1")
	eventually(t, dba, activity(wp), "active|Lock|transactionid|UPDATE act_t SET b = 2 WHERE a = 1|client backend|postgres|postgres")
	if got := query(t, dba, fmt.Sprintf("SELECT pg_blocking_pids(%d) = ARRAY[%d], cardinality(pg_blocking_pids(%d))", wp, hp, hp)); got != "true|0" {
		t.Fatalf("pg_blocking_pids: %q", got)
	}
	// The waiter waits for the holder's xid with a ShareLock, holding the
	// row's tuple lock; the holder holds its xid exclusively.
	locks := fmt.Sprintf(`SELECT locktype, mode, granted, pid = %d, waitstart IS NOT NULL FROM pg_locks
		WHERE locktype IN ('transactionid', 'tuple') AND (transactionid::text = '%s' OR locktype = 'tuple') ORDER BY locktype, granted, pid = %d`, wp, xid, wp)
	if got := query(t, dba, locks); got != "transactionid|ShareLock|false|true|true,transactionid|ExclusiveLock|true|false|false,tuple|ExclusiveLock|true|true|false" {
		t.Fatalf("pg_locks:\n%s", got)
	}
	if got := query(t, dba, fmt.Sprintf("SELECT mode, granted FROM pg_locks WHERE locktype = 'relation' AND relation = (SELECT oid FROM pg_class WHERE relname = 'act_t') AND pid = %d", hp)); got != "RowExclusiveLock|true" {
		t.Fatalf("holder's relation lock: %q", got)
	}
	p.stillBlocked(t)

	exec(t, holder, "ROLLBACK")
	p.waitOK(t, "UPDATE 1")
	eventually(t, dba, activity(wp), "idle|Client|ClientRead|UPDATE act_t SET b = 2 WHERE a = 1|client backend|postgres|postgres")
	if got := query(t, dba, "SELECT count(*) FROM pg_locks WHERE NOT granted"); got != "0" {
		t.Fatalf("ungranted locks after the wait: %s", got)
	}

	// A failed block is "idle in transaction (aborted)": the transaction
	// is over (xact_start NULL) unless a savepoint keeps it.
	exec(t, holder, "BEGIN")
	if _, err := execErr(holder, "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1/0: %v", err)
	}
	eventually(t, dba, fmt.Sprintf("SELECT state, xact_start IS NULL, query FROM pg_stat_activity WHERE pid = %d", hp),
		"idle in transaction (aborted)|true|SELECT 1/0")
	exec(t, holder, "ROLLBACK")
	exec(t, holder, "BEGIN")
	exec(t, holder, "SAVEPOINT s")
	if _, err := execErr(holder, "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1/0: %v", err)
	}
	eventually(t, dba, fmt.Sprintf("SELECT state, xact_start IS NULL FROM pg_stat_activity WHERE pid = %d", hp),
		"idle in transaction (aborted)|false")
	exec(t, holder, "ROLLBACK")
	eventually(t, dba, fmt.Sprintf("SELECT state, xact_start IS NULL FROM pg_stat_activity WHERE pid = %d", hp), "idle|true")

	// track_activities = off: PostgreSQL's "disabled" state, no query.
	exec(t, holder, "SET track_activities = off")
	eventually(t, dba, fmt.Sprintf("SELECT state, query, query_start IS NULL FROM pg_stat_activity WHERE pid = %d", hp), "disabled||true")
}

func TestActivityOfASleepingSession(t *testing.T) {
	dsn := target(t)
	dba := connect(t, dsn)
	for _, mode := range []string{"simple", "extended"} {
		t.Run(mode, func(t *testing.T) {
			sleeper := connect(t, dsn)
			if mode == "extended" {
				sleeper = connectDefault(t, dsn) // Parse, Bind, Execute
			}
			sp := backendPID(t, sleeper)
			p := start(sleeper, "SELECT pg_sleep(60)")
			eventually(t, dba, fmt.Sprintf("SELECT state, wait_event_type, wait_event, query, state_change >= query_start, xact_start <= query_start FROM pg_stat_activity WHERE pid = %d", sp),
				"active|Timeout|PgSleep|SELECT pg_sleep(60)|true|true")
			exec(t, dba, fmt.Sprintf("SELECT pg_cancel_backend(%d)", sp))
			wantState(t, p.sql, p.wait(t).err, "57014")
		})
	}
}

func TestPgLocksSIReadLocks(t *testing.T) {
	// Enough rows that PostgreSQL too reads one by its index.
	cs := sessions(t, 2, "CREATE TABLE act_s (a int PRIMARY KEY, b int)", "INSERT INTO act_s SELECT g, g FROM generate_series(1, 10000) g", "ANALYZE act_s")
	reader, dba := cs[0], cs[1]
	rp := backendPID(t, reader)
	exec(t, reader, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, reader, "SELECT sum(b) FROM act_s")
	siread := fmt.Sprintf(`SELECT l.locktype, c.relname, l.page IS NULL, l.tuple IS NULL, l.granted, l.virtualtransaction = a.virtualxid
		FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		JOIN (SELECT virtualxid, pid FROM pg_locks WHERE locktype = 'virtualxid') a ON a.pid = l.pid
		WHERE l.mode = 'SIReadLock' AND l.pid = %d ORDER BY l.locktype, c.relname`, rp)
	// A sequential scan locks the whole relation.
	if got := query(t, dba, siread); got != "relation|act_s|true|true|true|true" {
		t.Fatalf("SIREAD locks of a seq scan:\n%s", got)
	}
	exec(t, reader, "COMMIT")

	exec(t, reader, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, reader, "SELECT b FROM act_s WHERE a = 7")
	// An index scan locks the index page it read and the tuple it fetched.
	if got := query(t, dba, siread); got != "page|act_s_pkey|false|true|true|true,tuple|act_s|false|false|true|true" {
		t.Fatalf("SIREAD locks of an index scan:\n%s", got)
	}
	exec(t, reader, "COMMIT")
}

// dbStats reads the counters of database postgres, after making the
// session's own pending counters visible (PostgreSQL flushes them lazily;
// tidal publishes them as they change).
func dbStats(t *testing.T, c *pgx.Conn) map[string]int64 {
	t.Helper()
	exec(t, c, "SELECT pg_stat_force_next_flush()")
	exec(t, c, "SELECT pg_stat_clear_snapshot()")
	cols := []string{"xact_commit", "xact_rollback", "tup_returned", "tup_inserted", "tup_updated", "tup_deleted", "deadlocks", "sessions", "sessions_killed", "numbackends"}
	ctx := t.Context()
	vals := make([]int64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	q := "SELECT "
	for i, c := range cols {
		if i > 0 {
			q += ", "
		}
		q += c + "::int8"
	}
	if err := c.QueryRow(ctx, q+" FROM pg_stat_database WHERE datname = 'postgres'").Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for i, c := range cols {
		out[c] = vals[i]
	}
	return out
}

func TestPgStatDatabaseCounters(t *testing.T) {
	dsn := target(t)
	w, dba := connect(t, dsn), connect(t, dsn)
	exec(t, w, "DROP TABLE IF EXISTS act_d")
	exec(t, w, "CREATE TABLE act_d (a int PRIMARY KEY, b int)")
	before := dbStats(t, w)
	exec(t, w, "INSERT INTO act_d VALUES (1, 0), (2, 0), (3, 0)")
	exec(t, w, "UPDATE act_d SET b = 1 WHERE a < 3")
	exec(t, w, "DELETE FROM act_d WHERE a = 3")
	exec(t, w, "BEGIN")
	exec(t, w, "INSERT INTO act_d VALUES (4, 0)")
	exec(t, w, "ROLLBACK")
	exec(t, w, "SELECT * FROM act_d")
	extra := connect(t, dsn)
	exec(t, extra, "SELECT 1")
	after := dbStats(t, w)
	delta := func(k string) int64 { return after[k] - before[k] }
	// The rolled-back insert counts in tup_inserted too, as in PostgreSQL.
	for k, want := range map[string]int64{"tup_inserted": 4, "tup_updated": 2, "tup_deleted": 1, "sessions": 1} {
		if got := delta(k); got != want {
			t.Errorf("%s grew by %d, want %d", k, got, want)
		}
	}
	if d := delta("xact_rollback"); d < 1 {
		t.Errorf("xact_rollback grew by %d, want at least 1", d)
	}
	if d := delta("xact_commit"); d < 5 {
		t.Errorf("xact_commit grew by %d, want at least 5", d)
	}
	if d := delta("tup_returned"); d < 2 {
		t.Errorf("tup_returned grew by %d, want at least the 2 rows scanned", d)
	}
	if after["numbackends"] < 3 {
		t.Errorf("numbackends %d with three sessions connected", after["numbackends"])
	}

	// A deadlock between w and dba counts once.
	exec(t, w, "BEGIN")
	exec(t, dba, "BEGIN")
	exec(t, w, "SET LOCAL deadlock_timeout = '100s'")
	exec(t, dba, "SET LOCAL deadlock_timeout = '10ms'")
	exec(t, w, "UPDATE act_d SET b = 2 WHERE a = 1")
	exec(t, dba, "UPDATE act_d SET b = 2 WHERE a = 2")
	p := start(w, "UPDATE act_d SET b = 3 WHERE a = 2")
	p.stillBlocked(t)
	_, err := execErr(dba, "UPDATE act_d SET b = 3 WHERE a = 1")
	wantState(t, "the statement closing the cycle", err, "40P01")
	exec(t, dba, "ROLLBACK")
	p.waitOK(t, "UPDATE 1")
	exec(t, w, "COMMIT")
	exec(t, dba, "SELECT pg_stat_force_next_flush()") // the victim counts it
	exec(t, dba, "SELECT 1")
	// A terminated session counts as killed.
	ep := backendPID(t, extra)
	exec(t, dba, fmt.Sprintf("SELECT pg_terminate_backend(%d, 5000)", ep))
	final := dbStats(t, w)
	if d := final["deadlocks"] - after["deadlocks"]; d != 1 {
		t.Errorf("deadlocks grew by %d, want 1", d)
	}
	if d := final["sessions_killed"] - after["sessions_killed"]; d != 1 {
		t.Errorf("sessions_killed grew by %d, want 1", d)
	}

	// An index scan counts in pg_stat_user_indexes.
	idx := "SELECT idx_scan, idx_tup_read, idx_tup_fetch FROM pg_stat_user_indexes WHERE indexrelname = 'act_d_pkey'"
	exec(t, w, "SELECT pg_stat_force_next_flush()")
	var scans0 int64
	if err := w.QueryRow(t.Context(), "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'act_d_pkey'").Scan(&scans0); err != nil {
		t.Fatal(err)
	}
	exec(t, w, "SELECT b FROM act_d WHERE a = 2")
	exec(t, w, "SELECT pg_stat_force_next_flush()")
	exec(t, w, "SELECT pg_stat_clear_snapshot()")
	if got, want := query(t, w, idx), fmt.Sprintf("%d|", scans0+1); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("%s: %q, want idx_scan %d", idx, got, scans0+1)
	}

	// pg_stat_reset zeroes the database's counters and dates the reset.
	exec(t, w, "SELECT pg_stat_reset()")
	exec(t, w, "SELECT pg_stat_clear_snapshot()")
	if got := query(t, w, "SELECT tup_inserted, deadlocks, stats_reset IS NOT NULL FROM pg_stat_database WHERE datname = 'postgres'"); got != "0|0|true" {
		t.Errorf("after pg_stat_reset: %q", got)
	}
}

// TestActivityOfOtherRoles: without the privileges of a backend's role
// (or pg_read_all_stats) a role sees who the backend is and its
// transaction horizon, not what it does.
func TestActivityOfOtherRoles(t *testing.T) {
	dsn := target(t)
	su := connect(t, dsn)
	exec(t, su, "DROP ROLE IF EXISTS act_viewer")
	exec(t, su, "CREATE ROLE act_viewer LOGIN")
	t.Cleanup(func() { _, _ = execErr(su, "DROP ROLE IF EXISTS act_viewer") })
	viewer := connect(t, strings.Replace(dsn, "postgres@", "act_viewer@", 1))
	row := fmt.Sprintf(`SELECT usename, datname, query, state IS NULL, query_start IS NULL, wait_event IS NULL,
		backend_type IS NULL, backend_xmin IS NULL FROM pg_stat_activity WHERE pid = %d`, backendPID(t, su))
	if got := query(t, viewer, row); got != "postgres|postgres|<insufficient privilege>|true|true|true|true|true" {
		t.Fatalf("a superuser's session seen by another role: %q", got)
	}
	own := fmt.Sprintf("SELECT usename, state, backend_type FROM pg_stat_activity WHERE pid = %d", backendPID(t, viewer))
	if got := query(t, viewer, own); got != "act_viewer|active|client backend" {
		t.Fatalf("its own session: %q", got)
	}
	exec(t, su, "GRANT pg_read_all_stats TO act_viewer")
	// Now in full: the superuser is idle, showing the query it ran last.
	full := fmt.Sprintf("SELECT usename, query, state, backend_type FROM pg_stat_activity WHERE pid = %d", backendPID(t, su))
	if got, want := query(t, viewer, full), "postgres|SELECT pg_backend_pid()|idle|client backend"; got != want {
		t.Fatalf("seen by a member of pg_read_all_stats: %q, want %q", got, want)
	}
	if _, err := execErr(viewer, "SELECT pg_stat_reset()"); sqlState(err) != "42501" {
		t.Fatalf("pg_stat_reset by a non-superuser: %v", err)
	}
}
