package predicate

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

type env struct {
	t  *testing.T
	xm *xact.Manager
	m  *Manager
}

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.FirstLSN, 0, wal.Options{FullPageWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	xm, err := xact.Open(filepath.Join(dir, "xact"), w, 3)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, xm: xm, m: NewManager(xm, DefaultLimits)}
}

// tx is one serializable transaction driven by a test.
type tx struct {
	e    *env
	proc *xact.Proc
	sx   *Xact
}

func (e *env) begin(readOnly bool) *tx {
	p := e.xm.NewProc()
	sx, _ := e.m.Begin(p, int32(p.ID), readOnly)
	return &tx{e: e, proc: p, sx: sx}
}

// write assigns an xid and checks conflicts in on a tuple.
func (x *tx) write(rel, blk uint32, off uint16) error {
	if _, err := x.e.xm.AssignXid(x.proc); err != nil {
		x.e.t.Fatal(err)
	}
	return x.sx.ConflictIn(rel, blk, off)
}

func (x *tx) commit() error {
	if err := x.sx.PreCommit(); err != nil {
		x.abort()
		return err
	}
	if _, err := x.e.xm.Commit(nil, x.proc, xact.CommitOptions{}); err != nil {
		x.e.t.Fatal(err)
	}
	x.sx.Release(true)
	return nil
}

func (x *tx) abort() {
	x.e.xm.Abort(x.proc)
	x.sx.Release(false)
}

func reason(t *testing.T, err error) string {
	t.Helper()
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.SerializationFailure {
		t.Fatalf("want 40001, got %v", err)
	}
	if pe.Hint != "The transaction might succeed if retried." {
		t.Fatalf("hint %q", pe.Hint)
	}
	return pe.Detail
}

const rel = FirstUserRel + 1

// Write skew: each reads the row the other writes; the second to commit
// is the one whose commit completes the structure.
func TestWriteSkew(t *testing.T) {
	e := newEnv(t)
	a, b := e.begin(false), e.begin(false)
	a.sx.LockTuple(rel, 0, 1)
	b.sx.LockTuple(rel, 0, 2)
	if err := a.write(rel, 0, 2); err != nil { // a → ... b read row 2: b → a
		t.Fatal(err)
	}
	if err := b.write(rel, 0, 1); err != nil { // a read row 1: a → b
		t.Fatal(err)
	}
	if err := a.commit(); err != nil {
		t.Fatalf("first commit: %v", err)
	}
	err := b.commit()
	if d := reason(t, err); !strings.Contains(d, "pivot") {
		t.Fatalf("detail %q", d)
	}
}

// Commit order matters: reader → writer → T2 is no anomaly when the
// reader committed before T2.
func TestNoFalsePositiveWhenReaderCommitsFirst(t *testing.T) {
	e := newEnv(t)
	a, b := e.begin(false), e.begin(false)
	a.sx.LockTuple(rel, 0, 1)
	if err := b.write(rel, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
}

// A writer that is already committed when its reader finds the conflict:
// the reader, as the one left, gets "during read" (or is doomed).
func TestConflictOutToCommittedPivot(t *testing.T) {
	e := newEnv(t)
	r, p, t2 := e.begin(false), e.begin(false), e.begin(false)
	// p reads x; t2 writes x and commits: p → t2, t2 first.
	p.sx.LockTuple(rel, 0, 1)
	if err := t2.write(rel, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := t2.commit(); err != nil {
		t.Fatal(err)
	}
	// p writes y and commits (its conflict out is to a committed one).
	if err := p.write(rel, 0, 2); err != nil {
		t.Fatal(err)
	}
	pXid := p.proc.Xid()
	if err := p.commit(); err != nil {
		t.Fatal(err)
	}
	// r reads p's y version it cannot see: r → p → t2, t2 first.
	err := r.sx.ConflictOut(pXid)
	if d := reason(t, err); d != "Reason code: Canceled on conflict out to pivot "+itoa(uint32(pXid))+", during read." {
		t.Fatalf("detail %q", d)
	}
}

func itoa(v uint32) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
		if v == 0 {
			return string(b)
		}
	}
}

