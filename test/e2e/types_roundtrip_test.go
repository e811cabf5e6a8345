package e2e

// Type round trips through real client drivers. Every file in
// testdata/types holds one case per line, tab-separated:
//
//	<sql type name>	<input literal>	<expected text output>
//
// (lines starting with "#" are comments; the input is the literal's
// content, quotes are doubled by the harness). The expected output is
// PostgreSQL 15's, with TimeZone UTC and DateStyle ISO. A file containing
// the line
//
//	#! values only: <why>
//
// declares that tidal cannot store its types in table columns yet: step
// (c) below is left out against tidal (never against PostgreSQL). Remove
// the line when the limitation goes.
//
// TestTypesRoundTripPgx uses pgx with its default configuration: extended
// protocol, statement cache, binary formats wherever pgx has a binary codec
// for the OID. For each case it checks that SELECT '<input>'::<type> prints
// the expected text (text result format), then
//
//	(a) runs the same SELECT and takes the Go value pgx decodes for the
//	    column's OID (which must be the type's OID),
//	(b) sends that value back as a parameter, SELECT $1::<type>, and
//	    compares the text output (text result format) with the expected,
//	(c) inserts it into a table column of the type through a parameter and
//	    reads it back: the same OID, the same Go value, the same text.
//
// (b) sends the value in text format where pgx has no binary codec. Some
// values do not survive pgx's natural Go type (json's spacing and key
// order, a numeric zero's scale): see pgxRoundTrip for how they are checked.
//
// TestTypesRoundTripLibPQ does the same through database/sql with lib/pq
// (text formats, values as lib/pq returns them), and
// TestTypesRoundTripEmbedded through database/sql with the embedded driver.
//
// With TIDAL_SQLTEST_PG set (as for the SQL scripts) both run against
// PostgreSQL instead, which checks the files:
//
//	TIDAL_SQLTEST_PG='postgres://postgres@127.0.0.1:54315/postgres' go test ./test/e2e -run TestTypesRoundTrip

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

type typeCase struct {
	where      string // file:line
	valuesOnly bool   // the file's "#! values only" (a tidal limitation)
	typ        string // SQL spelling, e.g. varchar(5), int4[], "char"
	input      string
	want       string
}

func readTypeCases(t *testing.T, path string) []typeCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []typeCase
	valuesOnly := os.Getenv("TIDAL_SQLTEST_PG") == "" && strings.Contains(string(data), "\n#! values only:")
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("%s:%d: want 3 tab-separated fields, got %d", path, i+1, len(f))
		}
		cases = append(cases, typeCase{valuesOnly: valuesOnly, where: fmt.Sprintf("%s:%d", filepath.Base(path), i+1), typ: f[0], input: f[1], want: f[2]})
	}
	return cases
}

// typeFiles are the case files, each with its cases.
func typeFiles(t *testing.T) map[string][]typeCase {
	files, err := filepath.Glob("testdata/types/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no type files: %v", err)
	}
	out := map[string][]typeCase{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), ".txt")] = readTypeCases(t, f)
	}
	return out
}

// typeNameAliases maps SQL spellings of types to their pg_type names.
var typeNameAliases = map[string]string{
	"int": "int4", "integer": "int4", "smallint": "int2", "bigint": "int8",
	"real": "float4", "double precision": "float8", "boolean": "bool",
	"character varying": "varchar", "character": "bpchar", "char": "bpchar",
	`"char"`: "char", "decimal": "numeric",
	"timestamp with time zone": "timestamptz", "timestamp without time zone": "timestamp",
	"time with time zone": "timetz", "time without time zone": "time",
}

var (
	typmods = regexp.MustCompile(`\s*\([^)]*\)`)
	spaces  = regexp.MustCompile(`\s+`)
)

