package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	osexec "os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestCursorCommandTags checks the tags of DECLARE, FETCH, MOVE and CLOSE
// (PostgreSQL 15's), which carry the row counts of FETCH and MOVE.
func TestCursorCommandTags(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	exec(t, c, "DROP TABLE IF EXISTS ct")
	exec(t, c, "CREATE TABLE ct (a int)")
	exec(t, c, "INSERT INTO ct SELECT generate_series(1, 10)")
	exec(t, c, "BEGIN")
	for _, step := range []struct{ sql, tag string }{
		{"DECLARE c SCROLL CURSOR FOR SELECT a FROM ct ORDER BY a", "DECLARE CURSOR"},
		{"FETCH 3 FROM c", "FETCH 3"},
		{"MOVE 4 IN c", "MOVE 4"},
		{"MOVE 0 IN c", "MOVE 1"},
		{"MOVE FORWARD ALL IN c", "MOVE 3"},
		{"MOVE 0 IN c", "MOVE 0"},
		{"FETCH NEXT FROM c", "FETCH 0"},
		{"MOVE BACKWARD ALL IN c", "MOVE 10"},
		{"MOVE ABSOLUTE 4 IN c", "MOVE 1"},
		{"MOVE BACKWARD ALL IN c", "MOVE 3"},
		{"FETCH ALL FROM c", "FETCH 10"},
		{"DECLARE d CURSOR FOR SELECT 1", "DECLARE CURSOR"},
		{"CLOSE c", "CLOSE CURSOR"},
		{"CLOSE ALL", "CLOSE CURSOR ALL"},
	} {
		if got := exec(t, c, step.sql); got != step.tag {
			t.Errorf("%s: tag %q, want %q", step.sql, got, step.tag)
		}
	}
	exec(t, c, "COMMIT")
}

// TestBinaryCursor: FETCH from a BINARY cursor sends binary values in the
// simple protocol, as exec_simple_query does; the extended protocol keeps
// the formats of its Bind.
func TestBinaryCursor(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	ctx := tctx(t)
	exec(t, c, "BEGIN")
	exec(t, c, "DECLARE b BINARY CURSOR FOR SELECT 258::int4, 'x'::text")
	res, err := c.PgConn().Exec(ctx, "FETCH b").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	fd, rows := res[0].FieldDescriptions, res[0].Rows
	if len(rows) != 1 || fd[0].Format != 1 || fd[1].Format != 1 {
		t.Fatalf("formats %d,%d rows %d, want binary and one row", fd[0].Format, fd[1].Format, len(rows))
	}
	if v := binary.BigEndian.Uint32(rows[0][0]); v != 258 || string(rows[0][1]) != "x" {
		t.Fatalf("row %v, want 258 and x", rows[0])
	}
	exec(t, c, "COMMIT")

	ext := connectExt(t, dsn)
	if _, err := ext.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := ext.Exec(ctx, "DECLARE b BINARY CURSOR FOR SELECT 258::int4"); err != nil {
		t.Fatal(err)
	}
	var v int32
	if err := ext.QueryRow(ctx, "FETCH b").Scan(&v); err != nil || v != 258 {
		t.Fatalf("extended FETCH from a binary cursor: %v %v", v, err)
	}
}

