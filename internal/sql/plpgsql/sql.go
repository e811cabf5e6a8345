package plpgsql

// Expressions and SQL statements of a body go through tidal's planner
// and executor: a variable a statement names becomes a parameter ($n
// past the function's own arguments) whose value is the variable's when
// the statement runs. Compiled expressions and plans are kept per call
// site while the catalog and the variables' types stay the same.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// ref is a variable a compiled statement reads: a datum, or a field of
// a record datum, with the type it had when compiled.
type ref struct {
	dno   int
	field string
	t     types.Type
}

// compiled is an expression or statement ready to run.
type compiled struct {
	text   string
	stmt   *pg.Node
	simple expr.Expr // an expression without FROM: evaluated directly
	// mutable: simple calls a function that is not IMMUTABLE (so it is
	// evaluated as a statement, seeing the body's changes so far).
	mutable bool
	node    exec.Node
	cols    []exec.Column
	isDML   bool
	refs    []ref
	// version is the catalog version it was made under; keep: the plan
	// may run again; inUse: a call is running it (recursion plans anew).
	version uint64
	keep    bool
	inUse   bool
	// params is the buffer of a simple expression's parameter values
	// (reused: an expression in use is not evaluated again meanwhile).
	params []types.Datum
}

// resolver is the body Ctx's exec.ProcVars: while a statement is
// compiled it resolves names in sc and records the refs.
type resolver struct {
	x    *call
	sc   *scope
	refs []ref
}

func (r *resolver) Var(qual, name string) (expr.Expr, error) {
	if r.sc == nil {
		return nil, nil
	}
	if qual == "" {
		if d, ok := r.sc.lookup(name); ok {
			return r.ref(d, "")
		}
		return nil, nil
	}
	if d, ok := r.sc.lookup(qual); ok {
		if k := r.x.vals[d].kind; k == kRecord || k == kRow {
			return r.ref(d, name)
		}
	}
	if s := r.sc.labelled(qual); s != nil {
		if d, ok := s.names[name]; ok {
			return r.ref(d, "")
		}
	}
	return nil, nil
}

// Has reports whether Var would resolve the name.
func (r *resolver) Has(qual, name string) bool {
	if r.sc == nil {
		return false
	}
	if qual == "" {
		_, ok := r.sc.lookup(name)
		return ok
	}
	if d, ok := r.sc.lookup(qual); ok {
		if k := r.x.vals[d].kind; k == kRecord || k == kRow {
			return true
		}
	}
	if s := r.sc.labelled(qual); s != nil {
		_, ok := s.names[name]
		return ok
	}
	return false
}

// Conflict is plpgsql.variable_conflict.
func (r *resolver) Conflict() string {
	if r.x.c.Setting == nil {
		return "error"
	}
	return r.x.c.Setting("plpgsql.variable_conflict")
}

func (r *resolver) ref(d int, field string) (expr.Expr, error) {
	t, _, err := r.x.refValue(d, field)
	if err != nil {
		return nil, err
	}
	for i, rf := range r.refs {
		if rf.dno == d && rf.field == field {
			return &expr.Param{N: len(r.x.prog.argDnos) + i + 1, T: t}, nil
		}
	}
	r.refs = append(r.refs, ref{dno: d, field: field, t: t})
	return &expr.Param{N: len(r.x.prog.argDnos) + len(r.refs), T: t}, nil
}

// refValue is a variable's (or record field's) current type and value.
func (x *call) refValue(d int, field string) (types.Type, types.Datum, error) {
	v := &x.vals[d]
	name := x.prog.datums[d].Refname
	switch v.kind {
	case kRecord, kRow:
		if v.rec == nil && field == "" && x.prog.trig != nil && (d == x.prog.trig.newDno || d == x.prog.trig.oldDno) {
			// A trigger's NEW or OLD without a row is NULL (PostgreSQL
			// 11+): RETURN NEW in a statement trigger returns NULL.
			return types.Record, types.Null(), nil
		}
		if v.rec == nil {
			return types.Type{}, types.Null(), pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", name).
				WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
		}
		if field == "" {
			return types.Record, v.rec.datum(), nil
		}
		i := v.rec.field(field)
		if i < 0 {
			return types.Type{}, types.Null(), pgerr.Errorf(pgerr.UndefinedColumn, "record \"%s\" has no field \"%s\"", name, field)
		}
		return v.rec.types[i], v.rec.vals[i], nil
	case kField:
		dn := x.prog.datums[d]
		return x.refValue(dn.Parent, dn.FieldName)
	}
	return v.t, v.d, nil
}

