package e2e

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
	"github.com/tidal-db/tidal/internal/wal"
)

var walUsageRE = regexp.MustCompile(`WAL: records=(\d+) fpi=(\d+) bytes=(\d+)`)

// explainWAL runs EXPLAIN (ANALYZE, WAL) of q and returns the top node's
// WAL records, full-page images and bytes.
func explainWAL(t *testing.T, c *pgx.Conn, q string) (recs, fpi, bytes int64) {
	t.Helper()
	plan := query(t, c, "EXPLAIN (ANALYZE, WAL, COSTS OFF, TIMING OFF) "+q)
	m := walUsageRE.FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("no WAL line in:\n%s", plan)
	}
	recs, _ = strconv.ParseInt(m[1], 10, 64)
	fpi, _ = strconv.ParseInt(m[2], 10, 64)
	bytes, _ = strconv.ParseInt(m[3], 10, 64)
	return recs, fpi, bytes
}

// TestWALCompressionExplain: the boat UPDATE after a checkpoint writes the
// same records and full-page images with every method, and EXPLAIN (WAL)
// counts the compressed bytes: each method writes well under what off
// writes. A session's SET applies to that session only; another session
// keeps the server's setting.
func TestWALCompressionExplain(t *testing.T) {
	s := testutil.Start(t, testutil.Options{Conf: onHeap(map[string]string{"wal_compression": "lz4"})})
	c := connect(t, s.DSN())
	other := connect(t, s.DSN())
	type usage struct{ recs, fpi, bytes int64 }
	run := func(c *pgx.Conn) usage {
		exec(t, c, "DROP TABLE IF EXISTS boat")
		exec(t, c, "CREATE TABLE boat (id integer, name text, reg double precision)")
		exec(t, c, "INSERT INTO boat SELECT i, md5(i::text), log(i) FROM generate_series(1, 20000) AS i")
		exec(t, c, "CREATE INDEX boat_idx1 ON boat (id)")
		exec(t, c, "CHECKPOINT")
		r, f, b := explainWAL(t, c, "UPDATE boat SET name = 'trade winds' WHERE mod(id, 50) = 1")
		return usage{r, f, b}
	}
	got := map[string]usage{}
	for _, m := range []string{"off", "pglz", "lz4", "zstd"} {
		exec(t, c, "SET wal_compression = "+m)
		got[m] = run(c)
	}
	off := got["off"]
	if off.fpi < 150 {
		t.Fatalf("off: only %d full-page images: %+v", off.fpi, off)
	}
	for m, u := range got {
		if u.recs != off.recs || u.fpi != off.fpi {
			t.Errorf("%s: records %d fpi %d, off %d / %d", m, u.recs, u.fpi, off.recs, off.fpi)
		}
		if m != "off" && u.bytes > off.bytes*8/10 {
			t.Errorf("%s: %d bytes of WAL, off %d", m, u.bytes, off.bytes)
		}
	}
	t.Logf("%+v", got)
	// The other session never SET it: the server's lz4 applies. (Record
	// sizes vary by a few bytes from run to run with the ids they carry.)
	likeLZ4 := func(what string, b int64) {
		if d := b - got["lz4"].bytes; d < -got["lz4"].bytes/100 || d > got["lz4"].bytes/100 {
			t.Errorf("%s: %d bytes of WAL, lz4 wrote %d", what, b, got["lz4"].bytes)
		}
	}
	if v := query(t, other, "SHOW wal_compression"); v != "lz4" {
		t.Fatalf("other session: wal_compression = %s", v)
	}
	likeLZ4("the server's lz4", run(other).bytes)
	// RESET goes back to the server's setting.
	exec(t, c, "RESET wal_compression")
	likeLZ4("after RESET", run(c).bytes)
}

// TestWALCompressionSuperuser: wal_compression is a superuser setting:
// another role may read it but not change it, by SET, RESET, set_config or
// a startup option; a failed SET leaves the transaction aborted as any
// error does.
func TestWALCompressionSuperuser(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE USER walc_erin")
	ec := connect(t, roleDSN(s, "walc_erin", ""))
	for _, q := range []string{"SET wal_compression = zstd", "RESET wal_compression", "SELECT set_config('wal_compression', 'lz4', false)"} {
		_, err := execErr(ec, q)
		if pe := wantState(t, q, err, "42501"); pe != nil && pe.Message != `permission denied to set parameter "wal_compression"` {
			t.Errorf("%s: %q", q, pe.Message)
		}
	}
	if v := query(t, ec, "SHOW wal_compression"); v != "lz4" { // tidal's default
		t.Errorf("SHOW as walc_erin: %s", v)
	}
	exec(t, ec, "BEGIN")
	_, err := execErr(ec, "SET wal_compression = pglz")
	wantState(t, "SET in a block", err, "42501")
	_, err = execErr(ec, "SELECT 1")
	wantState(t, "after the failed SET", err, "25P02")
	exec(t, ec, "ROLLBACK")
	err = tryConnect(roleDSN(s, "walc_erin", "") + "&options=-c%20wal_compression%3Dzstd")
	wantState(t, "startup option", err, "42501")
	err = tryConnect(roleDSN(s, "walc_erin", "") + "&wal_compression=zstd")
	wantState(t, "startup parameter", err, "42501")
	// The superuser may, at startup too.
	sc := connect(t, s.DSN()+"&options=-c%20wal_compression%3Dzstd")
	if v := query(t, sc, "SHOW wal_compression"); v != "zstd" {
		t.Errorf("startup option as superuser: %s", v)
	}
}

