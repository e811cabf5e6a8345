package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	_ "github.com/lib/pq"

	"github.com/tidal-db/tidal/internal/testutil"
)

// connectExt connects with pgx's default configuration: extended protocol,
// statement cache, binary formats where pgx prefers them.
func connectExt(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	t.Cleanup(cancel)
	return ctx
}

const allTypesDDL = `CREATE TABLE alltypes (
	id int4 PRIMARY KEY, b bool, ba bytea, ch "char", nm name, i2 int2, i8 int8, tx text,
	o oid, f4 float4, f8 float8, bp char(4), vc varchar(10), ts timestamp, tz timestamptz)`

// TestExtendedPgxTypes round-trips every supported type through pgx's
// extended protocol, as parameters and results, in pgx's preferred formats
// (binary for numbers, bool, bytea, timestamps) and forced text.
func TestExtendedPgxTypes(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	if _, err := c.Exec(ctx, allTypesDDL); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		if _, err := c.Exec(ctx, "DELETE FROM alltypes"); err != nil {
			t.Fatal(err)
		}
		_, err := c.Exec(ctx, `INSERT INTO alltypes VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`,
			mode, 1, true, []byte{0, 1, 0xff}, "x", "nm", int16(-3), int64(math.MinInt64), "héllo",
			uint32(4000000000), float32(1.5), math.Pi, "ab", "vc", ts, ts)
		if err != nil {
			t.Fatalf("mode %v: insert: %v", mode, err)
		}
		if _, err := c.Exec(ctx, `INSERT INTO alltypes (id) VALUES ($1)`, mode, 2); err != nil {
			t.Fatalf("mode %v: insert nulls: %v", mode, err)
		}
		var (
			id        int32
			b         bool
			ba        []byte
			ch        string
			nm        string
			i2        int16
			i8        int64
			tx        string
			o         uint32
			f4        float32
			f8        float64
			bp, vc    string
			gts, gtz  time.Time
			nullCount int
		)
		row := c.QueryRow(ctx, `SELECT id, b, ba, ch, nm, i2, i8, tx, o, f4, f8, bp, vc, ts, tz FROM alltypes WHERE id = $1`, mode, 1)
		if err := row.Scan(&id, &b, &ba, &ch, &nm, &i2, &i8, &tx, &o, &f4, &f8, &bp, &vc, &gts, &gtz); err != nil {
			t.Fatalf("mode %v: select: %v", mode, err)
		}
		got := fmt.Sprint(id, b, ba, ch, nm, i2, i8, tx, o, f4, f8, bp, vc, gts.UTC().Format(time.RFC3339Nano), gtz.UTC().Format(time.RFC3339Nano))
		want := fmt.Sprint(int32(1), true, []byte{0, 1, 0xff}, "x", "nm", int16(-3), int64(math.MinInt64), "héllo", uint32(4000000000), float32(1.5), math.Pi, "ab  ", "vc",
			ts.Format(time.RFC3339Nano), ts.Format(time.RFC3339Nano))
		if got != want {
			t.Errorf("mode %v:\n got %s\nwant %s", mode, got, want)
		}
		var vals []any
		rows, err := c.Query(ctx, `SELECT b, ba, ch, nm, i2, i8, tx, o, f4, f8, bp, vc, ts, tz FROM alltypes WHERE id = $1`, mode, 2)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals, err = rows.Values()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		for _, v := range vals {
			if v == nil {
				nullCount++
			}
		}
		if nullCount != 14 {
			t.Errorf("mode %v: NULL row = %v", mode, vals)
		}
	}

	// Text result format for every type (pgx: QueryResultFormats).
	var texts [15]string
	dst := make([]any, 15)
	for i := range texts {
		dst[i] = &texts[i]
	}
	err := c.QueryRow(ctx, `SELECT id::text, b::text, ba::text, ch::text, nm::text, i2::text, i8::text, tx, o::text, f4::text, f8::text, bp::text, vc::text, ts::text, tz::text FROM alltypes WHERE id = 1`).Scan(dst...)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts[:], "|"); got != `1|true|\x0001ff|x|nm|-3|-9223372036854775808|héllo|4000000000|1.5|3.141592653589793|ab|vc|2024-02-29 12:34:56.789|2024-02-29 12:34:56.789+00` {
		t.Errorf("text casts = %s", got)
	}
	// Forced text results of typed columns.
	var i2s, tss string
	if err := c.QueryRow(ctx, `SELECT i2, ts FROM alltypes WHERE id = 1`, pgx.QueryResultFormats{pgx.TextFormatCode, pgx.TextFormatCode}).Scan(&i2s, &tss); err != nil {
		t.Fatal(err)
	}
	if i2s != "-3" || tss != "2024-02-29 12:34:56.789" {
		t.Errorf("text results: %q %q", i2s, tss)
	}
}

