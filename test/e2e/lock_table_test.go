package e2e

import "testing"

// LOCK TABLE conflicts with other sessions' locks as PostgreSQL's modes
// do: NOWAIT fails at once with 55P03 naming the table, a waiting LOCK
// proceeds when the holder's transaction ends, and a compatible mode does
// not wait at all.
func TestLockTableConflicts(t *testing.T) {
	cs := sessions(t, 2, "CREATE TABLE lock_conflict (a int)")
	a, b := cs[0], cs[1]
	exec(t, a, "BEGIN")
	exec(t, a, "LOCK TABLE lock_conflict IN SHARE MODE")
	exec(t, b, "BEGIN")
	// SHARE does not conflict with SHARE or ACCESS SHARE.
	exec(t, b, "LOCK TABLE lock_conflict IN SHARE MODE NOWAIT")
	exec(t, b, "LOCK TABLE lock_conflict IN ACCESS SHARE MODE NOWAIT")
	// ROW EXCLUSIVE conflicts with SHARE.
	_, err := execErr(b, "LOCK TABLE lock_conflict IN ROW EXCLUSIVE MODE NOWAIT")
	if pe := wantState(t, "LOCK ... NOWAIT", err, "55P03"); pe.Message != `could not obtain lock on relation "lock_conflict"` {
		t.Fatalf("message %q", pe.Message)
	}
	exec(t, b, "ROLLBACK")
	exec(t, b, "BEGIN")
	p := start(b, "LOCK TABLE lock_conflict IN EXCLUSIVE MODE")
	p.stillBlocked(t)
	exec(t, a, "COMMIT")
	p.waitOK(t, "LOCK TABLE")
	// While b holds EXCLUSIVE, a plain read does not wait but an INSERT does.
	exec(t, a, "SELECT count(*) FROM lock_conflict")
	ins := start(a, "INSERT INTO lock_conflict VALUES (1)")
	ins.stillBlocked(t)
	exec(t, b, "ROLLBACK")
	ins.waitOK(t, "INSERT 0 1")
}
