package vacuum

import (
	"context"
	"time"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/stats"
)

// CostParams are the cost-based vacuum delay settings: each buffer hit,
// miss (read) and dirtying costs its points, and once Limit points have
// accumulated VACUUM sleeps Delay × balance / Limit (at most 4 × Delay),
// PostgreSQL's vacuum_delay_point. Delay 0 turns it off (the default for a
// manual VACUUM; autovacuum's is autovacuum_vacuum_cost_delay, 2 ms).
type CostParams struct {
	Delay                        time.Duration
	Limit                        int
	PageHit, PageMiss, PageDirty int
}

// costBalance is one VACUUM leader's accumulated cost since its last
// sleep, measured from its buffer usage counters.
type costBalance struct {
	p     CostParams
	u     *stats.Usage
	last  stats.BufferUsage
	slept time.Duration
}

func newCostBalance(p CostParams, u *stats.Usage) *costBalance {
	return &costBalance{p: p, u: u, last: u.Buf}
}

// point is a vacuum_delay_point: it sleeps if the balance reached the
// limit, and returns the interruption's error if ctx ends meanwhile.
func (b *costBalance) point(ctx context.Context) error {
	if b == nil || b.p.Delay <= 0 || b.p.Limit <= 0 {
		return nil
	}
	d := b.u.Buf
	balance := (d.SharedHit-b.last.SharedHit)*int64(b.p.PageHit) +
		(d.SharedRead-b.last.SharedRead)*int64(b.p.PageMiss) +
		(d.SharedDirtied-b.last.SharedDirtied)*int64(b.p.PageDirty)
	if balance < int64(b.p.Limit) {
		return nil
	}
	b.last = d
	sleep := time.Duration(float64(b.p.Delay) * float64(balance) / float64(b.p.Limit))
	if sleep > 4*b.p.Delay {
		sleep = 4 * b.p.Delay
	}
	b.slept += sleep
	return interrupt.Sleep(ctx, sleep)
}
