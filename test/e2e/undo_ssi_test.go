package e2e

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestUndoSerializable: SERIALIZABLE transactions on an undo table get
// PostgreSQL 15's outcomes (each script's steps and SQLSTATEs were run on
// PostgreSQL 15 with a heap table): write skew through sequential scans
// and through index fetches fails at the second commit; disjoint
// read-modify-writes both commit; a read that rebuilds an older version
// from undo depends on the transaction that wrote the newer one (conflict
// out), so the read-then-write that closes the cycle fails. The in-place
// updates keep every row's ctid.
func TestUndoSerializable(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	a, b := connect(t, s.DSN()), connect(t, s.DSN())
	exec(t, a, "CREATE TABLE u (id int PRIMARY KEY, v int) USING undo")
	exec(t, a, "INSERT INTO u VALUES (1, 10), (2, 10), (3, 10)")
	ctids := query(t, a, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM u")
	const begin = "BEGIN ISOLATION LEVEL SERIALIZABLE"
	for _, sc := range []struct {
		name  string
		steps string // session:statement[ => SQLSTATE], ';'-separated
		final string
	}{
		{"write skew, seq scans",
			"a:" + begin + ";b:" + begin + ";a:SELECT sum(v) FROM u;b:SELECT sum(v) FROM u;" +
				"a:UPDATE u SET v = v + 1 WHERE id = 1;b:UPDATE u SET v = v + 1 WHERE id = 2;a:COMMIT;b:COMMIT => 40001", "11,10,10"},
		{"write skew, index fetches",
			"a:" + begin + ";b:" + begin + ";a:SELECT v FROM u WHERE id = 1;b:SELECT v FROM u WHERE id = 2;" +
				"a:UPDATE u SET v = v + 1 WHERE id = 2;b:UPDATE u SET v = v + 1 WHERE id = 1;a:COMMIT;b:COMMIT => 40001", "10,11,10"},
		{"disjoint rows",
			"a:" + begin + ";b:" + begin + ";a:SELECT v FROM u WHERE id = 1;b:SELECT v FROM u WHERE id = 2;" +
				"a:UPDATE u SET v = v + 1 WHERE id = 1;b:UPDATE u SET v = v + 1 WHERE id = 2;a:COMMIT;b:COMMIT", "11,11,10"},
		{"read of a version rebuilt from undo",
			"a:" + begin + ";a:SELECT v FROM u WHERE id = 3;b:" + begin + ";b:SELECT v FROM u WHERE id = 2;" +
				"b:UPDATE u SET v = v + 1 WHERE id = 1;b:COMMIT;a:SELECT v FROM u WHERE id = 1;" +
				"a:UPDATE u SET v = v + 1 WHERE id = 2 => 40001;a:ROLLBACK", "11,10,10"},
	} {
		exec(t, a, "UPDATE u SET v = 10")
		for _, st := range strings.Split(sc.steps, ";") {
			c := map[byte]*pgx.Conn{'a': a, 'b': b}[st[0]]
			stmt, want, _ := strings.Cut(st[2:], " => ")
			if _, err := queryErr(c, stmt); sqlState(err) != want {
				t.Fatalf("%s: %s: %v, want SQLSTATE %q", sc.name, st, err, want)
			}
		}
		if got := query(t, a, "SELECT string_agg(v::text, ',' ORDER BY id) FROM u"); got != sc.final {
			t.Fatalf("%s: rows %s, want %s", sc.name, got, sc.final)
		}
	}
	if got := query(t, a, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM u"); got != ctids {
		t.Fatalf("ctids %s, were %s: the updates did not stay in place", got, ctids)
	}
}
