package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestClientMinMessages checks that client_min_messages decides which
// notices reach the client, for the server's own notices and for PL/pgSQL
// RAISE alike, and that INFO always does (as in PostgreSQL).
func TestClientMinMessages(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	var notices []string
	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	exec := func(sql string) {
		t.Helper()
		if _, err := c.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	raise := `DO $$ BEGIN RAISE NOTICE 'n'; RAISE WARNING 'w'; RAISE INFO 'i'; RAISE DEBUG 'd'; END $$`
	cases := []struct {
		level string
		want  string
	}{
		{"notice", "NOTICE: table \"nosuch\" does not exist, skipping|NOTICE: n|WARNING: w|INFO: i"},
		{"warning", "WARNING: w|INFO: i"},
		{"error", "INFO: i"},
		// (no DROP here: PostgreSQL also sends a DEBUG line of its own for it)
		{"debug1", "NOTICE: n|WARNING: w|INFO: i|DEBUG: d"},
	}
	for _, tc := range cases {
		exec("SET client_min_messages = " + tc.level)
		notices = nil
		if tc.level != "debug1" {
			exec("DROP TABLE IF EXISTS nosuch")
		}
		exec(raise)
		if got := strings.Join(notices, "|"); got != tc.want {
			t.Errorf("client_min_messages=%s: got %q, want %q", tc.level, got, tc.want)
		}
	}
	// A SET earlier in the same query string counts for what follows it.
	exec("SET client_min_messages = notice")
	notices = nil
	exec("SET client_min_messages = warning; DROP TABLE IF EXISTS nosuch")
	if len(notices) != 0 {
		t.Errorf("notices after SET client_min_messages = warning in the same string: %q", notices)
	}
}
