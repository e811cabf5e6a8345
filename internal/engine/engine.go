// Package engine opens a data directory and owns everything shared by the
// sessions on it: storage manager, buffer pool, WAL, transaction manager,
// catalog, checkpointer. It creates a new cluster (initdb) when the
// directory is missing or empty, and runs crash recovery when the last
// shutdown was not clean.
package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tidal-db/tidal/internal/xact/predicate"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/notify"
	"github.com/tidal-db/tidal/internal/parallel"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/stmtstats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
	"github.com/tidal-db/tidal/internal/vacuum"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// Config is the engine's start-up configuration.
type Config struct {
	DataDir           string
	SharedBuffers     int // bytes (shared_buffers)
	Fsync             bool
	FullPageWrites    bool
	CheckpointTimeout time.Duration
	// Writer holds the checkpointer's and background writer's settings.
	Writer WriterConfig
	Logger *log.Logger
	// WALCompression is the server's wal_compression: the method for
	// full-page images of writers without a session of their own
	// (checkpoints, autovacuum); each session applies its own setting.
	WALCompression wal.Compression
	// OnPanic replaces the process exit after a failed fsync (tests).
	OnPanic func(error)
	// IOReadLatency is tidal.io_read_latency: slept before every read
	// system call of a relation file (benchmarks of read-ahead).
	IOReadLatency time.Duration
	// DirectIO is io_direct = data: relation files opened with O_DIRECT.
	DirectIO bool
	// AccessMethods are the table access methods (internal/access/tableams'
	// Builtin); it must hold heap. The engine owns it from Open on.
	AccessMethods *tableam.Registry
	// LockTableSize bounds the heavyweight lock table ((backend, lock)
	// pairs; ApplyLockSettings); PredicateLimits are the SIREAD lock
	// promotion thresholds.
	LockTableSize   int
	PredicateLimits predicate.Limits
}

// DefaultConfig returns PostgreSQL's defaults (tidal's, where it differs:
// wal_compression).
func DefaultConfig(dir string) Config {
	wc, err := wal.ParseCompression(guc.Defs["wal_compression"].Default)
	if err != nil {
		panic(err) // the default is a constant
	}
	return Config{DataDir: dir, SharedBuffers: 128 << 20, Fsync: true, FullPageWrites: true, WALCompression: wc, CheckpointTimeout: 5 * time.Minute,
		Writer: DefaultWriterConfig(), LockTableSize: 64 * 100, PredicateLimits: predicate.DefaultLimits}
}

// Engine is an open data directory.
type Engine struct {
	cfg  Config
	log  *log.Logger
	lock *os.File

	Smgr    *smgr.Manager
	Pool    *buffer.Pool
	WAL     *wal.WAL
	Xact    *xact.Manager
	Catalog *catalog.Catalog
	// AMEnv is what table access methods reach the engine through; AMs
	// the registry of table access methods (pg_am's 't' rows).
	AMEnv *tableam.Env
	AMs   *tableam.Registry
	// Stats are the per-table activity counters (pg_stat_user_tables).
	Stats *stats.Tables
	// Backends are the sessions by process ID, for pg_cancel_backend and
	// pg_terminate_backend.
	Backends interrupt.Registry
	// Notify routes LISTEN/NOTIFY notifications between sessions.
	Notify *notify.Hub
	// Vacuums are the VACUUMs running now (pg_stat_progress_vacuum).
	Vacuums *vacuum.Registry
	// StmtStats are pg_stat_statements' entries.
	StmtStats *stmtstats.Store
	// TempFiles holds sorts' and hashes' spill files (base/pgsql_tmp).
	TempFiles *tempfile.Manager
	memReturn memReturn // memory.go

	control *wal.Control
	ckptMu  sync.Mutex
	// immediatePending counts immediate checkpoint requests waiting for
	// or running a checkpoint: a spread one in progress stops pacing.
	immediatePending atomic.Int32
	// redoLSN is the last completed checkpoint's redo point (for the
	// WAL-volume trigger).
	redoLSN     atomic.Uint64
	writerStats writerStats
	// walRemoval serialises the removal of WAL segments a checkpoint no
	// longer needs, which runs after the checkpoint returns.
	walRemoval sync.Mutex
	// fsyncFailed is the failed fsync that stopped the server; once set,
	// no checkpoint completes (with OnPanic the process lives on).
	fsyncFailed atomic.Pointer[error]
	walRemoveWG sync.WaitGroup
	// oldestMinMxid is the oldest relminmxid of any table (0: no table
	// has one), valid once minMxidKnown.
	oldestMinMxid atomic.Uint32
	minMxidKnown  atomic.Bool
	stop          chan struct{}
	wg            sync.WaitGroup
	closed        bool
	closeMu       sync.Mutex
	StartedAt     time.Time
	// cleanStart: the last shutdown was clean, so the saved statistics
	// are current.
	cleanStart bool
	// background are goroutines started on the engine (autovacuum) that
	// Close stops, before the shutdown checkpoint.
	background sync.WaitGroup
	bgStop     chan struct{}
}

