package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// CREATE TABLE AS and SELECT INTO report PostgreSQL's command tags (the
// tables' contents are checked in testdata/sql/aggregates.sql).
func TestCreateTableAsCommandTags(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	steps := []struct{ sql, tag string }{
		{"CREATE TABLE ctag (a int)", "CREATE TABLE"},
		{"INSERT INTO ctag VALUES (1), (2), (3)", "INSERT 0 3"},
		{"CREATE TABLE ctag2 AS SELECT a FROM ctag WHERE a > 1", "SELECT 2"},
		{"SELECT a INTO ctag3 FROM ctag", "SELECT 3"},
		{"CREATE TABLE ctag4 AS SELECT a FROM ctag WITH NO DATA", "CREATE TABLE AS"},
		{"CREATE TABLE IF NOT EXISTS ctag4 AS SELECT 1", "CREATE TABLE AS"},
		{"CREATE TABLE ctag5 AS SELECT count(*) FROM ctag WHERE false", "SELECT 1"},
	}
	for _, s := range steps {
		res, err := c.Exec(ctx, s.sql).ReadAll()
		if err == nil && res[0].Err != nil {
			err = res[0].Err
		}
		if err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
		if got := res[0].CommandTag.String(); got != s.tag {
			t.Errorf("%s: tag %q, want %q", s.sql, got, s.tag)
		}
	}
}
