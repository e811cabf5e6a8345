package exec

// LANGUAGE sql: a body of SQL statements run one after the other, the
// last one's rows being the result (PostgreSQL's functions.c). See
// internal/sql/routine/README.md for the snapshot and command-counter
// rules this file follows.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

func init() { RegisterLanguage(catalog.LangSQL, sqlLanguage{}) }

type sqlLanguage struct{}

// RoutineSession is what a routine's statements need of the session
// beyond SessionHooks; the session package implements it.
type RoutineSession interface {
	// RoutineSnapshot is the snapshot a statement of a VOLATILE routine
	// runs with: a new one in READ COMMITTED, the transaction's in
	// REPEATABLE READ. The snapshots of the statements the call runs
	// inside stay protected from pruning until done is called.
	RoutineSnapshot() (snap *xact.Snapshot, done func())
	// RunUtility runs a utility statement of a routine body (DECLARE
	// CURSOR, CREATE TABLE, SET, …) in c's transaction, with the
	// routine's arguments as its parameters; source is the body text.
	RunUtility(c *Ctx, stmt *pg.Node, source string, params []types.Datum, paramTypes []types.Type) error
	// CheckReadOnly refuses a data change in a read-only transaction
	// (25006), as for the client's statements.
	CheckReadOnly(stmt *pg.Node) error
	// ApplyRoutineConfig sets a routine's SET clauses (name=value) for
	// the length of a call, as PostgreSQL's fmgr_security_definer: done
	// restores them (ok: the call succeeded, so plain SETs the body made
	// stay); settings are the type settings in effect meanwhile.
	ApplyRoutineConfig(cfg []string) (settings *types.Settings, done func(ok bool), err error)
}

// routineFrame is the routine whose body a Ctx runs: its parameters
// are $n, and by name name or fname.name.
type routineFrame struct {
	proc  *catalog.Proc
	names []string
	types []types.Type
}

// routineParam resolves a column reference that no column matched to a
// parameter of the routine being planned (sql_fn_post_column_ref: a
// column of the same name wins).
func (p *Planner) routineParam(qual, name string) (expr.Expr, error) {
	if p == nil || p.C == nil {
		return nil, nil
	}
	if p.C.vars != nil {
		return p.C.vars.Var(qual, name)
	}
	f := p.C.routine
	if f == nil || qual != "" && qual != f.proc.Name {
		return nil, nil
	}
	for i, n := range f.names {
		if n == name && n != "" {
			return &expr.Param{N: i + 1, T: f.types[i]}, nil
		}
	}
	return nil, nil
}

// routineParamScope is the scope of an expression without FROM items in
// a routine body (INSERT … VALUES, LIMIT): only the parameters' names.
type routineParamScope struct{ p *Planner }

func (r routineParamScope) Resolve(qual, name string, loc int32) (expr.Expr, error) {
	if e, err := r.p.routineParam(qual, name); e != nil || err != nil {
		return e, err
	}
	if qual != "" {
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual)
	}
	return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
}

// maxRoutineDepth is how deep routine calls may nest: PostgreSQL's limit
// comes from max_stack_depth; this takes about 400 bytes of it per level
// (2MB: some 5,000 levels, which is where PostgreSQL stops a recursive SQL
// function).
func (c *Ctx) maxRoutineDepth() (int, int64) {
	if c.routineLimit == 0 {
		kb := int64(2048)
		if c.Setting != nil {
			if v, err := strconv.ParseInt(c.Setting("max_stack_depth"), 10, 64); err == nil && v > 0 {
				kb = v
			}
		}
		c.routineLimit, c.stackKB = int(kb*1024/400), int(kb)
	}
	return c.routineLimit, int64(c.stackKB)
}

func stackDepthError(kb int64) error {
	return pgerr.Errorf(pgerr.StatementTooComplex, "stack depth limit exceeded").
		WithHint("Increase the configuration parameter \"max_stack_depth\" (currently %dkB), after ensuring the platform's stack depth limit is adequate.", kb)
}

// routineCtx is the Ctx a routine's statements run in: the caller's
// transaction and session, the arguments as parameters, one level
// deeper.
func (c *Ctx) routineCtx(f *routineFrame, args []types.Datum) *Ctx {
	fc := *c
	env := *c.Env
	env.Params = args
	env.Outer = nil
	env.Exec = &fc
	fc.Env = &env
	fc.Instrument, fc.Timing = false, false
	fc.routineDepth = c.routineDepth + 1
	fc.routine = f
	env.Catalog = fc.CatalogFuncs()
	return &fc
}

