package session

// LISTEN, UNLISTEN and NOTIFY / pg_notify: the session's transactional
// side of internal/notify. NOTIFYs and LISTEN/UNLISTEN actions are queued
// by the (sub)transaction, applied and published when it commits (so a
// rolled-back transaction neither notifies nor changes what is listened
// on), and identical notifications of one transaction are folded into the
// first, as PostgreSQL does.

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/notify"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
)

// PostgreSQL's limits: NOTIFY_PAYLOAD_MAX_LENGTH (BLCKSZ - NAMEDATALEN -
// 128) and NAMEDATALEN.
const (
	maxNotifyPayload = 8000
	maxChannelName   = 64
)

type listenOp int

const (
	opListen listenOp = iota
	opUnlisten
	opUnlistenAll
)

type listenAction struct {
	level   int
	op      listenOp
	channel string
}

type pendingNotify struct {
	level int
	n     notify.Notification
}

// notifyState is the session's LISTEN/NOTIFY state.
type notifyState struct {
	listener *notify.Listener
	pending  []pendingNotify // this transaction's NOTIFYs
	actions  []listenAction  // this transaction's LISTEN/UNLISTEN
}

var _ pgwire.Notifier = (*Session)(nil)

func (s *Session) listener() *notify.Listener {
	if s.notifies.listener == nil {
		s.notifies.listener = s.eng.Notify.NewListener()
	}
	return s.notifies.listener
}

// NotificationWake implements pgwire.Notifier.
func (s *Session) NotificationWake() <-chan struct{} { return s.listener().Wake() }

// TakeNotifications implements pgwire.Notifier.
func (s *Session) TakeNotifications() []pgwire.Notification {
	if s.notifies.listener == nil {
		return nil
	}
	ns := s.notifies.listener.Take()
	if len(ns) == 0 {
		return nil
	}
	out := make([]pgwire.Notification, len(ns))
	for i, n := range ns {
		out[i] = pgwire.Notification{PID: n.PID, Channel: n.Channel, Payload: n.Payload}
	}
	return out
}

// notify queues a notification for the end of the transaction.
func (s *Session) notify(channel, payload string) error {
	if channel == "" {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "channel name cannot be empty")
	}
	if len(channel) >= maxChannelName {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "channel name too long")
	}
	if len(payload) >= maxNotifyPayload {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "payload string too long")
	}
	s.notifies.pending = append(s.notifies.pending, pendingNotify{level: s.subxactLevel(),
		n: notify.Notification{PID: uint32(s.BackendPID()), Channel: channel, Payload: payload}})
	return nil
}

// listenStmt runs LISTEN, UNLISTEN and NOTIFY.
func (s *Session) listenStmt(stmt *pg.Node, w pgwire.ResultWriter) error {
	switch {
	case stmt.GetNotifyStmt() != nil:
		ns := stmt.GetNotifyStmt()
		if err := s.notify(ns.Conditionname, ns.Payload); err != nil {
			return err
		}
		return w.CommandComplete("NOTIFY")
	case stmt.GetListenStmt() != nil:
		s.queueListen(opListen, stmt.GetListenStmt().Conditionname)
		return w.CommandComplete("LISTEN")
	default:
		ch := stmt.GetUnlistenStmt().Conditionname
		if ch == "" {
			s.queueListen(opUnlistenAll, "")
		} else {
			s.queueListen(opUnlisten, ch)
		}
		return w.CommandComplete("UNLISTEN")
	}
}

func (s *Session) queueListen(op listenOp, channel string) {
	s.notifies.actions = append(s.notifies.actions, listenAction{level: s.subxactLevel(), op: op, channel: channel})
}

// notifyAtCommit applies the committed transaction's LISTEN/UNLISTEN
// actions and publishes its notifications.
func (s *Session) notifyAtCommit() {
	st := &s.notifies
	if len(st.actions) == 0 && len(st.pending) == 0 {
		return
	}
	for _, a := range st.actions {
		switch a.op {
		case opListen:
			s.listener().Listen(a.channel)
		case opUnlisten:
			if st.listener != nil {
				st.listener.Unlisten(a.channel)
			}
		case opUnlistenAll:
			if st.listener != nil {
				st.listener.UnlistenAll()
			}
		}
	}
	var out []notify.Notification
	seen := map[notify.Notification]bool{}
	for _, p := range st.pending {
		if !seen[p.n] {
			seen[p.n] = true
			out = append(out, p.n)
		}
	}
	st.actions, st.pending = nil, nil
	s.eng.Notify.Publish(out)
}

// notifyAtAbort forgets what the rolled-back transaction queued.
func (s *Session) notifyAtAbort() {
	s.notifies.actions, s.notifies.pending = nil, nil
}

// notifyClose stops listening (the session ends).
func (s *Session) notifyClose() {
	if s.notifies.listener != nil {
		s.notifies.listener.UnlistenAll()
	}
}

// atSubAbort forgets what a rolled-back subtransaction queued (those
// deeper than level, the nesting level that goes on).
func (st *notifyState) atSubAbort(level int) {
	keepN := st.pending[:0]
	for _, p := range st.pending {
		if p.level <= level {
			keepN = append(keepN, p)
		}
	}
	st.pending = keepN
	keepA := st.actions[:0]
	for _, a := range st.actions {
		if a.level <= level {
			keepA = append(keepA, a)
		}
	}
	st.actions = keepA
}

// atSubCommit hands a released subtransaction's queue to its parent.
func (st *notifyState) atSubCommit(level int) {
	for i := range st.pending {
		st.pending[i].level = min(st.pending[i].level, level)
	}
	for i := range st.actions {
		st.actions[i].level = min(st.actions[i].level, level)
	}
}

// listeningChannels is pg_listening_channels().
func (s *Session) listeningChannels() []string {
	if s.notifies.listener == nil {
		return nil
	}
	return s.notifies.listener.Channels()
}