// walImages counts the full-page images, per method, in the WAL a crash
// left behind (from the last checkpoint's redo point on: what recovery
// replays).
func walImages(t *testing.T, dataDir string) map[wal.Compression]int {
	t.Helper()
	ctl, err := wal.ReadControl(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	r := wal.NewReader(filepath.Join(dataDir, "wal"), ctl.Redo)
	defer r.Close()
	n := map[wal.Compression]int{}
	for {
		d, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Blocks {
			if b.HasImage {
				n[b.Compression()]++
			}
		}
	}
}

// TestCrashWALCompression: the crash workload (TestCrashRandomKills')
// with wal_compression = zstd, then lz4, alternating: each cycle's server
// is killed -9 and restarted with the other method, so recovery replays
// images compressed by the setting before the restart. Every
// acknowledged commit is there after each recovery, nothing else is, and
// the WAL each cycle left did hold images compressed with its method.
func TestCrashWALCompression(t *testing.T) {
	methods := []string{"zstd", "lz4", "zstd", "lz4"}
	if testing.Short() {
		// Not a skip: -short (a developer's quick run; CI runs the full
		// list) keeps one kill under each method, so recovery still
		// replays zstd images under lz4 and lz4's under the next start,
		// as TestCrashRandomKills shortens its cycles.
		methods = methods[:2]
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	s := newServer(t)
	s.extra = []string{"-c", "wal_compression=" + methods[0]}
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE ledger (id bigint PRIMARY KEY, w int NOT NULL, payload text)")
	exec(t, c, "CREATE INDEX ledger_w ON ledger (w)")
	exec(t, c, "CREATE TABLE counters (w int PRIMARY KEY, n bigint NOT NULL)")
	exec(t, c, fmt.Sprintf("INSERT INTO counters SELECT i, 0 FROM generate_series(0, %d) AS i", crashWorkers))
	c.Close(context.Background())

	led := &ledger{state: map[int64]outcome{}, worker: map[int64]int{}}
	var nextID atomic.Int64
	images := map[wal.Compression]int{}
	for cycle, m := range methods {
		if cycle > 0 {
			s.extra = []string{"-c", "wal_compression=" + m}
			s.start()
			c := s.conn()
			verifyLedger(t, c, led, r, cycle)
			if v := query(t, c, "SHOW wal_compression"); v != m {
				t.Fatalf("cycle %d: wal_compression = %s, want %s", cycle+1, v, m)
			}
			c.Close(context.Background())
		}
		cw := &crashWorkload{t: t, dsn: s.dsn(), led: led, nextID: &nextID, seed: seed + uint64(cycle), crash: true}
		var wg sync.WaitGroup
		for w := 1; w <= crashWorkers; w++ {
			wg.Add(1)
			go cw.worker(w, &wg)
		}
		wg.Add(2)
		go cw.dangler(&wg)
		go cw.checkpointer(&wg)
		run := time.Duration(800+r.IntN(1200)) * time.Millisecond
		time.Sleep(run)
		cw.killed.Store(true)
		s.kill()
		wg.Wait()
		if t.Failed() {
			return
		}
		want, _ := wal.ParseCompression(m)
		for method, n := range walImages(t, s.dir) {
			if method != want && method != wal.CompressionNone {
				t.Fatalf("cycle %d (%s): %d images compressed with %s", cycle+1, m, n, method)
			}
			images[method] += n
		}
		t.Logf("cycle %d (%s): killed after %v", cycle+1, m, run)
	}
	if images[wal.CompressionZstd] == 0 || images[wal.CompressionLZ4] == 0 {
		t.Fatalf("recovery never met compressed images: %v", images)
	}
	t.Logf("images replayed: %v", images)
	// Finally: recover with compression off, verify, shut down cleanly,
	// and verify again.
	s.extra = []string{"-c", "wal_compression=off"}
	s.start()
	c = s.conn()
	verifyLedger(t, c, led, r, len(methods))
	c.Close(context.Background())
	if err := s.p.Stop(); err != nil {
		t.Errorf("clean shutdown: %v", err)
	}
	s.start()
	c = s.conn()
	verifyLedger(t, c, led, r, len(methods)+1)
}
