package session

import (
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/xact"
)

// SERIALIZABLE runs on one transaction snapshot, as REPEATABLE READ, with
// the engine's predicate lock manager watching its reads and writes
// (internal/xact/predicate); the heap and B-tree hooks find the record in
// htx.SSI.

// usesTxSnapshot: the isolation level keeps one snapshot for the whole
// transaction.
func (s *Session) usesTxSnapshot() bool {
	return s.isolation == "repeatable read" || s.isolation == "serializable"
}

// serializableSnapshot takes the transaction's snapshot and, for
// SERIALIZABLE, registers it (GetSerializableTransactionSnapshot): READ
// ONLY DEFERRABLE waits for a safe snapshot; a read-only transaction with
// no concurrent writer needs no record.
func (s *Session) serializableSnapshot() (*xact.Snapshot, error) {
	pred := s.eng.AMEnv.Pred
	if s.readOnly && s.deferrable {
		return s.waitSafeSnapshot()
	}
	sx, snap := pred.Begin(s.proc, s.BackendPID(), s.readOnly)
	s.htx.SSI = sx
	return snap, nil
}

// ssiPreCommit is the last serialization check before commit.
func (s *Session) ssiPreCommit() error { return s.htx.SSI.PreCommit() }

// ssiRelease ends the transaction's SSI record.
func (s *Session) ssiRelease(committed bool) {
	s.htx.SSI.Release(committed)
	s.htx.SSI = nil
}

// waitSafeSnapshot waits for a safe snapshot (GetSafeSnapshot). The wait
// may come before the statement's interrupt context is set up (a snapshot
// taken at Parse, say): then a cancel hook of its own catches a cancel or
// terminate signal meanwhile.
func (s *Session) waitSafeSnapshot() (*xact.Snapshot, error) {
	var cause atomic.Uint32
	s.sig.mu.Lock()
	own := s.sig.cancel == nil
	if own {
		s.sig.cancel = func(err error) {
			if r, ok := err.(interrupt.Reason); ok {
				cause.Store(uint32(r))
			}
		}
	}
	s.sig.mu.Unlock()
	if own {
		defer func() {
			s.sig.mu.Lock()
			s.sig.cancel = nil
			s.sig.mu.Unlock()
		}()
	}
	s.status().SetWait("IPC", "SafeSnapshot")
	defer s.status().SetWait("", "")
	return s.eng.AMEnv.Pred.BeginSafe(s.proc, s.BackendPID(), func() error {
		if r := interrupt.Reason(cause.Load()); r != interrupt.None {
			return r.Err()
		}
		return s.sig.state.Check()
	})
}
