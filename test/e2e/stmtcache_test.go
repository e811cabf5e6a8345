package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tidal-db/tidal/internal/testutil"
)

// The session's statement caches (internal/session/stmtcache.go) must be
// invisible: the same answers, columns and errors as parsing every text
// afresh, whatever DDL or SET happened in between. Each statement below
// runs at least three times so that its shape is cached before the change.

// TestStmtCacheSimpleLiterals runs statements of one shape with different
// literal values through the Simple Query protocol.
func TestStmtCacheSimpleLiterals(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE acc (aid int PRIMARY KEY, abalance int, filler text)")
	exec(t, c, "INSERT INTO acc SELECT g, 0, 'f' || g FROM generate_series(1, 50) g")
	for i := 1; i <= 20; i++ {
		delta := i*37 - 300 // negative and positive
		exec(t, c, fmt.Sprintf("UPDATE acc SET abalance = abalance + %d WHERE aid = %d;", delta, i))
		want := fmt.Sprintf("%d", delta)
		if got := query(t, c, fmt.Sprintf("SELECT abalance FROM acc WHERE aid = %d;", i)); got != want {
			t.Fatalf("aid %d: abalance %s, want %s", i, got, want)
		}
	}
	if got := query(t, c, "SELECT sum(abalance) FROM acc"); got != "1770" {
		t.Fatalf("sum = %s, want 1770", got)
	}
	for _, v := range []struct{ lit, want string }{
		{"'it''s'", "it's!|6"}, {"'x'", "x!|3"}, {"''", "!|2"}, {"'a''''b'", "a''b!|6"}, {"'héllo'", "héllo!|7"},
	} {
		q := fmt.Sprintf("SELECT %s || '!', length(%s || 'ab') -- it's a comment", v.lit, v.lit)
		if got := query(t, c, q); got != v.want {
			t.Errorf("%s: got %s, want %s", q, got, v.want)
		}
	}
	for _, v := range []struct{ lit, want string }{
		{"1", "-1|2"}, {"2147483647", "-2147483647|2147483648"}, {"0", "0|1"}, {"40", "-40|41"},
	} {
		q := fmt.Sprintf("SELECT -%s, %s + 1::int8", v.lit, v.lit)
		if got := query(t, c, q); got != v.want {
			t.Errorf("%s: got %s, want %s", q, got, v.want)
		}
	}
	for _, v := range []struct{ lit, want string }{
		{"1.5", "-1.5"}, {"2.25", "-2.25"}, {".5", "-0.5"}, {"1e3", "-1000"},
	} {
		q := fmt.Sprintf("SELECT -%s::float8", v.lit)
		if got := query(t, c, q); got != v.want {
			t.Errorf("%s: got %s, want %s", q, got, v.want)
		}
	}
}