// VersionFile marks a tidal data directory (like PG_VERSION).
const VersionFile = "TIDAL_VERSION"

// Open opens (or creates) the data directory.
func Open(cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = log.New(os.Stderr, "", log.LstdFlags)
	}
	if cfg.AccessMethods == nil {
		return nil, errors.New("engine: no table access methods configured (Config.AccessMethods: tableams.Builtin())")
	}
	if _, ok := cfg.AccessMethods.ByName("heap"); !ok {
		return nil, errors.New("engine: the heap table access method is not registered")
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, stop: make(chan struct{}), StartedAt: time.Now(), Stats: stats.NewTables(), Notify: notify.NewHub(), Vacuums: vacuum.NewRegistry(), StmtStats: stmtstats.New(), bgStop: make(chan struct{})}
	dir := cfg.DataDir
	fresh, err := isFresh(dir)
	if err != nil {
		return nil, err
	}
	if fresh {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("could not create data directory %q: %w", dir, err)
		}
	} else if err := checkDataDir(dir); err != nil {
		return nil, err
	}
	if err := e.lockDir(); err != nil {
		return nil, err
	}
	for _, sub := range []string{"base", "global", "wal", "xact", "undo", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			e.unlockDir()
			return nil, err
		}
	}
	if err := e.start(fresh); err != nil {
		e.unlockDir()
		return nil, err
	}
	if err := e.UpdateWrapLimit(); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.upgradeCatalogs(); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.removeTempRelations(); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.openTempFiles(); err != nil {
		e.Close()
		return nil, err
	}
	if e.cleanStart {
		if err := e.Stats.Load(dir); err != nil {
			e.log.Printf("WARNING:  %v", err)
		}
	} else {
		stats.Discard(dir)
	}
	e.wg.Add(3)
	go e.checkpointer()
	go e.walWriter()
	go e.bgWriter()
	return e, nil
}

// CheckDataDir refuses a directory that is neither new (missing, empty)
// nor a tidal data directory of this format, without changing anything.
func CheckDataDir(dir string) error {
	fresh, err := isFresh(dir)
	if err != nil || fresh {
		return err
	}
	return checkDataDir(dir)
}

func isFresh(dir string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("could not read data directory %q: %w", dir, err)
	}
	// A directory holding only a log folder or a prepared tidal.conf is
	// still new.
	for _, e := range ents {
		if e.Name() != "log" && e.Name() != "tidal.conf" {
			return false, nil
		}
	}
	return true, nil
}

func checkDataDir(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, VersionFile))
	if err != nil {
		if _, perr := os.Stat(filepath.Join(dir, "PG_VERSION")); perr == nil {
			return pgerr.Errorf(pgerr.DataCorrupted, "%q is a PostgreSQL data directory, not a tidal one", dir).
				WithHint("Point tidal at an empty or new directory.")
		}
		return pgerr.Errorf(pgerr.DataCorrupted, "%q is not a tidal data directory: file %q is missing", dir, VersionFile).
			WithHint("Point tidal at an empty or new directory, or restore the missing files.")
	}
	var v int
	if _, err := fmt.Sscanf(string(b), "%d", &v); err != nil || v != wal.ControlVersion {
		return pgerr.Errorf(pgerr.DataCorrupted, "database files are incompatible with server: data directory %q was initialized by tidal format version %q, which is not compatible with this version %d", dir, string(b), wal.ControlVersion)
	}
	for _, need := range []string{"global/pg_control", "base", "wal"} {
		if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
			return pgerr.Errorf(pgerr.DataCorrupted, "data directory %q is missing %q", dir, need).
				WithHint("The directory is damaged; restore it from a backup.")
		}
	}
	return nil
}

