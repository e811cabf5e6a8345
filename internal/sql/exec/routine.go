package exec

// Calls of user routines (pg_proc): resolution among them and the
// builtins at planning time, and the call expression. Running a body is
// the routine's language's (sqlfunc.go for LANGUAGE sql). See
// internal/sql/routine/README.md.

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Language runs the routines of one pg_language. LANGUAGE sql is built
// in (sqlLanguage); another language (PL/pgSQL) registers its handler
// with RegisterLanguage.
type Language interface {
	// Validate checks a routine that CREATE FUNCTION has just stored
	// (its pg_proc row is visible to c): the body's syntax, and when
	// checkBodies, what it refers to. def is the statement's definition.
	Validate(c *Ctx, p *catalog.Proc, def *routine.Definition, checkBodies bool) error
	// Call runs a routine once: args are the input parameters' values
	// (declared order, coerced); emit receives its result rows (one row
	// of one column for a scalar result) and returns false to stop.
	Call(c *Ctx, call *RoutineCall, args []types.Datum, emit func(Row) (bool, error)) error
}

// languages by pg_language OID. Only RegisterLanguage writes it, from
// init functions: it holds code, not per-engine state.
var languages = map[uint32]Language{}

// RegisterLanguage installs the handler of a language (at init).
func RegisterLanguage(oid uint32, l Language) { languages[oid] = l }

// LanguageOf is the handler of routine p's language, or PostgreSQL's
// error for one tidal cannot run.
func LanguageOf(p *catalog.Proc) (Language, error) {
	if l := languages[p.Lang]; l != nil {
		return l, nil
	}
	name := "?"
	if l := catalog.LanguageByOID(p.Lang); l != nil {
		name = l.Name
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "language %s is not supported yet", name)
}

// RoutineCall is a call of a user routine in an expression.
type RoutineCall struct {
	Proc *catalog.Proc
	// Args are the values of the input parameters, in declaration
	// order: the call's arguments coerced, defaults filled in, a
	// variadic parameter's arguments made one array.
	Args []expr.Expr
	// ArgTypes are the input parameters' types, polymorphic ones bound.
	ArgTypes []types.Type
	// Ret is the result type (polymorphic bound; record for several OUT
	// parameters). Cols are the result's columns when it is a row (OUT
	// parameters, RETURNS TABLE), else nil.
	Ret  types.Type
	Cols []Column
	// ExpandRecord: the result is RECORD without OUT parameters and the
	// caller (FROM f() AS (a int, …)) takes its columns one by one; else
	// such a result is one record value.
	ExpandRecord bool
	// fallback is the planning Ctx, for an evaluation without one.
	fallback *Ctx
	// compiled is the language's per-call-site state (a parsed body).
	compiled any
}

func (r *RoutineCall) Type() types.Type { return r.Ret }

// FieldNames and FieldTypes describe a row result (expr.NamedFields).
func (r *RoutineCall) FieldNames() []string {
	out := make([]string, len(r.Cols))
	for i, c := range r.Cols {
		out[i] = c.Name
	}
	return out
}

func (r *RoutineCall) FieldTypes() []types.Type {
	out := make([]types.Type, len(r.Cols))
	for i, c := range r.Cols {
		out[i] = c.Type
	}
	return out
}

func (r *RoutineCall) String() string {
	parts := make([]string, len(r.Args))
	for i, a := range r.Args {
		parts[i] = a.String()
	}
	return r.Proc.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Eval runs the routine for one set of arguments: STRICT gives NULL for
// a NULL argument without running it; a scalar result is the first row's
// value (NULL for no row); a row result becomes a record value.
func (r *RoutineCall) Eval(env *expr.Env, row []types.Datum) (types.Datum, error) {
	args, null, err := r.evalArgs(env, row)
	if err != nil || null {
		return types.Null(), err
	}
	c := r.fallback
	if x, ok := env.Exec.(*Ctx); ok && x != nil {
		c = x
	}
	if c == nil {
		return types.Null(), pgerr.Errorf(pgerr.FeatureNotSupported, "function %s cannot be called here", r.Proc.Name)
	}
	if r.Proc.RetSet {
		return types.Null(), pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning functions are not supported in this context")
	}
	out := types.Null()
	err = r.run(c, args, func(res Row) (bool, error) {
		out = r.value(res)
		return false, nil
	})
	return out, err
}

// value is a result row as the call's value.
func (r *RoutineCall) value(res Row) types.Datum {
	if r.Cols == nil {
		return res[0]
	}
	ts := make([]types.Type, len(r.Cols))
	for i, col := range r.Cols {
		ts[i] = col.Type
	}
	return types.RecordValue(ts, res)
}

func (r *RoutineCall) evalArgs(env *expr.Env, row []types.Datum) ([]types.Datum, bool, error) {
	args := make([]types.Datum, len(r.Args))
	for i, a := range r.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return nil, false, err
		}
		if d.IsNull() && r.Proc.Strict {
			return nil, true, nil
		}
		args[i] = d
	}
	return args, false, nil
}

