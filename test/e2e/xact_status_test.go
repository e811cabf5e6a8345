package e2e

import (
	"testing"
)

// TestXactStatus: pg_xact_status and txid_status of transactions that are
// running (seen from another session), committed and rolled back.
func TestXactStatus(t *testing.T) {
	dsn := target(t)
	a := connect(t, dsn)
	b := connect(t, dsn)
	status := func(xid string) string { return query(t, b, "SELECT pg_xact_status('"+xid+"'), txid_status("+xid+")") }

	exec(t, a, "BEGIN")
	running := query(t, a, "SELECT pg_current_xact_id()")
	if got := status(running); got != "in progress|in progress" {
		t.Fatalf("running transaction %s: %s", running, got)
	}
	exec(t, a, "ROLLBACK")
	if got := status(running); got != "aborted|aborted" {
		t.Fatalf("rolled-back transaction %s: %s", running, got)
	}
	exec(t, a, "BEGIN")
	committed := query(t, a, "SELECT txid_current()")
	exec(t, a, "COMMIT")
	if got := status(committed); got != "committed|committed" {
		t.Fatalf("committed transaction %s: %s", committed, got)
	}
}
