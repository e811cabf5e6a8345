package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Sessions racing to upsert the same keys, each in autocommit, exercise
// speculative insertion's losing path (both find no row, both insert, the
// later one's unique check sees the winner and withdraws its row): no
// statement may fail with a unique violation, every key exists once, and
// every increment is counted.
func TestConcurrentUpsertsNeverConflict(t *testing.T) {
	const workers, keys, rounds = 4, 8, 40
	cs := sessions(t, workers, "CREATE TABLE upsert_race (k int PRIMARY KEY, n int NOT NULL, other int UNIQUE)")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(c *pgx.Conn) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				for k := 0; k < keys; k++ {
					ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
					// A fresh key each round, so the sessions race to insert it.
					_, err := c.Exec(ctx, "INSERT INTO upsert_race VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = upsert_race.n + 1", r*keys+k)
					cancel()
					if err != nil {
						errs <- fmt.Errorf("key %d: %w", k, err)
						return
					}
				}
			}
		}(cs[w])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d|%d|%d", rounds*keys, workers, workers)
	if got := query(t, cs[0], "SELECT count(*), min(n), max(n) FROM upsert_race"); got != want {
		t.Fatalf("rows %q, want %q", got, want)
	}
	exec(t, cs[0], "DROP TABLE upsert_race")
}