// TestCursorFetchLoop is what psycopg2's named cursors send: DECLARE, then
// FETCH FORWARD n until no rows come back, through pgx's extended protocol.
func TestCursorFetchLoop(t *testing.T) {
	dsn := target(t)
	c := connectExt(t, dsn)
	ctx := tctx(t)
	for _, q := range []string{"DROP TABLE IF EXISTS big", "CREATE TABLE big (a int, b text)", "INSERT INTO big SELECT i, md5(i::text) FROM generate_series(1, 2500) i", "BEGIN",
		`DECLARE "named_cursor" CURSOR WITHOUT HOLD FOR SELECT a, b FROM big ORDER BY a`} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	next, batches := 1, 0
	for {
		rows, err := c.Query(ctx, `FETCH FORWARD 1000 FROM "named_cursor"`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var a int
			var b string
			if err := rows.Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			if a != next {
				t.Fatalf("row %d, want %d", a, next)
			}
			next++
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		batches++
	}
	if next != 2501 || batches != 3 {
		t.Fatalf("read up to %d in %d batches, want 2500 in 3", next-1, batches)
	}
	// DECLARE with a parameter, as psycopg's server-side cursors send it.
	if _, err := c.Exec(ctx, "DECLARE p CURSOR FOR SELECT a FROM big WHERE a > $1 ORDER BY a", 2497); err != nil {
		t.Fatal(err)
	}
	var got []int32
	rows, err := c.Query(ctx, "FETCH ALL FROM p")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a int32
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if rows.Err() != nil || fmt.Sprint(got) != "[2498 2499 2500]" {
		t.Fatalf("cursor with a parameter: %v %v", got, rows.Err())
	}
	for _, q := range []string{`CLOSE "named_cursor"`, "COMMIT"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCursorPortalNamespace: protocol portals and SQL cursors share names,
// as in PostgreSQL: Execute, Describe and Close reach a cursor; Bind may
// not reuse a cursor's name; DECLARE may not reuse a portal's.
func TestCursorPortalNamespace(t *testing.T) {
	dsn := target(t)
	c := connect(t, dsn)
	ctx := tctx(t)
	exec(t, c, "BEGIN")
	exec(t, c, "DECLARE c CURSOR FOR SELECT g FROM generate_series(1, 5) g")
	pc := c.PgConn()

	fr := pc.Frontend()
	fr.SendDescribe(&pgproto3.Describe{ObjectType: 'P', Name: "c"})
	fr.SendExecute(&pgproto3.Execute{Portal: "c", MaxRows: 2})
	fr.SendExecute(&pgproto3.Execute{Portal: "c"})
	fr.SendSync(&pgproto3.Sync{})
	if err := fr.Flush(); err != nil {
		t.Fatal(err)
	}
	got := readUntilReady(t, pc)
	want := "T[g] D[1] D[2] s D[3] D[4] D[5] C[SELECT 3] Z[T]"
	if got != want {
		t.Fatalf("Describe/Execute of a cursor:\n got %s\nwant %s", got, want)
	}

	// Bind may not take a cursor's name.
	fr.SendParse(&pgproto3.Parse{Query: "SELECT 1"})
	fr.SendBind(&pgproto3.Bind{DestinationPortal: "c"})
	fr.SendSync(&pgproto3.Sync{})
	if err := fr.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := readUntilReady(t, pc); got != "1 E[42P03 cursor \"c\" already exists] Z[E]" {
		t.Fatalf("Bind to a cursor's name: %s", got)
	}
	exec(t, c, "ROLLBACK")

	// DECLARE may not take a portal's name; Close of the portal frees it.
	exec(t, c, "BEGIN")
	fr.SendParse(&pgproto3.Parse{Query: "SELECT 1"})
	fr.SendBind(&pgproto3.Bind{DestinationPortal: "p"})
	fr.SendSync(&pgproto3.Sync{})
	if err := fr.Flush(); err != nil {
		t.Fatal(err)
	}
	readUntilReady(t, pc)
	if _, err := execErr(c, "DECLARE p CURSOR FOR SELECT 2"); sqlState(err) != "42P03" {
		t.Fatalf("DECLARE over a portal's name: %v", err)
	}
	exec(t, c, "ROLLBACK")
	exec(t, c, "BEGIN")
	exec(t, c, "DECLARE q CURSOR FOR SELECT 2")
	fr.SendClose(&pgproto3.Close{ObjectType: 'P', Name: "q"})
	fr.SendSync(&pgproto3.Sync{})
	if err := fr.Flush(); err != nil {
		t.Fatal(err)
	}
	readUntilReady(t, pc)
	if _, err := execErr(c, "FETCH q"); sqlState(err) != "34000" {
		t.Fatalf("FETCH after Close of the cursor's portal: %v", err)
	}
	exec(t, c, "ROLLBACK")
	_ = ctx
}

// readUntilReady reads backend messages up to ReadyForQuery and prints them
// compactly: T[cols] D[first value] s (PortalSuspended) C[tag] E[code msg]
// Z[status], 1 ParseComplete, 2 BindComplete, 3 CloseComplete.
func readUntilReady(t *testing.T, pc *pgconn.PgConn) string {
	t.Helper()
	var out []string
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			var names []string
			for _, f := range m.Fields {
				names = append(names, string(f.Name))
			}
			out = append(out, "T["+strings.Join(names, ",")+"]")
		case *pgproto3.DataRow:
			out = append(out, "D["+string(m.Values[0])+"]")
		case *pgproto3.PortalSuspended:
			out = append(out, "s")
		case *pgproto3.CommandComplete:
			out = append(out, "C["+string(m.CommandTag)+"]")
		case *pgproto3.ErrorResponse:
			out = append(out, fmt.Sprintf("E[%s %s]", m.Code, m.Message))
		case *pgproto3.ParseComplete:
			out = append(out, "1")
		case *pgproto3.BindComplete:
			out = append(out, "2")
		case *pgproto3.CloseComplete:
			out = append(out, "3")
		case *pgproto3.ReadyForQuery:
			out = append(out, "Z["+string(m.TxStatus)+"]")
			return strings.Join(out, " ")
		}
	}
}

// TestPsqlFetchCount: psql's \set FETCH_COUNT reads results through a
// cursor (DECLARE _psql_cursor NO SCROLL CURSOR … FETCH FORWARD n …); the
// rows fetched before an error are printed, as against PostgreSQL.
func TestPsqlFetchCount(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, s.Port)
	got := run("-v", "FETCH_COUNT=3", "-c", "select g, 'x' || g as t from generate_series(1,7) g")
	want := " g | t  \n---+----\n 1 | x1\n 2 | x2\n 3 | x3\n 4 | x4\n 5 | x5\n 6 | x6\n 7 | x7\n(7 rows)\n\n"
	if got != want {
		t.Fatalf("FETCH_COUNT=3:\n%s\nwant\n%s", got, want)
	}
	base := []string{"-X", "-A", "-h", "127.0.0.1", "-p", fmt.Sprint(s.Port), "-U", "postgres", "-d", "postgres",
		"-v", "FETCH_COUNT=2", "-c", "select 10/(5-g) as x from generate_series(1,10) g"}
	out, _ := osexec.Command(psql, base...).CombinedOutput()
	if want := "x\n2\n3\n5\n10ERROR:  division by zero\n"; string(out) != want {
		t.Fatalf("FETCH_COUNT=2 with an error after 4 rows:\n%q\nwant\n%q", out, want)
	}
}

