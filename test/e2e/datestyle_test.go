package e2e

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/testutil"
)

// SET DateStyle / IntervalStyle reach the client as ParameterStatus with
// the canonical value PostgreSQL reports, and the output follows them; a
// DateStyle startup parameter is canonicalised too, and a bad one refuses
// the connection (22023), as in PostgreSQL.
func TestDateStyleParameterStatus(t *testing.T) {
	srv := testutil.Start(t, testutil.Options{})
	ctx := tctx(t)
	c := connectExt(t, srv.DSN())
	steps := []struct {
		set, param, want, query, out string
	}{
		{"SET DateStyle = 'German'", "DateStyle", "German, DMY", "SELECT date '2001-02-03'::text", "03.02.2001"},
		{"SET datestyle TO ymd", "DateStyle", "German, YMD", "SELECT date '01/02/03'::text", "03.02.2001"},
		{"SET DateStyle = 'Postgres, MDY'", "DateStyle", "Postgres, MDY", "SELECT timestamp '2001-02-03 04:05:06'::text", "Sat Feb 03 04:05:06 2001"},
		{"SET IntervalStyle = 'iso_8601'", "IntervalStyle", "iso_8601", "SELECT interval '1 year 2 days 3 seconds'::text", "P1Y2DT3S"},
		{"RESET DateStyle", "DateStyle", "ISO, MDY", "SELECT date '2001-02-03'::text", "2001-02-03"},
	}
	for _, s := range steps {
		if _, err := c.Exec(ctx, s.set); err != nil {
			t.Fatalf("%s: %v", s.set, err)
		}
		if got := c.PgConn().ParameterStatus(s.param); got != s.want {
			t.Errorf("after %s: ParameterStatus %s = %q, want %q", s.set, s.param, got, s.want)
		}
		var out string
		if err := c.QueryRow(ctx, s.query).Scan(&out); err != nil || out != s.out {
			t.Errorf("after %s: %s = %q (%v), want %q", s.set, s.query, out, err, s.out)
		}
	}
	_, err := c.Exec(ctx, "SET DateStyle = 'sql, iso'")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22023" || pe.Detail != `Conflicting "datestyle" specifications.` {
		t.Errorf("SET DateStyle = 'sql, iso': %v", err)
	}

	cfg, err := pgx.ParseConfig(srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["DateStyle"] = "sql,dmy"
	c2, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect with DateStyle=sql,dmy: %v", err)
	}
	defer c2.Close(ctx)
	if got := c2.PgConn().ParameterStatus("DateStyle"); got != "SQL, DMY" {
		t.Errorf("startup DateStyle reported as %q", got)
	}
	cfg.RuntimeParams["DateStyle"] = "Klingon"
	if c3, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		c3.Close(ctx)
		t.Errorf("connect with DateStyle=Klingon succeeded")
	}
}