// TestExtendedParams covers parameter type inference in WHERE, INSERT,
// UPDATE and LIMIT, and statement re-planning after DDL.
func TestExtendedParams(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	mustExec := func(sql string, args ...any) pgconn.CommandTag {
		t.Helper()
		tag, err := c.Exec(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return tag
	}
	mustExec(`CREATE TABLE p (id int8 PRIMARY KEY, name text, score float8, v varchar(5))`)
	for i := 1; i <= 20; i++ {
		mustExec(`INSERT INTO p (id, name, score, v) VALUES ($1, $2, $3, $4)`, i, fmt.Sprintf("n%d", i), float64(i)/2, "v")
	}
	if tag := mustExec(`UPDATE p SET score = score + $1, name = $2 WHERE id > $3`, 100.0, "big", 15); tag.String() != "UPDATE 5" {
		t.Errorf("update tag %q", tag)
	}
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM p WHERE score > $1 AND name = $2`, 100, "big").Scan(&n); err != nil || n != 5 {
		t.Errorf("count = %d, %v", n, err)
	}
	rows, err := c.Query(ctx, `SELECT id FROM p WHERE id * $1 > $2 ORDER BY id LIMIT $3 OFFSET $4`, 2, 10, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || !reflect.DeepEqual(ids, []int64{7, 8, 9}) {
		t.Errorf("limit ids = %v, %v", ids, err)
	}
	// Parameter types as the server describes them.
	sd, err := c.Prepare(ctx, "q1", `SELECT name FROM p WHERE id = $1 AND score < $2 AND name <> $3 LIMIT $4`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sd.ParamOIDs); got != "[20 701 25 20]" {
		t.Errorf("param OIDs %s", got)
	}
	if len(sd.Fields) != 1 || sd.Fields[0].DataTypeOID != 25 || string(sd.Fields[0].Name) != "name" {
		t.Errorf("fields %+v", sd.Fields)
	}
	sd, err = c.Prepare(ctx, "q2", `INSERT INTO p (id, v) VALUES ($1, $2) RETURNING id, $3`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sd.ParamOIDs); got != "[20 1043 25]" {
		t.Errorf("insert param OIDs %s", got)
	}
	// varchar(5) is enforced on parameters too.
	if _, err := c.Exec(ctx, `INSERT INTO p (id, v) VALUES ($1, $2)`, 100, "toolong"); sqlState(err) != "22001" {
		t.Errorf("varchar(5) overflow: %v", err)
	}
	// A NULL parameter.
	var name *string
	if err := c.QueryRow(ctx, `SELECT $1::text`, nil).Scan(&name); err != nil || name != nil {
		t.Errorf("NULL param: %v %v", name, err)
	}
	// Statement cache across DDL: the cached statement is re-planned.
	if err := c.QueryRow(ctx, `SELECT count(*) FROM p WHERE id < $1`, 5).Scan(&n); err != nil || n != 4 {
		t.Fatalf("count = %d, %v", n, err)
	}
	mustExec(`CREATE INDEX p_score ON p (score)`)
	if err := c.QueryRow(ctx, `SELECT count(*) FROM p WHERE id < $1`, 6).Scan(&n); err != nil || n != 5 {
		t.Fatalf("count after DDL = %d, %v", n, err)
	}
	// Unknown statement parameters default to text.
	var s1 string
	if err := c.QueryRow(ctx, `SELECT $1`, "hello").Scan(&s1); err != nil || s1 != "hello" {
		t.Errorf("SELECT $1 = %q, %v", s1, err)
	}
	// SHOW and EXPLAIN through the extended protocol describe their rows.
	var tz string
	if err := c.QueryRow(ctx, `SHOW TimeZone`).Scan(&tz); err != nil || tz == "" {
		t.Errorf("SHOW: %q %v", tz, err)
	}
	var plan string
	if err := c.QueryRow(ctx, `EXPLAIN SELECT * FROM p WHERE id = 1`).Scan(&plan); err != nil || !strings.Contains(plan, "p_pkey") {
		t.Errorf("EXPLAIN: %q %v", plan, err)
	}
}

// TestExtendedTransactions: batches run in one implicit transaction,
// errors mid-batch roll it back, explicit blocks work as with simple query.
func TestExtendedTransactions(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	if _, err := c.Exec(ctx, `CREATE TABLE tx (id int4 PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	// A pipelined batch: the second insert fails (duplicate key); the whole
	// implicit transaction is rolled back and the third never runs.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO tx VALUES ($1)`, 1)
	b.Queue(`INSERT INTO tx VALUES ($1)`, 1)
	b.Queue(`INSERT INTO tx VALUES ($1)`, 2)
	err := c.SendBatch(ctx, b).Close()
	if sqlState(err) != "23505" {
		t.Fatalf("batch error %v", err)
	}
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after failed batch = %d, %v", n, err)
	}
	if txStatus(c) != 'I' {
		t.Fatalf("status %c", txStatus(c))
	}
	// A good batch commits at Sync.
	b = &pgx.Batch{}
	for i := 1; i <= 3; i++ {
		b.Queue(`INSERT INTO tx VALUES ($1)`, i)
	}
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows = %d, %v", n, err)
	}
	// Explicit block with parameters, error, then 25P02 and rollback.
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tx VALUES ($1)`, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tx VALUES ($1)`, 10); sqlState(err) != "23505" {
		t.Fatalf("dup in block: %v", err)
	}
	if txStatus(c) != 'E' {
		t.Fatalf("status %c, want E", txStatus(c))
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tx VALUES ($1)`, 11); sqlState(err) != "25P02" {
		t.Fatalf("in failed block: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows after rollback = %d, %v", n, err)
	}
	// A committed block.
	err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO tx VALUES ($1)`, 20)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM tx WHERE id = $1`, 20).Scan(&n); err != nil || n != 1 {
		t.Fatalf("committed row = %d, %v", n, err)
	}
	// Errors at Parse (unknown table) and Bind (bad text input).
	if _, err := c.Exec(ctx, `SELECT * FROM nosuch WHERE id = $1`, 1); sqlState(err) != "42P01" {
		t.Errorf("parse error: %v", err)
	}
	if _, err := c.Exec(ctx, `SELECT * FROM tx WHERE id = $1::int4`, pgx.QueryExecModeExec, "abc"); sqlState(err) != "22P02" {
		t.Errorf("bind error: %v", err)
	}
	wantUsable(t, c)
}

// rawExt drives the extended protocol message by message through pgconn.
func TestExtendedRawPortalSuspension(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connectExt(t, s.DSN())
	ctx := tctx(t)
	if _, err := c.Exec(ctx, `CREATE TABLE big (i int4)`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, `INSERT INTO big SELECT i FROM generate_series(1, 10) AS i`); err != nil {
		t.Fatal(err)
	}
	r := newRawConn(t, c)
	send, recv, expect := r.send, r.recv, func(want string) {
		t.Helper()
		if got := r.recv(); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	send(
		&pgproto3.Parse{Name: "s1", Query: "SELECT i FROM big WHERE i > $1 ORDER BY i"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s1"},
		&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "s1", Parameters: [][]byte{[]byte("3")}},
		&pgproto3.Describe{ObjectType: 'P', Name: "p1"},
		&pgproto3.Execute{Portal: "p1", MaxRows: 3},
		&pgproto3.Execute{Portal: "p1", MaxRows: 3},
		&pgproto3.Execute{Portal: "p1", MaxRows: 1},
		&pgproto3.Execute{Portal: "p1"},
		&pgproto3.Sync{},
	)
	// Each CommandComplete counts its own Execute's rows, as PostgreSQL's.
	expect("1 t[23] T1 2 T1 D4 D5 D6 s D7 D8 D9 s D10 s C SELECT 0 Z" + "I")
	// Exactly maxRows left: suspended, then an empty completion.
	send(
		&pgproto3.Bind{PreparedStatement: "s1", Parameters: [][]byte{[]byte("8")}},
		&pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{MaxRows: 2},
		&pgproto3.Sync{},
	)
	expect("2 D9 D10 s C SELECT 0 ZI")
	// An explicit block: a portal survives Sync; interleaved with another
	// statement; the portal ends with the block.
	send(
		&pgproto3.Query{String: "BEGIN"},
	)
	recv()
	send(
		&pgproto3.Bind{DestinationPortal: "p2", PreparedStatement: "s1", Parameters: [][]byte{[]byte("0")}},
		&pgproto3.Execute{Portal: "p2", MaxRows: 2},
		&pgproto3.Sync{},
	)
	expect("2 D1 D2 s ZT")
	send(
		&pgproto3.Parse{Query: "INSERT INTO big VALUES (100)"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Execute{Portal: "p2", MaxRows: 20},
		&pgproto3.Sync{},
	)
	// The portal's snapshot predates the insert: 100 is not seen.
	expect("1 2 C INSERT 0 1 D3 D4 D5 D6 D7 D8 D9 D10 C SELECT 8 ZT")
	send(&pgproto3.Query{String: "ROLLBACK"})
	recv()
	send(&pgproto3.Execute{Portal: "p2"}, &pgproto3.Sync{})
	expect("E 34000 ZI")
	// An error mid-batch skips to Sync; the batch's earlier insert is
	// rolled back.
	send(
		&pgproto3.Parse{Name: "ins", Query: "INSERT INTO big VALUES ($1)"},
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: [][]byte{[]byte("500")}},
		&pgproto3.Execute{},
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: [][]byte{[]byte("x")}},
		&pgproto3.Execute{},
		&pgproto3.Bind{PreparedStatement: "ins", Parameters: [][]byte{[]byte("501")}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect("1 2 C INSERT 0 1 E 22P02 ZI")
	send(
		&pgproto3.Parse{Query: "SELECT count(*) FROM big WHERE i >= 500"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect("1 2 D0 C SELECT 1 ZI")
	// Binary parameter, wrong length; Describe of a missing statement;
	// Close of unknown names is fine; empty query.
	send(
		&pgproto3.Bind{PreparedStatement: "ins", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 1}}},
		&pgproto3.Sync{},
		&pgproto3.Describe{ObjectType: 'S', Name: "nope"},
		&pgproto3.Sync{},
		&pgproto3.Close{ObjectType: 'S', Name: "nope"},
		&pgproto3.Close{ObjectType: 'P', Name: "nope"},
		&pgproto3.Parse{Query: ""},
		&pgproto3.Bind{},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect("E 08P01 ZI")
	expect("E 26000 ZI")
	expect("3 3 1 2 n I ZI")
	// Bind with the wrong number of parameters.
	send(&pgproto3.Bind{PreparedStatement: "ins"}, &pgproto3.Sync{})
	expect("E 08P01 ZI")
	// A statement without rows describes as NoData.
	send(&pgproto3.Describe{ObjectType: 'S', Name: "ins"}, &pgproto3.Sync{})
	expect("t[23] n ZI")
	// Binary results: int2vector and the other types' send formats.
	send(
		&pgproto3.Parse{Query: "SELECT '1 2'::int2vector, 7::int2, 'x'::name, true, 1.5::float4"},
		&pgproto3.Bind{ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	for _, m := range []string{"ParseComplete", "BindComplete", "DataRow"} {
		msg, err := r.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if dr, ok := msg.(*pgproto3.DataRow); ok {
			got := fmt.Sprintf("%x", dr.Values)
			if got != "[0000000100000000000000150000000200000000000000020001000000020002 0007 78 01 3fc00000]" {
				t.Errorf("binary row %s", got)
			}
		} else if !strings.HasSuffix(fmt.Sprintf("%T", msg), m) {
			t.Fatalf("got %T, want %s", msg, m)
		}
	}
	expect("C SELECT 1 ZI")
	// SQL-level PREPARE / EXECUTE / DEALLOCATE.
	send(&pgproto3.Query{String: "PREPARE pq(int4) AS SELECT i FROM big WHERE i = $1"})
	expect("C PREPARE ZI")
	send(&pgproto3.Query{String: "EXECUTE pq(7)"})
	expect("T1 D7 C SELECT 1 ZI")
	send(&pgproto3.Query{String: "DEALLOCATE pq"})
	expect("C DEALLOCATE ZI")
	send(&pgproto3.Query{String: "EXECUTE pq(7)"})
	expect("E 26000 ZI")
}

// TestLibPQ round-trips every type through lib/pq (unnamed statements,
// text parameters and results).
func TestLibPQ(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	db, err := sql.Open("postgres", s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := tctx(t)
	if _, err := db.ExecContext(ctx, allTypesDDL); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC)
	_, err = db.ExecContext(ctx, `INSERT INTO alltypes VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`,
		1, true, []byte{0, 1, 0xff}, "x", "nm", -3, int64(math.MinInt64), "héllo", 4000000000, 1.5, math.Pi, "ab", "vc", ts, ts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO alltypes (id) VALUES ($1)`, 2); err != nil {
		t.Fatal(err)
	}
	var (
		b      bool
		ba     []byte
		ch, nm string
		i2, i8 int64
		tx     string
		o      int64
		f4, f8 float64
		bp, vc string
		gts    time.Time
		gtz    time.Time
	)
	err = db.QueryRowContext(ctx, `SELECT b, ba, ch, nm, i2, i8, tx, o, f4, f8, bp, vc, ts, tz FROM alltypes WHERE id = $1`, 1).
		Scan(&b, &ba, &ch, &nm, &i2, &i8, &tx, &o, &f4, &f8, &bp, &vc, &gts, &gtz)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(b, ba, ch, nm, i2, i8, tx, o, f4, f8, bp, vc, gts.UTC().Format(time.RFC3339Nano), gtz.UTC().Format(time.RFC3339Nano))
	want := fmt.Sprint(true, []byte{0, 1, 0xff}, "x", "nm", -3, int64(math.MinInt64), "héllo", 4000000000, 1.5, math.Pi, "ab  ", "vc", ts.Format(time.RFC3339Nano), ts.Format(time.RFC3339Nano))
	if got != want {
		t.Errorf("lib/pq:\n got %s\nwant %s", got, want)
	}
	var nb sql.NullBool
	var ns sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT b, tx FROM alltypes WHERE id = $1`, 2).Scan(&nb, &ns); err != nil || nb.Valid || ns.Valid {
		t.Errorf("NULLs: %v %v %v", nb, ns, err)
	}
	// Prepared statement reused; UPDATE with parameters; transaction.
	st, err := db.PrepareContext(ctx, `UPDATE alltypes SET i8 = i8 + $1 WHERE id = $2`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := st.ExecContext(ctx, 1, 2); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	dtx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dtx.ExecContext(ctx, `UPDATE alltypes SET tx = $1 WHERE id = $2`, "in tx", 2); err != nil {
		t.Fatal(err)
	}
	if err := dtx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT tx FROM alltypes WHERE id = $1`, 2).Scan(&ns); err != nil || ns.String != "in tx" {
		t.Errorf("after tx: %v %v", ns, err)
	}
	// Errors are reported and the connection stays usable.
	if _, err := db.ExecContext(ctx, `INSERT INTO alltypes (id) VALUES ($1)`, 1); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("duplicate: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM alltypes WHERE id < $1`, 10).Scan(&n); err != nil || n != 2 {
		t.Errorf("count %d %v", n, err)
	}
}

var _ = errors.New
