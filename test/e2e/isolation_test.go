package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// sessions starts a server and opens n connections to it.
func sessions(t *testing.T, n int, setup ...string) []*pgx.Conn {
	t.Helper()
	dsn := target(t)
	cs := make([]*pgx.Conn, n)
	for i := range cs {
		cs[i] = connect(t, dsn)
	}
	for _, q := range setup {
		if f := strings.Fields(q); len(f) > 2 && f[0] == "CREATE" && f[1] == "TABLE" {
			exec(t, cs[0], "DROP TABLE IF EXISTS "+f[2]) // reference server
		}
		exec(t, cs[0], q)
	}
	return cs
}

// READ COMMITTED: a session sees only committed data, and each statement
// takes a new snapshot, so a later statement of the same transaction sees
// rows committed in between.
func TestReadCommittedVisibility(t *testing.T) {
	cs := sessions(t, 3, "CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'one')")
	a, b, c := cs[0], cs[1], cs[2]

	exec(t, a, "BEGIN")
	exec(t, a, "INSERT INTO t VALUES (2, 'two')")
	exec(t, a, "UPDATE t SET v = 'uno' WHERE id = 1")

	// A sees its own uncommitted changes.
	if got := query(t, a, "SELECT id, v FROM t ORDER BY id"); got != "1|uno,2|two" {
		t.Fatalf("A sees %q, want its own changes 1|uno,2|two", got)
	}
	// Others see neither the insert nor the update, by seq scan or index,
	// and are not blocked by A's row locks.
	for _, q := range []struct{ sql, want string }{
		{"SELECT id, v FROM t ORDER BY id", "1|one"},
		{"SELECT v FROM t WHERE id = 2", ""},
		{"SELECT v FROM t WHERE id = 1", "one"},
		{"SELECT count(*) FROM t", "1"},
	} {
		if got := query(t, b, q.sql); got != q.want {
			t.Fatalf("B before A's commit: %s = %q, want %q", q.sql, got, q.want)
		}
	}

	// B's open transaction: first statement before A commits, second after.
	exec(t, b, "BEGIN")
	if got := query(t, b, "SELECT count(*) FROM t"); got != "1" {
		t.Fatalf("B in transaction, before A's commit: count %q, want 1", got)
	}
	exec(t, a, "COMMIT")
	if got := query(t, b, "SELECT id, v FROM t ORDER BY id"); got != "1|uno,2|two" {
		t.Fatalf("B's second statement after A's commit sees %q, want 1|uno,2|two (new snapshot per statement)", got)
	}
	exec(t, b, "COMMIT")
	for _, q := range []struct{ sql, want string }{
		{"SELECT id, v FROM t ORDER BY id", "1|uno,2|two"},
		{"SELECT v FROM t WHERE id = 2", "two"},
		{"SELECT v FROM t WHERE id = 1", "uno"},
	} {
		if got := query(t, c, q.sql); got != q.want {
			t.Fatalf("C after commit: %s = %q, want %q", q.sql, got, q.want)
		}
	}

	// A rolled-back change never becomes visible.
	exec(t, a, "BEGIN")
	exec(t, a, "DELETE FROM t WHERE id = 1")
	exec(t, a, "INSERT INTO t VALUES (3, 'three')")
	if got := query(t, c, "SELECT id FROM t ORDER BY id"); got != "1,2" {
		t.Fatalf("C during A's delete: %q, want 1,2", got)
	}
	exec(t, a, "ROLLBACK")
	if got := query(t, c, "SELECT id FROM t ORDER BY id"); got != "1,2" {
		t.Fatalf("C after A's rollback: %q, want 1,2", got)
	}
	if got := query(t, c, "SELECT count(*) FROM t WHERE id = 3"); got != "0" {
		t.Fatalf("rolled-back row 3 found by index: %q", got)
	}
}

