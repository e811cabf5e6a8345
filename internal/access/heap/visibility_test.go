package heap

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tidal-db/tidal/internal/xact"
)

// Transaction kinds a tuple's xmin or xmax can name, relative to the
// snapshot of the transaction "own" that looks at it.
type xkind int

const (
	kNone            xkind = iota // xmax only: not deleted
	kOwnCur                       // own transaction, current command
	kOwnEarlier                   // own transaction, an earlier command
	kOwnLater                     // own transaction, a later command (cid > current)
	kCommittedBefore              // committed before the snapshot
	kCommittedAfter               // running at snapshot time, committed since
	kAborted                      // rolled back
	kCrashed                      // never finished (server crashed): not running, no status
	kInProgress                   // still running
	kLockOnly                     // xmax only: row locked (by a running transaction), not deleted
	kFrozen                       // xmin only: FrozenTransactionId
)

var kindNames = []string{"none", "own-cur", "own-earlier", "own-later", "committed-before", "committed-after", "aborted", "crashed", "in-progress", "lock-only", "frozen"}

func (k xkind) String() string { return kindNames[k] }

// refVisible is the reference statement of PostgreSQL's MVCC rules
// (HeapTupleSatisfiesMVCC), written from the rules, not from the code:
// a row version is visible iff its insertion is visible and its deletion
// is not. An insertion or deletion is visible when it was made by a
// transaction that committed before the snapshot, or by the looking
// transaction itself in an earlier command.
func refVisible(xmin, xmax xkind) bool {
	effective := func(k xkind) bool {
		switch k {
		case kCommittedBefore, kOwnEarlier, kFrozen:
			return true
		}
		return false
	}
	return effective(xmin) && !effective(xmax)
}

// possible rules out histories that cannot happen: a row inserted by a
// transaction that did not commit (or is not us) can only be deleted or
// locked by that same transaction; our own uncommitted rows cannot be
// touched by anyone else; a deletion is not earlier than the insertion.
func possible(xmin, xmax xkind) bool {
	own := func(k xkind) bool { return k == kOwnCur || k == kOwnEarlier || k == kOwnLater }
	switch {
	case own(xmin):
		if xmax == kNone {
			return true
		}
		if !own(xmax) {
			return false
		}
		return !(xmin == kOwnLater && xmax != kOwnLater) && !(xmin == kOwnCur && xmax == kOwnEarlier)
	case xmin == kAborted || xmin == kCrashed || xmin == kInProgress:
		return xmax == kNone
	case xmin == kCommittedAfter:
		// deleted only by transactions that could see it: not us (our
		// snapshot cannot), not one that committed before it.
		return xmax == kNone || xmax == kCommittedAfter || xmax == kAborted || xmax == kInProgress || xmax == kLockOnly || xmax == kCrashed
	}
	return true
}

// TestVisibilityRules builds every (xmin, xmax) combination from real
// transactions and checks Visible against refVisible — twice, the second
// time with the hint bits the first call set — and checks that hint bits
// only ever record final outcomes.
func TestVisibilityRules(t *testing.T) {
	te := newTestEnv(t, 32)
	x := te.x
	const cur = 5
	own := te.begin()
	own.Cid = cur

	committedBefore := te.begin()
	te.commit(t, committedBefore)
	aborted := te.begin()
	te.abort(aborted)
	crashed := x.NextXid()
	x.AdvanceNextXid(crashed) // used, never running, never recorded
	committedAfter := te.begin()
	inProgress := te.begin()
	own.Snap = x.GetSnapshot(own.Proc)
	te.commit(t, committedAfter)
	locker := inProgress

	xidOf := map[xkind]xact.XID{
		kOwnCur: own.Xid, kOwnEarlier: own.Xid, kOwnLater: own.Xid,
		kCommittedBefore: committedBefore.Xid, kCommittedAfter: committedAfter.Xid,
		kAborted: aborted.Xid, kCrashed: crashed, kInProgress: inProgress.Xid,
		kLockOnly: locker.Xid, kFrozen: xact.FrozenXid,
	}
	cidOf := map[xkind]uint32{kOwnCur: cur, kOwnEarlier: cur - 2, kOwnLater: cur + 1}

	cases := 0
	for xmin := kOwnCur; xmin <= kFrozen; xmin++ {
		if xmin == kLockOnly {
			continue
		}
		for xmax := kNone; xmax <= kLockOnly; xmax++ {
			if !possible(xmin, xmax) {
				continue
			}
			cases++
			name := fmt.Sprintf("xmin %v xmax %v", xmin, xmax)
			tup := boatRow(1)
			binary.LittleEndian.PutUint32(tup[offXmin:], xidOf[xmin])
			mask := tup.Infomask() &^ XmaxInvalid
			cid := cidOf[xmin]
			switch xmax {
			case kNone:
				mask |= XmaxInvalid
			case kLockOnly:
				binary.LittleEndian.PutUint32(tup[offXmax:], xidOf[xmax])
				mask |= XmaxLockOnly | XmaxExclLock
			default:
				binary.LittleEndian.PutUint32(tup[offXmax:], xidOf[xmax])
				if _, ownMin := cidOf[xmin]; ownMin {
					cid = own.Combo.ID(cidOf[xmin], cidOf[xmax])
					mask |= ComboCid
				} else if c, ownMax := cidOf[xmax]; ownMax {
					cid = c
				}
			}
			binary.LittleEndian.PutUint32(tup[offCid:], cid)
			binary.LittleEndian.PutUint16(tup[offInfomask:], mask)
			want := refVisible(xmin, xmax)
			got1, _ := Visible(x, tup, own)
			got2, hinted2 := Visible(x, tup, own)
			if got1 != want || got2 != want {
				t.Errorf("%s: visible %v then %v, want %v", name, got1, got2, want)
			}
			if hinted2 {
				t.Errorf("%s: second call set more hints", name)
			}
			// Hints record only final outcomes.
			m := tup.Infomask()
			final := func(k xkind) bool {
				return k == kCommittedBefore || k == kCommittedAfter || k == kAborted || k == kCrashed || k == kFrozen
			}
			if m&(XminCommitted|XminInvalid) != 0 && !final(xmin) {
				t.Errorf("%s: xmin hint %#x on an unfinished xmin", name, m)
			}
			if m&XmaxCommitted != 0 && xmax != kCommittedBefore && xmax != kCommittedAfter {
				t.Errorf("%s: XMAX_COMMITTED hint", name)
			}
			if xmin == kAborted || xmin == kCrashed {
				if m&XminInvalid == 0 {
					t.Errorf("%s: no XMIN_INVALID hint", name)
				}
			}
			// Other transactions' view: a fresh snapshot of a reader.
			rd := te.reader()
			wantOther := refVisibleOther(xmin, xmax)
			if got, _ := Visible(x, tup, rd); got != wantOther {
				t.Errorf("%s: fresh reader sees %v, want %v", name, got, wantOther)
			}
			te.done(rd)
		}
	}
	t.Logf("%d combinations", cases)
	if cases < 30 {
		t.Fatalf("only %d combinations", cases)
	}
}