func (e *Engine) lockDir() error {
	f, err := os.OpenFile(filepath.Join(e.cfg.DataDir, "postmaster.pid"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "lock file \"postmaster.pid\" is held: is another tidal server running in data directory %q?", e.cfg.DataDir)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n%s\n", os.Getpid(), e.cfg.DataDir)
	e.lock = f
	return nil
}

func (e *Engine) unlockDir() {
	if e.lock != nil {
		syscall.Flock(int(e.lock.Fd()), syscall.LOCK_UN)
		e.lock.Close()
		os.Remove(filepath.Join(e.cfg.DataDir, "postmaster.pid"))
		e.lock = nil
	}
}

// Logf writes a server log line.
func (e *Engine) Logf(format string, args ...any) { e.log.Printf(format, args...) }

func (e *Engine) start(fresh bool) error {
	dir := e.cfg.DataDir
	var err error
	e.Smgr, err = smgr.Open(filepath.Join(dir, "base"))
	if err != nil {
		return err
	}
	if err := e.Smgr.SetDirect(e.cfg.DirectIO); err != nil {
		return err
	}
	e.Smgr.IOLatency.Store(int64(e.cfg.IOReadLatency))
	nbuf := e.cfg.SharedBuffers / page.Size
	e.Pool = buffer.New(e.Smgr, nbuf)
	e.Pool.Checksums = true
	e.Pool.IO = stats.NewIO()
	e.Pool.OnChecksumFailure = func() { e.Stats.ChecksumFailure(time.Now()) }

	ctl := &wal.Control{NextXid: uint32(xact.FirstNormalXid), NextOid: catalog.FirstNormalObjectID}
	if !fresh {
		ctl, err = wal.ReadControl(dir)
		if err != nil {
			return err
		}
	}
	e.control = ctl
	e.redoLSN.Store(uint64(ctl.Redo))
	e.Xact, err = xact.Open(filepath.Join(dir, "xact"), nil, ctl.NextXid)
	if err != nil {
		return err
	}
	e.Xact.OnDeadlock(e.Stats.Deadlock)
	e.Xact.SetLockTableSize(e.cfg.LockTableSize)
	e.Xact.Multi().SetNext(ctl.NextMulti, ctl.NextMultiOffset, ctl.OldestMulti)
	e.AMEnv = &tableam.Env{Pool: e.Pool, Xact: e.Xact, Pred: predicate.NewManager(e.Xact, e.cfg.PredicateLimits), Workers: &parallel.WorkerPool{}}
	e.AMs = e.cfg.AccessMethods
	for _, am := range e.boundAMs() {
		am.Attach(e.AMEnv)
	}
	e.Catalog = catalog.Open(e.AMEnv, e.AMs, ctl.NextOid)
	e.registerRmgrs()

	walDir := filepath.Join(dir, "wal")
	opts := wal.Options{Fsync: e.cfg.Fsync, FullPageWrites: e.cfg.FullPageWrites, Compression: e.cfg.WALCompression}
	if fresh {
		return e.initdb(walDir, opts)
	}
	// Recovery: replay from the last checkpoint's redo point. After a clean
	// shutdown that is just the shutdown checkpoint record.
	ck, err := wal.ReadAt(walDir, ctl.Checkpoint)
	if err != nil || ck.Rmgr != wal.RmXLOG || (ck.Info != infoCheckpointShutdown && ck.Info != infoCheckpointOnline) {
		return pgerr.Errorf(pgerr.DataCorrupted, "could not locate a valid checkpoint record at %s", wal.FormatLSN(ctl.Checkpoint)).
			WithHint("The WAL in %q is missing or damaged.", walDir)
	}
	e.cleanStart = ctl.State == wal.StateShutdown
	if ctl.State != wal.StateShutdown {
		e.log.Printf("LOG:  database system was interrupted; last known up at %s", time.Unix(ctl.Time, 0).UTC().Format("2006-01-02 15:04:05 UTC"))
		e.log.Printf("LOG:  database system was not properly shut down; automatic recovery in progress")
		ctl.State = wal.StateRecovery
		if err := wal.WriteControl(dir, ctl); err != nil {
			return err
		}
	}
	e.Pool.FlushWAL = func(page.LSN) error { return nil } // nothing new to flush during redo
	start := time.Now()
	res, err := wal.Replay(walDir, e.Pool, ctl.Redo)
	if err != nil {
		return fmt.Errorf("crash recovery failed: %w", err)
	}
	if res.MaxXid != 0 {
		e.Xact.AdvanceNextXid(res.MaxXid)
	}
	if ctl.State == wal.StateRecovery {
		e.log.Printf("LOG:  redo done at %s; %d records in %.3f s", wal.FormatLSN(res.Prev), res.Records, time.Since(start).Seconds())
	}
	e.WAL, err = wal.Open(walDir, res.End, res.Prev, opts)
	if err != nil {
		return err
	}
	e.WAL.SetRedoPtr(ctl.Redo)
	e.attachWAL()
	if err := e.startAMs(); err != nil {
		return err
	}
	if ctl.State == wal.StateRecovery {
		if err := e.Checkpoint(false); err != nil {
			return fmt.Errorf("end-of-recovery checkpoint: %w", err)
		}
	}
	ctl.State = wal.StateProduction
	if err := wal.WriteControl(dir, ctl); err != nil {
		return err
	}
	e.log.Printf("LOG:  database system is ready to accept connections")
	return nil
}

// engineBound is implemented by table access methods that keep
// engine-wide state (the undo AM's log): Attach at start-up, before WAL
// replay; Start once the WAL is attached and before any session (undo
// recovery runs there); CheckpointBegin when a checkpoint fixes its redo
// point and CheckpointDone with its token once the checkpoint is durable.
type engineBound interface {
	Attach(env *tableam.Env)
	Start(env *tableam.Env, logf func(format string, args ...any)) error
	CheckpointBegin() uint64
	CheckpointDone(token uint64) error
}

func (e *Engine) boundAMs() []engineBound {
	var out []engineBound
	for _, am := range e.AMs.All() {
		if b, ok := am.(engineBound); ok {
			out = append(out, b)
		}
	}
	return out
}

// startAMs starts the engine-bound access methods once the WAL is
// attached, before any session.
func (e *Engine) startAMs() error {
	for _, am := range e.boundAMs() {
		if err := am.Start(e.AMEnv, e.log.Printf); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) attachWAL() {
	e.AMEnv.WAL = e.WAL
	e.Xact.SetWAL(e.WAL)
	e.Pool.FlushWAL = e.WAL.Flush
	e.Pool.FlushedWAL = func() page.LSN { return page.LSN(e.WAL.FlushedLSN()) }
}

func (e *Engine) initdb(walDir string, opts wal.Options) error {
	e.log.Printf("LOG:  initializing new data directory %q", e.cfg.DataDir)
	var err error
	e.WAL, err = wal.Open(walDir, wal.FirstLSN, 0, opts)
	if err != nil {
		return err
	}
	e.attachWAL()
	if err := e.startAMs(); err != nil {
		return err
	}
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	tx := &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: &xact.Snapshot{Xmin: xact.FirstNormalXid, Xmax: xact.FirstNormalXid}, Combo: &tableam.ComboCids{}}, U: &stats.Usage{}}
	if err := e.Catalog.Bootstrap(tx); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	e.control.SystemID = rand.Uint64()
	if err := e.Checkpoint(false); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(e.cfg.DataDir, VersionFile), []byte(fmt.Sprintf("%d\n", wal.ControlVersion)), 0o600); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(e.cfg.DataDir, "tidal.conf")); errors.Is(err, os.ErrNotExist) {
		os.WriteFile(filepath.Join(e.cfg.DataDir, "tidal.conf"), []byte(defaultConf), 0o600)
	}
	e.control.State = wal.StateProduction
	if err := wal.WriteControl(e.cfg.DataDir, e.control); err != nil {
		return err
	}
	e.log.Printf("LOG:  database system is ready to accept connections")
	return nil
}

