package activity

import (
	"sync"
	"testing"
	"time"
)

func TestReportStatesAndTimes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := New(t0)
	if r := s.Snapshot(); r.State != Undefined || r.State.String() != "" || !r.QueryStart.IsZero() {
		t.Fatalf("a new status: %+v", r)
	}
	s.Report(Running, "BEGIN", t0.Add(time.Second))
	s.SetXactStart(t0.Add(2 * time.Second)) // begun by the running statement: its start
	s.Report(IdleInTransaction, "", t0.Add(3*time.Second))
	r := s.Snapshot()
	if r.State.String() != "idle in transaction" || r.Query != "BEGIN" {
		t.Fatalf("idle keeps the last query: %+v", r)
	}
	if !r.XactStart.Equal(t0.Add(time.Second)) || !r.QueryStart.Equal(t0.Add(time.Second)) || !r.StateChange.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("times: %+v", r)
	}
	s.Report(Running, "SELECT 1", t0.Add(5*time.Second))
	s.Report(IdleInTransactionAborted, "", t0.Add(6*time.Second))
	s.Report(Idle, "", t0.Add(10*time.Second))
	// active 1→3 and 5→6: 3s; idle in transaction 3→5 and 6→10: 6s.
	d := s.Drain(t0.Add(11 * time.Second))
	if d.Active != 3*time.Second || d.IdleInXact != 6*time.Second || d.Session != 11*time.Second {
		t.Fatalf("drained %+v", d)
	}
	if d := s.Drain(t0.Add(12 * time.Second)); d.Active != 0 || d.IdleInXact != 0 || d.Session != time.Second {
		t.Fatalf("a second drain counts only what came since: %+v", d)
	}
}

func TestDisabledHidesActivity(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := New(t0)
	s.Report(Running, "SELECT secret", t0)
	s.SetXactStart(t0)
	s.SetWait("Timeout", "PgSleep")
	s.Report(Disabled, "", t0.Add(time.Second))
	s.SetXactStart(t0.Add(2 * time.Second))
	r := s.Snapshot()
	if r.State.String() != "disabled" || r.Query != "" || !r.XactStart.IsZero() || !r.QueryStart.IsZero() || r.WaitEvent != "" {
		t.Fatalf("disabled: %+v", r)
	}
}

// TestSnapshotIsConsistent: a reader never sees a query with another
// report's start time (run with -race).
func TestSnapshotIsConsistent(t *testing.T) {
	s := New(time.Unix(0, 0))
	queries := map[string]time.Time{"a": time.Unix(1, 0), "b": time.Unix(2, 0)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 2000; i++ {
			q := []string{"a", "b"}[i%2]
			s.Report(Running, q, queries[q])
		}
	}()
	for i := 0; i < 2000; i++ {
		r := s.Snapshot()
		if want, ok := queries[r.Query]; ok && !r.QueryStart.Equal(want) {
			t.Fatalf("query %q with start %v", r.Query, r.QueryStart)
		}
	}
	wg.Wait()
}

// BenchmarkReportCycle is what every statement adds: a report of the
// running state and one of the idle state, with a drain of the times.
func BenchmarkReportCycle(b *testing.B) {
	s := New(time.Now())
	for i := 0; i < b.N; i++ {
		s.Report(Running, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", time.Now())
		s.Report(Idle, "", time.Now())
		s.Drain(time.Now())
	}
}
