package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// StatsFile is where the table counters are kept across a clean shutdown
// (PostgreSQL's pg_stat/pgstat.stat), relative to the data directory.
const StatsFile = "pg_stat/tables.json"

type savedTables struct {
	Version int                       `json:"version"`
	Tables  map[uint32]*TableCounters `json:"tables"`
}

const savedVersion = 1

// Save writes every table's counters to dir's stats file, atomically
// (a temporary file renamed over it).
func (t *Tables) Save(dir string) error {
	t.mu.Lock()
	data, err := json.Marshal(savedTables{Version: savedVersion, Tables: t.m})
	t.mu.Unlock()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, StatsFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Load reads the counters a clean shutdown saved and removes the file, so
// that a crash later starts from zero instead of from stale counters (as
// PostgreSQL discards its statistics after a crash). A missing file is
// not an error.
func (t *Tables) Load(dir string) error {
	path := filepath.Join(dir, StatsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	os.Remove(path)
	var saved savedTables
	if err := json.Unmarshal(data, &saved); err != nil || saved.Version != savedVersion {
		return fmt.Errorf("statistics file %q is damaged or of another version; counters start from zero", path)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for oid, c := range saved.Tables {
		if c != nil {
			t.m[oid] = c
		}
	}
	return nil
}

// Discard removes a saved statistics file (crash recovery: the counters
// it holds are older than the changes being replayed).
func Discard(dir string) { os.Remove(filepath.Join(dir, StatsFile)) }
