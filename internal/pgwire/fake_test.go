package pgwire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// fakeEngine is a tiny stand-in for the session package.
type fakeEngine struct {
	sleepMax time.Duration // how long "sleep" waits at most
	noPanic  bool          // treat "panic" as an unknown statement
	extended bool          // sessions implement ExtendedSession

	mu       sync.Mutex
	sessions map[CancelKey]*fakeSession
	startups []map[string]string
	cancels  chan CancelKey
	closed   chan CancelKey
	sleepEnd chan error // ctx.Err() (or nil) when a "sleep" ends
	// sleepStart gets the session's key when a "sleep" has begun: tests
	// wait for it instead of guessing how long the server takes to get
	// there (a cancel or shutdown that arrives earlier finds the session
	// idle).
	sleepStart chan CancelKey
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		sleepMax:   5 * time.Second,
		sessions:   map[CancelKey]*fakeSession{},
		cancels:    make(chan CancelKey, 16),
		closed:     make(chan CancelKey, 1024),
		sleepEnd:   make(chan error, 16),
		sleepStart: make(chan CancelKey, 16),
	}
}

func (e *fakeEngine) Open(startup map[string]string, key CancelKey) (Session, error) {
	switch {
	case startup["database"] == "nodb":
		return nil, pgerr.Errorf(pgerr.InvalidCatalogName, `database "nodb" does not exist`)
	case startup["user"] == "nobody":
		return nil, pgerr.Errorf(pgerr.InvalidAuthorizationSpec, `role "nobody" does not exist`)
	}
	s := &fakeSession{eng: e, key: key, tx: 'I', startup: startup, cancel: make(chan struct{}, 1)}
	e.mu.Lock()
	e.sessions[key] = s
	e.startups = append(e.startups, startup)
	e.mu.Unlock()
	if e.extended {
		return &fakeExtSession{fakeSession: s, stmts: map[string]string{}, portals: map[string]*fakePortal{}}, nil
	}
	return s, nil
}

func (e *fakeEngine) Cancel(key CancelKey) {
	e.mu.Lock()
	s := e.sessions[key]
	e.mu.Unlock()
	if s != nil {
		select {
		case s.cancel <- struct{}{}:
		default:
		}
	}
	select {
	case e.cancels <- key:
	default:
	}
}

func (e *fakeEngine) ServerParams(s Session) [][2]string {
	fs, ok := s.(*fakeSession)
	if !ok {
		fs = s.(*fakeExtSession).fakeSession
	}
	return [][2]string{
		{"server_version", "17.0 (tidal)"},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"IntervalStyle", "postgres"},
		{"TimeZone", "UTC"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"is_superuser", "on"},
		{"session_authorization", fs.startup["user"]},
		{"application_name", fs.startup["application_name"]},
		{"default_transaction_read_only", "off"},
		{"in_hot_standby", "off"},
	}
}

func (e *fakeEngine) session(key CancelKey) *fakeSession {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[key]
}

type fakeSession struct {
	eng     *fakeEngine
	key     CancelKey
	startup map[string]string
	cancel  chan struct{}

	mu     sync.Mutex
	tx     byte
	closed bool
}

func (s *fakeSession) TxStatus() byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tx
}

func (s *fakeSession) setTx(b byte) {
	s.mu.Lock()
	s.tx = b
	s.mu.Unlock()
}

func (s *fakeSession) Close() {
	s.mu.Lock()
	s.closed = true
	s.tx = 'I'
	s.mu.Unlock()
	select {
	case s.eng.closed <- s.key:
	default: // nobody is watching (fuzz test)
	}
}

var int4Col = []FieldDesc{{Name: "?column?", TypeOID: 23, TypeLen: 4, TypeMod: -1}}

func (s *fakeSession) SimpleQuery(ctx context.Context, sql string, w ResultWriter) error {
	var stmts []string
	for _, st := range strings.Split(sql, ";") {
		if st = strings.TrimSpace(st); st != "" {
			stmts = append(stmts, st)
		}
	}
	if len(stmts) == 0 {
		return w.EmptyQuery()
	}
	// Drain a cancel that arrived while idle.
	select {
	case <-s.cancel:
	default:
	}
	for _, st := range stmts {
		if err := s.exec(ctx, strings.ToLower(st), w); err != nil {
			if s.TxStatus() == 'T' {
				s.setTx('E')
			}
			return err
		}
	}
	return nil
}

