package expr

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Scope resolves column references for the compiler.
type Scope interface {
	// Resolve finds a column; qualifier is the table name or alias (or
	// empty). It returns a 42703 or 42702 error when there is none or more
	// than one.
	Resolve(qualifier, name string, location int32) (Expr, error)
}

// WholeRowScope is a Scope that can give a FROM item's whole row
// (t.*, or t alone, as a value).
type WholeRowScope interface {
	WholeRow(rel string, location int32) (e Expr, found bool, err error)
	// RowColumns are the column names of FROM item rel's row.
	RowColumns(rel string) ([]string, bool)
}

// expandStar is t.* as a row constructor of t's columns, or n itself;
// ROW(t.*) and t.* = u.* then compare column by column.
func (c *Compiler) expandStar(n *pg.Node) *pg.Node {
	cr := n.GetColumnRef()
	ws, ok := c.Scope.(WholeRowScope)
	if cr == nil || !ok || len(cr.Fields) != 2 || cr.Fields[1].GetAStar() == nil {
		return n
	}
	rel := cr.Fields[0].GetString_().GetSval()
	cols, ok := ws.RowColumns(rel)
	if !ok {
		return n
	}
	args := make([]*pg.Node, len(cols))
	for i, col := range cols {
		args[i] = pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(rel), pg.MakeStrNode(col)}, cr.Location)
	}
	return &pg.Node{Node: &pg.Node_RowExpr{RowExpr: &pg.RowExpr{Args: args, RowFormat: pg.CoercionForm_COERCE_EXPLICIT_CALL, Location: cr.Location}}}
}

// expandStars rewrites the operands of a comparison that are t.* or
// ROW(t.*) into row constructors of columns (a copy; n is kept).
func (c *Compiler) expandStars(n *pg.Node) *pg.Node {
	ae := n.GetAExpr()
	if ae == nil || c.Scope == nil {
		return n
	}
	side := func(x *pg.Node) *pg.Node {
		if x == nil {
			return nil
		}
		if re := x.GetRowExpr(); re != nil && len(re.Args) == 1 {
			if e := c.expandStar(re.Args[0]); e != re.Args[0] {
				return e
			}
			return x
		}
		return c.expandStar(x)
	}
	l, r := side(ae.Lexpr), side(ae.Rexpr)
	if l == ae.Lexpr && r == ae.Rexpr {
		return n
	}
	cp := &pg.A_Expr{Kind: ae.Kind, Name: ae.Name, Lexpr: l, Rexpr: r, Location: ae.Location}
	return &pg.Node{Node: &pg.Node_AExpr{AExpr: cp}}
}

// NewRowValue is a row constructor of fields.
func NewRowValue(fields []Expr) Expr { return &RowValue{Fields: fields} }

// Hooks let the planner take over parts of the tree (aggregates,
// subqueries) while the compiler does the rest.
type Hooks struct {
	// Func is offered every function call first; handled=false falls
	// back to scalar functions.
	Func func(fc *pg.FuncCall) (e Expr, handled bool, err error)
	// Node, when set, is offered every expression node before anything
	// else (above an aggregation: a grouped expression becomes a reference
	// to its group column); handled=false compiles the node as usual.
	Node func(n *pg.Node) (e Expr, handled bool, err error)
	// ParamTypes are the declared or inferred types of $n.
	ParamTypes []types.Type
	// SubLink plans a subquery found in an expression compiled in scope
	// outer (the subquery may refer to outer's columns).
	SubLink func(sub *pg.Node, outer Scope) (*SubqueryPlan, error)
	// Exists, when set, is offered every EXISTS subquery first (the
	// planner turns those it can into hashed semi joins);
	// handled=false plans it as a SubPlan.
	Exists func(sub *pg.Node, outer Scope) (e Expr, handled bool, err error)
	// Routine, when set, is offered every call that is not an aggregate
	// before the builtins (user functions; the hook weighs builtins
	// against them and may compile the call with BuiltinCall);
	// handled=false compiles it as a builtin call.
	Routine func(fc *pg.FuncCall, c *Compiler) (e Expr, handled bool, err error)
	// FixedParams: ParamTypes are all the parameters there are ($n
	// beyond them is 42P02), as in a function body.
	FixedParams bool
	// Window, when set, compiles a window function call (one with OVER):
	// the planner evaluates it in a WindowAgg and returns a reference to
	// its result. Unset, such a call is refused with NoWindow's error.
	Window func(fc *pg.FuncCall) (Expr, error)
	// NoWindow, when set, is the error for a window call where none may
	// be (PostgreSQL names the clause: "... not allowed in WHERE").
	NoWindow func() error
}

