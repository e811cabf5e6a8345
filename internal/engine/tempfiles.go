package engine

import "github.com/tidal-db/tidal/internal/storage/tempfile"

// openTempFiles empties base/pgsql_tmp (files of a server that stopped
// mid-query) and makes the manager sessions create their spill files
// through.
func (e *Engine) openTempFiles() error {
	m, err := tempfile.NewManager(e.cfg.DataDir, tempfile.Hooks{Removed: e.Stats.TempFile, Logf: e.log.Printf})
	if err != nil {
		return err
	}
	e.TempFiles = m
	return nil
}
