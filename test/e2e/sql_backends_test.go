package e2e

// The client stacks the SQL scripts (sql_test.go) run through.

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	tidal "github.com/tidal-db/tidal/driver"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/testutil"
)

// scriptClient runs one block's SQL (possibly several statements) and
// returns its rows formatted as in the scripts: columns joined by "|",
// NULL as "NULL".
type scriptClient interface {
	run(ctx context.Context, sql string) ([]string, error)
	close()
}

type sqlBackend struct {
	name     string
	embedded bool // no server: cannot run against PostgreSQL
	// open connects to a fresh database for one script: a new tidal
	// server or data directory, or (pgDSN set) PostgreSQL with a fresh
	// schema named after the script.
	// conf are the script's "# server:" settings.
	open func(t *testing.T, pgDSN, script string, conf map[string]string) scriptClient
}

var sqlBackends = []sqlBackend{
	{name: "pgx", open: func(t *testing.T, pgDSN, script string, conf map[string]string) scriptClient {
		c, err := pgconn.Connect(context.Background(), scriptServerDSN(t, pgDSN, conf))
		if err != nil {
			t.Fatal(err)
		}
		client := pgxScriptClient{c}
		useScriptSchema(t, client, pgDSN, script)
		return client
	}},
	{name: "libpq", open: func(t *testing.T, pgDSN, script string, conf map[string]string) scriptClient {
		client := openSQLScriptClient(t, "postgres", scriptServerDSN(t, pgDSN, conf))
		useScriptSchema(t, client, pgDSN, script)
		return client
	}},
	{name: "embedded", embedded: true, open: func(t *testing.T, _, _ string, conf map[string]string) scriptClient {
		return openSQLScriptClient(t, "tidal", embeddedDSN(filepath.Join(t.TempDir(), "data"), conf))
	}},
}

// scriptServerDSN is PostgreSQL's DSN, or a fresh tidal server's with
// the script's settings.
func scriptServerDSN(t *testing.T, pgDSN string, conf map[string]string) string {
	if pgDSN != "" {
		return pgDSN
	}
	return testutil.Start(t, testutil.Options{SharedBuffers: 16 << 20, Conf: conf}).DSN()
}

// embeddedDSN opens data directory dir with the embedded driver, with the
// settings of conf and the suite's default table AM (TIDAL_TEST_TABLE_AM,
// as testutil.Start) unless conf names one.
func embeddedDSN(dir string, conf map[string]string) string {
	vals := url.Values{"shared_buffers": {"16MB"}, "fsync": {"off"}, "autovacuum": {"off"}}
	if am := os.Getenv("TIDAL_TEST_TABLE_AM"); am != "" {
		vals.Set("default_table_access_method", am)
	}
	for k, v := range conf {
		vals.Set(k, v)
	}
	return dir + "?" + vals.Encode()
}

// useScriptSchema gives a script its own schema on PostgreSQL, where the
// database is shared by every run.
func useScriptSchema(t *testing.T, c scriptClient, pgDSN, script string) {
	if pgDSN == "" {
		return
	}
	schema := "sqltest_" + strings.ReplaceAll(script, "-", "_")
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS " + schema + " CASCADE",
		"CREATE SCHEMA " + schema,
		"SET search_path = " + schema + ", public",
	} {
		if _, err := c.run(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// anySQLState is the SQLSTATE of an error from any of the three drivers.
func anySQLState(err error) string {
	var pgxErr *pgconn.PgError
	var pqErr *pq.Error
	var tidalErr *tidal.Error
	switch {
	case errors.As(err, &pgxErr):
		return pgxErr.Code
	case errors.As(err, &pqErr):
		return string(pqErr.Code)
	case errors.As(err, &tidalErr):
		return tidalErr.Code
	}
	return ""
}

// pgxScriptClient sends each block as one simple-protocol Query message
// and prints the text the server sent.
type pgxScriptClient struct{ c *pgconn.PgConn }

func (p pgxScriptClient) close() { p.c.Close(context.Background()) }

func (p pgxScriptClient) run(ctx context.Context, sql string) ([]string, error) {
	res, err := p.c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		for _, row := range r.Rows {
			cols := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					cols[i] = "NULL"
				} else {
					cols[i] = string(v)
				}
			}
			out = append(out, strings.Join(cols, "|"))
		}
	}
	return out, nil
}