// Compiler turns parse nodes into expressions.
type Compiler struct {
	Scope Scope
	Hooks Hooks
	// Settings, when set, are the session's settings at planning time:
	// literals whose conversion depends on them (timestamptz) are then
	// converted at once, as PostgreSQL folds them, instead of when run.
	Settings *types.Settings
	// Domains, when set, finds the domains a cast may name, UserTypes
	// the other user-defined types.
	Domains   DomainLookup
	UserTypes UserTypeLookup
}

// foldSettings converts a cast of a constant that Coerce left for run
// time because it depends on the session's settings. A literal that the
// settings cannot read is an error now, at the literal, as PostgreSQL's
// parse-time coercion of literals.
func (c *Compiler) foldSettings(e Expr) (Expr, error) {
	cc, ok := e.(*Cast)
	if !ok || c.Settings == nil {
		return e, nil
	}
	k, ok := cc.Arg.(*Const)
	if !ok || k.Val.IsNull() {
		return e, nil
	}
	d, err := types.CastWith(c.Settings, k.Val, k.T, cc.To, cc.Ctx)
	if err != nil {
		if k.T.OID == types.UnknownOID {
			return nil, withPos(err, k.Loc)
		}
		return e, nil // reported when run, with the statement's context
	}
	return &Const{Val: d, T: cc.To, Settings: c.Settings}, nil
}

func syntaxErrAt(loc int32, format string, args ...any) error {
	e := pgerr.Errorf(pgerr.SyntaxError, format, args...)
	if loc >= 0 {
		e.Position = loc + 1
	}
	return e
}

func withPos(err error, loc int32) error {
	if pe, ok := err.(*pgerr.Error); ok && pe.Position == 0 && loc >= 0 {
		pe.Position = loc + 1
	}
	return err
}

