package session

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/autovacuum"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/vacuum"
	"github.com/tidal-db/tidal/internal/xact"
)

// StartAutovacuum starts eng's autovacuum launcher; its workers are
// sessions of their own on conf (the server's configuration), registered
// as backend_type "autovacuum worker".
func StartAutovacuum(eng *engine.Engine, conf map[string]string) {
	autovacuum.Start(eng, conf, func() autovacuum.Worker { return newAutovacuumWorker(eng, conf) })
}

// autovacuumState is an autovacuum worker session's: yielded is set when
// a conflicting lock request cancelled its task.
type autovacuumState struct {
	yielded atomic.Bool
}

type autovacuumWorker struct{ s *Session }

func newAutovacuumWorker(eng *engine.Engine, conf map[string]string) *autovacuumWorker {
	// Like PostgreSQL's autovacuum workers, no statement or lock timeout
	// from the configuration applies.
	settings := map[string]string{"statement_timeout": "0", "lock_timeout": "0", "idle_in_transaction_session_timeout": "0"}
	s := &Session{eng: eng, proc: eng.Xact.NewProc(), settings: settings, conf: conf, autovacuum: &autovacuumState{}}
	s.syncWALCompression()
	s.syncIOSettings()
	s.SetBackendType(stats.AutovacuumWorker)
	s.sig.backend = eng.Backends.RegisterType(eng.Backends.NewPID(), catalog.BootstrapSuperuserID, "autovacuum worker", s.signal)
	return &autovacuumWorker{s: s}
}

func (w *autovacuumWorker) Close() { w.s.Close() }

// Run vacuums and/or analyzes one table, each in a transaction of its
// own, as PostgreSQL's autovacuum_do_vac_analyze.
func (w *autovacuumWorker) Run(ctx context.Context, t autovacuum.Task) error {
	s := w.s
	if t.DoVacuum {
		if err := s.autovacuumStep(ctx, t, s.autovacuumRel); err != nil {
			return err
		}
	}
	if t.DoAnalyze {
		return s.autovacuumStep(ctx, t, s.autoanalyzeRel)
	}
	return nil
}

// autovacuumStep runs step in a transaction, interruptible like a
// statement (pg_cancel_backend, a conflicting lock request, shutdown).
func (s *Session) autovacuumStep(ctx context.Context, t autovacuum.Task, step func(ctx context.Context, t autovacuum.Task) error) error {
	s.autovacuum.yielded.Store(false)
	s.begin()
	ctx, end := s.statementContext(ctx)
	err := s.interruptedError(ctx, s.recovering(func() error { return step(ctx, t) }))
	end()
	s.proc.SetYield(nil)
	if err != nil {
		s.abort()
		if s.autovacuum.yielded.Load() && pgerr.Code(err) == pgerr.QueryCanceled {
			return pgerr.Errorf(pgerr.QueryCanceled, "canceling autovacuum task")
		}
		return err
	}
	s.eng.Xact.ResetXmin(s.proc)
	return s.commit()
}

// openForAutovacuum takes the table's lock without waiting (PostgreSQL's
// autovacuum uses SKIP_LOCKED) and opens it; nil if it is locked or gone.
func (s *Session) openForAutovacuum(ctx context.Context, t autovacuum.Task, what string, logMin int) (*catalog.Relation, error) {
	if err := s.statementSnapshot(); err != nil {
		return nil, err
	}
	if err := s.eng.Xact.Lock(ctx, s.proc, xact.RelationTag(t.RelOID), xact.ShareUpdateExclusiveLock, true); err != nil {
		if pgerr.Code(err) == pgerr.LockNotAvailable {
			if logMin >= 0 {
				s.eng.Logf("LOG:  skipping %s of \"%s\" --- lock not available", what, t.Relation)
			}
			return nil, nil
		}
		return nil, err
	}
	rel, err := s.eng.Catalog.ByOID(&s.ctx, t.RelOID)
	if err != nil || rel == nil || rel.Kind != catalog.KindTable {
		return nil, nil // dropped meanwhile
	}
	return rel, nil
}

