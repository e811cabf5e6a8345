package xact

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
)

func TestMultixactCreateAndMembers(t *testing.T) {
	m, _, _ := newMgr(t)
	mx := m.Multi()
	a, err := mx.Create([]MultiMember{{10, MultiForKeyShare}, {11, MultiForShare}})
	if err != nil || a != FirstMulti {
		t.Fatalf("first multixact %d %v", a, err)
	}
	b, _ := mx.Create([]MultiMember{{12, MultiForKeyShare}, {13, MultiNoKeyUpdate}, {14, MultiForKeyShare}})
	got, err := mx.Members(b)
	if err != nil || len(got) != 3 || got[1] != (MultiMember{13, MultiNoKeyUpdate}) {
		t.Fatalf("members of %d: %v %v", b, got, err)
	}
	if next, off := mx.Next(); next != b+1 || off != 5 {
		t.Fatalf("next %d offset %d", next, off)
	}
	if _, err := mx.Members(b + 1); err == nil {
		t.Fatal("a multixact not yet created has members")
	}
	if x, _ := m.MultiUpdateXid(b); x != 13 {
		t.Fatalf("update xid %d", x)
	}
}

// Members cross chunk boundaries and survive a flush and reopen; what the
// last flush missed comes back from the WAL.
func TestMultixactFlushAndRedo(t *testing.T) {
	m, w, dir := newMgr(t)
	mx := m.Multi()
	mx.SetNextForTest(multisPerChunk-2, multisPerChunk-3)
	var ids []MultiXactID
	for i := 0; i < 4; i++ {
		id, err := mx.Create([]MultiMember{{XID(100 + i), MultiForShare}, {XID(200 + i), MultiForUpdate}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := mx.Flush(); err != nil {
		t.Fatal(err)
	}
	start := w.InsertPos()
	late, _ := mx.Create([]MultiMember{{300, MultiForKeyShare}, {301, MultiUpdate}})
	if err := w.Flush(w.InsertPos()); err != nil {
		t.Fatal(err)
	}
	next, off := mx.Next()

	m2, err := Open(filepath.Join(dir, "xact"), w, 3)
	if err != nil {
		t.Fatal(err)
	}
	m2.Multi().SetNext(ids[len(ids)-1]+1, off-2, multisPerChunk-2)
	r := wal.NewReader(filepath.Join(dir, "wal"), start)
	for {
		d, err := r.Next()
		if err != nil {
			break
		}
		if d.Rmgr == wal.RmMultiXact {
			if err := m2.Multi().Redo(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.Close()
	for i, id := range append(ids, late) {
		got, err := m2.Multi().Members(id)
		want0 := XID(100 + i)
		if id == late {
			want0 = 300
		}
		if err != nil || len(got) != 2 || got[0].Xid != want0 {
			t.Fatalf("after reopen, multixact %d: %v %v", id, got, err)
		}
	}
	if n2, o2 := m2.Multi().Next(); n2 != next || o2 != off {
		t.Fatalf("counters after redo %d/%d, want %d/%d", n2, o2, next, off)
	}
	if m2.NextXid() <= 301 {
		t.Fatalf("redo did not advance the next xid past the members: %d", m2.NextXid())
	}
}

// Ids compare modulo 2^32; creation past the stop limit is refused.
func TestMultixactWraparound(t *testing.T) {
	if !MultiPrecedes(0xFFFFFFF0, 5) || MultiPrecedes(5, 0xFFFFFFF0) || !MultiPrecedes(1, 2) {
		t.Fatal("modular comparison")
	}
	m, _, _ := newMgr(t)
	mx := m.Multi()
	mx.SetNextForTest(0xFFFFFFFF, 0xFFFFFFFE)
	a, err := mx.Create([]MultiMember{{3, MultiForShare}, {4, MultiForShare}})
	b, err2 := mx.Create([]MultiMember{{5, MultiForShare}, {6, MultiForShare}})
	if err != nil || err2 != nil || a != 0xFFFFFFFF || b != FirstMulti {
		t.Fatalf("wrapped ids %d %d (%v %v): 0 must be skipped", a, b, err, err2)
	}
	if got, _ := mx.Members(b); len(got) != 2 || got[0].Xid != 5 {
		t.Fatalf("members across the offset wrap: %v", got)
	}
	mx.SetLimit(FirstMulti + 10)
	mx.SetNextForTest(FirstMulti+10+(1<<31-1)-multiStopDistance, 0)
	if _, err := mx.Create([]MultiMember{{3, MultiForShare}, {4, MultiForShare}}); pgerr.Code(err) != pgerr.ProgramLimitExceeded {
		t.Fatalf("past the stop limit: %v", err)
	}
	if mx.MultisLeft() > 0 {
		t.Fatalf("multis left %d", mx.MultisLeft())
	}
}

func TestMultixactTruncate(t *testing.T) {
	m, _, dir := newMgr(t)
	mx := m.Multi()
	mx.SetNextForTest(multisPerChunk-1, multisPerChunk-1)
	first, _ := mx.Create([]MultiMember{{3, MultiForShare}, {4, MultiForShare}})
	mx.SetNextForTest(3*multisPerChunk, 3*multisPerChunk)
	mx.oldest = first
	keep, _ := mx.Create([]MultiMember{{5, MultiForShare}, {6, MultiForShare}})
	if err := mx.Flush(); err != nil {
		t.Fatal(err)
	}
	files := func(sub string) int {
		ents, _ := os.ReadDir(filepath.Join(dir, "xact", "multixact", sub))
		return len(ents)
	}
	if files("offsets") != 2 || files("members") != 3 {
		t.Fatalf("files before: %d offsets, %d members", files("offsets"), files("members"))
	}
	if err := mx.Truncate(keep); err != nil {
		t.Fatal(err)
	}
	if got, _ := mx.Members(first); got != nil {
		t.Fatalf("truncated multixact still has members %v", got)
	}
	if got, _ := mx.Members(keep); len(got) != 2 {
		t.Fatalf("kept multixact lost its members: %v", got)
	}
	if files("offsets") != 1 || files("members") != 1 {
		t.Fatalf("files after: %d offsets, %d members", files("offsets"), files("members"))
	}
}

// Waiting for a multixact waits for its conflicting members only.
func TestMultiWaitConflictingMembers(t *testing.T) {
	m, _, _ := newMgr(t)
	share, keyShare, waiter := m.NewProc(), m.NewProc(), m.NewProc()
	xs, _ := m.AssignXid(share)
	xk, _ := m.AssignXid(keyShare)
	id, err := m.MultiCreate2(xs, MultiForShare, xk, MultiForKeyShare)
	if err != nil {
		t.Fatal(err)
	}
	// A non-key update conflicts with the share lock, not the key share.
	if conflict, _, _ := m.MultiConflicts(waiter, id, MultiNoKeyUpdate); !conflict {
		t.Fatal("no conflict with a share locker")
	}
	if ok, _, _ := m.MultiWait(context.Background(), waiter, id, MultiNoKeyUpdate, true); ok {
		t.Fatal("nowait wait succeeded while the share locker runs")
	}
	done := make(chan int, 1)
	go func() {
		_, remain, err := m.MultiWait(context.Background(), waiter, id, MultiNoKeyUpdate, false)
		if err != nil {
			t.Error(err)
		}
		done <- remain
	}()
	select {
	case <-done:
		t.Fatal("did not wait")
	case <-time.After(100 * time.Millisecond):
	}
	m.Commit(nil, share, CommitOptions{})
	select {
	case remain := <-done:
		if remain != 1 {
			t.Fatalf("remaining members %d, want the key-share locker", remain)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after the share locker ended")
	}
	if conflict, _, _ := m.MultiConflicts(waiter, id, MultiNoKeyUpdate); conflict {
		t.Fatal("conflict with a key-share locker")
	}
	m.Abort(keyShare)
}
