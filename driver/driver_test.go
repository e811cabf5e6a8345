package driver_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tidal "github.com/tidal-db/tidal/driver"
)

func open(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("tidal", dir+"?shared_buffers=16MB")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestEmbeddedRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := open(t, dir)
	for _, q := range []string{
		"CREATE TABLE kv (id int PRIMARY KEY, name text, score double precision, ok boolean, at timestamp, raw bytea, big bigint)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	at := time.Date(2026, 11, 30, 1, 2, 3, 456000000, time.UTC)
	res, err := db.Exec("INSERT INTO kv VALUES ($1, $2, $3, $4, $5, $6, $7)", 1, "o'ne", 2.5, true, at, []byte{0, 1, 255}, int64(1)<<40)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("RowsAffected %d", n)
	}
	if _, err := db.Exec("INSERT INTO kv (id) VALUES ($1)", 2); err != nil {
		t.Fatal(err)
	}
	var (
		name  string
		score float64
		ok    bool
		when  time.Time
		raw   []byte
		big   int64
	)
	err = db.QueryRow("SELECT name, score, ok, at, raw, big FROM kv WHERE id = $1", 1).Scan(&name, &score, &ok, &when, &raw, &big)
	if err != nil {
		t.Fatal(err)
	}
	if name != "o'ne" || score != 2.5 || !ok || !when.Equal(at) || string(raw) != "\x00\x01\xff" || big != 1<<40 {
		t.Fatalf("got %q %v %v %v %x %d", name, score, ok, when, raw, big)
	}
	var nullName sql.NullString
	if err := db.QueryRow("SELECT name FROM kv WHERE id = 2").Scan(&nullName); err != nil || nullName.Valid {
		t.Fatalf("NULL: %+v %v", nullName, err)
	}

	// Errors carry SQLSTATE.
	_, err = db.Exec("INSERT INTO kv (id) VALUES (1)")
	var pe *tidal.Error
	if !errors.As(err, &pe) || pe.Code != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	_, err = db.Exec("SELEC 1")
	if !errors.As(err, &pe) || pe.Code != "42601" {
		t.Fatalf("syntax error: %v", err)
	}

	// Transactions.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM kv WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM kv").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after rollback: %d %v", n, err)
	}
	tx, _ = db.Begin()
	tx.Exec("UPDATE kv SET score = score + 1 WHERE id = 1")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	// Several connections at once.
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if _, err := db.Exec("INSERT INTO kv (id, name) VALUES ($1, $2)", 100+w*100+i, "w"); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopen: everything committed is there.
	db = open(t, dir)
	defer db.Close()
	if err := db.QueryRow("SELECT count(*) FROM kv").Scan(&n); err != nil || n != 102 {
		t.Fatalf("after reopen: %d %v", n, err)
	}
	if err := db.QueryRow("SELECT score FROM kv WHERE id = 1").Scan(&score); err != nil || score != 3.5 {
		t.Fatalf("committed update: %v %v", score, err)
	}
}