// Compile compiles one expression.
func (c *Compiler) Compile(n *pg.Node) (Expr, error) {
	if c.Hooks.Node != nil {
		if e, handled, err := c.Hooks.Node(n); handled || err != nil {
			return e, err
		}
	}
	switch {
	case n.GetAConst() != nil:
		return compileConst(n.GetAConst())
	case n.GetColumnRef() != nil:
		cr := n.GetColumnRef()
		var parts []string
		for i, f := range cr.Fields {
			if f.GetAStar() != nil {
				if ws, ok := c.Scope.(WholeRowScope); ok && i == 1 && len(cr.Fields) == 2 {
					if e, found, err := ws.WholeRow(parts[0], cr.Location); found || err != nil {
						return e, withPos(err, cr.Location)
					}
				}
				return nil, syntaxErrAt(cr.Location, "unexpected *")
			}
			parts = append(parts, f.GetString_().Sval)
		}
		qual := ""
		if len(parts) > 1 {
			qual = parts[len(parts)-2]
		}
		if c.Scope == nil {
			return nil, withPos(pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", parts[len(parts)-1]), cr.Location)
		}
		e, err := c.Scope.Resolve(qual, parts[len(parts)-1], cr.Location)
		if ws, ok := c.Scope.(WholeRowScope); ok && len(parts) == 1 && pgerr.Code(err) == pgerr.UndefinedColumn {
			// A table's name as a value is its row.
			if we, found, werr := ws.WholeRow(parts[0], cr.Location); found && werr == nil {
				return we, nil
			}
		}
		return e, withPos(err, cr.Location)
	case n.GetParamRef() != nil:
		p := n.GetParamRef()
		if p.Number < 1 {
			return nil, withPos(pgerr.Errorf(pgerr.UndefinedParameter, "there is no parameter $%d", p.Number), p.Location)
		}
		t := types.Unknown
		var slot *types.Type
		if c.Hooks.FixedParams && int(p.Number) > len(c.Hooks.ParamTypes) {
			return nil, withPos(pgerr.Errorf(pgerr.UndefinedParameter, "there is no parameter $%d", p.Number), p.Location)
		}
		if int(p.Number) <= len(c.Hooks.ParamTypes) {
			slot = &c.Hooks.ParamTypes[p.Number-1]
			t = *slot
		}
		return &Param{N: int(p.Number), T: t, Slot: slot}, nil
	case n.GetAExpr() != nil:
		return c.compileAExpr(c.expandStars(n).GetAExpr())
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		op := map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND", pg.BoolExprType_OR_EXPR: "OR", pg.BoolExprType_NOT_EXPR: "NOT"}[b.Boolop]
		out := &BoolOp{Op: op}
		for _, a := range b.Args {
			e, err := c.Compile(a)
			if err != nil {
				return nil, err
			}
			e, err = Coerce(e, types.Boolean, types.CastAssignment)
			if err != nil {
				return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", op, e.Type()), b.Location)
			}
			out.Args = append(out.Args, e)
		}
		return out, nil
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		if re := nt.Arg.GetRowExpr(); re != nil {
			return c.rowNullTest(re, nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL)
		}
		a, err := c.Compile(nt.Arg)
		if err != nil {
			return nil, err
		}
		return &NullTest{Arg: a, Not: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		bt := n.GetBooleanTest()
		a, err := c.Compile(bt.Arg)
		if err != nil {
			return nil, err
		}
		b, err := Coerce(a, types.Boolean, types.CastAssignment)
		if err != nil {
			return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", booleanTestName[bt.Booltesttype], a.Type()), parser.Location(bt.Arg))
		}
		t := &NullTest{Arg: b}
		switch bt.Booltesttype {
		case pg.BoolTestType_IS_TRUE, pg.BoolTestType_IS_NOT_TRUE:
			t.Of = TruthTrue
		case pg.BoolTestType_IS_FALSE, pg.BoolTestType_IS_NOT_FALSE:
			t.Of = TruthFalse
		}
		switch bt.Booltesttype {
		case pg.BoolTestType_IS_NOT_TRUE, pg.BoolTestType_IS_NOT_FALSE, pg.BoolTestType_IS_NOT_UNKNOWN:
			t.Not = true
		}
		return t, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if nm := tc.TypeName.Names; len(nm) > 0 && len(tc.TypeName.ArrayBounds) == 0 && strings.HasPrefix(nm[len(nm)-1].GetString_().GetSval(), "reg") {
			a, err := c.Compile(tc.Arg)
			if err != nil {
				return nil, err
			}
			if e, ok, err := regCast(a, nm[len(nm)-1].GetString_().GetSval()); ok {
				return e, withPos(err, tc.Location)
			}
		}
		t, err := castTypeFromName(tc.TypeName)
		if err != nil {
			if d, derr := c.lookupDomain(tc.TypeName, err); d != nil || derr != nil {
				if derr != nil {
					return nil, withPos(derr, tc.Location)
				}
				a, err := c.Compile(tc.Arg)
				if err != nil {
					return nil, err
				}
				return domainCast(a, d, tc.Location)
			}
			ut, ok, uerr := c.lookupUserType(tc.TypeName)
			if uerr != nil {
				return nil, withPos(uerr, tc.Location)
			}
			if !ok {
				return nil, withPos(err, tc.Location)
			}
			t = ut
		}
		if types.IsUserType(t) {
			a, err := c.Compile(tc.Arg)
			if err != nil {
				return nil, err
			}
			return c.userTypeCast(a, t, tc.Location)
		}
		var a Expr
		if ae := tc.Arg.GetAArrayExpr(); ae != nil && types.IsArray(t) {
			a, err = c.compileArray(ae, &t)
		} else {
			a, err = c.Compile(tc.Arg)
		}
		if err != nil {
			return nil, err
		}
		if types.IsUserType(a.Type()) {
			return c.userTypeCast(a, t, tc.Location)
		}
		out, err := ExplicitCast(a, t, tc.Location)
		if err != nil {
			return nil, err
		}
		return c.foldSettings(out)
	case n.GetSubLink() != nil:
		return c.compileSubLink(n.GetSubLink())
	case n.GetRowExpr() != nil:
		return c.compileRowValue(n.GetRowExpr())
	case n.GetCollateClause() != nil:
		if err := CheckCollation(n.GetCollateClause().Collname); err != nil {
			return nil, withPos(err, n.GetCollateClause().Location)
		}
		return c.Compile(n.GetCollateClause().Arg)
	case n.GetAIndirection() != nil:
		return c.compileIndirection(n.GetAIndirection())
	case n.GetAArrayExpr() != nil:
		return c.compileArray(n.GetAArrayExpr(), nil)
	case n.GetFuncCall() != nil:
		return c.compileFunc(n.GetFuncCall())
	case n.GetCaseExpr() != nil:
		return c.compileCase(n.GetCaseExpr())
	case n.GetCoalesceExpr() != nil:
		ce := n.GetCoalesceExpr()
		return c.compileVariadic("COALESCE", ce.Args, ce.Location)
	case n.GetMinMaxExpr() != nil:
		mm := n.GetMinMaxExpr()
		name := "GREATEST"
		if mm.Op == pg.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		return c.compileVariadic(name, mm.Args, mm.Location)
	case n.GetSqlvalueFunction() != nil:
		sv := n.GetSqlvalueFunction()
		switch sv.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP,
			pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N,
			pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE, pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			fname, label := "now", "CURRENT_TIMESTAMP"
			switch sv.Op {
			case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
				fname, label = "localtimestamp", "LOCALTIMESTAMP"
			case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
				fname, label = "current_date", "CURRENT_DATE"
			case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
				fname, label = "localtime", "LOCALTIME"
			}
			fn, err := types.LookupFunction(fname, nil)
			if err != nil {
				return nil, err
			}
			return &Func{Fn: fn, Name: label}, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return &CatalogCall{Name: "current_user", T: types.Name}, nil
		case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return &CatalogCall{Name: "session_user", T: types.Name}, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
			return &Const{Val: types.Str("postgres"), T: types.Name}, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
			return &Const{Val: types.Str("public"), T: types.Name}, nil
		}
		return nil, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "this SQL value function is not supported yet"), sv.Location)
	}
	if gf := n.GetGroupingFunc(); gf != nil {
		// The planner compiles GROUPING where the query groups; here its
		// arguments cannot be this query level's grouping expressions.
		loc := gf.Location
		if len(gf.Args) > 0 && gf.Args[0].GetColumnRef() != nil {
			loc = gf.Args[0].GetColumnRef().Location
		}
		return nil, withPos(pgerr.Errorf(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), loc)
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "expression type %s is not supported yet", nodeName(n))
}

