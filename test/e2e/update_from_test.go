package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// UPDATE … FROM waiting for a concurrent update of its target rows (READ
// COMMITTED) goes on with each row's newest version joined to the source
// row it had found: a row still matching is updated from its new values, a
// row whose join key changed is skipped. PostgreSQL 15 gives the same
// result for this script (v 200 for id 1, id 2 left at 3).
func TestUpdateFromConcurrentUpdate(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.DSN())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	a, b := connect(), connect()
	exec(t, a, "CREATE TABLE et (id int PRIMARY KEY, v int, k int)")
	exec(t, a, "CREATE TABLE es (k int, f int)")
	exec(t, a, "INSERT INTO et VALUES (1, 1, 10), (2, 2, 20)")
	exec(t, a, "INSERT INTO es VALUES (10, 100), (20, 200)")
	exec(t, a, "BEGIN")
	exec(t, a, "UPDATE et SET v = v + 1, k = CASE WHEN id = 2 THEN 21 ELSE k END")
	p := start(b, "UPDATE et SET v = et.v * es.f FROM es WHERE et.k = es.k")
	p.stillBlocked(t)
	exec(t, a, "COMMIT")
	p.waitOK(t, "UPDATE 1")
	if got := query(t, b, "SELECT id, v, k FROM et ORDER BY id"); got != "1|200|10,2|3|21" {
		t.Fatalf("after the concurrent updates: %s", got)
	}
}