// params are the values a compiled statement runs with: the arguments
// as $1…, then its refs.
func (x *call) params(cp *compiled) ([]types.Datum, error) {
	n := len(x.prog.argDnos)
	out := cp.params[:0]
	if cap(out) < n+len(cp.refs) {
		out = make([]types.Datum, n+len(cp.refs))
	}
	out = out[:n+len(cp.refs)]
	for i, d := range x.prog.argDnos {
		_, v, err := x.refValue(d, "")
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	for i, rf := range cp.refs {
		_, v, err := x.refValue(rf.dno, rf.field)
		if err != nil {
			return nil, err
		}
		out[n+i] = v
	}
	return out, nil
}

// valid reports whether cp may run again: the same catalog, the same
// variable types.
func (x *call) valid(cp *compiled) bool {
	if cp.version != x.c.Eng.Catalog.Version() || x.c.Tx.Dirty {
		return false
	}
	for _, rf := range cp.refs {
		t, _, err := x.refValue(rf.dno, rf.field)
		if err != nil || t.OID != rf.t.OID {
			return false
		}
	}
	return true
}

func (x *call) argTypes() []types.Type {
	out := make([]types.Type, len(x.prog.argDnos))
	for i, d := range x.prog.argDnos {
		out[i] = x.vals[d].t
	}
	return out
}

// compile parses and plans text (a whole statement) for e, or takes
// the call site's kept one.
func (x *call) compile(e *exprNode, text string, wantExpr bool) (*compiled, error) {
	pool := x.site.exprs[e]
	for i, cp := range pool {
		if cp.inUse || cp.text != text {
			continue
		}
		if x.valid(cp) {
			return cp, nil
		}
		pool[i] = pool[len(pool)-1]
		x.site.exprs[e] = pool[:len(pool)-1]
		break
	}
	tree, err := pg.Parse(text)
	if err != nil {
		return nil, parseError(err)
	}
	if len(tree.Stmts) != 1 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "query \"%s\" is not a single statement", text)
	}
	cp := &compiled{text: text, stmt: tree.Stmts[0].Stmt, version: x.c.Eng.Catalog.Version()}
	dirty := x.c.Tx.Dirty
	x.res.sc, x.res.refs = x.prog.exprScope[e], nil
	defer func() { x.res.sc, x.res.refs = nil, nil }()
	p := &exec.Planner{C: x.bc, ParamTypes: x.argTypes()}
	if sel := cp.stmt.GetSelectStmt(); wantExpr && simpleSelect(sel) {
		if cp.simple, err = p.CompileExpr(sel.TargetList[0].GetResTarget().Val); err != nil {
			return nil, err
		}
		cp.mutable = exec.IsMutable(cp.simple)
	} else if exec.IsPlannable(cp.stmt) {
		if cp.node, cp.cols, cp.isDML, err = p.PlanBodyStatement(cp.stmt); err != nil {
			return nil, err
		}
	}
	cp.refs = x.res.refs
	cp.keep = !dirty && !x.c.Tx.Dirty && cp.version == x.c.Eng.Catalog.Version() && (cp.node == nil || exec.Reusable(cp.node))
	if cp.keep {
		x.site.exprs[e] = append(x.site.exprs[e], cp)
	}
	return cp, nil
}

// simpleSelect: SELECT expr with nothing else, evaluated without a plan.
func simpleSelect(s *pg.SelectStmt) bool {
	return s != nil && len(s.TargetList) == 1 && len(s.FromClause) == 0 && s.WhereClause == nil &&
		len(s.GroupClause) == 0 && s.HavingClause == nil && len(s.SortClause) == 0 && s.LimitCount == nil &&
		s.LimitOffset == nil && (s.Op == pg.SetOperation_SET_OPERATION_UNDEFINED || s.Op == pg.SetOperation_SETOP_NONE) && s.WithClause == nil &&
		len(s.ValuesLists) == 0 && len(s.DistinctClause) == 0 && len(s.WindowClause) == 0 && len(s.LockingClause) == 0 &&
		s.TargetList[0].GetResTarget() != nil
}

func parseError(err error) error {
	msg := err.Error()
	return pgerr.Errorf(pgerr.SyntaxError, "%s", msg)
}

// withSQLContext adds the CONTEXT line naming the expression or
// statement an error happened in; its position (in our text) goes.
func withSQLContext(err error, what, text string) error {
	pe := asError(err)
	if pe == nil {
		return err
	}
	pe.Position = 0
	addContext(pe, what+" \""+text+"\"")
	return pe
}

// evalScalar evaluates an expression: its one value and type.
func (x *call) evalScalar(e *exprNode) (types.Datum, types.Type, error) {
	if e == nil {
		return types.Null(), types.Type{}, pgerr.Errorf(pgerr.FeatureNotSupported, "this form of PL/pgSQL statement is not supported yet")
	}
	text := e.Query
	what := "SQL expression"
	if e.ParseMode >= modeAssign1 {
		what = "PL/pgSQL assignment"
		_, text = splitAssign(text)
	}
	d, t, err := x.evalText(e, "SELECT "+text)
	if err != nil {
		return d, t, withSQLContext(err, what, e.Query)
	}
	return d, t, nil
}