// A writer blocked on a row another transaction is changing waits for that
// transaction to end, then re-checks its WHERE clause against the newest
// committed version of the row (PostgreSQL's EvalPlanQual) or, if the other
// transaction rolled back, works on the original row.
func TestConcurrentWriteWaitsAndRechecks(t *testing.T) {
	const setup = "INSERT INTO c VALUES (1, 0), (2, 0)"
	cases := []struct {
		name  string
		a     string // A's statement, in an open transaction
		aEnd  string // COMMIT or ROLLBACK
		b     string // B's statement, autocommit; blocks on A
		bTag  string // B's command tag once A ended
		final string // SELECT id, n FROM c ORDER BY id
	}{
		{"increment twice", "UPDATE c SET n = n + 1 WHERE id = 1", "COMMIT",
			"UPDATE c SET n = n + 1 WHERE id = 1", "UPDATE 1", "1|2,2|0"},
		{"increment after rollback", "UPDATE c SET n = n + 1 WHERE id = 1", "ROLLBACK",
			"UPDATE c SET n = n + 1 WHERE id = 1", "UPDATE 1", "1|1,2|0"},
		{"qual no longer matches", "UPDATE c SET n = 10 WHERE id = 1", "COMMIT",
			"UPDATE c SET n = n + 1 WHERE id = 1 AND n = 0", "UPDATE 0", "1|10,2|0"},
		{"qual matches again after rollback", "UPDATE c SET n = 10 WHERE id = 1", "ROLLBACK",
			"UPDATE c SET n = n + 1 WHERE id = 1 AND n = 0", "UPDATE 1", "1|1,2|0"},
		{"key moved away", "UPDATE c SET id = 100 WHERE id = 1", "COMMIT",
			"UPDATE c SET n = n + 1 WHERE id = 1", "UPDATE 0", "2|0,100|0"},
		{"updated by seq scan qual", "UPDATE c SET n = n + 5 WHERE id = 1", "COMMIT",
			"UPDATE c SET n = n * 2 WHERE n >= 0", "UPDATE 2", "1|10,2|0"},
		{"update after committed delete", "DELETE FROM c WHERE id = 1", "COMMIT",
			"UPDATE c SET n = n + 1 WHERE id = 1", "UPDATE 0", "2|0"},
		{"update after rolled-back delete", "DELETE FROM c WHERE id = 1", "ROLLBACK",
			"UPDATE c SET n = n + 1 WHERE id = 1", "UPDATE 1", "1|1,2|0"},
		{"delete after committed delete", "DELETE FROM c WHERE id = 1", "COMMIT",
			"DELETE FROM c WHERE id = 1", "DELETE 0", "2|0"},
		{"delete after committed update", "UPDATE c SET n = 7 WHERE id = 1", "COMMIT",
			"DELETE FROM c WHERE id = 1", "DELETE 1", "2|0"},
		{"delete whose qual no longer matches", "UPDATE c SET n = 7 WHERE id = 1", "COMMIT",
			"DELETE FROM c WHERE id = 1 AND n = 0", "DELETE 0", "1|7,2|0"},
		{"delete after rolled-back update", "UPDATE c SET n = 7 WHERE id = 1", "ROLLBACK",
			"DELETE FROM c WHERE id = 1 AND n = 0", "DELETE 1", "2|0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 3, "CREATE TABLE c (id int PRIMARY KEY, n int)", setup)
			a, b, c := cs[0], cs[1], cs[2]
			exec(t, a, "BEGIN")
			exec(t, a, tc.a)
			pb := start(b, tc.b)
			pb.stillBlocked(t)
			// Readers are not blocked meanwhile and still see the old row.
			if got := query(t, c, "SELECT id, n FROM c ORDER BY id"); got != "1|0,2|0" {
				t.Fatalf("reader during A's transaction sees %q, want 1|0,2|0", got)
			}
			exec(t, a, tc.aEnd)
			pb.waitOK(t, tc.bTag)
			if got := query(t, c, "SELECT id, n FROM c ORDER BY id"); got != tc.final {
				t.Fatalf("final rows %q, want %q", got, tc.final)
			}
			// The index agrees with the heap.
			for _, id := range []int{1, 2, 100} {
				seq := queryInt(t, c, "SELECT count(*) FROM c WHERE id + 0 = "+itoa(id))
				idx := queryInt(t, c, "SELECT count(*) FROM c WHERE id = "+itoa(id))
				if seq != idx {
					t.Fatalf("id %d: seq scan finds %d rows, index scan %d", id, seq, idx)
				}
			}
			wantUsable(t, a)
			wantUsable(t, b)
		})
	}
}

