package e2e

import (
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// Rows stored before ADD COLUMN (fewer attributes, the new one read from
// the missing value) update HOT when no indexed column changes, VACUUM
// copes with them, and the table and index stay consistent.
func TestAddColumnKeepsHOTAndVacuum(t *testing.T) {
	s := testutil.Start(t, testutil.Options{Conf: onHeap(nil)})
	c := connect(t, s.DSN())
	for _, q := range []string{
		"CREATE TABLE h1 (id int PRIMARY KEY, v int)",
		"INSERT INTO h1 SELECT i, i FROM generate_series(1, 100) AS i",
		"ALTER TABLE h1 ADD COLUMN w int DEFAULT 7",
		"UPDATE h1 SET w = w + 1 WHERE id <= 10",
		"UPDATE h1 SET v = v + 1 WHERE id <= 10",
		"DELETE FROM h1 WHERE id > 90",
		"ALTER TABLE h1 DROP COLUMN v",
		"VACUUM h1",
	} {
		exec(t, c, q)
	}
	for _, ck := range []struct{ sql, want string }{
		{"SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'h1'", "20|20"},
		{"SELECT count(*), sum(w) FROM h1", "90|640"},
		{"SELECT * FROM h1 WHERE id = 5", "5|8"},
		{"SELECT tidal_check('h1')", "ok"},
	} {
		if got := query(t, c, ck.sql); got != ck.want {
			t.Errorf("%s = %q, want %q", ck.sql, got, ck.want)
		}
	}
}
