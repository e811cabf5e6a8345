package xact

// Callbacks let storage that keeps per-transaction state act at a
// transaction's boundaries (PostgreSQL's RegisterXactCallback and
// RegisterSubXactCallback). The undo table AM is the user: it applies a
// transaction's undo before the transaction is marked aborted, while its
// locks are still held, so no other writer ever sees an aborted change.
// Any field may be nil. Registered at start-up, before transactions run.
type Callbacks struct {
	// BeforeAbort runs at the start of Abort (the xid is still running).
	BeforeAbort func(p *Proc)
	// AfterCommit runs once Commit has finished; xid was the top xid
	// (InvalidXid for a transaction that wrote nothing).
	AfterCommit func(p *Proc, xid XID)
	// SubBegin runs after BeginSubXact, SubRelease after ReleaseSubXact.
	SubBegin, SubRelease func(p *Proc)
	// BeforeSubAbort runs at the start of RollbackSubXact.
	BeforeSubAbort func(p *Proc)
}

// AddCallbacks registers cb.
func (m *Manager) AddCallbacks(cb Callbacks) { m.callbacks = append(m.callbacks, cb) }

func (m *Manager) runCallbacks(p *Proc, pick func(Callbacks) func(*Proc)) {
	for _, cb := range m.callbacks {
		if f := pick(cb); f != nil {
			f(p)
		}
	}
}

// afterCommit runs the AfterCommit callbacks if the commit succeeded (p's
// xid is cleared either way, so the commit log says), also for a
// transaction that never had an xid (its savepoints are over too).
func (m *Manager) afterCommit(p *Proc, xid XID) {
	if xid != InvalidXid && m.clog.Get(xid) != Committed {
		return
	}
	for _, cb := range m.callbacks {
		if cb.AfterCommit != nil {
			cb.AfterCommit(p, xid)
		}
	}
}
