package session

// What the end of a transaction does to the session state that lives
// beside it: cursors (cursor.go) and LISTEN/NOTIFY (notify.go).

// atPreCommit runs before the transaction commits; an error makes the
// commit fail (the caller rolls back).
func (s *Session) atPreCommit() error {
	if err := s.fireDeferredTriggers(); err != nil {
		return err
	}
	if err := s.cursorsPreCommit(); err != nil {
		return err
	}
	return s.ssiPreCommit()
}

// atCommit runs once the transaction has committed.
func (s *Session) atCommit() {
	s.deferredTrig.Reset()
	s.ssiRelease(true)
	s.notifyAtCommit()
}

// atAbort runs when the transaction is rolled back (or its block fails).
func (s *Session) atAbort() {
	s.deferredTrig.Reset()
	s.ssiRelease(false)
	s.cursorsAtAbort()
	s.notifyAtAbort()
}

// atSubAbort and atSubCommit run when a subtransaction rolls back or is
// released; level is the nesting level of the (sub)transaction that goes
// on (1: the top transaction).
func (s *Session) atSubAbort(level int) {
	s.deferredTrig.AtSubAbort(level)
	s.cursors.atSubAbort(level)
	s.notifies.atSubAbort(level)
	s.keepCursorSnapshots()
}

func (s *Session) atSubCommit(level int) {
	s.deferredTrig.AtSubCommit(level)
	s.cursors.atSubCommit(level)
	s.notifies.atSubCommit(level)
}

// atClose runs when the session ends.
func (s *Session) atClose() {
	s.cursorsClose()
	s.notifyClose()
}
