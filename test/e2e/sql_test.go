package e2e

// Data-driven SQL tests: every file in testdata/sql is a script of blocks
// separated by blank lines. A block starts with a directive line:
//
//	statement ok        the SQL (rest of the block) must succeed
//	error SQLSTATE      the SQL must fail with this SQLSTATE
//	query               the SQL, a line "----", then the expected rows:
//	                    one line per row, columns joined by "|", NULL as
//	                    "NULL", text as the server sends it
//	query tidal         a query whose result is tidal's own (skipped
//	                    against PostgreSQL)
//
// Lines starting with "#" are comments. A file whose first line is
// "# tidal only" is skipped when the scripts run against PostgreSQL.
//
// The same scripts run against PostgreSQL 15 when TIDAL_SQLTEST_PG is set
// to a connection string (each file in a fresh schema), to check that the
// expected results are PostgreSQL's:
//
//	TIDAL_SQLTEST_PG='postgres://postgres@127.0.0.1:54315/postgres' go test ./test/e2e -run TestSQLScripts
//
// TIDAL_SQLTEST_REWRITE=1 rewrites the expected rows of every query with
// what the server returned (review the diff!).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

type sqlBlock struct {
	line      int
	directive string
	sql       string
	want      []string
}

func parseSQLScript(t *testing.T, path string) []sqlBlock {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []sqlBlock
	var cur *sqlBlock
	inResult := false
	flush := func() {
		if cur != nil {
			cur.sql = strings.TrimSpace(cur.sql)
			blocks = append(blocks, *cur)
		}
		cur, inResult = nil, false
	}
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			flush()
		case cur == nil && strings.HasPrefix(l, "#"):
		case cur == nil:
			cur = &sqlBlock{line: i + 1, directive: strings.TrimSpace(l)}
		case l == "----" && strings.HasPrefix(cur.directive, "query"):
			inResult = true
		case inResult:
			cur.want = append(cur.want, l)
		default:
			cur.sql += l + "\n"
		}
	}
	flush()
	return blocks
}

// runText runs sql with the simple protocol and formats its rows.
func runText(ctx context.Context, c *pgconn.PgConn, sql string) ([]string, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
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

func TestSQLScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/sql/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pgDSN := os.Getenv("TIDAL_SQLTEST_PG")
	var srv *testutil.Server
	if pgDSN == "" {
		srv = testutil.Start(t, testutil.Options{})
	}
	for _, f := range files {
		f := f
		t.Run(strings.TrimSuffix(filepath.Base(f), ".sql"), func(t *testing.T) {
			blocks := parseSQLScript(t, f)
			ctx := context.Background()
			dsn := pgDSN
			if srv != nil {
				dsn = srv.DSN()
			}
			c, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if pgDSN != "" {
				head, _ := os.ReadFile(f)
				if strings.HasPrefix(string(head), "# tidal only") {
					t.Skip("tidal only")
				}
				schema := "sqltest_" + strings.TrimSuffix(filepath.Base(f), ".sql")
				if _, err := runText(ctx, c, fmt.Sprintf("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s; SET search_path = %s, public", schema, schema, schema)); err != nil {
					t.Fatal(err)
				}
			} else {
				// Each script gets the tables it creates to itself.
				defer func() {
					for _, b := range blocks {
						if strings.HasPrefix(strings.ToUpper(b.sql), "CREATE TABLE ") {
							name := strings.Fields(b.sql)[2]
							if i := strings.IndexByte(name, '('); i >= 0 {
								name = name[:i]
							}
							runText(ctx, c, "DROP TABLE IF EXISTS "+name)
						}
					}
				}()
			}
			rewrite := os.Getenv("TIDAL_SQLTEST_REWRITE") != ""
			if rewrite {
				defer func() { rewriteScript(t, f, blocks) }()
			}
			for i, b := range blocks {
				where := fmt.Sprintf("%s:%d", f, b.line)
				if b.directive == "query tidal" {
					if pgDSN != "" {
						continue
					}
					b.directive = "query"
				}
				got, err := runText(ctx, c, b.sql)
				if rewrite && strings.HasPrefix(b.directive, "query") && err == nil {
					blocks[i].want = got
					continue
				}
				switch {
				case b.directive == "statement ok":
					if err != nil {
						t.Errorf("%s: %s: %v", where, b.sql, err)
					}
				case strings.HasPrefix(b.directive, "error "):
					want := strings.TrimSpace(strings.TrimPrefix(b.directive, "error "))
					var pe *pgconn.PgError
					if err == nil {
						t.Errorf("%s: %s: succeeded, want SQLSTATE %s", where, b.sql, want)
					} else if !asPgError(err, &pe) || pe.Code != want {
						t.Errorf("%s: %s: got %v, want SQLSTATE %s", where, b.sql, err, want)
					}
				case b.directive == "query":
					if err != nil {
						t.Errorf("%s: %s: %v", where, b.sql, err)
						continue
					}
					if strings.Join(got, "\n") != strings.Join(b.want, "\n") {
						t.Errorf("%s: %s\n got:\n%s\nwant:\n%s", where, b.sql, strings.Join(got, "\n"), strings.Join(b.want, "\n"))
					}
				default:
					t.Fatalf("%s: unknown directive %q", where, b.directive)
				}
			}
		})
	}
}

func asPgError(err error, pe **pgconn.PgError) bool {
	p, ok := err.(*pgconn.PgError)
	if ok {
		*pe = p
	}
	return ok
}

// rewriteScript writes blocks back to path, keeping its leading comments.
func rewriteScript(t *testing.T, path string, blocks []sqlBlock) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		b.WriteString(l + "\n")
	}
	for _, bl := range blocks {
		b.WriteString("\n" + bl.directive + "\n" + bl.sql + "\n")
		if strings.HasPrefix(bl.directive, "query") {
			b.WriteString("----\n")
			for _, w := range bl.want {
				b.WriteString(w + "\n")
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
