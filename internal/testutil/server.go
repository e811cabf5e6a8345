// Package testutil starts tidal servers for tests: in-process (engine plus
// wire server on a loopback port) or as a child process that a crash test
// can SIGKILL.
package testutil

import (
	"context"
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/tableams"
	"io"
	"log"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/session"
	"github.com/tidal-db/tidal/internal/wal"
)

// Server is an in-process tidal server.
type Server struct {
	Dir    string
	Addr   string
	Port   int
	Engine *engine.Engine
	// Sessions is the session factory (tests install hooks on it).
	Sessions *session.Server
	srv      *pgwire.Server
	cancel   context.CancelFunc
	done     chan struct{}
	closed   bool
}

// Options tune a test server.
type Options struct {
	Dir           string // data directory; a temp dir if empty
	SharedBuffers int    // bytes; default 32 MiB
	Conf          map[string]string
	Logger        *log.Logger
	// OnPanic replaces the process exit of a server PANIC.
	OnPanic func(error)
	// AccessMethods replaces the built-in table access methods
	// (tableams.Builtin) — tests that need another AM registered.
	AccessMethods *tableam.Registry
	// Writer replaces the checkpointer and background writer settings
	// (engine.DefaultWriterConfig).
	Writer *engine.WriterConfig
}

// Start runs a server for the duration of the test.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	s, err := StartE(opt, t.TempDir)
	if err != nil {
		t.Fatalf("start tidal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// StartE is Start without a testing.TB.
func StartE(opt Options, tempDir func() string) (*Server, error) {
	dir := opt.Dir
	if dir == "" {
		dir = filepath.Join(tempDir(), "data")
	}
	cfg := engine.DefaultConfig(dir)
	cfg.SharedBuffers = 32 << 20
	if opt.SharedBuffers > 0 {
		cfg.SharedBuffers = opt.SharedBuffers
	}
	if v, ok := opt.Conf["wal_compression"]; ok {
		wc, err := wal.ParseCompression(v)
		if err != nil {
			return nil, err
		}
		cfg.WALCompression = wc
	}
	cfg.ApplyLockSettings(func(name string) string {
		if v, ok := opt.Conf[name]; ok {
			return v
		}
		return guc.Defs[name].Default
	})
	cfg.Logger = opt.Logger
	cfg.OnPanic = opt.OnPanic
	if opt.Writer != nil {
		cfg.Writer = *opt.Writer
	}
	if cfg.Logger == nil {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	cfg.AccessMethods = opt.AccessMethods
	if cfg.AccessMethods == nil {
		cfg.AccessMethods = tableams.Builtin()
	}
	eng, err := engine.Open(cfg)
	if err != nil {
		return nil, err
	}
	conf := opt.Conf
	if am := os.Getenv("TIDAL_TEST_TABLE_AM"); am != "" && conf["default_table_access_method"] == "" {
		// Run a suite with another default table AM (CI runs heap and undo).
		conf = maps.Clone(conf)
		if conf == nil {
			conf = map[string]string{}
		}
		conf["default_table_access_method"] = am
	}
	if _, set := conf["autovacuum"]; !set {
		// Tests that need determinism get none: autovacuum is off unless
		// a test turns it on (anti-wraparound vacuums still run, as
		// PostgreSQL's do with autovacuum off).
		conf = maps.Clone(conf)
		if conf == nil {
			conf = map[string]string{}
		}
		conf["autovacuum"] = "off"
	}
	sessions := session.NewServer(eng, conf)
	session.StartAutovacuum(eng, conf)
	srv := pgwire.NewServer(pgwire.Config{ListenAddrs: []string{"127.0.0.1:0"}, Logger: cfg.Logger, Authenticator: sessions.Authenticator()}, sessions)
	if err := srv.Listen(); err != nil {
		eng.Close()
		return nil, err
	}
	addr := srv.Addr()[0].String()
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Dir: dir, Addr: addr, Port: p, Engine: eng, Sessions: sessions, srv: srv, cancel: cancel, done: make(chan struct{})}
	go func() { srv.Serve(ctx); close(s.done) }()
	return s, nil
}

// DSN is a connection string for pgx or lib/pq.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
}

// Close shuts the server down cleanly.
func (s *Server) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	s.srv.Shutdown(ctx)
	cancel()
	s.cancel()
	<-s.done
	return s.Engine.Close()
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds cmd/tidal once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "tidal-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tidal")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/tidal")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Process is a tidal server running as a child process.
type Process struct {
	Cmd  *exec.Cmd
	Dir  string
	Port int
	Log  string
}

// FreePort finds a free loopback port.
func FreePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartProcess runs `tidal serve -D dir -p port` and waits until it accepts
// connections.
func StartProcess(t testing.TB, dir string, port int, extra ...string) *Process {
	t.Helper()
	bin := Binary(t)
	logPath := filepath.Join(filepath.Dir(dir), fmt.Sprintf("server-%d.log", time.Now().UnixNano()))
	lf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// autovacuum off unless extra turns it on (a later -c wins).
	args := []string{"serve", "-D", dir, "-p", strconv.Itoa(port), "-c", "shared_buffers=32MB", "-c", "autovacuum=off"}
	if am := os.Getenv("TIDAL_TEST_TABLE_AM"); am != "" && !slices.ContainsFunc(extra, func(a string) bool {
		return strings.HasPrefix(a, "default_table_access_method=")
	}) {
		// The suite's default table AM, as Start's (CI runs heap and undo).
		args = append(args, "-c", "default_table_access_method="+am)
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{Cmd: cmd, Dir: dir, Port: port, Log: logPath}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return p
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(logPath)
	cmd.Process.Kill()
	t.Fatalf("tidal did not start:\n%s", b)
	return nil
}

// DSN is a connection string for the process.
func (p *Process) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.Port)
}

// Kill sends SIGKILL and waits for the process to die.
func (p *Process) Kill() {
	p.Cmd.Process.Kill()
	p.Cmd.Wait()
}

// Stop sends SIGTERM (clean shutdown) and waits.
func (p *Process) Stop() error {
	p.Cmd.Process.Signal(os.Interrupt)
	return p.Cmd.Wait()
}
