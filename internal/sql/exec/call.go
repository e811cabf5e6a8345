package exec

// CALL of a procedure and DO of an anonymous code block. The session
// runs both statements; resolution and the run are here.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// InlineLanguage is a language that runs DO blocks.
type InlineLanguage interface {
	Inline(c *Ctx, src string) error
}

// RunDo runs a DO statement's code block in its language.
func RunDo(c *Ctx, ds *pg.DoStmt) error {
	src, lang := "", "plpgsql"
	for _, a := range ds.Args {
		de := a.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "as":
			src = de.Arg.GetString_().GetSval()
		case "language":
			lang = de.Arg.GetString_().GetSval()
		}
	}
	l := catalog.LanguageByName(lang)
	if l == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "language \"%s\" does not exist", lang)
	}
	il, ok := languages[l.OID].(InlineLanguage)
	if !ok {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "language \"%s\" does not support inline code execution", lang)
	}
	return il.Inline(c, src)
}

// PlanCall resolves a CALL statement's procedure and compiles its
// arguments.
func PlanCall(c *Ctx, cs *pg.CallStmt) (*RoutineCall, error) {
	fc := cs.Funccall
	p := &Planner{C: c}
	schema, name, err := routine.QualifiedName(fc.Funcname)
	if err != nil {
		return nil, err
	}
	procs, err := p.routinesNamed(schema, name)
	if err != nil {
		return nil, err
	}
	comp := p.compiler(nil)
	args, call, err := compileCallArgs(fc, comp, name)
	if err != nil {
		return nil, err
	}
	shadows, real := callSignatures(procs)
	cands := routine.Candidates(shadows, call, func(uint32) int { return 1 })
	if schema == "" || schema == "pg_catalog" {
		cands = append(routine.BuiltinCandidates(call), cands...)
	}
	best, err := routine.Select(cands, call)
	if err != nil {
		return nil, procedureNotFound(err)
	}
	if best.Builtin != nil {
		names := make([]string, len(best.Types))
		for i, t := range best.Types {
			names[i] = t.BaseName()
		}
		e := pgerr.Errorf(pgerr.WrongObjectType, "%s(%s) is not a procedure", name, strings.Join(names, ", ")).
			WithHint("To call a function, use SELECT.")
		e.Position = fc.Location + 1
		return nil, e
	}
	proc := real[best.Proc]
	if proc.Kind != catalog.ProcProcedure {
		e := pgerr.Errorf(pgerr.WrongObjectType, "%s is not a procedure", funcSignature(proc)).
			WithHint("To call a function, use SELECT.")
		e.Position = fc.Location + 1
		return nil, e
	}
	rc, err := p.bindRoutineCall(best, args, call)
	if err != nil || best.Proc == proc {
		return rc, err
	}
	// Drop the OUT parameters' arguments: the body gets the input ones.
	rc.Proc = proc
	var in []expr.Expr
	var inTypes []types.Type
	for i, m := range proc.ArgModes {
		if catalog.IsInputMode(m) {
			in, inTypes = append(in, rc.Args[i]), append(inTypes, rc.ArgTypes[i])
		}
	}
	rc.Args, rc.ArgTypes, rc.Cols = in, inTypes, nil
	return rc, p.bindResult(rc, routine.Binding{})
}

// callSignatures are the routines as CALL resolves them: a procedure's
// OUT parameters take arguments too (PostgreSQL 14+), so its signature
// is every parameter's type. real maps each back to its routine.
func callSignatures(procs []*catalog.Proc) ([]*catalog.Proc, map[*catalog.Proc]*catalog.Proc) {
	real := map[*catalog.Proc]*catalog.Proc{}
	out := make([]*catalog.Proc, len(procs))
	for i, p := range procs {
		out[i] = p
		if p.Kind == catalog.ProcProcedure && p.AllArgTypes != nil && len(p.AllArgTypes) != len(p.ArgTypes) {
			sh := *p
			sh.ArgTypes, sh.ArgModes = p.AllArgTypes, nil
			out[i] = &sh
		}
		real[out[i]] = p
	}
	return out, real
}

// procedureNotFound is a resolution error worded for a procedure.
func procedureNotFound(err error) error {
	pe, ok := err.(*pgerr.Error)
	if !ok || pe.Code != pgerr.UndefinedFunction {
		return err
	}
	pe.Message = "procedure" + strings.TrimPrefix(pe.Message, "function")
	if pe.Hint != "" {
		pe.Hint = "No procedure matches the given name and argument types. You might need to add explicit type casts."
	}
	return pe
}

// RunCall runs a resolved CALL; emit gets the output parameters' row
// when the procedure has any.
func RunCall(c *Ctx, rc *RoutineCall, emit func(Row) error) error {
	args := make([]types.Datum, len(rc.Args))
	for i, a := range rc.Args {
		d, err := a.Eval(c.Env, nil)
		if err != nil {
			return err
		}
		args[i] = d
	}
	lang, err := LanguageOf(rc.Proc)
	if err != nil {
		return err
	}
	return callAs(c, rc.Proc, func() error {
		return lang.Call(c, rc, args, func(r Row) (bool, error) {
			if rc.Cols == nil || emit == nil {
				return true, nil
			}
			return false, emit(r)
		})
	})
}
