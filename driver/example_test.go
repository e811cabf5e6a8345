package driver_test

import (
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	_ "github.com/tidal-db/tidal/driver"
)

// Open a data directory in-process and use it through database/sql.
func Example() {
	dir, _ := os.MkdirTemp("", "tidal-example")
	defer os.RemoveAll(dir)

	db, err := sql.Open("tidal", filepath.Join(dir, "data"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	db.Exec("CREATE TABLE boat (id integer PRIMARY KEY, name text)")
	db.Exec("INSERT INTO boat VALUES ($1, $2), ($3, $4)", 1, "trade winds", 2, "doldrums")
	var name string
	if err := db.QueryRow("SELECT name FROM boat WHERE id = $1", 1).Scan(&name); err != nil {
		log.Fatal(err)
	}
	fmt.Println(name)
	// Output: trade winds
}
