package engine

import (
	"strconv"

	"github.com/tidal-db/tidal/internal/xact/predicate"
)

// ApplyLockSettings fills the lock tables' start-up sizes from a settings
// lookup (tidal.conf and -c values), as PostgreSQL sizes its shared lock
// and predicate-lock tables at server start: max_locks_per_transaction ×
// (max_connections + max_prepared_transactions) heavyweight lock entries,
// and the predicate-lock promotion thresholds.
func (c *Config) ApplyLockSettings(get func(name string) string) {
	num := func(name string) int {
		n, _ := strconv.Atoi(get(name)) // guc.Normalize has checked the value
		return n
	}
	c.LockTableSize = num("max_locks_per_transaction") * (num("max_connections") + num("max_prepared_transactions"))
	c.PredicateLimits = predicate.Limits{
		PerXact:     num("max_pred_locks_per_transaction"),
		PerRelation: num("max_pred_locks_per_relation"),
		PerPage:     num("max_pred_locks_per_page"),
	}
}
