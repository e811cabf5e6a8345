package pgwire

import (
	"errors"
	"os"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// IdleTimeouter is optionally implemented by a Session: before reading the
// next message, the connection waits at most IdleTimeout() for it (0 = no
// limit); when that runs out the connection is terminated with FATAL 25P03
// and the session closed (which rolls its transaction back). The session
// returns its idle_in_transaction_session_timeout while in a transaction
// block.
type IdleTimeouter interface {
	IdleTimeout() time.Duration
}

// armIdleTimeout sets a read deadline for the next message if the session
// asks for one; it reports whether it did. A deadline set by Shutdown is
// left alone.
func (c *conn) armIdleTimeout() bool {
	it, ok := c.sess.(IdleTimeouter)
	if !ok {
		return false
	}
	d := it.IdleTimeout()
	if d <= 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminate {
		return false
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	return true
}

// disarmIdleTimeout clears the deadline armIdleTimeout set and reports
// whether err is that deadline running out.
func (c *conn) disarmIdleTimeout(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminate {
		return false
	}
	_ = c.nc.SetReadDeadline(time.Time{})
	return err != nil && errors.Is(err, os.ErrDeadlineExceeded)
}

func idleInTransactionError() *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SevFatal, Code: "25P03",
		Message: "terminating connection due to idle-in-transaction timeout"}
}