func nodeName(n *pg.Node) string {
	s := strings.TrimPrefix(strings.SplitN(n.String(), ":", 2)[0], "node:")
	return strings.TrimSpace(s)
}

func compileConst(ac *pg.A_Const) (Expr, error) {
	if ac.Isnull {
		return &Const{Val: types.Null(), T: types.Unknown}, nil
	}
	switch {
	case ac.GetIval() != nil:
		return &Const{Val: types.Int(int64(ac.GetIval().Ival)), T: types.Int4, Implicit: true}, nil
	case ac.GetFval() != nil:
		s := ac.GetFval().Fval
		// PostgreSQL types integers that overflow int4 as bigint when they
		// fit, and every other numeric literal as numeric.
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return &Const{Val: types.Int(i), T: types.Int8, Implicit: true}, nil
		}
		v, err := types.ParseNumeric(s)
		if err != nil {
			return nil, withPos(err, ac.Location)
		}
		return &Const{Val: v, T: types.Numeric, Implicit: true}, nil
	case ac.GetBoolval() != nil:
		return &Const{Val: types.Bool(ac.GetBoolval().Boolval), T: types.Boolean, Implicit: true}, nil
	case ac.GetSval() != nil:
		return &Const{Val: types.Str(ac.GetSval().Sval), T: types.Unknown, Loc: ac.Location}, nil
	case ac.GetBsval() != nil:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "bit string literals are not supported yet")
	}
	return nil, syntaxErrAt(ac.Location, "bad constant")
}

