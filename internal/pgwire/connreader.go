package pgwire

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// aLongTimeAgo is a deadline in the past, used to interrupt a blocked Read.
var aLongTimeAgo = time.Unix(1, 0)

// connReader reads from the client connection. While a statement runs it can
// keep one Read pending in the background (like net/http does) so that a
// dropped connection is noticed and the statement's context cancelled; the
// byte such a read may return is kept and handed to the next Read.
//
// The background read starts only once a statement has run for
// watchDelay: starting and interrupting a read (a goroutine, two deadline
// changes, a wake-up) costs more than a short statement itself, and a
// client that drops during a short statement is noticed at the next read.
type connReader struct {
	nc net.Conn

	watch     *time.Timer // starts the background read after watchDelay
	watchErr  func()      // its onError
	watchArmd bool        // watch is set and has not been stopped

	mu      sync.Mutex
	cond    *sync.Cond
	inRead  bool // a background read is pending
	aborted bool // abortPendingRead interrupted it
	hasByte bool
	byteBuf [1]byte
	err     error // sticky error seen by the background read
}

func newConnReader(nc net.Conn) *connReader {
	cr := &connReader{nc: nc}
	cr.cond = sync.NewCond(&cr.mu)
	return cr
}

// Read implements io.Reader. It must not be called while a background read
// is pending.
func (cr *connReader) Read(p []byte) (int, error) {
	cr.mu.Lock()
	if cr.inRead {
		cr.mu.Unlock()
		return 0, errors.New("pgwire: concurrent read on connection")
	}
	if len(p) == 0 {
		cr.mu.Unlock()
		return 0, nil
	}
	if cr.hasByte {
		p[0] = cr.byteBuf[0]
		cr.hasByte = false
		cr.mu.Unlock()
		return 1, nil
	}
	if err := cr.err; err != nil {
		cr.mu.Unlock()
		return 0, err
	}
	cr.mu.Unlock()
	return cr.nc.Read(p)
}

// watchDelay is how long a statement runs before its connection is
// watched for the client going away.
const watchDelay = 5 * time.Millisecond

// startBackgroundRead arranges for a one-byte read, started after
// watchDelay, that calls onError if the connection fails (EOF, reset)
// before abortPendingRead is called.
func (cr *connReader) startBackgroundRead(onError func()) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.watchErr, cr.watchArmd = onError, true
	if cr.watch == nil {
		cr.watch = time.AfterFunc(watchDelay, cr.watchFired)
	} else {
		cr.watch.Reset(watchDelay)
	}
}

func (cr *connReader) watchFired() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if !cr.watchArmd {
		return // abortPendingRead came first
	}
	cr.watchArmd = false
	cr.startLocked(cr.watchErr)
}

// startLocked starts the background read now; cr.mu is held.
func (cr *connReader) startLocked(onError func()) {
	if cr.inRead || cr.hasByte || cr.err != nil {
		return
	}
	cr.inRead = true
	go cr.backgroundRead(onError)
}

func (cr *connReader) backgroundRead(onError func()) {
	n, err := cr.nc.Read(cr.byteBuf[:])
	cr.mu.Lock()
	if n == 1 {
		cr.hasByte = true
	}
	if err != nil {
		var ne net.Error
		if cr.aborted && errors.As(err, &ne) && ne.Timeout() {
			// Interrupted on purpose by abortPendingRead.
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			// A deadline set by someone else (shutdown); leave it to the
			// main loop, which reads again and sees it.
		} else {
			cr.err = err
			if onError != nil {
				onError()
			}
		}
	}
	cr.aborted = false
	cr.inRead = false
	cr.cond.Broadcast()
	cr.mu.Unlock()
}

// abortPendingRead stops a pending background read (or the timer that
// would start it) and waits for it.
func (cr *connReader) abortPendingRead() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.watchArmd {
		cr.watchArmd = false
		cr.watch.Stop() // if it fires anyway, watchFired sees watchArmd false
	}
	if !cr.inRead {
		return
	}
	cr.aborted = true
	_ = cr.nc.SetReadDeadline(aLongTimeAgo)
	for cr.inRead {
		cr.cond.Wait()
	}
	_ = cr.nc.SetReadDeadline(time.Time{})
}
