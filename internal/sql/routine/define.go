// Package routine is what tidal knows about functions and procedures
// independently of the language they are written in: turning CREATE
// FUNCTION into a pg_proc row (define.go), choosing the routine a call
// names among user routines and builtins (resolve.go), binding
// polymorphic types (poly.go), and printing routines back as PostgreSQL
// does (format.go: pg_get_functiondef, pg_get_function_arguments, …).
// Running a body is the job of the language's handler (package exec for
// LANGUAGE sql). See README.md.
package routine

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// MaxArgs is PostgreSQL's FUNC_MAX_ARGS.
const MaxArgs = 100

// TypeResolver resolves a type name of a declaration (arrays and
// pseudo-types allowed).
type TypeResolver func(*pg.TypeName) (types.Type, error)

// Definition is a CREATE FUNCTION statement, checked and ready to become
// a pg_proc row.
type Definition struct {
	// Proc is the row, less what the caller fills in: Namespace, Owner,
	// ArgDefaults (from Defaults, once compiled) and OID.
	Proc    catalog.Proc
	Schema  string // the name's schema qualifier, "" if none
	Replace bool
	// Defaults are the DEFAULT expressions of the last len(Defaults)
	// input arguments, and DefaultTypes those arguments' types.
	Defaults     []*pg.Node
	DefaultTypes []types.Type
	// ArgTypes are the input argument types with their typmods (pg_proc
	// keeps only the OIDs).
	ArgTypes []types.Type
	// Body is the statement's BEGIN ATOMIC / RETURN body (nil for AS '…').
	Body *pg.Node
	// SrcLocation is where the AS string starts in the statement text
	// (-1 if unknown), to place errors found in the body; Text is the
	// statement text (the caller sets it).
	SrcLocation int32
	Text        string

	hasAs bool
	rows  float64 // ROWS, -1 when not given
	// requiredResult is the result type the OUT parameters imply (zero
	// without any); outCount counts them.
	requiredResult types.Type
	outCount       int
}

// Define checks a CREATE FUNCTION / PROCEDURE statement as PostgreSQL's
// CreateFunction does (parameters, result type, options) and describes
// the routine. Body validation is the language's.
func Define(st *pg.CreateFunctionStmt, resolve TypeResolver) (*Definition, error) {
	d := &Definition{Replace: st.Replace, SrcLocation: -1}
	schema, name, err := QualifiedName(st.Funcname)
	if err != nil {
		return nil, err
	}
	d.Schema = schema
	p := &d.Proc
	p.Name, p.Kind = name, catalog.ProcFunction
	if st.IsProcedure {
		p.Kind = catalog.ProcProcedure
	}
	p.Volatile, p.Parallel, p.Cost, p.Lang = catalog.VolatileVolatile, catalog.ParallelUnsafe, -1, 0
	d.rows = -1
	if err := d.options(st.Options, st.SqlBody != nil); err != nil {
		return nil, err
	}
	if err := d.parameters(st.Parameters, resolve); err != nil {
		return nil, err
	}
	if err := d.result(st, resolve); err != nil {
		return nil, err
	}
	if p.Cost < 0 {
		p.Cost = 100
		if p.Lang == catalog.LangInternal || p.Lang == catalog.LangC {
			p.Cost = 1
		}
	}
	switch {
	case d.rows < 0 && p.RetSet:
		p.Rows = 1000
	case d.rows < 0:
		p.Rows = 0
	case !p.RetSet:
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "ROWS is not applicable when function does not return a set")
	default:
		p.Rows = float32(d.rows)
	}
	if st.SqlBody != nil {
		if p.Lang != catalog.LangSQL {
			return nil, pgerr.Errorf(pgerr.InvalidFunctionDefinition, "inline SQL function body only valid for language SQL")
		}
		if p.Src != "" {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "duplicate function body specified")
		}
		d.Body = st.SqlBody
		p.HasSQLBody = true
	} else if !d.hasAs {
		return nil, pgerr.Errorf(pgerr.InvalidFunctionDefinition, "no function body specified")
	}
	return d, nil
}

