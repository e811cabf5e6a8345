package exec

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/crit"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/stats"
)

// Gather runs its subplan in parallel: in up to Planned workers drawn from
// the engine's max_parallel_workers pool, and in the leader's own
// participant (parallel_leader_participation), each a goroutine with a
// fresh copy of the subplan (cloneParallelNode) whose Parallel Seq Scan
// claims chunks of the table's blocks from one shared tableam.ParallelScan.
// Each participant reads under its own copy of the leader's snapshot and
// counts buffer usage of its own, added to the leader's as it finishes,
// as are its plan nodes' instrumentation (EXPLAIN ANALYZE's loops=3).
//
// Invariants: the pool slots taken at Open are released exactly once, as
// each worker ends; Close (after an error, or a LIMIT above that stopped
// early) stops the participants and waits for all of them, so no goroutine
// outlives the statement; the first participant error is the statement's.
type Gather struct {
	nodeBase
	// Input is the subplan as EXPLAIN shows it; participants run copies.
	Input   Node
	Planned int
	// Launched: workers started at the last Open (EXPLAIN ANALYZE).
	Launched int
	// scan is the Parallel Seq Scan inside Input.
	scan *SeqScan
	// setupCost, tupleCost: parallel_setup_cost and parallel_tuple_cost
	// when planned (EXPLAIN's estimate).
	setupCost, tupleCost float64

	run *gatherRun
	// partial is the participant group of the row Next returned last,
	// when Input is a Partial Agg (the Finalize Agg combines it).
	partial *aggGroup
}

// gatherRun is one execution's participants and what they sent.
type gatherRun struct {
	msgs     chan gatherMsg
	stop     atomic.Bool
	active   int // participants that have not sent their last message
	slots    int // pool slots still held
	rows     []Row
	groups   []*aggGroup
	err      error
	finished bool
}

// gatherMsg is a batch of a participant's output, or its end.
type gatherMsg struct {
	rows   []Row
	groups []*aggGroup
	done   *participant
	err    error
}

// participant is one copy of the subplan and the context it runs in.
type participant struct {
	node   Node
	c      *Ctx
	usage  stats.Usage
	worker bool // holds a pool slot (the leader's participant does not)
}

// errParallelStopped ends a participant the leader told to stop.
var errParallelStopped = errors.New("parallel query stopped")

// gatherBatch is how many rows a participant sends at once.
const gatherBatch = 256

func (g *Gather) Columns() []Column { return g.Input.Columns() }

func (g *Gather) Open(c *Ctx) error {
	g.closeRun(c)
	ps, err := g.scan.Rel.Table.(tableam.ParallelScanner).ParallelScanInit()
	if err != nil {
		return err
	}
	g.scan.par = ps
	want := g.Planned
	maxWorkers := settingInt(c, "max_parallel_workers", 8)
	g.Launched = c.Eng.AMEnv.Workers.Acquire(want, maxWorkers)
	run := &gatherRun{slots: g.Launched}
	g.run = run
	n := g.Launched
	if g.Launched == 0 || settingBool(c, "parallel_leader_participation", true) {
		n++ // the leader runs the plan too (always, when no worker came)
	}
	parts := make([]*participant, 0, n)
	for i := 0; i < n; i++ {
		node, ok := cloneParallelNode(g.Input)
		if !ok {
			c.Eng.AMEnv.Workers.Release(run.slots)
			run.slots, run.finished = 0, true
			return pgerr.Errorf(pgerr.InternalError, "parallel plan holds a node a worker cannot run")
		}
		parts = append(parts, &participant{node: node, c: workerCtx(c, &run.stop), worker: i < g.Launched})
	}
	for _, p := range parts {
		p.c.Tx.U = &p.usage
		// Read-ahead settings are the leader's; pg_stat_io counts a
		// worker's I/O as a background worker's.
		p.usage.IO, p.usage.Backend = c.Tx.U.IO, c.Tx.U.Backend
		if p.worker {
			p.usage.Backend = stats.BackgroundWorker
		}
		p.usage.WALCompression = c.U().WALCompression
	}
	run.msgs = make(chan gatherMsg, 4*n)
	run.active = n
	for _, p := range parts {
		go runParticipant(p, run)
	}
	return nil
}

// workerCtx is the context a participant runs in: the leader's statement
// with a transaction view of its own (a copy of the snapshot, its own
// usage counters) and an expression environment of its own.
func workerCtx(c *Ctx, stop *atomic.Bool) *Ctx {
	wc := *c
	tx := *c.Tx
	heap := *c.Tx.Heap
	if heap.Snap != nil {
		snap := *heap.Snap
		heap.Snap = &snap
	}
	tx.Heap = &heap
	wc.Tx = &tx
	if c.Env != nil {
		env := *c.Env
		env.Exec = &wc
		env.Outer = nil
		wc.Env = &env
	}
	wc.Notice = nil
	wc.LockRel = nil
	wc.parallelStop = stop
	return &wc
}

// parallelWorkerRecoverer is the function whose deferred call recovers a
// participant's panic (crit.Recoverable's stopping point).
const parallelWorkerRecoverer = "github.com/tidal-db/tidal/internal/sql/exec.runParticipant"

// runParticipant runs one participant to its end, sending its output in
// batches and then its end, with the error that ended it. A panic becomes
// an XX000 error as in a backend, or stops the server when it may have left
// a page or storage lock held.
func runParticipant(p *participant, run *gatherRun) {
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = participantPanic(p.c, r, parallelWorkerRecoverer)
		}
		run.msgs <- gatherMsg{done: p, err: err}
	}()
	err = participantRun(p, run)
}

