package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestRoleMembershipUpgrade: a data directory made before pg_auth_members
// existed gets it at start (with initdb's pg_monitor grants), and role
// memberships granted in it survive a restart.
func TestRoleMembershipUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	catalog.LegacyBootstrap = true
	s, err := testutil.StartE(testutil.Options{Dir: dir}, t.TempDir)
	catalog.LegacyBootstrap = false
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	exec(t, c, "CREATE ROLE up_group")
	exec(t, c, "CREATE ROLE up_user IN ROLE up_group")
	exec(t, c, "GRANT up_group TO postgres WITH ADMIN OPTION")
	c.Close(context.Background())
	s.Close()
	s = testutil.Start(t, testutil.Options{Dir: dir})
	c = connect(t, s.DSN())
	const q = `SELECT string_agg(x, ',') FROM (SELECT r.rolname || '>' || m.rolname || ':' || a.admin_option::text AS x
		FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member ORDER BY 1) s`
	want := "pg_read_all_settings>pg_monitor:false,pg_read_all_stats>pg_monitor:false,pg_stat_scan_tables>pg_monitor:false," +
		"up_group>postgres:true,up_group>up_user:false"
	if got := queryString(t, c, q); got != want {
		t.Errorf("pg_auth_members:\n got %s\nwant %s", got, want)
	}
	if got := queryString(t, c, "SELECT count(*)::text FROM pg_class WHERE relname = 'pg_auth_members'"); got != "1" {
		t.Errorf("pg_class rows for pg_auth_members: %s", got)
	}
	if got := queryString(t, c, "SELECT pg_has_role('up_user', 'up_group', 'USAGE')::text"); got != "true" {
		t.Errorf("pg_has_role after restart: %s", got)
	}
}
