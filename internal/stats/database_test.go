package stats

import (
	"testing"
	"time"
)

func TestDatabaseCountersAndReset(t *testing.T) {
	tb := NewTables()
	tb.Modified(16384, 3, 2, 1, 1)
	tb.Scanned(16384, false, 10)
	tb.IndexScanned(16390, 4, 3)
	tb.TransactionEnded(true, BufferUsage{SharedHit: 5, SharedRead: 2})
	tb.TransactionEnded(false, BufferUsage{SharedHit: 1})
	tb.Deadlock()
	tb.SessionStarted()
	tb.SessionEnded(SessionKilled)
	tb.SessionEnded(SessionNormal)
	tb.SessionTimes(3*time.Second, time.Second, 0)
	d := tb.Database()
	want := DatabaseCounters{XactCommit: 1, XactRollback: 1, BlksRead: 2, BlksHit: 6, TupReturned: 14, TupFetched: 3,
		TupInserted: 3, TupUpdated: 2, TupDeleted: 1, Deadlocks: 1, Sessions: 1, SessionsKilled: 1,
		SessionTime: 3 * time.Second, ActiveTime: time.Second}
	if d != want {
		t.Fatalf("counters\n%+v\nwant\n%+v", d, want)
	}
	if ix := tb.Indexes()[16390]; ix != (IndexCounters{IdxScan: 1, IdxTupRead: 4, IdxTupFetch: 3}) {
		t.Fatalf("index counters %+v", ix)
	}

	at := time.Unix(5000, 0)
	tb.ResetRelation(16384, at)
	if _, ok := tb.Snapshot()[16384]; ok {
		t.Fatal("the table's counters survived pg_stat_reset_single_table_counters")
	}
	if d := tb.Database(); d.TupInserted != 3 || !d.StatsReset.Equal(at) {
		t.Fatalf("a table reset keeps the database's counters and dates the reset: %+v", d)
	}
	tb.Reset(at.Add(time.Second))
	if d := tb.Database(); d != (DatabaseCounters{StatsReset: at.Add(time.Second)}) || len(tb.Indexes()) != 0 {
		t.Fatalf("after pg_stat_reset: %+v", d)
	}
}