// run calls the routine's language.
func (r *RoutineCall) run(c *Ctx, args []types.Datum, emit func(Row) (bool, error)) error {
	lang, err := LanguageOf(r.Proc)
	if err != nil {
		return err
	}
	return callAs(c, r.Proc, func() error { return lang.Call(c, r, args, emit) })
}

// routineCall is the compiler's Routine hook: a call of a name some user
// routine has is resolved among those routines and the builtins.
func (p *Planner) routineCall(fc *pg.FuncCall, comp *expr.Compiler) (expr.Expr, bool, error) {
	schema, name, err := routine.QualifiedName(fc.Funcname)
	if err != nil {
		return nil, true, err
	}
	procs, err := p.routinesNamed(schema, name)
	if err != nil || len(procs) == 0 {
		return nil, err != nil, err
	}
	args, call, err := compileCallArgs(fc, comp, name)
	if err != nil {
		return nil, true, err
	}
	cands := routine.Candidates(procs, call, func(uint32) int { return 1 })
	if schema == "" || schema == "pg_catalog" {
		cands = append(routine.BuiltinCandidates(call), cands...)
	}
	best, err := routine.Select(cands, call)
	if err != nil {
		return nil, true, err
	}
	if best.Builtin != nil {
		e, err := comp.BuiltinCall(name, args, fc.Location)
		return e, true, err
	}
	if err := checkCallable(best.Proc, fc); err != nil {
		return nil, true, err
	}
	if err := p.C.checkExecute(best.Proc); err != nil {
		return nil, true, err
	}
	rc, err := p.bindRoutineCall(best, args, call)
	if err != nil {
		return nil, true, err
	}
	if e := p.inlined(rc); e != nil {
		return e, true, nil
	}
	return rc, true, nil
}

// checkCallable refuses a procedure or a window function called as a
// plain function.
func checkCallable(p *catalog.Proc, fc *pg.FuncCall) error {
	var e *pgerr.Error
	switch p.Kind {
	case catalog.ProcProcedure:
		e = pgerr.Errorf(pgerr.WrongObjectType, "%s is a procedure", funcSignature(p)).WithHint("To call a procedure, use CALL.")
	case catalog.ProcWindow:
		e = pgerr.Errorf(pgerr.WrongObjectType, "window function %s requires an OVER clause", p.Name)
	default:
		return nil
	}
	e.Position = fc.Location + 1
	return e
}

// funcSignature is func_signature_string: name(argument types).
func funcSignature(p *catalog.Proc) string {
	parts := make([]string, len(p.ArgTypes))
	for i, t := range p.ArgTypes {
		parts[i] = types.Type{OID: t, Typmod: -1}.BaseName()
	}
	return p.Name + "(" + strings.Join(parts, ", ") + ")"
}

// routinesNamed lists the user routines a (possibly qualified) name may
// call: unqualified names search public (pg_catalog holds only builtins;
// as in PostgreSQL, pg_temp is not searched for functions).
func (p *Planner) routinesNamed(schema, name string) ([]*catalog.Proc, error) {
	cat, tx := p.C.Eng.Catalog, p.C.Tx
	var nsps []uint32
	switch schema {
	case "":
		var err error
		if nsps, err = cat.SearchNamespaces(tx, false); err != nil {
			return nil, err
		}
	case "pg_catalog":
		return nil, nil
	case "pg_temp":
		if tx.TempNamespace == 0 {
			return nil, nil
		}
		nsps = []uint32{tx.TempNamespace}
	default:
		o, err := cat.NamespaceOID(tx, schema)
		if err != nil {
			return nil, err
		}
		nsps = []uint32{o}
	}
	return cat.ProcsNamed(tx, name, nsps)
}