// TestCursorSnapshotSurvivesVacuum: an open cursor reads with the snapshot
// of its DECLARE across later statements of its (xid-less) transaction;
// VACUUM in another session must leave the rows that snapshot sees.
func TestCursorSnapshotSurvivesVacuum(t *testing.T) {
	dsn := target(t)
	a := connect(t, dsn)
	b := connect(t, dsn)
	exec(t, b, "DROP TABLE IF EXISTS cv")
	exec(t, b, "CREATE TABLE cv (a int)")
	exec(t, b, "INSERT INTO cv SELECT generate_series(1, 500)")
	exec(t, a, "BEGIN")
	exec(t, a, "DECLARE c CURSOR FOR SELECT a FROM cv")
	exec(t, b, "DELETE FROM cv")
	exec(t, a, "SELECT 1") // a later statement, with a snapshot that sees the DELETE
	exec(t, b, "VACUUM cv")
	res, err := a.PgConn().Exec(tctx(t), "FETCH ALL FROM c").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res[0].Rows); n != 500 {
		t.Fatalf("cursor after VACUUM: %d rows, want 500", n)
	}
	exec(t, a, "COMMIT")
	exec(t, b, "VACUUM cv")
	if got := query(t, b, "SELECT count(*) FROM cv"); got != "0" {
		t.Fatalf("after the cursor's transaction: %s rows", got)
	}
}

// TestPsycopg runs testdata/psycopg/cursors_notify.py with psycopg 3
// (Debian's python3-psycopg; skipped when it is not installed): named
// server-side cursors with a parameter and scrolling, e.diag of a unique
// violation, and a notification. The expected output is the script's
// output against PostgreSQL 15.
func TestPsycopg(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := osexec.Command(python, "-c", "import psycopg").Run(); err != nil {
		t.Skip("python3-psycopg not installed")
	}
	s := testutil.Start(t, testutil.Options{})
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres", s.Port)
	out, err := osexec.Command(python, "testdata/psycopg/cursors_notify.py", dsn).CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg script: %v\n%s", err, out)
	}
	want := "server cursor sum 761985\nfetchmany [1, 2, 3]\nafter scroll (2,)\nabsolute (11,)\n" +
		"diag 23505 public psy_t psy_t_pkey None\nnotify psy hello True\n"
	if string(out) != want {
		t.Fatalf("psycopg output:\n%s\nwant (PostgreSQL 15's):\n%s", out, want)
	}
}
