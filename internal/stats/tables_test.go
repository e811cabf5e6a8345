package stats

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCountersAndPersistence: the counters autovacuum reads move as
// PostgreSQL's do, survive Save/Load, and the file is gone once loaded
// (a crash after it must not bring back stale counters).
func TestCountersAndPersistence(t *testing.T) {
	dir := t.TempDir()
	tb := NewTables()
	tb.Modified(1, 10, 2, 1, 3)
	c := tb.Get(1)
	if c.DeadTup != 5 || c.InsSinceVacuum != 10 || c.ModSinceAnalyze != 15 || c.LiveTup != 7 {
		t.Fatalf("after changes: %+v", c)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tb.Vacuumed(1, true, 7, 1, at)
	tb.Analyzed(1, true, 7, at)
	tb.ParallelWorkers(1, 4, 1)
	if err := tb.Save(dir); err != nil {
		t.Fatal(err)
	}
	back := NewTables()
	if err := back.Load(dir); err != nil {
		t.Fatal(err)
	}
	c = back.Get(1)
	if c.DeadTup != 1 || c.InsSinceVacuum != 0 || c.ModSinceAnalyze != 0 || c.AutovacuumCount != 1 || c.VacuumCount != 0 ||
		c.AutoanalyzeCount != 1 || !c.LastAutovacuum.Equal(at) || c.ParallelPlanned != 4 || c.ParallelLaunched != 1 {
		t.Fatalf("loaded: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(dir, StatsFile)); !os.IsNotExist(err) {
		t.Fatalf("stats file still there after Load: %v", err)
	}
	if err := NewTables().Load(dir); err != nil {
		t.Fatalf("no file: %v", err)
	}
}
