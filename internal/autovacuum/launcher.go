package autovacuum

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/interrupt"
)

// Task is one table's autovacuum, as a worker runs it.
type Task struct {
	RelOID   uint32
	Relation string
	Schema   string
	Decision
}

// Worker runs tasks: an autovacuum worker backend (a session of its own,
// registered as backend_type "autovacuum worker").
type Worker interface {
	Run(ctx context.Context, t Task) error
	Close()
}

// Launcher is one engine's autovacuum launcher: every autovacuum_naptime
// (the first one after start-up) it starts a worker, if fewer than autovacuum_max_workers run. A worker
// takes the work list at its start (tables above their thresholds, by
// descending score), and vacuums them one after the other, skipping a
// table another worker has in hand and re-checking each one's need just
// before it starts on it (PostgreSQL's do_autovacuum and
// table_recheck_autovac).
type Launcher struct {
	eng       *engine.Engine
	conf      map[string]string
	newWorker func() Worker

	mu      sync.Mutex
	running int
	inHand  map[uint32]bool
	wg      sync.WaitGroup
}

// Start runs the launcher on eng until the engine closes. conf is the
// server's configuration (tidal.conf and command line); newWorker makes a
// worker backend.
func Start(eng *engine.Engine, conf map[string]string, newWorker func() Worker) {
	l := &Launcher{eng: eng, conf: conf, newWorker: newWorker, inHand: map[uint32]bool{}}
	eng.Go(l.run)
}

// Setting is a server setting's raw value: the configuration's, else the
// default.
func Setting(conf map[string]string, name string) string {
	d, err := guc.Lookup(name)
	if err != nil {
		return ""
	}
	if v, ok := conf[name]; ok {
		if nv, err := d.Normalize(v); err == nil {
			return nv
		}
	}
	return d.Default
}

func (l *Launcher) setting(name string) string { return Setting(l.conf, name) }

func (l *Launcher) run(stop <-chan struct{}) {
	b := l.eng.Backends.RegisterType(l.eng.Backends.NewPID(), catalog.BootstrapSuperuserID, "autovacuum launcher", func(interrupt.Reason) {})
	defer l.eng.Backends.Unregister(b)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer l.wg.Wait()
	defer cancel(interrupt.Terminate)
	go func() {
		<-stop
		cancel(interrupt.Terminate)
	}()
	// The first worker starts one naptime after start-up, as PostgreSQL
	// schedules its database's first visit within autovacuum_naptime.
	for {
		naptime, _ := strconv.Atoi(l.setting("autovacuum_naptime"))
		t := time.NewTimer(time.Duration(naptime) * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		l.maybeStartWorker(ctx)
	}
}

func (l *Launcher) maybeStartWorker(ctx context.Context) {
	maxWorkers, _ := strconv.Atoi(l.setting("autovacuum_max_workers"))
	l.mu.Lock()
	if l.running >= maxWorkers {
		l.mu.Unlock()
		return
	}
	l.running++
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() {
			l.mu.Lock()
			l.running--
			l.mu.Unlock()
		}()
		l.work(ctx)
	}()
}

// work is one worker's pass over the work list.
func (l *Launcher) work(ctx context.Context) {
	list, err := l.workList()
	if err != nil {
		l.eng.Logf("ERROR:  autovacuum: could not build the work list: %v", err)
		return
	}
	if len(list) == 0 {
		return
	}
	w := l.newWorker()
	defer w.Close()
	for _, c := range list {
		if ctx.Err() != nil {
			return
		}
		if !l.take(c.Rel.OID) {
			continue
		}
		l.runOne(ctx, w, c)
		l.release(c.Rel.OID)
	}
}

// runOne re-checks a table's need and runs its task; an error is logged
// and the worker goes on with the next table, as PostgreSQL's worker does.
func (l *Launcher) runOne(ctx context.Context, w Worker, c Candidate) {
	fresh, ok := l.recheck(c.Rel.OID)
	if !ok || !(fresh.DoVacuum || fresh.DoAnalyze) {
		return
	}
	t := Task{RelOID: c.Rel.OID, Relation: fresh.Rel.Name, Schema: fresh.Schema, Decision: fresh.Decision}
	if err := w.Run(ctx, t); err != nil && ctx.Err() == nil {
		what := "vacuum"
		if !t.DoVacuum {
			what = "analyze"
		}
		l.eng.Logf("ERROR:  %v\n\tCONTEXT:  automatic %s of table \"postgres.%s.%s\"", err, what, t.Schema, t.Relation)
	}
}

func (l *Launcher) workList() ([]Candidate, error) {
	all, err := l.evaluate()
	if err != nil {
		return nil, err
	}
	return WorkList(all), nil
}

func (l *Launcher) evaluate() ([]Candidate, error) {
	tx, done := readTxn(l.eng.Xact)
	defer done()
	return Evaluated(l.eng.Catalog, tx, l.eng.Stats, ReadSettings(l.setting))
}

// recheck evaluates one table again with current counters (it may have
// been vacuumed, dropped or changed since the list was made).
func (l *Launcher) recheck(oid uint32) (Candidate, bool) {
	tx, done := readTxn(l.eng.Xact)
	defer done()
	c, ok, err := evaluateOne(l.eng.Catalog, tx, l.eng.Stats, ReadSettings(l.setting), oid)
	return c, ok && err == nil
}

func (l *Launcher) take(oid uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inHand[oid] {
		return false
	}
	l.inHand[oid] = true
	return true
}

func (l *Launcher) release(oid uint32) {
	l.mu.Lock()
	delete(l.inHand, oid)
	l.mu.Unlock()
}