// pgTypeName is the pg_type name of a SQL type spelling: typmods
// (numeric(5,-2), timestamp(3) with time zone) and interval fields (interval
// day to second) dropped, aliases resolved, "_" before the element type of
// an array.
func pgTypeName(sqlType string) string {
	name := strings.ToLower(strings.TrimSpace(sqlType))
	array := strings.HasSuffix(name, "[]")
	name = strings.TrimSuffix(name, "[]")
	name = spaces.ReplaceAllString(strings.TrimSpace(typmods.ReplaceAllString(name, " ")), " ")
	if strings.HasPrefix(name, "interval") {
		name = "interval"
	}
	if a, ok := typeNameAliases[name]; ok {
		name = a
	}
	if array {
		name = "_" + name
	}
	return name
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// typeTestTarget is a fresh tidal server's DSN, or PostgreSQL's with a fresh
// schema (set through the connection's search_path option).
func typeTestTarget(t *testing.T, schema string) string {
	pgDSN := os.Getenv("TIDAL_SQLTEST_PG")
	if pgDSN == "" {
		return testutil.Start(t, testutil.Options{SharedBuffers: 16 << 20}).DSN()
	}
	c, err := pgx.Connect(context.Background(), pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(pgDSN, "?") {
		sep = "&"
	}
	return pgDSN + sep + "search_path=" + schema
}

// roundTripTables creates, once per type, the table its values go into.
type roundTripTables struct {
	names map[string]string
	exec  func(sql string) error
}

func (r *roundTripTables) table(typ string) (string, error) {
	if name, ok := r.names[typ]; ok {
		return name, nil
	}
	name := fmt.Sprintf("roundtrip_%d", len(r.names)+1)
	if err := r.exec(fmt.Sprintf("CREATE TABLE %s (id int, v %s)", name, typ)); err != nil {
		return "", fmt.Errorf("create table for %s: %w", typ, err)
	}
	r.names[typ] = name
	return name, nil
}

func TestTypesRoundTripPgx(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, typeTestTarget(t, "typetest_pgx"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tables := &roundTripTables{names: map[string]string{}, exec: func(q string) error { _, err := conn.Exec(ctx, q); return err }}
	id := 0
	for file, cases := range typeFiles(t) {
		t.Run(file, func(t *testing.T) {
			for _, c := range cases {
				id++
				note, err := pgxRoundTrip(ctx, conn, tables, id, c)
				if err != nil {
					t.Errorf("%s: %s %s: %v", c.where, c.typ, sqlQuote(c.input), err)
				} else if note != "" {
					t.Logf("%s: %s %s: %s", c.where, c.typ, sqlQuote(c.input), note)
				}
			}
		})
	}
}

// pgxValue runs a one-column query and returns the column's OID, the Go
// value pgx decodes and the raw bytes the server sent.
func pgxValue(ctx context.Context, conn *pgx.Conn, q string, args ...any) (oid uint32, format int16, val any, raw []byte, err error) {
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, 0, nil, nil, err
		}
		return 0, 0, nil, nil, fmt.Errorf("%s: no row", q)
	}
	fd := rows.FieldDescriptions()[0]
	vals, err := rows.Values()
	if err != nil {
		return 0, 0, nil, nil, fmt.Errorf("%s: decode: %w", q, err)
	}
	raw = append([]byte(nil), rows.RawValues()[0]...)
	rows.Close()
	return fd.DataTypeOID, fd.Format, vals[0], raw, rows.Err()
}

// pgxRoundTrip runs the steps of one case. A value that pgx's natural Go
// type cannot hold exactly (a json text's spacing and key order, a numeric
// zero's scale, JSON null decoded as nil) is "lossy": pgx's own encoding of
// it differs from the bytes the server sent, whatever the server. When such
// a value does not come back as the file says, the output after (c) is
// compared with what the server made of the parameter in (b) instead, and
// note says why.
func pgxRoundTrip(ctx context.Context, conn *pgx.Conn, tables *roundTripTables, id int, c typeCase) (note string, err error) {
	pgType, ok := conn.TypeMap().TypeForName(pgTypeName(c.typ))
	if !ok {
		return "", fmt.Errorf("pgx does not know type %s", pgTypeName(c.typ))
	}
	textResult := pgx.QueryResultFormats{pgx.TextFormatCode}
	literal := "SELECT " + sqlQuote(c.input) + "::" + c.typ

	// The literal's text output is the file's.
	_, _, _, text, err := pgxValue(ctx, conn, literal, textResult)
	if err != nil {
		return "", fmt.Errorf("literal: %w", err)
	}
	if string(text) != c.want {
		return "", fmt.Errorf("literal: text %q, want %q", text, c.want)
	}

	// (a) The literal, decoded by OID.
	oid, format, v, raw, err := pgxValue(ctx, conn, literal)
	if err != nil {
		return "", fmt.Errorf("literal: %w", err)
	}
	if oid != pgType.OID {
		return "", fmt.Errorf("literal: column OID %d, want %d (%s)", oid, pgType.OID, pgType.Name)
	}
	want := c.want
	if v == nil {
		return "pgx decodes this value as nil: nothing to send back", nil
	}
	lossy := ""
	if enc, err := conn.TypeMap().Encode(oid, format, v, nil); err != nil || !bytes.Equal(enc, raw) {
		lossy = fmt.Sprintf("lossy in pgx: %T %v (format %d) encodes as %q, the server sent %q", v, v, format, enc, raw)
	}

	// (b) The Go value as a parameter.
	_, _, _, text, err = pgxValue(ctx, conn, "SELECT $1::"+c.typ, textResult, v)
	if err != nil {
		if lossy != "" {
			return lossy + "; pgx cannot send it back: " + err.Error(), nil
		}
		return "", fmt.Errorf("parameter %T %v: %w", v, v, err)
	}
	if string(text) != want && lossy != "" {
		note = lossy + fmt.Sprintf("; it comes back as %q", text)
		want = string(text)
	}
	if string(text) != want {
		return "", fmt.Errorf("parameter %T %v: text %q, want %q", v, v, text, want)
	}

	// (c) Stored in a column of the type, read back.
	if c.valuesOnly {
		return note, nil
	}
	table, err := tables.table(c.typ)
	if err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "INSERT INTO "+table+" (id, v) VALUES ($1, $2)", id, v); err != nil {
		return "", fmt.Errorf("insert %T %v: %w", v, v, err)
	}
	oid, _, back, _, err := pgxValue(ctx, conn, "SELECT v FROM "+table+" WHERE id = $1", id)
	if err != nil {
		return "", fmt.Errorf("stored: %w", err)
	}
	if oid != pgType.OID {
		return "", fmt.Errorf("stored: column OID %d, want %d (%s)", oid, pgType.OID, pgType.Name)
	}
	if got, sent := fmt.Sprintf("%T %v", back, back), fmt.Sprintf("%T %v", v, v); got != sent {
		return "", fmt.Errorf("stored: read back %s, sent %s", got, sent)
	}
	_, _, _, text, err = pgxValue(ctx, conn, "SELECT v FROM "+table+" WHERE id = $1", textResult, id)
	if err != nil {
		return "", fmt.Errorf("stored: %w", err)
	}
	if string(text) != want {
		return "", fmt.Errorf("stored: text %q, want %q", text, want)
	}
	return note, nil
}