func (s *Session) autovacuumRel(ctx context.Context, t autovacuum.Task) error {
	logMin := s.autovacuumLogMin(nil)
	rel, err := s.openForAutovacuum(ctx, t, "vacuum", logMin)
	if rel == nil || err != nil {
		return err
	}
	logMin = s.autovacuumLogMin(rel.Options)
	if !t.Wraparound {
		// A conflicting lock request that waited deadlock_timeout
		// cancels this task (not an anti-wraparound one), as
		// PostgreSQL's deadlock checker does.
		pid := s.BackendPID()
		s.proc.SetYield(func(tag xact.LockTag, mode xact.LockMode) {
			s.eng.Logf("LOG:  sending cancel to blocking autovacuum PID %d\n\tDETAIL:  A request for %s on relation %d waits for it.", pid, mode, tag.A)
			s.autovacuum.yielded.Store(true)
			s.signal(interrupt.QueryCancel)
		})
	}
	o := s.autovacuumOptions(rel, t)
	c := s.newCtx(ctx, discardWriter{})
	rep, err := vacuum.Vacuum(ctx, s.eng.Catalog, c.Tx, rel, o)
	if err != nil {
		return err
	}
	now := time.Now()
	s.eng.Stats.Vacuumed(rel.OID, true, rep.TuplesRemain, rep.TuplesRecentlyDead, now)
	if rep.WorkersPlannedTotal > 0 {
		s.eng.Stats.ParallelWorkers(rel.OID, rep.WorkersPlannedTotal, rep.WorkersLaunchedTotal)
	}
	s.eng.Catalog.Invalidate()
	if err := s.eng.UpdateWrapLimit(); err != nil {
		return err
	}
	if rep.WorkersLaunchedTotal < rep.WorkersPlannedTotal {
		s.eng.Logf("WARNING:  autovacuum of table \"postgres.%s.%s\": %d parallel index vacuum workers planned, %d launched: %s",
			t.Schema, rel.Name, rep.WorkersPlannedTotal, rep.WorkersLaunchedTotal, rep.ShortReason)
	}
	if logMin >= 0 && rep.Elapsed >= time.Duration(logMin)*time.Millisecond {
		s.eng.Logf("LOG:  %s", strings.ReplaceAll(rep.LogEntry("postgres", t.Schema, t.Wraparound), "\n", "\n\t"))
	}
	return nil
}

func (s *Session) autoanalyzeRel(ctx context.Context, t autovacuum.Task) error {
	logMin := s.autovacuumLogMin(nil)
	rel, err := s.openForAutovacuum(ctx, t, "analyze", logMin)
	if rel == nil || err != nil {
		return err
	}
	logMin = s.autovacuumLogMin(rel.Options)
	runtime.LockOSThread() // its CPU time is then its own thread's
	defer runtime.UnlockOSThread()
	user0, sys0 := vacuum.ThreadRusage()
	start, u0 := time.Now(), s.usage
	c := s.newCtx(ctx, discardWriter{})
	if err := s.analyzeRel(c, rel); err != nil {
		return err
	}
	s.eng.Catalog.Invalidate()
	elapsed := time.Since(start)
	if logMin >= 0 && elapsed >= time.Duration(logMin)*time.Millisecond {
		u := s.usage.Sub(u0)
		user1, sys1 := vacuum.ThreadRusage()
		secs := max(elapsed.Seconds(), 1e-9)
		s.eng.Logf("LOG:  automatic analyze of table \"postgres.%s.%s\"\n\tavg read rate: %.3f MB/s, avg write rate: %.3f MB/s\n\tbuffer usage: %d hits, %d misses, %d dirtied\n\tWAL usage: %d records, %d full page images, %d bytes\n\tsystem usage: CPU: user: %.2f s, system: %.2f s, elapsed: %.2f s",
			t.Schema, rel.Name, float64(u.Buf.SharedRead)*8192/(1<<20)/secs, float64(u.Buf.SharedDirtied)*8192/(1<<20)/secs,
			u.Buf.SharedHit, u.Buf.SharedRead, u.Buf.SharedDirtied, u.WAL.Records, u.WAL.FPI, u.WAL.Bytes,
			(user1 - user0).Seconds(), (sys1 - sys0).Seconds(), elapsed.Seconds())
	}
	return nil
}

