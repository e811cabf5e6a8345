package exec

import (
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// coerceBoolArg coerces the argument of WHERE or JOIN/ON to boolean. A
// literal that is not a valid boolean keeps its 22P02 (PostgreSQL: invalid
// input syntax for type boolean: ""); any other type is 42804.
func coerceBoolArg(clause string, e expr.Expr) (expr.Expr, error) {
	c, err := expr.Coerce(e, types.Boolean, types.CastAssignment)
	if err != nil {
		if pgerr.Code(err) == pgerr.InvalidTextRepresentation {
			return nil, err
		}
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, e.Type())
	}
	return c, nil
}
