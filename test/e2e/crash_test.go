package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// server is a tidal child process on a data directory, restarted across
// kills.
type server struct {
	t   *testing.T
	dir string
	p   *testutil.Process
	// extra are more arguments for the next starts ("-c", "name=value").
	extra []string
}

func newServer(t *testing.T) *server {
	s := &server{t: t, dir: filepath.Join(t.TempDir(), "data")}
	if keep := os.Getenv("TIDAL_CRASH_DIR"); keep != "" {
		// Keep the data directory for a post-mortem.
		s.dir = filepath.Join(keep, t.Name())
		os.RemoveAll(s.dir)
	}
	t.Cleanup(func() {
		if s.p != nil {
			s.p.Kill()
		}
		if t.Failed() {
			s.dumpLog()
		}
	})
	return s
}

func (s *server) start() {
	s.t.Helper()
	s.p = testutil.StartProcess(s.t, s.dir, testutil.FreePort(s.t), s.extra...)
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill() {
	s.p.Kill()
}

func (s *server) dsn() string { return s.p.DSN() + "&default_query_exec_mode=simple_protocol" }

func (s *server) conn() *pgx.Conn {
	s.t.Helper()
	c, err := pgx.Connect(context.Background(), s.dsn())
	if err != nil {
		s.t.Fatalf("connect: %v", err)
	}
	s.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// dumpLog prints the end of the server's log (tidal writes it to
// DATADIR/log/tidal.log across restarts).
func (s *server) dumpLog() {
	b, err := os.ReadFile(filepath.Join(s.dir, "log", "tidal.log"))
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	s.t.Logf("server log (tail):\n%s", strings.Join(lines, "\n"))
}

// interruptRecovery starts the server binary on the directory and kills it
// after d, typically while it is still replaying WAL.
func (s *server) interruptRecovery(d time.Duration) {
	s.t.Helper()
	args := append([]string{"serve", "-D", s.dir, "-p", strconv.Itoa(testutil.FreePort(s.t)), "-c", "shared_buffers=32MB"}, s.extra...)
	cmd := osexec.Command(testutil.Binary(s.t), args...)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	time.Sleep(d)
	cmd.Process.Kill()
	cmd.Wait()
}

// The acceptance check: a table written, updated and killed -9
// comes back with every row and working indexes.
func TestCrashBoatCount(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	for _, q := range []string{
		"CREATE TABLE boat (id int PRIMARY KEY, name text, weight float8)",
		"INSERT INTO boat SELECT i, md5(i::text), log(i) FROM generate_series(1, 20000) AS i",
		"UPDATE boat SET name = 'trade winds' WHERE mod(id, 1000) = 1",
		"DELETE FROM boat WHERE id > 19990",
	} {
		exec(t, c, q)
	}
	s.kill()
	s.start()
	c = s.conn()
	checks := []struct{ sql, want string }{
		{"SELECT count(*) FROM boat", "19990"},
		{"SELECT count(*) FROM boat WHERE name = 'trade winds'", "20"},
		{"SELECT count(DISTINCT id) FROM boat", "19990"},
		{"SELECT min(id), max(id) FROM boat", "1|19990"},
		{"SELECT name FROM boat WHERE id = 5001", "trade winds"},
		{"SELECT name = md5('5002') FROM boat WHERE id = 5002", "true"},
		{"SELECT weight = log(1000) FROM boat WHERE id = 1000", "true"},
		{"SELECT count(*) FROM boat WHERE id = 19995", "0"},
		{"SELECT count(*) FROM boat WHERE id BETWEEN 1001 AND 2000", "1000"},
		{"SELECT count(*) FROM boat WHERE id + 0 BETWEEN 1001 AND 2000", "1000"},
	}
	for _, ck := range checks {
		if got := query(t, c, ck.sql); got != ck.want {
			t.Errorf("after kill -9: %s = %q, want %q", ck.sql, got, ck.want)
		}
	}
	plan := query(t, c, "EXPLAIN SELECT name FROM boat WHERE id = 5001")
	if !strings.Contains(plan, "Index") {
		t.Errorf("lookup by id does not use the index: %s", plan)
	}
	// The index still accepts inserts and enforces uniqueness.
	exec(t, c, "INSERT INTO boat VALUES (20001, 'new', 0)")
	_, err := execErr(c, "INSERT INTO boat VALUES (5001, 'dup', 0)")
	wantState(t, "duplicate id after recovery", err, "23505")
	if got := query(t, c, "SELECT name FROM boat WHERE id = 20001"); got != "new" {
		t.Errorf("row inserted after recovery: %q", got)
	}
}

// Outcome of a transaction as the client knows it.
type outcome uint8

const (
	neverCommitted outcome = iota + 1 // COMMIT not sent, rolled back or failed
	inDoubt                           // COMMIT sent, answer not received
	acknowledged                      // COMMIT answered "COMMIT"
)

// ledger is what the clients know about each id they tried to insert.
type ledger struct {
	mu     sync.Mutex
	state  map[int64]outcome
	worker map[int64]int
}

func (l *ledger) set(id int64, w int, o outcome) {
	l.mu.Lock()
	l.state[id] = o
	l.worker[id] = w
	l.mu.Unlock()
}

// crashWorkload runs client transactions against the server until stop is
// closed (the server is about to be killed). Error reports from after the
// kill are expected; earlier ones fail the test.
type crashWorkload struct {
	t      *testing.T
	dsn    string
	led    *ledger
	nextID *atomic.Int64
	seed   uint64
	killed atomic.Bool // stop; with crash, errors from now on are expected
	crash  bool
}

const crashWorkers = 4

func (cw *crashWorkload) fail(format string, args ...any) {
	if !cw.crash || !cw.killed.Load() {
		cw.t.Errorf(format, args...)
	}
}

// worker w runs small transactions; each inserts one row with a fresh id
// and bumps the worker's counter row, so counter n must always equal the
// number of the worker's rows.
func (cw *crashWorkload) worker(w int, wg *sync.WaitGroup) {
	defer wg.Done()
	r := rand.New(rand.NewPCG(cw.seed, uint64(w)))
	ctx := context.Background()
	c, err := pgx.Connect(ctx, cw.dsn)
	if err != nil {
		cw.fail("worker %d: connect: %v", w, err)
		return
	}
	defer c.Close(ctx)
	run := func(sql string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		tag, err := c.Exec(ctx, sql)
		return tag.String(), err
	}
	for !cw.killed.Load() {
		id := cw.nextID.Add(1)
		ins := fmt.Sprintf("INSERT INTO ledger VALUES (%d, %d, md5('%d'))", id, w, id)
		bump := fmt.Sprintf("UPDATE counters SET n = n + 1 WHERE w = %d", w)
		kind := r.IntN(11)
		cw.led.set(id, w, neverCommitted)
		switch {
		case kind < 6: // BEGIN … COMMIT
			if _, err := run("BEGIN"); err != nil {
				cw.fail("worker %d BEGIN: %v", w, err)
				return
			}
			if _, err := run(ins); err != nil {
				cw.fail("worker %d %s: %v", w, ins, err)
				return
			}
			if tag, err := run(bump); err != nil || tag != "UPDATE 1" {
				// Diagnose: is the counter row gone, or only unreachable
				// through the index?
				var byIndex, byScan int
				c.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM counters WHERE w = %d", w)).Scan(&byIndex)
				c.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM counters WHERE w + 0 = %d", w)).Scan(&byScan)
				cw.fail("worker %d %s: %q %v (counter row found %d times by index, %d by seq scan)", w, bump, tag, err, byIndex, byScan)
				return
			}
			cw.led.set(id, w, inDoubt)
			tag, err := run("COMMIT")
			if err != nil {
				cw.fail("worker %d COMMIT: %v", w, err)
				return
			}
			if tag != "COMMIT" {
				cw.fail("worker %d COMMIT answered %q", w, tag)
				return
			}
			cw.led.set(id, w, acknowledged)
		case kind < 8: // one implicit transaction of two statements
			cw.led.set(id, w, inDoubt)
			if _, err := run(ins + "; " + bump); err != nil {
				cw.fail("worker %d implicit transaction: %v", w, err)
				return
			}
			cw.led.set(id, w, acknowledged)
		case kind < 9: // rolled back
			for _, q := range []string{"BEGIN", ins, bump, "ROLLBACK"} {
				if _, err := run(q); err != nil {
					cw.fail("worker %d %s: %v", w, q, err)
					return
				}
			}
		case kind < 10: // savepoints: one rolled back, one released, one failed
			if !cw.savepoints(run, w, id, ins, bump) {
				return
			}
		default: // fails on a duplicate key, then COMMIT reports ROLLBACK
			for _, q := range []string{"BEGIN", ins, bump} {
				if _, err := run(q); err != nil {
					cw.fail("worker %d %s: %v", w, q, err)
					return
				}
			}
			if _, err := run(ins); sqlState(err) != "23505" {
				cw.fail("worker %d duplicate insert: want 23505, got %v", w, err)
				return
			}
			tag, err := run("COMMIT")
			if err != nil || tag != "ROLLBACK" {
				cw.fail("worker %d COMMIT of failed block: %q %v", w, tag, err)
				return
			}
		}
	}
}

// savepoints runs a block whose first row is written in a savepoint that
// is rolled back and whose second in one that is released, then fails a
// third savepoint on a duplicate key and rolls back to it before
// committing: only the second row (id2) may survive, with one counter
// bump. It reports whether the worker may go on.
func (cw *crashWorkload) savepoints(run func(string) (string, error), w int, id int64, ins, bump string) bool {
	id2 := cw.nextID.Add(1)
	cw.led.set(id2, w, neverCommitted)
	ins2 := fmt.Sprintf("INSERT INTO ledger VALUES (%d, %d, md5('%d'))", id2, w, id2)
	for _, q := range []string{"BEGIN", "SAVEPOINT a", ins, bump, "ROLLBACK TO a", "SAVEPOINT b", ins2, bump, "RELEASE b", "SAVEPOINT c"} {
		if _, err := run(q); err != nil {
			cw.fail("worker %d %s: %v", w, q, err)
			return false
		}
	}
	if _, err := run(ins2); sqlState(err) != "23505" {
		cw.fail("worker %d duplicate insert in a savepoint: want 23505, got %v", w, err)
		return false
	}
	if _, err := run("ROLLBACK TO c"); err != nil {
		cw.fail("worker %d ROLLBACK TO c: %v", w, err)
		return false
	}
	cw.led.set(id2, w, inDoubt)
	tag, err := run("COMMIT")
	if err != nil || tag != "COMMIT" {
		cw.fail("worker %d COMMIT after savepoints: %q %v", w, tag, err)
		return false
	}
	cw.led.set(id2, w, acknowledged)
	return true
}

// dangler keeps transactions open (never committed) while the server is
// killed, with rows inserted and counter 0 updated, some of them in open
// or released savepoints.
func (cw *crashWorkload) dangler(wg *sync.WaitGroup) {
	defer wg.Done()
	r := rand.New(rand.NewPCG(cw.seed, 1000))
	ctx := context.Background()
	c, err := pgx.Connect(ctx, cw.dsn)
	if err != nil {
		cw.fail("dangler: connect: %v", err)
		return
	}
	defer c.Close(ctx)
	for !cw.killed.Load() {
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			cw.fail("dangler BEGIN: %v", err)
			return
		}
		for i := 0; i < 1+r.IntN(20) && !cw.killed.Load(); i++ {
			id := cw.nextID.Add(1)
			cw.led.set(id, 0, neverCommitted)
			q := fmt.Sprintf("INSERT INTO ledger VALUES (%d, 0, 'never'); UPDATE counters SET n = n + 1 WHERE w = 0", id)
			switch r.IntN(4) {
			case 0:
				q = "SAVEPOINT d; " + q
			case 1:
				q = "SAVEPOINT d; " + q + "; RELEASE d"
			}
			if _, err := c.Exec(ctx, q); err != nil {
				cw.fail("dangler: %v", err)
				return
			}
			time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
		}
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			cw.fail("dangler ROLLBACK: %v", err)
			return
		}
	}
}

