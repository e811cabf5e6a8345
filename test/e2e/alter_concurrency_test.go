package e2e

import (
	"testing"
)

// ALTER TABLE takes an AccessExclusive lock, as in PostgreSQL: writers and
// readers of the table wait for the altering transaction, and once it
// ends they run against the table's new shape (or the old one, after a
// rollback).
func TestAlterTableBlocksAndPublishesShape(t *testing.T) {
	cases := []struct {
		name   string
		alter  string // A's statement, in an open transaction
		aEnd   string // COMMIT or ROLLBACK
		b      string // B's statement, autocommit; blocks on A
		bTag   string // B's tag once A ended ("" = want bState)
		bState string // SQLSTATE B fails with
		final  string // C's SELECT * FROM c ORDER BY id afterwards
	}{
		{"insert after add column", "ALTER TABLE c ADD COLUMN x int DEFAULT 5", "COMMIT",
			"INSERT INTO c VALUES (3, 0)", "INSERT 0 1", "", "1|0|5,2|0|5,3|0|5"},
		{"insert after rolled-back add column", "ALTER TABLE c ADD COLUMN x int DEFAULT 5", "ROLLBACK",
			"INSERT INTO c VALUES (3, 0)", "INSERT 0 1", "", "1|0,2|0,3|0"},
		{"update of a dropped column", "ALTER TABLE c DROP COLUMN n", "COMMIT",
			"UPDATE c SET n = n + 1", "", "42703", "1,2"},
		{"update after rename", "ALTER TABLE c RENAME COLUMN n TO m", "COMMIT",
			"UPDATE c SET m = m + 1", "UPDATE 2", "", "1|1,2|1"},
		{"insert after retype", "ALTER TABLE c ALTER COLUMN n TYPE bigint", "COMMIT",
			"INSERT INTO c VALUES (3, 9000000000)", "INSERT 0 1", "", "1|0,2|0,3|9000000000"},
		{"read after add column", "ALTER TABLE c ADD COLUMN x text DEFAULT 'new'", "COMMIT",
			"SELECT count(*) FROM c WHERE x = 'new'", "SELECT 1", "", "1|0|new,2|0|new"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := sessions(t, 3, "CREATE TABLE c (id int PRIMARY KEY, n int)", "INSERT INTO c VALUES (1, 0), (2, 0)")
			a, b, c := cs[0], cs[1], cs[2]
			exec(t, a, "BEGIN")
			exec(t, a, tc.alter)
			pb := start(b, tc.b)
			pb.stillBlocked(t)
			exec(t, a, tc.aEnd)
			if tc.bTag != "" {
				pb.waitOK(t, tc.bTag)
			} else if r := pb.wait(t); sqlState(r.err) != tc.bState {
				t.Fatalf("%q: got %v, want SQLSTATE %s", tc.b, r.err, tc.bState)
			}
			if got := query(t, c, "SELECT * FROM c ORDER BY id"); got != tc.final {
				t.Fatalf("rows %q, want %q", got, tc.final)
			}
			wantUsable(t, a)
			wantUsable(t, b)
		})
	}
}

// An ALTER waits for a transaction that has read the table.
func TestAlterTableWaitsForReaders(t *testing.T) {
	cs := sessions(t, 2, "CREATE TABLE c (id int PRIMARY KEY, n int)", "INSERT INTO c VALUES (1, 0)")
	a, b := cs[0], cs[1]
	exec(t, a, "BEGIN")
	if got := query(t, a, "SELECT * FROM c"); got != "1|0" {
		t.Fatalf("A reads %q", got)
	}
	pb := start(b, "ALTER TABLE c ADD COLUMN x int DEFAULT 1")
	pb.stillBlocked(t)
	// A's transaction still sees the table as it was.
	if got := query(t, a, "SELECT * FROM c"); got != "1|0" {
		t.Fatalf("A reads %q while the ALTER waits", got)
	}
	exec(t, a, "COMMIT")
	pb.waitOK(t, "ALTER TABLE")
	if got := query(t, a, "SELECT * FROM c"); got != "1|0|1" {
		t.Fatalf("after the ALTER: %q", got)
	}
}
