package notify

import (
	"reflect"
	"testing"
)

func TestPublishRoutesByChannel(t *testing.T) {
	h := NewHub()
	a, b := h.NewListener(), h.NewListener()
	a.Listen("x")
	a.Listen("y")
	b.Listen("y")
	h.Publish([]Notification{{PID: 7, Channel: "x", Payload: "1"}, {PID: 7, Channel: "y", Payload: "2"}, {PID: 7, Channel: "z", Payload: "3"}})
	if got, want := a.Take(), []Notification{{7, "x", "1"}, {7, "y", "2"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a got %v, want %v", got, want)
	}
	if got, want := b.Take(), []Notification{{7, "y", "2"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("b got %v, want %v", got, want)
	}
	if got := a.Take(); got != nil {
		t.Fatalf("Take after Take: %v", got)
	}
}

func TestWakeIsPendingOnce(t *testing.T) {
	h := NewHub()
	l := h.NewListener()
	l.Listen("c")
	for i := 0; i < 3; i++ {
		h.Publish([]Notification{{Channel: "c"}}) // never blocks on a full wake channel
	}
	select {
	case <-l.Wake():
	default:
		t.Fatal("no wake-up after Publish")
	}
	select {
	case <-l.Wake():
		t.Fatal("a second wake-up for one batch of pending notifications")
	default:
	}
	if n := len(l.Take()); n != 3 {
		t.Fatalf("%d notifications queued, want 3", n)
	}
}

func TestUnlisten(t *testing.T) {
	h := NewHub()
	l := h.NewListener()
	for _, c := range []string{"b", "a", "c", "a"} {
		l.Listen(c)
	}
	if got := l.Channels(); !reflect.DeepEqual(got, []string{"b", "a", "c"}) {
		t.Fatalf("channels %v, want b a c (LISTEN order, once each)", got)
	}
	l.Unlisten("a")
	l.Unlisten("nosuch")
	if got := l.Channels(); !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Fatalf("after UNLISTEN a: %v", got)
	}
	l.UnlistenAll()
	h.Publish([]Notification{{Channel: "b"}})
	if len(l.Channels()) != 0 || l.Take() != nil || len(h.listeners) != 0 {
		t.Fatalf("after UNLISTEN *: channels %v, hub has %d listeners", l.Channels(), len(h.listeners))
	}
}

func TestHubsAreSeparate(t *testing.T) {
	h1, h2 := NewHub(), NewHub()
	l1, l2 := h1.NewListener(), h2.NewListener()
	l1.Listen("c")
	l2.Listen("c")
	h1.Publish([]Notification{{Channel: "c", Payload: "one"}})
	if len(l1.Take()) != 1 || l2.Take() != nil {
		t.Fatal("a notification crossed engines")
	}
}
