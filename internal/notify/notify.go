// Package notify is LISTEN/NOTIFY's delivery between the sessions of one
// engine: the hub knows which session listens on which channel and hands
// each committed notification to every listener of its channel.
//
// Transactions stay in the session: a session queues its NOTIFYs and its
// LISTEN/UNLISTEN actions, applies the actions and publishes the
// notifications once its transaction has committed, and drops both when it
// rolls back. The hub only routes: Publish appends a notification to the
// queue of each session listening on the channel at that moment (the
// sender's own included, as PostgreSQL does) and wakes it; the session's
// connection takes the queue when it can send it (when idle outside a
// transaction, or before its next ReadyForQuery).
package notify

import (
	"slices"
	"sync"
)

// Notification is one NotificationResponse: the sending backend's process
// id, the channel and the payload.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// Hub routes notifications between the listeners of one engine.
type Hub struct {
	mu        sync.Mutex
	listeners map[*Listener]struct{} // those listening on some channel
}

// NewHub makes an empty hub.
func NewHub() *Hub {
	return &Hub{listeners: map[*Listener]struct{}{}}
}

// Listener is one session's side of the hub. The session that owns it
// calls Listen, Unlisten and Channels; Take and Wake may be used from
// another goroutine (its connection's).
type Listener struct {
	hub      *Hub
	channels map[string]bool // guarded by hub.mu
	order    []string        // the channels in the order of their LISTEN

	qmu   sync.Mutex
	queue []Notification
	wake  chan struct{}
}

// NewListener makes a listener that listens on nothing yet.
func (h *Hub) NewListener() *Listener {
	return &Listener{hub: h, channels: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Listen starts listening on channel.
func (l *Listener) Listen(channel string) {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if !l.channels[channel] {
		l.channels[channel] = true
		l.order = append(l.order, channel)
	}
	h.listeners[l] = struct{}{}
}

// Unlisten stops listening on channel.
func (l *Listener) Unlisten(channel string) {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if !l.channels[channel] {
		return
	}
	delete(l.channels, channel)
	l.order = slices.DeleteFunc(l.order, func(c string) bool { return c == channel })
	if len(l.channels) == 0 {
		delete(h.listeners, l)
	}
}

// UnlistenAll stops listening on every channel.
func (l *Listener) UnlistenAll() {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(l.channels)
	l.order = nil
	delete(h.listeners, l)
}

// Channels lists the channels listened on, in the order they were first
// listened on (as pg_listening_channels does).
func (l *Listener) Channels() []string {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(l.order)
}

// Publish delivers the notifications of one committed transaction, in
// order, to every listener of their channels.
func (h *Hub) Publish(ns []Notification) {
	if len(ns) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		var mine []Notification
		for _, n := range ns {
			if l.channels[n.Channel] {
				mine = append(mine, n)
			}
		}
		if len(mine) > 0 {
			l.enqueue(mine)
		}
	}
}

func (l *Listener) enqueue(ns []Notification) {
	l.qmu.Lock()
	l.queue = append(l.queue, ns...)
	l.qmu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Wake receives a value when notifications may be waiting.
func (l *Listener) Wake() <-chan struct{} { return l.wake }

// Take removes and returns the waiting notifications.
func (l *Listener) Take() []Notification {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	q := l.queue
	l.queue = nil
	return q
}