func (s *fakeSession) exec(ctx context.Context, st string, w ResultWriter) error {
	if s.TxStatus() == 'E' && st != "commit" && st != "rollback" {
		return pgerr.Errorf(pgerr.InFailedSQLTransaction,
			"current transaction is aborted, commands ignored until end of transaction block")
	}
	f := strings.Fields(st)
	switch {
	case st == "select 1":
		if err := w.RowDescription(int4Col); err != nil {
			return err
		}
		if err := w.DataRow([][]byte{[]byte("1")}); err != nil {
			return err
		}
		return w.CommandComplete("SELECT 1")
	case st == "select null":
		if err := w.RowDescription([]FieldDesc{{Name: "x", TypeOID: 25, TypeLen: -1, TypeMod: -1}}); err != nil {
			return err
		}
		if err := w.DataRow([][]byte{nil}); err != nil {
			return err
		}
		return w.CommandComplete("SELECT 1")
	case len(f) == 2 && f[0] == "big":
		n, _ := strconv.Atoi(f[1])
		if err := w.RowDescription([]FieldDesc{{Name: "i", TypeOID: 23, TypeLen: 4, TypeMod: -1},
			{Name: "pad", TypeOID: 25, TypeLen: -1, TypeMod: -1}}); err != nil {
			return err
		}
		pad := bytes.Repeat([]byte("x"), 100)
		for i := range n {
			if err := w.DataRow([][]byte{[]byte(strconv.Itoa(i)), pad}); err != nil {
				return err
			}
		}
		return w.CommandComplete(fmt.Sprintf("SELECT %d", n))
	case st == "bad":
		e := pgerr.Errorf(pgerr.SyntaxError, `syntax error at or near "bad"`)
		e.Position = 1
		return e
	case st == "notice":
		if err := w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "hello from notice")); err != nil {
			return err
		}
		return w.CommandComplete("DO")
	case st == "begin":
		s.setTx('T')
		return w.CommandComplete("BEGIN")
	case st == "commit" || st == "rollback":
		tag := strings.ToUpper(st)
		if s.TxStatus() == 'E' {
			tag = "ROLLBACK"
		}
		s.setTx('I')
		return w.CommandComplete(tag)
	case st == "create table t":
		return w.CommandComplete("CREATE TABLE")
	case st == "copy in":
		r, err := w.(CopyWriter).CopyIn(0, 1)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return w.CommandComplete(fmt.Sprintf("COPY %d", bytes.Count(b, []byte("\n"))))
	case st == "copy out":
		cw := w.(CopyWriter)
		if err := cw.CopyOut(0, 1); err != nil {
			return err
		}
		for _, l := range []string{"a\n", "b\n"} {
			if err := cw.CopyData([]byte(l)); err != nil {
				return err
			}
		}
		if err := cw.CopyDone(); err != nil {
			return err
		}
		return w.CommandComplete("COPY 2")
	case st == "sleep":
		t := time.NewTimer(s.eng.sleepMax)
		defer t.Stop()
		select {
		case s.eng.sleepStart <- s.key:
		default:
		}
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-s.cancel:
			err = pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to user request")
		case <-t.C:
		}
		select {
		case s.eng.sleepEnd <- ctx.Err():
		default:
		}
		if err != nil {
			return err
		}
		return w.CommandComplete("SELECT 1")
	case st == "fatal":
		return &pgerr.Error{Severity: pgerr.SevFatal, Code: pgerr.AdminShutdown,
			Message: "terminating connection due to idle-in-transaction timeout"}
	case st == "internal":
		return fmt.Errorf("plain Go error")
	case st == "panic" && !s.eng.noPanic:
		panic("boom")
	}
	return pgerr.Errorf(pgerr.SyntaxError, "unknown statement %q", st)
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type testServer struct {
	srv    *Server
	eng    *fakeEngine
	addr   string
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve returns
	err    error
}

func startServer(t testing.TB, eng *fakeEngine, mod func(*Config)) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg := Config{
		ListenAddrs: []string{"127.0.0.1:0"},
		Logger:      log.New(logs, "", 0),
	}
	if mod != nil {
		mod(&cfg)
	}
	srv := NewServer(cfg, eng)
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{srv: srv, eng: eng, logs: logs, cancel: cancel, done: make(chan struct{})}
	go func() { ts.err = srv.Serve(ctx); close(ts.done) }()
	addrs := srv.Addr()
	if len(addrs) != 1 {
		cancel()
		<-ts.done
		t.Fatalf("server did not listen: %v", ts.err)
	}
	ts.addr = addrs[0].String()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ts.done:
		case <-time.After(15 * time.Second):
			t.Errorf("Serve did not return after cancel")
		}
	})
	return ts
}

func (ts *testServer) port() string {
	return ts.addr[strings.LastIndexByte(ts.addr, ':')+1:]
}
