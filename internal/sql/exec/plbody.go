package exec

// What a procedural language (internal/sql/plpgsql) needs of the
// executor to run the statements and expressions of a body: a Ctx whose
// planning resolves the body's variable names, the snapshot and command
// counter rules of routine bodies (shared with LANGUAGE sql), and
// subtransactions for exception blocks.

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// ProcVars resolves, while a body's statement is planned, a name that no
// column matched (qual is "" or the qualifier of a two-part name) to the
// expression standing for a variable — a Param read from Env.Params when
// the statement runs — or nil when the body has no such variable.
type ProcVars interface {
	Var(qual, name string) (expr.Expr, error)
	// Has reports whether the name is a variable, without using it.
	Has(qual, name string) bool
	// Conflict is plpgsql.variable_conflict: "error", "use_variable"
	// or "use_column".
	Conflict() string
}

// resolveWithVars resolves a column reference in a body's statement
// where a variable may have the same name: an error (42702) by default,
// as PostgreSQL's plpgsql.variable_conflict = error, else the variable or
// the column as the setting says.
func (p *Planner) resolveWithVars(s *scope, qual, name string, loc int32) (expr.Expr, error) {
	vars := p.C.vars
	if !vars.Has(qual, name) {
		return resolveChain(s, qual, name)
	}
	switch vars.Conflict() {
	case "use_variable":
		return vars.Var(qual, name)
	case "use_column":
		return resolveChain(s, qual, name)
	}
	col, err := resolveChain(s, qual, name)
	if err != nil {
		return vars.Var(qual, name)
	}
	if _, isColumn := col.(*expr.Param); isColumn {
		return col, nil // no column: it was the variable
	}
	ref := name
	if qual != "" {
		ref = qual + "." + name
	}
	e := pgerr.Errorf(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", ref).
		WithDetail("It could refer to either a PL/pgSQL variable or a table column.")
	e.Position = loc + 1
	return nil, e
}

// SubTransactions is what a body's exception block needs of the
// session: a subtransaction begun by begin, ended by end(commit) —
// committed into the enclosing level, or rolled back with everything it
// did (rows, locks, catalog changes, settings, cursors).
type SubTransactions interface {
	BeginSubTransaction() (end func(commit bool))
}

// RoutineCaches is where a language keeps what it compiled of a
// routine for the session's later calls, as PostgreSQL keeps compiled
// PL/pgSQL functions per backend. Entries are the language's to check
// against the catalog version.
type RoutineCaches interface {
	RoutineCache() map[string]any
}

// BodyCtx is the Ctx a procedural body's statements run in: the
// caller's transaction and session, vars resolving the body's names,
// one routine level deeper than c. Env.Params is set per statement.
func (c *Ctx) BodyCtx(vars ProcVars) *Ctx {
	fc := *c
	env := *c.Env
	env.Params = nil
	env.Outer = nil
	env.Exec = &fc
	fc.Env = &env
	fc.Instrument, fc.Timing = false, false
	fc.routineDepth = c.routineDepth + 1
	fc.routine = nil
	fc.vars = vars
	fc.transitions, fc.trigger = c.TransitionTables(), nil
	env.Catalog = fc.CatalogFuncs()
	return &fc
}

// WithParams is a copy of c whose statements read params as $n: one
// statement's parameter values, which later statements of the body must
// not change under it (a FOR loop's query keeps running meanwhile).
func (c *Ctx) WithParams(params []types.Datum) *Ctx {
	fc := *c
	env := *c.Env
	env.Params = params
	env.Exec = &fc
	fc.Env = &env
	return &fc
}

// WithoutVars is c planning dynamic SQL (EXECUTE): the body's variable
// names mean nothing there, only $n of USING.
func (c *Ctx) WithoutVars() *Ctx {
	fc := *c
	env := *c.Env
	env.Exec = &fc
	fc.Env = &env
	fc.vars = nil
	return &fc
}

// CheckRoutineDepth is 54001 "stack depth limit exceeded" when a call
// from c would nest deeper than max_stack_depth allows.
func (c *Ctx) CheckRoutineDepth() error {
	if limit, kb := c.maxRoutineDepth(); c.routineDepth >= limit {
		return stackDepthError(kb)
	}
	return c.checkCancel()
}

// CheckCancel is the interrupt check every loop of a body makes
// (statement_timeout, CancelRequest).
func (c *Ctx) CheckCancel() error { return c.checkCancel() }

// CompileExpr compiles an expression of a body (no FROM: only the
// body's variables and $n are names).
func (p *Planner) CompileExpr(n *pg.Node) (expr.Expr, error) {
	return p.compiler(nil).Compile(n)
}

// PlanBodyStatement plans a SELECT, INSERT, UPDATE or DELETE of a body:
// the plan, its result columns, whether it changes data.
func (p *Planner) PlanBodyStatement(n *pg.Node) (Node, []Column, bool, error) {
	return p.planBodyStatement(n)
}

// IsPlannable reports whether n is a statement PlanBodyStatement plans
// (else it is a utility statement for RoutineSession.RunUtility).
func IsPlannable(n *pg.Node) bool { return isPlannable(n) }

// RowCount is the number of rows a data change plan processed.
func RowCount(n Node) int64 {
	if mt, ok := n.(*ModifyTable); ok {
		return int64(mt.Count)
	}
	return 0
}

// ErrStopRows ends a Run whose caller has the rows it wants.
var ErrStopRows = errStopRoutine

// ProcSignature is format_procedure's name(argtypes) without spaces, as
// PL/pgSQL's CONTEXT lines print a function.
func ProcSignature(p *catalog.Proc) string {
	s := p.Name + "("
	for i, t := range p.ArgTypes {
		if i > 0 {
			s += ","
		}
		s += types.Type{OID: t, Typmod: -1}.BaseName()
	}
	return s + ")"
}

// BodySnapshots applies the snapshot and command-counter rules of a
// routine body (README "LANGUAGE sql"): a VOLATILE body's statements
// each take a new snapshot after a command counter increment; a STABLE
// or IMMUTABLE one runs with the caller's. End gives the caller back its
// snapshot and command id and keeps the transaction's command counter
// past every id used.
type BodySnapshots struct {
	c        *Ctx
	volatile bool
	done     func()
	restore  func()
}

// BeginBodySnapshots starts the rules for one call of a body.
func (c *Ctx) BeginBodySnapshots(volatile bool) *BodySnapshots {
	tx := c.Tx
	h := tx.Heap
	saveSnap, saveCid := h.Snap, h.Cid
	b := &BodySnapshots{c: c, volatile: volatile}
	b.restore = func() {
		if h.Cid > tx.CommandHigh {
			tx.CommandHigh = h.Cid
		}
		h.Snap, h.Cid = saveSnap, saveCid
	}
	return b
}

// Next prepares the next statement of the body.
func (b *BodySnapshots) Next() {
	tx := b.c.Tx
	h := tx.Heap
	if h.Cid > tx.CommandHigh {
		tx.CommandHigh = h.Cid
	}
	if !b.volatile {
		return
	}
	cid := max(h.Cid, tx.CommandHigh) + 1
	h.Cid, tx.CommandHigh = cid, cid
	if rs, ok := b.c.Session.(RoutineSession); ok {
		snap, d := rs.RoutineSnapshot()
		if b.done == nil {
			b.done = d
		} else {
			d()
		}
		h.Snap = snap
	}
}

// End restores the caller's snapshot and command id.
func (b *BodySnapshots) End() {
	b.restore()
	if b.done != nil {
		b.done()
		b.done = nil
	}
}

// RunUtility runs a utility statement of a body through the session,
// with params as its $n.
func (c *Ctx) RunUtility(stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type) error {
	rs, ok := c.Session.(RoutineSession)
	if !ok {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported in a function here", commandName(stmt))
	}
	return rs.RunUtility(c.WithParams(params), stmt, source, params, paramTypes)
}

// CheckReadOnly refuses a data change in a read-only transaction.
func (c *Ctx) CheckReadOnly(stmt *pg.Node) error {
	if rs, ok := c.Session.(RoutineSession); ok {
		return rs.CheckReadOnly(stmt)
	}
	return nil
}

// ReadOnlyViolation names the statement a non-volatile routine may not
// run ("" if it may).
func ReadOnlyViolation(n *pg.Node) string { return readOnlyViolation(n) }

// CommandName is PostgreSQL's name of a statement (CreateCommandName).
func CommandName(n *pg.Node) string { return commandName(n) }

// Settings are the type settings statements of c run with.
func (c *Ctx) Settings() *types.Settings { return c.settings() }

// Compiled is the language's per-call-site state of a call (a parsed
// body), nil until SetCompiled.
func (r *RoutineCall) Compiled() any { return r.compiled }

// SetCompiled keeps the language's per-call-site state.
func (r *RoutineCall) SetCompiled(v any) { r.compiled = v }

// IsMutable reports whether e may give another value for the same
// inputs (a STABLE or VOLATILE function, or a node of unknown
// volatility): a body evaluates such an expression after a command
// counter increment and under a new snapshot, as any statement.
func IsMutable(e expr.Expr) bool { return volatility(e) != catalog.VolatileImmutable }

// RowUtilitySession is a RoutineSession that can hand a utility
// statement's result rows back to the body (EXPLAIN in PL/pgSQL's
// FOR … IN EXECUTE and RETURN QUERY EXECUTE), as text columns.
type RowUtilitySession interface {
	RunUtilityRows(c *Ctx, stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type, each func([]Column, Row) (bool, error)) (int64, error)
}

// ReturnsUtilityRows: stmt is a utility statement with result rows that a
// body can read (EXPLAIN).
func ReturnsUtilityRows(stmt *pg.Node) bool { return stmt.GetExplainStmt() != nil }

// RunUtilityRows runs a utility statement with result rows, handing each
// row to each.
func (c *Ctx) RunUtilityRows(stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type, each func([]Column, Row) (bool, error)) (int64, error) {
	rs, ok := c.Session.(RowUtilitySession)
	if !ok {
		return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported in a function here", commandName(stmt))
	}
	return rs.RunUtilityRows(c.WithParams(params), stmt, source, params, paramTypes, each)
}
