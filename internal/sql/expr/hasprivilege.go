package expr

import (
	"strings"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// privilegeFuncs are the has_*_privilege functions: their object
// arguments (after an optional user) before the privilege string.
var privilegeFuncs = map[string]int{
	"has_table_privilege": 1, "has_sequence_privilege": 1, "has_any_column_privilege": 1,
	"has_column_privilege": 2, "has_function_privilege": 1, "has_schema_privilege": 1,
	"has_database_privilege": 1, "has_type_privilege": 1, "has_language_privilege": 1,
}

// privilegeCall compiles has_*_privilege([user,] object…, privilege). As
// for pg_has_role, PostgreSQL's overloads are told apart by the argument
// types: each argument before the privilege is a name ("n", text) or an
// OID ("o"; for has_column_privilege's column, an attribute number). The
// CatalogCall is named "has_privilege:<function>:<kinds>".
func privilegeCall(name string, args []Expr, loc int32) (Expr, bool, error) {
	objs, ok := privilegeFuncs[name]
	if !ok || (len(args) != objs+1 && len(args) != objs+2) {
		return nil, false, nil
	}
	var kinds strings.Builder
	out := make([]Expr, len(args))
	for i, a := range args {
		target := types.Text
		if i < len(args)-1 {
			if t := a.Type(); t.OID == types.Oid.OID || types.IsInteger(t) {
				target = types.Oid
				kinds.WriteByte('o')
			} else {
				kinds.WriteByte('n')
			}
		}
		var err error
		if out[i], err = Coerce(a, target, types.CastImplicit); err != nil {
			return nil, true, withPos(err, loc)
		}
	}
	return &CatalogCall{Name: "has_privilege:" + name + ":" + kinds.String(), Args: out, T: types.Boolean}, true, nil
}
