package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tidal-db/tidal/internal/testutil"
)

// TestStartupOptionsEscapedSpace: a value with a space travels in the
// startup packet's options behind a backslash, as libpq users write
// PGOPTIONS='-c default_transaction_isolation=repeatable\ read'
// (PostgreSQL's pg_split_opts).
func TestStartupOptionsEscapedSpace(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(testutil.Start(t, testutil.Options{}).DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["options"] = `-c default_transaction_isolation=repeatable\ read  -c search_path=a\\b`
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if got := query(t, c, "SHOW default_transaction_isolation"); got != "repeatable read" {
		t.Errorf("default_transaction_isolation = %q", got)
	}
	if got := query(t, c, "SHOW search_path"); got != `a\b` {
		t.Errorf("search_path = %q", got)
	}
}
