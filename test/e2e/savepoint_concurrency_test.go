package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// Savepoints seen from other sessions: rolling one back releases the row
// locks taken in it at once (a waiter goes on while the transaction is
// still open); releasing one keeps them until the transaction ends; rows
// of released savepoints become visible with the commit, and only then,
// also past the number of subtransactions a snapshot lists one by one.
func TestSavepointsAcrossSessions(t *testing.T) {
	cs := sessions(t, 2, "CREATE TABLE spc (id int PRIMARY KEY, v int)", "INSERT INTO spc VALUES (1, 0), (2, 0)")
	a, b := cs[0], cs[1]

	exec(t, a, "BEGIN")
	exec(t, a, "SAVEPOINT s")
	exec(t, a, "UPDATE spc SET v = 1 WHERE id = 1")
	p := start(b, "UPDATE spc SET v = 2 WHERE id = 1")
	p.stillBlocked(t)
	exec(t, a, "ROLLBACK TO s")
	p.waitOK(t, "UPDATE 1")
	// a's transaction goes on, and sees b's committed update afresh.
	if got := query(t, a, "SELECT v FROM spc WHERE id = 1"); got != "2" {
		t.Fatalf("after ROLLBACK TO, a reads v = %s, want b's 2", got)
	}

	exec(t, a, "SAVEPOINT r")
	exec(t, a, "UPDATE spc SET v = 10 WHERE id = 2")
	exec(t, a, "RELEASE r")
	p = start(b, "UPDATE spc SET v = v + 1 WHERE id = 2")
	p.stillBlocked(t)
	exec(t, a, "COMMIT")
	p.waitOK(t, "UPDATE 1")
	if got := query(t, b, "SELECT v FROM spc WHERE id = 2"); got != "11" {
		t.Fatalf("b's update after a's released savepoint: v = %s, want 11", got)
	}

	// Many subtransactions that write (more than a snapshot lists):
	// invisible to b until a commits, then all visible.
	exec(t, a, "BEGIN")
	var q []string
	for i := 0; i < 100; i++ {
		q = append(q, fmt.Sprintf("SAVEPOINT x%d; INSERT INTO spc VALUES (%d, %d)", i, 100+i, i))
		if i%3 == 0 {
			q = append(q, fmt.Sprintf("RELEASE x%d", i))
		}
	}
	exec(t, a, strings.Join(q, "; "))
	exec(t, a, "SAVEPOINT last; INSERT INTO spc VALUES (999, 0); ROLLBACK TO last")
	if n := queryInt(t, b, "SELECT count(*) FROM spc WHERE id >= 100"); n != 0 {
		t.Fatalf("b sees %d uncommitted rows", n)
	}
	exec(t, a, "COMMIT")
	if n := queryInt(t, b, "SELECT count(*) FROM spc WHERE id >= 100"); n != 100 {
		t.Fatalf("b sees %d of the 100 committed rows (and not the rolled-back one)", n)
	}
}

// A reported parameter changed by SET is announced (ParameterStatus), and
// announced again when a rollback — of the transaction or of a savepoint —
// restores it, as PostgreSQL does.
func TestParameterStatusFollowsRollback(t *testing.T) {
	c := connect(t, target(t))
	tz := func() string { return c.PgConn().ParameterStatus("TimeZone") }
	exec(t, c, "SET TimeZone = 'UTC'")
	if tz() != "UTC" {
		t.Fatalf("TimeZone reported %q after SET", tz())
	}
	exec(t, c, "BEGIN")
	exec(t, c, "SET TimeZone = 'Europe/Paris'")
	if tz() != "Europe/Paris" {
		t.Fatalf("TimeZone reported %q after SET in a block", tz())
	}
	exec(t, c, "SAVEPOINT s")
	exec(t, c, "SET TimeZone = 'Asia/Tokyo'")
	exec(t, c, "ROLLBACK TO s")
	if tz() != "Europe/Paris" {
		t.Fatalf("TimeZone reported %q after ROLLBACK TO, want Europe/Paris", tz())
	}
	exec(t, c, "ROLLBACK")
	if tz() != "UTC" {
		t.Fatalf("TimeZone reported %q after ROLLBACK, want UTC", tz())
	}
}
