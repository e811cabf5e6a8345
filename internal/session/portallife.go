package session

// Portal lifetimes, as PostgreSQL's portalmem.c (AtAbort_Portals,
// AtSubAbort_Portals, AtSubCommit_Portals, AtCleanup_Portals):
//
//   - A portal belongs to the transaction that bound it and goes when that
//     transaction ends (COMMIT, ROLLBACK, or Sync of an implicit one).
//   - An error outside every savepoint fails the whole block: the portals
//     stay (their plans closed) until the block ends, and running one gets
//     25P02 like any statement.
//   - Rolling a savepoint back drops the portals bound inside it. A portal
//     bound before it whose own execution raised the error is marked
//     failed: it can never run again (55000 'portal "x" cannot be run').
//     The others, even those that ran inside the savepoint, go on.
//   - Releasing a savepoint hands its portals to the enclosing level.
// Prepared statements are not transactional: they stay until closed.

// extFail handles an error of an extended-protocol message: the implicit
// transaction is rolled back (dropping its portals), or the explicit
// block fails.
func (s *Session) extFail() {
	if s.inBlock {
		s.failBlock()
		return
	}
	if s.inTx {
		s.abort()
	}
	s.dropPortals(nil)
}

// dropPortals closes the portals (all, or those for which keep is false).
func (s *Session) dropPortals(keep func(*portal) bool) {
	if s.extended == nil {
		return
	}
	for name, p := range s.extended.portals {
		if keep != nil && keep(p) {
			continue
		}
		p.close()
		delete(s.extended.portals, name)
	}
}

// gcPortals drops portals whose transaction has ended (by COMMIT or
// ROLLBACK in a simple query, say).
func (s *Session) gcPortals() {
	s.dropPortals(func(p *portal) bool { return s.inTx && p.txStart.Equal(s.txStart) })
}

// portalsAtAbort closes every portal's plan when the block fails outside
// any savepoint; the portals themselves last until the block ends.
func (s *Session) portalsAtAbort() {
	if s.extended == nil {
		return
	}
	for _, p := range s.extended.portals {
		p.close()
	}
}

// portalsAtSubAbort applies the rollback of savepoint level to the portals.
func (s *Session) portalsAtSubAbort(level int) {
	if s.extended == nil {
		return
	}
	for name, p := range s.extended.portals {
		switch {
		case p.w != nil && p != s.failingPortal:
			// The portal running this very rollback (ROLLBACK TO bound
			// in the failed block) finishes normally.
		case p.createLevel >= level:
			p.close()
			delete(s.extended.portals, name)
		case p == s.failingPortal:
			p.failed = true
		}
	}
}

// portalsAtSubCommit hands the portals of released savepoint level to its
// parent.
func (s *Session) portalsAtSubCommit(level int) {
	if s.extended == nil {
		return
	}
	for _, p := range s.extended.portals {
		if p.createLevel >= level {
			p.createLevel = level - 1
		}
	}
}
