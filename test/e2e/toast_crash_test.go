package e2e

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCrashToast: rows with values stored compressed and out of line are
// inserted, updated (both the large value and, keeping the TOAST pointer,
// another column) and deleted while the server is killed -9; after
// recovery every acknowledged change is there with its exact value, the
// table, its TOAST table and their indexes pass tidal_check, and VACUUM
// then removes the dead chunks.
func TestCrashToast(t *testing.T) {
	s := newServer(t)
	s.start()
	c := s.conn()
	exec(t, c, `CREATE TABLE docs (id int PRIMARY KEY, n int, body text)`)

	value := func(rng *rand.Rand) string {
		n := 3000 + rng.Intn(200000)
		var b strings.Builder
		for b.Len() < n {
			if rng.Intn(2) == 0 {
				b.WriteString(strings.Repeat(fmt.Sprint(rng.Intn(10)), 50))
			} else {
				sum := md5.Sum([]byte(fmt.Sprint(rng.Int63())))
				b.WriteString(hex.EncodeToString(sum[:]))
			}
		}
		return b.String()
	}
	digestOf := func(v string) string { s := md5.Sum([]byte(v)); return hex.EncodeToString(s[:]) }

	// acked[id] is the md5 of the body of an acknowledged row ("" =
	// deleted); pending[id] the md5 a change in flight may have left.
	var mu sync.Mutex
	acked := map[int]string{}
	pending := map[int][]string{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn := s.conn()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; ctx.Err() == nil; i++ {
				id := w*1000000 + i
				op := "insert"
				mu.Lock()
				target := -1
				if i > 5 && rng.Intn(3) == 0 {
					target = w*1000000 + rng.Intn(i)
					if acked[target] == "" {
						target = -1
					}
				}
				mu.Unlock()
				var sql string
				var args []any
				var after string
				switch {
				case target >= 0 && rng.Intn(4) == 0:
					op, id, sql, args = "delete", target, `DELETE FROM docs WHERE id = $1`, []any{target}
				case target >= 0 && rng.Intn(2) == 0:
					mu.Lock()
					after = acked[target]
					mu.Unlock()
					op, id, sql, args = "touch", target, `UPDATE docs SET n = n + 1 WHERE id = $1`, []any{target}
				case target >= 0:
					v := value(rng)
					op, id, sql, args, after = "update", target, `UPDATE docs SET body = $2 WHERE id = $1`, []any{target, v}, digestOf(v)
				default:
					v := value(rng)
					sql, args, after = `INSERT INTO docs VALUES ($1, 0, $2)`, []any{id, v}, digestOf(v)
				}
				if op == "delete" {
					after = ""
				}
				mu.Lock()
				pending[id] = append(pending[id], after)
				mu.Unlock()
				_, err := conn.Exec(context.Background(), sql, args...)
				mu.Lock()
				if err == nil {
					acked[id] = after
					delete(pending, id)
				}
				mu.Unlock()
				if err != nil {
					return // the server is gone
				}
			}
		}(w)
	}
	time.Sleep(4 * time.Second)
	s.kill()
	cancel()
	wg.Wait()

	s.start()
	c = s.conn()
	got := map[int]string{}
	rows, err := c.Query(context.Background(), `SELECT id, md5(body) FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		var d string
		if err := rows.Scan(&id, &d); err != nil {
			t.Fatal(err)
		}
		got[id] = d
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acked) < 10 {
		t.Fatalf("only %d rows were acknowledged before the kill", len(acked))
	}
	for id, want := range acked {
		if got[id] == want {
			continue
		}
		ok := false
		for _, p := range pending[id] {
			ok = ok || got[id] == p
		}
		if !ok {
			t.Errorf("row %d: md5 %q after recovery, acknowledged %q (in flight %q)", id, got[id], want, pending[id])
		}
	}
	for id, d := range got {
		if _, known := acked[id]; !known && len(pending[id]) == 0 {
			t.Errorf("row %d (md5 %s) was never written", id, d)
		}
	}
	t.Logf("%d rows acknowledged, %d present after recovery", len(acked), len(got))
	if r := query(t, c, `SELECT tidal_check('docs')`); r != "ok" {
		t.Fatalf("tidal_check after recovery: %s", r)
	}
	exec(t, c, `VACUUM docs`)
	if r := query(t, c, `SELECT tidal_check('docs')`); r != "ok" {
		t.Fatalf("tidal_check after VACUUM: %s", r)
	}
	// Every chunk left belongs to a live row's value: values over 2000
	// stored bytes cannot be inline in this table, and take
	// ceil(size/1996) chunks.
	toastRel := query(t, c, `SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'docs'`)
	chunks := query(t, c, `SELECT count(*) FROM `+toastRel)
	want := query(t, c, `SELECT coalesce(sum((pg_column_size(body) + 1995) / 1996), 0) FROM docs WHERE pg_column_size(body) > 2000`)
	if chunks != want {
		t.Errorf("%s has %s live chunks, the rows' values need %s", toastRel, chunks, want)
	}
}
