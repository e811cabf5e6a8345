package xact

import "context"

// Key locks stand in for PostgreSQL's FOR KEY SHARE row locks, which tidal
// cannot represent in a tuple (it has no multixacts). A foreign key's
// referencing insert or update takes LockReferencedKey on the referenced
// key value, so any number of them proceed together; deleting a referenced
// row or changing its key takes LockKeyForRemoval on the old value, so it
// waits for them, and they for it, until the transactions end. Unlike a
// row lock it ignores updates that keep the key, as FOR KEY SHARE does.
// Two keys with equal hashes only make one wait needlessly for the other.
//
// A transaction that references very many distinct keys of one relation
// (a bulk load of referencing rows) would fill the lock table, so after
// KeyLockEscalation of them it takes one lock on all the relation's keys
// instead: from then on it makes removers of any key of that relation wait
// for it (but not inserters or updates that keep keys).

// KeyLockEscalation is how many key locks of one relation a transaction
// takes before it locks all the relation's keys instead.
const KeyLockEscalation = 1000

// KeyTag names the lock on one key value of a relation (hash: a hash of
// the key's columns).
func KeyTag(rel uint32, hash uint32) LockTag { return LockTag{Kind: LockKey, A: rel, B: hash} }

// keysTag names the lock on all of a relation's keys.
func keysTag(rel uint32) LockTag { return LockTag{Kind: LockKeys, A: rel} }

// LockReferencedKey share-locks key hash of relation rel for p's
// transaction (a referencing row points at it).
func (m *Manager) LockReferencedKey(ctx context.Context, p *Proc, rel, hash uint32) error {
	m.mu.Lock()
	escalated, n := p.keyEscalated[rel], p.keyLocks[rel]
	m.mu.Unlock()
	if escalated {
		return nil
	}
	if n < KeyLockEscalation {
		return m.Lock(ctx, p, KeyTag(rel, hash), ShareLock, false)
	}
	if err := m.Lock(ctx, p, keysTag(rel), ShareLock, false); err != nil {
		return err
	}
	m.mu.Lock()
	if p.keyEscalated == nil {
		p.keyEscalated = map[uint32]bool{}
	}
	p.keyEscalated[rel] = true
	m.mu.Unlock()
	return nil
}

// LockKeyForRemoval locks key hash of relation rel exclusively for p's
// transaction (a referenced row is deleted or its key changed). The
// all-keys lock is taken in a mode that conflicts only with escalated
// referencers.
func (m *Manager) LockKeyForRemoval(ctx context.Context, p *Proc, rel, hash uint32) error {
	if err := m.Lock(ctx, p, keysTag(rel), RowExclusiveLock, false); err != nil {
		return err
	}
	return m.Lock(ctx, p, KeyTag(rel, hash), ExclusiveLock, false)
}
