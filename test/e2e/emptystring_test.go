package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tidal-db/tidal/internal/testutil"
)

// TestEmptyStringIsNotNull: an empty value in the first row sent (whose
// output buffer starts out nil) reaches the client as an empty string, not NULL, with
// the simple and the extended protocol.
func TestEmptyStringIsNotNull(t *testing.T) {
	s := testutil.Start(t, testutil.Options{})
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		c := connect(t, s.DSN())
		for _, q := range []string{"SELECT ''::text", "SELECT ''::text FROM generate_series(1, 2)", "SELECT x FROM (VALUES (NULL::text), ('')) v(x) WHERE x IS NOT NULL"} {
			rows, err := c.Query(context.Background(), q, mode)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for rows.Next() {
				var v *string
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				if v == nil || *v != "" {
					t.Errorf("%s (mode %v): got %v, want ''", q, mode, v)
				}
			}
			rows.Close()
		}
	}
}