// autovacuumLogMin is log_autovacuum_min_duration in ms (-1: off), the
// table's reloption over the setting.
func (s *Session) autovacuumLogMin(opts map[string]string) int {
	n, _ := strconv.Atoi(s.Setting("log_autovacuum_min_duration"))
	return autovacuum.OptInt(opts, "log_autovacuum_min_duration", n)
}

// autovacuumOptions are VACUUM's options for an autovacuum of rel:
// autovacuum_work_mem, the autovacuum cost delay and limit, the table's
// reloptions, PostgreSQL 19's parallel workers.
func (s *Session) autovacuumOptions(rel *catalog.Relation, t autovacuum.Task) vacuum.Options {
	o := vacuum.Options{IndexCleanup: "auto", Truncate: true, Autovacuum: true, Aggressive: t.Wraparound}
	s.vacuumSettings(&o, false)
	if kb, _ := strconv.ParseInt(s.Setting("autovacuum_work_mem"), 10, 64); kb > 0 {
		o.MaintenanceWorkMem = kb * 1024
	}
	o.Parallel = autovacuum.OptInt(rel.Options, "autovacuum_parallel_workers", -1)
	o.AutovacuumMaxParallelWorkers = int(s.intSetting("autovacuum_max_parallel_workers"))
	delay := guc.Float(s.Setting("autovacuum_vacuum_cost_delay"))
	if delay < 0 {
		delay = guc.Float(s.Setting("vacuum_cost_delay"))
	}
	if v, ok := rel.Options["autovacuum_vacuum_cost_delay"]; ok {
		delay = guc.Float(v)
	}
	limit := int(s.intSetting("autovacuum_vacuum_cost_limit"))
	if limit <= 0 {
		limit = int(s.intSetting("vacuum_cost_limit"))
	}
	limit = autovacuum.OptInt(rel.Options, "autovacuum_vacuum_cost_limit", limit)
	o.Cost.Delay = time.Duration(delay * float64(time.Millisecond))
	o.Cost.Limit = limit
	if v, ok := rel.Options["autovacuum_freeze_min_age"]; ok {
		n, _ := strconv.ParseUint(v, 10, 32)
		o.FreezeMinAge = uint32(n)
	}
	return o
}

// vacuumSettings fills the options VACUUM takes from settings.
func (s *Session) vacuumSettings(o *vacuum.Options, ringSet bool) {
	if !ringSet {
		kb, _ := strconv.Atoi(s.Setting("vacuum_buffer_usage_limit"))
		o.RingBytes = kb * 1024
	}
	mwm, _ := strconv.ParseInt(s.Setting("maintenance_work_mem"), 10, 64)
	o.MaintenanceWorkMem = mwm * 1024
	o.StoreKind = s.Setting("vacuum_dead_tid_store")
	o.MaxParallelMaintenanceWorkers = int(s.intSetting("max_parallel_maintenance_workers"))
	o.MaxParallelWorkers = int(s.intSetting("max_parallel_workers"))
	fma, _ := strconv.ParseUint(s.Setting("vacuum_freeze_min_age"), 10, 32)
	o.FreezeMinAge = uint32(fma)
	mfma, _ := strconv.ParseUint(s.Setting("vacuum_multixact_freeze_min_age"), 10, 32)
	o.MultiFreezeMinAge = uint32(mfma)
	mfta, _ := strconv.ParseUint(s.Setting("vacuum_multixact_freeze_table_age"), 10, 32)
	o.MultiFreezeTableAge = uint32(mfta)
	o.PID = int(s.BackendPID())
	o.Progress = s.eng.Vacuums
	o.Cost = vacuum.CostParams{
		Delay:     time.Duration(guc.Float(s.Setting("vacuum_cost_delay")) * float64(time.Millisecond)),
		Limit:     int(s.intSetting("vacuum_cost_limit")),
		PageHit:   int(s.intSetting("vacuum_cost_page_hit")),
		PageMiss:  int(s.intSetting("vacuum_cost_page_miss")),
		PageDirty: int(s.intSetting("vacuum_cost_page_dirty")),
	}
}
