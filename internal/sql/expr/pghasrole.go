package expr

import "github.com/tidal-db/tidal/internal/sql/types"

// pgHasRoleCall compiles pg_has_role([user,] role, privilege). Each role
// argument is a name or an OID, which PostgreSQL tells apart by its
// overloads; the CatalogCall's name records the choice, one letter per
// role argument ("n" name, "o" oid): pg_has_role:no, pg_has_role:n, ….
func pgHasRoleCall(args []Expr, loc int32) (Expr, bool, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, false, nil
	}
	kinds := ""
	out := make([]Expr, len(args))
	for i, a := range args {
		target := types.Text
		if i < len(args)-1 {
			if t := a.Type(); t.OID == types.Oid.OID || types.IsInteger(t) {
				target, kinds = types.Oid, kinds+"o"
			} else {
				kinds += "n"
			}
		}
		var err error
		if out[i], err = Coerce(a, target, types.CastImplicit); err != nil {
			return nil, true, withPos(err, loc)
		}
	}
	return &CatalogCall{Name: "pg_has_role:" + kinds, Args: out, T: types.Boolean}, true, nil
}