// checkpointer forces checkpoints now and then, so that recovery starts
// from different redo points and full-page images get exercised.
func (cw *crashWorkload) checkpointer(wg *sync.WaitGroup) {
	defer wg.Done()
	r := rand.New(rand.NewPCG(cw.seed, 2000))
	c, err := pgx.Connect(context.Background(), cw.dsn)
	if err != nil {
		cw.fail("checkpointer: connect: %v", err)
		return
	}
	defer c.Close(context.Background())
	for !cw.killed.Load() {
		time.Sleep(time.Duration(50+r.IntN(300)) * time.Millisecond)
		if cw.killed.Load() {
			return
		}
		if _, err := c.Exec(context.Background(), "CHECKPOINT"); err != nil {
			cw.fail("CHECKPOINT: %v", err)
			return
		}
	}
}

// verifyLedger checks the recovered database against what the clients
// know, then settles the in-doubt ids (their fate is decided once the
// server has recovered and must not change afterwards).
func verifyLedger(t *testing.T, c *pgx.Conn, led *ledger, r *rand.Rand, cycle int) {
	t.Helper()
	ctx := context.Background()
	// Sequential scan: every row.
	rows, err := c.Query(ctx, "SELECT id, w FROM ledger")
	if err != nil {
		t.Fatalf("cycle %d: %v", cycle, err)
	}
	present := map[int64]int{}
	perWorker := map[int]int64{}
	for rows.Next() {
		var id int64
		var w int
		if err := rows.Scan(&id, &w); err != nil {
			t.Fatal(err)
		}
		if _, dup := present[id]; dup {
			t.Errorf("cycle %d: id %d present twice", cycle, id)
		}
		present[id] = w
		perWorker[w]++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("cycle %d: scan: %v", cycle, err)
	}
	led.mu.Lock()
	defer led.mu.Unlock()
	var lost, ghosts, phantoms, settledIn, settledOut int
	for id, o := range led.state {
		_, ok := present[id]
		switch {
		case o == acknowledged && !ok:
			lost++
			if lost <= 10 {
				t.Errorf("cycle %d: acknowledged id %d lost", cycle, id)
			}
		case o == neverCommitted && ok:
			ghosts++
			if ghosts <= 10 {
				t.Errorf("cycle %d: id %d of a transaction that never committed is present", cycle, id)
			}
		case o == inDoubt && ok:
			led.state[id] = acknowledged
			settledIn++
		case o == inDoubt:
			led.state[id] = neverCommitted
			settledOut++
		}
	}
	for id, w := range present {
		if _, ok := led.state[id]; !ok {
			phantoms++
			t.Errorf("cycle %d: id %d (worker %d) present but never inserted", cycle, id, w)
		} else if led.worker[id] != w {
			t.Errorf("cycle %d: id %d has worker %d, want %d", cycle, id, w, led.worker[id])
		}
	}
	acked := 0
	for _, o := range led.state {
		if o == acknowledged {
			acked++
		}
	}
	t.Logf("cycle %d: %d rows present; %d ids tracked, %d acknowledged; in doubt: %d committed, %d not", cycle, len(present), len(led.state), acked, settledIn, settledOut)
	if lost+ghosts+phantoms > 0 {
		t.Fatalf("cycle %d: %d acknowledged ids lost, %d uncommitted ids present, %d phantom ids", cycle, lost, ghosts, phantoms)
	}
	if n := queryInt(t, c, "SELECT count(*) FROM ledger"); n != int64(len(present)) {
		t.Errorf("cycle %d: count(*) = %d, but a scan returns %d rows", cycle, n, len(present))
	}
	// Atomicity: each worker's counter equals its number of rows; the
	// dangler (worker 0) never committed anything.
	crows, err := c.Query(ctx, "SELECT w, n FROM counters ORDER BY w")
	if err != nil {
		t.Fatal(err)
	}
	nCounters := 0
	for crows.Next() {
		var w int
		var n int64
		if err := crows.Scan(&w, &n); err != nil {
			t.Fatal(err)
		}
		nCounters++
		if n != perWorker[w] {
			t.Errorf("cycle %d: counter of worker %d is %d, but it has %d rows", cycle, w, n, perWorker[w])
		}
	}
	if crows.Err() != nil || nCounters != crashWorkers+1 {
		t.Errorf("cycle %d: %d counter rows (%v), want %d", cycle, nCounters, crows.Err(), crashWorkers+1)
	}
	// Index lookups agree with the sequential scan, for a sample of ids of
	// every kind, plus ids never used.
	ids := make([]int64, 0, len(led.state))
	for id := range led.state {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	if len(ids) > 300 {
		ids = ids[:300]
	}
	ids = append(ids, 0, -1, 1<<40)
	for _, id := range ids {
		want := int64(0)
		if _, ok := present[id]; ok {
			want = 1
		}
		if got := queryInt(t, c, fmt.Sprintf("SELECT count(*) FROM ledger WHERE id = %d", id)); got != want {
			t.Errorf("cycle %d: index lookup of id %d finds %d rows, the scan %d", cycle, id, got, want)
		}
	}
	for w := 0; w <= crashWorkers; w++ {
		if got := queryInt(t, c, fmt.Sprintf("SELECT n FROM counters WHERE w = %d", w)); got != perWorker[w] {
			t.Errorf("cycle %d: counter %d by index is %d, want %d", cycle, w, got, perWorker[w])
		}
		if got := queryInt(t, c, fmt.Sprintf("SELECT count(*) FROM ledger WHERE w = %d", w)); got != perWorker[w] {
			t.Errorf("cycle %d: worker %d rows by index on w: %d, by scan %d", cycle, w, got, perWorker[w])
		}
	}
	if max := queryInt(t, c, "SELECT coalesce(max(id), 0) FROM ledger"); max > 0 {
		lo := r.Int64N(max)
		hi := lo + 500
		want := 0
		for id := range present {
			if id >= lo && id <= hi {
				want++
			}
		}
		if got := queryInt(t, c, fmt.Sprintf("SELECT count(*) FROM ledger WHERE id BETWEEN %d AND %d", lo, hi)); got != int64(want) {
			t.Errorf("cycle %d: index range [%d,%d] has %d rows, the scan %d", cycle, lo, hi, got, want)
		}
	}
}

// Clients run committed, rolled-back, failed and never-finished
// transactions while the server is killed -9 at random moments, several
// times over on one data directory, sometimes again during or right after
// recovery. After each restart every acknowledged commit is there exactly
// once, nothing uncommitted is, counters match their rows (atomicity), and
// indexes agree with the heap.
//
// TIDAL_CRASH_SEED=n reruns a given schedule.
func TestCrashRandomKills(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("TIDAL_CRASH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (TIDAL_CRASH_SEED=%d reproduces this schedule)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 0))
	cycles := 8
	if testing.Short() {
		cycles = 3
	}

	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, "CREATE TABLE ledger (id bigint PRIMARY KEY, w int NOT NULL, payload text)")
	exec(t, c, "CREATE INDEX ledger_w ON ledger (w)")
	exec(t, c, "CREATE TABLE counters (w int PRIMARY KEY, n bigint NOT NULL)")
	exec(t, c, fmt.Sprintf("INSERT INTO counters SELECT i, 0 FROM generate_series(0, %d) AS i", crashWorkers))
	c.Close(context.Background())

	led := &ledger{state: map[int64]outcome{}, worker: map[int64]int{}}
	var nextID atomic.Int64
	for cycle := 1; cycle <= cycles; cycle++ {
		if cycle > 1 {
			s.start()
			c := s.conn()
			verifyLedger(t, c, led, r, cycle-1)
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
		run := time.Duration(200+r.IntN(1300)) * time.Millisecond
		time.Sleep(run)
		cw.killed.Store(true)
		s.kill()
		wg.Wait()
		t.Logf("cycle %d: killed after %v", cycle, run)
		if t.Failed() {
			return
		}
		switch r.IntN(3) {
		case 0: // kill again during recovery, maybe twice
			for i := 0; i < 1+r.IntN(2); i++ {
				d := time.Duration(r.IntN(60)) * time.Millisecond
				s.interruptRecovery(d)
				t.Logf("cycle %d: recovery killed after %v", cycle, d)
			}
		case 1: // kill right after recovery, before any client works
			s.start()
			s.kill()
			t.Logf("cycle %d: killed right after recovery", cycle)
		}
	}
	// Finally: recover, verify, shut down cleanly, and verify again.
	s.start()
	c = s.conn()
	verifyLedger(t, c, led, r, cycles)
	c.Close(context.Background())
	if err := s.p.Stop(); err != nil {
		t.Errorf("clean shutdown: %v", err)
	}
	s.start()
	c = s.conn()
	verifyLedger(t, c, led, r, cycles+1)
}

// The crash workload without the crash, against an in-process server (so
// that `go test -race` watches the engine): when the clients stop, every
// acknowledged transaction and nothing else is there, counters match, and
// indexes agree with the heap.
func TestConcurrentWorkloadInvariants(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connect(t, srv.DSN())
	exec(t, c, "CREATE TABLE ledger (id bigint PRIMARY KEY, w int NOT NULL, payload text)")
	exec(t, c, "CREATE INDEX ledger_w ON ledger (w)")
	exec(t, c, "CREATE TABLE counters (w int PRIMARY KEY, n bigint NOT NULL)")
	exec(t, c, fmt.Sprintf("INSERT INTO counters SELECT i, 0 FROM generate_series(0, %d) AS i", crashWorkers))
	led := &ledger{state: map[int64]outcome{}, worker: map[int64]int{}}
	var nextID atomic.Int64
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	cw := &crashWorkload{t: t, dsn: srv.DSN() + "&default_query_exec_mode=simple_protocol", led: led, nextID: &nextID, seed: seed}
	var wg sync.WaitGroup
	for w := 1; w <= crashWorkers; w++ {
		wg.Add(1)
		go cw.worker(w, &wg)
	}
	wg.Add(2)
	go cw.dangler(&wg)
	go cw.checkpointer(&wg)
	time.Sleep(1500 * time.Millisecond)
	// Stop between transactions: every outcome is then known.
	cw.killed.Store(true)
	wg.Wait()
	if t.Failed() {
		return
	}
	verifyLedger(t, c, led, rand.New(rand.NewPCG(seed, 1)), 0)
	led.mu.Lock()
	defer led.mu.Unlock()
	for id, o := range led.state {
		if o == inDoubt {
			t.Errorf("id %d in doubt without a crash", id)
		}
	}
}
