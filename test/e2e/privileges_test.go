package e2e

import (
	"context"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// Two login roles over real connections: the owner's table is closed to
// the other role (42501, for reads, writes and DDL, and inside a
// transaction block, which the error aborts), until the owner grants;
// the same connection then succeeds, and loses access again on REVOKE.
// A prepared statement planned while access was denied is not kept
// allowed, and one planned while allowed is refused after the REVOKE.
func TestPrivilegesTwoRoles(t *testing.T) {
	ctx := context.Background()
	s := testutil.Start(t, testutil.Options{})
	admin := connect(t, s.DSN())
	exec(t, admin, "CREATE ROLE owner_role LOGIN")
	exec(t, admin, "CREATE ROLE app_role LOGIN")
	exec(t, admin, "GRANT ALL ON SCHEMA public TO owner_role")

	owner := connect(t, roleDSN(s, "owner_role", ""))
	exec(t, owner, "CREATE TABLE accounts (id int PRIMARY KEY, balance int)")
	exec(t, owner, "INSERT INTO accounts VALUES (1, 100), (2, 200)")

	app := connect(t, roleDSN(s, "app_role", ""))
	if u := queryString(t, app, "SELECT current_user::text"); u != "app_role" {
		t.Fatalf("current_user %q", u)
	}
	for _, q := range []string{"SELECT * FROM accounts", "INSERT INTO accounts VALUES (3, 0)",
		"UPDATE accounts SET balance = 0", "DELETE FROM accounts", "TRUNCATE accounts"} {
		_, err := execErr(app, q)
		if pe := wantState(t, q, err, "42501"); pe.Message != "permission denied for table accounts" {
			t.Errorf("%s: message %q", q, pe.Message)
		}
	}
	_, err := execErr(app, "DROP TABLE accounts")
	if pe := wantState(t, "drop", err, "42501"); pe.Message != "must be owner of table accounts" {
		t.Errorf("drop: message %q", pe.Message)
	}

	// A denial inside a block aborts it, as any error does.
	exec(t, app, "BEGIN")
	_, err = execErr(app, "SELECT balance FROM accounts")
	wantState(t, "select in block", err, "42501")
	_, err = execErr(app, "SELECT 1")
	wantState(t, "after denial", err, "25P02")
	exec(t, app, "ROLLBACK")

	// Prepared while denied: Prepare itself plans and fails.
	if _, err := app.Prepare(ctx, "sum", "SELECT sum(balance)::int FROM accounts"); err == nil {
		t.Fatal("prepare while denied succeeded")
	}

	exec(t, owner, "GRANT SELECT, UPDATE (balance) ON accounts TO app_role")
	if got := queryString(t, app, "SELECT sum(balance)::text FROM accounts"); got != "300" {
		t.Fatalf("sum after grant: %q", got)
	}
	exec(t, app, "UPDATE accounts SET balance = balance + 1 WHERE id = 1")
	_, err = execErr(app, "UPDATE accounts SET id = 5 WHERE id = 1")
	wantState(t, "update of a column not granted", err, "42501")
	if _, err := app.Prepare(ctx, "bal", "SELECT balance FROM accounts WHERE id = $1"); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	var bal int
	if err := app.QueryRow(ctx, "bal", 1).Scan(&bal); err != nil || bal != 101 {
		t.Fatalf("prepared select: %d, %v", bal, err)
	}

	exec(t, owner, "REVOKE SELECT ON accounts FROM app_role")
	err = app.QueryRow(ctx, "bal", 1).Scan(&bal)
	wantState(t, "prepared select after revoke", err, "42501")

	// The superuser passes every check; SET ROLE makes it app_role.
	if got := queryString(t, admin, "SELECT count(*)::text FROM accounts"); got != "2" {
		t.Fatalf("superuser count: %q", got)
	}
	exec(t, admin, "SET ROLE app_role")
	_, err = execErr(admin, "SELECT * FROM accounts")
	wantState(t, "superuser as app_role", err, "42501")
	exec(t, admin, "RESET ROLE")
	if got := queryString(t, admin, "SELECT has_table_privilege('app_role', 'accounts', 'SELECT')::text"); got != "false" {
		t.Fatalf("has_table_privilege after revoke: %q", got)
	}
}
