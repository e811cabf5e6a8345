package expr

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// User-defined types other than domains (enums) in expressions: the type
// package has no operators or functions for them, so the compiler gives
// them PostgreSQL's enum operators and functions here, with the enum's
// labels from the session (Settings.UserTypes).

// UserTypeLookup finds a user-defined type that is not a domain by its
// (possibly qualified) name; ok=false if there is none.
type UserTypeLookup func(names []string) (t types.Type, ok bool, err error)

func (c *Compiler) enumOf(t types.Type) *types.Enum {
	if !types.IsUserType(t) || c.Settings == nil || c.Settings.UserTypes == nil {
		return nil
	}
	return c.Settings.UserTypes.Enum(t.OID)
}

// typeName is format_type of t, user-defined types included.
func (c *Compiler) typeName(t types.Type) string {
	if types.IsUserType(t) {
		return types.FormatTypeWith(c.Settings, t.OID, -1)
	}
	return t.String()
}

// lookupUserType resolves a cast's type name that is no builtin and no
// domain.
func (c *Compiler) lookupUserType(tn *pg.TypeName) (types.Type, bool, error) {
	if c.UserTypes == nil || len(tn.ArrayBounds) > 0 {
		return types.Type{}, false, nil
	}
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().GetSval())
	}
	return c.UserTypes(names)
}

// userTypeCast compiles CAST(a AS t) for a user-defined t (or a of one):
// a literal converts now, with its position in any error.
func (c *Compiler) userTypeCast(a Expr, t types.Type, loc int32) (Expr, error) {
	from := a.Type()
	if !types.UserTypeCast(from, t, types.CastExplicit) {
		return nil, withPos(pgerr.Errorf("42846", "cannot cast type %s to %s", c.typeName(from), c.typeName(t)), loc)
	}
	if from.OID == t.OID {
		return a, nil
	}
	if k, ok := a.(*Const); ok {
		if k.Val.IsNull() {
			return &Const{Val: k.Val, T: t}, nil
		}
		d, err := types.CastWith(c.Settings, k.Val, from, t, types.CastExplicit)
		if err != nil {
			pos := loc
			if from.OID == types.UnknownOID && k.Loc >= 0 {
				pos = k.Loc
			}
			return nil, withPos(err, pos)
		}
		return &Const{Val: d, T: t, Settings: c.Settings}, nil
	}
	return &Cast{Arg: a, To: t, Ctx: types.CastExplicit}, nil
}

// enumComparisons are the operators an enum has (enum_eq, enum_lt, …).
var enumComparisons = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// userTypeOperator compiles l op r when an operand is of a user-defined
// type; handled=false when neither is.
func (c *Compiler) userTypeOperator(op string, l, r Expr, loc int32) (Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if !types.IsUserType(lt) && !types.IsUserType(rt) {
		return nil, false, nil
	}
	// A literal compared with a composite is an anonymous record in
	// PostgreSQL (record = record), whose input it refuses.
	for _, side := range [][2]Expr{{l, r}, {r, l}} {
		if k, ok := side[0].(*Const); ok && k.T.OID == types.UnknownOID && !k.Val.IsNull() && types.CompositeOf(c.Settings, side[1].Type()) != nil {
			pos := loc
			if k.Loc >= 0 {
				pos = k.Loc
			}
			return nil, true, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented"), pos)
		}
	}
	var err error
	if lt.OID == types.UnknownOID || (lt.OID == types.RecordOID && types.IsUserType(rt)) {
		if l, err = c.userTypeCast(l, rt, loc); err != nil {
			return nil, true, err
		}
	} else if p, ok := l.(*Param); ok && p.T.OID == types.UnknownOID {
		p.Infer(rt)
	}
	if rt.OID == types.UnknownOID || (rt.OID == types.RecordOID && types.IsUserType(lt)) {
		if r, err = c.userTypeCast(r, lt, loc); err != nil {
			return nil, true, err
		}
	} else if p, ok := r.(*Param); ok && p.T.OID == types.UnknownOID {
		p.Infer(lt)
	}
	lt, rt = l.Type(), r.Type()
	if lt.OID == rt.OID && enumComparisons[op] && types.CompositeOf(c.Settings, lt) != nil {
		return &CompositeCompare{Op: op, L: l, R: r}, true, nil
	}
	if lt.OID != rt.OID || !enumComparisons[op] || c.enumOf(lt) == nil {
		return nil, true, withPos(pgerr.Errorf(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", c.typeName(lt), op, c.typeName(rt)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts."), loc)
	}
	// Enum values order bytewise (types/enum.go): bytea's comparisons are
	// the enum's.
	fn, err := types.LookupOperator(op, types.Bytea, types.Bytea)
	if err != nil {
		return nil, true, err
	}
	return &Func{Fn: fn, Args: []Expr{l, r}, Op: op}, true, nil
}

