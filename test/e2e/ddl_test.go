package e2e

import (
	"context"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestTruncate: TRUNCATE empties a table and its indexes transactionally.
func TestTruncate(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	ctx := context.Background()
	steps := []struct {
		sql  string
		want int64 // expected count(*) after the step, -1 to skip
	}{
		{"CREATE TABLE tr (id int PRIMARY KEY, v text)", -1},
		{"INSERT INTO tr SELECT i, md5(i::text) FROM generate_series(1, 2000) i", 2000},
		{"BEGIN", -1},
		{"TRUNCATE tr", 0},
		{"ROLLBACK", 2000},
		{"TRUNCATE TABLE tr", 0},
		{"INSERT INTO tr VALUES (7, 'seven')", 1},
	}
	for _, st := range steps {
		if _, err := c.Exec(ctx, st.sql); err != nil {
			t.Fatalf("%s: %v", st.sql, err)
		}
		if st.want < 0 {
			continue
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM tr").Scan(&n); err != nil || n != st.want {
			t.Fatalf("after %q: count %d, %v; want %d", st.sql, n, err, st.want)
		}
	}
	var v string
	if err := c.QueryRow(ctx, "SELECT v FROM tr WHERE id = 7").Scan(&v); err != nil || v != "seven" {
		t.Fatalf("index lookup after TRUNCATE: %q, %v", v, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO tr VALUES (7, 'again')"); err == nil {
		t.Fatal("the primary key still holds after TRUNCATE: duplicate accepted")
	}
	var ok string
	if err := c.QueryRow(ctx, "SELECT tidal_check('tr')").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("tidal_check: %q, %v", ok, err)
	}
}
