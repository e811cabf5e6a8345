package e2e

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/testutil"
)

// ioRow is one pg_stat_io row; nil fields are NULL.
type ioRow struct {
	reads, writes, writebacks, extends, hits, evictions, reuses, fsyncs *int64
	readTime, writeTime                                                 *float64
	opBytes                                                             int64
}

func statIO(t *testing.T, c *pgx.Conn, backend, object, context_ string) ioRow {
	t.Helper()
	var r ioRow
	err := c.QueryRow(context.Background(), `SELECT reads, read_time, writes, write_time, writebacks, extends, op_bytes, hits, evictions, reuses, fsyncs
		FROM pg_stat_io WHERE backend_type = $1 AND object = $2 AND context = $3`, backend, object, context_).
		Scan(&r.reads, &r.readTime, &r.writes, &r.writeTime, &r.writebacks, &r.extends, &r.opBytes, &r.hits, &r.evictions, &r.reuses, &r.fsyncs)
	if err != nil {
		t.Fatalf("pg_stat_io row %s/%s/%s: %v", backend, object, context_, err)
	}
	return r
}

func readCalls(t *testing.T, c *pgx.Conn, context_ string) int64 {
	t.Helper()
	return queryInt(t, c, fmt.Sprintf("SELECT read_calls FROM tidal_stat_io_calls WHERE backend_type = 'client backend' AND object = 'relation' AND context = '%s'", context_))
}