// sqlScriptClient runs blocks through database/sql on one pinned
// connection (session state such as SET and BEGIN must stay on it). A query
// without arguments goes through each driver's simple-query path, so a
// block of several statements works and yields one result set each.
type sqlScriptClient struct {
	db   *sql.DB
	conn *sql.Conn
}

func openSQLScriptClient(t *testing.T, driverName, dsn string) *sqlScriptClient {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return &sqlScriptClient{db: db, conn: conn}
}

func (s *sqlScriptClient) close() {
	s.conn.Close()
	s.db.Close()
}

func (s *sqlScriptClient) run(ctx context.Context, query string) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for {
		colTypes, err := rows.ColumnTypes()
		if err != nil {
			return nil, err
		}
		vals := make([]any, len(colTypes))
		ptrs := make([]any, len(colTypes))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			cols := make([]string, len(vals))
			for i, v := range vals {
				cols[i], err = formatGoValue(colTypes[i].DatabaseTypeName(), v)
				if err != nil {
					return nil, fmt.Errorf("column %d (%s): %w", i+1, colTypes[i].Name(), err)
				}
			}
			out = append(out, strings.Join(cols, "|"))
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if !rows.NextResultSet() {
			break
		}
	}
	return out, rows.Err()
}

// formatGoValue prints a value a database/sql driver returned for a column
// of type typeName (the driver's DatabaseTypeName) as PostgreSQL prints it
// (DateStyle ISO, extra_float_digits 1).
func formatGoValue(typeName string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return x, nil
	case []byte:
		if typeName == "BYTEA" {
			return `\x` + hex.EncodeToString(x), nil
		}
		return string(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		if x {
			return "t", nil
		}
		return "f", nil
	case float64:
		switch typeName {
		case "FLOAT4":
			// Drivers parse float4 text as a float64 ("0.1" → 0.1, not
			// float32(0.1)); its float4 is the value the server sent.
			return types.FormatText(types.Float4, types.Float(float64(float32(x)))), nil
		case "FLOAT8":
			return types.FormatText(types.Float8, types.Float(x)), nil
		}
	case time.Time:
		switch typeName {
		case "DATE":
			return pgDateTime(x, true, false, false), nil
		case "TIMESTAMP":
			return pgDateTime(x, true, true, false), nil
		case "TIMESTAMPTZ":
			return pgDateTime(x, true, true, true), nil
		case "TIME":
			return pgDateTime(x, false, true, false), nil
		case "TIMETZ":
			return pgDateTime(x, false, true, true), nil
		}
	}
	return "", fmt.Errorf("unexpected Go value %T %v for a %s column", v, v, typeName)
}

// pgDateTime prints t as DateStyle ISO does: date, time of day with the
// fraction's trailing zeros cut, UTC offset as "+HH", "+HH:MM" or
// "+HH:MM:SS", and " BC" last for years before 1.
func pgDateTime(t time.Time, date, clock, zone bool) string {
	var parts []string
	bc := false
	if date {
		y, m, d := t.Date()
		if y <= 0 {
			y, bc = 1-y, true
		}
		parts = append(parts, fmt.Sprintf("%04d-%02d-%02d", y, m, d))
	}
	if clock {
		s := fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		if us := t.Nanosecond() / 1000; us != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%06d", us), "0")
		}
		if zone {
			_, off := t.Zone()
			sign := "+"
			if off < 0 {
				sign, off = "-", -off
			}
			s += fmt.Sprintf("%s%02d", sign, off/3600)
			if off%3600 != 0 {
				s += fmt.Sprintf(":%02d", off%3600/60)
				if off%60 != 0 {
					s += fmt.Sprintf(":%02d", off%60)
				}
			}
		}
		parts = append(parts, s)
	}
	if bc {
		parts = append(parts, "BC")
	}
	return strings.Join(parts, " ")
}
