package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn+"&default_query_exec_mode=simple_protocol")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func TestSmokeCreateInsertSelect(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, v text)",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two')",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v string
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = 2").Scan(&v); err != nil || v != "two" {
		t.Fatalf("got %q, %v", v, err)
	}
}