// sqlBody is a SQL routine's body, parsed.
type sqlBody struct {
	src   string // the text the statements are in (for positions and pg_cursors)
	stmts []*pg.RawStmt
	// returns: the last statement may give the result (SELECT, VALUES,
	// or a data change with RETURNING).
	returns bool
	// plans are the statements' plans kept for the call site's next
	// calls (nil: plan afresh); frame is the call site's parameters.
	plans []*bodyPlan
	frame *routineFrame
}

// bodyPlan is a plan of a body statement kept between the calls of one
// call site (PostgreSQL keeps them for the calling query's duration): a
// plan Reusable accepts, made when the transaction had changed no
// catalog, used while the catalog version is the same and no call of
// the site is using it.
type bodyPlan struct {
	node     Node
	cols     []Column
	isDML    bool
	catalogV uint64
	inUse    bool
}

// parseSQLBody parses prosrc, or the BEGIN ATOMIC / RETURN body.
func parseSQLBody(p *catalog.Proc) (*sqlBody, error) {
	src := p.Src
	if p.HasSQLBody {
		src = sqlBodyStatements(p.SQLBody)
	}
	tree, err := pg.Parse(src)
	if err != nil {
		return nil, parseErr(err)
	}
	b := &sqlBody{src: src, stmts: tree.Stmts}
	if n := len(b.stmts); n > 0 {
		b.returns = returnsRows(b.stmts[n-1].Stmt)
	}
	return b, nil
}

// sqlBodyStatements turns a stored SQL-standard body ("RETURN expr",
// "BEGIN ATOMIC … END") into the statements it runs.
func sqlBodyStatements(body string) string {
	if rest, ok := strings.CutPrefix(body, "RETURN "); ok {
		return "SELECT " + rest
	}
	s := strings.TrimSuffix(strings.TrimPrefix(body, "BEGIN ATOMIC"), "END")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, " RETURN "); ok {
			lines[i] = " SELECT " + rest
		}
	}
	return strings.Join(lines, "\n")
}

// parseErr is a parse error of a body as a 42601 error with its
// position (in the body).
func parseErr(err error) error {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		e := pgerr.Errorf(pgerr.SyntaxError, "%s", pe.Message)
		e.Position = int32(pe.Cursorpos)
		return e
	}
	return pgerr.Errorf(pgerr.SyntaxError, "%v", err)
}

// returnsRows: the statement can give a routine's result.
func returnsRows(n *pg.Node) bool {
	switch {
	case n.GetSelectStmt() != nil:
		return n.GetSelectStmt().IntoClause == nil
	case n.GetInsertStmt() != nil:
		return len(n.GetInsertStmt().ReturningList) > 0
	case n.GetUpdateStmt() != nil:
		return len(n.GetUpdateStmt().ReturningList) > 0
	case n.GetDeleteStmt() != nil:
		return len(n.GetDeleteStmt().ReturningList) > 0
	}
	return false
}

// readOnlyViolation names a statement a non-volatile routine may not run
// (PostgreSQL's "%s is not allowed in a non-volatile function"), "" if
// it may.
func readOnlyViolation(n *pg.Node) string {
	switch {
	case n.GetSelectStmt() != nil:
		s := n.GetSelectStmt()
		if s.IntoClause != nil {
			return "SELECT INTO"
		}
		if len(s.LockingClause) > 0 {
			return lockingClauseName(s.LockingClause[0].GetLockingClause())
		}
		return ""
	case n.GetInsertStmt() != nil:
		return "INSERT"
	case n.GetUpdateStmt() != nil:
		return "UPDATE"
	case n.GetDeleteStmt() != nil:
		return "DELETE"
	}
	return commandName(n)
}

func lockingClauseName(lc *pg.LockingClause) string {
	if lc == nil {
		return "SELECT FOR UPDATE"
	}
	switch lc.Strength {
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		return "SELECT FOR KEY SHARE"
	case pg.LockClauseStrength_LCS_FORSHARE:
		return "SELECT FOR SHARE"
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "SELECT FOR NO KEY UPDATE"
	}
	return "SELECT FOR UPDATE"
}