// compileCallArgs compiles a call's arguments, positional and named
// (name => value), and describes the call for resolution.
func compileCallArgs(fc *pg.FuncCall, comp *expr.Compiler, name string) ([]expr.Expr, *routine.Call, error) {
	call := &routine.Call{Name: name, Variadic: fc.FuncVariadic, Location: fc.Location}
	var args []expr.Expr
	for _, a := range fc.Args {
		arg, argName := a, ""
		if na := a.GetNamedArgExpr(); na != nil {
			arg, argName = na.Arg, na.Name
		} else if len(call.Args) > 0 && call.Args[len(call.Args)-1].Name != "" {
			e := pgerr.Errorf(pgerr.SyntaxError, "positional argument cannot follow named argument")
			e.Position = parser.Location(a) + 1
			return nil, nil, e
		}
		for _, prev := range call.Args {
			if argName != "" && prev.Name == argName {
				e := pgerr.Errorf(pgerr.SyntaxError, "argument name \"%s\" used more than once", argName)
				e.Position = a.GetNamedArgExpr().Location + 1
				return nil, nil, e
			}
		}
		e, err := comp.Compile(arg)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, e)
		call.Args = append(call.Args, routine.CallArg{Type: e.Type(), Name: argName})
	}
	if call.Variadic && len(args) > 0 {
		if t := args[len(args)-1].Type(); t.OID != types.UnknownOID && !types.IsArray(t) {
			e := pgerr.Errorf(pgerr.DatatypeMismatch, "VARIADIC argument must be an array")
			e.Position = fc.Location + 1
			return nil, nil, e
		}
	}
	return args, call, nil
}

// bindRoutineCall builds the call of the chosen routine: polymorphic
// types bound, arguments coerced to the parameter types, defaults and
// the variadic array filled in.
func (p *Planner) bindRoutineCall(best *routine.Candidate, args []expr.Expr, call *routine.Call) (*RoutineCall, error) {
	proc := best.Proc
	actual := make([]types.Type, len(args))
	for i, a := range args {
		actual[i] = a.Type()
	}
	bind, err := routine.Bind(best.Types, actual)
	if err != nil {
		return nil, err
	}
	nin := len(proc.ArgTypes)
	rc := &RoutineCall{Proc: proc, Args: make([]expr.Expr, nin), ArgTypes: make([]types.Type, nin), fallback: p.C}
	for i := range proc.ArgTypes {
		if rc.ArgTypes[i], err = bind.Resolve(types.Type{OID: proc.ArgTypes[i], Typmod: -1}); err != nil {
			return nil, err
		}
	}
	var variadic []expr.Expr
	for i, a := range args {
		want, err := bind.Resolve(best.Types[i])
		if err != nil {
			return nil, err
		}
		ca, err := expr.Coerce(a, want, types.CastImplicit)
		if err != nil {
			return nil, withCallPos(err, call)
		}
		if best.VariadicFrom >= 0 && i >= best.VariadicFrom {
			variadic = append(variadic, ca)
			continue
		}
		rc.Args[best.Slots[i]] = ca
	}
	if best.VariadicFrom >= 0 {
		rc.Args[nin-1] = &expr.ArrayExpr{Elems: variadic, T: rc.ArgTypes[nin-1]}
	}
	firstDefault := nin - len(proc.ArgDefaults)
	for i := range rc.Args {
		if rc.Args[i] != nil {
			continue
		}
		d, err := p.argDefault(proc.ArgDefaults[i-firstDefault], rc.ArgTypes[i])
		if err != nil {
			return nil, err
		}
		rc.Args[i] = d
	}
	if err := p.bindResult(rc, bind); err != nil {
		return nil, err
	}
	return rc, nil
}

func withCallPos(err error, call *routine.Call) error {
	if pe, ok := err.(*pgerr.Error); ok && pe.Position == 0 && call.Location >= 0 {
		pe.Position = call.Location + 1
	}
	return err
}

// argDefault compiles a parameter's stored default expression.
func (p *Planner) argDefault(text string, t types.Type) (expr.Expr, error) {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 || len(tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()) != 1 {
		return nil, pgerr.Errorf(pgerr.InternalError, "bad stored parameter default %q", text)
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	e, err := p.compiler(nil).Compile(n)
	if err != nil {
		return nil, err
	}
	return expr.Coerce(e, t, types.CastAssignment)
}

// bindResult sets the call's result type and, for a row result, its
// columns (from the OUT / TABLE parameters).
func (p *Planner) bindResult(rc *RoutineCall, bind routine.Binding) error {
	proc := rc.Proc
	ret, err := bind.Resolve(types.Type{OID: proc.RetType, Typmod: -1})
	if err != nil {
		return err
	}
	rc.Ret = ret
	outs := proc.OutputArgs()
	if proc.RetType != types.RecordOID || len(outs) == 0 {
		return nil
	}
	for k, i := range outs {
		t, err := bind.Resolve(types.Type{OID: proc.AllArgTypes[i], Typmod: -1})
		if err != nil {
			return err
		}
		name := ""
		if i < len(proc.ArgNames) {
			name = proc.ArgNames[i]
		}
		if name == "" {
			name = "column" + strconv.Itoa(k+1)
		}
		rc.Cols = append(rc.Cols, Column{Name: name, Type: t})
	}
	return nil
}
