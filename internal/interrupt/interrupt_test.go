package interrupt

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

func TestReasonErrors(t *testing.T) {
	for _, c := range []struct {
		r         Reason
		sev, code string
		msg       string
	}{
		{QueryCancel, pgerr.SevError, "57014", "canceling statement due to user request"},
		{StatementTimeout, pgerr.SevError, "57014", "canceling statement due to statement timeout"},
		{ClientGone, pgerr.SevFatal, "08006", "connection to client lost"},
		{Terminate, pgerr.SevFatal, "57P01", "terminating connection due to administrator command"},
	} {
		e := pgerr.From(c.r.Err())
		if e.Severity != c.sev || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%d: %s %s %q", c.r, e.Severity, e.Code, e.Message)
		}
	}
	if None.Err() != nil {
		t.Error("None has an error")
	}
	if LockTimeoutError().(*pgerr.Error).Code != "55P03" {
		t.Error("lock timeout code")
	}
}

func TestReasonOf(t *testing.T) {
	if r := ReasonOf(context.Background()); r != None {
		t.Fatalf("live context: %v", r)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(StatementTimeout)
	if r := ReasonOf(ctx); r != StatementTimeout {
		t.Fatalf("cause: %d", r)
	}
	// A plain cancel or deadline (the embedded driver's caller) is a
	// user's cancel.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel2()
	<-ctx2.Done()
	if r := ReasonOf(ctx2); r != QueryCancel {
		t.Fatalf("deadline: %d", r)
	}
	if !Interrupted(ctx2, context.DeadlineExceeded) || !Interrupted(ctx2, errors.New("x")) {
		t.Error("a context error or a code-less error under a done context is an interruption")
	}
	if Interrupted(ctx2, pgerr.Errorf(pgerr.UniqueViolation, "dup")) {
		t.Error("a real error is not an interruption")
	}
	if Err(ctx2) == nil || Err(context.Background()) != nil {
		t.Error("Err")
	}
}

func TestStateWatch(t *testing.T) {
	var s State
	if s.Check() != nil {
		t.Fatal("fresh state has an interrupt")
	}
	var nilState *State
	if nilState.Check() != nil || nilState.Pending() != None {
		t.Fatal("nil state")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	release := s.Watch(ctx)
	if s.Check() != nil {
		t.Fatal("interrupt before the cancel")
	}
	cancel(StatementTimeout)
	deadline := time.Now().Add(5 * time.Second)
	for s.Check() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the cancel never reached the state")
		}
		time.Sleep(time.Millisecond)
	}
	if pgerr.From(s.Check()).Message != "canceling statement due to statement timeout" {
		t.Fatalf("got %v", s.Check())
	}
	release()
	if s.Check() != nil {
		t.Fatal("release left the interrupt pending")
	}

	// A statement's context cancelled after its release does not reach
	// the next statement.
	ctx3, cancel3 := context.WithCancelCause(context.Background())
	release3 := s.Watch(ctx3)
	release3()
	release4 := s.Watch(context.Background())
	cancel3(Terminate)
	time.Sleep(20 * time.Millisecond)
	if s.Check() != nil {
		t.Fatal("a released statement's cancel reached the next one")
	}
	// Raise is seen at once, and the graver reason wins.
	s.Raise(QueryCancel)
	s.Raise(Terminate)
	s.Raise(QueryCancel)
	if s.Pending() != Terminate {
		t.Fatalf("pending %d", s.Pending())
	}
	release4()
	s.Raise(QueryCancel)
	if s.Check() != nil {
		t.Fatal("Raise with no statement watched must be ignored")
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel(QueryCancel) }()
	start := time.Now()
	err := Sleep(ctx, time.Hour)
	if pgerr.Code(err) != "57014" || time.Since(start) > time.Minute {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
}

func TestLockTimeoutValue(t *testing.T) {
	ctx := WithLockTimeout(context.Background(), 0)
	if LockTimeout(ctx) != 0 {
		t.Fatal("0 means none")
	}
	if LockTimeout(WithLockTimeout(ctx, time.Second)) != time.Second {
		t.Fatal("lost")
	}
}

type item struct{ key, seq int }

func TestSortFuncMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 23, 24, 25, 100, 1000, 30001} {
		xs := make([]item, n)
		for i := range xs {
			xs[i] = item{key: rng.IntN(50), seq: i}
		}
		want := slices.Clone(xs)
		cmp := func(a, b item) int { return a.key - b.key }
		slices.SortStableFunc(want, cmp)
		calls := 0
		if err := SortFunc(xs, cmp, func() error { calls++; return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(xs, want) {
			t.Fatalf("n=%d: not the stable order", n)
		}
		if n > 20000 && calls == 0 {
			t.Fatalf("n=%d: never checked for interrupts", n)
		}
	}
}

func TestSortFuncStops(t *testing.T) {
	xs := make([]int, 100000)
	for i := range xs {
		xs[i] = len(xs) - i
	}
	stop := errors.New("stop")
	calls := 0
	err := SortFunc(xs, func(a, b int) int { return a - b }, func() error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Fatalf("err %v after %d checks", err, calls)
	}
}

func TestRegistry(t *testing.T) {
	var r Registry
	a := r.NewPID()
	ba := r.Register(a, 10, func(Reason) {})
	b := r.NewPID()
	if a == b || a < firstPID {
		t.Fatalf("pids %d %d", a, b)
	}
	var got Reason
	bb := r.Register(b, 20, func(x Reason) { got = x })
	if r.Lookup(b) != bb || r.Lookup(b).Role != 20 || r.Lookup(a) != ba {
		t.Fatal("lookup")
	}
	r.Lookup(b).Signal(QueryCancel)
	if got != QueryCancel {
		t.Fatal("signal not delivered")
	}
	// A pid in use is never handed out again.
	r.last = a - 1
	if p := r.NewPID(); p == a || p == b {
		t.Fatalf("reused pid %d", p)
	}
	r.Unregister(bb)
	if r.Lookup(b) != nil {
		t.Fatal("unregistered backend still found")
	}
	select {
	case <-bb.Gone():
	default:
		t.Fatal("Gone not closed")
	}
	r.Unregister(nil)
}
