package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestTriggersUnderConcurrentUpdates runs pgbench-style clients that
// update random accounts of a table with an updated_at BEFORE trigger, an
// AFTER ROW audit trigger and an AFTER STATEMENT audit trigger reading the
// transition tables, on heap and on undo tables: every committed update
// leaves exactly one row audit entry and one transition-table entry, the
// audited deltas add up to the balances, and a rolled-back update leaves
// none.
func TestTriggersUnderConcurrentUpdates(t *testing.T) {
	for _, am := range []string{"heap", "undo"} {
		t.Run(am, func(t *testing.T) { triggersUnderConcurrency(t, am) })
	}
}

func triggersUnderConcurrency(t *testing.T, am string) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	const accounts, clients, txPerClient = 10, 4, 60
	for _, sql := range []string{
		"CREATE TABLE acct (id int PRIMARY KEY, balance int NOT NULL, updated_at timestamptz) USING " + am,
		"CREATE TABLE acct_audit (id int, delta int)",
		"CREATE TABLE acct_stmt_audit (id int, delta int)",
		`CREATE FUNCTION acct_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.updated_at := now(); RETURN NEW; END $$`,
		`CREATE FUNCTION acct_row_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO acct_audit VALUES (NEW.id, NEW.balance - OLD.balance); RETURN NULL; END $$`,
		`CREATE FUNCTION acct_stmt_audit_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO acct_stmt_audit SELECT n.id, n.balance - o.balance FROM new_t n JOIN old_t o USING (id);
  RETURN NULL;
END $$`,
		"CREATE TRIGGER acct_touch BEFORE UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION acct_touch()",
		"CREATE TRIGGER acct_row_audit AFTER UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION acct_row_audit()",
		"CREATE TRIGGER acct_stmt_audit AFTER UPDATE ON acct REFERENCING OLD TABLE AS old_t NEW TABLE AS new_t FOR EACH STATEMENT EXECUTE FUNCTION acct_stmt_audit_fn()",
		fmt.Sprintf("INSERT INTO acct SELECT g, 0 FROM generate_series(1, %d) g", accounts),
	} {
		exec(t, c, sql)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed, total := 0, 0
	errs := make(chan error, clients)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		cc := connect(t, s.DSN())
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			ctx := context.Background()
			for i := 0; i < txPerClient; i++ {
				id, delta := 1+r.Intn(accounts), 1+r.Intn(100)
				rollback := r.Intn(10) == 0
				if _, err := cc.Exec(ctx, "BEGIN"); err != nil {
					errs <- err
					return
				}
				if _, err := cc.Exec(ctx, "UPDATE acct SET balance = balance + $1 WHERE id = $2", delta, id); err != nil {
					errs <- err
					return
				}
				end := "COMMIT"
				if rollback {
					end = "ROLLBACK"
				}
				if _, err := cc.Exec(ctx, end); err != nil {
					errs <- err
					return
				}
				if !rollback {
					mu.Lock()
					committed++
					total += delta
					mu.Unlock()
				}
			}
		}(int64(w + 1))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM acct_audit"); got != int64(committed) {
		t.Errorf("row audit has %d entries, %d updates committed", got, committed)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM acct_stmt_audit"); got != int64(committed) {
		t.Errorf("statement audit has %d entries, %d updates committed", got, committed)
	}
	if got := queryInt(t, c, "SELECT coalesce(sum(delta), 0) FROM acct_audit"); got != int64(total) {
		t.Errorf("audited deltas add up to %d, committed deltas to %d", got, total)
	}
	if got := queryInt(t, c, "SELECT sum(balance) FROM acct"); got != int64(total) {
		t.Errorf("balances add up to %d, committed deltas to %d", got, total)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM (SELECT a.id FROM acct a JOIN acct_audit l USING (id) GROUP BY a.id, a.balance HAVING a.balance <> sum(l.delta)) x"); got != 0 {
		t.Errorf("%d accounts' balances differ from their audited deltas", got)
	}
	if got := queryInt(t, c, "SELECT count(*) FROM acct WHERE balance > 0 AND updated_at IS NULL"); got != 0 {
		t.Errorf("%d updated accounts have no updated_at", got)
	}
}
