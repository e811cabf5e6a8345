package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPsqlFunctions compares psql's \df and \sf (pg_get_function_result,
// pg_get_function_arguments, pg_get_functiondef, regproc and
// regprocedure input) with PostgreSQL 15's output for the functions of
// testdata/psql/functions_setup.sql (fn_NN.out, captured from a
// PostgreSQL 15 server on a fresh database after that script).
func TestPsqlFunctions(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "functions_setup.sql"))
	for i, cmd := range []string{`\df`, `\df fn_*`, `\sf fn_add`, `\sf fn_many`, `\sf fn_table`, `\sf "Fn Quoted"`,
		`\sf fn_set`, `\sf fn_void`, `\sf fn_poly`, `\sf+ fn_add`, `\sf fn_add(int, int)`, `\df+`, `\df+ fn_add`} {
		want, err := os.ReadFile(filepath.Join("testdata", "psql", fmt.Sprintf("fn_%02d.out", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := run("-c", cmd); got != string(want) {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", cmd, got, want)
		}
	}
}
