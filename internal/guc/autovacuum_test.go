package guc

import (
	"testing"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// TestRealSettings: floating-point settings are checked against their
// range with PostgreSQL's message (in the base unit), and time units
// convert to milliseconds.
func TestRealSettings(t *testing.T) {
	for _, c := range []struct{ name, in, out, errMsg string }{
		{"autovacuum_vacuum_score_weight", "2.5", "2.5", ""},
		{"autovacuum_vacuum_score_weight", "11", "", `11 is outside the valid range for parameter "autovacuum_vacuum_score_weight" (0 .. 10)`},
		{"autovacuum_analyze_score_weight", "-0.5", "", `-0.5 is outside the valid range for parameter "autovacuum_analyze_score_weight" (0 .. 10)`},
		{"vacuum_cost_delay", "1s", "", `1000 ms is outside the valid range for parameter "vacuum_cost_delay" (0 .. 100)`},
		{"vacuum_cost_delay", "500us", "0.5", ""},
		{"autovacuum_vacuum_cost_delay", "-1", "-1", ""},
		{"autovacuum_vacuum_scale_factor", "x", "", `invalid value for parameter "autovacuum_vacuum_scale_factor": "x"`},
		{"autovacuum_max_parallel_workers", "1025", "", `1025 is outside the valid range for parameter "autovacuum_max_parallel_workers" (0 .. 1024)`},
	} {
		d, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Normalize(c.in)
		if c.errMsg != "" {
			if err == nil || err.Error() != c.errMsg || pgerr.Code(err) != pgerr.InvalidParameterValue {
				t.Errorf("%s = %s: error %v, want 22023 %q", c.name, c.in, err, c.errMsg)
			}
			continue
		}
		if err != nil || got != c.out {
			t.Errorf("%s = %s: %q, %v; want %q", c.name, c.in, got, err, c.out)
		}
	}
}