// TypeFromName resolves a parse-tree type name.
func TypeFromName(tn *pg.TypeName) (types.Type, error) {
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().Sval)
	}
	var mods []int32
	for _, m := range tn.Typmods {
		if ac := m.GetAConst(); ac != nil && ac.GetIval() != nil {
			mods = append(mods, ac.GetIval().Ival)
		} else {
			return types.Type{}, pgerr.Errorf(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
	}
	t, err := types.LookupTypeName(names, mods)
	if err != nil {
		return t, withPos(err, tn.Location)
	}
	if len(tn.ArrayBounds) > 0 {
		// int[3][4] is int[]: PostgreSQL ignores declared array sizes
		// and dimensions; a typmod stays with the element (varchar(5)[]).
		at, ok := types.ArrayOf(types.Type{OID: t.OID, Typmod: -1})
		if !ok {
			return t, withPos(pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", t), tn.Location)
		}
		at.Typmod = t.Typmod
		return at, nil
	}
	return t, nil
}

// Coerce converts e to type t if the cast is allowed in that context.
func Coerce(e Expr, t types.Type, ctx types.CastContext) (Expr, error) {
	if t.OID == types.AnyOID {
		// A polymorphic "any" argument takes the value as it is.
		if e.Type().OID != types.UnknownOID {
			return e, nil
		}
		t = types.Text
	}
	if p, ok := e.(*Param); ok && p.T.OID == types.UnknownOID && t.OID != types.UnknownOID && t.Known() {
		// A parameter of unknown type takes the type its context wants
		// (PostgreSQL's coerce_type on a variable Param); a typmod is
		// then applied by a cast, as for any other value.
		p.Infer(types.Type{OID: t.OID, Typmod: -1})
	}
	from := e.Type()
	if from.OID == t.OID && (t.Typmod < 0 || from.Typmod == t.Typmod) {
		return e, nil
	}
	if types.IsUserType(from) || types.IsUserType(t) {
		return coerceUserType(e, t, ctx)
	}
	if c, ok := e.(*Const); ok && from.OID == types.UnknownOID {
		if c.Val.IsNull() {
			return &Const{Val: c.Val, T: t}, nil
		}
		if types.DependsOnSettings(from, t) {
			// checked now, converted when run (in the session's settings)
			if err := types.CheckInput(t, c.Val.Str()); err != nil {
				return nil, withPos(err, c.Loc)
			}
			return &Cast{Arg: e, To: t, Ctx: ctx}, nil
		}
		var d types.Datum
		var err error
		if (types.IsArray(t) || (ctx == types.CastExplicit && t.CharLen() >= 0)) && t.Typmod >= 0 {
			// '{abc}'::varchar(2)[] and 'abc'::varchar(2): the input
			// function without the typmod, then the length coercion of
			// the cast (which truncates if explicit), as coerce_type.
			d, err = types.Parse(types.Type{OID: t.OID, Typmod: -1}, c.Val.Str())
			if err == nil {
				// the length coercion runs with the statement: no position
				if d, err = types.ApplyTypmod(d, t, ctx == types.CastExplicit); err != nil {
					return nil, err
				}
			}
		} else {
			d, err = types.Parse(t, c.Val.Str())
		}
		if err != nil {
			return nil, withPos(err, c.Loc)
		}
		return &Const{Val: d, T: t}, nil
	}
	if from.OID == t.OID {
		// Same type, new typmod (varchar(n) length checks).
		return &Cast{Arg: e, To: t, Ctx: ctx}, nil
	}
	if !types.CanCast(from, t, ctx) {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "cannot cast type %s to %s", from, t)
	}
	if c, ok := e.(*Const); ok && !types.DependsOnSettings(from, t) {
		// Fold casts of constants, so plans show the typed literal.
		d, err := types.Cast(c.Val, from, t, ctx)
		if err == nil {
			return &Const{Val: d, T: t}, nil
		}
		return nil, err
	}
	return &Cast{Arg: e, To: t, Ctx: ctx}, nil
}

// ExplicitCast is a CAST or :: in the query.
func ExplicitCast(e Expr, t types.Type, loc int32) (Expr, error) {
	from := e.Type()
	if from.OID != types.UnknownOID && !types.CanCast(from, t, types.CastExplicit) {
		return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "cannot cast type %s to %s", from, t), loc)
	}
	out, err := Coerce(e, t, types.CastExplicit)
	if err != nil {
		return nil, withPos(err, loc)
	}
	if _, ok := out.(*Const); ok {
		return out, nil
	}
	if cc, ok := out.(*Cast); ok {
		cc.Ctx = types.CastExplicit
		return cc, nil
	}
	if out == e {
		return &Cast{Arg: e, To: t, Ctx: types.CastExplicit}, nil
	}
	return out, nil
}

func opName(names []*pg.Node) string {
	s := names[len(names)-1].GetString_().Sval
	return s
}

func (c *Compiler) compileAExpr(a *pg.A_Expr) (Expr, error) {
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		op := opName(a.Name)
		if a.Lexpr == nil {
			r, err := c.Compile(a.Rexpr)
			if err != nil {
				return nil, err
			}
			if op == "-" {
				if k, ok := r.(*Const); ok && !k.Val.IsNull() {
					switch {
					case types.IsInteger(k.T):
						return &Const{Val: types.Int(-k.Val.Int()), T: k.T, Implicit: true}, nil
					case types.IsFloat(k.T):
						return &Const{Val: types.Float(-k.Val.Float()), T: k.T, Implicit: true}, nil
					}
				}
			}
			return c.binary(op, nil, r, a.Location)
		}
		if sl := a.Rexpr.GetSubLink(); a.Lexpr.GetRowExpr() != nil && sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
			// (a, b) op (SELECT x, y), as PostgreSQL's transformAExprOp
			// turns it into a row-comparison sublink.
			return c.compileSubLink(&pg.SubLink{SubLinkType: pg.SubLinkType_ROWCOMPARE_SUBLINK, Testexpr: a.Lexpr,
				OperName: a.Name, Subselect: sl.Subselect, Location: a.Location})
		}
		if a.Lexpr.GetRowExpr() != nil || a.Rexpr.GetRowExpr() != nil {
			l, r, err := c.compileRowOperands(op, a.Lexpr, a.Rexpr, a.Location)
			if err != nil {
				return nil, err
			}
			return c.rowComparison(op, l, r, a.Location)
		}
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.Compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		if op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*" {
			return c.like(l, r, strings.HasPrefix(op, "!"), strings.Contains(op, "*"), a.Location)
		}
		return c.binary(op, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		// x [NOT] SIMILAR TO p: the parser made p similar_to_escape(p[, e])
		// and the operator ~ or !~.
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.Compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		return c.binary(opName(a.Name), l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.Compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		op := opName(a.Name)
		return c.like(l, r, strings.HasPrefix(op, "!"), a.Kind == pg.A_Expr_Kind_AEXPR_ILIKE, a.Location)
	case pg.A_Expr_Kind_AEXPR_IN:
		not := opName(a.Name) == "<>"
		if a.Lexpr.GetRowExpr() != nil {
			return c.rowIn(a, not)
		}
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		in := &InList{Arg: l, Not: not}
		var items []string
		for _, it := range a.Rexpr.GetList().Items {
			r, err := c.Compile(it)
			if err != nil {
				return nil, err
			}
			eq, err := c.binary("=", l, r, a.Location)
			if err != nil {
				return nil, err
			}
			in.Eqs = append(in.Eqs, eq)
			items = append(items, eq.(*Func).Args[1].String())
		}
		op := "= ANY"
		if not {
			op = "<> ALL"
		}
		in.Text = "(" + l.String() + " " + op + " ('{" + strings.Join(items, ",") + "}'))"
		return in, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		if e, ok, err := c.rowBetween(a); ok {
			return e, err
		}
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		bounds := a.Rexpr.GetList().Items
		lo, err := c.Compile(bounds[0])
		if err != nil {
			return nil, err
		}
		hi, err := c.Compile(bounds[1])
		if err != nil {
			return nil, err
		}
		ge, err := c.binary(">=", l, lo, a.Location)
		if err != nil {
			return nil, err
		}
		le, err := c.binary("<=", l, hi, a.Location)
		if err != nil {
			return nil, err
		}
		and := &BoolOp{Op: "AND", Args: []Expr{ge, le}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			return &BoolOp{Op: "NOT", Args: []Expr{and}}, nil
		}
		return and, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return c.compileScalarArrayOp(a, a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return c.compileVariadic("NULLIF", []*pg.Node{a.Lexpr, a.Rexpr}, a.Location)
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		if a.Lexpr.GetRowExpr() != nil || a.Rexpr.GetRowExpr() != nil {
			return c.rowDistinct(a, a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT)
		}
		l, err := c.Compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := c.Compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		eq, err := c.binary("=", l, r, a.Location)
		if err != nil {
			return nil, err
		}
		return &distinctFrom{l: l, r: r, eq: eq, not: a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT}, nil
	}
	return nil, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "operator kind %s is not supported yet", a.Kind), a.Location)
}

