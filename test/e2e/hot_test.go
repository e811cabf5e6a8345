package e2e

import (
	"fmt"
	"testing"
)

// A row updated many times (HOT chains, pruned as the page fills up) stays
// reachable through its index and by sequential scan, with every version
// counted once; updates rolled back in between are undone without losing
// the row.
func TestRepeatedUpdatesKeepRowReachable(t *testing.T) {
	cases := []struct {
		name string
		// each round: the statements run, in autocommit unless they
		// contain BEGIN; the round's expected effect on row w = 1.
		round []string
		delta int // increment of row 1 per round
	}{
		{"autocommit updates", []string{"UPDATE k SET n = n + 1 WHERE w = 1"}, 1},
		{"updates of several rows in turn", []string{
			"UPDATE k SET n = n + 1 WHERE w = 1",
			"UPDATE k SET n = n + 1 WHERE w = 2",
			"UPDATE k SET n = n + 1 WHERE w = 3",
		}, 1},
		{"rolled-back updates in between", []string{
			"BEGIN", "UPDATE k SET n = n + 100 WHERE w = 1", "ROLLBACK",
			"UPDATE k SET n = n + 1 WHERE w = 2",
		}, 0},
		{"rolled-back then committed", []string{
			"BEGIN", "UPDATE k SET n = n + 100 WHERE w = 1", "ROLLBACK",
			"UPDATE k SET n = n + 1 WHERE w = 1",
		}, 1},
		{"failed blocks in between", []string{
			"BEGIN", "UPDATE k SET n = n + 100 WHERE w = 1", "SELECT 1 / 0", "ROLLBACK",
			"UPDATE k SET n = n + 1 WHERE w = 3",
		}, 0},
	}
	const rounds = 400 // several times what one 8 KiB page holds
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 1, "CREATE TABLE k (w int PRIMARY KEY, n int NOT NULL)", "INSERT INTO k SELECT i, 0 FROM generate_series(0, 4) AS i")
			c := cs[0]
			for r := 0; r < rounds; r++ {
				for _, q := range tc.round {
					tag, err := execErr(c, q)
					if q == "SELECT 1 / 0" {
						wantState(t, q, err, "22012")
						continue
					}
					if err != nil {
						t.Fatalf("round %d: %s: %v", r, q, err)
					}
					if len(q) > 6 && q[:6] == "UPDATE" && tag != "UPDATE 1" {
						t.Fatalf("round %d: %s: %s, want UPDATE 1 (row w=1: %q by index, %q by seq scan)", r, q, tag,
							query(t, c, "SELECT n FROM k WHERE w = 1"), query(t, c, "SELECT n FROM k WHERE w + 0 = 1"))
					}
				}
			}
			want := fmt.Sprint(rounds * tc.delta)
			for _, q := range []string{
				"SELECT n FROM k WHERE w = 1",
				"SELECT n FROM k WHERE w + 0 = 1",
			} {
				if got := query(t, c, q); got != want {
					t.Errorf("%s = %q, want %s", q, got, want)
				}
			}
			if got := query(t, c, "SELECT count(*), count(DISTINCT w) FROM k"); got != "5|5" {
				t.Errorf("rows: %q, want 5|5 (no row lost or duplicated)", got)
			}
			for w := 0; w <= 4; w++ {
				if got := queryInt(t, c, fmt.Sprintf("SELECT count(*) FROM k WHERE w = %d", w)); got != 1 {
					t.Errorf("row w=%d found %d times by index", w, got)
				}
			}
		})
	}
}
