package e2e

import (
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tidal-db/tidal/internal/testutil"
)

// pgx in its default configuration sends and reads date, timestamptz,
// interval, uuid and jsonb in binary: values must come back as they went
// in, and the server's time zone must only change how timestamptz prints.
func TestPgxDateTimeUUIDJSONBinary(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	c := connectExt(t, srv.DSN())
	ctx := tctx(t)
	if _, err := c.Exec(ctx, "CREATE TABLE pgx_dt (id int PRIMARY KEY, d date, ts timestamptz, iv interval, u uuid, j jsonb, js json)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Exec(tctx(t), "DROP TABLE pgx_dt") })

	day := time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2020, 6, 1, 14, 30, 15, 123456000, paris)
	iv := pgtype.Interval{Months: 14, Days: -3, Microseconds: 3723000001, Valid: true}
	u := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	doc := map[string]any{"b": []any{1.5, "x", nil}, "a": true}
	if _, err := c.Exec(ctx, "INSERT INTO pgx_dt VALUES ($1, $2, $3, $4, $5, $6, $7)", 1, day, ts, iv, u, doc, `{"k" : 1}`); err != nil {
		t.Fatalf("insert: %v", err)
	}

	var (
		gotDay  time.Time
		gotTS   time.Time
		gotIv   pgtype.Interval
		gotU    [16]byte
		gotDoc  map[string]any
		gotJSON map[string]any
	)
	err = c.QueryRow(ctx, "SELECT d, ts, iv, u, j, js FROM pgx_dt WHERE id = $1", 1).Scan(&gotDay, &gotTS, &gotIv, &gotU, &gotDoc, &gotJSON)
	if err != nil {
		t.Fatalf("select: %v", err)
	}
	if !gotDay.Equal(day) {
		t.Errorf("date: got %v, want %v", gotDay, day)
	}
	if !gotTS.Equal(ts) {
		t.Errorf("timestamptz: got %v, want %v", gotTS, ts)
	}
	if gotIv != iv {
		t.Errorf("interval: got %+v, want %+v", gotIv, iv)
	}
	if gotU != u {
		t.Errorf("uuid: got %x, want %x", gotU, u)
	}
	if !reflect.DeepEqual(gotDoc, doc) {
		t.Errorf("jsonb: got %v, want %v", gotDoc, doc)
	}
	if !reflect.DeepEqual(gotJSON, map[string]any{"k": float64(1)}) {
		t.Errorf("json: got %v", gotJSON)
	}

	// The text forms follow the session's TimeZone; the binary value does not.
	if _, err := c.Exec(ctx, "SET TIME ZONE 'Asia/Kolkata'"); err != nil {
		t.Fatal(err)
	}
	if tz := c.PgConn().ParameterStatus("TimeZone"); tz != "Asia/Kolkata" {
		t.Errorf("ParameterStatus TimeZone after SET = %q", tz)
	}
	var text, ivText, docText string
	var again time.Time
	if err := c.QueryRow(ctx, "SELECT ts::text, iv::text, j::text, ts FROM pgx_dt WHERE id = 1").Scan(&text, &ivText, &docText, &again); err != nil {
		t.Fatal(err)
	}
	if want := "2020-06-01 18:00:15.123456+05:30"; text != want {
		t.Errorf("timestamptz text in Asia/Kolkata = %q, want %q", text, want)
	}
	if want := "1 year 2 mons -3 days +01:02:03.000001"; ivText != want {
		t.Errorf("interval text = %q, want %q", ivText, want)
	}
	if want := `{"a": true, "b": [1.5, "x", null]}`; docText != want {
		t.Errorf("jsonb text = %q, want %q", docText, want)
	}
	if !again.Equal(ts) {
		t.Errorf("timestamptz after SET TIME ZONE: got %v, want %v", again, ts)
	}

	// Arrays of the new types go through array_send/array_recv.
	days := []time.Time{day, day.AddDate(0, 0, 1)}
	var gotDays []time.Time
	var gotUUIDs [][16]byte
	if err := c.QueryRow(ctx, "SELECT $1::date[], ARRAY[$2::uuid, $2::uuid]", days, u).Scan(&gotDays, &gotUUIDs); err != nil {
		t.Fatalf("arrays: %v", err)
	}
	if len(gotDays) != 2 || !gotDays[1].Equal(days[1]) || len(gotUUIDs) != 2 || gotUUIDs[1] != u {
		t.Errorf("arrays: got %v %x", gotDays, gotUUIDs)
	}

	// now() is timestamp with time zone; a parameter compared with it is one too.
	var isTz bool
	if err := c.QueryRow(ctx, "SELECT now() > $1", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Scan(&isTz); err != nil || !isTz {
		t.Errorf("now() > 2000-01-01: %v, %v", isTz, err)
	}
}

// A TimeZone startup parameter sets the session's zone (and is reported
// back); an unknown zone refuses the connection, as in PostgreSQL.
func TestStartupTimeZone(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	cfg, err := pgx.ParseConfig(srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "Europe/Paris"
	ctx := tctx(t)
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect with TimeZone=Europe/Paris: %v", err)
	}
	defer c.Close(ctx)
	if tz := c.PgConn().ParameterStatus("TimeZone"); tz != "Europe/Paris" {
		t.Errorf("ParameterStatus TimeZone = %q", tz)
	}
	var s string
	if err := c.QueryRow(ctx, "SELECT timestamptz '2020-06-01 12:00+00'::text").Scan(&s); err != nil || s != "2020-06-01 14:00:00+02" {
		t.Errorf("timestamptz in Europe/Paris = %q, %v", s, err)
	}
	cfg.RuntimeParams["TimeZone"] = "Mars/Olympus_Mons"
	if c2, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		c2.Close(ctx)
		t.Errorf("connect with an unknown TimeZone succeeded")
	}
}