// commandName is PostgreSQL's CreateCommandName for the utility
// statements routine bodies meet.
func commandName(n *pg.Node) string {
	switch {
	case n.GetDeclareCursorStmt() != nil:
		return "DECLARE CURSOR"
	case n.GetCreateStmt() != nil:
		return "CREATE TABLE"
	case n.GetDropStmt() != nil:
		return "DROP " + strings.TrimPrefix(n.GetDropStmt().RemoveType.String(), "OBJECT_")
	case n.GetVariableSetStmt() != nil:
		return "SET"
	case n.GetTransactionStmt() != nil:
		return transactionCommandName(n.GetTransactionStmt())
	case n.GetVacuumStmt() != nil:
		if n.GetVacuumStmt().IsVacuumcmd {
			return "VACUUM"
		}
		return "ANALYZE"
	case n.GetCreateFunctionStmt() != nil:
		return "CREATE FUNCTION"
	case n.GetIndexStmt() != nil:
		return "CREATE INDEX"
	case n.GetTruncateStmt() != nil:
		return "TRUNCATE TABLE"
	case n.GetCopyStmt() != nil:
		return "COPY"
	case n.GetFetchStmt() != nil:
		if n.GetFetchStmt().Ismove {
			return "MOVE"
		}
		return "FETCH"
	case n.GetClosePortalStmt() != nil:
		return "CLOSE CURSOR"
	case n.GetNotifyStmt() != nil:
		return "NOTIFY"
	}
	s := strings.TrimSuffix(strings.SplitN(n.String(), ":", 2)[0], "_stmt")
	return strings.ToUpper(strings.ReplaceAll(s, "_", " "))
}

func transactionCommandName(ts *pg.TransactionStmt) string {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN:
		return "BEGIN"
	case pg.TransactionStmtKind_TRANS_STMT_START:
		return "START TRANSACTION"
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		return "COMMIT"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return "ROLLBACK"
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return "SAVEPOINT"
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return "RELEASE"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return "ROLLBACK"
	case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		return "PREPARE TRANSACTION"
	}
	return "COMMIT"
}

// checkBodyStatement refuses, before anything runs, what a SQL routine
// can never run (init_execution_state).
func checkBodyStatement(p *catalog.Proc, n *pg.Node) error {
	switch {
	case n.GetTransactionStmt() != nil:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not allowed in an SQL function", commandName(n))
	case n.GetCopyStmt() != nil && n.GetCopyStmt().Filename == "":
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot COPY to/from client in an SQL function")
	case n.GetVacuumStmt() != nil && n.GetVacuumStmt().IsVacuumcmd:
		return pgerr.Errorf(pgerr.ActiveSQLTransaction, "VACUUM cannot be executed from a function")
	}
	if p.Volatile != catalog.VolatileVolatile {
		if what := readOnlyViolation(n); what != "" {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not allowed in a non-volatile function", what)
		}
	}
	return nil
}

// withRoutineContext adds the CONTEXT line of a SQL routine to err;
// where is "statement N", "during startup" or "" (validation). The
// error's position points into the body, not the calling statement, so
// it goes.
func withRoutineContext(err error, p *catalog.Proc, where string) error {
	if err == nil {
		return nil
	}
	pe := pgerr.From(err)
	line := fmt.Sprintf("SQL function \"%s\"", p.Name)
	if where != "" {
		line += " " + where
	}
	pe.AddContext(line)
	pe.Position = 0
	return pe
}

// body is the call site's parsed body, parsed at the first call.
func newRoutineFrame(p *catalog.Proc, argTypes []types.Type) *routineFrame {
	return &routineFrame{proc: p, names: p.InputArgNames(), types: argTypes}
}

func (rc *RoutineCall) sqlBody() (*sqlBody, error) {
	if b, ok := rc.compiled.(*sqlBody); ok {
		return b, nil
	}
	b, err := parseSQLBody(rc.Proc)
	if err != nil {
		return nil, err
	}
	for _, st := range b.stmts {
		if err := checkBodyStatement(rc.Proc, st.Stmt); err != nil {
			return nil, err
		}
	}
	rc.compiled = b
	return b, nil
}

func (sqlLanguage) Call(c *Ctx, rc *RoutineCall, args []types.Datum, emit func(Row) (bool, error)) error {
	if limit, kb := c.maxRoutineDepth(); c.routineDepth >= limit {
		return withRoutineContext(stackDepthError(kb), rc.Proc, "during startup")
	}
	if err := c.checkCancel(); err != nil {
		return err
	}
	body, err := rc.sqlBody()
	if err != nil {
		return withRoutineContext(err, rc.Proc, "during startup")
	}
	if body.frame == nil {
		body.frame = newRoutineFrame(rc.Proc, rc.ArgTypes)
	}
	run := &sqlCall{c: c, rc: rc, body: body, fc: c.routineCtx(body.frame, args), args: args}
	if len(rc.Proc.Config) > 0 {
		if rs, ok := c.Session.(RoutineSession); ok {
			settings, done, err := rs.ApplyRoutineConfig(rc.Proc.Config)
			if err != nil {
				return withRoutineContext(err, rc.Proc, "during startup")
			}
			run.fc.Env.Settings = settings
			err = run.run(emit)
			done(err == nil)
			return err
		}
	}
	return run.run(emit)
}

