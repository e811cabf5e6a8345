package e2e

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// Row-lock waits go through the lock manager (the tuple's heavyweight lock,
// then the xids of the lockers), so the deadlock detector sees them: in
// each case below the second session to wait closes a cycle and gets 40P01
// (as in PostgreSQL, where the same session's shorter deadlock_timeout
// fires first), and the first goes on once the victim's transaction ends.
// (PostgreSQL's own output for such specs depends on when its deadlock
// timer fires, so this is a Go test rather than an isolation spec.)
func TestRowLockDeadlocks(t *testing.T) {
	cases := []struct {
		name           string
		lock1, lock2   string // taken first, by a then b
		want1, want2   string // then a waits, and b closes the cycle
		wantTag        string
		wantAfterCycle string
	}{
		{"share lockers both update", "SELECT id FROM rd WHERE id = 1 FOR SHARE", "SELECT id FROM rd WHERE id = 1 FOR SHARE",
			"UPDATE rd SET v = v + 1 WHERE id = 1", "UPDATE rd SET v = v + 10 WHERE id = 1", "UPDATE 1", "1|1"},
		{"share lockers both upgrade", "SELECT id FROM rd WHERE id = 1 FOR SHARE", "SELECT id FROM rd WHERE id = 1 FOR KEY SHARE",
			"SELECT id FROM rd WHERE id = 1 FOR UPDATE", "DELETE FROM rd WHERE id = 1", "SELECT 1", "1|0"},
		{"crossed FOR UPDATE", "SELECT id FROM rd WHERE id = 1 FOR UPDATE", "SELECT id FROM rd WHERE id = 2 FOR NO KEY UPDATE",
			"SELECT id FROM rd WHERE id = 2 FOR SHARE", "UPDATE rd SET v = 5 WHERE id = 1", "SELECT 1", "1|0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 2, "CREATE TABLE rd (id int PRIMARY KEY, v int)", "INSERT INTO rd VALUES (1, 0), (2, 0)")
			a, b := cs[0], cs[1]
			for _, x := range []*pgx.Conn{a, b} {
				exec(t, x, "BEGIN")
			}
			// PostgreSQL's victim is the waiter whose deadlock timer fires
			// first; tidal's the one that closes the cycle: make them one.
			exec(t, a, "SET LOCAL deadlock_timeout = '100s'")
			exec(t, b, "SET LOCAL deadlock_timeout = '10ms'")
			exec(t, a, tc.lock1)
			exec(t, b, tc.lock2)
			pa := start(a, tc.want1)
			pa.stillBlocked(t)
			_, err := execErr(b, tc.want2)
			wantState(t, tc.want2, err, "40P01")
			exec(t, b, "ROLLBACK")
			pa.waitOK(t, tc.wantTag)
			exec(t, a, "COMMIT")
			if got := query(t, a, "SELECT id, v FROM rd WHERE id = 1"); got != tc.wantAfterCycle {
				t.Fatalf("row 1 after: %q, want %q", got, tc.wantAfterCycle)
			}
			exec(t, a, "DROP TABLE rd")
		})
	}
}
