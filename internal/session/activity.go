package session

import (
	"time"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/activity"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/stats"
)

// What the session publishes about itself for pg_stat_activity and
// pg_stat_database (PostgreSQL's pgstat_report_activity and the session
// counters of pgstat_database.c). The state moves to "active" when a
// Query, Parse, Bind or Execute message starts work and back to an idle
// state when the session is ready for the next command (the end of a Query
// message, Sync).

func (s *Session) status() *activity.Status { return s.sig.backend.Activity }

// startActivity names the session's proc and counts the session.
func (s *Session) startActivity(role uint32) {
	s.proc.SetPID(s.BackendPID())
	s.publishClient(role)
	s.eng.Stats.SessionStarted()
}

// publishClient publishes who the session is: its database, login role
// and application_name.
func (s *Session) publishClient(role uint32) {
	st := s.status()
	c := st.Snapshot().Client
	c.DatID, c.DatName = catalog.DatabaseOID, "postgres"
	c.UserID, c.UserName, c.AppName = role, s.currentUser(), s.Get("application_name")
	s.tracking.user = role
	st.SetClient(c)
}

// SetClientAddr implements pgwire.ClientAddressed: where the connection
// comes from (client_addr, client_port; "" and -1 for a Unix socket).
func (s *Session) SetClientAddr(addr string, port int32) {
	st := s.status()
	r := st.Snapshot()
	c := r.Client
	c.Addr, c.Port = addr, port
	st.SetClient(c)
}

// reportActive publishes that the session runs query.
func (s *Session) reportActive(query string) { s.report(activity.Running, query) }

// reportIdle publishes the state the session waits for its next command in.
func (s *Session) reportIdle() {
	st := activity.Idle
	switch {
	case s.failed:
		st = activity.IdleInTransactionAborted
	case s.inBlock:
		st = activity.IdleInTransaction
	}
	s.report(st, "")
	s.eng.ReturnMemory()
	if now := time.Now(); now.Sub(s.timesFlushed) >= sessionTimesInterval {
		s.timesFlushed = now
		s.flushSessionTimes()
	}
}

// sessionTimesInterval is how often an idle-going session adds its time
// counters to pg_stat_database (PostgreSQL's PGSTAT_MIN_INTERVAL): the
// counters lag by at most this, and a busy session does not take the
// statistics lock for them on every statement.
const sessionTimesInterval = time.Second

func (s *Session) report(st activity.State, query string) {
	a := s.status()
	if s.Setting("track_activities") == "off" {
		st = activity.Disabled
	}
	a.SetAppName(s.Get("application_name"))
	a.Report(st, clipQuery(query, int(s.intSetting("track_activity_query_size"))), time.Now())
}

// clipQuery cuts query to what track_activity_query_size holds: at most
// size-1 bytes, never inside a character (pg_mbcliplen).
func clipQuery(query string, size int) string {
	if size < 1 || len(query) < size {
		return query
	}
	n := size - 1
	for n > 0 && !utf8.RuneStart(query[n]) {
		n--
	}
	return query[:n]
}

// reportXact publishes the start (or, with the zero time, the end) of the
// session's transaction (xact_start).
func (s *Session) reportXact(start time.Time) { s.status().SetXactStart(start) }

// countXact counts the transaction that just ended and the buffer
// accesses made since the last one (xact_commit, xact_rollback, blks_*).
func (s *Session) countXact(committed bool) {
	d := s.usage.Sub(s.statUsage)
	s.statUsage = s.usage
	s.eng.Stats.TransactionEnded(committed, d.Buf)
}

// flushSessionTimes adds the session's time counters to pg_stat_database.
func (s *Session) flushSessionTimes() {
	t := s.status().Drain(time.Now())
	s.eng.Stats.SessionTimes(t.Session, t.Active, t.IdleInXact)
}

// endActivity counts the end of the session (sessions_killed when
// pg_terminate_backend ended it, else as the wire layer said).
func (s *Session) endActivity() {
	s.flushSessionTimes()
	how := s.endReason
	if s.sig.terminated.Load() {
		how = stats.SessionKilled
	}
	s.eng.Stats.SessionEnded(how)
}

// SetEndReason implements pgwire.EndReasoned: how the connection ended.
func (s *Session) SetEndReason(r pgwire.EndReason) {
	switch r {
	case pgwire.EndAbandoned:
		s.endReason = stats.SessionAbandoned
	case pgwire.EndFatal:
		s.endReason = stats.SessionFatal
	case pgwire.EndKilled:
		s.endReason = stats.SessionKilled
	}
}