func participantPanic(c *Ctx, r any, recoverer string) error {
	pcs := make([]uintptr, 256)
	pcs = pcs[:runtime.Callers(1, pcs)]
	msg := fmt.Sprint(r)
	c.Eng.Logf("[%d] LOG:  parallel worker of process %d panicked: %v\n%s", c.BackendPID, c.BackendPID, r, debug.Stack())
	if ok, where := crit.Recoverable(pcs, recoverer); !ok {
		c.Eng.Panic(fmt.Errorf("a panic in %s may have left shared buffers or locks held: %s", where, msg))
		return &pgerr.Error{Severity: pgerr.SevPanic, Code: pgerr.InternalError, Message: msg}
	}
	return pgerr.Errorf(pgerr.InternalError, "%s", msg)
}

func participantRun(p *participant, run *gatherRun) error {
	c := p.c
	if p.worker && c.ParallelWorkerHook != nil {
		c.ParallelWorkerHook()
	}
	defer Close(c, p.node)
	if err := Open(c, p.node); err != nil {
		return err
	}
	var batch []Row
	for {
		r, err := Next(c, p.node)
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		if agg, ok := p.node.(*Agg); ok && agg.split == aggPartial {
			continue // the groups go at the end, states and all
		}
		batch = append(batch, r)
		if len(batch) == gatherBatch {
			run.msgs <- gatherMsg{rows: batch}
			batch = nil
		}
	}
	if agg, ok := p.node.(*Agg); ok && agg.split == aggPartial {
		run.msgs <- gatherMsg{groups: agg.partials}
	} else if len(batch) > 0 {
		run.msgs <- gatherMsg{rows: batch}
	}
	return nil
}

func (g *Gather) Next(c *Ctx) (Row, error) {
	run := g.run
	for {
		if len(run.groups) > 0 {
			g.partial = run.groups[0]
			run.groups = run.groups[1:]
			return append(append(Row{}, g.partial.keys...), make(Row, len(g.Columns())-len(g.partial.keys))...), nil
		}
		if len(run.rows) > 0 {
			r := run.rows[0]
			run.rows = run.rows[1:]
			return r, nil
		}
		if run.active == 0 {
			g.finish(c)
			return nil, run.err
		}
		g.receive(c, <-run.msgs)
		if run.err != nil {
			g.finish(c)
			return nil, run.err
		}
	}
}

// receive takes in one participant message.
func (g *Gather) receive(c *Ctx, m gatherMsg) {
	run := g.run
	run.rows = append(run.rows, m.rows...)
	run.groups = append(run.groups, m.groups...)
	p := m.done
	if p == nil {
		return
	}
	run.active--
	if p.worker {
		c.Eng.AMEnv.Workers.Release(1)
		run.slots--
	}
	c.U().Add(p.usage)
	if c.Instrument {
		mergeInstr(g.Input, p.node)
	}
	if m.err != nil && !errors.Is(m.err, errParallelStopped) && run.err == nil {
		run.err = m.err
		run.stop.Store(true)
	}
}

// finish stops the participants still running and waits for them.
func (g *Gather) finish(c *Ctx) {
	run := g.run
	if run == nil || run.finished {
		return
	}
	run.stop.Store(true)
	for run.active > 0 {
		g.receive(c, <-run.msgs)
	}
	run.rows, run.groups, run.finished = nil, nil, true
	if run.slots != 0 {
		panic("parallel: gather finished holding pool slots")
	}
}

func (g *Gather) closeRun(c *Ctx) {
	if g.run != nil {
		g.finish(c)
	}
}

func (g *Gather) Close(c *Ctx) { g.closeRun(c) }

// cloneParallelNode copies a subplan for one participant: the node kinds
// a Gather may hold, with expressions of their own; false otherwise.
func cloneParallelNode(n Node) (Node, bool) {
	switch x := n.(type) {
	case *SeqScan:
		return x.cloneForWorker()
	case *Agg:
		if x.split != aggPartial {
			return nil, false
		}
		return x.cloneForWorker()
	}
	return nil, false
}

// mergeInstr adds a participant copy's instrumentation to the plan's node,
// pairwise down the two trees (PostgreSQL's InstrAggNode).
func mergeInstr(dst, src Node) {
	d, s := &dst.base().instr, &src.base().instr
	d.Loops += s.Loops
	d.Rows += s.Rows
	d.First += s.First
	d.Total += s.Total
	d.Filtered += s.Filtered
	d.Usage.Add(s.Usage)
	switch x := dst.(type) {
	case *Agg:
		mergeInstr(x.Input, src.(*Agg).Input)
	}
}

// cloneForWorker is a fresh scan of the same parallel scan, with its qual
// copied; false if the qual is not parallel safe.
func (s *SeqScan) cloneForWorker() (Node, bool) {
	if s.WithTID || len(s.Sys) > 0 || !s.Parallel {
		return nil, false
	}
	cp := &SeqScan{Rel: s.Rel, Alias: s.Alias, Parallel: true, par: s.par, reuseRow: s.reuseRow, leadAttrs: s.leadAttrs}
	if s.Qual != nil {
		q, ok := expr.CloneForWorker(s.Qual)
		if !ok {
			return nil, false
		}
		cp.Qual = q
	}
	return cp, true
}

// estimateGather is cost_gather: the subplan's cost, parallel_setup_cost,
// and parallel_tuple_cost for each row the workers pass up.
func (e *explainer) estimateGather(g *Gather) estimate {
	in := e.estimate(g.Input)
	rows := in.rows * float64(g.Planned)
	if _, ok := g.Input.(*Agg); !ok {
		rows = in.rows * g.scan.parallelDiv
	}
	setup := g.setupCost
	return estimate{in.startup + setup, in.total + setup + g.tupleCost*rows, math.Max(1, math.Round(rows)), in.width}
}
