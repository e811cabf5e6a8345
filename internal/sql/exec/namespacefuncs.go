package exec

import (
	"regexp"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// namespaceCall answers the search path and comment functions.
func (f *catalogFuncs) namespaceCall(name string, args []types.Datum) (types.Datum, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	switch name {
	case "current_schema", "current_schemas":
		implicit := name == "current_schemas" && !args[0].IsNull() && args[0].Bool()
		names, err := cat.CurrentSchemas(tx, implicit)
		if err != nil {
			return types.Null(), err
		}
		if name == "current_schema" {
			if len(names) == 0 {
				return types.Null(), nil
			}
			return types.Str(names[0]), nil
		}
		out := make([]types.Datum, len(names))
		for i, n := range names {
			out[i] = types.Str(n)
		}
		return types.Array(out), nil
	case "obj_description", "shobj_description":
		if args[0].IsNull() {
			return types.Null(), nil
		}
		classoid := uint32(catalog.PgClassRelID)
		if len(args) > 1 {
			if args[1].IsNull() {
				return types.Null(), nil
			}
			oid, ok := catalogOIDByName(args[1].Str())
			if !ok {
				return types.Null(), nil
			}
			classoid = oid
		}
		return description(f.c, classoid, uint32(args[0].Int()), 0)
	case "pg_get_expr":
		if args[0].IsNull() {
			return types.Null(), nil
		}
		return types.Str(f.unqualifyRegclassLiterals(args[0].Str())), nil
	case "col_description":
		if args[0].IsNull() || args[1].IsNull() {
			return types.Null(), nil
		}
		return description(f.c, catalog.PgClassRelID, uint32(args[0].Int()), int32(args[1].Int()))
	}
	return types.Null(), nil
}

func description(c *Ctx, classoid, objoid uint32, subid int32) (types.Datum, error) {
	text, ok, err := c.Eng.Catalog.Description(c.Tx, classoid, objoid, subid)
	if err != nil || !ok {
		return types.Null(), err
	}
	return types.Str(text), nil
}

// catalogOIDByName is the OID of the pg_catalog table a comment
// function's second argument names.
func catalogOIDByName(name string) (uint32, bool) {
	if oid, ok := catalogRelOIDs[name]; ok {
		return oid, true
	}
	for _, d := range catalog.SystemTables {
		if d.Name == name {
			return d.OID, true
		}
	}
	return 0, false
}

// catalogRelOIDs are the catalogs objects may be commented in that tidal
// computes rather than stores.
var catalogRelOIDs = map[string]uint32{
	"pg_database": catalog.PgDatabaseRelID, "pg_tablespace": catalog.PgTablespaceRelID,
	"pg_am": 2601, "pg_trigger": 2620, "pg_operator": 2617, "pg_collation": 3456, "pg_policy": 3256,
	"pg_event_trigger": 3466, "pg_extension": 3079, "pg_cast": 2605, "pg_opclass": 2616,
}

// regclassLiteral matches a regclass constant in a stored expression.
var regclassLiteral = regexp.MustCompile(`'((?:[^']|'')*)'::regclass`)

// unqualifyRegclassLiterals prints the regclass constants of a stored
// expression (a default's nextval('s.seq'::regclass)) as regclassout
// would now: unqualified when the search path finds the same relation
// by its name alone. (PostgreSQL stores the OID and names it when
// printing; tidal stores the qualified name.)
func (f *catalogFuncs) unqualifyRegclassLiterals(text string) string {
	if !strings.Contains(text, "::regclass") {
		return text
	}
	return regclassLiteral.ReplaceAllStringFunc(text, func(lit string) string {
		inner := strings.ReplaceAll(regclassLiteral.FindStringSubmatch(lit)[1], "''", "'")
		schema, rel := splitQualified(inner)
		if schema == "" {
			return lit
		}
		want, err := f.c.Eng.Catalog.Lookup(f.c.Tx, schema, rel)
		if err != nil || want == nil {
			return lit
		}
		if vis, err := relationVisible(f.c, want); err != nil || !vis {
			return lit
		}
		return "'" + strings.ReplaceAll(types.QuoteIdent(rel), "'", "''") + "'::regclass"
	})
}