func v(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// coldTable makes table name with about pages pages, all hint bits set
// (VACUUM) and written out (CHECKPOINT), then drops its pages from shared
// buffers, so the next scan reads every page from disk. It returns the
// relation's file number and its page count.
func coldTable(t *testing.T, srv *testutil.Server, c *pgx.Conn, name string, pages int) (smgr.RelFileNumber, int64) {
	t.Helper()
	exec(t, c, fmt.Sprintf("CREATE TABLE %s (id int, pad text)", name))
	// 8 rows of ~900 bytes fill a page.
	exec(t, c, fmt.Sprintf("INSERT INTO %s SELECT g, repeat('x', 900) FROM generate_series(1, %d) g", name, pages*8))
	exec(t, c, "VACUUM "+name)
	exec(t, c, "CHECKPOINT")
	node := smgr.RelFileNumber(queryInt(t, c, fmt.Sprintf("SELECT relfilenode::int8 FROM pg_class WHERE relname = '%s'", name)))
	nb, err := srv.Engine.Smgr.NBlocks(node, smgr.MainFork)
	if err != nil {
		t.Fatal(err)
	}
	dropPages(srv, node)
	return node, int64(nb)
}

func dropPages(srv *testutil.Server, node smgr.RelFileNumber) {
	srv.Engine.Pool.DropRelation(node, smgr.MainFork, 0, false)
}

// TestStatIOColdSeqScan checks every pg_stat_io column against known
// workloads: a cold sequential scan of a table larger than a quarter of
// shared buffers (bulkread ring), a cold and a warm scan of a small one
// (normal context), and the read system calls with and without combining.
func TestStatIOColdSeqScan(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{SharedBuffers: 16 << 20}) // 2048 frames: bulk reads above 512 pages
	c := connect(t, srv.DSN())
	defer c.Close(context.Background())

	big, n := coldTable(t, srv, c, "io_big", 700)
	if n < 600 {
		t.Fatalf("io_big has %d pages, want about 700", n)
	}
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	if got := queryInt(t, c, "SELECT count(*) FROM io_big"); got != 700*8 {
		t.Fatalf("count = %d", got)
	}
	r := statIO(t, c, "client backend", "relation", "bulkread")
	ring := int64(32) // 256 kB
	if v(r.reads) != n || v(r.hits) != 0 || r.opBytes != 8192 || v(r.writes) != 0 || v(r.writebacks) != 0 || r.extends != nil || r.fsyncs != nil {
		t.Fatalf("cold scan of %d pages: bulkread reads %d hits %d op_bytes %d writes %d writebacks %d extends %v fsyncs %v",
			n, v(r.reads), v(r.hits), r.opBytes, v(r.writes), v(r.writebacks), r.extends, r.fsyncs)
	}
	// Every read took a frame: a reused ring slot once the ring is full,
	// else one from the clock sweep (an eviction when it held a page).
	if reuses, ev := v(r.reuses), v(r.evictions); reuses < n-2*ring || reuses+ev > n || ev > 2*ring {
		t.Fatalf("cold scan of %d pages: reuses %d evictions %d, want about %d reuses and at most %d evictions", n, reuses, ev, n-ring, 2*ring)
	}
	if r.readTime == nil || *r.readTime != 0 {
		t.Fatalf("read_time %v with track_io_timing off, want 0", r.readTime)
	}
	calls := readCalls(t, c, "bulkread")
	t.Logf("cold scan of %d pages: reads %d hits %d evictions %d reuses %d in %d read calls", n, v(r.reads), v(r.hits), v(r.evictions), v(r.reuses), calls)
	if calls < n/16 || calls > n/8 {
		t.Fatalf("%d read calls for %d blocks, want combined reads (between %d and %d)", calls, n, n/16, n/8)
	}
	if nr := statIO(t, c, "client backend", "relation", "normal"); v(nr.reads) != 0 {
		t.Fatalf("normal context reads %d during a bulk read", v(nr.reads))
	}

	// Streaming off: one call per block, same blocks.
	dropPages(srv, big)
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	exec(t, c, "SET io_combine_limit = 1")
	exec(t, c, "SET effective_io_concurrency = 0")
	queryInt(t, c, "SELECT count(*) FROM io_big")
	if got, calls := v(statIO(t, c, "client backend", "relation", "bulkread").reads), readCalls(t, c, "bulkread"); got != n || calls != n {
		t.Fatalf("io_combine_limit = 1: %d blocks in %d calls, want %d in %d", got, calls, n, n)
	}
	exec(t, c, "RESET io_combine_limit")
	exec(t, c, "RESET effective_io_concurrency")

	// A small table: normal context, cold then warm.
	small, sn := coldTable(t, srv, c, "io_small", 40)
	_ = small
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	queryInt(t, c, "SELECT count(*) FROM io_small")
	queryInt(t, c, "SELECT count(*) FROM io_small")
	r = statIO(t, c, "client backend", "relation", "normal")
	if v(r.reads) != sn || v(r.hits) < sn || r.reuses != nil || v(r.fsyncs) != 0 {
		t.Fatalf("small table of %d pages, cold then warm: normal reads %d hits %d reuses %v fsyncs %v", sn, v(r.reads), v(r.hits), r.reuses, v(r.fsyncs))
	}

	// track_io_timing: read_time and EXPLAIN's I/O Timings line.
	dropPages(srv, big)
	exec(t, c, "SET track_io_timing = on")
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	plan := query(t, c, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT count(*) FROM io_big")
	if !strings.Contains(plan, "I/O Timings: shared read=") || !strings.Contains(plan, fmt.Sprintf("read=%d", n)) {
		t.Fatalf("EXPLAIN with track_io_timing on:\n%s", plan)
	}
	if rt := statIO(t, c, "client backend", "relation", "bulkread").readTime; rt == nil || *rt <= 0 {
		t.Fatalf("read_time %v with track_io_timing on", rt)
	}
	var reset1, reset2 string
	c.QueryRow(context.Background(), "SELECT stats_reset::text FROM pg_stat_io LIMIT 1").Scan(&reset1)
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	c.QueryRow(context.Background(), "SELECT stats_reset::text FROM pg_stat_io LIMIT 1").Scan(&reset2)
	if reset1 == reset2 || queryInt(t, c, "SELECT sum(reads) FROM pg_stat_io") != 0 {
		t.Fatalf("pg_stat_reset_shared('io'): stats_reset %s -> %s, reads %d", reset1, reset2, queryInt(t, c, "SELECT sum(reads) FROM pg_stat_io"))
	}
	_, err := execErr(c, "SELECT pg_stat_reset_shared('nonsense')")
	wantState(t, "bad reset target", err, "22023")

	// Scans given up early (LIMIT, a cursor closed half-way, CREATE
	// INDEX) leave no page pinned by their read streams.
	dropPages(srv, big)
	queryInt(t, c, "SELECT id FROM io_big LIMIT 1")
	exec(t, c, "BEGIN")
	exec(t, c, "DECLARE cur CURSOR FOR SELECT * FROM io_big")
	exec(t, c, "FETCH 100 FROM cur")
	exec(t, c, "CLOSE cur")
	exec(t, c, "COMMIT")
	exec(t, c, "CREATE INDEX ON io_big (id)")
	if _, _, pinned := srv.Engine.Pool.Stats(); pinned != 0 {
		t.Fatalf("%d buffers left pinned after scans given up early", pinned)
	}
}

// TestStatIOShape: PostgreSQL 17's rows for the backend types tidal runs,
// NULL where PostgreSQL does not track an operation, and seed 000's query.
func TestStatIOShape(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	defer c.Close(context.Background())
	got := query(t, c, "SELECT backend_type || '/' || object || '/' || context FROM pg_stat_io WHERE backend_type IN ('client backend', 'checkpointer', 'autovacuum launcher') ORDER BY 1")
	want := "autovacuum launcher/relation/bulkread\nautovacuum launcher/relation/normal\ncheckpointer/relation/normal\n" +
		"client backend/relation/bulkread\nclient backend/relation/bulkwrite\nclient backend/relation/normal\nclient backend/relation/vacuum\nclient backend/temp relation/normal"
	if strings.ReplaceAll(strings.TrimSpace(got), ",", "\n") != want {
		t.Fatalf("pg_stat_io rows:\n%s\nwant:\n%s", got, want)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM pg_stat_io WHERE backend_type = 'checkpointer' AND reads IS NULL AND hits IS NULL AND extends IS NULL AND writes IS NOT NULL"); n != 1 {
		t.Fatalf("checkpointer row: reads/hits/extends should be NULL, writes not (%d rows)", n)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM pg_stat_io WHERE backend_type = 'walwriter'"); n != 0 {
		t.Fatalf("%d walwriter rows; PostgreSQL 17 shows none", n)
	}
	seed := `SELECT backend_type, context, io_object, reads, writes, extends, op_bytes FROM pg_stat_io
		WHERE backend_type IN ('autovacuum worker', 'client backend') ORDER BY writes DESC`
	_, err := queryErr(c, seed)
	wantState(t, "seed 000's io_object", err, "42703")
	fixed := strings.Replace(seed, "io_object", "object", 1)
	if rows := query(t, c, fixed); strings.Count(rows, ",") < 6 {
		t.Fatalf("seed 000's query with object:\n%s", rows)
	}
}

// TestStreamedReadErrors: EIO or a short read during a streamed scan fails
// the statement with PostgreSQL's message; the session goes on, and the
// scan works once the fault is gone.
func TestStreamedReadErrors(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{SharedBuffers: 16 << 20})
	c := connect(t, srv.DSN())
	defer c.Close(context.Background())
	node, _ := coldTable(t, srv, c, "io_fault", 100)
	for _, tc := range []struct {
		fault error
		state string
		text  string
	}{
		{syscall.EIO, "58030", "could not read block 57 in file \"%s\": Input/output error"},
		{smgr.ErrShortRead, "XX001", "could not read block 57 in file \"%s\": read only 0 of 8192 bytes"},
	} {
		dropPages(srv, node)
		srv.Engine.Smgr.SetReadFault(func(rel smgr.RelFileNumber, f smgr.ForkNumber, blk page.BlockNumber) error {
			if rel == node && blk == 57 {
				return tc.fault
			}
			return nil
		})
		_, err := queryErr(c, "SELECT count(*) FROM io_fault")
		pe := wantState(t, "streamed read fault", err, tc.state)
		want := fmt.Sprintf(tc.text, fmt.Sprintf("base/%d", node))
		if pe.Message != want {
			t.Fatalf("message %q, want %q", pe.Message, want)
		}
		if got := queryInt(t, c, "SELECT 1"); got != 1 {
			t.Fatal("session did not go on")
		}
		srv.Engine.Smgr.SetReadFault(nil)
		if got := queryInt(t, c, "SELECT count(*) FROM io_fault"); got != 800 {
			t.Fatalf("count after the fault = %d, want 800", got)
		}
		if _, _, pinned := srv.Engine.Pool.Stats(); pinned != 0 {
			t.Fatalf("%d buffers left pinned", pinned)
		}
	}
}

