package e2e

import (
	"os"
	osexec "os/exec"
	"strings"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// psql's ON_ERROR_ROLLBACK wraps every statement of a block in a savepoint
// (SAVEPOINT pg_psql_temporary_savepoint … RELEASE or ROLLBACK TO), so a
// failed statement loses only itself. The expected output is PostgreSQL
// 15's for the same script.
func TestPsqlOnErrorRollback(t *testing.T) {
	psql := needPsql(t)
	srv := testutil.Start(t, testutil.Options{})
	script := `CREATE TABLE oer (a int PRIMARY KEY);
BEGIN;
INSERT INTO oer VALUES (1);
INSERT INTO oer VALUES (1);
INSERT INTO oer VALUES (2);
SELECT 1/0;
INSERT INTO oer VALUES (3);
COMMIT;
SELECT a FROM oer ORDER BY a;
DROP TABLE oer;
`
	want := `CREATE TABLE
BEGIN
INSERT 0 1
psql:<stdin>:4: ERROR:  duplicate key value violates unique constraint "oer_pkey"
DETAIL:  Key (a)=(1) already exists.
INSERT 0 1
psql:<stdin>:6: ERROR:  division by zero
INSERT 0 1
COMMIT
 a 
---
 1
 2
 3
(3 rows)

DROP TABLE
`
	cmd := osexec.Command(psql, "-X", "-h", "127.0.0.1", "-p", itoa(srv.Port), "-U", "postgres", "-d", "postgres",
		"-v", "ON_ERROR_ROLLBACK=on", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if string(out) != want {
		t.Fatalf("psql output:\n%s\nwant (PostgreSQL 15):\n%s", out, want)
	}
}

// A multi-statement Query is one implicit transaction block, as in
// PostgreSQL (the multi-statement part of its transactions.sql): COMMIT
// and ROLLBACK inside it end the transaction so far with a warning, BEGIN
// turns it into a real block, VACUUM and the savepoint commands refuse to
// run in it when reached, an error rolls back what the message did.
// testdata/psql/implicit_blocks.out is PostgreSQL 15's output.
func TestPsqlImplicitBlocks(t *testing.T) {
	psql := needPsql(t)
	srv := testutil.Start(t, testutil.Options{})
	script, err := os.ReadFile("testdata/psql/implicit_blocks.sql")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/psql/implicit_blocks.out")
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(psql, "-X", "-h", "127.0.0.1", "-p", itoa(srv.Port), "-U", "postgres", "-d", "postgres", "-f", "-")
	cmd.Stdin = strings.NewReader(string(script))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if string(out) != string(want) {
		t.Fatalf("psql output:\n%s\nwant (PostgreSQL 15):\n%s", out, want)
	}
}
