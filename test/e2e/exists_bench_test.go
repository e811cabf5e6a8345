package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// BenchmarkNestedExists is PostgreSQL's regression query "planner bug with
// nested EXISTS handling" (subselect.sql) on a table shaped like tenk1's
// columns it reads. PostgreSQL 15 answers it in about 10 ms with a hash anti
// join and a semi join; as correlated SubPlans it is 10^12 row visits.
func BenchmarkNestedExists(b *testing.B) {
	s := testutil.Start(b, testutil.Options{})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE tenk (unique1 int, hundred int, thousand int); "+
		"INSERT INTO tenk SELECT g, g % 100, g % 1000 FROM generate_series(0, 9999) g"); err != nil {
		b.Fatal(err)
	}
	q := `SELECT a.thousand FROM tenk a, tenk b WHERE a.thousand = b.thousand
		AND EXISTS (SELECT 1 FROM tenk c WHERE b.hundred = c.hundred
		            AND NOT EXISTS (SELECT 1 FROM tenk d WHERE a.thousand = d.thousand))`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := c.Query(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if rows.Close(); rows.Err() != nil || n != 0 {
			b.Fatalf("%d rows, %v", n, rows.Err())
		}
	}
}
