package expr

import "github.com/tidal-db/tidal/internal/sql/types"

// typeNameCall is PostgreSQL's reading of typename(x) when no function of
// that name takes x: an explicit cast of x to the type (float8(1::int8),
// text(1)), except a row to a string type. handled is false when the
// name is no type or no such cast exists.
func typeNameCall(name string, args []Expr) (e Expr, handled bool, err error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	t, terr := types.LookupTypeName([]string{name}, nil)
	if terr != nil || types.IsArray(t) {
		return nil, false, nil
	}
	from := args[0].Type()
	if from.OID == types.RecordOID || types.IsUserType(from) ||
		(from.OID != types.UnknownOID && !types.CanCast(from, t, types.CastExplicit)) {
		return nil, false, nil
	}
	// a value the cast rejects has no position, as in PostgreSQL (an
	// unknown literal's input error keeps the literal's own)
	e, err = ExplicitCast(args[0], t, -1)
	return e, true, err
}
