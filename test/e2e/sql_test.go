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
// "# tidal only" is skipped when the scripts run against PostgreSQL. A
// comment line "# server: name=value" starts the script's tidal servers
// with that setting: a script about default_table_access_method's own
// default says "# server: default_table_access_method=heap", so that it
// still holds when the suite runs with another default AM
// (TIDAL_TEST_TABLE_AM).
//
// Every script runs through three client stacks (sql_backends_test.go),
// each on a fresh database, and must give the same rows with each:
//
//	TestSQLScripts/<file>/pgx       pgx's pgconn, simple protocol, against a tidal server
//	TestSQLScripts/<file>/libpq     lib/pq through database/sql, against a tidal server
//	TestSQLScripts/<file>/embedded  database/sql with the embedded "tidal" driver (no server)
//
// The pgx back end compares the text the server sends; the database/sql
// back ends get Go values (int64, float64, bool, time.Time, []byte,
// string) and print them back as PostgreSQL would, so a value a driver
// decodes wrongly (lost precision, wrong type, wrong time zone) fails.
//
// The same scripts run against PostgreSQL 15 when TIDAL_SQLTEST_PG is set
// to a connection string (each file in a fresh schema; pgx and lib/pq
// only), to check that the expected results are PostgreSQL's:
//
//	TIDAL_SQLTEST_PG='postgres://postgres@127.0.0.1:54315/postgres' go test ./test/e2e -run TestSQLScripts
//
// TIDAL_SQLTEST_REWRITE=1 rewrites the expected rows of every query with
// what the server returned through pgx (review the diff!).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// scriptServerConf is a script's "# server: name=value" settings.
func scriptServerConf(t *testing.T, path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]string
	for _, l := range strings.Split(string(data), "\n") {
		setting, ok := strings.CutPrefix(l, "# server: ")
		if !ok {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimSpace(setting), "=")
		if !ok {
			t.Fatalf("%s: bad server setting %q", path, l)
		}
		if conf == nil {
			conf = map[string]string{}
		}
		conf[name] = value
	}
	return conf
}

func TestSQLScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/sql/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pgDSN := os.Getenv("TIDAL_SQLTEST_PG")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		t.Run(name, func(t *testing.T) {
			blocks := parseSQLScript(t, f)
			conf := scriptServerConf(t, f)
			if pgDSN != "" {
				head, _ := os.ReadFile(f)
				if strings.HasPrefix(string(head), "# tidal only") {
					t.Skip("tidal only")
				}
			}
			for _, be := range sqlBackends {
				t.Run(be.name, func(t *testing.T) {
					if pgDSN != "" && be.embedded {
						t.Skip("the embedded driver has no PostgreSQL to compare with")
					}
					ctx := context.Background()
					client := be.open(t, pgDSN, name, conf)
					defer client.close()
					rewrite := os.Getenv("TIDAL_SQLTEST_REWRITE") != "" && be.name == "pgx"
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
						got, err := client.run(ctx, b.sql)
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
							if err == nil {
								t.Errorf("%s: %s: succeeded, want SQLSTATE %s", where, b.sql, want)
							} else if code := anySQLState(err); code != want {
								t.Errorf("%s: %s: got %v (SQLSTATE %q), want SQLSTATE %s", where, b.sql, err, code, want)
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
		})
	}
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