// Promotion: the third tuple lock on a page becomes a page lock, the 32nd
// lock in a relation a relation lock; finer locks go.
func TestPromotion(t *testing.T) {
	e := newEnv(t)
	a := e.begin(false)
	a.sx.LockTuple(rel, 5, 1)
	a.sx.LockTuple(rel, 5, 2)
	if len(a.sx.locks) != 2 {
		t.Fatalf("locks %v", a.sx.locks)
	}
	a.sx.LockTuple(rel, 5, 3)
	if _, ok := a.sx.locks[PageTarget(rel, 5)]; !ok || len(a.sx.locks) != 1 {
		t.Fatalf("after third tuple: %v", a.sx.locks)
	}
	for blk := uint32(10); blk < 40; blk++ {
		a.sx.LockPage(rel, blk)
	}
	if len(a.sx.locks) != 31 {
		t.Fatalf("31 page locks expected, have %d", len(a.sx.locks))
	}
	a.sx.LockPage(rel, 40)
	if _, ok := a.sx.locks[RelationTarget(rel)]; !ok || len(a.sx.locks) != 1 {
		t.Fatalf("after 32nd lock: %v", a.sx.locks)
	}
	if len(e.m.targets) != 1 {
		t.Fatalf("shared table %v", e.m.targets)
	}
	a.sx.LockTuple(rel, 99, 9) // covered
	if len(a.sx.locks) != 1 {
		t.Fatalf("covered lock taken: %v", a.sx.locks)
	}
	if l := e.m.Locks(); len(l) != 1 || l[0].Target.Kind() != "relation" || l[0].PID != a.sx.PID() {
		t.Fatalf("Locks() = %+v", l)
	}
	a.sx.LockRelation(5) // a system catalog: exempt
	if len(a.sx.locks) != 1 {
		t.Fatalf("catalog lock taken: %v", a.sx.locks)
	}
	a.abort()
	if len(e.m.targets) != 0 || e.m.Active() {
		t.Fatalf("abort left state: %v, live %d", e.m.targets, e.m.live.Load())
	}
}