func TestTypesRoundTripLibPQ(t *testing.T) {
	sqlRoundTrips(t, "postgres", typeTestTarget(t, "typetest_pq"))
}

// TestTypesRoundTripEmbedded runs the database/sql round trips through the
// embedded driver (tidal only).
func TestTypesRoundTripEmbedded(t *testing.T) {
	if os.Getenv("TIDAL_SQLTEST_PG") != "" {
		t.Skip("the embedded driver has no PostgreSQL to compare with")
	}
	sqlRoundTrips(t, "tidal", filepath.Join(t.TempDir(), "data")+"?shared_buffers=16MB&fsync=off")
}

func sqlRoundTrips(t *testing.T, driverName, dsn string) {
	ctx := context.Background()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables := &roundTripTables{names: map[string]string{}, exec: func(q string) error { _, err := conn.ExecContext(ctx, q); return err }}
	id := 0
	for file, cases := range typeFiles(t) {
		t.Run(file, func(t *testing.T) {
			for _, c := range cases {
				id++
				if err := libpqRoundTrip(ctx, conn, tables, id, c); err != nil {
					t.Errorf("%s: %s %s: %v", c.where, c.typ, sqlQuote(c.input), err)
				}
			}
		})
	}
}

// sqlValue runs a one-column query through database/sql and returns the
// column's type name and value.
func sqlValue(ctx context.Context, conn *sql.Conn, q string, args ...any) (string, any, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	colTypes, err := rows.ColumnTypes()
	if err != nil {
		return "", nil, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("%s: no row", q)
	}
	var v any
	if err := rows.Scan(&v); err != nil {
		return "", nil, err
	}
	return colTypes[0].DatabaseTypeName(), v, rows.Close()
}

func libpqRoundTrip(ctx context.Context, conn *sql.Conn, tables *roundTripTables, id int, c typeCase) error {
	wantName := strings.ToUpper(pgTypeName(c.typ))
	check := func(step, typeName string, v any) error {
		if typeName != wantName {
			return fmt.Errorf("%s: column type %s, want %s", step, typeName, wantName)
		}
		text, err := formatGoValue(typeName, v)
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		if text != c.want {
			return fmt.Errorf("%s: %T %v prints as %q, want %q", step, v, v, text, c.want)
		}
		return nil
	}
	typeName, v, err := sqlValue(ctx, conn, "SELECT "+sqlQuote(c.input)+"::"+c.typ)
	if err != nil {
		return fmt.Errorf("literal: %w", err)
	}
	if err := check("literal", typeName, v); err != nil {
		return err
	}
	typeName, back, err := sqlValue(ctx, conn, "SELECT $1::"+c.typ, v)
	if err != nil {
		return fmt.Errorf("parameter %T %v: %w", v, v, err)
	}
	if err := check("parameter", typeName, back); err != nil {
		return err
	}
	if c.valuesOnly {
		return nil
	}
	table, err := tables.table(c.typ)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO "+table+" (id, v) VALUES ($1, $2)", id, v); err != nil {
		return fmt.Errorf("insert %T %v: %w", v, v, err)
	}
	typeName, back, err = sqlValue(ctx, conn, "SELECT v FROM "+table+" WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("stored: %w", err)
	}
	return check("stored", typeName, back)
}
