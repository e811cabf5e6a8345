package xact

// Transaction ids are 32 bits and wrap around: normal ids (≥ 3) are
// compared modulo 2^32, so each id sees the 2^31 ids before it as the past
// and the 2^31 after it as the future (PostgreSQL's TransactionIdPrecedes).
// The special ids (invalid, bootstrap, frozen) are older than every normal
// id. VACUUM freezes tuples before their xids can come round again, and
// AssignXid refuses new ids when the oldest unfrozen xid of any table
// (relfrozenxid) is about to fall into the future.

// IsNormal reports a normal (non-special) transaction id.
func IsNormal(x XID) bool { return x >= FirstNormalXid }

// Precedes reports a < b in transaction-id order.
func Precedes(a, b XID) bool {
	if !IsNormal(a) || !IsNormal(b) {
		return a < b
	}
	return int32(a-b) < 0
}

// PrecedesOrEquals reports a <= b in transaction-id order.
func PrecedesOrEquals(a, b XID) bool { return a == b || Precedes(a, b) }

// Follows reports a > b in transaction-id order.
func Follows(a, b XID) bool { return Precedes(b, a) }

// FollowsOrEquals reports a >= b in transaction-id order.
func FollowsOrEquals(a, b XID) bool { return a == b || Precedes(b, a) }

// Advance returns the id after x, skipping the special ids on wraparound.
func Advance(x XID) XID {
	x++
	if x < FirstNormalXid {
		x = FirstNormalXid
	}
	return x
}

// Retreat returns x minus n in transaction-id order, skipping special ids
// (used for freeze limits).
func Retreat(x XID, n uint32) XID {
	r := x - n
	if r < FirstNormalXid {
		r -= FirstNormalXid
	}
	return r
}

// Wraparound limits, as PostgreSQL's SetTransactionIdLimit: ids stop being
// assigned 3,000,000 before the oldest relfrozenxid would wrap, and a
// warning starts 40,000,000 before that.
const (
	wrapHorizon  = 1<<31 - 1
	stopDistance = 3_000_000
	warnDistance = 40_000_000
)

// SetWrapLimit records the oldest relfrozenxid of any table (after VACUUM
// or at start-up); from it follow the warn and stop limits.
func (m *Manager) SetWrapLimit(oldestFrozen XID) {
	if !IsNormal(oldestFrozen) {
		oldestFrozen = FirstNormalXid
	}
	wrap := oldestFrozen + wrapHorizon
	if wrap < FirstNormalXid {
		wrap += FirstNormalXid
	}
	m.mu.Lock()
	m.oldestFrozen = oldestFrozen
	m.stopLimit = Retreat(wrap, stopDistance)
	m.warnLimit = Retreat(wrap, warnDistance)
	m.mu.Unlock()
}

// XidsLeft is how many transaction ids can still be assigned before the
// stop limit (for warnings and tests).
func (m *Manager) XidsLeft() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopLimit == 0 {
		return 1 << 31
	}
	return int64(int32(m.stopLimit - m.nextXid))
}
