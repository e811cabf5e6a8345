package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestSequenceErrorMessages checks the text of the sequence errors against
// what PostgreSQL 15 prints (the SQL script checks only SQLSTATEs).
func TestSequenceErrorMessages(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	for _, sql := range []string{
		"CREATE SEQUENCE es MAXVALUE 2",
		"CREATE SEQUENCE edown INCREMENT -1 MINVALUE -1 MAXVALUE 0",
		"CREATE SEQUENCE efresh",
		"CREATE TABLE et (id int GENERATED ALWAYS AS IDENTITY, v int)",
		"CREATE TABLE es2 (id serial)",
		"SELECT nextval('es'), nextval('es'), nextval('edown'), nextval('edown')",
	} {
		exec(t, c, sql)
	}
	for _, tc := range []struct{ sql, code, msg, detail, hint string }{
		{"SELECT nextval('es')", "2200H", `nextval: reached maximum value of sequence "es" (2)`, "", ""},
		{"SELECT nextval('edown')", "2200H", `nextval: reached minimum value of sequence "edown" (-1)`, "", ""},
		{"SELECT currval('edown2')", "42P01", `relation "edown2" does not exist`, "", ""},
		{"SELECT currval('efresh')", "55000", `currval of sequence "efresh" is not yet defined in this session`, "", ""},
		{"SELECT setval('es', 10)", "22003", `setval: value 10 is out of bounds for sequence "es" (1..2)`, "", ""},
		{"CREATE SEQUENCE ebad INCREMENT 0", "22023", "INCREMENT must not be zero", "", ""},
		{"CREATE SEQUENCE ebad MINVALUE 5 MAXVALUE 5", "22023", "MINVALUE (5) must be less than MAXVALUE (5)", "", ""},
		{"CREATE SEQUENCE ebad START 0", "22023", "START value (0) cannot be less than MINVALUE (1)", "", ""},
		{"CREATE SEQUENCE ebad START 10 MAXVALUE 5", "22023", "START value (10) cannot be greater than MAXVALUE (5)", "", ""},
		{"CREATE SEQUENCE ebad AS smallint MAXVALUE 100000", "22023", "MAXVALUE (100000) is out of range for sequence data type smallint", "", ""},
		{"CREATE SEQUENCE ebad AS smallint MINVALUE -100000", "22023", "MINVALUE (-100000) is out of range for sequence data type smallint", "", ""},
		{"CREATE SEQUENCE ebad CACHE 0", "22023", "CACHE (0) must be greater than zero", "", ""},
		{"CREATE SEQUENCE ebad AS text", "22023", "sequence type must be smallint, integer, or bigint", "", ""},
		{"CREATE SEQUENCE es", "42P07", `relation "es" already exists`, "", ""},
		{"ALTER SEQUENCE es RESTART 5", "22023", "RESTART value (5) cannot be greater than MAXVALUE (2)", "", ""},
		{"ALTER SEQUENCE es MINVALUE 10", "22023", "MINVALUE (10) must be less than MAXVALUE (2)", "", ""},
		{"SELECT nextval('et')", "42809", `"et" is not a sequence`, "", ""},
		{"INSERT INTO et VALUES (1, 1)", "428C9", `cannot insert a non-DEFAULT value into column "id"`,
			`Column "id" is an identity column defined as GENERATED ALWAYS.`, "Use OVERRIDING SYSTEM VALUE to override."},
		{"UPDATE et SET id = 3", "428C9", `column "id" can only be updated to DEFAULT`,
			`Column "id" is an identity column defined as GENERATED ALWAYS.`, ""},
		{"DROP SEQUENCE et_id_seq", "2BP01", "cannot drop sequence et_id_seq because column id of table et requires it",
			"", "You can drop column id of table et instead."},
		{"DROP SEQUENCE es2_id_seq", "2BP01", "cannot drop sequence es2_id_seq because other objects depend on it",
			"default value for column id of table es2 depends on sequence es2_id_seq", "Use DROP ... CASCADE to drop the dependent objects too."},
		{"DROP TABLE es", "42809", `"es" is not a table`, "", "Use DROP SEQUENCE to remove a sequence."},
		{"DROP SEQUENCE et", "42809", `"et" is not a sequence`, "", "Use DROP TABLE to remove a table."},
		{"INSERT INTO es VALUES (1, 1, true)", "42809", `cannot change sequence "es"`, "", ""},
		{"CREATE TABLE ebad (id text GENERATED ALWAYS AS IDENTITY)", "22023", "identity column type must be smallint, integer, or bigint", "", ""},
		{"CREATE TABLE ebad (id int DEFAULT 1 GENERATED ALWAYS AS IDENTITY)", "42601", `both default and identity specified for column "id" of table "ebad"`, "", ""},
		{"CREATE TABLE ebad (id serial DEFAULT 1)", "42601", `multiple default values specified for column "id" of table "ebad"`, "", ""},
		{"ALTER SEQUENCE es OWNED BY et.nope", "42703", `column "nope" of relation "et" does not exist`, "", ""},
		{"ALTER SEQUENCE es OWNED BY es2", "42601", "invalid OWNED BY option", "", "Specify OWNED BY table.column or OWNED BY NONE."},
	} {
		_, err := execErr(c, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Errorf("%s: want error %s, got %v", tc.sql, tc.code, err)
			continue
		}
		if pe.Code != tc.code || pe.Message != tc.msg || pe.Detail != tc.detail || pe.Hint != tc.hint {
			t.Errorf("%s:\n got %s %q detail %q hint %q\nwant %s %q detail %q hint %q", tc.sql, pe.Code, pe.Message, pe.Detail, pe.Hint, tc.code, tc.msg, tc.detail, tc.hint)
		}
	}
	fresh := connect(t, s.DSN())
	_, err := execErr(fresh, "SELECT lastval()")
	if pe := wantState(t, "lastval in a new session", err, "55000"); pe.Message != "lastval is not yet defined in this session" {
		t.Errorf("lastval: %q", pe.Message)
	}
}

