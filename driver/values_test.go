package driver_test

import (
	"path/filepath"
	"testing"
	"time"
)

// A time.Time parameter means its instant for timestamptz and its wall
// clock for timestamp, as with lib/pq and pgx; timestamptz comes back in the
// session's TimeZone.
func TestEmbeddedTimeParameters(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "data"))
	defer db.Close()
	at := time.Date(44, 3, 15, 12, 30, 0, 500000000, time.FixedZone("", 2*3600))
	at = at.AddDate(-87, 0, 0) // 44 BC (year -43)
	var tz time.Time
	var ts, tzText, tsText string
	err := db.QueryRow("SELECT $1::timestamptz, $1::timestamptz::text", at).Scan(&tz, &tzText)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT $1::timestamp::text", at).Scan(&tsText); err != nil {
		t.Fatal(err)
	}
	if !tz.Equal(at) || tz.Location().String() != "UTC" {
		t.Errorf("timestamptz %v, want %v in UTC", tz, at)
	}
	if tzText != "0044-03-15 10:30:00.5+00 BC" || tsText != "0044-03-15 12:30:00.5 BC" {
		t.Errorf("texts %q %q", tzText, tsText)
	}
	if err := db.QueryRow("SELECT $1::timestamp::text", time.Date(2026, 11, 30, 1, 2, 3, 0, time.FixedZone("", -5*3600-1800))).Scan(&ts); err != nil || ts != "2026-11-30 01:02:03" {
		t.Errorf("timestamp wall clock: %q %v", ts, err)
	}
}

// A query without arguments may hold several statements; each that
// returns rows is a result set.
func TestEmbeddedMultipleStatements(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "data"))
	defer db.Close()
	rows, err := db.Query("CREATE TABLE m (a int); INSERT INTO m VALUES (1), (2); SELECT a FROM m ORDER BY a; SELECT 'x', ''")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []any
	for {
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			got = append(got, vals...)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0] != int64(1) || got[1] != int64(2) || got[2] != "x" || got[3] != "" {
		t.Fatalf("rows %#v", got)
	}
	// An error rolls the whole string back (one implicit transaction).
	if _, err := db.Exec("INSERT INTO m VALUES (3); SELECT 1/0"); err == nil {
		t.Fatal("division by zero succeeded")
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM m").Scan(&n); err != nil || n != 2 {
		t.Fatalf("count %d %v", n, err)
	}
}
