package e2e

import (
	"context"
	"reflect"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestRoleMembershipMessages checks what SQL scripts cannot: the NOTICE
// and WARNING texts of GRANT/REVOKE role, error messages, and the
// permission checks a role without superuser goes through (PostgreSQL
// 15's texts, captured from the reference server).
func TestRoleMembershipMessages(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	su := vconn(t, roleDSN(s, "postgres", ""))
	for _, q := range []string{
		"CREATE ROLE rmx_a", "CREATE ROLE rmx_b", "CREATE ROLE rmx_c", "CREATE ROLE rmx_admin LOGIN", "CREATE ROLE rmx_su SUPERUSER",
		"GRANT rmx_a TO rmx_admin WITH ADMIN OPTION",
		"GRANT rmx_a TO rmx_admin",
		"REVOKE rmx_b FROM rmx_c",
	} {
		exec(t, su.Conn, q)
	}
	wantNotices := []string{
		`NOTICE:  role "rmx_admin" is already a member of role "rmx_a"`,
		`WARNING:  role "rmx_c" is not a member of role "rmx_b"`,
	}
	su.mu.Lock()
	got := append([]string(nil), su.lines...)
	su.mu.Unlock()
	if !reflect.DeepEqual(got, wantNotices) {
		t.Errorf("notices:\n got %q\nwant %q", got, wantNotices)
	}
	_, err := execErr(su.Conn, "GRANT rmx_admin TO rmx_a")
	if pe := wantState(t, "circular grant", err, "0LP01"); pe.Message != `role "rmx_admin" is a member of role "rmx_a"` {
		t.Errorf("message %q", pe.Message)
	}
	_, err = execErr(su.Conn, "GRANT rmx_nope TO rmx_a")
	if pe := wantState(t, "missing role", err, "42704"); pe.Message != `role "rmx_nope" does not exist` {
		t.Errorf("message %q", pe.Message)
	}

	admin := connect(t, roleDSN(s, "rmx_admin", ""))
	defer admin.Close(context.Background())
	exec(t, admin, "GRANT rmx_a TO rmx_c")
	for _, tc := range []struct{ sql, code, msg string }{
		{"GRANT rmx_b TO rmx_c", "42501", `must have admin option on role "rmx_b"`},
		{"REVOKE rmx_b FROM rmx_c", "42501", `must have admin option on role "rmx_b"`},
		{"GRANT rmx_su TO rmx_c", "42501", "must be superuser to alter superusers"},
	} {
		_, err := execErr(admin, tc.sql)
		if pe := wantState(t, tc.sql, err, tc.code); pe.Message != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.sql, pe.Message, tc.msg)
		}
	}
	if got := queryString(t, admin, "SELECT pg_has_role('rmx_a', 'MEMBER WITH ADMIN OPTION')::text || pg_has_role('rmx_b', 'MEMBER')::text"); got != "truefalse" {
		t.Errorf("pg_has_role for the current user: %s", got)
	}
	admin.Close(context.Background())

	exec(t, su.Conn, "DROP ROLE rmx_a")
	if got := queryString(t, su.Conn, "SELECT count(*)::text FROM pg_auth_members WHERE member >= 16384 OR roleid >= 16384"); got != "0" {
		t.Errorf("memberships left after DROP ROLE: %s", got)
	}
}
