// Package activity is what each backend publishes about itself for
// pg_stat_activity: PostgreSQL's PgBackendStatus. See README.md.
package activity

import (
	"sync"
	"time"
)

// State is a backend's state as pg_stat_activity.state names it.
type State uint8

const (
	Undefined State = iota // not reported yet: shown as NULL
	Idle
	Running
	IdleInTransaction
	FastPath
	IdleInTransactionAborted
	Disabled // track_activities is off
)

var stateNames = [...]string{"", "idle", "active", "idle in transaction", "fastpath function call",
	"idle in transaction (aborted)", "disabled"}

// String is the state's pg_stat_activity text ("" for Undefined).
func (s State) String() string { return stateNames[s] }

// Client describes where a backend's connection comes from; fixed once the
// session starts, except AppName (SET application_name).
type Client struct {
	DatID    uint32 // 0: the backend is connected to no database
	DatName  string
	UserID   uint32
	UserName string
	AppName  string
	// Addr is the client's IP address, "" for a Unix socket or an
	// embedded session; Port is its TCP port, -1 for a Unix socket, 0 for
	// none (shown as NULL).
	Addr string
	Port int32
}

// Status is one backend's published activity. Its owner writes it; any
// backend reads it with Snapshot, which copies every field under one lock
// so a reader never sees a half-updated row (PostgreSQL's changecount
// protocol, reduced to a mutex).
type Status struct {
	mu    sync.Mutex
	start time.Time
	cl    Client
	state State
	query string
	// times: zero when unset (NULL)
	xactStart, queryStart, stateChange time.Time
	waitType, waitEvent                string

	// time counters for pg_stat_database, since the last Drain
	// accruedFrom is where the current state's time starts to count.
	activeTime, idleInXactTime time.Duration
	accruedFrom, lastDrain     time.Time
}

// New returns the status of a backend that started at start.
func New(start time.Time) *Status { return &Status{start: start, lastDrain: start} }

// SetClient records the connection's origin and login.
func (s *Status) SetClient(c Client) {
	s.mu.Lock()
	s.cl = c
	s.mu.Unlock()
}

// SetAppName records a change of application_name.
func (s *Status) SetAppName(name string) {
	s.mu.Lock()
	s.cl.AppName = name
	s.mu.Unlock()
}

// Report sets the backend's state (pgstat_report_activity). query is the
// statement text for Running; for the idle states the last query stays
// shown, as in PostgreSQL. The time spent in the state being left is added
// to the active / idle-in-transaction counters.
func (s *Status) Report(st State, query string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == Disabled {
		if s.state != Disabled {
			s.accrueLocked(now)
			s.state, s.query = Disabled, ""
			s.queryStart, s.stateChange, s.xactStart = time.Time{}, time.Time{}, time.Time{}
			s.waitType, s.waitEvent = "", ""
		}
		return
	}
	s.accrueLocked(now)
	s.stateChange = now
	if st == Running || st == FastPath {
		s.query = query
		s.queryStart = now
	}
	s.state = st
}

// accrueLocked adds the time since the last accrual to the counter of the
// current state (pgstat_report_activity's usecs_diff).
func (s *Status) accrueLocked(now time.Time) {
	if !s.accruedFrom.IsZero() {
		d := now.Sub(s.accruedFrom)
		switch s.state {
		case Running, FastPath:
			s.activeTime += d
		case IdleInTransaction, IdleInTransactionAborted:
			s.idleInXactTime += d
		}
	}
	s.accruedFrom = now
}

// SetXactStart records the start of the backend's transaction; the zero
// time clears it (no transaction). A transaction begun by a running
// statement starts when the statement did, as PostgreSQL's transaction
// start is its first statement's start.
func (s *Status) SetXactStart(t time.Time) {
	s.mu.Lock()
	if !t.IsZero() && s.state == Running && !s.queryStart.IsZero() {
		t = s.queryStart
	}
	if s.state != Disabled {
		s.xactStart = t
	}
	s.mu.Unlock()
}

// SetWait publishes what the backend waits for (pgstat_report_wait_start);
// two empty strings end the wait.
func (s *Status) SetWait(eventType, event string) {
	s.mu.Lock()
	s.waitType, s.waitEvent = eventType, event
	s.mu.Unlock()
}

// Times are a backend's session counters accrued since the last Drain.
type Times struct {
	Session, Active, IdleInXact time.Duration
}

// Drain returns the session, active and idle-in-transaction time accrued
// since the previous Drain and starts counting afresh, so the caller can
// add them to cumulative statistics exactly once.
func (s *Status) Drain(now time.Time) Times {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accrueLocked(now)
	t := Times{Session: now.Sub(s.lastDrain), Active: s.activeTime, IdleInXact: s.idleInXactTime}
	s.activeTime, s.idleInXactTime, s.lastDrain = 0, 0, now
	return t
}

// Row is a consistent copy of a Status.
type Row struct {
	BackendStart                       time.Time
	Client                             Client
	State                              State
	Query                              string
	XactStart, QueryStart, StateChange time.Time
	WaitEventType, WaitEvent           string
}

// Snapshot copies the status.
func (s *Status) Snapshot() Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Row{BackendStart: s.start, Client: s.cl, State: s.state, Query: s.query,
		XactStart: s.xactStart, QueryStart: s.queryStart, StateChange: s.stateChange,
		WaitEventType: s.waitType, WaitEvent: s.waitEvent}
}