const defaultConf = `# tidal configuration file (postgresql.conf syntax)
#shared_buffers = 128MB
#fsync = on
#synchronous_commit = on
#full_page_writes = on
#wal_compression = lz4		# off (PostgreSQL's default), pglz, lz4 or zstd
#checkpoint_timeout = 5min
#maintenance_work_mem = 64MB
`

// XLOG record kinds.
const (
	infoCheckpointShutdown uint8 = 0x00
	infoCheckpointOnline   uint8 = 0x10
)

func (e *Engine) registerRmgrs() {
	wal.Register(wal.RmXLOG, wal.Rmgr{Name: "XLOG", Redo: func(d *wal.Decoded) error {
		switch d.Info {
		case catalog.InfoNextOid:
			if len(d.Main) >= 4 {
				e.Catalog.AdvanceNextOid(binary.LittleEndian.Uint32(d.Main))
			}
		case infoCheckpointOnline, infoCheckpointShutdown:
			if len(d.Main) >= 16 {
				e.Xact.AdvanceNextXid(binary.LittleEndian.Uint32(d.Main[8:]) - 1)
				e.Catalog.AdvanceNextOid(binary.LittleEndian.Uint32(d.Main[12:]))
			}
			if len(d.Main) >= 24 {
				e.Xact.Multi().AdvanceNext(binary.LittleEndian.Uint32(d.Main[16:]), binary.LittleEndian.Uint32(d.Main[20:]))
			}
		}
		return nil
	}})
	wal.Register(wal.RmXact, wal.Rmgr{Name: "Transaction", Redo: func(d *wal.Decoded) error {
		e.Xact.RedoXact(d)
		if d.Info == xact.InfoCommit {
			for _, rel := range xact.DecodeRels(d.Main) {
				e.Pool.DropRelation(smgr.RelFileNumber(rel), 0, 0, true)
				if err := e.Smgr.Unlink(smgr.RelFileNumber(rel)); err != nil {
					return err
				}
			}
		}
		return nil
	}})
	wal.Register(wal.RmSmgr, wal.Rmgr{Name: "Storage", Redo: func(d *wal.Decoded) error {
		if d.Info == catalog.InfoSmgrCreate && len(d.Main) >= 4 {
			return e.Smgr.Create(smgr.RelFileNumber(binary.LittleEndian.Uint32(d.Main)), smgr.MainFork)
		}
		if d.Info == catalog.InfoSmgrTrunc && len(d.Main) >= 8 {
			rel := smgr.RelFileNumber(binary.LittleEndian.Uint32(d.Main))
			n := binary.LittleEndian.Uint32(d.Main[4:])
			e.Pool.DropRelation(rel, smgr.MainFork, n, true)
			for f := smgr.ForkNumber(0); f < smgr.NumForks; f++ {
				nb := n
				if f != smgr.MainFork {
					nb = 0
				}
				if e.Smgr.Exists(rel, f) {
					if err := e.Smgr.Truncate(rel, f, nb); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}})
	wal.Register(wal.RmMultiXact, wal.Rmgr{Name: "MultiXact", Redo: e.Xact.Multi().Redo})
	for _, am := range e.AMs.All() {
		for _, rm := range am.ResourceManagers() {
			wal.Register(rm.ID, rm.Rmgr)
		}
	}
	wal.Register(wal.RmBtree, btree.ResourceManager())
}

// Checkpoint writes every dirty buffer and a checkpoint record, then
// moves the control file's checkpoint pointer (CreateCheckPoint). It is
// immediate: a spread checkpoint in progress finishes at full speed first.
func (e *Engine) Checkpoint(shutdown bool) error {
	e.immediatePending.Add(1)
	defer e.immediatePending.Add(-1)
	return e.checkpoint(shutdown, ckptImmediate)
}

func (e *Engine) checkpoint(shutdown bool, cause ckptCause) error {
	e.ckptMu.Lock()
	defer e.ckptMu.Unlock()
	if err := e.fsyncFailed.Load(); err != nil {
		// The server has stopped (PANIC): no checkpoint may complete, or
		// recovery would skip the WAL whose pages never reached disk.
		return fmt.Errorf("checkpoint: %w", *err)
	}
	start := time.Now()
	switch {
	case cause == ckptTimed:
		e.writerStats.timed.Add(1)
	case !shutdown:
		e.writerStats.requested.Add(1)
	}
	e.Xact.BlockCommits()
	redo := e.WAL.BeginCheckpoint()
	bound := e.boundAMs()
	tokens := make([]uint64, len(bound))
	for i, am := range bound {
		tokens[i] = am.CheckpointBegin()
	}
	e.Xact.UnblockCommits()
	res, err := e.Pool.SyncBuffers(buffer.SyncOptions{Pace: e.pacer(cause, start, uint64(redo)), FlushAfter: e.cfg.Writer.CheckpointFlushAfter})
	e.writerStats.writeTimeMs.Add(res.WriteTime.Milliseconds())
	e.writerStats.syncTime.Add(res.SyncTime.Milliseconds())
	if errors.Is(err, smgr.ErrFsync) {
		// A failed fsync is never retried and forgotten: stop, and let
		// crash recovery redo everything from the last good checkpoint.
		e.fsyncFailed.Store(&err)
		e.panic(err)
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := e.Xact.CLOG().Flush(); err != nil {
		return fmt.Errorf("checkpoint: commit log: %w", err)
	}
	if err := e.Xact.Multi().Flush(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	info := infoCheckpointOnline
	if shutdown {
		info = infoCheckpointShutdown
	}
	nextMulti, nextMultiOff := e.Xact.Multi().Next()
	main := binary.LittleEndian.AppendUint64(nil, redo)
	main = binary.LittleEndian.AppendUint32(main, e.Xact.NextXid())
	main = binary.LittleEndian.AppendUint32(main, e.Catalog.NextOid())
	main = binary.LittleEndian.AppendUint32(main, nextMulti)
	main = binary.LittleEndian.AppendUint32(main, nextMultiOff)
	rec := wal.NewRecord(wal.RmXLOG, info, 0)
	rec.SetMain(main)
	pos, end, err := e.WAL.InsertRecord(nil, rec)
	if err != nil {
		return err
	}
	if err := e.WAL.Flush(end); err != nil {
		return err
	}
	e.control.Checkpoint = pos
	e.control.Redo = redo
	e.control.NextXid = e.Xact.NextXid()
	e.control.NextOid = e.Catalog.NextOid()
	e.control.NextMulti, e.control.NextMultiOffset = nextMulti, nextMultiOff
	e.control.OldestMulti = e.Xact.Multi().Oldest()
	e.control.Time = time.Now().Unix()
	if shutdown {
		e.control.State = wal.StateShutdown
	} else if e.control.State != wal.StateRecovery {
		e.control.State = wal.StateProduction
	}
	if err := wal.WriteControl(e.cfg.DataDir, e.control); err != nil {
		return err
	}
	for i, am := range bound {
		if err := am.CheckpointDone(tokens[i]); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	e.redoLSN.Store(uint64(redo))
	if err := e.removeOldWAL(redo, shutdown); err != nil {
		return err
	}
	e.truncateMultiXacts()
	e.log.Printf("LOG:  checkpoint complete: wrote %d buffers (%.1f%%); write=%.3f s, sync=%.3f s, total=%.3f s; writes=%d, writebacks=%d; lsn=%s, redo lsn=%s",
		res.Written, 100*float64(res.Written)/float64(e.Pool.NBuffers()), res.WriteTime.Seconds(), res.SyncTime.Seconds(),
		time.Since(start).Seconds(), res.Writes, res.Writebacks, wal.FormatLSN(pos), wal.FormatLSN(redo))
	return nil
}

// removeOldWAL retires the WAL segments before redo. Unlinking hundreds
// of 16 MiB files takes long and nothing waits for it, so after an online
// checkpoint it runs in the background (one removal at a time; a failure
// is logged and the next checkpoint removes them); a shutdown checkpoint
// removes them before it returns.
func (e *Engine) removeOldWAL(redo wal.LSN, shutdown bool) error {
	if shutdown {
		e.walRemoveWG.Wait()
		return e.WAL.RemoveSegmentsBefore(redo)
	}
	e.walRemoveWG.Add(1)
	go func() {
		defer e.walRemoveWG.Done()
		e.walRemoval.Lock()
		defer e.walRemoval.Unlock()
		if err := e.WAL.RemoveSegmentsBefore(redo); err != nil {
			e.log.Printf("LOG:  could not remove old WAL segments: %v", err)
		}
	}()
	return nil
}

// walWriter flushes the WAL every 200 ms (wal_writer_delay), so that
// asynchronous commits (synchronous_commit = off) become durable within a
// bounded time, as PostgreSQL's WAL writer does.
func (e *Engine) walWriter() {
	defer e.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	preallocFailing := false
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if err := e.WAL.Flush(e.WAL.InsertPos()); err != nil {
				e.log.Printf("ERROR:  WAL writer: %v", err)
				continue
			}
			e.Xact.ForgetFlushedAsync()
			// The next segment is made here, ahead of the commit that needs
			// it; a full disk is logged once per spell, not every tick.
			if _, err := e.WAL.Preallocate(); err != nil {
				if !preallocFailing {
					e.log.Printf("WARNING:  could not preallocate the next WAL segment: %v", err)
				}
				preallocFailing = true
			} else {
				preallocFailing = false
			}
		}
	}
}

// Close shuts down cleanly: a shutdown checkpoint, then files closed.
func (e *Engine) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	close(e.bgStop)
	e.background.Wait()
	close(e.stop)
	e.wg.Wait()
	err := e.Checkpoint(true)
	if err == nil {
		if serr := e.Stats.Save(e.cfg.DataDir); serr != nil {
			e.log.Printf("WARNING:  could not save statistics: %v", serr)
		}
	}
	e.walRemoveWG.Wait()
	e.WAL.Close()
	e.Smgr.Close()
	e.Pool.Discard()
	e.unlockDir()
	if err == nil {
		e.log.Printf("LOG:  database system is shut down")
	}
	return err
}

// Go runs f on the engine until Close: f must return soon after stop is
// closed, which Close does before its shutdown checkpoint (PostgreSQL's
// postmaster stops the autovacuum launcher and workers before the
// checkpointer writes the shutdown checkpoint).
func (e *Engine) Go(f func(stop <-chan struct{})) {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return
	}
	e.background.Add(1)
	go func() {
		defer e.background.Done()
		f(e.bgStop)
	}()
}

// Panic stops the server after an error that leaves shared state in doubt
// (PostgreSQL's PANIC: every backend ends, and the next start recovers).
func (e *Engine) Panic(err error) { e.panic(err) }

// panic stops the process after an error that leaves durability in doubt.
func (e *Engine) panic(err error) {
	e.log.Printf("PANIC:  %v", err)
	if e.cfg.OnPanic != nil {
		e.cfg.OnPanic(err)
		return
	}
	os.Exit(3)
}

// UpdateWrapLimit recomputes the transaction-id wraparound limits from
// the oldest relfrozenxid (at start-up and after every VACUUM).
func (e *Engine) UpdateWrapLimit() error {
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	tx := &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: e.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: &stats.Usage{}}
	defer e.Xact.ResetXmin(proc)
	oldest, err := e.Catalog.OldestFrozenXid(tx)
	if err != nil {
		return err
	}
	e.Xact.SetWrapLimit(oldest)
	oldestMulti, err := e.Catalog.OldestMinMxid(tx)
	if err != nil {
		return err
	}
	e.Xact.Multi().SetLimit(oldestMulti)
	e.oldestMinMxid.Store(oldestMulti)
	e.minMxidKnown.Store(true)
	return nil
}

// truncateMultiXacts forgets the multixacts that no tuple can name any
// more: older than every table's relminmxid (known since the last
// UpdateWrapLimit) and than every running transaction's horizon
// (PostgreSQL truncates them after VACUUM advanced datminmxid).
func (e *Engine) truncateMultiXacts() {
	if !e.minMxidKnown.Load() {
		return // before the catalog was read (start-up, recovery)
	}
	cutoff := e.Xact.OldestMulti()
	if m := e.oldestMinMxid.Load(); m != 0 && xact.MultiPrecedes(m, cutoff) {
		cutoff = m
	}
	if err := e.Xact.Multi().Truncate(cutoff); err != nil {
		e.log.Printf("WARNING:  %v", err)
	}
}

// DataDir is the data directory.
func (e *Engine) DataDir() string { return e.cfg.DataDir }