// enumFunction compiles enum_first, enum_last and enum_range; handled=false
// for any other call.
func (c *Compiler) enumFunction(fc *pg.FuncCall, name string) (Expr, bool, error) {
	if name != "enum_first" && name != "enum_last" && name != "enum_range" || len(fc.Funcname) > 2 {
		return nil, false, nil
	}
	var args []Expr
	for _, a := range fc.Args {
		e, err := c.Compile(a)
		if err != nil {
			return nil, true, err
		}
		args = append(args, e)
	}
	if len(args) == 0 || len(args) > 2 || (len(args) == 2 && name != "enum_range") {
		return nil, false, nil
	}
	t := args[0].Type()
	if len(args) == 2 && t.OID == types.UnknownOID {
		t = args[1].Type()
	}
	e := c.enumOf(t)
	if e == nil {
		return nil, false, nil
	}
	if len(args) == 2 {
		for i := range args {
			var err error
			if args[i].Type().OID == types.UnknownOID {
				if args[i], err = c.userTypeCast(args[i], t, fc.Location); err != nil {
					return nil, true, err
				}
			}
		}
	}
	return &EnumFunc{Name: name, Enum: e, Args: args, T: t}, true, nil
}

// EnumFunc is enum_first / enum_last / enum_range over the labels the
// enum had when the statement was planned. enum_range's result is the
// labels as a text[] (tidal has no arrays of enums).
type EnumFunc struct {
	Name string
	Enum *types.Enum
	Args []Expr
	T    types.Type
}

func (f *EnumFunc) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	vals := f.Enum.Datums()
	if len(vals) == 0 && f.Name != "enum_range" {
		return types.Null(), nil
	}
	switch f.Name {
	case "enum_first":
		return vals[0], nil
	case "enum_last":
		return vals[len(vals)-1], nil
	}
	lo, hi := 0, len(vals)-1
	if len(f.Args) == 2 {
		a, err := f.Args[0].Eval(env, row)
		if err != nil {
			return a, err
		}
		b, err := f.Args[1].Eval(env, row)
		if err != nil {
			return b, err
		}
		for i, v := range vals {
			if !a.IsNull() && v.Str() == a.Str() {
				lo = i
			}
			if !b.IsNull() && v.Str() == b.Str() {
				hi = i
			}
		}
	}
	labels := []types.Datum{}
	for i := lo; i <= hi; i++ {
		labels = append(labels, types.Str(f.Enum.Labels[i].Label))
	}
	return types.Array(labels), nil
}

func (f *EnumFunc) Type() types.Type {
	if f.Name == "enum_range" {
		t, _ := types.ArrayOf(types.Text)
		return t
	}
	return f.T
}

func (f *EnumFunc) String() string {
	s := f.Name + "("
	for i, a := range f.Args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s + ")"
}

// coerceUserType is Coerce to or from a user-defined type: an I/O
// conversion, run when evaluated (in the session's settings, which know
// the type).
func coerceUserType(e Expr, t types.Type, ctx types.CastContext) (Expr, error) {
	from := e.Type()
	if !types.UserTypeCast(from, t, ctx) {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot cast type %s to %s", from, t)
	}
	if k, ok := e.(*Const); ok && k.Val.IsNull() {
		return &Const{Val: k.Val, T: t}, nil
	}
	return &Cast{Arg: e, To: t, Ctx: ctx}, nil
}

// CompositeCompare compares two values of a composite type field by
// field (record_eq, record_lt, …: a NULL field equals a NULL field and
// sorts after any other value).
type CompositeCompare struct {
	Op   string
	L, R Expr
}

func (x *CompositeCompare) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	a, err := x.L.Eval(env, row)
	if err != nil || a.IsNull() {
		return types.Null(), err
	}
	b, err := x.R.Eval(env, row)
	if err != nil || b.IsNull() {
		return types.Null(), err
	}
	c := types.Compare(x.L.Type(), a, b)
	var r bool
	switch x.Op {
	case "=":
		r = c == 0
	case "<>":
		r = c != 0
	case "<":
		r = c < 0
	case "<=":
		r = c <= 0
	case ">":
		r = c > 0
	default:
		r = c >= 0
	}
	return types.Bool(r), nil
}
func (x *CompositeCompare) Type() types.Type { return types.Boolean }
func (x *CompositeCompare) String() string {
	return "(" + x.L.String() + " " + x.Op + " " + x.R.String() + ")"
}
func (x *CompositeCompare) ArgExprs() []Expr { return []Expr{x.L, x.R} }
func (x *CompositeCompare) WithArgs(args []Expr) Expr {
	return &CompositeCompare{Op: x.Op, L: args[0], R: args[1]}
}
