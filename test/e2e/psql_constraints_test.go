package e2e

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPsqlConstraints runs testdata/psql/constraints.sql through psql and
// compares everything psql prints — \d's "Check constraints:",
// "Foreign-key constraints:" and "Referenced by:" sections, and the
// constraint and ON CONFLICT errors with their details and hints — with
// PostgreSQL 15's output for the same script (constraints.out, captured
// with psql -X < constraints.sql against PostgreSQL 15).
func TestPsqlConstraints(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	script, err := os.Open(filepath.Join("testdata", "psql", "constraints.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	cmd := osexec.Command(psql, "-X", "-h", "127.0.0.1", "-p", fmt.Sprint(s.Port), "-U", "postgres", "-d", "postgres")
	cmd.Stdin = script
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, got)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "psql", "constraints.out"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("psql output differs from PostgreSQL's:\n got:\n%s\nwant:\n%s", got, want)
	}
}
