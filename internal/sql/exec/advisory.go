package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// The advisory lock functions (pg_advisory_lock and family): heavyweight
// locks on application-chosen keys, held by the session (released by
// pg_advisory_unlock or when the session ends, whatever happens to its
// transactions) or, for the _xact_ variants, by the transaction. A key is
// one bigint or two integers, which are different locks, as in PostgreSQL.
// They wait like any lock: cancellable, with lock_timeout and deadlock
// detection.

// advisoryCall answers the advisory lock function name (expr's
// catalogCalls lists them with their signatures).
func (f *catalogFuncs) advisoryCall(name string, args []types.Datum) (types.Datum, error) {
	c := f.c
	proc := c.Tx.Heap.Proc
	m := c.Eng.Xact
	if name == "pg_advisory_unlock_all" {
		m.ReleaseSessionLocks(proc)
		return types.Str(""), nil
	}
	tag := advisoryTag(args)
	mode := xact.ExclusiveLock
	if strings.HasSuffix(name, "_shared") {
		mode = xact.ShareLock
	}
	base := strings.TrimSuffix(name, "_shared")
	switch base {
	case "pg_advisory_lock":
		return types.Str(""), m.LockSession(c.Context, proc, tag, mode, false)
	case "pg_advisory_xact_lock":
		return types.Str(""), m.Lock(c.Context, proc, tag, mode, false)
	case "pg_try_advisory_lock", "pg_try_advisory_xact_lock":
		var err error
		if base == "pg_try_advisory_lock" {
			err = m.LockSession(c.Context, proc, tag, mode, true)
		} else {
			err = m.Lock(c.Context, proc, tag, mode, true)
		}
		if pgerr.Code(err) == pgerr.LockNotAvailable {
			return types.Bool(false), nil
		}
		return types.Bool(err == nil), err
	case "pg_advisory_unlock":
		if m.UnlockSession(proc, tag, mode) {
			return types.Bool(true), nil
		}
		if c.Notice != nil {
			c.Notice(pgerr.Noticef(pgerr.SevWarning, "01000", "you don't own a lock of type %s", mode))
		}
		return types.Bool(false), nil
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}

// advisoryTag names the lock of a bigint key or of a pair of integers.
func advisoryTag(args []types.Datum) xact.LockTag {
	if len(args) == 2 {
		return xact.AdvisoryPairTag(uint32(args[0].Int()), uint32(args[1].Int()))
	}
	k := uint64(args[0].Int())
	return xact.AdvisoryTag(k)
}
