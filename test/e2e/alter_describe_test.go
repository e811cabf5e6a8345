package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPsqlDescribeAfterAlter: psql's \d of a table that went through ADD,
// DROP, RENAME and ALTER COLUMN prints what PostgreSQL 15 prints
// (testdata/psql/d_at_desc.out was captured from a PostgreSQL 15 server
// after running testdata/psql/alter_setup.sql): dropped columns are gone,
// renamed ones and the renamed index show their new names.
func TestPsqlDescribeAfterAlter(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "alter_setup.sql"))
	want, err := os.ReadFile(filepath.Join("testdata", "psql", "d_at_desc.out"))
	if err != nil {
		t.Fatal(err)
	}
	if got := run("-c", `\d at_desc`); got != string(want) {
		t.Errorf("\\d at_desc:\n got:\n%s\nwant:\n%s", got, want)
	}
}
