package xact

import (
	"context"
	"reflect"
	"testing"
)

// TestLockStatusAndBlockingPIDs: pg_locks lists each mode held and each
// request awaited; pg_blocking_pids names the holders of conflicting modes
// (hard blocks) and then the conflicting requests queued ahead (soft
// blocks), never the backend itself.
func TestLockStatusAndBlockingPIDs(t *testing.T) {
	m, _, _ := newMgr(t)
	e := lockEnv{t, m}
	a, b, c := m.NewProc(), m.NewProc(), m.NewProc()
	a.SetPID(101)
	b.SetPID(102)
	c.SetPID(103)
	tag := RelationTag(16384)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, mode := range []LockMode{AccessShareLock, RowExclusiveLock} {
		if err := m.Lock(ctx, a, tag, mode, false); err != nil {
			t.Fatal(err)
		}
	}
	chB := e.async(ctx, b, tag, AccessExclusiveLock)
	waitQueued(t, m, tag, 1)
	chC := e.async(ctx, c, tag, AccessShareLock) // behind b's conflicting request
	waitQueued(t, m, tag, 2)

	var got []string
	for _, l := range m.LockStatus() {
		if l.Tag != tag {
			continue
		}
		s := l.Mode.String()
		if !l.Granted {
			s += " waiting"
			if l.WaitStart.IsZero() {
				t.Errorf("%d's wait has no start time", l.PID)
			}
		}
		if l.Weak {
			s += " weak"
		}
		got = append(got, s+" "+l.VXid)
	}
	want := []string{"AccessShareLock " + a.VirtualXid(), "RowExclusiveLock " + a.VirtualXid(),
		"AccessExclusiveLock waiting " + b.VirtualXid(), "AccessShareLock waiting " + c.VirtualXid()}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lock status %q, want %q", got, want)
	}
	if got := m.BlockingPIDs(102); !reflect.DeepEqual(got, []int32{101}) {
		t.Errorf("blocking b: %v", got)
	}
	if got := m.BlockingPIDs(103); !reflect.DeepEqual(got, []int32{102}) {
		t.Errorf("blocking c (soft: b queued ahead): %v", got)
	}
	if got := m.BlockingPIDs(101); len(got) != 0 {
		t.Errorf("blocking a, which holds its locks: %v", got)
	}
	if st := m.ProcStatus()[102]; !st.Waits || st.Waiting != tag {
		t.Errorf("b's status %+v, want a wait on %v", st, tag)
	}

	m.locks.releaseAll(a)
	if err := mustGet(t, chB); err != nil {
		t.Fatal(err)
	}
	m.locks.releaseAll(b)
	if err := mustGet(t, chC); err != nil {
		t.Fatal(err)
	}
	// Alone on the relation, a weak mode is what PostgreSQL takes by fast path.
	ls := m.LockStatus()
	if len(ls) != 1 || !ls[0].Weak || !ls[0].Granted || ls[0].PID != 103 {
		t.Fatalf("after the releases: %+v", ls)
	}
	before := c.VirtualXid()
	m.Abort(c)
	if c.VirtualXid() == before {
		t.Errorf("virtual xid %s unchanged by the end of the transaction", before)
	}
}
