package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestUndoKeyChangeInPlace: an UPDATE of indexed columns on an undo table
// keeps every row's ctid, touches only the changed indexes (one mark and
// one insert per changed row and index), and a REPEATABLE READ snapshot
// from before it still finds the rows by their old keys through the
// delete-marked entries while new snapshots find them only by the new
// ones. VACUUM keeps the marked entries while that snapshot lives and
// purges them after; a rolled-back key change leaves nothing for it to
// keep; tidal_check agrees throughout.
func TestUndoKeyChangeInPlace(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE uk (id int PRIMARY KEY, k int, v text) USING undo")
	exec(t, c, "CREATE INDEX uk_k ON uk (k)")
	exec(t, c, "CREATE INDEX uk_v ON uk (v)")
	exec(t, c, "INSERT INTO uk SELECT i, i, 'v' || i FROM generate_series(1, 200) i")
	if plan := query(t, c, "EXPLAIN (COSTS OFF) SELECT id FROM uk WHERE k = 5"); !strings.Contains(plan, "Index Scan using uk_k") {
		t.Fatalf("plan: %s", plan)
	}
	ctids := query(t, c, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM uk")
	vSize := query(t, c, "SELECT pg_relation_size('uk_v')")
	entries := func(ix string) string {
		exec(t, c, "VACUUM uk")
		return query(t, c, "SELECT reltuples::int FROM pg_class WHERE relname = '"+ix+"'")
	}
	if n := entries("uk_k"); n != "200" {
		t.Fatalf("uk_k has %s entries", n)
	}

	old := connect(t, s.DSN())
	exec(t, old, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(t, old, "SELECT count(*) FROM uk")

	wal := query(t, c, "EXPLAIN (ANALYZE, WAL, COSTS OFF, TIMING OFF, SUMMARY OFF) UPDATE uk SET k = k + 1000 WHERE id <= 10")
	if !strings.Contains(wal, "WAL: records=30 ") { // 10 rows, 10 marks, 10 marked inserts
		t.Fatalf("UPDATE of a key:\n%s", wal)
	}
	if got := query(t, c, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM uk"); got != ctids {
		t.Fatal("a key UPDATE moved rows")
	}
	if got := query(t, c, "SELECT pg_relation_size('uk_v')"); got != vSize {
		t.Fatalf("the unchanged index changed size: %s, was %s", got, vSize)
	}
	if got := query(t, c, "SELECT n_tup_upd || ' ' || n_tup_inplace_upd FROM pg_stat_user_tables WHERE relname = 'uk'"); got != "10 10" {
		t.Fatalf("n_tup_upd n_tup_inplace_upd: %s", got)
	}
	for _, q := range []struct{ conn, sql, want string }{
		{"old", "SELECT id FROM uk WHERE k = 5", "5"},
		{"old", "SELECT count(*) FROM uk WHERE k = 1005", "0"},
		{"old", "SELECT count(*) FROM uk WHERE k BETWEEN 1 AND 2000", "200"},
		{"new", "SELECT count(*) FROM uk WHERE k = 5", "0"},
		{"new", "SELECT id FROM uk WHERE k = 1005", "5"},
		{"new", "SELECT count(*) FROM uk WHERE k BETWEEN 1 AND 2000", "200"},
	} {
		conn := c
		if q.conn == "old" {
			conn = old
		}
		if got := query(t, conn, q.sql); got != q.want {
			t.Fatalf("%s snapshot: %s = %s, want %s", q.conn, q.sql, got, q.want)
		}
	}
	if n := entries("uk_k"); n != "210" {
		t.Fatalf("with the old snapshot open, uk_k has %s entries after VACUUM, want 210", n)
	}
	if got := query(t, c, "SELECT tidal_check('uk')"); got != "ok" {
		t.Fatalf("tidal_check: %s", got)
	}
	if got := query(t, old, "SELECT id FROM uk WHERE k = 5"); got != "5" {
		t.Fatalf("old snapshot after VACUUM: %s", got)
	}
	exec(t, old, "COMMIT")
	if n := entries("uk_k"); n != "200" {
		t.Fatalf("after the old snapshot ended, uk_k has %s entries after VACUUM, want 200", n)
	}

	exec(t, c, "BEGIN")
	exec(t, c, "UPDATE uk SET k = -k WHERE id <= 20")
	exec(t, c, "SAVEPOINT s")
	exec(t, c, "UPDATE uk SET k = 7000 WHERE id BETWEEN 21 AND 30")
	exec(t, c, "ROLLBACK TO s")
	if got := query(t, c, "SELECT count(*) FILTER (WHERE k < 0) || ' ' || count(*) FILTER (WHERE k = 7000) FROM uk WHERE k < 0 OR k = 7000"); got != "20 0" {
		t.Fatalf("after ROLLBACK TO: %s", got)
	}
	exec(t, c, "ROLLBACK")
	if got := query(t, c, "SELECT count(*) FROM uk WHERE k < 0 OR k = 7000"); got != "0" {
		t.Fatalf("after ROLLBACK: %s rows by the rolled-back keys", got)
	}
	if got := query(t, c, "SELECT id FROM uk WHERE k = 1003"); got != "3" {
		t.Fatalf("after ROLLBACK: %s", got)
	}
	if n := entries("uk_k"); n != "200" {
		t.Fatalf("after rollbacks, uk_k has %s entries after VACUUM, want 200", n)
	}
	if got := query(t, c, "SELECT tidal_check('uk')"); got != "ok" {
		t.Fatalf("tidal_check: %s", got)
	}
}

// TestCrashUndoKeyChange: kill -9 while a transaction has changed keys in
// place; after recovery the rows have their old keys, the indexes find
// them by those only, and VACUUM purges what the crash left.
func TestCrashUndoKeyChange(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE ck (id int PRIMARY KEY, k int UNIQUE, v text) USING undo")
	exec(t, c, "INSERT INTO ck SELECT i, i, 'old' FROM generate_series(1, 2000) i")
	exec(t, c, "UPDATE ck SET k = 5000 WHERE id = 42") // acknowledged
	w := s.conn()
	exec(t, w, "BEGIN")
	exec(t, w, "UPDATE ck SET k = k + 10000, id = id + 10000 WHERE id <> 42")
	exec(t, w, "CHECKPOINT")
	time.Sleep(10 * time.Millisecond)
	s.kill()
	s.start()
	c = s.conn()
	for _, q := range [][2]string{
		{"SELECT count(*) FROM ck WHERE k > 10000 OR id > 10000", "0"},
		{"SELECT id FROM ck WHERE k = 5000", "42"},
		{"SELECT count(*) FROM ck WHERE k = 42", "0"},
		{"SELECT k FROM ck WHERE id = 1999", "1999"},
		{"SELECT count(*) FROM ck WHERE k BETWEEN 1 AND 2000", "1999"},
		{"SELECT tidal_check('ck')", "ok"},
	} {
		if got := query(t, c, q[0]); got != q[1] {
			t.Fatalf("after recovery: %s = %s, want %s", q[0], got, q[1])
		}
	}
	exec(t, c, "INSERT INTO ck VALUES (12000, 12000, 'free again')") // the crashed keys are free
	exec(t, c, "VACUUM ck")
	if got := query(t, c, "SELECT reltuples::int FROM pg_class WHERE relname = 'ck_k_key'"); got != "2001" {
		t.Fatalf("ck_k_key after VACUUM: %s entries, want 2001", got)
	}
}
