package xact

// KeyTag names the lock on one key value of a relation (hash: a hash of
// the key's columns). Foreign keys use it in place of PostgreSQL's FOR KEY
// SHARE row locks, which tidal cannot represent in a tuple (it has no
// multixacts): a referencing insert takes ShareLock on the referenced key,
// so any number of them proceed together, and a delete or key change of
// the referenced row takes ExclusiveLock on the old key, so it waits for
// them (and they for it) until the transactions end. Unlike a row lock it
// ignores updates that keep the key, as FOR KEY SHARE does. Two keys with
// equal hashes only make one wait needlessly for the other.
func KeyTag(rel uint32, hash uint32) LockTag { return LockTag{Kind: LockKey, A: rel, B: hash} }