// sqlCall is one call of a SQL routine.
type sqlCall struct {
	c, fc *Ctx
	rc    *RoutineCall
	body  *sqlBody
	args  []types.Datum
}

// run runs the statements. A VOLATILE routine's statements each take a
// new snapshot after a command counter increment, so they see what the
// calling statement and the earlier statements changed; a STABLE or
// IMMUTABLE one runs with the caller's snapshot and command id. The
// caller's snapshot and command id come back at the end, and the
// transaction's command counter stays past every command id used.
func (s *sqlCall) run(emit func(Row) (bool, error)) error {
	snaps := s.c.BeginBodySnapshots(s.rc.Proc.Volatile == catalog.VolatileVolatile)
	defer snaps.End()
	for i, st := range s.body.stmts {
		last := i == len(s.body.stmts)-1
		snaps.Next()
		var out func(Row) (bool, error)
		if last {
			out = emit
		}
		if err := s.statement(i, st, out); err != nil {
			return withRoutineContext(err, s.rc.Proc, "statement "+strconv.Itoa(i+1))
		}
	}
	return nil
}

// statement runs one statement of the body; emit, for the last one,
// receives its rows converted to the routine's result.
func (s *sqlCall) statement(idx int, raw *pg.RawStmt, emit func(Row) (bool, error)) error {
	n := raw.Stmt
	if !returnsRows(n) && !isPlannable(n) {
		rs, ok := s.c.Session.(RoutineSession)
		if !ok {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported in a function here", commandName(n))
		}
		return rs.RunUtility(s.fc, n, s.body.src, s.args, s.rc.ArgTypes)
	}
	if rs, ok := s.c.Session.(RoutineSession); ok {
		if err := rs.CheckReadOnly(n); err != nil {
			return err
		}
	}
	node, cols, isDML, release, err := s.plan(idx, n)
	if err != nil {
		return err
	}
	defer release()
	if emit == nil || !returnsRows(n) || s.rc.Ret.OID == types.VoidOID {
		// A void routine gives no rows (a scalar call NULL).
		return Run(s.fc, node, nil)
	}
	conv, err := resultConverter(s.rc, cols)
	if err != nil {
		return err
	}
	stopped := false
	err = Run(s.fc, node, func(r Row) error {
		if stopped {
			return nil
		}
		res, err := conv(r)
		if err != nil {
			return err
		}
		more, err := emit(res)
		if err != nil {
			return err
		}
		if !more {
			stopped = true
			if !isDML {
				return errStopRoutine
			}
		}
		return nil
	})
	if err == errStopRoutine {
		return nil
	}
	return err
}

// plan plans statement idx of the body, or takes the call site's kept
// plan of it; release hands a kept plan back.
func (s *sqlCall) plan(idx int, n *pg.Node) (Node, []Column, bool, func(), error) {
	cat, tx := s.c.Eng.Catalog, s.c.Tx
	b := s.body
	if b.plans == nil {
		b.plans = make([]*bodyPlan, len(b.stmts))
	}
	if bp := b.plans[idx]; bp != nil && !bp.inUse && !tx.Dirty && bp.catalogV == cat.Version() {
		bp.inUse = true
		ResetInstrumentation(bp.node)
		return bp.node, bp.cols, bp.isDML, func() { bp.inUse = false }, nil
	}
	v, dirty := cat.Version(), tx.Dirty
	p := &Planner{C: s.fc, ParamTypes: append([]types.Type(nil), s.rc.ArgTypes...)}
	node, cols, isDML, err := p.planBodyStatement(n)
	if err != nil {
		return nil, nil, false, nil, err
	}
	if !dirty && !tx.Dirty && cat.Version() == v && Reusable(node) {
		bp := &bodyPlan{node: node, cols: cols, isDML: isDML, catalogV: v, inUse: true}
		b.plans[idx] = bp
		return node, cols, isDML, func() { bp.inUse = false }, nil
	}
	return node, cols, isDML, func() {}, nil
}