// Two transactions waiting for each other: one is chosen as the deadlock
// victim (40P01) and its transaction is aborted at once, so the other goes
// on; both sessions remain usable.
func TestDeadlockDetected(t *testing.T) {
	cases := []struct {
		name           string
		setup          string
		a1, b1, a2, b2 string
		final          string // SELECT id, n FROM d ORDER BY id, after the survivor commits
		finalIfAWins   string
	}{
		{
			name:  "row locks",
			setup: "INSERT INTO d VALUES (1, 0), (2, 0)",
			a1:    "UPDATE d SET n = n + 1 WHERE id = 1", b1: "UPDATE d SET n = n + 10 WHERE id = 2",
			a2: "UPDATE d SET n = n + 1 WHERE id = 2", b2: "UPDATE d SET n = n + 10 WHERE id = 1",
			finalIfAWins: "1|1,2|1", final: "1|10,2|10",
		},
		{
			name:  "unique index waits",
			setup: "SELECT 1",
			a1:    "INSERT INTO d VALUES (1, 1)", b1: "INSERT INTO d VALUES (2, 10)",
			a2: "INSERT INTO d VALUES (2, 1)", b2: "INSERT INTO d VALUES (1, 10)",
			finalIfAWins: "1|1,2|1", final: "1|10,2|10",
		},
		{
			name:  "row lock and unique wait",
			setup: "INSERT INTO d VALUES (1, 0)",
			a1:    "UPDATE d SET n = 1 WHERE id = 1", b1: "INSERT INTO d VALUES (2, 10)",
			a2: "INSERT INTO d VALUES (2, 1)", b2: "UPDATE d SET n = 10 WHERE id = 1",
			finalIfAWins: "1|1,2|1", final: "1|10,2|10",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 3, "CREATE TABLE d (id int PRIMARY KEY, n int)", tc.setup)
			a, b, c := cs[0], cs[1], cs[2]
			exec(t, a, "BEGIN")
			exec(t, b, "BEGIN")
			exec(t, a, tc.a1)
			exec(t, b, tc.b1)
			pa := start(a, tc.a2)
			pa.stillBlocked(t)
			pb := start(b, tc.b2)
			ra, rb := pa.wait(t), pb.wait(t)

			var victim, survivor *pgx.Conn
			want := tc.final
			switch {
			case sqlState(ra.err) == "40P01" && rb.err == nil:
				victim, survivor, want = a, b, tc.final
			case sqlState(rb.err) == "40P01" && ra.err == nil:
				victim, survivor, want = b, a, tc.finalIfAWins
			default:
				t.Fatalf("want exactly one 40P01 and one success; A: %q %v; B: %q %v", ra.tag, ra.err, rb.tag, rb.err)
			}
			err := ra.err
			if err == nil {
				err = rb.err
			}
			if pe := wantState(t, "deadlock victim", err, "40P01"); pe.Message != "deadlock detected" {
				t.Fatalf("victim's message %q, want \"deadlock detected\"", pe.Message)
			}
			// The survivor finished before the victim said ROLLBACK: the
			// victim's transaction was aborted when the error was raised.
			if s := txStatus(victim); s != 'E' {
				t.Fatalf("victim's transaction status %q, want 'E' (failed block)", s)
			}
			_, err = execErr(victim, "SELECT 1")
			wantState(t, "statement in the victim's failed block", err, "25P02")
			if tag := exec(t, victim, "ROLLBACK"); tag != "ROLLBACK" {
				t.Fatalf("victim ROLLBACK tag %q", tag)
			}
			if tag := exec(t, survivor, "COMMIT"); tag != "COMMIT" {
				t.Fatalf("survivor COMMIT tag %q", tag)
			}
			if got := query(t, c, "SELECT id, n FROM d ORDER BY id"); got != want {
				t.Fatalf("final rows %q, want %q", got, want)
			}
			wantUsable(t, a)
			wantUsable(t, b)
			// The victim can redo its work now.
			exec(t, victim, "UPDATE d SET n = n + 100 WHERE id = 1")
			if got := queryInt(t, c, "SELECT n FROM d WHERE id = 1"); got < 100 {
				t.Fatalf("victim's retry not applied: n = %d", got)
			}
		})
	}
}