// QualifiedName splits a routine name of the parse tree into schema and
// name (42601 for more than two parts, as PostgreSQL's cross-database
// references).
func QualifiedName(names []*pg.Node) (schema, name string, err error) {
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().GetSval())
	}
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	case 3:
		if parts[0] != "postgres" {
			return "", "", pgerr.Errorf(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(parts, "."))
		}
		return parts[1], parts[2], nil
	}
	return "", "", pgerr.Errorf(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
}

func (d *Definition) options(opts []*pg.Node, inlineBody bool) error {
	seen := map[string]bool{}
	p := &d.Proc
	language := ""
	asItems := 0
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		if seen[de.Defname] && de.Defname != "set" {
			return pgerr.Errorf(pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		switch de.Defname {
		case "as":
			items := de.Arg.GetList().GetItems()
			if len(items) == 0 {
				return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "no function body specified")
			}
			p.Src = items[0].GetString_().GetSval()
			asItems = len(items)
			d.hasAs = true
			d.SrcLocation = de.ArgLocation
		case "language":
			language = de.Arg.GetString_().GetSval()
		case "volatility":
			switch de.Arg.GetString_().GetSval() {
			case "immutable":
				p.Volatile = catalog.VolatileImmutable
			case "stable":
				p.Volatile = catalog.VolatileStable
			default:
				p.Volatile = catalog.VolatileVolatile
			}
		case "strict":
			p.Strict = boolArg(de)
		case "security":
			p.SecDef = boolArg(de)
		case "leakproof":
			p.Leakproof = boolArg(de)
		case "cost":
			v, err := numArg(de)
			if err != nil {
				return err
			}
			if v <= 0 {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "COST must be positive")
			}
			p.Cost = float32(v)
		case "rows":
			v, err := numArg(de)
			if err != nil {
				return err
			}
			if v <= 0 {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "ROWS must be positive")
			}
			d.rows = v
		case "parallel":
			switch v := de.Arg.GetString_().GetSval(); v {
			case "safe":
				p.Parallel = catalog.ParallelSafe
			case "restricted":
				p.Parallel = catalog.ParallelRestricted
			case "unsafe":
				p.Parallel = catalog.ParallelUnsafe
			default:
				return pgerr.Errorf(pgerr.SyntaxError, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
			}
		case "window":
			if boolArg(de) {
				p.Kind = catalog.ProcWindow
			}
		case "set":
			cfg, err := configItem(de.Arg.GetVariableSetStmt())
			if err != nil {
				return err
			}
			p.Config = UpdateConfig(p.Config, cfg)
		case "support":
			return pgerr.Errorf(pgerr.FeatureNotSupported, "SUPPORT functions are not supported")
		case "transform":
			return pgerr.Errorf(pgerr.FeatureNotSupported, "TRANSFORM FOR TYPE is not supported")
		default:
			return pgerr.Errorf(pgerr.SyntaxError, "option \"%s\" not recognized", de.Defname)
		}
	}
	if language == "" {
		if !inlineBody {
			return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "no language specified")
		}
		language = "sql"
	}
	lang := catalog.LanguageByName(strings.ToLower(language))
	if lang == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "language \"%s\" does not exist", language)
	}
	p.Lang = lang.OID
	if asItems > 1 && lang.OID != catalog.LangC {
		return pgerr.Errorf(pgerr.InvalidFunctionDefinition, "only one AS item needed for language \"%s\"", language)
	}
	return nil
}

func boolArg(de *pg.DefElem) bool {
	if b := de.Arg.GetBoolean(); b != nil {
		return b.Boolval
	}
	if i := de.Arg.GetInteger(); i != nil {
		return i.Ival != 0
	}
	return true
}

func numArg(de *pg.DefElem) (float64, error) {
	switch {
	case de.Arg.GetInteger() != nil:
		return float64(de.Arg.GetInteger().Ival), nil
	case de.Arg.GetFloat() != nil:
		return strconv.ParseFloat(de.Arg.GetFloat().Fval, 64)
	}
	return 0, pgerr.Errorf(pgerr.SyntaxError, "%s requires a numeric value", de.Defname)
}