// TestStmtCacheSimpleDDL: a cached shape is planned again after DDL, and
// its errors point into the text that was sent.
func TestStmtCacheSimpleDDL(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	other := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE t (id int, v text)")
	exec(t, c, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	for i := 1; i <= 3; i++ {
		query(t, c, fmt.Sprintf("SELECT * FROM t WHERE id = %d", i))
	}
	exec(t, other, "ALTER TABLE t ADD COLUMN w int DEFAULT 7")
	if got := query(t, c, "SELECT * FROM t WHERE id = 2"); got != "2|two|7" {
		t.Fatalf("after ADD COLUMN: %s", got)
	}
	exec(t, other, "DROP TABLE t")
	exec(t, other, "CREATE TABLE t (id text, z int)")
	_, err := queryErr(c, "SELECT * FROM t WHERE id = 12345")
	pe := wantState(t, "int literal against a text column", err, "42883")
	if want := int32(strings.Index("SELECT * FROM t WHERE id = 12345", "=") + 1); pe.Position != want {
		t.Errorf("position %d, want %d", pe.Position, want)
	}

	// Positions after literals of another length than the template's.
	for i, lit := range []string{"'a'", "'bb'", "'ccc'"} {
		exec(t, c, fmt.Sprintf("INSERT INTO t VALUES (%s, %d)", lit, i))
		query(t, c, fmt.Sprintf("SELECT %s || id FROM t WHERE z = %d", lit, i))
	}
	q := "SELECT 'a much longer literal than before' || nosuch FROM t WHERE z = 1234567"
	_, err = queryErr(c, q)
	pe = wantState(t, "unknown column", err, "42703")
	if want := int32(strings.Index(q, "nosuch") + 1); pe.Position != want {
		t.Errorf("%s: position %d, want %d", q, pe.Position, want)
	}
	q = "SELECT 'x' || id FROM t WHERE z = 'not a number'"
	for i := 0; i < 3; i++ {
		_, err = queryErr(c, q)
		pe = wantState(t, "bad integer literal", err, "22P02")
		if want := int32(strings.Index(q, "'not") + 1); pe.Position != want {
			t.Errorf("%s: position %d, want %d", q, pe.Position, want)
		}
	}
}

// execParams sends Parse (unnamed) / Bind / Describe / Execute / Sync, as
// pgbench -M extended does, and returns the column names and rows.
func execParams(t *testing.T, c *pgx.Conn, sql string, args ...string) ([]pgconn.FieldDescription, string, error) {
	t.Helper()
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := c.PgConn().ExecParams(tctx(t), sql, params, nil, nil, nil).Read()
	var rows []string
	for _, r := range res.Rows {
		var cols []string
		for _, v := range r {
			cols = append(cols, string(v))
		}
		rows = append(rows, strings.Join(cols, "|"))
	}
	return res.FieldDescriptions, strings.Join(rows, ","), res.Err
}

func fieldNames(fds []pgconn.FieldDescription) string {
	var names []string
	for _, f := range fds {
		names = append(names, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	return strings.Join(names, ",")
}

// TestStmtCacheExtendedDDL: the reused parse analysis of an unnamed
// statement follows DDL, committed by another session or made earlier in
// the same transaction.
func TestStmtCacheExtendedDDL(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	other := connect(t, s.DSN())
	exec(t, other, "CREATE TABLE t (id int, v text)")
	exec(t, other, "INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	const q = "SELECT * FROM t WHERE id = $1"
	for i := 0; i < 3; i++ {
		fds, rows, err := execParams(t, c, q, "1")
		if err != nil || fieldNames(fds) != "id:23,v:25" || rows != "1|one" {
			t.Fatalf("before DDL: %s %s %v", fieldNames(fds), rows, err)
		}
	}
	exec(t, other, "CREATE INDEX t_v ON t (v)") // DDL that changes no column
	if fds, rows, err := execParams(t, c, q, "2"); err != nil || fieldNames(fds) != "id:23,v:25" || rows != "2|two" {
		t.Fatalf("after CREATE INDEX: %s %s %v", fieldNames(fds), rows, err)
	}
	exec(t, other, "ALTER TABLE t ADD COLUMN w int DEFAULT 7")
	if fds, rows, err := execParams(t, c, q, "2"); err != nil || fieldNames(fds) != "id:23,v:25,w:23" || rows != "2|two|7" {
		t.Fatalf("after ADD COLUMN: %s %s %v", fieldNames(fds), rows, err)
	}
	exec(t, other, "DROP TABLE t")
	exec(t, other, "CREATE TABLE t (id text, z int)")
	exec(t, other, "INSERT INTO t VALUES ('2', 22)")
	if fds, rows, err := execParams(t, c, q, "2"); err != nil || fieldNames(fds) != "id:25,z:23" || rows != "2|22" {
		t.Fatalf("after re-create: %s %q %v", fieldNames(fds), rows, err)
	}
	// $1 is now inferred as text: '02' no longer equals '2'.
	if _, rows, err := execParams(t, c, q, "02"); err != nil || rows != "" {
		t.Fatalf("after re-create: %q %v", rows, err)
	}

	// DDL earlier in the same transaction.
	exec(t, c, "BEGIN")
	for i := 0; i < 3; i++ {
		execParams(t, c, q, "2")
	}
	exec(t, c, "DROP TABLE t")
	exec(t, c, "CREATE TABLE t (id text, z int, extra bool)")
	exec(t, c, "INSERT INTO t VALUES ('2', 5, true)")
	if fds, rows, err := execParams(t, c, q, "2"); err != nil || fieldNames(fds) != "id:25,z:23,extra:16" || rows != "2|5|t" {
		t.Fatalf("after re-create in the transaction: %s %q %v", fieldNames(fds), rows, err)
	}
	exec(t, c, "ROLLBACK")
	if fds, _, err := execParams(t, c, q, "2"); err != nil || fieldNames(fds) != "id:25,z:23" {
		t.Fatalf("after ROLLBACK: %s %v", fieldNames(fds), err)
	}
	// A dropped table is an error at Parse again.
	exec(t, other, "DROP TABLE t")
	_, _, err := execParams(t, c, q, "2")
	wantState(t, "after DROP TABLE", err, "42P01")
}

func bindExec(stmt, portal string, maxRows uint32, params ...string) []pgproto3.FrontendMessage {
	ps := make([][]byte, len(params))
	for i, p := range params {
		ps[i] = []byte(p)
	}
	return []pgproto3.FrontendMessage{
		&pgproto3.Bind{DestinationPortal: portal, PreparedStatement: stmt, Parameters: ps},
		&pgproto3.Execute{Portal: portal, MaxRows: maxRows},
	}
}

// TestStmtCachePlanReuse: a prepared statement's kept plan gives each
// execution its own parameters, serves one portal at a time, and is
// dropped after DDL.
func TestStmtCachePlanReuse(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	other := connect(t, s.DSN())
	exec(t, other, "CREATE TABLE big (i int4, v text)")
	exec(t, other, "INSERT INTO big SELECT i, 'v' || i FROM generate_series(1, 10) AS i")
	exec(t, other, "CREATE INDEX big_i ON big (i)")
	r := newRawConn(t, c)
	r.expect("1 Z"+"I", &pgproto3.Parse{Name: "s1", Query: "SELECT i FROM big WHERE i > $1"}, &pgproto3.Sync{})
	for _, p := range []string{"8", "9", "7"} {
		want := map[string]string{"8": "2 D9 D10 C SELECT 2 ZI", "9": "2 D10 C SELECT 1 ZI", "7": "2 D8 D9 D10 C SELECT 3 ZI"}[p]
		r.expect(want, append(bindExec("s1", "", 0, p), &pgproto3.Sync{})...)
	}
	// Two portals of the statement at once: the second cannot borrow the
	// plan the first is suspended in.
	r.expect("C BEGIN ZT", &pgproto3.Query{String: "BEGIN"})
	r.expect("2 D4 D5 s ZT", append(bindExec("s1", "p1", 2, "3"), &pgproto3.Sync{})...)
	r.expect("2 D9 D10 C SELECT 2 ZT", append(bindExec("s1", "p2", 0, "8"), &pgproto3.Sync{})...)
	r.expect("D6 D7 D8 D9 D10 C SELECT 5 ZT", &pgproto3.Execute{Portal: "p1"}, &pgproto3.Sync{})
	r.expect("C COMMIT ZI", &pgproto3.Query{String: "COMMIT"})

	// An UPDATE run from a kept plan, many times.
	r.expect("1 ZI", &pgproto3.Parse{Name: "u1", Query: "UPDATE big SET i = i + $1 WHERE v = $2"}, &pgproto3.Sync{})
	for k := 1; k <= 10; k++ {
		r.expect("2 C UPDATE 1 ZI", append(bindExec("u1", "", 0, fmt.Sprint(100*k), fmt.Sprintf("v%d", k)), &pgproto3.Sync{})...)
	}
	if got := query(t, other, "SELECT sum(i) FROM big"); got != "5555" {
		t.Fatalf("sum after updates: %s", got)
	}

	// DDL by another session: the dropped index must not be used.
	exec(t, other, "DROP INDEX big_i")
	r.expect("2 D1010 C SELECT 1 ZI", append(bindExec("s1", "", 0, "1000"), &pgproto3.Sync{})...)
	// A new table under the old name, with another result type.
	exec(t, other, "DROP TABLE big")
	exec(t, other, "CREATE TABLE big (i int8, v text)")
	exec(t, other, "INSERT INTO big VALUES (5, 'x')")
	r.expect("2 E 0A000 ZI", append(bindExec("s1", "", 0, "1"), &pgproto3.Sync{})...)
	r.expect("2 C UPDATE 1 ZI", append(bindExec("u1", "", 0, "1", "x"), &pgproto3.Sync{})...)
	if got := query(t, other, "SELECT i FROM big"); got != "6" {
		t.Fatalf("after update on the new table: %s", got)
	}
}