func (x *call) evalText(e *exprNode, text string) (types.Datum, types.Type, error) {
	cp, err := x.compile(e, text, true)
	if err != nil {
		return types.Null(), types.Type{}, err
	}
	params, err := x.params(cp)
	if err != nil {
		return types.Null(), types.Type{}, err
	}
	if cp.simple != nil {
		// In use until evaluated: a recursive call compiles its own (a
		// subquery's plan inside the expression is not re-entrant).
		cp.inUse = true
		defer func() { cp.inUse = false }()
		if cp.mutable {
			x.snaps.Next()
		}
		cp.params = params
		d, err := cp.simple.Eval(x.exprEnv(params), nil)
		return d, cp.simple.Type(), err
	}
	if cp.node == nil {
		return types.Null(), types.Type{}, pgerr.Errorf(pgerr.SyntaxError, "query \"%s\" is not a SELECT", text)
	}
	x.snaps.Next()
	if len(cp.cols) != 1 {
		return types.Null(), types.Type{}, pgerr.Errorf(pgerr.SyntaxError, "query \"%s\" returned %d columns", strings.TrimPrefix(text, "SELECT "), len(cp.cols))
	}
	out, n := types.Null(), 0
	err = x.runPlan(cp, params, func(r exec.Row) (bool, error) {
		n++
		if n > 1 {
			return false, pgerr.Errorf(pgerr.CardinalityViolation, "query \"%s\" returned more than one row", strings.TrimPrefix(text, "SELECT "))
		}
		out = r[0]
		return true, nil
	})
	return out, cp.cols[0].Type, err
}

// exprEnv is the Env simple expressions of this call evaluate in: one
// copy of the body Ctx per call, its parameters set per expression.
func (x *call) exprEnv(params []types.Datum) *expr.Env {
	if x.simpleCtx == nil {
		x.simpleCtx = x.bc.WithParams(nil)
	}
	x.simpleCtx.Env.Params = params
	return x.simpleCtx.Env
}

// runPlan runs a compiled plan with params; each returns false to stop.
func (x *call) runPlan(cp *compiled, params []types.Datum, each func(exec.Row) (bool, error)) error {
	cp.inUse = true
	defer func() { cp.inUse = false }()
	if cp.keep {
		exec.ResetInstrumentation(cp.node)
	}
	ctx := x.bc.WithParams(params)
	stopped := false
	err := exec.Run(ctx, cp.node, func(r exec.Row) error {
		if stopped {
			return nil
		}
		more, err := each(r)
		if err != nil {
			return err
		}
		if !more {
			stopped = true
			if !cp.isDML {
				return exec.ErrStopRows
			}
		}
		return nil
	})
	if err == exec.ErrStopRows {
		return nil
	}
	return err
}

func (x *call) evalBool(e *exprNode) (bool, error) {
	d, t, err := x.evalScalar(e)
	if err != nil {
		return false, err
	}
	if t.OID != types.BoolOID && !d.IsNull() {
		if d, err = x.cast(d, t, types.Boolean); err != nil {
			return false, withSQLContext(err, "SQL expression", e.Query)
		}
	}
	return !d.IsNull() && d.Bool(), nil
}

// cast converts a value assigned to a variable: an assignment cast, or
// through text as PL/pgSQL does when there is none.
func (x *call) cast(d types.Datum, from, to types.Type) (types.Datum, error) {
	if d.IsNull() || from.OID == to.OID || to.OID == types.AnyOID {
		return d, nil
	}
	st := x.bc.Settings()
	if types.CanCast(from, to, types.CastAssignment) || from.OID == types.UnknownOID {
		return types.CastWith(st, d, from, to, types.CastAssignment)
	}
	return types.ParseWith(st, to, types.FormatTextWith(st, from, d))
}

// textOf is a value's text (RAISE, EXECUTE's query string).
func (x *call) textOf(d types.Datum, t types.Type) string {
	return types.FormatTextWith(x.bc.Settings(), t, d)
}

// splitAssign splits "target := expr" (or "target = expr") at its
// top-level assignment operator.
func splitAssign(q string) (string, string) {
	depth, quote := 0, byte(0)
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '[' || ch == '(':
			depth++
		case ch == ']' || ch == ')':
			depth--
		case depth == 0 && ch == ':' && i+1 < len(q) && q[i+1] == '=':
			return strings.TrimSpace(q[:i]), strings.TrimSpace(q[i+2:])
		case depth == 0 && ch == '=':
			return strings.TrimSpace(q[:i]), strings.TrimSpace(q[i+1:])
		}
	}
	return "", q
}

// RecordFields are the field names of record variable name as it is
// now (rec.* in a statement expands to them), false when name is no
// assigned record.
func (r *resolver) RecordFields(name string) ([]string, bool) {
	if r.sc == nil {
		return nil, false
	}
	d, ok := r.sc.lookup(name)
	if !ok {
		return nil, false
	}
	v := r.x.vals[d]
	if (v.kind != kRecord && v.kind != kRow) || v.rec == nil {
		return nil, false
	}
	return append([]string(nil), v.rec.names...), true
}
