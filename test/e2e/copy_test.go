package e2e

import (
	"bytes"
	"fmt"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

func copyIn(t *testing.T, c *pgx.Conn, sql, data string) (pgconn.CommandTag, error) {
	t.Helper()
	return c.PgConn().CopyFrom(tctx(t), strings.NewReader(data), sql)
}

func copyOut(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := c.PgConn().CopyTo(tctx(t), &buf, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return buf.String()
}

func TestCopyText(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE ct (a int4 PRIMARY KEY, b text, c float8 DEFAULT 2.5, d timestamp, e bool)`)

	tag, err := copyIn(t, c, `COPY ct FROM STDIN`,
		"1\thello\t1.5\t2024-01-02 03:04:05\tt\n"+
			"2\t\\N\t\\N\t\\N\tf\n"+
			"3\ttab\\there\\\\back\\nnl \\x41\\101\t0\t2000-01-01\ttrue\n")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("copy: %q %v", tag, err)
	}
	if got := query(t, c, `SELECT a, b, c, e FROM ct ORDER BY a`); got != "1|hello|1.5|true,2|null|null|false,3|tab\there\\back\nnl AA|0|true" {
		t.Errorf("rows: %q", got)
	}
	// Column list: the others get their defaults; end marker; CRLF.
	tag, err = copyIn(t, c, `COPY ct (b, a) FROM STDIN`, "x\t10\r\ny\t11\r\n\\.\r\n")
	if err != nil || tag.String() != "COPY 2" {
		t.Fatalf("copy cols: %q %v", tag, err)
	}
	if got := query(t, c, `SELECT a, b, c, d FROM ct WHERE a >= 10 ORDER BY a`); got != "10|x|2.5|null,11|y|2.5|null" {
		t.Errorf("defaults: %q", got)
	}
	// DELIMITER and NULL options, HEADER in text mode.
	tag, err = copyIn(t, c, `COPY ct (a, b) FROM STDIN WITH (DELIMITER '|', NULL 'nil', HEADER)`, "a|b\n20|nil\n21|z\n")
	if err != nil || tag.String() != "COPY 2" {
		t.Fatalf("copy delim: %q %v", tag, err)
	}
	if got := query(t, c, `SELECT a, b FROM ct WHERE a >= 20 ORDER BY a`); got != "20|null,21|z" {
		t.Errorf("delim rows: %q", got)
	}

	// Bad data: PostgreSQL's message and CONTEXT; nothing is inserted.
	_, err = copyIn(t, c, `COPY ct (a, b) FROM STDIN`, "30\tok\nxx\tbad\n")
	pe := wantState(t, "bad int", err, "22P02")
	if pe.Message != `invalid input syntax for type integer: "xx"` || pe.Where != `COPY ct, line 2, column a: "xx"` {
		t.Errorf("bad int: %q / %q", pe.Message, pe.Where)
	}
	_, err = copyIn(t, c, `COPY ct (a, b) FROM STDIN`, "31\n")
	pe = wantState(t, "missing", err, "22P04")
	if pe.Message != `missing data for column "b"` || pe.Where != `COPY ct, line 1: "31"` {
		t.Errorf("missing: %q / %q", pe.Message, pe.Where)
	}
	_, err = copyIn(t, c, `COPY ct (a, b) FROM STDIN`, "32\tx\ty\n")
	pe = wantState(t, "extra", err, "22P04")
	if pe.Message != "extra data after last expected column" {
		t.Errorf("extra: %q", pe.Message)
	}
	_, err = copyIn(t, c, `COPY ct (a) FROM STDIN`, "1\n")
	wantState(t, "duplicate", err, "23505")
	_, err = copyIn(t, c, `COPY ct (nosuch) FROM STDIN`, "1\n")
	wantState(t, "unknown column", err, "42703")
	_, err = copyIn(t, c, `COPY nosuch FROM STDIN`, "1\n")
	wantState(t, "unknown table", err, "42P01")
	if n := queryInt(t, c, `SELECT count(*) FROM ct WHERE a >= 30`); n != 0 {
		t.Errorf("%d rows from failed copies", n)
	}
	wantUsable(t, c)

	// COPY TO STDOUT.
	if got := copyOut(t, c, `COPY ct (a, b, e) TO STDOUT`); !strings.Contains(got, "3\ttab\\there\\\\back\\nnl AA\tt\n") || !strings.Contains(got, "2\t\\N\tf\n") {
		t.Errorf("copy to: %q", got)
	}
	if got := copyOut(t, c, `COPY (SELECT a, b FROM ct WHERE a IN (1, 2) ORDER BY a) TO STDOUT WITH (FORMAT csv, HEADER)`); got != "a,b\n1,hello\n2,\n" {
		t.Errorf("copy query csv: %q", got)
	}

	// In a transaction block, rolled back.
	exec(t, c, "BEGIN")
	if _, err := copyIn(t, c, `COPY ct (a) FROM STDIN`, "100\n101\n"); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, c, `SELECT count(*) FROM ct WHERE a >= 100`); n != 2 {
		t.Errorf("in block: %d", n)
	}
	exec(t, c, "ROLLBACK")
	if n := queryInt(t, c, `SELECT count(*) FROM ct WHERE a >= 100`); n != 0 {
		t.Errorf("after rollback: %d", n)
	}
	// A failed COPY fails the block.
	exec(t, c, "BEGIN")
	_, err = copyIn(t, c, `COPY ct (a) FROM STDIN`, "x\n")
	wantState(t, "copy in block", err, "22P02")
	if txStatus(c) != 'E' {
		t.Errorf("status %c after failed copy in block", txStatus(c))
	}
	exec(t, c, "ROLLBACK")
	// File COPY is refused.
	_, err = execErr(c, `COPY ct FROM '/etc/passwd'`)
	wantState(t, "file", err, "0A000")
}

func TestCopyCSV(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE cc (id int4, t text, v varchar(20))`)
	data := "id,t,v\n" +
		"1,plain,\n" +
		"2,\"with, comma\",\"\"\n" +
		"3,\"quote \"\"q\"\"\",x\n" +
		"4,\"multi\nline\",y\n"
	tag, err := copyIn(t, c, `COPY cc FROM STDIN WITH CSV HEADER`, data)
	if err != nil || tag.String() != "COPY 4" {
		t.Fatalf("csv: %q %v", tag, err)
	}
	if got := query(t, c, `SELECT id, t, coalesce(v, 'NULL') FROM cc ORDER BY id`); got != "1|plain|NULL,2|with, comma|,3|quote \"q\"|x,4|multi\nline|y" {
		t.Errorf("csv rows: %q", got)
	}
	out := copyOut(t, c, `COPY cc TO STDOUT (FORMAT csv, HEADER true)`)
	want := "id,t,v\n1,plain,\n2,\"with, comma\",\"\"\n3,\"quote \"\"q\"\"\",x\n4,\"multi\nline\",y\n"
	if out != want {
		t.Errorf("csv out:\n%q\nwant\n%q", out, want)
	}
	// Round trip.
	exec(t, c, `CREATE TABLE cc2 (id int4, t text, v varchar(20))`)
	if _, err := copyIn(t, c, `COPY cc2 FROM STDIN (FORMAT csv, HEADER)`, out); err != nil {
		t.Fatal(err)
	}
	if a, b := query(t, c, `SELECT * FROM cc ORDER BY id`), query(t, c, `SELECT * FROM cc2 ORDER BY id`); a != b {
		t.Errorf("round trip: %q vs %q", a, b)
	}
	_, err = copyIn(t, c, `COPY cc FROM STDIN WITH (FORMAT csv)`, "5,\"open\n")
	wantState(t, "unterminated", err, "22P04")
	_, err = copyIn(t, c, `COPY cc (id, v) FROM STDIN WITH (FORMAT csv)`, "6,0123456789012345678901\n")
	pe := wantState(t, "too long", err, "22001")
	if !strings.HasPrefix(pe.Where, "COPY cc, line 1, column v:") {
		t.Errorf("where %q", pe.Where)
	}
}

// TestPgxCopyFrom uses pgx.CopyFrom: binary COPY with every type.
func TestPgxCopyFrom(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	exec(t, c, allTypesDDL)
	ts := time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC)
	var rows [][]any
	for i := 1; i <= 2500; i++ {
		rows = append(rows, []any{int32(i), i%2 == 0, []byte{byte(i)}, "c", "nm", int16(i), int64(i) << 33, fmt.Sprint("row", i),
			uint32(i), float32(i) / 4, math.Sqrt(float64(i)), "bp", "vc", ts, ts})
	}
	rows = append(rows, []any{int32(0), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil})
	n, err := c.CopyFrom(ctx, pgx.Identifier{"alltypes"},
		[]string{"id", "b", "ba", "ch", "nm", "i2", "i8", "tx", "o", "f4", "f8", "bp", "vc", "ts", "tz"}, pgx.CopyFromRows(rows))
	if err != nil || n != 2501 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	if got := query(t, c, `SELECT id, b, i2, i8, tx, o, f4, bp, ts FROM alltypes WHERE id IN (0, 7) ORDER BY id`); got != "0|null|null|null|null|null|null|null|null,7|false|7|60129542144|row7|7|1.75|bp  |2024-02-29 12:34:56.789 +0000 UTC" {
		t.Errorf("rows: %q", got)
	}
	// Binary COPY TO and back in.
	var buf bytes.Buffer
	if _, err := c.PgConn().CopyTo(ctx, &buf, `COPY alltypes TO STDOUT (FORMAT binary)`); err != nil {
		t.Fatal(err)
	}
	exec(t, c, strings.Replace(allTypesDDL, "alltypes", "alltypes2", 1))
	if tag, err := c.PgConn().CopyFrom(ctx, &buf, `COPY alltypes2 FROM STDIN BINARY`); err != nil || tag.String() != "COPY 2501" {
		t.Fatalf("binary copy in: %q %v", tag, err)
	}
	if a, b := query(t, c, `SELECT * FROM alltypes ORDER BY id`), query(t, c, `SELECT * FROM alltypes2 ORDER BY id`); a != b {
		t.Errorf("binary round trip differs")
	}
	// A duplicate key fails the whole CopyFrom.
	_, err = c.CopyFrom(ctx, pgx.Identifier{"alltypes"}, []string{"id"}, pgx.CopyFromRows([][]any{{int32(5000)}, {int32(1)}}))
	wantState(t, "dup", err, "23505")
	if n := queryInt(t, c, `SELECT count(*) FROM alltypes WHERE id = 5000`); n != 0 {
		t.Errorf("partial copy visible")
	}
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader("garbage"), `COPY alltypes FROM STDIN (FORMAT binary)`)
	wantState(t, "signature", err, "22P04")
}

