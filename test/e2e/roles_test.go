package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/testutil"
)

var verifierRE = regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$`)

func roleDSN(s *testutil.Server, user, password string) string {
	if password != "" {
		return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", user, password, s.Port)
	}
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", user, s.Port)
}

func tryConnect(dsn string) error {
	c, err := pgx.Connect(context.Background(), dsn)
	if err == nil {
		c.Close(context.Background())
	}
	return err
}

func queryString(t *testing.T, c *pgx.Conn, q string) string {
	t.Helper()
	var s string
	if err := c.QueryRow(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestRoleDDL(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	if tag := exec(t, c, "CREATE ROLE alice WITH LOGIN PASSWORD 'secret'"); tag != "CREATE ROLE" {
		t.Fatalf("tag %q", tag)
	}
	_, err := execErr(c, "CREATE ROLE alice")
	if pe := wantState(t, "duplicate role", err, "42710"); pe.Message != `role "alice" already exists` {
		t.Errorf("message %q", pe.Message)
	}
	exec(t, c, "CREATE USER bob")
	exec(t, c, "CREATE ROLE carol NOLOGIN SUPERUSER PASSWORD NULL")
	_, err = execErr(c, "ALTER ROLE nobody PASSWORD 'x'")
	if pe := wantState(t, "alter missing role", err, "42704"); pe.Message != `role "nobody" does not exist` {
		t.Errorf("message %q", pe.Message)
	}
	_, err = execErr(c, "DROP ROLE nobody")
	wantState(t, "drop missing role", err, "42704")
	exec(t, c, "DROP ROLE IF EXISTS nobody")
	_, err = execErr(c, "DROP ROLE postgres")
	wantState(t, "drop current user", err, "55006")

	got := queryString(t, c, "SELECT string_agg(rolname || ':' || rolsuper || ':' || rolcanlogin || ':' || (rolpassword IS NULL), ',' ORDER BY oid) FROM pg_authid WHERE rolname !~ '^pg_'")
	if got != "postgres:true:true:true,alice:false:true:false,bob:false:true:true,carol:true:false:true" {
		t.Errorf("pg_authid: %s", got)
	}
	v := queryString(t, c, "SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'")
	if !verifierRE.MatchString(v) {
		t.Errorf("verifier %q", v)
	}
	// A verifier is stored as given.
	exec(t, c, "ALTER ROLE bob PASSWORD '"+v+"'")
	if v2 := queryString(t, c, "SELECT rolpassword FROM pg_authid WHERE rolname = 'bob'"); v2 != v {
		t.Errorf("bob's verifier %q, want %q", v2, v)
	}
	if got := queryString(t, c, "SELECT string_agg(rolname || ':' || rolpassword, ',' ORDER BY oid) FROM pg_roles WHERE rolname !~ '^pg_'"); got != "postgres:********,alice:********,bob:********,carol:********" {
		t.Errorf("pg_roles: %s", got)
	}
	if got := queryString(t, c, "SELECT string_agg(usename, ',' ORDER BY usesysid) FROM pg_user"); got != "postgres,alice,bob" {
		t.Errorf("pg_user: %s", got)
	}
	exec(t, c, "ALTER ROLE alice WITH NOLOGIN CREATEDB")
	if got := queryString(t, c, "SELECT rolcanlogin::text || rolcreatedb::text FROM pg_roles WHERE rolname = 'alice'"); got != "falsetrue" {
		t.Errorf("after ALTER: %s", got)
	}
	// Transactional.
	exec(t, c, "BEGIN")
	exec(t, c, "CREATE ROLE dave")
	exec(t, c, "DROP ROLE bob")
	exec(t, c, "ROLLBACK")
	if got := queryString(t, c, "SELECT string_agg(rolname, ',' ORDER BY oid) FROM pg_roles WHERE rolname !~ '^pg_'"); got != "postgres,alice,bob,carol" {
		t.Errorf("after rollback: %s", got)
	}
	exec(t, c, "DROP ROLE bob, carol")
	if got := queryString(t, c, "SELECT string_agg(rolname, ',' ORDER BY oid) FROM pg_roles WHERE rolname !~ '^pg_'"); got != "postgres,alice" {
		t.Errorf("after drop: %s", got)
	}
}

// TestTrustAuth: trust on loopback by default; the role must still exist
// and be allowed to log in.
func TestTrustAuth(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	exec(t, c, "CREATE ROLE nologin")
	exec(t, c, "CREATE USER erin")
	if err := tryConnect(roleDSN(s, "erin", "")); err != nil {
		t.Fatalf("trust login: %v", err)
	}
	err := tryConnect(roleDSN(s, "ghost", ""))
	if pe := wantState(t, "unknown role", err, "28000"); pe.Message != `role "ghost" does not exist` {
		t.Errorf("message %q", pe.Message)
	}
	err = tryConnect(roleDSN(s, "nologin", ""))
	if pe := wantState(t, "nologin role", err, "28000"); pe.Message != `role "nologin" is not permitted to log in` {
		t.Errorf("message %q", pe.Message)
	}
	err = tryConnect(fmt.Sprintf("postgres://erin@127.0.0.1:%d/other?sslmode=disable", s.Port))
	wantState(t, "unknown database", err, "3D000")
	// A non-superuser may not create roles but may change its password.
	ec, err := pgx.Connect(context.Background(), roleDSN(s, "erin", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close(context.Background())
	_, err = execErr(ec, "CREATE ROLE x")
	wantState(t, "create role as non-superuser", err, "42501")
	exec(t, ec, "ALTER ROLE erin PASSWORD 'pw'")
	if got := queryString(t, ec, "SHOW is_superuser"); got != "off" {
		t.Errorf("is_superuser = %s", got)
	}
}

// TestSCRAMAuth sets passwords with trust, then restarts the server with
// auth_loopback = scram-sha-256 (roles persist across the restart).
func TestSCRAMAuth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s := testutil.Start(t, testutil.Options{Dir: dir})
	c := connect(t, s.DSN())
	exec(t, c, "ALTER ROLE postgres PASSWORD 'pgpass'")
	exec(t, c, "CREATE USER alice PASSWORD 'wonder land'")
	exec(t, c, "CREATE USER nopass")
	exec(t, c, "CREATE ROLE locked PASSWORD 'pw'")
	exec(t, c, "CREATE USER expired PASSWORD 'pw' VALID UNTIL '2001-01-01'")
	c.Close(context.Background())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = testutil.Start(t, testutil.Options{Dir: dir, Conf: map[string]string{"auth_loopback": "scram-sha-256"}})
	for _, tc := range []struct{ user, pw, code string }{
		{"postgres", "pgpass", ""},
		{"alice", "wonder%20land", ""},
		{"alice", "wrong", "28P01"},
		{"postgres", "", "28P01"},
		{"nopass", "anything", "28P01"},
		{"ghost", "x", "28P01"},
		{"expired", "pw", "28P01"},
		{"locked", "pw", "28000"},
	} {
		err := tryConnect(roleDSN(s, tc.user, tc.pw))
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s/%s: %v", tc.user, tc.pw, err)
			}
			continue
		}
		pe := wantState(t, tc.user+"/"+tc.pw, err, tc.code)
		want := fmt.Sprintf(`password authentication failed for user "%s"`, tc.user)
		if tc.code == "28000" {
			want = fmt.Sprintf(`role "%s" is not permitted to log in`, tc.user)
		}
		if pe.Message != want {
			t.Errorf("%s: message %q, want %q", tc.user, pe.Message, want)
		}
	}

	// lib/pq speaks SCRAM too.
	db, err := sql.Open("postgres", roleDSN(s, "alice", "wonder%20land"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var who string
	if err := db.QueryRow("SHOW session_authorization").Scan(&who); err != nil {
		t.Fatalf("lib/pq: %v", err)
	}
	if who != "alice" {
		t.Errorf("session user %q", who)
	}
	db2, _ := sql.Open("postgres", roleDSN(s, "alice", "nope"))
	defer db2.Close()
	if err := db2.Ping(); err == nil || !strings.Contains(err.Error(), "28P01") && !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("lib/pq wrong password: %v", err)
	}
}

// TestAuthidUpgrade: a data directory made before pg_authid existed gets
// it (with postgres) at start, durably.
func TestAuthidUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	catalog.LegacyBootstrap = true
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	catalog.LegacyBootstrap = false
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	exec(t, c, "CREATE ROLE frank")
	c.Close(context.Background())
	s.Close()
	s = testutil.Start(t, testutil.Options{Dir: dir})
	c = connect(t, s.DSN())
	if got := queryString(t, c, "SELECT string_agg(oid::text || rolname, ',' ORDER BY oid) FROM pg_authid"); !strings.HasPrefix(got, "10postgres,") || !strings.HasSuffix(got, "frank") {
		t.Errorf("pg_authid: %s", got)
	}
	if got := queryString(t, c, "SELECT count(*)::text FROM pg_class WHERE relname = 'pg_authid'"); got != "1" {
		t.Errorf("pg_class rows for pg_authid: %s", got)
	}
}
