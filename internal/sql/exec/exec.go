// Package exec is the executor: plan nodes that produce rows on demand
// (the volcano model), with PostgreSQL's instrumentation so EXPLAIN
// ANALYZE prints actual times, row counts and per-node buffer and WAL
// usage, and the planner that builds them from parse trees.
package exec

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// Row is one row flowing between nodes.
type Row = []types.Datum

// Column describes an output column.
type Column struct {
	Name  string
	Type  types.Type
	Table uint32 // source table OID for RowDescription, 0 if none
	Attr  int16
	// Dropped: a dropped table column's slot in a scan's rows (it takes
	// no width in EXPLAIN's estimates).
	Dropped bool
}

// Ctx is a statement's execution context.
type Ctx struct {
	Context context.Context
	Eng     *engine.Engine
	Tx      *catalog.Txn
	Env     *expr.Env
	// Notice sends a NOTICE/INFO/WARNING to the client.
	Notice func(*pgerr.Error)
	// Instrument turns on per-node timing and usage (EXPLAIN ANALYZE).
	Instrument bool
	Timing     bool
	// Settings reads a configuration parameter's current value.
	Setting func(name string) string
	// LockRel takes a heavyweight lock on a relation for the transaction.
	LockRel func(oid uint32, mode int) error
	// Seqs is the session's sequence state (currval, lastval, caches).
	Seqs *sequence.Session
	// Interrupts is the session's pending interrupt, which every loop
	// that can run long checks (checkCancel).
	Interrupts *interrupt.State
	// TempFiles is the session's temporary-file space, where sorts and
	// hashes past work_mem spill (nil: they stay in memory).
	TempFiles *tempfile.Space
	// BackendPID is the session's process ID (pg_backend_pid).
	BackendPID int32
	// Session answers questions about the session (cursors, settings);
	// nil outside one.
	Session SessionHooks
	// ParallelWorkerHook, if set, runs at the start of each parallel
	// worker (tests make one panic through it).
	ParallelWorkerHook func()

	// routine is the routine whose body this Ctx runs (nil for a
	// statement of the client's), routineDepth how many routine calls
	// enclose it (sqlfunc.go).
	routine      *routineFrame
	routineDepth int
	// vars are the variables of a procedural body (PL/pgSQL) whose
	// statement this Ctx plans and runs (plbody.go).
	vars ProcVars
	// routineLimit is maxRoutineDepth's answer, once asked (0: not yet).
	routineLimit, stackKB int
	// trigger is the trigger a trigger function is being called for;
	// transitions are the transition tables its body's statements read
	// (triggers.go).
	trigger     *TriggerData
	transitions map[string]*transitionTable
	// triggerDepth is how many trigger calls enclose this Ctx
	// (pg_trigger_depth).
	triggerDepth int
	// inlining are the functions being inlined (inline.go).
	inlining []uint32
	// parallelStop, in a parallel query's participant, is raised by the
	// leader to end it early (parallel.go).
	parallelStop *atomic.Bool
}

// CurrentUser is current_user: SET ROLE's role, else the session user.
func (c *Ctx) CurrentUser() string {
	if c.Setting == nil {
		return "postgres"
	}
	if r := c.Setting("role"); r != "" && r != "none" {
		return r
	}
	return c.Setting("session_authorization")
}

// U is the backend's usage counters.
func (c *Ctx) U() *stats.Usage { return c.Tx.U }

// checkCancel is CHECK_FOR_INTERRUPTS: the error the statement must end
// with if it was interrupted (statement_timeout, a cancel, a terminate,
// the client gone), else nil. It costs one atomic load.
func (c *Ctx) checkCancel() error {
	if c.parallelStop != nil && c.parallelStop.Load() {
		return errParallelStopped
	}
	return c.Interrupts.Check()
}

// Node is a plan node.
type Node interface {
	Open(c *Ctx) error
	// Next returns the next row, or nil at the end.
	Next(c *Ctx) (Row, error)
	Close(c *Ctx)
	Columns() []Column
	base() *nodeBase
}

// nodeBase carries instrumentation and EXPLAIN details common to nodes.
type nodeBase struct {
	instr Instr
}

func (b *nodeBase) base() *nodeBase { return b }

// Instr is a node's instrumentation (Instrumentation in PostgreSQL).
type Instr struct {
	Started   bool
	StartTime time.Time
	First     time.Duration // time to first row
	Total     time.Duration
	Rows      int64
	Loops     int64
	Usage     stats.Usage
	Filtered  int64 // Rows Removed by Filter

	running   bool
	startU    stats.Usage
	sawFirst  bool
	loopStart time.Time
}

func (in *Instr) start(c *Ctx) {
	if !c.Instrument {
		return
	}
	in.startU = *c.U()
	if c.Timing {
		in.loopStart = time.Now()
	}
}

func (in *Instr) stop(c *Ctx, gotRow bool) {
	if !c.Instrument {
		return
	}
	in.Usage.Add(c.U().Sub(in.startU))
	if c.Timing {
		d := time.Since(in.loopStart)
		in.Total += d
		if !in.sawFirst && gotRow {
			in.First = in.Total
			in.sawFirst = true
		}
	}
	if gotRow {
		in.Rows++
	}
}

// Open, Next and Close wrap a node's methods with instrumentation.
func Open(c *Ctx, n Node) error {
	in := &n.base().instr
	in.Loops++
	in.start(c)
	err := n.Open(c)
	in.stop(c, false)
	return err
}

func Next(c *Ctx, n Node) (Row, error) {
	if err := c.checkCancel(); err != nil {
		return nil, err
	}
	in := &n.base().instr
	in.start(c)
	r, err := n.Next(c)
	in.stop(c, r != nil)
	return r, err
}

func Close(c *Ctx, n Node) {
	in := &n.base().instr
	in.start(c)
	n.Close(c)
	in.stop(c, false)
	if !in.sawFirst && c.Instrument {
		in.First = in.Total
	}
}

// Run executes a plan to completion, calling emit for each row.
func Run(c *Ctx, n Node, emit func(Row) error) error {
	if c.Env != nil && c.Env.Exec == nil {
		c.Env.Exec = c
	}
	if err := Open(c, n); err != nil {
		Close(c, n)
		return err
	}
	defer Close(c, n)
	for {
		if err := c.checkCancel(); err != nil {
			return err
		}
		r, err := Next(c, n)
		if err != nil {
			return err
		}
		if r == nil {
			return nil
		}
		if emit != nil {
			if err := emit(r); err != nil {
				return err
			}
		}
	}
}