// An inserter of a key that an uncommitted transaction inserted (or
// deleted) waits for that transaction: its commit decides between 23505
// and success.
func TestUniqueInsertWaitsForOtherInserter(t *testing.T) {
	cases := []struct {
		name  string
		setup string
		a     string
		aEnd  string
		wantB string // "" success, else SQLSTATE
		final string // SELECT id, v FROM u ORDER BY id
	}{
		{"insert, commit", "SELECT 1", "INSERT INTO u VALUES (5, 'a')", "COMMIT", "23505", "5|a"},
		{"insert, rollback", "SELECT 1", "INSERT INTO u VALUES (5, 'a')", "ROLLBACK", "", "5|b"},
		{"delete, commit", "INSERT INTO u VALUES (5, 'old')", "DELETE FROM u WHERE id = 5", "COMMIT", "", "5|b"},
		{"delete, rollback", "INSERT INTO u VALUES (5, 'old')", "DELETE FROM u WHERE id = 5", "ROLLBACK", "23505", "5|old"},
		{"key update, commit", "INSERT INTO u VALUES (4, 'old')", "UPDATE u SET id = 5 WHERE id = 4", "COMMIT", "23505", "5|old"},
		{"key update, rollback", "INSERT INTO u VALUES (4, 'old')", "UPDATE u SET id = 5 WHERE id = 4", "ROLLBACK", "", "4|old,5|b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 3, "CREATE TABLE u (id int PRIMARY KEY, v text)", tc.setup)
			a, b, c := cs[0], cs[1], cs[2]
			exec(t, a, "BEGIN")
			exec(t, a, tc.a)
			pb := start(b, "INSERT INTO u VALUES (5, 'b')")
			pb.stillBlocked(t)
			exec(t, a, tc.aEnd)
			r := pb.wait(t)
			if tc.wantB == "" {
				if r.err != nil || r.tag != "INSERT 0 1" {
					t.Fatalf("B's insert: %q, %v; want INSERT 0 1", r.tag, r.err)
				}
			} else {
				pe := wantState(t, "B's insert", r.err, tc.wantB)
				if pe.Message != `duplicate key value violates unique constraint "u_pkey"` || pe.Detail != "Key (id)=(5) already exists." {
					t.Fatalf("message %q, detail %q", pe.Message, pe.Detail)
				}
			}
			if got := query(t, c, "SELECT id, v FROM u ORDER BY id"); got != tc.final {
				t.Fatalf("final rows %q, want %q", got, tc.final)
			}
			if got := queryInt(t, c, "SELECT count(*) FROM u WHERE id = 5"); got != 1 {
				t.Fatalf("index finds %d rows with id 5, want 1", got)
			}
			wantUsable(t, b)
		})
	}
}

// REPEATABLE READ: one snapshot, taken at the transaction's first
// statement, serves the whole transaction; changing a row that a
// transaction committed after that snapshot fails with 40001.
func TestRepeatableReadSnapshot(t *testing.T) {
	begins := []string{
		"BEGIN ISOLATION LEVEL REPEATABLE READ",
		"START TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"BEGIN; SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
	}
	for _, begin := range begins {
		t.Run(begin, func(t *testing.T) {
			cs := sessions(t, 2, "CREATE TABLE r (id int PRIMARY KEY, n int)", "INSERT INTO r VALUES (1, 0)")
			a, b := cs[0], cs[1]
			exec(t, a, begin)
			if got := query(t, a, "SHOW transaction_isolation"); got != "repeatable read" {
				t.Fatalf("transaction_isolation %q", got)
			}
			// Committed before A's first statement: visible.
			exec(t, b, "INSERT INTO r VALUES (2, 0)")
			if got := query(t, a, "SELECT id, n FROM r ORDER BY id"); got != "1|0,2|0" {
				t.Fatalf("A's first statement sees %q, want 1|0,2|0", got)
			}
			// Committed after: invisible for the rest of the transaction.
			exec(t, b, "INSERT INTO r VALUES (3, 0)")
			exec(t, b, "UPDATE r SET n = 5 WHERE id = 2")
			exec(t, b, "DELETE FROM r WHERE id = 1")
			for _, q := range []struct{ sql, want string }{
				{"SELECT id, n FROM r ORDER BY id", "1|0,2|0"},
				{"SELECT n FROM r WHERE id = 1", "0"},
				{"SELECT count(*) FROM r WHERE id = 3", "0"},
				{"SELECT n FROM r WHERE id = 2", "0"},
			} {
				if got := query(t, a, q.sql); got != q.want {
					t.Fatalf("A later in its transaction: %s = %q, want %q", q.sql, got, q.want)
				}
			}
			// A's own writes are visible to it.
			exec(t, a, "INSERT INTO r VALUES (4, 0)")
			if got := query(t, a, "SELECT id FROM r ORDER BY id"); got != "1,2,4" {
				t.Fatalf("A sees %q, want 1,2,4", got)
			}
			exec(t, a, "COMMIT")
			if got := query(t, a, "SELECT id, n FROM r ORDER BY id"); got != "2|5,3|0,4|0" {
				t.Fatalf("after COMMIT A sees %q, want 2|5,3|0,4|0", got)
			}
		})
	}
}

