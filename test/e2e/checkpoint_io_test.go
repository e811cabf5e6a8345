package e2e

import (
	"bytes"
	"context"
	"errors"
	"log"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/testutil"
)

// syncLog is a log sink safe for the server's goroutines.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// quietWriter turns the background writer and the timed and WAL-volume
// checkpoints off, so that only the test's CHECKPOINT writes buffers.
func quietWriter() *engine.WriterConfig {
	w := engine.DefaultWriterConfig()
	w.BgWriterLRUMaxPages = 0
	w.MaxWALSize = 0
	return &w
}

// TestCheckpointWriteErrorIsRetried: an EIO injected into the
// checkpoint's combined writes fails CHECKPOINT with PostgreSQL's
// "checkpoint request failed" (the server log names the blocks), the
// session and the data stay as they were, and once the fault clears the
// next CHECKPOINT writes the buffers; after a restart every committed row
// is there.
func TestCheckpointWriteErrorIsRetried(t *testing.T) {
	var logs syncLog
	dir := t.TempDir()
	opt := testutil.Options{Dir: dir, Logger: log.New(&logs, "", 0), Writer: quietWriter(),
		OnPanic: func(err error) { t.Errorf("server PANIC: %v", err) }}
	s := testutil.Start(t, opt)
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE ck (id int, v text)")
	exec(t, c, "INSERT INTO ck SELECT i, repeat('x', 200) FROM generate_series(1, 2000) AS i")
	exec(t, c, "CHECKPOINT")
	exec(t, c, "UPDATE ck SET v = repeat('y', 200)")

	var mu sync.Mutex
	combined := 0
	s.Engine.Smgr.SetWriteFault(func(rel smgr.RelFileNumber, f smgr.ForkNumber, first page.BlockNumber, n int) error {
		mu.Lock()
		defer mu.Unlock()
		if n > 1 {
			combined++
		}
		return syscall.EIO
	})
	_, err := execErr(c, "CHECKPOINT")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX000" || pe.Message != "checkpoint request failed" ||
		pe.Hint != "Consult recent messages in the server log for details." {
		t.Fatalf("CHECKPOINT with failing writes: %v", err)
	}
	mu.Lock()
	if combined == 0 {
		t.Error("the fault never saw a combined write")
	}
	mu.Unlock()
	if l := logs.String(); !strings.Contains(l, "ERROR:  could not write blocks ") || !strings.Contains(l, ": Input/output error") {
		t.Errorf("server log lacks the write error:\n%s", l)
	}
	wantUsable(t, c)
	if got := query(t, c, "SELECT count(*), min(v) = max(v), min(left(v, 1)) FROM ck"); got != "2000|true|y" {
		t.Fatalf("after the failed checkpoint: %s", got)
	}

	s.Engine.Smgr.SetWriteFault(nil)
	exec(t, c, "CHECKPOINT")
	if n := queryInt(t, c, "SELECT buffers_checkpoint FROM pg_stat_bgwriter"); n == 0 {
		t.Error("pg_stat_bgwriter.buffers_checkpoint is 0 after a successful checkpoint")
	}
	if got := query(t, c, "SELECT num_requested >= 2, buffers_written > 0 FROM pg_stat_checkpointer"); got != "true|true" {
		t.Errorf("pg_stat_checkpointer: %s", got)
	}
	c.Close(context.Background())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := testutil.Start(t, testutil.Options{Dir: dir, Writer: quietWriter()})
	c2 := connect(t, s2.DSN())
	if got := query(t, c2, "SELECT count(*), min(left(v, 1)), max(left(v, 1)) FROM ck"); got != "2000|y|y" {
		t.Fatalf("after restart: %s", got)
	}
}

// TestCheckpointFsyncFailureStopsAndRecovers: a failed fsync during a
// checkpoint is never retried and forgotten: the server PANICs, the
// checkpoint does not complete (the control file keeps the previous one),
// and the next start recovers from WAL with every committed row.
func TestCheckpointFsyncFailureStopsAndRecovers(t *testing.T) {
	var logs syncLog
	dir := t.TempDir()
	var mu sync.Mutex
	var panics []string
	opt := testutil.Options{Dir: dir, Logger: log.New(&logs, "", 0), Writer: quietWriter(),
		OnPanic: func(err error) { mu.Lock(); panics = append(panics, err.Error()); mu.Unlock() }}
	s := testutil.Start(t, opt)
	c := connect(t, s.DSN())
	exec(t, c, "CREATE TABLE fs (id int PRIMARY KEY, v int)")
	exec(t, c, "CHECKPOINT")
	exec(t, c, "INSERT INTO fs SELECT i, i * 2 FROM generate_series(1, 3000) AS i")
	s.Engine.Smgr.SetSyncFault(func(string) error { return syscall.EIO })
	if _, err := execErr(c, "CHECKPOINT"); err == nil {
		t.Fatal("CHECKPOINT succeeded although fsync failed")
	}
	mu.Lock()
	if len(panics) == 0 || !strings.Contains(panics[0], "could not fsync file") {
		t.Fatalf("server PANICs: %q", panics)
	}
	mu.Unlock()
	// The server is stopping (in a real process it has exited): the
	// shutdown checkpoint fails the same way and leaves the control file
	// pointing at the last good checkpoint.
	c.Close(context.Background())
	if err := s.Close(); err == nil {
		t.Fatal("shutdown checkpoint succeeded with fsync failing")
	}

	var logs2 syncLog
	s2 := testutil.Start(t, testutil.Options{Dir: dir, Writer: quietWriter(), Logger: log.New(&logs2, "", 0)})
	if l := logs2.String(); !strings.Contains(l, "automatic recovery in progress") || !strings.Contains(l, "redo done at") {
		t.Fatalf("no recovery after the failed fsync:\n%s", l)
	}
	c2 := connect(t, s2.DSN())
	if got := query(t, c2, "SELECT count(*), sum(v) FROM fs"); got != "3000|9003000" {
		t.Fatalf("after recovery: %s", got)
	}
}
