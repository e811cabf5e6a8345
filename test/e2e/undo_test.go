package e2e

import (
	"strconv"
	"strings"
	"testing"

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

// TestCrashUndoInPlace is issue 9's kill -9 case, against a real server
// process: a transaction updates 10,000 rows of an undo table in place
// (every row keeps its ctid, no index changes) and the server is killed
// before it commits; after restart every row has its old value, every
// commit acknowledged before the kill is there — those before the big
// transaction began and those made in other sessions while it was open —
// and tidal_check() finds the table and its indexes consistent. Twice:
// once with a CHECKPOINT while the transaction is open (its pages reach
// disk, recovery must undo them), once without (they exist only in WAL).
// After each restart the rows are updated and committed again, so undo
// recovery left them writable.
func TestCrashUndoInPlace(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE k (id int PRIMARY KEY, v text, n int) USING undo")
	exec(t, c, "CREATE INDEX k_n ON k (n)")
	exec(t, c, "CREATE TABLE j (id int PRIMARY KEY, hits int) USING undo")
	exec(t, c, "INSERT INTO k SELECT i, 'old' || i, i FROM generate_series(1, 10000) i")
	exec(t, c, "INSERT INTO j VALUES (1, 0)")
	exec(t, c, "UPDATE k SET v = 'acknowledged' WHERE id = 42")
	const rowsState = "SELECT string_agg(ctid::text || ':' || id || ':' || v, ',' ORDER BY id) FROM k WHERE id <= 10000"
	const ctidsOf = "SELECT string_agg(ctid::text, ',' ORDER BY id) FROM k WHERE id <= 10000"
	for round, checkpoint := range []bool{true, false} {
		before := query(t, c, rowsState)
		ctids := query(t, c, ctidsOf)
		indexSize := query(t, c, "SELECT pg_relation_size('k_pkey') + pg_relation_size('k_n')")
		w := s.conn()
		exec(t, w, "BEGIN")
		if tag := exec(t, w, "UPDATE k SET v = 'new' || id WHERE id <= 10000"); tag != "UPDATE 10000" {
			t.Fatalf("round %d: %s", round, tag)
		}
		if n := queryInt(t, w, "SELECT count(*) FROM k WHERE v LIKE 'new%'"); n != 10000 {
			t.Fatalf("round %d: %d rows updated", round, n)
		}
		if got := query(t, w, ctidsOf); got != ctids {
			t.Fatalf("round %d: the update moved rows", round)
		}
		// Commits acknowledged while the transaction is open.
		exec(t, c, "INSERT INTO k VALUES (20000 + "+strconv.Itoa(round)+", 'inserted meanwhile', 0)")
		exec(t, c, "UPDATE j SET hits = hits + 1")
		if checkpoint {
			exec(t, c, "CHECKPOINT") // the uncommitted in-place pages reach disk
		}
		s.kill()
		s.start()
		c = s.conn()
		if got := query(t, c, rowsState); got != before {
			t.Fatalf("round %d: rows after recovery differ from before the transaction (%d bytes, were %d)", round, len(got), len(before))
		}
		if n := queryInt(t, c, "SELECT count(*) FROM k WHERE v LIKE 'new%'"); n != 0 {
			t.Fatalf("round %d: %d rows keep the killed transaction's value", round, n)
		}
		want := "acknowledged " + strconv.Itoa(round+1) + " " + strconv.Itoa(round+1)
		if got := query(t, c, "SELECT (SELECT v FROM k WHERE id = 42) || ' ' || (SELECT count(*) FROM k WHERE v = 'inserted meanwhile') || ' ' || (SELECT hits FROM j)"); got != want {
			t.Fatalf("round %d: acknowledged commits after recovery: %s, want %s", round, got, want)
		}
		if got := query(t, c, "SELECT pg_relation_size('k_pkey') + pg_relation_size('k_n')"); got != indexSize {
			t.Fatalf("round %d: index size %s, was %s: the in-place update wrote index entries", round, got, indexSize)
		}
		for _, tbl := range []string{"k", "j"} {
			if got := query(t, c, "SELECT tidal_check('"+tbl+"')"); got != "ok" {
				t.Fatalf("round %d: tidal_check('%s'): %s", round, tbl, got)
			}
		}
		exec(t, c, "UPDATE k SET v = 'old' || id || ' r"+strconv.Itoa(round)+"' WHERE id % 1000 = 7")
	}
	if n := queryInt(t, c, "SELECT count(*) FROM k WHERE v LIKE '% r1'"); n != 10 {
		t.Fatalf("%d rows updated after the second recovery", n)
	}
}
