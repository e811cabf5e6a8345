package exec

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// procCall answers the catalog functions about routines:
// pg_get_functiondef and friends (what psql's \df and \sf print), and
// the regproc / regprocedure conversions (tidal has no such types: a
// cast from text gives the OID, a cast from an OID the name).
func (f *catalogFuncs) procCall(name string, args []types.Datum) (types.Datum, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	switch name {
	case "regprocin":
		return f.regprocIn(args[0].Str())
	case "regprocedurein":
		return f.regprocedureIn(args[0].Str())
	}
	oid := uint32(args[0].Int())
	if oid == 0 && (name == "regprocout" || name == "regprocedureout") {
		return types.Str("-"), nil
	}
	p, err := cat.ProcByOID(tx, oid)
	if err != nil {
		return types.Null(), err
	}
	if p == nil {
		if name == "regprocout" || name == "regprocedureout" {
			return types.Str(strconv.FormatUint(uint64(oid), 10)), nil
		}
		return types.Null(), nil
	}
	switch name {
	case "pg_get_functiondef":
		return types.Str(routine.FunctionDef(p, cat.NamespaceName(p.Namespace))), nil
	case "pg_get_function_arguments":
		return types.Str(routine.Arguments(p, false, true)), nil
	case "pg_get_function_identity_arguments":
		return types.Str(routine.IdentityArguments(p)), nil
	case "pg_get_function_result":
		if p.Kind == catalog.ProcProcedure {
			return types.Null(), nil
		}
		return types.Str(routine.Result(p)), nil
	case "pg_get_function_sqlbody":
		if !p.HasSQLBody {
			return types.Null(), nil
		}
		return types.Str(p.SQLBody), nil
	case "regprocout":
		return types.Str(f.procName(p)), nil
	}
	parts := make([]string, len(p.ArgTypes))
	for i, t := range p.ArgTypes {
		parts[i] = types.Type{OID: t, Typmod: -1}.BaseName()
	}
	return types.Str(f.procName(p) + "(" + strings.Join(parts, ",") + ")"), nil
}

// procName is a routine's name as regproc prints it: qualified unless
// its namespace is searched.
func (f *catalogFuncs) procName(p *catalog.Proc) string {
	return f.c.Eng.Catalog.NamespaceQualifier(f.c.Tx, p.Namespace) + types.QuoteIdent(p.Name)
}

// regprocIn is regprocin: a routine's (possibly qualified) name, which
// must be unique, or an OID.
func (f *catalogFuncs) regprocIn(s string) (types.Datum, error) {
	if n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32); err == nil {
		return types.Int(int64(n)), nil
	}
	tree, err := pg.Parse("DROP FUNCTION " + s)
	owa := dropTarget(tree, err)
	if owa == nil || !owa.ArgsUnspecified {
		return types.Null(), pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid name syntax")
	}
	schema, name, err := routine.QualifiedName(owa.Objname)
	if err != nil {
		return types.Null(), err
	}
	procs, err := (&Planner{C: f.c}).routinesNamed(schema, name)
	if err != nil {
		return types.Null(), err
	}
	switch len(procs) {
	case 0:
		return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function \"%s\" does not exist", s)
	case 1:
		return types.Int(int64(procs[0].OID)), nil
	}
	return types.Null(), pgerr.Errorf(pgerr.AmbiguousFunction, "more than one function named \"%s\"", s)
}

// regprocedureIn is regprocedurein: name(argument types), or an OID.
func (f *catalogFuncs) regprocedureIn(s string) (types.Datum, error) {
	if n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32); err == nil {
		return types.Int(int64(n)), nil
	}
	tree, err := pg.Parse("DROP FUNCTION " + s)
	owa := dropTarget(tree, err)
	if owa == nil || owa.ArgsUnspecified {
		return types.Null(), pgerr.Errorf(pgerr.InvalidTextRepresentation, "expected a left parenthesis")
	}
	schema, name, err := routine.QualifiedName(owa.Objname)
	if err != nil {
		return types.Null(), err
	}
	var want []uint32
	for _, a := range owa.Objargs {
		t, err := DeclType(f.c, a.GetTypeName())
		if err != nil {
			return types.Null(), err
		}
		want = append(want, t.OID)
	}
	procs, err := (&Planner{C: f.c}).routinesNamed(schema, name)
	if err != nil {
		return types.Null(), err
	}
	for _, p := range procs {
		if len(p.ArgTypes) == len(want) {
			same := true
			for i := range want {
				same = same && p.ArgTypes[i] == want[i]
			}
			if same {
				return types.Int(int64(p.OID)), nil
			}
		}
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function \"%s\" does not exist", s)
}

func dropTarget(tree *pg.ParseResult, err error) *pg.ObjectWithArgs {
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	ds := tree.Stmts[0].Stmt.GetDropStmt()
	if ds == nil || len(ds.Objects) != 1 {
		return nil
	}
	return ds.Objects[0].GetObjectWithArgs()
}
