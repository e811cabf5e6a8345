package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestPgConstraintUpgrade: a data directory made before pg_constraint
// existed gets it at start, durably, and constraints work in it.
func TestPgConstraintUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	catalog.LegacyBootstrap = true
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	catalog.LegacyBootstrap = false
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE up_p (id int PRIMARY KEY)")
	exec(t, c, "CREATE TABLE up_c (pid int REFERENCES up_p, CHECK (pid > 0))")
	c.Close(context.Background())
	s.Close()
	s = testutil.Start(t, testutil.Options{Dir: dir})
	c = connect(t, s.DSN())
	if got := queryString(t, c, "SELECT string_agg(x, ',') FROM (SELECT conname || ':' || contype::text AS x FROM pg_constraint ORDER BY 1) s"); got != "up_c_pid_check:c,up_c_pid_fkey:f,up_p_pkey:p" {
		t.Errorf("pg_constraint: %s", got)
	}
	if got := queryString(t, c, "SELECT count(*)::text FROM pg_class WHERE relname = 'pg_constraint'"); got != "1" {
		t.Errorf("pg_class rows for pg_constraint: %s", got)
	}
	if _, err := c.Exec(context.Background(), "INSERT INTO up_c VALUES (1)"); err == nil {
		t.Error("insert without a referenced row succeeded")
	}
}
