package plpgsql

// The interpreter: one call runs the program's statements over the
// call's variable values.

import (
	"errors"
	"fmt"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// value is a datum's value during a call. A record (kRecord, kRow) is
// rec; nil rec is a RECORD not yet assigned.
type value struct {
	kind int
	t    types.Type
	d    types.Datum
	rec  *record
}

type record struct {
	names []string
	types []types.Type
	vals  []types.Datum
}

func (r *record) datum() types.Datum { return types.RecordValue(r.types, r.vals) }

func (r *record) field(name string) int {
	for i, n := range r.names {
		if n == name {
			return i
		}
	}
	return -1
}

// ctl is how a statement ends: normally, or by EXIT, CONTINUE, RETURN.
type ctl int

const (
	ctlNone ctl = iota
	ctlExit
	ctlContinue
	ctlReturn
)

// call is one run of a program.
type call struct {
	site  *site
	prog  *program
	c, bc *exec.Ctx
	vals  []value
	rc    *exec.RoutineCall // nil for DO
	emit  func(exec.Row) (bool, error)
	snaps *exec.BodySnapshots
	res   *resolver
	// simpleCtx is where simple expressions run (exprEnv).
	simpleCtx *exec.Ctx
	// label is the target of the pending EXIT / CONTINUE ("" innermost).
	label    string
	rowCount int64
	// handling is the stack of errors being handled (GET STACKED
	// DIAGNOSTICS, RAISE without arguments).
	handling []*pgerr.Error
	// annotated is the last error this call added its CONTEXT line to.
	annotated *pgerr.Error
	stopped   bool // the caller has the rows it wants
	returned  bool // a scalar result was emitted
}

func (x *call) stmts(list []*stmt) (ctl, error) {
	for _, s := range list {
		c, err := x.stmt(s)
		if err != nil || c != ctlNone {
			return c, err
		}
	}
	return ctlNone, nil
}

// stmt runs one statement; an error gets this call's CONTEXT line for
// the innermost statement it happened in.
func (x *call) stmt(s *stmt) (ctl, error) {
	if err := x.bc.CheckCancel(); err != nil {
		return ctlNone, err
	}
	c, err := x.dispatch(s)
	if err != nil {
		pe := asError(err)
		if pe != x.annotated && pe != nil {
			x.annotated = pe
			addContext(pe, fmt.Sprintf("PL/pgSQL function %s line %d at %s", x.prog.name, s.Lineno, stmtName(s)))
			return c, pe
		}
	}
	return c, err
}

func asError(err error) *pgerr.Error {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

func addContext(pe *pgerr.Error, line string) { pe.AddContext(line) }

func (x *call) dispatch(s *stmt) (ctl, error) {
	switch s.kind {
	case "block":
		return x.block(s)
	case "assign":
		return ctlNone, x.assignStmt(s)
	case "if":
		return x.ifStmt(s)
	case "case":
		return x.caseStmt(s)
	case "loop", "while":
		return x.loopStmt(s)
	case "fori":
		return x.foriStmt(s)
	case "fors", "dynfors":
		return x.forsStmt(s)
	case "foreach_a":
		return x.foreachStmt(s)
	case "exit":
		return x.exitStmt(s)
	case "return":
		return x.returnStmt(s)
	case "return_next":
		return ctlNone, x.returnNext(s)
	case "return_query":
		return ctlNone, x.returnQuery(s)
	case "raise":
		return ctlNone, x.raise(s)
	case "assert":
		return ctlNone, x.assert(s)
	case "execsql":
		return ctlNone, x.execSQL(s)
	case "dynexecute":
		return ctlNone, x.dynExecute(s)
	case "perform":
		return ctlNone, x.perform(s)
	case "getdiag":
		return ctlNone, x.getDiag(s)
	case "call":
		return ctlNone, x.callStmt(s)
	case "commit", "rollback":
		return ctlNone, pgerr.Errorf(pgerr.FeatureNotSupported, "transaction control in PL/pgSQL procedures is not supported yet")
	}
	return ctlNone, pgerr.Errorf(pgerr.FeatureNotSupported, "PL/pgSQL statement %s is not supported yet", stmtName(s))
}

// stmtName is plpgsql_stmt_typename, as CONTEXT lines name statements.
func stmtName(s *stmt) string {
	switch s.kind {
	case "block":
		return "statement block"
	case "assign":
		return "assignment"
	case "if":
		return "IF"
	case "case":
		return "CASE"
	case "loop":
		return "LOOP"
	case "while":
		return "WHILE"
	case "fori":
		return "FOR with integer loop variable"
	case "fors":
		return "FOR over SELECT rows"
	case "forc":
		return "FOR over cursor"
	case "foreach_a":
		return "FOREACH over array"
	case "exit":
		if s.IsExit {
			return "EXIT"
		}
		return "CONTINUE"
	case "return":
		return "RETURN"
	case "return_next":
		return "RETURN NEXT"
	case "return_query":
		return "RETURN QUERY"
	case "raise":
		return "RAISE"
	case "assert":
		return "ASSERT"
	case "execsql":
		return "SQL statement"
	case "dynexecute":
		return "EXECUTE"
	case "dynfors":
		return "FOR over EXECUTE statement"
	case "getdiag":
		if s.IsStacked {
			return "GET STACKED DIAGNOSTICS"
		}
		return "GET DIAGNOSTICS"
	case "open":
		return "OPEN"
	case "fetch":
		return "FETCH"
	case "close":
		return "CLOSE"
	case "perform":
		return "PERFORM"
	case "call":
		if s.IsCall {
			return "CALL"
		}
		return "DO"
	case "commit":
		return "COMMIT"
	case "rollback":
		return "ROLLBACK"
	}
	return "unknown"
}

// block initializes its declarations, then runs its body; with an
// EXCEPTION clause the body runs in a subtransaction that an error
// rolls back before a handler runs (variables keep their values).
func (x *call) block(s *stmt) (ctl, error) {
	for _, d := range x.prog.blockVars[s] {
		if err := x.initVar(d); err != nil {
			if pe := asError(err); pe != nil && pe != x.annotated {
				x.annotated = pe
				addContext(pe, fmt.Sprintf("PL/pgSQL function %s line %d during statement block local variable initialization", x.prog.name, s.Lineno))
			}
			return ctlNone, err
		}
	}
	if s.Exc == nil {
		return x.blockBody(s, s.Body)
	}
	sub, ok := x.c.Session.(exec.SubTransactions)
	if !ok {
		return ctlNone, pgerr.Errorf(pgerr.FeatureNotSupported, "exception blocks need a session")
	}
	end := sub.BeginSubTransaction()
	saveAnnotated := x.annotated
	c, err := x.blockBody(s, s.Body)
	if err == nil {
		end(true)
		return c, nil
	}
	end(false)
	pe := asError(err)
	if pe == nil {
		return ctlNone, err
	}
	for _, h := range s.Exc.Handlers {
		if !matches(h.Conditions, pe.Code) {
			continue
		}
		x.annotated = saveAnnotated
		sc := x.prog.handlerScope[h]
		if d, ok := sc.names["sqlstate"]; ok {
			x.vals[d].d = types.Str(pe.Code)
			x.vals[sc.names["sqlerrm"]].d = types.Str(pe.Message)
		}
		x.handling = append(x.handling, pe)
		c, herr := x.blockBody(s, h.Action)
		x.handling = x.handling[:len(x.handling)-1]
		return c, herr
	}
	return ctlNone, err
}

// blockBody runs a block's statements; EXIT of the block's label ends
// it.
func (x *call) blockBody(s *stmt, list []*stmt) (ctl, error) {
	c, err := x.stmts(list)
	if c == ctlExit && s.Label != "" && x.label == s.Label {
		x.label = ""
		return ctlNone, err
	}
	return c, err
}

func (x *call) ifStmt(s *stmt) (ctl, error) {
	ok, err := x.evalBool(s.Cond.e)
	if err != nil {
		return ctlNone, err
	}
	if ok {
		return x.stmts(s.ThenBody)
	}
	for _, a := range s.Elsifs {
		ok, err := x.evalBool(a.Cond.e)
		if err != nil {
			return ctlNone, err
		}
		if ok {
			return x.stmts(a.Stmts)
		}
	}
	return x.stmts(s.ElseBody)
}

func (x *call) caseStmt(s *stmt) (ctl, error) {
	if s.TExpr.e != nil {
		d, t, err := x.evalScalar(s.TExpr.e)
		if err != nil {
			return ctlNone, err
		}
		// The CASE variable takes the test expression's type.
		x.vals[s.TVarno] = value{kind: kScalar, t: t, d: d}
	}
	for _, w := range s.Whens {
		ok, err := x.evalBool(w.Expr.e)
		if err != nil {
			return ctlNone, err
		}
		if ok {
			return x.stmts(w.Stmts)
		}
	}
	if s.HaveElse {
		return x.stmts(s.ElseStmt)
	}
	return ctlNone, pgerr.Errorf(codeCaseNotFound, "case not found").WithHint("CASE statement is missing ELSE part.")
}

// loopEnd interprets how a loop's body ended: done says the loop is
// over, with c to pass on.
func (x *call) loopEnd(s *stmt, c ctl) (done bool, out ctl) {
	switch c {
	case ctlExit:
		if x.label == "" || x.label == s.Label {
			x.label = ""
			return true, ctlNone
		}
		return true, c
	case ctlContinue:
		if x.label == "" || x.label == s.Label {
			x.label = ""
			return false, ctlNone
		}
		return true, c
	case ctlReturn:
		return true, c
	}
	return false, ctlNone
}

func (x *call) loopStmt(s *stmt) (ctl, error) {
	for {
		if err := x.bc.CheckCancel(); err != nil {
			return ctlNone, err
		}
		if s.kind == "while" {
			ok, err := x.evalBool(s.Cond.e)
			if err != nil || !ok {
				return ctlNone, err
			}
		}
		c, err := x.stmts(s.Body)
		if err != nil {
			return ctlNone, err
		}
		if done, out := x.loopEnd(s, c); done {
			return out, nil
		}
	}
}

func (x *call) exitStmt(s *stmt) (ctl, error) {
	if s.Cond.e != nil {
		ok, err := x.evalBool(s.Cond.e)
		if err != nil || !ok {
			return ctlNone, err
		}
	}
	x.label = s.Label
	if s.IsExit {
		return ctlExit, nil
	}
	return ctlContinue, nil
}

func (x *call) setFound(b bool) {
	if x.prog.found >= 0 {
		x.vals[x.prog.found].d = types.Bool(b)
	}
}
