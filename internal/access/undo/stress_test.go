package undo

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

var acctTypes = []datum.Type{datum.Int4, datum.Int8, datum.Text}
var acct = NewDeformer(acctTypes)

func acctRow(id int, bal int64, note string) Tuple {
	return acct.Form([]datum.Datum{datum.Int(int64(id)), datum.Int(bal), datum.Str(note)})
}

// TestConcurrentTransfersKeepTheSum: writers move money between accounts
// (updates in place that shrink and grow the row, some rows moving to
// other pages, some transactions and savepoints rolled back) while
// readers check, under their snapshots, that every account is seen once
// and the total never changes. A wrong version, a lost rollback or a
// half-seen transaction shows as a wrong sum.
func TestConcurrentTransfersKeepTheSum(t *testing.T) {
	te := newTestEnv(t, 512)
	tb := te.log.OpenTable(testRel, "acct")
	const accounts, start = 60, 1000
	w := te.begin(t)
	var mu sync.Mutex
	tids := make([]page.ItemPointer, accounts)
	for i := range tids {
		tids[i], _ = tb.Insert(nil, w, acctRow(i, start, "x"))
	}
	te.commit(t, w)

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			for n := 0; n < 150; n++ {
				if err := transfer(te, tb, &mu, tids, rnd); err != nil {
					errs <- err
					return
				}
			}
		}(int64(g))
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 60; n++ {
				r := te.reader()
				var sum int64
				seen := map[int]bool{}
				err := tb.Scan(bg, nil, r, func(_ page.ItemPointer, tup Tuple) bool {
					out := make([]datum.Datum, 3)
					acct.Deform(tup, out)
					id := int(out[0].Int())
					if seen[id] {
						errs <- fmt.Errorf("account %d seen twice", id)
					}
					seen[id] = true
					sum += out[1].Int()
					return true
				})
				te.done(r)
				if err != nil {
					errs <- err
					return
				}
				if sum != accounts*start || len(seen) != accounts {
					errs <- fmt.Errorf("snapshot saw %d accounts summing to %d", len(seen), sum)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// transfer moves a random amount between two accounts, locking them in id
// order; one in five is rolled back, one in five does its second update in
// a savepoint it rolls back and redoes.
func transfer(te *testEnv, tb *Table, mu *sync.Mutex, tids []page.ItemPointer, rnd *rand.Rand) error {
	a, b := rnd.Intn(len(tids)), rnd.Intn(len(tids))
	if a == b {
		return nil
	}
	if a > b {
		a, b = b, a
	}
	amount := int64(rnd.Intn(50))
	p := te.x.NewProc()
	xid, err := te.x.AssignXid(p)
	if err != nil {
		return err
	}
	tx := &Txn{Proc: p, Xid: xid, Snap: te.x.GetSnapshot(p)}
	note := strings.Repeat("n", rnd.Intn(400))
	moved := map[int]page.ItemPointer{}
	step := func(i int, delta int64) error {
		mu.Lock()
		tid := tids[i]
		mu.Unlock()
		if m, ok := moved[i]; ok {
			tid = m
		}
		for tries := 0; ; tries++ {
			// READ COMMITTED: a fresh snapshot per attempt.
			tx.Snap = te.x.GetSnapshot(p)
			tx.Snap.Cid = tx.Cid
			v, err := tb.Fetch(nil, tx, tid)
			if err != nil {
				return err
			}
			if v == nil {
				// The row moved (the hint is stale): follow it.
				next, err := tb.LatestVisibleTID(nil, tx, tid)
				if err != nil {
					return err
				}
				if next == tid {
					// A discarded move no longer says where it went
					// (README "Not done"): find the row as an index would.
					next = findAccount(tb, tx, i)
				}
				if !next.Valid() || tries > 1000 {
					return fmt.Errorf("account %d not visible at %v", i, tid)
				}
				tid = next
				continue
			}
			out := make([]datum.Datum, 3)
			acct.Deform(v, out)
			oc, err := tb.Update(bg, nil, tx, tid, acctRow(i, out[1].Int()+delta, note), false, false)
			if err != nil {
				return err
			}
			switch oc.Result {
			case Ok:
				moved[i] = oc.NewTID
				tx.Cid++
				return nil
			case Updated:
				tid = oc.NewTID // committed meanwhile: read again
			default:
				return fmt.Errorf("update of account %d: %+v", i, oc)
			}
		}
	}
	fail := func(err error) error { te.x.Abort(p); te.x.ReleaseProc(p); return err }
	if err := step(a, -amount); err != nil {
		return fail(err)
	}
	if rnd.Intn(5) == 0 {
		te.x.BeginSubXact(p)
		saved := map[int]page.ItemPointer{}
		for k, v := range moved {
			saved[k] = v
		}
		if tx.Xid, err = te.x.AssignXid(p); err != nil {
			return fail(err)
		}
		tx.Xid = p.CurrentXid()
		if err := step(b, 1_000_000); err != nil {
			return fail(err)
		}
		te.x.RollbackSubXact(p)
		tx.Xid = p.CurrentXid()
		moved = saved
	}
	if err := step(b, amount); err != nil {
		return fail(err)
	}
	if rnd.Intn(5) == 0 {
		te.x.Abort(p)
		te.x.ReleaseProc(p)
		return nil
	}
	if _, err := te.x.Commit(nil, p, xact.CommitOptions{Sync: false}); err != nil {
		return err
	}
	te.x.ReleaseProc(p)
	mu.Lock()
	for i, tid := range moved {
		tids[i] = tid
	}
	mu.Unlock()
	return nil
}

func findAccount(tb *Table, tx *Txn, id int) page.ItemPointer {
	var found page.ItemPointer
	tb.Scan(bg, nil, tx, func(tid page.ItemPointer, tup Tuple) bool {
		out := make([]datum.Datum, 1)
		acct.DeformUpTo(tup, out, 1)
		if int(out[0].Int()) == id {
			found = tid
			return false
		}
		return true
	})
	return found
}