// A committed transaction's locks stay while an overlapping one runs, and
// go when the last overlapping one ends.
func TestCleanup(t *testing.T) {
	e := newEnv(t)
	a, b := e.begin(false), e.begin(false)
	a.sx.LockRelation(rel)
	if err := a.commit(); err != nil {
		t.Fatal(err)
	}
	if len(e.m.targets) != 1 {
		t.Fatal("committed reader's lock dropped while b overlaps it")
	}
	// b writes into the relation: a (committed after b's snapshot) read it.
	if err := b.write(rel, InvalidBlock, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.sx.in[a.sx]; !ok {
		t.Fatal("no conflict from the committed reader")
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	if e.m.Active() || len(e.m.targets) != 0 || len(e.m.byXid) != 0 || len(e.m.finished) != 0 {
		t.Fatalf("state left: live %d targets %v", e.m.live.Load(), e.m.targets)
	}
	// A later transaction does not overlap a committed one.
	c := e.begin(false)
	c.sx.LockRelation(rel)
	if err := c.commit(); err != nil {
		t.Fatal(err)
	}
	d := e.begin(false)
	if err := d.write(rel, InvalidBlock, 0); err != nil || len(d.sx.in) != 0 {
		t.Fatalf("conflict with a transaction committed before the snapshot: %v %v", err, d.sx.in)
	}
	d.abort()
}

// A read-only transaction with no concurrent writer is safe at once; one
// that overlaps a writer becomes safe when the writer ends cleanly.
func TestReadOnlySafe(t *testing.T) {
	e := newEnv(t)
	if ro := e.begin(true); ro.sx != nil {
		t.Fatal("read-only transaction without writers registered")
	}
	w := e.begin(false)
	ro := e.begin(true)
	if ro.sx == nil {
		t.Fatal("read-only transaction overlapping a writer is not registered")
	}
	ro.sx.LockTuple(rel, 1, 1)
	if err := w.write(rel, 3, 3); err != nil {
		t.Fatal(err)
	}
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	if !ro.sx.has(flagROSafe) {
		t.Fatal("not safe after the only writer committed without conflicts")
	}
	ro.sx.LockTuple(rel, 1, 2) // notices it is safe: drops everything
	if !ro.sx.off.Load() || len(e.m.targets) != 0 {
		t.Fatalf("safe read-only transaction still tracked: %v", e.m.targets)
	}
}

// BeginSafe (DEFERRABLE) waits until no concurrent writer is left.
func TestBeginSafeWaits(t *testing.T) {
	e := newEnv(t)
	w := e.begin(false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := e.xm.NewProc()
		if _, err := e.m.BeginSafe(p, 1, func() error { return nil }); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
		t.Fatal("BeginSafe did not wait for a concurrent writer")
	case <-time.After(50 * time.Millisecond):
	}
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	<-done
	if e.m.Active() {
		t.Fatalf("records left: %d", e.m.live.Load())
	}
}

func TestSplitCopiesLocks(t *testing.T) {
	e := newEnv(t)
	a, b := e.begin(false), e.begin(false)
	a.sx.LockPage(rel, 7)
	e.m.PageSplit(rel, 7, 8)
	if err := b.write(rel, 8, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.sx.in[a.sx]; !ok {
		t.Fatal("insert into the split-off page does not conflict")
	}
	e.m.PageCombine(rel, 8, 9)
	if _, ok := a.sx.locks[PageTarget(rel, 9)]; !ok {
		t.Fatal("page combine lost the lock")
	}
	if _, ok := a.sx.locks[PageTarget(rel, 8)]; ok {
		t.Fatal("page combine kept the deleted page's lock")
	}
	a.abort()
	b.abort()
}

// Past its lock budget a transaction locks whole relations: memory stays
// bounded, and what it read stays covered.
func TestBudgetPromotes(t *testing.T) {
	e := newEnv(t)
	a := e.begin(false)
	const rels, pages = 60, 31
	for r := uint32(0); r < rels; r++ {
		for p := uint32(0); p < pages; p++ {
			a.sx.LockPage(rel+r, p)
		}
	}
	budget := budgetFactor * DefaultLimits.PerXact
	// Beyond the budget, at most one (relation) lock per relation.
	if n := len(a.sx.locks); n > budget+rels {
		t.Fatalf("%d locks held, budget %d", n, budget)
	}
	if _, ok := a.sx.locks[RelationTarget(rel+rels-1)]; !ok {
		t.Fatal("the last relation was not locked whole")
	}
	for r := uint32(0); r < rels; r++ {
		for p := uint32(0); p < pages; p++ {
			if !a.sx.covered(PageTarget(rel+r, p)) {
				t.Fatalf("page %d of relation %d no longer covered", p, rel+r)
			}
		}
	}
	a.abort()
}

// A transaction's write of a tuple it read replaces its SIREAD lock on it
// (the write conflicts with later readers anyway); inside a subtransaction
// the lock stays, since the write may be rolled back.
func TestWriteDropsOwnTupleLock(t *testing.T) {
	e := newEnv(t)
	a := e.begin(false)
	a.sx.LockTuple(rel, 1, 1)
	if err := a.write(rel, 1, 1); err != nil {
		t.Fatal(err)
	}
	if len(a.sx.locks) != 0 || len(e.m.targets) != 0 {
		t.Fatalf("own tuple lock kept after the write: %v", a.sx.locks)
	}
	a.sx.LockTuple(rel, 1, 2)
	e.xm.BeginSubXact(a.proc)
	if err := a.write(rel, 1, 2); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.sx.locks[TupleTarget(rel, 1, 2)]; !ok {
		t.Fatal("own tuple lock dropped by a write inside a subtransaction")
	}
	e.xm.RollbackSubXact(a.proc)
	a.abort()
}

// A relation's readers keep conflicting with writes after it moves to a
// new file (TRUNCATE, a rewrite) or loses the index they read through.
func TestRelationMoved(t *testing.T) {
	e := newEnv(t)
	r, w := e.begin(false), e.begin(false)
	r.sx.LockPage(rel, 3) // an index page
	e.m.RelationMoved(rel, rel+7)
	if err := w.write(rel+7, InvalidBlock, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.sx.in[r.sx]; !ok {
		t.Fatal("no conflict from a reader of the relation's old file")
	}
	if _, ok := r.sx.locks[PageTarget(rel, 3)]; !ok {
		t.Fatal("the old lock went (the DDL may roll back)")
	}
	r.abort()
	w.abort()
}
