package stats

import "time"

// DatabaseCounters are the database-wide counters of pg_stat_database, with
// PostgreSQL 15's meanings. Times are the sums of the backends' session,
// active and idle-in-transaction time.
type DatabaseCounters struct {
	XactCommit, XactRollback                int64
	BlksRead, BlksHit                       int64
	TupReturned, TupFetched                 int64
	TupInserted, TupUpdated, TupDeleted     int64
	Conflicts, TempFiles, TempBytes         int64
	Deadlocks                               int64
	ChecksumFailures                        int64
	ChecksumLastFailure                     time.Time // zero: none
	SessionTime, ActiveTime, IdleInXactTime time.Duration
	Sessions, SessionsAbandoned             int64
	SessionsFatal, SessionsKilled           int64
	StatsReset                              time.Time // zero: never reset
}

// SessionEnd says how a session ended, for pg_stat_database's sessions_*.
type SessionEnd int

const (
	SessionNormal    SessionEnd = iota // the client said Terminate
	SessionAbandoned                   // the connection was lost
	SessionFatal                       // a FATAL error ended it
	SessionKilled                      // pg_terminate_backend or shutdown
)

// TransactionEnded counts a transaction (xact_commit / xact_rollback) and
// the buffer accesses its backend made since the last call.
func (t *Tables) TransactionEnded(committed bool, buf BufferUsage) {
	t.mu.Lock()
	if committed {
		t.db.XactCommit++
	} else {
		t.db.XactRollback++
	}
	t.db.BlksRead += buf.SharedRead
	t.db.BlksHit += buf.SharedHit
	t.mu.Unlock()
}

// TempFile counts a temporary file removed and the bytes it held
// (temp_files / temp_bytes, counted whatever log_temp_files says).
func (t *Tables) TempFile(size int64) {
	t.mu.Lock()
	t.db.TempFiles++
	t.db.TempBytes += size
	t.mu.Unlock()
}

// Deadlock counts a deadlock detected.
func (t *Tables) Deadlock() {
	t.mu.Lock()
	t.db.Deadlocks++
	t.mu.Unlock()
}

// ChecksumFailure counts a page whose checksum did not verify.
func (t *Tables) ChecksumFailure(at time.Time) {
	t.mu.Lock()
	t.db.ChecksumFailures++
	t.db.ChecksumLastFailure = at
	t.mu.Unlock()
}

// SessionStarted counts a session (sessions).
func (t *Tables) SessionStarted() {
	t.mu.Lock()
	t.db.Sessions++
	t.mu.Unlock()
}

// SessionTimes adds a backend's session, active and idle-in-transaction
// time.
func (t *Tables) SessionTimes(session, active, idleInXact time.Duration) {
	t.mu.Lock()
	t.db.SessionTime += session
	t.db.ActiveTime += active
	t.db.IdleInXactTime += idleInXact
	t.mu.Unlock()
}

// SessionEnded counts how a session ended.
func (t *Tables) SessionEnded(how SessionEnd) {
	t.mu.Lock()
	switch how {
	case SessionAbandoned:
		t.db.SessionsAbandoned++
	case SessionFatal:
		t.db.SessionsFatal++
	case SessionKilled:
		t.db.SessionsKilled++
	}
	t.mu.Unlock()
}

// Database copies the database counters.
func (t *Tables) Database() DatabaseCounters {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.db
}

// Reset zeroes every counter of the database, its tables and indexes
// (pg_stat_reset) and records when.
func (t *Tables) Reset(at time.Time) {
	t.mu.Lock()
	t.m = map[uint32]*TableCounters{}
	t.idx = map[uint32]*IndexCounters{}
	t.db = DatabaseCounters{StatsReset: at}
	t.mu.Unlock()
}

// ResetRelation zeroes one table's or index's counters
// (pg_stat_reset_single_table_counters); the database's reset time moves,
// as in PostgreSQL.
func (t *Tables) ResetRelation(oid uint32, at time.Time) {
	t.mu.Lock()
	delete(t.m, oid)
	delete(t.idx, oid)
	t.db.StatsReset = at
	t.mu.Unlock()
}
