package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// A session's temporary table is its own: another session cannot read or
// change it (PostgreSQL's errors), does not find it by its unqualified
// name, and the table is gone once its session disconnects.
func TestTempTableOtherSessions(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.DSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	owner, other := connect(), connect()
	exec(t, owner, "CREATE TEMP TABLE secret (a int PRIMARY KEY, b text)")
	exec(t, owner, "INSERT INTO secret VALUES (1, 'mine'), (2, 'also mine')")
	nsp := query(t, owner, "SELECT pg_my_temp_schema()::regnamespace")
	if nsp != "pg_temp_1" {
		t.Fatalf("owner's temp schema %q, want pg_temp_1", nsp)
	}
	qualified := nsp + ".secret"

	// Not found unqualified; schema-qualified, PostgreSQL's 0A000.
	_, err := queryErr(other, "SELECT * FROM secret")
	wantState(t, "unqualified read by another session", err, "42P01")
	for _, sql := range []string{
		"SELECT * FROM " + qualified,
		"INSERT INTO " + qualified + " VALUES (3, 'theirs')",
		"UPDATE " + qualified + " SET b = 'theirs'",
		"DELETE FROM " + qualified,
	} {
		_, err := execErr(other, sql)
		if pe := wantState(t, sql, err, "0A000"); pe.Message != "cannot access temporary tables of other sessions" {
			t.Fatalf("%s: %q", sql, pe.Message)
		}
	}
	for sql, msg := range map[string]string{
		"TRUNCATE " + qualified:                     "cannot truncate temporary tables of other sessions",
		"ALTER TABLE " + qualified + " ADD c int":   "cannot alter temporary tables of other sessions",
		"CREATE INDEX ON " + qualified + " (b)":     "cannot create indexes on temporary tables of other sessions",
		"CREATE TABLE " + nsp + ".intruder (a int)": "cannot create relations in temporary schemas of other sessions",
	} {
		_, err := execErr(other, sql)
		pe := wantState(t, sql, err, sqlStateFor(msg))
		if pe.Message != msg {
			t.Fatalf("%s: %q, want %q", sql, pe.Message, msg)
		}
	}
	if got := query(t, other, "SELECT pg_is_other_temp_schema('"+nsp+"'::regnamespace), pg_my_temp_schema()"); got != "true|0" {
		t.Fatalf("other session: pg_is_other_temp_schema, pg_my_temp_schema = %s", got)
	}
	// The other session's own temporary table of the same name is a
	// different table, in its own namespace.
	exec(t, other, "CREATE TEMP TABLE secret (x text)")
	exec(t, other, "INSERT INTO secret VALUES ('other')")
	if got := query(t, other, "SELECT x, pg_my_temp_schema()::regnamespace FROM secret"); got != "other|pg_temp_2" {
		t.Fatalf("other session's own table: %s", got)
	}
	if got := query(t, owner, "SELECT a, b FROM secret ORDER BY a"); got != "1|mine,2|also mine" {
		t.Fatalf("owner's rows after the other session's attempts: %s", got)
	}

	// Once the owner disconnects, its table is gone and its slot is free.
	oid := query(t, owner, "SELECT 'secret'::regclass::oid")
	ownerPID := query(t, owner, "SELECT pg_backend_pid()")
	if err := owner.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// A backend stops being one (pg_cancel_backend answers false) after
	// it has dropped its temporary objects and given up its slot, as a
	// PostgreSQL backend leaves its PGPROC: wait for that, not merely for
	// the catalog rows, which are gone a moment before the slot is free.
	deadline := time.Now().Add(10 * time.Second)
	for query(t, other, "SELECT pg_cancel_backend("+ownerPID+")") != "false" {
		if time.Now().After(deadline) {
			t.Fatalf("the closed session is still a backend")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := query(t, other, "SELECT count(*) FROM pg_class WHERE oid = "+oid); got != "0" {
		t.Fatalf("the temporary table of a closed session is still in pg_class")
	}
	if got := query(t, other, "SELECT count(*) FROM pg_class WHERE relnamespace = '"+nsp+"'::regnamespace"); got != "0" {
		t.Fatalf("%s still holds %s relations", nsp, got)
	}
	third := connect()
	exec(t, third, "CREATE TEMP TABLE fresh (a int)")
	if got := query(t, third, "SELECT pg_my_temp_schema()::regnamespace"); got != nsp {
		t.Fatalf("a new session got %s, want the freed %s", got, nsp)
	}
}

func sqlStateFor(msg string) string {
	if msg == "cannot create relations in temporary schemas of other sessions" {
		return "42P16"
	}
	return "0A000"
}

// Temporary tables are not WAL-logged, so they cannot come back after a
// crash: start-up drops what the killed server's sessions left, files
// included, and permanent tables written beside them survive intact.
func TestCrashTempTablesGone(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE keep (a int PRIMARY KEY, b text)")
	exec(t, c, "CREATE TEMP TABLE scratch (a int PRIMARY KEY, b text)")
	exec(t, c, "CREATE TEMP SEQUENCE scratch_seq")
	exec(t, c, "INSERT INTO scratch SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g")
	exec(t, c, "INSERT INTO keep SELECT g, 'kept' FROM generate_series(1, 100) g")
	exec(t, c, "CHECKPOINT") // temp pages reach the files too
	exec(t, c, "UPDATE scratch SET b = 'changed' WHERE a <= 2500")
	var files []string
	for _, rel := range []string{"scratch", "scratch_pkey", "scratch_seq"} {
		node := query(t, c, "SELECT relfilenode FROM pg_class WHERE relname = '"+rel+"'")
		files = append(files, filepath.Join(s.dir, "base", node))
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("temporary relation file before the crash: %v", err)
		}
	}
	s.kill()
	s.start()
	c = s.conn()
	if got := query(t, c, "SELECT count(*) FROM pg_class WHERE relpersistence = 't'"); got != "0" {
		t.Fatalf("%s temporary relations after recovery, want 0", got)
	}
	for _, f := range files {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("temporary relation file %s after recovery: %v", f, err)
		}
	}
	if got := query(t, c, "SELECT count(*), min(b), max(b) FROM keep"); got != "100|kept|kept" {
		t.Fatalf("permanent table after recovery: %s", got)
	}
	_, err := queryErr(c, "SELECT * FROM scratch")
	wantState(t, "temporary table after recovery", err, "42P01")
	// The namespace is there for the next session to reuse, empty.
	exec(t, c, "CREATE TEMP TABLE scratch (a int)")
	if got := query(t, c, "SELECT count(*) FROM scratch"); got != "0" {
		t.Fatalf("new temporary table: %s rows", got)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp_%'"); n < 1 {
		t.Fatalf("%d temporary namespaces", n)
	}
}

// psql's describe commands show a temporary table, its index and its
// serial sequence in the session's pg_temp schema as PostgreSQL 15 does
// (testdata/psql/temp_describe.out was captured from PostgreSQL 15 on an
// empty database; the slot number N is PostgreSQL's backend number, so it
// is masked on both sides).
func TestPsqlDescribeTemp(t *testing.T) {
	psql := needPsql(t)
	srv := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, srv.Port)
	got := run("-c", "CREATE TEMP TABLE tdesc (a int PRIMARY KEY, b int NOT NULL DEFAULT 7, c serial)",
		"-c", "CREATE INDEX ON tdesc (b)", "-c", `\d tdesc`, "-c", `\dt`, "-c", `\ds`, "-c", `\di`, "-c", `\d tdesc_c_seq`)
	got = regexp.MustCompile(`pg_temp_[0-9]+`).ReplaceAllString(got, "pg_temp_N")
	want, err := os.ReadFile(filepath.Join("testdata", "psql", "temp_describe.out"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("got:\n%s\nwant (PostgreSQL 15):\n%s", got, want)
	}
}
