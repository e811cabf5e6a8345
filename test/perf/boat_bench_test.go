// Package perf holds Go benchmarks of whole statements through the real
// server, for profiling (go test -bench . -cpuprofile cpu.out ./test/perf).
// Targets against PostgreSQL live in bench/compare.sh, not here.
package perf

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

func exec(b *testing.B, c *pgx.Conn, q string) {
	b.Helper()
	if _, err := c.Exec(context.Background(), q); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

// BenchmarkBoat runs the seed-003 boat workload: 500k-row INSERT … SELECT,
// two CREATE INDEX, and the 500-row UPDATE.
func BenchmarkBoat(b *testing.B) {
	s := testutil.Start(b, testutil.Options{SharedBuffers: 128 << 20})
	c, err := pgx.Connect(context.Background(), s.DSN()+"&default_query_exec_mode=simple_protocol")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	for i := 0; i < b.N; i++ {
		exec(b, c, "DROP TABLE IF EXISTS boat")
		exec(b, c, "CREATE TABLE boat (id integer, name text, reg double precision)")
		exec(b, c, "INSERT INTO boat(id, name, reg) SELECT i, md5(i::text), log(i) FROM generate_series(1, 500000) as i")
		exec(b, c, "CREATE INDEX boat_idx1 ON boat(id)")
		exec(b, c, "CREATE INDEX boat_idx2 ON boat(reg)")
		exec(b, c, "CHECKPOINT")
		exec(b, c, "UPDATE boat SET name = 'trade winds' WHERE mod(id, 1000) = 1")
	}
}
