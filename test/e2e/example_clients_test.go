package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5"
	_ "github.com/lib/pq"

	"github.com/tidal-db/tidal/internal/testutil"
)

// startExampleServer runs a tidal server on a temporary data directory, as
// `tidal serve` would, and returns its connection string and a stop
// function.
func startExampleServer() (string, func()) {
	dir, err := os.MkdirTemp("", "tidal-example")
	if err != nil {
		log.Fatal(err)
	}
	s, err := testutil.StartE(testutil.Options{}, func() string { return dir })
	if err != nil {
		log.Fatal(err)
	}
	return s.DSN(), func() { s.Close(); os.RemoveAll(dir) }
}

// A pgx program with pgx's default configuration (extended protocol,
// statement cache, binary formats) talks to tidal unchanged.
func Example_pgx() {
	dsn, stop := startExampleServer() // "postgres://postgres@127.0.0.1:5433/postgres" for `tidal serve`
	defer stop()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	if _, err := conn.Exec(ctx, "CREATE TABLE boat (id integer PRIMARY KEY, name text, tonnage float8)"); err != nil {
		log.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO boat VALUES ($1, $2, $3)", 1, "trade winds", 12.5); err != nil {
		log.Fatal(err)
	}
	var name string
	var tonnage float64
	if err := conn.QueryRow(ctx, "SELECT name, tonnage FROM boat WHERE id = $1", 1).Scan(&name, &tonnage); err != nil {
		log.Fatal(err)
	}
	fmt.Println(name, tonnage)
	// Output: trade winds 12.5
}

// lib/pq through database/sql.
func Example_libpq() {
	dsn, stop := startExampleServer()
	defer stop()

	db, err := sql.Open("postgres", dsn) // tidal has no TLS: the DSN says sslmode=disable
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	if _, err := db.Exec("CREATE TABLE boat (id integer PRIMARY KEY, name text)"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO boat VALUES ($1, $2), ($3, $4)", 1, "trade winds", 2, "doldrums"); err != nil {
		log.Fatal(err)
	}
	rows, err := db.Query("SELECT id, name FROM boat ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, name)
	}
	// Output:
	// 1 trade winds
	// 2 doldrums
}