// refVisibleOther: what a new reader with no xid, whose snapshot is taken
// now, sees — every commit so far is in its past, own's and inProgress's
// work is not.
func refVisibleOther(xmin, xmax xkind) bool {
	done := func(k xkind) bool { return k == kCommittedBefore || k == kCommittedAfter || k == kFrozen }
	return done(xmin) && !done(xmax)
}

// refVacuum is HeapTupleSatisfiesVacuum's classification from the rules.
func refVacuum(xmin, xmax xkind, xmaxOld bool) VacuumState {
	running := func(k xkind) bool { return k == kOwnCur || k == kOwnEarlier || k == kOwnLater || k == kInProgress }
	switch {
	case xmin == kAborted || xmin == kCrashed:
		return TupleDead
	case running(xmin):
		return TupleInsertInProgress
	}
	switch {
	case xmax == kNone || xmax == kLockOnly || xmax == kAborted || xmax == kCrashed:
		return TupleLive
	case running(xmax):
		return TupleDeleteInProgress
	case xmaxOld:
		return TupleDead
	}
	return TupleRecentlyDead
}

func TestVacuumVisibilityRules(t *testing.T) {
	te := newTestEnv(t, 32)
	x := te.x
	committed := te.begin()
	te.commit(t, committed)
	aborted := te.begin()
	te.abort(aborted)
	crashed := x.NextXid()
	x.AdvanceNextXid(crashed)
	running := te.begin()
	xidOf := map[xkind]xact.XID{kCommittedBefore: committed.Xid, kAborted: aborted.Xid, kCrashed: crashed, kInProgress: running.Xid, kLockOnly: running.Xid, kFrozen: xact.FrozenXid}
	kinds := []xkind{kCommittedBefore, kAborted, kCrashed, kInProgress, kFrozen}
	for _, xmin := range kinds {
		for _, xmax := range []xkind{kNone, kCommittedBefore, kAborted, kCrashed, kInProgress, kLockOnly} {
			if (xmin != kCommittedBefore && xmin != kFrozen) && xmax != kNone {
				continue
			}
			for _, old := range []bool{false, true} {
				horizon := committed.Xid // xmax == horizon: not older
				if old {
					horizon = committed.Xid + 1
				}
				tup := boatRow(1)
				binary.LittleEndian.PutUint32(tup[offXmin:], xidOf[xmin])
				mask := tup.Infomask() &^ XmaxInvalid
				switch xmax {
				case kNone:
					mask |= XmaxInvalid
				case kLockOnly:
					mask |= XmaxLockOnly
					fallthrough
				default:
					binary.LittleEndian.PutUint32(tup[offXmax:], xidOf[xmax])
				}
				binary.LittleEndian.PutUint16(tup[offInfomask:], mask)
				want := refVacuum(xmin, xmax, old)
				for pass := 0; pass < 2; pass++ {
					if got, _ := VacuumVisibility(x, tup, horizon); got != want {
						t.Errorf("xmin %v xmax %v old %v pass %d: %d, want %d", xmin, xmax, old, pass, got, want)
					}
				}
			}
		}
	}
	te.commit(t, running)
}
