package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestUndoTableInPlace: an UPDATE of a non-indexed column on an undo table
// keeps every row's ctid and writes no index page (the indexes keep their
// size however often it runs); ROLLBACK and ROLLBACK TO SAVEPOINT put the
// old values back; a key change moves the row and the index finds it
// under its new key only; a REPEATABLE READ snapshot keeps seeing the
// versions it saw.
func TestUndoTableInPlace(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE u (id int PRIMARY KEY, name text, reg float8) USING undo")
	exec(t, c, "CREATE INDEX u_reg ON u (reg)")
	exec(t, c, "INSERT INTO u SELECT i, md5(i::text), log(i) FROM generate_series(1, 5000) i")
	if am := query(t, c, "SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE relname = 'u'"); am != "undo" {
		t.Fatalf("access method %q", am)
	}
	ctids := query(t, c, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM u")
	idxPages := query(t, c, "SELECT pg_relation_size('u_pkey') || ' ' || pg_relation_size('u_reg')")
	for i := 0; i < 3; i++ {
		exec(t, c, "UPDATE u SET name = 'trade winds ' || "+strconv.Itoa(i)+" WHERE id % 10 = 1")
	}
	if got := query(t, c, "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM u"); got != ctids {
		t.Fatal("an in-place UPDATE moved rows")
	}
	if got := query(t, c, "SELECT pg_relation_size('u_pkey') || ' ' || pg_relation_size('u_reg')"); got != idxPages {
		t.Fatalf("index sizes %s, were %s", got, idxPages)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM u WHERE name = 'trade winds 2'"); n != 500 {
		t.Fatalf("%d rows updated", n)
	}

	rr := connect(t, s.DSN())
	exec(t, rr, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	before := query(t, rr, "SELECT sum(length(name)) || ' ' || count(*) FROM u")

	exec(t, c, "BEGIN")
	exec(t, c, "UPDATE u SET name = 'x' WHERE id <= 100")
	exec(t, c, "DELETE FROM u WHERE id > 4900")
	exec(t, c, "SAVEPOINT a")
	exec(t, c, "UPDATE u SET name = 'in savepoint', reg = -1 WHERE id <= 200")
	exec(t, c, "ROLLBACK TO a")
	if got := query(t, c, "SELECT count(*) FILTER (WHERE name = 'x') || ' ' || count(*) FILTER (WHERE reg = -1) || ' ' || count(*) FROM u"); got != "100 0 4900" {
		t.Fatalf("after ROLLBACK TO: %s", got)
	}
	exec(t, c, "ROLLBACK")
	if got := query(t, rr, "SELECT sum(length(name)) || ' ' || count(*) FROM u"); got != before {
		t.Fatalf("REPEATABLE READ snapshot sees %s, saw %s", got, before)
	}
	exec(t, rr, "COMMIT")
	if got := query(t, c, "SELECT sum(length(name)) || ' ' || count(*) FROM u"); got != before {
		t.Fatalf("after ROLLBACK: %s, want %s", got, before)
	}

	// A key change moves the row; the old key no longer finds it.
	exec(t, c, "UPDATE u SET id = 100001 WHERE id = 7")
	if n := queryInt(t, c, "SELECT count(*) FROM u WHERE id = 7"); n != 0 {
		t.Fatal("the old key still finds the row")
	}
	if name := query(t, c, "SELECT name FROM u WHERE id = 100001"); name != "8f14e45fceea167a5a36dedd4bea2543" {
		t.Fatalf("row under its new key: %q", name)
	}
	if got := query(t, c, "SELECT tidal_check('u')"); got != "ok" {
		t.Fatalf("tidal_check: %s", got)
	}
}

// TestUndoSeedUpdateCounters is seed 003's second script (smaller: 50,000
// rows, 50 updated) on an undo table through SQL: the UPDATE writes one
// WAL record per row, no index page, and dirties little more than one
// page per row.
func TestUndoSeedUpdateCounters(t *testing.T) {
	s := testutil.Start(t, testutil.Options{SharedBuffers: 64 << 20})
	c := connect(t, s.DSN())
	exec(t, c, "SET default_table_access_method = undo")
	exec(t, c, "CREATE TABLE boat (id integer, name text, reg double precision)")
	exec(t, c, "INSERT INTO boat(id, name, reg) SELECT i, md5(i::text), log(i) FROM generate_series(1, 50000) as i")
	exec(t, c, "CREATE INDEX boat_idx1 ON boat(id)")
	exec(t, c, "CREATE INDEX boat_idx2 ON boat(reg)")
	exec(t, c, "VACUUM ANALYZE boat")
	exec(t, c, "CHECKPOINT")
	exec(t, c, "SET wal_compression = off")
	plan := query(t, c, "EXPLAIN (analyze, buffers, wal, costs false) UPDATE boat SET name = 'trade winds' WHERE mod(id, 1000) = 1")
	num := func(key string) int {
		i := strings.Index(plan, key)
		if i < 0 {
			t.Fatalf("no %q in\n%s", key, plan)
		}
		j := i + len(key)
		for j < len(plan) && plan[j] >= '0' && plan[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(plan[i+len(key) : j])
		return n
	}
	if r := num("records="); r != 50 {
		t.Fatalf("WAL records %d, want 50:\n%s", r, plan)
	}
	if f := num("fpi="); f < 50 || f > 51 {
		t.Fatalf("FPI %d:\n%s", f, plan)
	}
	if d := num("dirtied="); d > 53 {
		t.Fatalf("dirtied %d:\n%s", d, plan)
	}
	if p := queryInt(t, c, "SELECT pg_relation_size('boat') / 8192"); p != (50000+135)/136 {
		t.Fatalf("table is %d pages", p)
	}
}

// TestCrashUndoInPlace is issue 9's kill -9 case: a transaction updates
// 10,000 rows in place and the server is killed before it commits; after
// restart every row has its old value and an acknowledged commit is there.
func TestCrashUndoInPlace(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE k (id int PRIMARY KEY, v text) USING undo")
	exec(t, c, "INSERT INTO k SELECT i, 'old' || i FROM generate_series(1, 10000) i")
	exec(t, c, "UPDATE k SET v = 'acknowledged' WHERE id = 42")
	w := s.conn()
	exec(t, w, "BEGIN")
	exec(t, w, "UPDATE k SET v = 'new ' || id")
	if n := queryInt(t, w, "SELECT count(*) FROM k WHERE v LIKE 'new %'"); n != 10000 {
		t.Fatalf("%d rows updated", n)
	}
	exec(t, w, "CHECKPOINT") // the uncommitted pages reach disk too
	time.Sleep(10 * time.Millisecond)
	s.kill()
	s.start()
	c = s.conn()
	got := query(t, c, "SELECT count(*) FILTER (WHERE v = 'old' || id) || ' ' || count(*) FILTER (WHERE v LIKE 'new %') || ' ' || (SELECT v FROM k WHERE id = 42) FROM k")
	if got != "9999 0 acknowledged" {
		t.Fatalf("after recovery: %s", got)
	}
}
