package xact

import (
	"context"
	"testing"
)

// Key locks: referencers of one key share it, a remover of the key waits
// for them, removers and referencers of other keys do not wait; after
// KeyLockEscalation keys a referencer holds one lock for all keys (the lock
// table stops growing) and removers of any key of the relation wait for it.
func TestKeyLocks(t *testing.T) {
	m, _, _ := newMgr(t)
	ctx := context.Background()
	ref1, ref2, remover, other := m.NewProc(), m.NewProc(), m.NewProc(), m.NewProc()
	const rel = 16384
	async := func(p *Proc, f func(context.Context, *Proc, uint32, uint32) error, hash uint32) chan error {
		ch := make(chan error, 1)
		go func() { ch <- f(ctx, p, rel, hash) }()
		return ch
	}
	if err := m.LockReferencedKey(ctx, ref1, rel, 7); err != nil {
		t.Fatal(err)
	}
	if err := mustGet(t, async(ref2, m.LockReferencedKey, 7)); err != nil {
		t.Fatalf("second referencer of key 7: %v", err)
	}
	if err := mustGet(t, async(other, m.LockKeyForRemoval, 8)); err != nil {
		t.Fatalf("remover of key 8: %v", err)
	}
	rm := async(remover, m.LockKeyForRemoval, 7)
	if !pending(rm) {
		t.Fatal("remover of key 7 did not wait for its referencers")
	}
	m.locks.releaseAll(ref1)
	if !pending(rm) {
		t.Fatal("remover of key 7 did not wait for the second referencer")
	}
	m.locks.releaseAll(ref2)
	if err := mustGet(t, rm); err != nil {
		t.Fatal(err)
	}
	m.locks.releaseAll(remover)
	m.locks.releaseAll(other)

	// Escalation.
	for h := uint32(0); h < KeyLockEscalation+50; h++ {
		if err := m.LockReferencedKey(ctx, ref1, rel, 1000+h); err != nil {
			t.Fatal(err)
		}
	}
	m.mu.Lock()
	held := len(ref1.held)
	m.mu.Unlock()
	if held != KeyLockEscalation+1 {
		t.Fatalf("referencer holds %d locks, want %d key locks and the all-keys lock", held, KeyLockEscalation+1)
	}
	if err := mustGet(t, async(ref2, m.LockReferencedKey, 5)); err != nil {
		t.Fatalf("another referencer: %v", err)
	}
	rm = async(remover, m.LockKeyForRemoval, 999999) // a key ref1 never named
	if !pending(rm) {
		t.Fatal("remover did not wait for the escalated referencer")
	}
	m.locks.releaseAll(ref1)
	if err := mustGet(t, rm); err != nil {
		t.Fatal(err)
	}
	m.locks.releaseAll(remover)
	m.locks.releaseAll(ref2)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.locks.locks) != 0 || ref1.keyLocks != nil || ref1.keyEscalated != nil {
		t.Fatalf("state left behind: %d locks", len(m.locks.locks))
	}
}
