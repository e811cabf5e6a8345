package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// TestTempFunctionEndsWithSession: a function made in pg_temp belongs to
// its session's temporary namespace and is dropped with it, as in
// PostgreSQL; another session never sees it.
func TestTempFunctionEndsWithSession(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	a := connect(t, s.DSN())
	exec(t, a, "CREATE FUNCTION pg_temp.tf() RETURNS int LANGUAGE sql AS 'SELECT 5'")
	if got := query(t, a, "SELECT pg_temp.tf()"); got != "5" {
		t.Fatalf("pg_temp.tf() = %q", got)
	}
	b := connect(t, s.DSN())
	if _, err := queryErr(b, "SELECT pg_temp.tf()"); sqlState(err) != "42883" {
		t.Errorf("other session: got %v, want 42883", err)
	}
	a.Close(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for query(t, b, "SELECT count(*) FROM pg_proc WHERE proname = 'tf'") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the temporary function outlived its session")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
