package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPsqlDescribe runs psql's describe commands, whose catalog queries
// use joins, LATERAL-free correlated subqueries, arrays, regclass casts
// and regular expressions, and compares their output with PostgreSQL
// 15's for the same schema (testdata/psql/*.out were captured from a
// PostgreSQL 15 server after running testdata/psql/setup.sql).
func TestPsqlDescribe(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "setup.sql"))
	for _, tc := range []struct{ cmd, file string }{
		{`\d pt`, "d_pt.out"},
		{`\di pt*`, "di_pt.out"},
		{`\dt pt`, "dt_pt.out"},
		{`\du`, "du.out"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "psql", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := run("-c", tc.cmd); got != string(want) {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tc.cmd, got, want)
		}
	}
	// \l and \dn list tidal's one database and schema.
	for _, cmd := range []string{`\l`, `\dn`, `\d`, `\dt`, `\di`} {
		run("-c", cmd)
	}
}

// TestPsqlDescribeStorage: \d+ shows each column's storage and
// compression method and the table's options as PostgreSQL 15 does
// (testdata/psql/dplus_doc.out captured after toast_setup.sql).
func TestPsqlDescribeStorage(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{Conf: onHeap(nil)})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "toast_setup.sql"))
	want, err := os.ReadFile(filepath.Join("testdata", "psql", "dplus_doc.out"))
	if err != nil {
		t.Fatal(err)
	}
	if got := run("-c", `\d+ doc`); got != string(want) {
		t.Errorf("\\d+ doc:\n got:\n%s\nwant:\n%s", got, want)
	}
}
