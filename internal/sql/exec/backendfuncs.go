package exec

import (
	"math"
	"time"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// backendCall answers the functions about backends: pg_backend_pid,
// pg_cancel_backend, pg_terminate_backend and the pg_sleep family.
func (f *catalogFuncs) backendCall(name string, args []types.Datum) (types.Datum, error) {
	switch name {
	case "pg_backend_pid":
		return types.Int(int64(f.c.BackendPID)), nil
	case "pg_cancel_backend":
		ok, err := f.signalBackend(int32(args[0].Int()), interrupt.QueryCancel)
		return types.Bool(ok), err
	case "pg_terminate_backend":
		var timeout int64
		if len(args) > 1 {
			timeout = args[1].Int()
		}
		ok, err := f.terminateBackend(int32(args[0].Int()), timeout)
		return types.Bool(ok), err
	case "pg_sleep":
		return voidValue, f.sleep(args[0].Float())
	case "pg_sleep_for":
		// PostgreSQL: pg_sleep(extract(epoch from clock_timestamp() + $1)
		// - extract(epoch from clock_timestamp())).
		now := types.NowMicros()
		end, err := types.TimestamptzPlusInterval(f.c.Env.Settings, now, args[0])
		if err != nil {
			return types.Null(), err
		}
		return voidValue, f.sleep(float64(end-now) / 1e6)
	case "pg_sleep_until":
		return voidValue, f.sleep(float64(args[0].Micros()-types.NowMicros()) / 1e6)
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}

// voidValue is what a function returning void returns: a value, not NULL
// (pg_sleep(1) IS NULL is false), that prints as nothing.
var voidValue = types.Str("")

// maxSleepStep bounds one wait of pg_sleep, so an infinite sleep is a
// loop of finite ones (PostgreSQL waits at most 10 minutes at a time).
const maxSleepStep = 10 * time.Minute

// sleep is pg_sleep: it waits secs seconds (none for a negative or NaN
// value, for ever for +Infinity) unless the statement is interrupted.
func (f *catalogFuncs) sleep(secs float64) error {
	end := time.Now()
	forever := math.IsInf(secs, 1)
	if b := f.c.Eng.Backends.Lookup(f.c.BackendPID); b != nil {
		b.Activity.SetWait("Timeout", "PgSleep")
		defer b.Activity.SetWait("", "")
	}
	if !forever && secs > 0 {
		end = end.Add(time.Duration(math.Min(secs, float64(math.MaxInt64/2)/1e9) * 1e9))
	}
	for {
		if err := f.c.checkCancel(); err != nil {
			return err
		}
		d := time.Until(end)
		if forever {
			d = maxSleepStep
		}
		if d <= 0 {
			return nil
		}
		if err := interrupt.Sleep(f.c.Context, min(d, maxSleepStep)); err != nil {
			return err
		}
	}
}

// signalBackend sends r to the backend with process ID pid, with
// PostgreSQL's permission rules (pg_signal_backend in signalfuncs.c): a
// superuser's backend only by a superuser; any other by a role with the
// privileges of its role or of pg_signal_backend. An unknown pid is a
// WARNING and false.
func (f *catalogFuncs) signalBackend(pid int32, r interrupt.Reason) (bool, error) {
	b := f.c.Eng.Backends.Lookup(pid)
	if b == nil {
		f.c.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.Warning, "PID %d is not a PostgreSQL backend process", pid))
		return false, nil
	}
	if err := f.maySignal(b, r); err != nil {
		return false, err
	}
	b.Signal(r)
	return true, nil
}

func (f *catalogFuncs) maySignal(b *interrupt.Backend, r interrupt.Reason) error {
	roles, err := f.c.Eng.Catalog.Roles(f.c.Tx)
	if err != nil {
		return err
	}
	current := f.c.CurrentUser()
	var user, target *catalog.Role
	for i := range roles {
		if roles[i].Name == current {
			user = &roles[i]
		}
		if roles[i].OID == b.Role {
			target = &roles[i]
		}
	}
	if user != nil && user.Super {
		return nil
	}
	if target != nil && target.Super {
		if r == interrupt.Terminate {
			return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be a superuser to terminate superuser process")
		}
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be a superuser to cancel superuser query")
	}
	if user != nil {
		g, err := f.c.Eng.Catalog.LoadMembershipGraph(f.c.Tx)
		if err != nil {
			return err
		}
		if g.IsMember(user.OID, b.Role, true) || g.IsMember(user.OID, catalog.PgSignalBackendID, true) {
			return nil
		}
	}
	if r == interrupt.Terminate {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be a member of the role whose process is being terminated or member of pg_signal_backend")
	}
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be a member of the role whose query is being canceled or member of pg_signal_backend")
}

// terminateBackend is pg_terminate_backend(pid, timeout): with a positive
// timeout (ms) it waits for the backend to end, and says false with a
// WARNING if it did not in time.
func (f *catalogFuncs) terminateBackend(pid int32, timeout int64) (bool, error) {
	if timeout < 0 {
		return false, pgerr.Errorf(pgerr.NumericValueOutOfRange, "\"timeout\" must not be negative")
	}
	b := f.c.Eng.Backends.Lookup(pid)
	ok, err := f.signalBackend(pid, interrupt.Terminate)
	if !ok || err != nil || timeout == 0 {
		return ok, err
	}
	if self := f.c.Eng.Backends.Lookup(f.c.BackendPID); self != nil {
		self.Activity.SetWait("IPC", "BackendTermination")
		defer self.Activity.SetWait("", "")
	}
	t := time.NewTimer(time.Duration(timeout) * time.Millisecond)
	defer t.Stop()
	select {
	case <-b.Gone():
		return true, nil
	case <-f.c.Context.Done():
		return false, interrupt.Err(f.c.Context)
	case <-t.C:
		unit := "milliseconds"
		if timeout == 1 {
			unit = "millisecond"
		}
		f.c.Notice(pgerr.Noticef(pgerr.SevWarning, pgerr.Warning, "backend with PID %d did not terminate within %d %s", pid, timeout, unit))
		return false, nil
	}
}
