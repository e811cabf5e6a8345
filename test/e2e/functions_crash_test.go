package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestCrashFunctions: routines created, replaced, altered and dropped
// before a kill -9 are as they were committed after recovery (pg_proc
// is WAL-logged like every catalog), work, and a CREATE FUNCTION whose
// transaction never committed leaves no trace; a clean restart keeps
// them too.
func TestCrashFunctions(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	for _, q := range []string{
		"CREATE TABLE crew (id int, name text)",
		"INSERT INTO crew VALUES (1, 'ann'), (2, 'bo'), (3, 'cy')",
		"CREATE FUNCTION crew_name(int) RETURNS text LANGUAGE sql STABLE AS 'SELECT name FROM crew WHERE id = $1'",
		"CREATE FUNCTION crew_ids(lo int DEFAULT 2) RETURNS SETOF int LANGUAGE sql AS 'SELECT id FROM crew WHERE id >= lo ORDER BY id'",
		"CREATE FUNCTION crew_add(n text) RETURNS int LANGUAGE sql AS 'INSERT INTO crew SELECT max(id) + 1, n FROM crew RETURNING id'",
		"CREATE FUNCTION gone() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE OR REPLACE FUNCTION crew_name(int) RETURNS text LANGUAGE sql STABLE AS 'SELECT upper(name) FROM crew WHERE id = $1'",
		"ALTER FUNCTION crew_name(int) STRICT",
		"DROP FUNCTION gone()",
	} {
		exec(t, c, q)
	}
	open := s.conn()
	exec(t, open, "BEGIN")
	exec(t, open, "CREATE FUNCTION ghost() RETURNS int LANGUAGE sql AS 'SELECT 7'")
	exec(t, open, "ALTER FUNCTION crew_ids(int) IMMUTABLE")
	s.kill()

	check := func(when string) {
		c := s.conn()
		for _, ck := range []struct{ sql, want string }{
			{"SELECT crew_name(2)", "BO"},
			{"SELECT crew_name(NULL) IS NULL", "true"},
			{"SELECT string_agg(i::text, ',') FROM crew_ids() i WHERE i <= 3", "2,3"},
			{"SELECT proname || ':' || provolatile::text || ':' || proisstrict FROM pg_proc WHERE proname LIKE 'crew%' ORDER BY proname",
				"crew_add:v:false,crew_ids:v:false,crew_name:s:true"},
			{"SELECT count(*) FROM pg_proc WHERE proname IN ('gone', 'ghost')", "0"},
			{"SELECT pg_get_function_arguments('crew_ids'::regproc)", "lo integer DEFAULT 2"},
		} {
			if got := query(t, c, ck.sql); got != ck.want {
				t.Errorf("%s: %s = %q, want %q", when, ck.sql, got, ck.want)
			}
		}
		if _, err := queryErr(c, "SELECT ghost()"); sqlState(err) != "42883" {
			t.Errorf("%s: uncommitted function: got %v, want SQLSTATE 42883", when, err)
		}
	}
	s.start()
	check("after kill -9")
	c = s.conn()
	if got := query(t, c, "SELECT crew_add('dee')"); got != "4" {
		t.Errorf("data change through a function after recovery: got %q", got)
	}
	c.Close(context.Background())
	if err := s.p.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	s.start()
	check("after a clean restart")
}

// TestFunctionCatalogUpgrade: a data directory made before pg_proc and
// pg_language existed gets them (with pg_language's rows) at start-up,
// and functions made then survive a restart.
func TestFunctionCatalogUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	catalog.LegacyBootstrap = true
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	catalog.LegacyBootstrap = false
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	if got := queryString(t, c, "SELECT string_agg(lanname, ',' ORDER BY oid) FROM pg_language"); got != "internal,c,sql,plpgsql" {
		t.Errorf("pg_language after the upgrade: %s", got)
	}
	exec(t, c, "CREATE FUNCTION up_f(x int) RETURNS int LANGUAGE sql AS 'SELECT x * 2'")
	c.Close(context.Background())
	s.Close()
	s = testutil.Start(t, testutil.Options{Dir: dir})
	c = connect(t, s.DSN())
	if got := queryString(t, c, "SELECT up_f(21)::text"); got != "42" {
		t.Errorf("up_f(21) after restart: %s", got)
	}
}
