package session

// Plan reuse for the extended protocol: the plan of a statement prepared
// with Parse is kept with the statement's reusable analysis (stmtcache.go)
// and run again by later Executes of that statement — or of any statement
// parsed from the same text under the same analysis, as pgbench -M
// extended sends its unnamed statements — instead of being planned for
// every execution. Parameter values reach the plan through the executor's
// Env, which expressions read when evaluated.
//
// A kept plan is valid exactly as long as its analysis: the same catalog
// version and session settings, and no catalog change earlier in the
// current transaction. Before it runs, the relation locks its planning
// took are taken again; if DDL committed meanwhile (the catalog version
// moved), the statement is planned afresh. Only plans exec.Reusable
// accepts are kept, and a kept plan is used by one portal at a time.

import (
	"maps"

	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

type cachedPlan struct {
	node  exec.Node
	cols  []exec.Column
	mt    *exec.ModifyTable
	locks []relLock // the relation locks planning took, in order
	inUse bool      // a portal is running it
}

type relLock struct {
	oid  uint32
	mode int
}

// portalPlan plans portal p's statement, or takes its kept plan.
func (s *Session) portalPlan(c *exec.Ctx, p *portal) (exec.Node, []exec.Column, *exec.ModifyTable, error) {
	an := p.ps.an
	valid := func() bool {
		return an != nil && !s.ctx.Dirty && an.catalogV == s.eng.Catalog.Version() && maps.Equal(an.settings, s.settings)
	}
	if valid() && an.plan != nil && !an.plan.inUse {
		cp := an.plan
		for _, l := range cp.locks {
			if err := c.LockRel(l.oid, l.mode); err != nil {
				return nil, nil, nil, err
			}
		}
		if valid() {
			cp.inUse = true
			p.cached = cp
			exec.ResetInstrumentation(cp.node)
			return cp.node, cp.cols, cp.mt, nil
		}
		an.plan = nil // DDL committed while we waited for a lock
	}
	keep := valid() && an.plan == nil
	var locks []relLock
	if keep {
		lockRel := c.LockRel
		c.LockRel = func(oid uint32, mode int) error {
			locks = append(locks, relLock{oid, mode})
			return lockRel(oid, mode)
		}
		defer func() { c.LockRel = lockRel }()
	}
	pts := append([]types.Type(nil), p.ps.paramTypes...)
	node, cols, mt, err := s.planStmt(c, p.ps.stmt, pts)
	if err != nil {
		return nil, nil, nil, err
	}
	if keep && valid() && exec.Reusable(node) {
		cp := &cachedPlan{node: node, cols: cols, mt: mt, locks: locks, inUse: true}
		an.plan = cp
		p.cached = cp
	}
	return node, cols, mt, nil
}

// releasePlan hands a kept plan back when its portal is done with it.
func (p *portal) releasePlan() {
	if p.cached != nil {
		p.cached.inUse = false
		p.cached = nil
	}
}