// TestPgbenchStyleCopy is the load pgbench -i does: TRUNCATE and COPY …
// WITH (FREEZE ON) in one transaction.
func TestPgbenchStyleCopy(t *testing.T) {
	s := testutil.Start(t, testutil.Options{Conf: onHeap(nil)})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE pgbench_accounts (aid int not null, bid int, abalance int, filler char(84)) WITH (fillfactor=100)`)
	const n = 100000
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\t%d\t0\t\n", i, (i-1)/100000+1)
	}
	exec(t, c, "BEGIN")
	exec(t, c, "TRUNCATE pgbench_accounts")
	start := time.Now()
	tag, err := copyIn(t, c, `copy pgbench_accounts from stdin with (freeze on)`, b.String())
	if err != nil || tag.String() != fmt.Sprintf("COPY %d", n) {
		t.Fatalf("copy: %q %v", tag, err)
	}
	t.Logf("COPY of %d rows: %v", n, time.Since(start))
	exec(t, c, "COMMIT")
	if got := queryInt(t, c, `SELECT count(*) FROM pgbench_accounts`); got != n {
		t.Fatalf("count %d", got)
	}
	// Same number of pages as PostgreSQL (1640 for 100000 rows).
	if got := queryInt(t, c, `SELECT pg_relation_size('pgbench_accounts') / 8192`); got != 1640 {
		t.Errorf("pages = %d, PostgreSQL has 1640", got)
	}
}

// TestPsqlCopy drives \copy from psql.
func TestPsqlCopy(t *testing.T) {
	psql, err := osexec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	exec(t, c, `CREATE TABLE pc (id int4, name text)`)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id,name\n1,one\n2,\"t,wo\"\n3,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(cmd string) (string, error) {
		out, err := osexec.Command(psql, "-X", "-q", "-h", "127.0.0.1", "-p", fmt.Sprint(s.Port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", cmd).CombinedOutput()
		return string(out), err
	}
	if out, err := run(`\copy pc from '` + in + `' with (format csv, header)`); err != nil {
		t.Fatalf("\\copy from: %v\n%s", err, out)
	}
	out, err := run(`\copy pc to stdout with (format csv)`)
	if err != nil || out != "1,one\n2,\"t,wo\"\n3,\n" {
		t.Errorf("\\copy to: %q %v", out, err)
	}
	out, err = run(`\copy pc from stdin`)
	_ = out
	if err != nil {
		t.Errorf("\\copy from empty stdin: %v %s", err, out)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("1\tok\nnope\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(`\copy pc from '` + bad + `'`)
	if err == nil || !strings.Contains(out, `invalid input syntax for type integer: "nope"`) || !strings.Contains(out, `CONTEXT:  COPY pc, line 2, column id: "nope"`) {
		t.Errorf("bad \\copy: %v\n%s", err, out)
	}
	if n := queryInt(t, c, `SELECT count(*) FROM pc`); n != 3 {
		t.Errorf("count %d", n)
	}
}
