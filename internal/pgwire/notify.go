package pgwire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// Notifier is optionally implemented by a Session that receives
// asynchronous notifications (LISTEN/NOTIFY). The connection sends them as
// NotificationResponse messages when the session is outside a transaction:
// just before a ReadyForQuery with status 'I', and at once when the
// connection is idle (waiting for a message after such a ReadyForQuery,
// not in the middle of an extended-protocol batch).
type Notifier interface {
	// NotificationWake receives a value when notifications may be
	// waiting; the same channel for the session's lifetime.
	NotificationWake() <-chan struct{}
	// TakeNotifications removes and returns the waiting notifications.
	// It may be called from the connection's notification goroutine while
	// the session is idle.
	TakeNotifications() []Notification
}

// Notification is one NotificationResponse.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// sendNotifications queues the session's waiting notifications into the
// write buffer. c.wmu is held.
func (c *conn) sendNotifications() {
	n, ok := c.sess.(Notifier)
	if !ok {
		return
	}
	for _, x := range n.TakeNotifications() {
		_ = c.send(&pgproto3.NotificationResponse{PID: x.PID, Channel: x.Channel, Payload: x.Payload})
	}
}

// watchNotifications runs while the connection lives and sends
// notifications that arrive while it is idle outside a transaction. The
// message loop holds c.wmu while it handles a message, so a notification
// never lands inside another message's output.
func (c *conn) watchNotifications(wake <-chan struct{}) {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-wake:
		}
		c.wmu.Lock()
		if c.idleOutsideTx() {
			c.sendNotifications()
			_ = c.flush()
		}
		c.wmu.Unlock()
	}
}

// idleOutsideTx reports whether the connection waits for a message after a
// ReadyForQuery 'I' (not inside an extended-protocol batch). c.wmu is held.
func (c *conn) idleOutsideTx() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == stateIdle && !c.terminate && c.lastStatus == 'I' && !c.inBatch && c.werr == nil
}
