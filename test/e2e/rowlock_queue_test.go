package e2e

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A job queue as applications build one on SELECT … FOR UPDATE SKIP
// LOCKED: eight workers each take the first job nobody holds, mark it done
// and commit. Every job must be taken exactly once — a job locked by one
// worker is skipped by the others, and once done it no longer qualifies.
func TestJobQueueSkipLocked(t *testing.T) {
	const workers, jobs = 8, 10000
	cs := sessions(t, workers,
		"CREATE TABLE jobs (id int PRIMARY KEY, payload text, done_by int)",
		fmt.Sprintf("INSERT INTO jobs (id, payload) SELECT i, 'job ' || i FROM generate_series(1, %d) i", jobs))
	taken := make([][]int, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	deadline := time.Now().Add(5 * time.Minute)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int, c *pgx.Conn) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				id, ok, err := takeJob(c, w)
				if err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
					return
				}
				if !ok {
					return
				}
				taken[w] = append(taken[w], id)
			}
			errs <- fmt.Errorf("worker %d: queue not drained in time", w)
		}(w, cs[w])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := make(map[int]int, jobs)
	busy := 0
	for w, ids := range taken {
		if len(ids) > 0 {
			busy++
		}
		for _, id := range ids {
			if prev, dup := seen[id]; dup {
				t.Fatalf("job %d taken by workers %d and %d", id, prev, w)
			}
			seen[id] = w
		}
	}
	if len(seen) != jobs {
		t.Fatalf("%d jobs taken, want %d", len(seen), jobs)
	}
	if busy < 2 {
		t.Fatalf("only %d worker(s) got jobs: the workers did not run side by side", busy)
	}
	if got := query(t, cs[0], "SELECT count(*), count(done_by) FROM jobs"); got != fmt.Sprintf("%d|%d", jobs, jobs) {
		t.Fatalf("jobs done: %s", got)
	}
	// The table agrees with what the workers reported.
	rows, err := cs[0].Query(context.Background(), "SELECT id, done_by FROM jobs")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, by int
		if err := rows.Scan(&id, &by); err != nil {
			t.Fatal(err)
		}
		if seen[id] != by {
			t.Fatalf("job %d done by %d in the table, reported by worker %d", id, by, seen[id])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	exec(t, cs[0], "DROP TABLE jobs")
}

// takeJob runs one worker transaction: lock the first job not done and not
// locked by another worker, mark it done by w, commit. ok=false: the queue
// is empty.
func takeJob(c *pgx.Conn, w int) (id int, ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	tx, err := c.Begin(ctx)
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback(ctx)
	err = tx.QueryRow(ctx, "SELECT id FROM jobs WHERE done_by IS NULL FOR UPDATE SKIP LOCKED LIMIT 1").Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, tx.Commit(ctx)
	}
	if err != nil {
		return 0, false, err
	}
	tag, err := tx.Exec(ctx, "UPDATE jobs SET done_by = $1 WHERE id = $2", w, id)
	if err != nil {
		return 0, false, err
	}
	if tag.RowsAffected() != 1 {
		return 0, false, fmt.Errorf("job %d: UPDATE changed %d rows", id, tag.RowsAffected())
	}
	return id, true, tx.Commit(ctx)
}