type distinctFrom struct {
	l, r, eq Expr
	not      bool
}

func (d *distinctFrom) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	a, err := d.l.Eval(env, row)
	if err != nil {
		return a, err
	}
	b, err := d.r.Eval(env, row)
	if err != nil {
		return b, err
	}
	var distinct bool
	switch {
	case a.IsNull() && b.IsNull():
		distinct = false
	case a.IsNull() || b.IsNull():
		distinct = true
	default:
		e, err := d.eq.Eval(env, row)
		if err != nil {
			return e, err
		}
		distinct = !e.Bool()
	}
	return types.Bool(distinct != d.not), nil
}
func (d *distinctFrom) Type() types.Type { return types.Boolean }
func (d *distinctFrom) String() string {
	if d.not {
		return "(" + d.l.String() + " IS NOT DISTINCT FROM " + d.r.String() + ")"
	}
	return "(" + d.l.String() + " IS DISTINCT FROM " + d.r.String() + ")"
}

func (c *Compiler) like(l, r Expr, not, icase bool, loc int32) (Expr, error) {
	if l.Type().OID == types.ByteaOID || r.Type().OID == types.ByteaOID {
		// bytea LIKE matches bytes, not the text form: its own operators.
		op := "~~"
		if icase {
			op = "~~*"
		}
		if not {
			op = "!" + op
		}
		return c.binary(op, l, r, loc)
	}
	var err error
	if l, err = Coerce(l, types.Text, types.CastAssignment); err != nil {
		return nil, err
	}
	if r, err = Coerce(r, types.Text, types.CastAssignment); err != nil {
		return nil, err
	}
	return &Like{Arg: l, Pattern: r, Not: not, ICase: icase}, nil
}

// Binary builds an operator application with PostgreSQL's resolution.
func Binary(op string, l, r Expr) (Expr, error) {
	var c Compiler
	return c.binary(op, l, r, -1)
}