// TestSequenceConcurrentNextval: sessions calling nextval at the same time
// get distinct values, with and without per-session caching, and serial
// inserts from all of them get distinct keys.
func TestSequenceConcurrentNextval(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE SEQUENCE plain")
	exec(t, c, "CREATE SEQUENCE cached CACHE 7 INCREMENT 3")
	exec(t, c, "CREATE TABLE ser (id bigserial, w int)")
	const workers, perWorker = 6, 150
	var mu sync.Mutex
	seen := map[string]map[int64]bool{"plain": {}, "cached": {}}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wc, err := pgx.Connect(context.Background(), s.DSN())
			if err != nil {
				errs <- err
				return
			}
			defer wc.Close(context.Background())
			for i := 0; i < perWorker; i++ {
				for _, seq := range []string{"plain", "cached"} {
					var v int64
					if err := wc.QueryRow(context.Background(), "SELECT nextval('"+seq+"')").Scan(&v); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					if seen[seq][v] {
						mu.Unlock()
						errs <- fmt.Errorf("%s handed out %d twice", seq, v)
						return
					}
					seen[seq][v] = true
					mu.Unlock()
				}
				if _, err := wc.Exec(context.Background(), fmt.Sprintf("INSERT INTO ser (w) VALUES (%d)", w)); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for seq, vals := range seen {
		if len(vals) != workers*perWorker {
			t.Errorf("%s: %d distinct values, want %d", seq, len(vals), workers*perWorker)
		}
	}
	// Without a cache the values are exactly 1..n.
	for v := int64(1); v <= workers*perWorker; v++ {
		if !seen["plain"][v] {
			t.Fatalf("plain: value %d never handed out", v)
		}
	}
	for v := range seen["cached"] {
		if (v-1)%3 != 0 {
			t.Fatalf("cached: %d is not on the INCREMENT 3 grid", v)
		}
	}
	if got := query(t, c, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM ser"); got != fmt.Sprintf("%d|%d|1|%d", workers*perWorker, workers*perWorker, workers*perWorker) {
		t.Errorf("serial ids: count|distinct|min|max = %s", got)
	}
}

// TestSequenceCrash: values handed out before a kill -9 are never handed
// out again after restart, whether the last WAL record for the sequence
// came before or after a checkpoint, and setval survives too.
func TestSequenceCrash(t *testing.T) {
	srv := newServer(t)
	srv.start()
	c := srv.conn()
	exec(t, c, "CREATE SEQUENCE cs")
	exec(t, c, "CREATE SEQUENCE cc CACHE 10")
	exec(t, c, "CREATE TABLE cser (id serial PRIMARY KEY, v int)")
	var maxSeen [3]atomic.Int64 // cs, cc, cser.id
	for cycle := 0; cycle < 4; cycle++ {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wc, err := pgx.Connect(ctx, srv.dsn())
				if err != nil {
					return
				}
				defer wc.Close(context.Background())
				for ctx.Err() == nil {
					var a, b, id int64
					if err := wc.QueryRow(ctx, "SELECT nextval('cs'), nextval('cc')").Scan(&a, &b); err != nil {
						return
					}
					if err := wc.QueryRow(ctx, "INSERT INTO cser (v) VALUES (1) RETURNING id").Scan(&id); err != nil {
						return
					}
					for i, v := range []int64{a, b, id} {
						for {
							old := maxSeen[i].Load()
							if v <= old || maxSeen[i].CompareAndSwap(old, v) {
								break
							}
						}
					}
				}
			}()
		}
		time.Sleep(300 * time.Millisecond)
		if cycle%2 == 1 {
			// The first nextval after a checkpoint must log again.
			if _, err := execErr(c, "CHECKPOINT"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		srv.kill()
		cancel()
		wg.Wait()
		srv.start()
		c = srv.conn()
		for i, q := range []string{"SELECT nextval('cs')", "SELECT nextval('cc')", "INSERT INTO cser (v) VALUES (2) RETURNING id"} {
			got := queryInt(t, c, q)
			if got <= maxSeen[i].Load() {
				t.Fatalf("cycle %d: %s = %d after the crash, but %d was handed out before", cycle, q, got, maxSeen[i].Load())
			}
			maxSeen[i].Store(got)
		}
		if maxSeen[0].Load() < 2 {
			t.Fatalf("cycle %d: the workload handed out nothing", cycle)
		}
	}
	// Deterministically: a checkpoint writes the page with log_cnt values
	// still to go; the nextval after it must log again, or redo from the
	// new redo point would leave the checkpointed page to hand them out
	// a second time.
	exec(t, c, "CREATE SEQUENCE ck")
	exec(t, c, "SELECT nextval('ck'), nextval('ck'), nextval('ck')")
	exec(t, c, "CHECKPOINT")
	last := queryInt(t, c, "SELECT max(v) FROM (SELECT nextval('ck') AS v FROM generate_series(1, 5)) x")
	srv.kill()
	srv.start()
	c = srv.conn()
	if got := queryInt(t, c, "SELECT nextval('ck')"); got <= last {
		t.Fatalf("nextval after checkpoint and crash = %d, but %d was handed out before", got, last)
	}
	// RESTART moves the sequence to a new file; that survives too.
	exec(t, c, "ALTER SEQUENCE ck RESTART WITH 500")
	if got := queryInt(t, c, "SELECT nextval('ck')"); got != 500 {
		t.Fatalf("nextval after RESTART WITH 500 = %d", got)
	}
	srv.kill()
	srv.start()
	c = srv.conn()
	if got := queryInt(t, c, "SELECT nextval('ck')"); got <= 500 || got > 600 {
		t.Fatalf("nextval after RESTART, nextval 500 and a crash = %d", got)
	}
	// setval is durable on its own.
	exec(t, c, "SELECT setval('cs', 100000)")
	srv.kill()
	srv.start()
	c = srv.conn()
	if got := queryInt(t, c, "SELECT nextval('cs')"); got != 100001 {
		t.Fatalf("nextval after setval(100000) and a crash = %d", got)
	}
}

// TestPsqlDescribeSequences compares psql's \d of serial and identity
// columns and of sequences, and \ds, with PostgreSQL 15's output
// (testdata/psql/seq_*.out, captured after running seq_setup.sql there).
func TestPsqlDescribeSequences(t *testing.T) {
	psql := needPsql(t)
	s := testutil.Start(t, testutil.Options{})
	run := psqlRunner(t, psql, s.Port)
	run("-q", "-f", filepath.Join("testdata", "psql", "seq_setup.sql"))
	for _, tc := range []struct{ cmd, file string }{
		{`\d st`, "seq_d_st.out"},
		{`\d ss`, "seq_d_ss.out"},
		{`\d sdown`, "seq_d_sdown.out"},
		{`\d st_id_seq`, "seq_d_st_id_seq.out"},
		{`\d st_w_seq`, "seq_d_st_w_seq.out"},
		{`\ds`, "seq_ds.out"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "psql", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := run("-c", tc.cmd); got != string(want) {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tc.cmd, got, want)
		}
	}
}

// TestSequenceCatalogUpgrade: a data directory made before pg_sequence
// and pg_depend existed gets them at start, and sequences then work and
// persist.
func TestSequenceCatalogUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	catalog.LegacyBootstrap = true
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	catalog.LegacyBootstrap = false
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	if got := query(t, c, "SELECT count(*) FROM pg_class WHERE relname IN ('pg_sequence', 'pg_depend')"); got != "2" {
		t.Fatalf("catalogs after upgrade: %s", got)
	}
	exec(t, c, "CREATE TABLE up (id serial, v text)")
	exec(t, c, "INSERT INTO up (v) VALUES ('a'), ('b')")
	c.Close(context.Background())
	s.Close()
	s = testutil.Start(t, testutil.Options{Dir: dir})
	c = connect(t, s.DSN())
	if got := query(t, c, "INSERT INTO up (v) VALUES ('c') RETURNING id"); got != "3" {
		t.Errorf("serial after restart: %s", got)
	}
	if got := query(t, c, "SELECT count(*) FROM pg_class WHERE relname IN ('pg_sequence', 'pg_depend')"); got != "2" {
		t.Errorf("catalogs after restart: %s", got)
	}
}
