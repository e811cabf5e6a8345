package exec

import (
	"testing"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// TestPartitionHashMatchesPostgres checks rows of a table PARTITION BY
// HASH (a int, t text) with modulus 3 land where PostgreSQL 15 put them
// (the remainders were read from PostgreSQL's tableoid of each row).
func TestPartitionHashMatchesPostgres(t *testing.T) {
	ts := []types.Type{types.Int4, types.Text}
	null := types.Null()
	cases := []struct {
		a         types.Datum
		t         types.Datum
		remainder uint64
	}{
		{null, types.Str("n"), 0},
		{types.Int(-7), types.Str("negative"), 2},
		{types.Int(1), types.Str("v1"), 0},
		{types.Int(2), types.Str("v2"), 1},
		{types.Int(3), types.Str("v3"), 1},
		{types.Int(4), types.Str("v4"), 1},
		{types.Int(5), types.Str("v5"), 0},
		{types.Int(5), null, 2},
		{types.Int(6), types.Str("v6"), 2},
		{types.Int(7), types.Str("v7"), 0},
		{types.Int(8), types.Str("v8"), 0},
		{types.Int(9), types.Str("v9"), 2},
		{types.Int(10), types.Str("v10"), 2},
		{types.Int(11), types.Str("v11"), 2},
		{types.Int(12), types.Str("v12"), 2},
		{types.Int(100000), types.Str("a somewhat longer text value of more than twelve bytes"), 1},
	}
	for _, c := range cases {
		if got := partitionHash(ts, []types.Datum{c.a, c.t}) % 3; got != c.remainder {
			t.Errorf("row (%v, %v): remainder %d, PostgreSQL's %d", c.a, c.t, got, c.remainder)
		}
	}
}
