package session

import (
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
)

// Savepoints are subtransactions (xact/subxact.go) named by the block,
// with PostgreSQL's rules (xact.c's DefineSavepoint, ReleaseSavepoint,
// RollbackToSavepoint):
//
//   - SAVEPOINT, RELEASE and ROLLBACK TO only work inside BEGIN … COMMIT
//     (25P01 otherwise); an unknown name is 3B001. A reused name shadows
//     the older savepoint until the newer one is released.
//   - An error inside a savepoint aborts only the innermost subtransaction
//     at once (its locks go, its rows die) and fails the block: every
//     statement but ROLLBACK, ROLLBACK TO and COMMIT (which rolls back) gets
//     25P02 until one of them runs.
//   - ROLLBACK TO s aborts every subtransaction opened after s and s itself,
//     then starts s anew: the block goes on from where s was taken.
//   - RELEASE s ends s and every savepoint opened after it as sub-committed:
//     their changes become the enclosing level's, to commit or abort with it.
//
// What a level must undo when it is rolled back besides its rows and locks
// (which xact undoes): relation files it created, drops it scheduled,
// catalog changes cached in this backend, settings it changed.

type savepoint struct {
	name string
	// aborted: the subtransaction was already rolled back in xact by an
	// error inside it (the block is failed); only ROLLBACK TO or the end
	// of the block removes the entry.
	aborted bool
	// lengths of the transaction's Created and Dropped lists when the
	// savepoint was taken: entries beyond are the subtransaction's.
	created, dropped int
}

func (s *Session) defineSavepoint(name string, w pgwire.ResultWriter) error {
	if !s.inBlock {
		return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	if s.failed {
		return abortedError()
	}
	s.beginSubXact(name)
	return w.CommandComplete("SAVEPOINT")
}

func (s *Session) beginSubXact(name string) {
	s.eng.Xact.BeginSubXact(s.proc)
	s.savepoints = append(s.savepoints, &savepoint{name: name, created: len(s.ctx.Created), dropped: len(s.ctx.Dropped)})
	s.gucBegin()
	s.syncXid()
}

// findSavepoint is the index of the innermost savepoint called name.
func (s *Session) findSavepoint(name string) int {
	for i := len(s.savepoints) - 1; i >= 0; i-- {
		if s.savepoints[i].name == name {
			return i
		}
	}
	return -1
}

func noSuchSavepoint(name string) error {
	return pgerr.Errorf(pgerr.InvalidSavepointSpecification, "savepoint \"%s\" does not exist", name)
}

func (s *Session) releaseSavepoint(name string, w pgwire.ResultWriter) error {
	if !s.inBlock {
		return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "RELEASE SAVEPOINT can only be used in transaction blocks")
	}
	if s.failed {
		return abortedError()
	}
	i := s.findSavepoint(name)
	if i < 0 {
		return noSuchSavepoint(name)
	}
	for len(s.savepoints) > i {
		s.portalsAtSubCommit(s.proc.SubLevel())
		s.eng.Xact.ReleaseSubXact(s.proc)
		s.gucReleaseLevel()
		s.savepoints = s.savepoints[:len(s.savepoints)-1]
		s.atSubCommit(s.subxactLevel())
	}
	s.syncXid()
	return w.CommandComplete("RELEASE")
}

func (s *Session) rollbackToSavepoint(name string, w pgwire.ResultWriter) error {
	if !s.inBlock {
		return pgerr.Errorf(pgerr.NoActiveSQLTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
	}
	// A block that failed outside every savepoint has none left, so this
	// is 3B001 then too, as in PostgreSQL.
	i := s.findSavepoint(name)
	if i < 0 {
		return noSuchSavepoint(name)
	}
	for len(s.savepoints) > i {
		sp := s.savepoints[len(s.savepoints)-1]
		s.abortSubXact(sp)
		s.savepoints = s.savepoints[:len(s.savepoints)-1]
	}
	s.failed = false
	s.beginSubXact(name)
	return w.CommandComplete("ROLLBACK")
}

// abortSubXact rolls back the innermost open subtransaction, sp, unless an
// error already did.
func (s *Session) abortSubXact(sp *savepoint) {
	if sp.aborted {
		return
	}
	sp.aborted = true
	s.portalsAtSubAbort(s.proc.SubLevel())
	s.eng.Xact.RollbackSubXact(s.proc)
	s.gucAbortLevel()
	s.atSubAbort(len(s.savepoints)) // sp is the innermost: the level below it goes on
	// Relation files the subtransaction created go; drops it scheduled
	// are forgotten (the relations live on).
	created := s.ctx.Created[sp.created:]
	s.dropRelationFiles(created)
	s.ctx.Created = s.ctx.Created[:sp.created]
	s.ctx.Dropped = s.ctx.Dropped[:sp.dropped]
	if s.ctx.Dirty {
		// The transaction reads its catalogs itself while Dirty (rows of
		// the aborted subtransaction are now invisible to it), but shared
		// caches keyed by catalog version, and its relation handles, must
		// not keep what the subtransaction made.
		s.eng.Catalog.Invalidate()
	}
	s.syncXid()
}

// syncXid points the heap transaction at the xid its writes now get: the
// innermost level's, or none until it writes.
func (s *Session) syncXid() { s.htx.Xid = s.proc.CurrentXid() }