func (c *Compiler) binary(op string, l, r Expr, loc int32) (Expr, error) {
	lt := types.Type{}
	if l != nil {
		lt = l.Type()
	}
	if p, ok := r.(*Param); ok && p.T.OID == types.UnknownOID && l != nil && lt.OID != types.UnknownOID {
		p.Infer(types.Type{OID: lt.OID, Typmod: -1})
	}
	if p, ok := l.(*Param); ok && p.T.OID == types.UnknownOID && r.Type().OID != types.UnknownOID {
		p.Infer(types.Type{OID: r.Type().OID, Typmod: -1})
		lt = p.T
	}
	if l != nil {
		if e, ok, err := c.userTypeOperator(op, l, r, loc); ok {
			return e, err
		}
	}
	fn, err := types.LookupOperator(op, lt, r.Type())
	if err != nil {
		return nil, withPos(err, loc)
	}
	var args []Expr
	if l != nil {
		a, err := Coerce(l, fn.Args[0], types.CastImplicit)
		if err != nil {
			return nil, withPos(err, loc)
		}
		b, err := Coerce(r, fn.Args[1], types.CastImplicit)
		if err != nil {
			return nil, withPos(err, loc)
		}
		if a, err = c.foldSettings(a); err != nil {
			return nil, err
		}
		if b, err = c.foldSettings(b); err != nil {
			return nil, err
		}
		args = []Expr{a, b}
	} else {
		a, err := Coerce(r, fn.Args[len(fn.Args)-1], types.CastImplicit)
		if err != nil {
			return nil, withPos(err, loc)
		}
		args = []Expr{a}
	}
	return &Func{Fn: fn, Args: args, Op: op}, nil
}

func (c *Compiler) compileFunc(fc *pg.FuncCall) (Expr, error) {
	if fc.Over != nil {
		if c.Hooks.Window != nil {
			e, err := c.Hooks.Window(fc)
			return e, withPos(err, fc.Location)
		}
		var err error = pgerr.Errorf(pgerr.WindowingError, "window functions are not allowed here")
		if c.Hooks.NoWindow != nil {
			err = c.Hooks.NoWindow()
		}
		return nil, withPos(err, fc.Location)
	}
	if name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval; IsWindowFunction(name) && len(fc.Funcname) == 1 && !fc.AggWithinGroup {
		return nil, withPos(pgerr.Errorf(pgerr.WrongObjectType, "window function %s requires an OVER clause", name), fc.Location)
	}
	if err := refuseUnsupportedCallSyntax(fc); err != nil {
		return nil, withPos(err, fc.Location)
	}
	if c.Hooks.Func != nil {
		e, handled, err := c.Hooks.Func(fc)
		if err != nil || handled {
			return e, err
		}
	}
	name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
	if c.Hooks.Func != nil {
		// The aggregate hook declined the call: it is not an aggregate,
		// so aggregate-only syntax is an error (never ignored).
		var clause string
		switch {
		case fc.AggStar:
			clause = name + "(*)"
		case fc.AggDistinct:
			clause = "DISTINCT"
		case fc.AggFilter != nil:
			clause = "FILTER"
		case len(fc.AggOrder) > 0:
			clause = "ORDER BY"
		}
		if clause != "" {
			return nil, withPos(pgerr.Errorf(pgerr.WrongObjectType, "%s specified, but %s is not an aggregate function", clause, name), fc.Location)
		}
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, withPos(pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed here"), fc.Location)
	}
	if e, handled, err := c.enumFunction(fc, name); handled || err != nil {
		return e, err
	}
	if c.Hooks.Routine != nil {
		if e, handled, err := c.Hooks.Routine(fc, c); handled || err != nil {
			return e, err
		}
	}
	if fc.FuncVariadic {
		return c.compileVariadicCall(name, fc)
	}
	if named, err := c.namedBuiltinCall(fc, name); named != nil || err != nil {
		return named, err
	}
	var args []Expr
	for _, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			return nil, c.namedArgCallError(fc, name)
		}
		e, err := c.Compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return c.BuiltinCall(name, args, fc.Location)
}

// namedArgCallError is the error for a call in named notation that no
// builtin takes (builtins have no parameter names here).
func (c *Compiler) namedArgCallError(fc *pg.FuncCall, name string) error {
	var parts []string
	for _, a := range fc.Args {
		arg, prefix := a, ""
		if na := a.GetNamedArgExpr(); na != nil {
			arg, prefix = na.Arg, na.Name+" => "
		}
		e, err := c.Compile(arg)
		if err != nil {
			return err
		}
		parts = append(parts, prefix+e.Type().BaseName())
	}
	return withPos(types.FuncNotFound(name, strings.Join(parts, ", "), false), fc.Location)
}

// BuiltinCall compiles a call of builtin function name on compiled
// arguments (resolution, coercion of the arguments).
func (c *Compiler) BuiltinCall(name string, args []Expr, loc int32) (Expr, error) {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	switch name {
	case "pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size", "tidal_check":
		if len(args) < 1 || len(args) > 2 || (len(args) == 2 && name != "pg_relation_size") {
			break
		}
		for i := range args {
			if args[i].Type().OID == types.UnknownOID {
				args[i], _ = Coerce(args[i], types.Text, types.CastImplicit)
			}
		}
		return &CatalogFunc{Name: name, Args: args}, nil
	}
	if e, ok, err := c.catalogCall(name, args, loc); ok {
		return e, err
	}
	fn, err := types.LookupFunction(name, ts)
	if err != nil {
		if e, ok, cerr := typeNameCall(name, args); ok {
			if cerr != nil {
				return nil, cerr
			}
			return c.foldSettings(e)
		}
		return nil, withPos(err, loc)
	}
	for i := range args {
		if i < len(fn.Args) {
			if args[i], err = Coerce(args[i], fn.Args[i], types.CastImplicit); err != nil {
				return nil, withPos(err, loc)
			}
		}
	}
	return &Func{Fn: fn, Args: args, Name: name}, nil
}

