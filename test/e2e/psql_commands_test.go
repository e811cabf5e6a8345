package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPsqlCommands compares more of the describe commands a new user
// types first with PostgreSQL 15's output for the same schema and roles
// (testdata/psql/*.out, captured from a PostgreSQL 15 server after
// setup.sql and roles.sql; "{{PORT}}" stands for the server's port).
// \l is asked for the database tidal has, since PostgreSQL's list also
// holds template0 and template1, and \du for the roles roles.sql made.
func TestPsqlCommands(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{Conf: onHeap(nil)})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "setup.sql"))
	run("-q", "-f", filepath.Join("testdata", "psql", "roles.sql"))
	for _, tc := range []struct{ cmd, file string }{
		{`\l postgres`, "l_postgres.out"},
		{`\dn`, "dn.out"},
		{`\conninfo`, "conninfo.out"},
		{`\d`, "d.out"},
		{`\dt`, "dt.out"},
		{`\dt+ pt`, "dtplus_pt.out"},
		{`\di+ pt*`, "diplus_pt.out"},
		{`\d pt_pkey`, "d_pt_pkey.out"},
		{`\d pt_v`, "d_pt_v.out"},
		{`\du psql_*`, "du_psql.out"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "psql", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		wantText := strings.ReplaceAll(string(want), "{{PORT}}", fmt.Sprint(s.Port))
		if got := run("-c", tc.cmd); got != wantText {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tc.cmd, got, wantText)
		}
	}
}