// A REPEATABLE READ or SERIALIZABLE transaction that has not written keeps
// its snapshot's horizon published between statements: VACUUM (or page
// pruning) must not remove a version its snapshot still sees.
func TestTxSnapshotHoldsHorizon(t *testing.T) {
	for _, level := range []string{"REPEATABLE READ", "SERIALIZABLE"} {
		t.Run(level, func(t *testing.T) {
			cs := sessions(t, 2, "CREATE TABLE hz (id int PRIMARY KEY, v int)", "INSERT INTO hz VALUES (1, 10)")
			a, b := cs[0], cs[1]
			exec(t, a, "BEGIN ISOLATION LEVEL "+level)
			if got := query(t, a, "SELECT v FROM hz WHERE id = 1"); got != "10" {
				t.Fatalf("first read %s", got)
			}
			exec(t, b, "UPDATE hz SET v = 11 WHERE id = 1")
			exec(t, b, "VACUUM hz")
			if got := query(t, a, "SELECT v FROM hz"); got != "10" {
				t.Fatalf("second read (sequential) %q: the snapshot's version was removed", got)
			}
			if got := query(t, a, "SELECT v FROM hz WHERE id = 1"); got != "10" {
				t.Fatalf("second read (index) %q: the snapshot's version was removed", got)
			}
			exec(t, a, "COMMIT")
		})
	}
}