func (c *Compiler) compileVariadic(name string, nodes []*pg.Node, loc int32) (Expr, error) {
	var args []Expr
	t := types.Unknown
	for _, n := range nodes {
		e, err := c.Compile(n)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if t.OID == types.UnknownOID {
			t = e.Type()
		} else if e.Type().OID != types.UnknownOID {
			ct, ok := types.CommonType(t, e.Type())
			if !ok {
				return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", name, t, e.Type()), loc)
			}
			t = ct
		}
	}
	if t.OID == types.UnknownOID {
		t = types.Text
	}
	for i := range args {
		var err error
		if args[i], err = Coerce(args[i], t, types.CastImplicit); err != nil {
			return nil, withPos(err, loc)
		}
	}
	return &Coalesce{Args: args, T: t, Name: name}, nil
}

func (c *Compiler) compileCase(ce *pg.CaseExpr) (Expr, error) {
	out := &Case{}
	var arg Expr
	if ce.Arg != nil {
		var err error
		if arg, err = c.Compile(ce.Arg); err != nil {
			return nil, err
		}
	}
	t := types.Unknown
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		cond, err := c.Compile(cw.Expr)
		if err != nil {
			return nil, err
		}
		if arg != nil {
			if cond, err = c.binary("=", arg, cond, cw.Location); err != nil {
				return nil, err
			}
		}
		if cond, err = Coerce(cond, types.Boolean, types.CastAssignment); err != nil {
			return nil, err
		}
		res, err := c.Compile(cw.Result)
		if err != nil {
			return nil, err
		}
		out.Whens = append(out.Whens, cond)
		out.Thens = append(out.Thens, res)
		t = unify(t, res.Type())
	}
	if ce.Defresult != nil {
		e, err := c.Compile(ce.Defresult)
		if err != nil {
			return nil, err
		}
		out.Else = e
		t = unify(t, e.Type())
	}
	if t.OID == types.UnknownOID {
		t = types.Text
	}
	out.T = t
	for i := range out.Thens {
		var err error
		if out.Thens[i], err = Coerce(out.Thens[i], t, types.CastImplicit); err != nil {
			return nil, err
		}
	}
	if out.Else != nil {
		var err error
		if out.Else, err = Coerce(out.Else, t, types.CastImplicit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func unify(a, b types.Type) types.Type {
	if a.OID == types.UnknownOID {
		return b
	}
	if b.OID == types.UnknownOID {
		return a
	}
	if t, ok := types.CommonType(a, b); ok {
		return t
	}
	return a
}

// IsWindowFunction: name is one of PostgreSQL's built-in window functions
// (those that are no aggregates and need OVER).
func IsWindowFunction(name string) bool {
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
		"lag", "lead", "first_value", "last_value", "nth_value":
		return true
	}
	return false
}

// refuseUnsupportedCallSyntax rejects function-call syntax that is not
// implemented (ordered-set aggregates, VARIADIC), so it
// fails with 0A000 instead of being silently ignored.
func refuseUnsupportedCallSyntax(fc *pg.FuncCall) error {
	switch {
	case fc.AggWithinGroup:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "ordered-set aggregates (WITHIN GROUP) are not supported")
	}
	return nil
}

// CheckCollation accepts the collations tidal implements: it compares
// strings bytewise, which is the C collation (also POSIX, ucs_basic for
// UTF8, and the database default, whose datcollate is C). Any other
// collation would be silently ignored, so it is refused.
func CheckCollation(names []*pg.Node) error {
	if len(names) == 0 {
		return nil
	}
	name := names[len(names)-1].GetString_().GetSval()
	switch name {
	case "C", "POSIX", "ucs_basic", "default":
		return nil
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "collation \"%s\" is not supported (tidal compares strings bytewise, as collation \"C\")", name)
}

// booleanTestName names a boolean test in errors, as PostgreSQL does.
var booleanTestName = map[pg.BoolTestType]string{
	pg.BoolTestType_IS_TRUE: "IS TRUE", pg.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
	pg.BoolTestType_IS_FALSE: "IS FALSE", pg.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
	pg.BoolTestType_IS_UNKNOWN: "IS UNKNOWN", pg.BoolTestType_IS_NOT_UNKNOWN: "IS NOT UNKNOWN",
}