// errStopRoutine ends a SELECT whose caller has the rows it wants (a
// scalar routine's first row).
var errStopRoutine = pgerr.Errorf(pgerr.InternalError, "routine result complete")

func isPlannable(n *pg.Node) bool {
	return (n.GetSelectStmt() != nil && n.GetSelectStmt().IntoClause == nil) ||
		n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil
}

// planBodyStatement plans a SELECT, INSERT, UPDATE or DELETE of a body.
func (p *Planner) planBodyStatement(n *pg.Node) (Node, []Column, bool, error) {
	switch {
	case n.GetSelectStmt() != nil:
		node, cols, err := p.PlanSelect(n.GetSelectStmt())
		return node, cols, false, err
	case n.GetInsertStmt() != nil:
		mt, err := p.PlanInsert(n.GetInsertStmt())
		return modifyPlan(mt, err)
	case n.GetUpdateStmt() != nil:
		mt, err := p.PlanUpdate(n.GetUpdateStmt())
		return modifyPlan(mt, err)
	case n.GetDeleteStmt() != nil:
		mt, err := p.PlanDelete(n.GetDeleteStmt())
		return modifyPlan(mt, err)
	}
	return nil, nil, false, pgerr.Errorf(pgerr.InternalError, "not a plannable statement")
}

func modifyPlan(mt *ModifyTable, err error) (Node, []Column, bool, error) {
	if err != nil {
		return nil, nil, true, err
	}
	return mt, mt.RetCols, true, nil
}

// resultConverter turns a row of the last statement into the routine's
// result row: for a scalar result its one column cast (by assignment) to
// the result type, for a row result each column to its OUT parameter's
// type; a void routine's result is NULL, as PostgreSQL's.
func resultConverter(rc *RoutineCall, cols []Column) (func(Row) (Row, error), error) {
	if rc.Ret.OID == types.VoidOID {
		return func(Row) (Row, error) { return Row{types.Null()}, nil }, nil
	}
	want := []types.Type{rc.Ret}
	if rc.Cols != nil {
		want = want[:0]
		for _, col := range rc.Cols {
			want = append(want, col.Type)
		}
	} else if rc.Ret.OID == types.RecordOID {
		if rc.ExpandRecord {
			return func(r Row) (Row, error) { return r, nil }, nil
		}
		ts := make([]types.Type, len(cols))
		for i, col := range cols {
			ts[i] = col.Type
		}
		return func(r Row) (Row, error) { return Row{types.RecordValue(ts, r)}, nil }, nil
	}
	if err := checkResultColumns(rc.Proc, rc.Ret, want, cols); err != nil {
		return nil, err
	}
	settings := rc.fallback.settings()
	return func(r Row) (Row, error) {
		out := make(Row, len(want))
		for i, t := range want {
			d := r[i]
			if cols[i].Type.OID != t.OID && !d.IsNull() {
				var err error
				if d, err = types.CastWith(settings, d, cols[i].Type, t, types.CastAssignment); err != nil {
					return nil, err
				}
			}
			out[i] = d
		}
		return out, nil
	}, nil
}

func (c *Ctx) settings() *types.Settings {
	if c == nil || c.Env == nil {
		return nil
	}
	return c.Env.Settings
}

// checkResultColumns is check_sql_fn_retval: the last statement's
// columns must match the result (one column for a scalar result, the
// OUT parameters for a row), each assignable to the declared type.
func checkResultColumns(p *catalog.Proc, ret types.Type, want []types.Type, cols []Column) error {
	mismatch := func(format string, args ...any) error {
		return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", ret.BaseName()).
			WithDetail(format, args...)
	}
	if len(want) == 1 && ret.OID != types.RecordOID {
		if len(cols) != 1 {
			return mismatch("Final statement must return exactly one column.")
		}
		if !assignable(cols[0].Type, want[0]) {
			return mismatch("Actual return type is %s.", cols[0].Type.BaseName())
		}
		return nil
	}
	for i, t := range want {
		if i >= len(cols) {
			return mismatch("Final statement returns too few columns.")
		}
		if !assignable(cols[i].Type, t) {
			return mismatch("Final statement returns %s instead of %s at column %d.", cols[i].Type.BaseName(), t.BaseName(), i+1)
		}
	}
	if len(cols) > len(want) {
		return mismatch("Final statement returns too many columns.")
	}
	return nil
}

func assignable(from, to types.Type) bool {
	return from.OID == to.OID || from.OID == types.UnknownOID || types.CanCast(from, to, types.CastAssignment)
}
