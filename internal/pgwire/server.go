package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Server.
type Config struct {
	// ListenAddrs are TCP "host:port" addresses (e.g. "127.0.0.1:5433",
	// ":5432", "127.0.0.1:0") or, when they contain a '/', Unix socket paths
	// (e.g. "/tmp/.s.PGSQL.5433").
	ListenAddrs []string
	// Logger receives PostgreSQL-style log lines (connection received,
	// connection authorized, disconnection, FATAL errors). Nil discards them.
	Logger *log.Logger
	// Authenticator checks clients during startup; nil means trust.
	Authenticator Authenticator
	// AuthTimeout bounds the whole startup handshake, like PostgreSQL's
	// authentication_timeout. Zero means 60s.
	AuthTimeout time.Duration
	// MaxMessageSize is the largest frontend message body accepted for
	// messages that may be large (Query, Parse, Bind, CopyData …). Zero means
	// 1 GiB - 1 (PostgreSQL's PQ_LARGE_MESSAGE_LIMIT).
	MaxMessageSize int
	// ShutdownTimeout is how long Serve waits for busy connections after its
	// context is cancelled before closing them by force. Zero means 10s.
	ShutdownTimeout time.Duration
}

const (
	defaultAuthTimeout     = 60 * time.Second
	defaultShutdownTimeout = 10 * time.Second
	largeMessageLimit      = 1<<30 - 1 // PQ_LARGE_MESSAGE_LIMIT
	smallMessageLimit      = 10000     // PQ_SMALL_MESSAGE_LIMIT
	flushThreshold         = 64 << 10  // flush the write buffer beyond this
)

// nextPID numbers backends; BackendKeyData carries it as the process ID.
// It is package-wide so keys stay unique even with several servers sharing
// one engine.
var nextPID atomic.Uint32

func init() { nextPID.Store(10000) }

// Server is a PostgreSQL wire-protocol server.
type Server struct {
	cfg    Config
	eng    Engine
	auth   Authenticator
	logger *log.Logger

	listenOnce sync.Once
	listened   chan struct{} // closed once Listen finished (ok or not)
	listenErr  error

	mu        sync.Mutex
	listeners []net.Listener
	addrs     []net.Addr
	closed    bool
	done      chan struct{} // closed when shutdown starts
	conns     map[*conn]struct{}
	connWG    sync.WaitGroup
	serving   bool

	panicHook atomic.Pointer[func(v any)] // tests: called when a connection goroutine panics
}

// NewServer returns a server for eng; call Serve to run it.
func NewServer(cfg Config, eng Engine) *Server {
	s := &Server{
		cfg:      cfg,
		eng:      eng,
		auth:     cfg.Authenticator,
		logger:   cfg.Logger,
		listened: make(chan struct{}),
		done:     make(chan struct{}),
		conns:    make(map[*conn]struct{}),
	}
	if s.auth == nil {
		s.auth = TrustAuthenticator{}
	}
	if s.logger == nil {
		s.logger = log.New(io.Discard, "", 0)
	}
	if s.cfg.AuthTimeout <= 0 {
		s.cfg.AuthTimeout = defaultAuthTimeout
	}
	if s.cfg.MaxMessageSize <= 0 || s.cfg.MaxMessageSize > largeMessageLimit {
		s.cfg.MaxMessageSize = largeMessageLimit
	}
	if s.cfg.ShutdownTimeout == 0 {
		s.cfg.ShutdownTimeout = defaultShutdownTimeout
	}
	return s
}

// Listen binds all of Config.ListenAddrs. Serve calls it; calling it first
// lets a caller learn Addr before serving. It binds only once.
func (s *Server) Listen() error {
	s.listenOnce.Do(func() {
		defer close(s.listened)
		if len(s.cfg.ListenAddrs) == 0 {
			s.listenErr = errors.New("pgwire: no listen addresses configured")
			return
		}
		var ls []net.Listener
		for _, a := range s.cfg.ListenAddrs {
			network := "tcp"
			if strings.Contains(a, "/") {
				network = "unix"
			}
			l, err := net.Listen(network, a)
			if err != nil {
				for _, l := range ls {
					l.Close()
				}
				s.listenErr = fmt.Errorf("pgwire: could not listen on %q: %w", a, err)
				return
			}
			ls = append(ls, l)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			for _, l := range ls {
				l.Close()
			}
			s.listenErr = errors.New("pgwire: server is shut down")
			return
		}
		s.listeners = ls
		for _, l := range ls {
			s.addrs = append(s.addrs, l.Addr())
		}
	})
	return s.listenErr
}

// Addr returns the addresses actually listened on, in ListenAddrs order. It
// waits until Serve (or Listen) has bound them, and returns nil if binding
// failed.
func (s *Server) Addr() []net.Addr {
	<-s.listened
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]net.Addr(nil), s.addrs...)
}

// Serve listens, accepts connections and runs one goroutine per connection.
// When ctx is cancelled it closes the listeners, asks every connection to
// end (idle ones get FATAL 57P01 at once, busy ones after their statement,
// or are closed by force after Config.ShutdownTimeout) and returns nil. It
// also returns nil after Shutdown. A listener failure is returned.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.serving {
		s.mu.Unlock()
		return errors.New("pgwire: Serve called twice")
	}
	s.serving = true
	ls := s.listeners
	s.mu.Unlock()

	acceptErr := make(chan error, len(ls))
	var wg sync.WaitGroup
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acceptLoop(l); err != nil {
				acceptErr <- err
			}
		}()
	}

	var err error
	select {
	case <-ctx.Done():
		s.shutdownAfter(s.cfg.ShutdownTimeout)
	case <-s.done:
	case err = <-acceptErr:
		s.shutdownAfter(s.cfg.ShutdownTimeout)
	}
	wg.Wait()
	return err
}

func (s *Server) shutdownAfter(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), max(d, 0))
	defer cancel()
	_ = s.Shutdown(ctx)
}

func (s *Server) acceptLoop(l net.Listener) error {
	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return nil
			}
			if isTemporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.logger.Printf("LOG:  could not accept new connection: %v", err)
				select {
				case <-time.After(delay):
				case <-s.done:
					return nil
				}
				continue
			}
			return fmt.Errorf("pgwire: accept on %s: %w", l.Addr(), err)
		}
		delay = 0
		c := newConn(s, nc)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.connWG.Done()
			defer s.removeConn(c)
			c.serve()
		}()
	}
}

// isTemporary reports accept errors worth retrying (EMFILE, ECONNABORTED …).
func isTemporary(err error) bool {
	var te interface{ Temporary() bool }
	return errors.As(err, &te) && te.Temporary()
}

func (s *Server) removeConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Shutdown stops accepting connections, sends each idle connection an
// ErrorResponse FATAL 57P01 "terminating connection due to administrator
// command" and closes it, and waits for busy connections to finish their
// statement (they are then terminated the same way). When ctx expires first,
// the remaining connections are closed by force and ctx.Err() is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
		for _, l := range s.listeners {
			l.Close()
		}
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	for _, c := range conns {
		c.requestTerminate()
	}

	finished := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for c := range s.conns {
		c.forceClose()
	}
	s.mu.Unlock()
	return ctx.Err()
}
