package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"github.com/tidal-db/tidal/internal/testutil"
)

// secondAM is heap registered again under another name and OID: a second
// table access method, so that ALTER TABLE … SET ACCESS METHOD has
// something to rewrite into (the undo AM's place, until it exists).
type secondAM struct{ tableam.AM }

func (secondAM) Name() string { return "heap2" }
func (secondAM) OID() uint32  { return 16999 }

func startWithSecondAM(t *testing.T) (*testutil.Server, *pgx.Conn) {
	t.Helper()
	ams := tableams.Builtin()
	heap, _ := ams.ByName("heap")
	ams.Register(secondAM{heap})
	s := testutil.Start(t, testutil.Options{AccessMethods: ams})
	conn, err := pgx.Connect(context.Background(), s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return s, conn
}

// TestSetAccessMethodRewrites: a table moved to another access method is
// rewritten into new files whose relam is the new AM, with every row, its
// TOAST values and its indexes intact; inside a transaction that rolls
// back, nothing changes; two different targets in one statement are an
// error, as in PostgreSQL 15.
func TestSetAccessMethodRewrites(t *testing.T) {
	s, conn := startWithSecondAM(t)
	ctx := context.Background()
	exec(t, conn, "CREATE TABLE tam (a int PRIMARY KEY, b text) USING heap2")
	exec(t, conn, "INSERT INTO tam SELECT i, repeat(md5(i::text), CASE WHEN i % 100 = 0 THEN 400 ELSE 1 END) FROM generate_series(1, 2000) i")
	type state struct {
		am        string
		node      uint32
		rows, sum int64
		lookup    string
	}
	read := func() state {
		t.Helper()
		var st state
		if err := conn.QueryRow(ctx, "SELECT a.amname, c.relfilenode FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'tam'").Scan(&st.am, &st.node); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(length(b)) FROM tam").Scan(&st.rows, &st.sum); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT left(b, 8) FROM tam WHERE a = 1500").Scan(&st.lookup); err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := read()
	if before.am != "heap2" || before.rows != 2000 {
		t.Fatalf("before: %+v", before)
	}
	exec(t, conn, "BEGIN")
	exec(t, conn, "ALTER TABLE tam SET ACCESS METHOD heap")
	inTx := read()
	exec(t, conn, "ROLLBACK")
	if inTx.am != "heap" || inTx.node == before.node || inTx.rows != before.rows || inTx.sum != before.sum || inTx.lookup != before.lookup {
		t.Fatalf("inside the transaction: %+v, before %+v", inTx, before)
	}
	if got := read(); got != before {
		t.Fatalf("after ROLLBACK: %+v, before %+v", got, before)
	}

	exec(t, conn, "ALTER TABLE tam SET ACCESS METHOD heap")
	after := read()
	if after.am != "heap" || after.node == before.node || after.rows != before.rows || after.sum != before.sum || after.lookup != before.lookup {
		t.Fatalf("after: %+v, before %+v", after, before)
	}
	exec(t, conn, "INSERT INTO tam VALUES (2001, 'new')")
	if _, err := conn.Exec(ctx, "INSERT INTO tam VALUES (5, 'dup')"); sqlState(err) != "23505" {
		t.Fatalf("duplicate key after the rewrite: %v", err)
	}
	var problems string
	if err := conn.QueryRow(ctx, "SELECT tidal_check('tam')").Scan(&problems); err != nil {
		t.Fatalf("tidal_check: %v (%s)", err, problems)
	}

	if _, err := conn.Exec(ctx, "ALTER TABLE tam SET ACCESS METHOD heap2, SET ACCESS METHOD heap2"); sqlState(err) != "42601" || !strings.Contains(err.Error(), "cannot have multiple SET ACCESS METHOD subcommands") {
		t.Fatalf("two SET ACCESS METHOD: %v", err)
	}
	if got := read(); got.am != "heap" || got.node != after.node {
		t.Fatalf("the refused ALTER changed the table: %+v", got)
	}

	// default_table_access_method picks the AM of a table without USING,
	// and psql's \d+ names it.
	exec(t, conn, "SET default_table_access_method = heap2")
	exec(t, conn, "CREATE TABLE tam_dflt (x int)")
	var am string
	if err := conn.QueryRow(ctx, "SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'tam_dflt'").Scan(&am); err != nil || am != "heap2" {
		t.Fatalf("default AM: %q %v", am, err)
	}
	psql := needPsql(t)
	out := psqlRunner(t, psql, s.Port)("-c", `\d+ tam_dflt`)
	if !strings.Contains(out, "Access method: heap2") {
		t.Fatalf(`\d+ shows no "Access method: heap2":%s`, out)
	}
}

// TestUnregisteredAccessMethod: a data directory whose table uses an AM
// the server does not have still starts; that table is refused with a
// clear error, and every other table works.
func TestUnregisteredAccessMethod(t *testing.T) {
	dir := t.TempDir() + "/data"
	ams := tableams.Builtin()
	heap, _ := ams.ByName("heap")
	ams.Register(secondAM{heap})
	s := testutil.Start(t, testutil.Options{Dir: dir, AccessMethods: ams})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	exec(t, conn, "CREATE TABLE tam_other (a int) USING heap2")
	exec(t, conn, "CREATE TABLE tam_plain (a int)")
	exec(t, conn, "INSERT INTO tam_plain VALUES (7)")
	conn.Close(ctx)
	s.Close()

	s = testutil.Start(t, testutil.Options{Dir: dir})
	conn, err = pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = execErr(conn, "SELECT * FROM tam_other")
	pe := wantState(t, "a table of an unregistered AM", err, "42704")
	if !strings.Contains(pe.Message, `table access method with OID 16999 of relation "tam_other" is not registered`) {
		t.Fatalf("message: %s", pe.Message)
	}
	if got := queryInt(t, conn, "SELECT a FROM tam_plain"); got != 7 {
		t.Fatalf("tam_plain: %d", got)
	}
}

// recheckAM is heap declaring that it updates in place
// (tableam.InPlaceUpdates), so index scans of its tables recheck every
// entry's key against the fetched version. With heap the keys always
// match: the recheck must keep every row.
type recheckAM struct{ tableam.AM }

func (recheckAM) Name() string { return "heap_recheck" }
func (recheckAM) OID() uint32  { return 16998 }
func (a recheckAM) Open(env *tableam.Env, spec tableam.RelSpec) tableam.Relation {
	return recheckRel{a.AM.Open(env, spec)}
}

type recheckRel struct{ tableam.Relation }

func (recheckRel) UpdatesInPlace() bool { return true }

// TestIndexScanRecheck: an index scan of a table whose AM updates in
// place returns the same rows, NULL keys and duplicates included, as the
// same scan of a heap table.
func TestIndexScanRecheck(t *testing.T) {
	ams := tableams.Builtin()
	heap, _ := ams.ByName("heap")
	ams.Register(recheckAM{heap})
	s := testutil.Start(t, testutil.Options{AccessMethods: ams})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, am := range []string{"heap", "heap_recheck"} {
		tbl := "rc_" + am
		exec(t, conn, "CREATE TABLE "+tbl+" (k int, v text) USING "+am)
		exec(t, conn, "INSERT INTO "+tbl+" SELECT CASE WHEN i % 10 = 0 THEN NULL ELSE i % 7 END, 'v' || i FROM generate_series(1, 3000) i")
		exec(t, conn, "CREATE INDEX "+tbl+"_k ON "+tbl+" (k)")
		exec(t, conn, "UPDATE "+tbl+" SET k = k + 1 WHERE k = 3")
		exec(t, conn, "ANALYZE "+tbl)
	}
	for _, q := range []string{"SELECT k, v FROM %s WHERE k = 4 ORDER BY v", "SELECT k, v FROM %s WHERE k > 1 AND k <= 5 ORDER BY k, v", "SELECT count(*) FROM %s WHERE k = 3"} {
		plan := query(t, conn, "EXPLAIN (COSTS OFF) "+strings.ReplaceAll(q, "%s", "rc_heap_recheck"))
		if !strings.Contains(plan, "Index") {
			t.Fatalf("%s: not an index scan: %s", q, plan)
		}
		want := query(t, conn, strings.ReplaceAll(q, "%s", "rc_heap"))
		if got := query(t, conn, strings.ReplaceAll(q, "%s", "rc_heap_recheck")); got != want || want == "" {
			t.Fatalf("%s: recheck AM returned %.200s, heap %.200s", q, got, want)
		}
	}
}

// TestSecondAMCopyVacuum: COPY, VACUUM (with its truncation) and
// tidal_check reach a table of another registered AM through the same
// interface as heap's.
func TestSecondAMCopyVacuum(t *testing.T) {
	_, conn := startWithSecondAM(t)
	ctx := context.Background()
	exec(t, conn, "CREATE TABLE tam_cv (a int PRIMARY KEY, b text) USING heap2")
	rows := make([][]any, 4000)
	for i := range rows {
		rows[i] = []any{int32(i + 1), strings.Repeat("x", 50)}
	}
	if n, err := conn.CopyFrom(ctx, pgx.Identifier{"tam_cv"}, []string{"a", "b"}, pgx.CopyFromRows(rows)); err != nil || n != 4000 {
		t.Fatalf("COPY: %d %v", n, err)
	}
	before := queryInt(t, conn, "SELECT pg_relation_size('tam_cv')")
	exec(t, conn, "DELETE FROM tam_cv WHERE a > 1000")
	exec(t, conn, "VACUUM tam_cv")
	after := queryInt(t, conn, "SELECT pg_relation_size('tam_cv')")
	if after >= before {
		t.Fatalf("VACUUM did not truncate the emptied tail: %d bytes before, %d after", before, after)
	}
	if n := queryInt(t, conn, "SELECT count(*) FROM tam_cv"); n != 1000 {
		t.Fatalf("count %d", n)
	}
	if n := queryInt(t, conn, "SELECT count(*) FROM tam_cv WHERE a BETWEEN 990 AND 1010"); n != 11 {
		t.Fatalf("index range count %d", n)
	}
	var ok string
	if err := conn.QueryRow(ctx, "SELECT tidal_check('tam_cv')").Scan(&ok); err != nil {
		t.Fatalf("tidal_check: %v", err)
	}
}
