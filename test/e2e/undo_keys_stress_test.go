package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestUndoKeyChangeStress: writers change unique keys in place while
// VACUUM purges marked entries and REPEATABLE READ readers look rows up by
// the key their snapshot sees (through the key's index, marked or not):
// every lookup finds its row, none finds another, and at the end the
// indexes agree with the table (tidal_check) and VACUUM has purged every
// old key's entry.
func TestUndoKeyChangeStress(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	c := connect(t, s.DSN())
	const rows = 50
	exec(t, c, "CREATE TABLE ks (id int PRIMARY KEY, k int UNIQUE) USING undo")
	exec(t, c, fmt.Sprintf("INSERT INTO ks SELECT i, i * 100000 FROM generate_series(1, %d) i", rows))
	// Every statement runs to its end (no cancellation), so no session is
	// still in a transaction when the last VACUUM sets its horizon.
	ctx := context.Background()
	deadline := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	seed := uint64(0)
	run := func(f func(conn *pgx.Conn, rng *rand.Rand) error) {
		wg.Add(1)
		conn := connect(t, s.DSN())
		seed++
		rng := rand.New(rand.NewPCG(seed, 7))
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if err := f(conn, rng); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for w := 0; w < 3; w++ {
		run(func(conn *pgx.Conn, rng *rand.Rand) error {
			_, err := conn.Exec(ctx, "UPDATE ks SET k = k + 1 WHERE id = $1", 1+rng.IntN(rows))
			return err
		})
	}
	run(func(conn *pgx.Conn, _ *rand.Rand) error {
		_, err := conn.Exec(ctx, "VACUUM ks")
		return err
	})
	for r := 0; r < 2; r++ {
		run(func(conn *pgx.Conn, rng *rand.Rand) error {
			tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
			if err != nil {
				return err
			}
			defer tx.Rollback(context.Background())
			for i := 0; i < 20; i++ {
				id := 1 + rng.IntN(rows)
				var k int
				if err := tx.QueryRow(ctx, "SELECT k FROM ks WHERE id = $1", id).Scan(&k); err != nil {
					return fmt.Errorf("id %d: %w", id, err)
				}
				var got []int
				rs, err := tx.Query(ctx, "SELECT id FROM ks WHERE k = $1", k)
				if err != nil {
					return err
				}
				for rs.Next() {
					var x int
					if err := rs.Scan(&x); err != nil {
						return err
					}
					got = append(got, x)
				}
				if rs.Err() != nil {
					return rs.Err()
				}
				if len(got) != 1 || got[0] != id {
					return fmt.Errorf("snapshot: row %d has k = %d, but k = %d finds %v", id, k, k, got)
				}
			}
			return tx.Commit(ctx)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := query(t, c, "SELECT tidal_check('ks')"); got != "ok" {
		t.Fatalf("tidal_check: %s", got)
	}
	exec(t, c, "VACUUM ks")
	if got := query(t, c, "SELECT reltuples::int FROM pg_class WHERE relname = 'ks_k_key'"); got != fmt.Sprint(rows) {
		t.Fatalf("ks_k_key has %s entries after the last VACUUM, want %d", got, rows)
	}
	if got := query(t, c, "SELECT count(*) FROM ks a WHERE (SELECT count(*) FROM ks b WHERE b.k = a.k) = 1"); got != fmt.Sprint(rows) {
		t.Fatalf("%s rows found by their key", got)
	}
	if n := queryInt(t, c, "SELECT n_tup_inplace_upd FROM pg_stat_user_tables WHERE relname = 'ks'"); n < 10 {
		t.Fatalf("only %d in-place updates ran", n)
	}
}