// TestStatIOVacuum: VACUUM's first pass reads every page of a cold table
// once through its ring (vacuum context), in combined reads; a second
// VACUUM skips the pages the first set all-visible.
func TestStatIOVacuum(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{SharedBuffers: 16 << 20})
	c := connect(t, srv.DSN())
	defer c.Close(context.Background())
	exec(t, c, "CREATE TABLE io_vac (id int, pad text)")
	exec(t, c, "INSERT INTO io_vac SELECT g, repeat('x', 900) FROM generate_series(1, 2400) g")
	exec(t, c, "DELETE FROM io_vac WHERE id % 10 = 0")
	exec(t, c, "CHECKPOINT")
	node := smgr.RelFileNumber(queryInt(t, c, "SELECT relfilenode::int8 FROM pg_class WHERE relname = 'io_vac'"))
	nb, _ := srv.Engine.Smgr.NBlocks(node, smgr.MainFork)
	n := int64(nb)
	dropPages(srv, node)
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	exec(t, c, "VACUUM io_vac")
	r := statIO(t, c, "client backend", "relation", "vacuum")
	// The first pass reads all n pages; the second reaps the pages with
	// dead items and finds them resident (the 2 MB ring holds 256 frames,
	// the pool 2048). 8 rows a page: page p holds ids 8p+1 … 8p+8.
	deadPages := int64(0)
	for p := int64(0); p < n; p++ {
		for id := 8*p + 1; id <= 8*p+8; id++ {
			if id%10 == 0 {
				deadPages++
				break
			}
		}
	}
	if v(r.reads) != n || v(r.hits) != deadPages || r.extends == nil {
		t.Fatalf("VACUUM of %d cold pages, %d with dead rows: vacuum reads %d hits %d extends %v", n, deadPages, v(r.reads), v(r.hits), r.extends)
	}
	if calls := readCalls(t, c, "vacuum"); calls >= n/4 {
		t.Fatalf("VACUUM read %d pages in %d calls: not combined", n, calls)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM io_vac"); got != 2160 {
		t.Fatalf("count after VACUUM = %d", got)
	}
	exec(t, c, "CHECKPOINT")
	dropPages(srv, node)
	exec(t, c, "SELECT pg_stat_reset_shared('io')")
	exec(t, c, "VACUUM io_vac")
	if got := v(statIO(t, c, "client backend", "relation", "vacuum").reads); got >= n/2 {
		t.Fatalf("second VACUUM read %d of %d pages: all-visible pages should be skipped", got, n)
	}
}
