package e2e

import (
	"testing"
)

// TestCrashAlterTable: columns added (with and without a stored missing
// value), dropped, renamed and retyped (a table rewrite into a new file)
// keep their shape and data across kill -9, and an ALTER still open when
// the server dies leaves no trace.
func TestCrashAlterTable(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	for _, q := range []string{
		"CREATE TABLE ship (id int PRIMARY KEY, name text, crew int)",
		"INSERT INTO ship SELECT i, 'ship ' || i, i % 7 FROM generate_series(1, 2000) AS i",
		"ALTER TABLE ship ADD COLUMN flag text DEFAULT 'blue'",
		"ALTER TABLE ship ADD COLUMN port int",
		"ALTER TABLE ship DROP COLUMN crew",
		"ALTER TABLE ship RENAME COLUMN name TO title",
		"ALTER TABLE ship ALTER COLUMN id TYPE bigint",
		"ALTER TABLE ship ADD COLUMN tons int DEFAULT 500",
		"INSERT INTO ship VALUES (2001, 'late', 'red', 9, 1)",
		"UPDATE ship SET port = 3 WHERE id = 10",
		"CREATE INDEX ship_tons ON ship (tons)",
	} {
		exec(t, c, q)
	}
	// An ALTER that never commits.
	open := s.conn()
	exec(t, open, "BEGIN")
	exec(t, open, "ALTER TABLE ship ADD COLUMN ghost int DEFAULT 7, DROP COLUMN flag")
	s.kill()

	s.start()
	c = s.conn()
	checks := []struct{ sql, want string }{
		{"SELECT count(*) FROM ship", "2001"},
		{"SELECT * FROM ship WHERE id = 1", "1|ship 1|blue|null|500"},
		{"SELECT * FROM ship WHERE id = 10", "10|ship 10|blue|3|500"},
		{"SELECT * FROM ship WHERE id = 2001", "2001|late|red|9|1"},
		{"SELECT count(*) FROM ship WHERE tons = 500", "2000"},
		{"SELECT count(*) FROM ship WHERE flag = 'blue'", "2000"},
		{"SELECT attname || ':' || format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ship'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
			"id:bigint,title:text,flag:text,port:integer,tons:integer"},
		{"SELECT attname, atthasmissing, attmissingval FROM pg_attribute WHERE attrelid = 'ship'::regclass AND attnum = 6", "tons|true|{500}"},
		{"SELECT count(*) FROM pg_attribute WHERE attrelid = 'ship'::regclass AND attisdropped", "1"},
		{"SELECT count(*) FROM pg_attribute WHERE attrelid = 'ship'::regclass AND attname = 'ghost'", "0"},
		{"SELECT tidal_check('ship')", "ok"},
	}
	for _, ck := range checks {
		if got := query(t, c, ck.sql); got != ck.want {
			t.Errorf("after kill -9: %s = %q, want %q", ck.sql, got, ck.want)
		}
	}
	if _, err := queryErr(c, "SELECT crew FROM ship"); sqlState(err) != "42703" {
		t.Errorf("dropped column after restart: got %v, want SQLSTATE 42703", err)
	}
	// The table still takes rows of its new shape, and its indexes work.
	exec(t, c, "INSERT INTO ship (id, title) VALUES (3000, 'new')")
	if got := query(t, c, "SELECT title, flag, tons FROM ship WHERE id = 3000"); got != "new|blue|500" {
		t.Errorf("insert after restart: got %q", got)
	}
	if _, err := execErr(c, "INSERT INTO ship (id) VALUES (5)"); sqlState(err) != "23505" {
		t.Errorf("primary key after rewrite and restart: got %v, want SQLSTATE 23505", err)
	}
}
