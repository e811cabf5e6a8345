package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Multixacts survive kill -9: rows whose xmax is a multixact holding a
// committed update stay updated after recovery — one from before the last
// checkpoint (its members come back from the multixact files), one from
// after it (from WAL redo) — while the locks of the transactions the crash
// ended are gone, as in PostgreSQL: a row share-locked by two of them is
// updated at once after the restart. Multixacts created after the restart
// do not reuse the old ids (that would change the old rows' updaters).
func TestCrashMultixacts(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE mx (id int PRIMARY KEY, v text)")
	exec(t, c, "INSERT INTO mx SELECT i, 'v' || i FROM generate_series(1, 20) i")
	// lockedUpdate key-share locks row id in one transaction and updates
	// it (not its key) in another, which commits: a multixact xmax of a
	// running locker and a committed updater.
	lockedUpdate := func(id int) {
		locker, updater := s.conn(), s.conn()
		exec(t, locker, "BEGIN")
		exec(t, locker, fmt.Sprintf("SELECT id FROM mx WHERE id = %d FOR KEY SHARE", id))
		exec(t, updater, fmt.Sprintf("UPDATE mx SET v = 'updated' WHERE id = %d", id))
		exec(t, locker, "COMMIT")
	}
	lockedUpdate(2)
	exec(t, c, "CHECKPOINT")
	lockedUpdate(3)
	a, b := s.conn(), s.conn()
	for _, x := range []*pgx.Conn{a, b} {
		exec(t, x, "BEGIN")
		exec(t, x, "SELECT id FROM mx WHERE id = 1 FOR SHARE")
	}
	// Make sure the open transactions' lock records are on disk too.
	exec(t, c, "CREATE TABLE mx_flush (x int)")
	s.kill()

	s.start()
	c = s.conn()
	check := func(when string) {
		t.Helper()
		if got := query(t, c, "SELECT count(*), count(*) FILTER (WHERE v = 'updated') FROM mx"); got != "20|2" {
			t.Fatalf("%s: rows|updated = %s, want 20|2", when, got)
		}
		if got := query(t, c, "SELECT string_agg(v, ',' ORDER BY id) FROM mx WHERE id IN (2, 3)"); got != "updated,updated" {
			t.Fatalf("%s: rows 2 and 3 read %q", when, got)
		}
	}
	check("after restart")
	// The crashed share lockers hold nothing: NOWAIT succeeds and an
	// update of the row does not wait.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u := s.conn()
	exec(t, u, "BEGIN")
	if got := query(t, u, "SELECT id FROM mx WHERE id = 1 FOR UPDATE NOWAIT"); got != "1" {
		t.Fatalf("FOR UPDATE NOWAIT after restart: %q", got)
	}
	if _, err := u.Exec(ctx, "UPDATE mx SET v = 'after' WHERE id = 1"); err != nil {
		t.Fatalf("update of a row the crashed transactions had share-locked: %v", err)
	}
	exec(t, u, "COMMIT")
	// New multixacts, several of them.
	for id := 4; id <= 10; id++ {
		x, y := s.conn(), s.conn()
		exec(t, x, "BEGIN")
		exec(t, y, "BEGIN")
		exec(t, x, fmt.Sprintf("SELECT id FROM mx WHERE id = %d FOR SHARE", id))
		exec(t, y, fmt.Sprintf("SELECT id FROM mx WHERE id = %d FOR SHARE", id))
		exec(t, x, "COMMIT")
		exec(t, y, "COMMIT")
	}
	check("after new multixacts")
	if got := query(t, c, "SELECT v FROM mx WHERE id = 1"); got != "after" {
		t.Fatalf("row 1: %q", got)
	}
	// A clean restart keeps it all.
	s.kill()
	s.start()
	c = s.conn()
	check("after a second crash")
}