func TestRepeatableReadSerializationFailure(t *testing.T) {
	cases := []struct {
		name    string
		b       string // B's change to row 1
		bEnd    string // "" autocommit (committed before A's statement), else B holds it open and ends with COMMIT/ROLLBACK while A waits
		a       string // A's statement
		wantErr string // "" success
		wantTag string
	}{
		{"update of committed update", "UPDATE r SET n = n + 1 WHERE id = 1", "", "UPDATE r SET n = n + 10 WHERE id = 1", "40001", ""},
		{"update of committed delete", "DELETE FROM r WHERE id = 1", "", "UPDATE r SET n = n + 10 WHERE id = 1", "40001", ""},
		{"delete of committed update", "UPDATE r SET n = n + 1 WHERE id = 1", "", "DELETE FROM r WHERE id = 1", "40001", ""},
		{"delete of committed delete", "DELETE FROM r WHERE id = 1", "", "DELETE FROM r WHERE id = 1", "40001", ""},
		{"waits, other commits", "UPDATE r SET n = n + 1 WHERE id = 1", "COMMIT", "UPDATE r SET n = n + 10 WHERE id = 1", "40001", ""},
		{"waits, other rolls back", "UPDATE r SET n = n + 1 WHERE id = 1", "ROLLBACK", "UPDATE r SET n = n + 10 WHERE id = 1", "", "UPDATE 1"},
		{"untouched row", "UPDATE r SET n = n + 1 WHERE id = 2", "", "UPDATE r SET n = n + 10 WHERE id = 1", "", "UPDATE 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 2, "CREATE TABLE r (id int PRIMARY KEY, n int)", "INSERT INTO r VALUES (1, 0), (2, 0)")
			a, b := cs[0], cs[1]
			exec(t, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
			exec(t, a, "SELECT * FROM r") // takes the snapshot
			var r result
			if tc.bEnd == "" {
				exec(t, b, tc.b)
				tag, err := execErr(a, tc.a)
				r = result{tag, err}
			} else {
				exec(t, b, "BEGIN")
				exec(t, b, tc.b)
				pa := start(a, tc.a)
				pa.stillBlocked(t)
				exec(t, b, tc.bEnd)
				r = pa.wait(t)
			}
			if tc.wantErr == "" {
				if r.err != nil || r.tag != tc.wantTag {
					t.Fatalf("A: %q, %v; want %s", r.tag, r.err, tc.wantTag)
				}
				exec(t, a, "COMMIT")
				return
			}
			pe := wantState(t, "A's statement", r.err, tc.wantErr)
			if pe.Message != "could not serialize access due to concurrent update" && pe.Message != "could not serialize access due to concurrent delete" {
				t.Fatalf("message %q", pe.Message)
			}
			_, err := execErr(a, "SELECT 1")
			wantState(t, "statement after 40001", err, "25P02")
			exec(t, a, "ROLLBACK")
			// Retrying in a new transaction works on the current row.
			exec(t, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
			tag, err := execErr(a, tc.a)
			if err != nil || (tag != "UPDATE 1" && tag != "UPDATE 0" && tag != "DELETE 1" && tag != "DELETE 0") {
				t.Fatalf("retry: %q, %v", tag, err)
			}
			exec(t, a, "COMMIT")
			wantUsable(t, a)
		})
	}
}

// Every way of asking for SERIALIZABLE gives a transaction that runs at
// it, and a write skew between two of them fails one with 40001, its
// DETAIL and HINT as in PostgreSQL 15.
func TestSerializableLevels(t *testing.T) {
	cases := []struct {
		name string
		pre  string // run first, outside any block (may be "")
		sql  []string
	}{
		{"BEGIN ISOLATION LEVEL", "", []string{"BEGIN ISOLATION LEVEL SERIALIZABLE"}},
		{"START TRANSACTION", "", []string{"START TRANSACTION ISOLATION LEVEL SERIALIZABLE"}},
		{"SET TRANSACTION in block", "", []string{"BEGIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"}},
		{"SET transaction_isolation in block", "", []string{"BEGIN", "SET transaction_isolation = 'serializable'"}},
		{"SET default_transaction_isolation", "SET default_transaction_isolation = 'serializable'", []string{"BEGIN"}},
		{"SET SESSION CHARACTERISTICS", "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE", []string{"BEGIN"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 2, "CREATE TABLE doctors (name text PRIMARY KEY, on_call boolean)",
				"INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
			a, b := cs[0], cs[1]
			for _, c := range cs {
				if tc.pre != "" {
					exec(t, c, tc.pre)
				}
				for _, q := range tc.sql {
					exec(t, c, q)
				}
				if got := query(t, c, "SHOW transaction_isolation"); got != "serializable" {
					t.Fatalf("transaction runs at %q", got)
				}
				if got := query(t, c, "SELECT count(*) FROM doctors WHERE on_call"); got != "2" {
					t.Fatalf("on call: %s", got)
				}
			}
			exec(t, a, "UPDATE doctors SET on_call = false WHERE name = 'alice'")
			exec(t, b, "UPDATE doctors SET on_call = false WHERE name = 'bob'")
			exec(t, a, "COMMIT")
			_, err := execErr(b, "COMMIT")
			pe := wantState(t, "second COMMIT", err, "40001")
			if pe.Message != "could not serialize access due to read/write dependencies among transactions" ||
				pe.Detail != "Reason code: Canceled on identification as a pivot, during commit attempt." ||
				pe.Hint != "The transaction might succeed if retried." {
				t.Fatalf("error %q / %q / %q", pe.Message, pe.Detail, pe.Hint)
			}
			if s := txStatus(b); s != 'I' {
				t.Fatalf("transaction status %q after a failed COMMIT", s)
			}
			if got := query(t, b, "SELECT count(*) FROM doctors WHERE on_call"); got != "1" {
				t.Fatalf("on call after the failed commit: %s", got)
			}
			if tc.pre != "" {
				exec(t, a, "RESET default_transaction_isolation")
				exec(t, a, "BEGIN")
				if got := query(t, a, "SHOW transaction_isolation"); got != "read committed" {
					t.Fatalf("next transaction after RESET runs at %q", got)
				}
				exec(t, a, "COMMIT")
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// A Query message of several statements outside BEGIN runs as one implicit
// transaction: all or nothing, and committed when the message ends — it
// does not linger and join the session's next transaction.
func TestMultiStatementQueryIsOneTransaction(t *testing.T) {
	cs := sessions(t, 2, "CREATE TABLE m (id int PRIMARY KEY, v int)")
	a, b := cs[0], cs[1]

	exec(t, a, "INSERT INTO m VALUES (1, 0); INSERT INTO m VALUES (2, 0); UPDATE m SET v = 1 WHERE id = 1")
	if s := txStatus(a); s != 'I' {
		t.Fatalf("after the message A's status is %q, want 'I'", s)
	}
	if got := query(t, b, "SELECT id, v FROM m ORDER BY id"); got != "1|1,2|0" {
		t.Fatalf("B sees %q, want 1|1,2|0 (committed at the end of the message)", got)
	}
	// A holds no row locks any more.
	pb := start(b, "UPDATE m SET v = v + 10 WHERE id = 1")
	pb.waitOK(t, "UPDATE 1")

	// The next transaction of A rolls back alone.
	exec(t, a, "BEGIN")
	exec(t, a, "INSERT INTO m VALUES (3, 0)")
	exec(t, a, "ROLLBACK")
	exec(t, a, "INSERT INTO m VALUES (4, 0); UPDATE m SET v = v + 1 WHERE id = 2")
	exec(t, a, "BEGIN")
	exec(t, a, "UPDATE m SET v = 100")
	_, err := execErr(a, "SELECT 1 / 0")
	wantState(t, "division by zero", err, "22012")
	exec(t, a, "ROLLBACK")
	if got := query(t, b, "SELECT id, v FROM m ORDER BY id"); got != "1|11,2|1,4|0" {
		t.Fatalf("B sees %q, want 1|11,2|1,4|0", got)
	}

	// All or nothing.
	_, err = execErr(a, "INSERT INTO m VALUES (5, 0); INSERT INTO m VALUES (5, 1)")
	wantState(t, "duplicate in one message", err, "23505")
	_, err = execErr(a, "UPDATE m SET v = -1; SELECT 1 / 0")
	wantState(t, "error ending a message", err, "22012")
	if got := query(t, b, "SELECT id, v FROM m ORDER BY id"); got != "1|11,2|1,4|0" {
		t.Fatalf("after failed messages B sees %q, want 1|11,2|1,4|0", got)
	}
	wantUsable(t, a)
}

// The isolation level can only be chosen before the transaction's first
// query (SET and SHOW are not queries).
func TestSetTransactionIsolationTooLate(t *testing.T) {
	cs := sessions(t, 1, "CREATE TABLE z (id int)")
	a := cs[0]
	exec(t, a, "BEGIN")
	exec(t, a, "SHOW transaction_isolation")
	exec(t, a, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	exec(t, a, "SELECT * FROM z")
	_, err := execErr(a, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
	if pe := wantState(t, "SET TRANSACTION after a query", err, "25001"); pe.Message != "SET TRANSACTION ISOLATION LEVEL must be called before any query" {
		t.Fatalf("message %q", pe.Message)
	}
	exec(t, a, "ROLLBACK")
	exec(t, a, "BEGIN")
	exec(t, a, "SELECT * FROM z")
	_, err = execErr(a, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	wantState(t, "SET TRANSACTION after a query (read committed)", err, "25001")
	exec(t, a, "ROLLBACK")
	wantUsable(t, a)
}

// SERIALIZABLE READ ONLY DEFERRABLE waits at its first query until no
// concurrent writable serializable transaction can make its snapshot
// unsafe; the wait ends with the writer, and a cancel ends it too.
func TestSerializableDeferrableWaits(t *testing.T) {
	cs := sessions(t, 3, "CREATE TABLE dfr (id int PRIMARY KEY, v int)", "INSERT INTO dfr VALUES (1, 10)")
	w, ro, admin := cs[0], cs[1], cs[2]
	roPID := backendPID(t, ro)
	exec(t, w, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, w, "UPDATE dfr SET v = 11 WHERE id = 1")

	exec(t, ro, "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE")
	p := start(ro, "SELECT v FROM dfr")
	p.stillBlocked(t)
	exec(t, w, "COMMIT")
	if r := p.wait(t); r.err != nil {
		t.Fatalf("deferrable read after the writer committed: %v", r.err)
	}
	// The snapshot is the one taken before the wait, now known safe: it
	// does not see the writer's commit (GetSafeSnapshot).
	if got := query(t, ro, "SELECT v FROM dfr"); got != "10" {
		t.Fatalf("deferrable snapshot sees %s", got)
	}
	exec(t, ro, "COMMIT")

	exec(t, w, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, w, "UPDATE dfr SET v = 12 WHERE id = 1")
	exec(t, ro, "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE")
	p = start(ro, "SELECT v FROM dfr")
	p.stillBlocked(t)
	began := time.Now()
	if got := query(t, admin, fmt.Sprintf("SELECT pg_cancel_backend(%d)", roPID)); got != "true" {
		t.Fatalf("pg_cancel_backend = %s", got)
	}
	wantEndsWith(t, p, began, "57014", "canceling statement due to user request")
	exec(t, ro, "ROLLBACK")
	exec(t, w, "COMMIT")
	wantUsable(t, ro)
}

// A serializable transaction's record goes when it ends, however it ends:
// committed (once nothing overlaps it), rolled back, failed, or with the
// client gone mid-transaction. Nothing is left to cost later transactions.
func TestSerializableStateReleased(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	pred := s.Engine.AMEnv.Pred
	a, b := connect(t, s.DSN()), connect(t, s.DSN())
	exec(t, a, "CREATE TABLE rel_t (id int PRIMARY KEY, v int)")
	exec(t, a, "INSERT INTO rel_t VALUES (1, 1), (2, 2)")
	exec(t, a, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	query(t, a, "SELECT sum(v) FROM rel_t")
	exec(t, b, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	query(t, b, "SELECT sum(v) FROM rel_t")
	if !pred.Active() {
		t.Fatal("no serializable records while two transactions run")
	}
	exec(t, a, "UPDATE rel_t SET v = 10 WHERE id = 1")
	exec(t, b, "UPDATE rel_t SET v = 20 WHERE id = 2")
	exec(t, a, "COMMIT")
	_, err := execErr(b, "COMMIT")
	wantState(t, "write skew", err, "40001")
	if pred.Active() || len(pred.Locks()) != 0 {
		t.Fatalf("state left after both ended: %d locks", len(pred.Locks()))
	}

	c := connect(t, s.DSN())
	exec(t, c, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	query(t, c, "SELECT sum(v) FROM rel_t")
	if len(pred.Locks()) == 0 {
		t.Fatal("no SIREAD lock for a sequential scan")
	}
	c.Close(context.Background())
	deadline := time.Now().Add(waitTimeout)
	for pred.Active() {
		if time.Now().After(deadline) {
			t.Fatal("a disconnected client's serializable transaction is still registered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantUsable(t, a)
}

// Write skew under load: eight clients each take their own doctor off
// call if at least two are on call, retrying on 40001. Serializable
// execution keeps at least one doctor on call in every round, however the
// transactions interleave (at REPEATABLE READ all eight may go).
func TestSerializableWriteSkewUnderLoad(t *testing.T) {
	const workers, rounds = 8, 25
	cs := sessions(t, workers+1, "CREATE TABLE oncall (name int PRIMARY KEY, on_call boolean)")
	ctl := cs[workers]
	var retries atomic.Int64
	for r := 0; r < rounds; r++ {
		exec(t, ctl, "DELETE FROM oncall")
		exec(t, ctl, "INSERT INTO oncall SELECT g, true FROM generate_series(1, 8) g")
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(c *pgx.Conn, me int) {
				defer wg.Done()
				// A retry may fail again while the transaction it lost to
				// is still between its commit check and its commit (its
				// write not yet in the new snapshot): retry for a while,
				// with a short pause, as clients do.
				deadline := time.Now().Add(waitTimeout)
				for attempt := 0; ; attempt++ {
					err := takeOffCall(c, me)
					var pe *pgconn.PgError
					if errors.As(err, &pe) && pe.Code == "40001" && time.Now().Before(deadline) {
						retries.Add(1)
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						if errors.As(err, &pe) {
							err = fmt.Errorf("attempt %d: %w (%s)", attempt, err, pe.Detail)
						}
						errs <- err
					}
					return
				}
			}(cs[w], w+1)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", r, err)
		}
		if got := query(t, ctl, "SELECT count(*) FROM oncall WHERE on_call"); got == "0" {
			t.Fatalf("round %d: nobody is on call (write skew committed)", r)
		}
	}
	t.Logf("%d serialization failures retried", retries.Load())
}

// takeOffCall is one client's transaction for TestSerializableWriteSkewUnderLoad.
func takeOffCall(c *pgx.Conn, me int) error {
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM oncall WHERE on_call").Scan(&n); err != nil {
		return err
	}
	if n >= 2 {
		if _, err := tx.Exec(ctx, "UPDATE oncall SET on_call = false WHERE name = $1", me); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
