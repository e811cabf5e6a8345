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

// start runs a server with PostgreSQL's default shared_buffers and
// connects to it; both end with the benchmark.
func start(b *testing.B) *pgx.Conn {
	b.Helper()
	s := testutil.Start(b, testutil.Options{SharedBuffers: 128 << 20})
	c, err := pgx.Connect(context.Background(), s.DSN()+"&default_query_exec_mode=simple_protocol")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(b *testing.B, c *pgx.Conn, q string) {
	b.Helper()
	if _, err := c.Exec(context.Background(), q); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

// BenchmarkBoat runs the seed-003 boat workload: 500k-row INSERT … SELECT,
// two CREATE INDEX, and the 500-row UPDATE.
func BenchmarkBoat(b *testing.B) {
	c := start(b)
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

// BenchmarkVac6Update runs seed 002's six-index table build with N=100k:
// the non-HOT UPDATE of every row, which inserts six index entries per row.
func BenchmarkVac6Update(b *testing.B) {
	c := start(b)
	exec(b, c, "CREATE TABLE vac6 (id integer NOT NULL, a integer NOT NULL, b integer NOT NULL, c integer NOT NULL, d text NOT NULL, e text NOT NULL)")
	exec(b, c, "INSERT INTO vac6 (id, a, b, c, d, e) SELECT i, i, ((i::bigint * 7919) % 100000)::integer, i % 100, md5(i::text), md5((i + 1)::text) FROM generate_series(1, 100000) AS i")
	exec(b, c, "ALTER TABLE vac6 ADD PRIMARY KEY (id)")
	for _, col := range []string{"a", "b", "c", "d", "e"} {
		exec(b, c, "CREATE INDEX vac6_"+col+" ON vac6 ("+col+")")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		exec(b, c, "UPDATE vac6 SET a = a + 1")
	}
}

// BenchmarkBoatSeqScanFilter is the scan under the boat UPDATE: 500k rows,
// a function qual that keeps 500.
func BenchmarkBoatSeqScanFilter(b *testing.B) {
	c := start(b)
	exec(b, c, "CREATE TABLE boat (id integer, name text, reg double precision)")
	exec(b, c, "INSERT INTO boat(id, name, reg) SELECT i, md5(i::text), log(i) FROM generate_series(1, 500000) as i")
	exec(b, c, "VACUUM boat")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		exec(b, c, "SELECT count(*) FROM boat WHERE mod(id, 1000) = 1")
	}
}

// BenchmarkBoatCreateIndexReg is CREATE INDEX boat_idx2 ON boat(reg).
func BenchmarkBoatCreateIndexReg(b *testing.B) {
	c := start(b)
	exec(b, c, "CREATE TABLE boat (id integer, name text, reg double precision)")
	exec(b, c, "INSERT INTO boat(id, name, reg) SELECT i, md5(i::text), log(i) FROM generate_series(1, 500000) as i")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		exec(b, c, "CREATE INDEX boat_idx2 ON boat(reg)")
		b.StopTimer()
		exec(b, c, "DROP INDEX boat_idx2")
		b.StartTimer()
	}
}
