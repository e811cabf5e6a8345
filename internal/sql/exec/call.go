package exec

// CALL of a procedure and DO of an anonymous code block. The session
// runs both statements; resolution and the run are here.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
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
	cands := routine.Candidates(procs, call, func(uint32) int { return 1 })
	best, err := routine.Select(cands, call)
	if err != nil {
		return nil, procedureNotFound(err)
	}
	if best.Proc.Kind != catalog.ProcProcedure {
		e := pgerr.Errorf(pgerr.WrongObjectType, "%s is not a procedure", funcSignature(best.Proc)).
			WithHint("To call a function, use SELECT.")
		e.Position = fc.Location + 1
		return nil, e
	}
	return p.bindRoutineCall(best, args, call)
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
	return lang.Call(c, rc, args, func(r Row) (bool, error) {
		if rc.Cols == nil || emit == nil {
			return true, nil
		}
		return false, emit(r)
	})
}
