package session

import "github.com/tidal-db/tidal/internal/storage/tempfile"

// tempFileSpace is the session's temporary-file space (sorts' and
// hashes' spill files), made at first use.
func (s *Session) tempFileSpace() *tempfile.Space {
	if s.tempFiles == nil {
		s.tempFiles = s.eng.TempFiles.NewSpace(s.BackendPID())
	}
	return s.tempFiles
}

// closeTempFiles removes any temporary file still open at transaction
// end: every plan that could hold one has ended (WITH HOLD cursors were
// materialized before commit). Nodes close their own files as they end,
// also on error; this is the safety net for a plan abandoned half-way.
func (s *Session) closeTempFiles() {
	if s.tempFiles != nil {
		s.tempFiles.CloseAll()
	}
}
