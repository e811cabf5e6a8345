package expr

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// DeclTypeFromName resolves a type named in a routine declaration:
// arrays allowed, typmods dropped (pg_proc keeps only type OIDs).
func DeclTypeFromName(tn *pg.TypeName) (types.Type, error) {
	t, err := castTypeFromName(tn)
	return types.Type{OID: t.OID, Typmod: -1}, err
}

// castTypeFromName is TypeFromName that also accepts array types
// (text[], _int4 …), which casts may name but columns may not (yet).
func castTypeFromName(tn *pg.TypeName) (types.Type, error) {
	if len(tn.ArrayBounds) == 0 {
		if n := len(tn.Names); n > 0 {
			name := tn.Names[n-1].GetString_().GetSval()
			if strings.HasPrefix(name, "_") {
				if et, err := types.LookupTypeName([]string{name[1:]}, nil); err == nil {
					if at, ok := types.ArrayOf(et); ok {
						return at, nil
					}
				}
			}
		}
		return TypeFromName(tn)
	}
	base := &pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location}
	et, err := TypeFromName(base)
	if err != nil {
		return et, err
	}
	at, ok := types.ArrayOf(et)
	if !ok {
		return at, withPos(pgerr.Errorf(pgerr.UndefinedObject, "type %s[] does not exist", et), tn.Location)
	}
	at.Typmod = et.Typmod // char(2)[]: the typmod applies to each element
	return at, nil
}

// compileSubLink compiles EXISTS/IN/ANY/ALL/scalar/ARRAY subqueries.
func (c *Compiler) compileSubLink(sl *pg.SubLink) (Expr, error) {
	if c.Hooks.SubLink == nil {
		return nil, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "subqueries are not supported here"), sl.Location)
	}
	// The left operands are compiled before the subquery, in this scope.
	var left []Expr
	if sl.Testexpr != nil {
		if re := sl.Testexpr.GetRowExpr(); re != nil {
			for _, a := range re.Args {
				e, err := c.Compile(a)
				if err != nil {
					return nil, err
				}
				left = append(left, e)
			}
		} else {
			e, err := c.Compile(sl.Testexpr)
			if err != nil {
				return nil, err
			}
			left = append(left, e)
		}
	}
	if sl.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK && c.Hooks.Exists != nil {
		if e, handled, err := c.Hooks.Exists(sl.Subselect, c.Scope); handled || err != nil {
			return e, err
		}
	}
	plan, err := c.Hooks.SubLink(sl.Subselect, c.Scope)
	if err != nil {
		return nil, err
	}
	sp := &SubPlan{Plan: plan}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		sp.Kind, sp.T = SubExists, types.Boolean
		return sp, nil
	case pg.SubLinkType_EXPR_SUBLINK, pg.SubLinkType_ARRAY_SUBLINK:
		if len(plan.Types) != 1 {
			return nil, withPos(pgerr.Errorf(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		sp.Kind, sp.T = SubExpr, plan.Types[0]
		if sl.SubLinkType == pg.SubLinkType_ARRAY_SUBLINK {
			at, ok := types.ArrayOf(plan.Types[0])
			if types.IsArray(plan.Types[0]) {
				at, ok = plan.Types[0], true // ARRAY(SELECT an array): one more dimension
			}
			if !ok {
				return nil, withPos(pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", plan.Types[0]), sl.Location)
			}
			sp.Kind, sp.T = SubArray, at
		}
		return sp, nil
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK, pg.SubLinkType_ROWCOMPARE_SUBLINK:
		op := "="
		if len(sl.OperName) > 0 {
			op = opName(sl.OperName)
		}
		if len(left) != len(plan.Types) {
			msg := "subquery has too many columns"
			if len(left) > len(plan.Types) {
				msg = "subquery has too few columns"
			}
			return nil, withPos(pgerr.Errorf(pgerr.SyntaxError, "%s", msg), sl.Location)
		}
		n := len(left)
		var lvs, rvs []Expr
		for i, l := range left {
			lt := l.Type()
			if lt.OID == types.UnknownOID {
				if left[i], err = Coerce(l, plan.Types[i], types.CastImplicit); err != nil {
					return nil, withPos(err, sl.Location)
				}
				lt = left[i].Type()
			}
			lvs = append(lvs, &Var{Index: i, T: lt, Name: l.String()})
			rvs = append(rvs, &Var{Index: n + i, T: plan.Types[i], Name: "subquery"})
		}
		// Each subquery row is compared with the left operands as a row
		// comparison: (a, b) <> ALL (…) is true when every row differs in
		// some field, (a, b) < ANY (…) compares lexicographically.
		if sp.Test, err = c.rowComparison(op, lvs, rvs, sl.Location); err != nil {
			return nil, err
		}
		sp.Kind, sp.T, sp.Left = SubAny, types.Boolean, left
		switch sl.SubLinkType {
		case pg.SubLinkType_ALL_SUBLINK:
			sp.Kind = SubAll
		case pg.SubLinkType_ROWCOMPARE_SUBLINK:
			sp.Kind = SubRowCompare
		}
		return sp, nil
	}
	return nil, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of subquery is not supported yet"), sl.Location)
}

// compileArray compiles ARRAY[…]; want, if known, is the array type the
// context asks for (a cast). Elements that are arrays — nested ARRAY[…]
// or array-typed expressions — make a multidimensional array.
func (c *Compiler) compileArray(a *pg.A_ArrayExpr, want *types.Type) (Expr, error) {
	var elems []Expr
	et := types.Unknown
	if want != nil {
		et, _ = types.ElemType(*want)
	}
	nested := false
	for _, n := range a.Elements {
		if n.GetAArrayExpr() != nil {
			nested = true
		}
	}
	for _, n := range a.Elements {
		var e Expr
		var err error
		if sub := n.GetAArrayExpr(); sub != nil {
			e, err = c.compileArray(sub, want)
		} else {
			e, err = c.Compile(n)
		}
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
		if want == nil {
			t := e.Type()
			if nested || types.IsArray(t) {
				if st, ok := types.ElemType(t); ok {
					t = st
				}
			}
			et = unify(et, t)
		}
	}
	multi := nested
	if !multi && len(elems) > 0 {
		multi = true
		for _, e := range elems {
			if !types.IsArray(e.Type()) {
				multi = false
			}
		}
		if multi && want == nil {
			et, _ = types.ElemType(elems[0].Type())
			for _, e := range elems[1:] {
				st, _ := types.ElemType(e.Type())
				et = unify(et, st)
			}
		}
	}
	if et.OID == types.UnknownOID {
		if len(elems) == 0 {
			return nil, withPos(pgerr.Errorf("42P18", "cannot determine type of empty array").
				WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."), a.Location)
		}
		et = types.Text
	}
	at, ok := types.ArrayOf(types.Type{OID: et.OID, Typmod: -1})
	if !ok {
		return nil, withPos(pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", et), a.Location)
	}
	at.Typmod = et.Typmod
	for i := range elems {
		target := et
		if multi {
			target = at
		}
		if nested && want == nil {
			// sub-arrays were typed on their own; recompile with the
			// common type so their elements are coerced, not the arrays
			if sub := a.Elements[i].GetAArrayExpr(); sub != nil {
				var err error
				if elems[i], err = c.compileArray(sub, &at); err != nil {
					return nil, err
				}
				continue
			}
		}
		var err error
		ctx := types.CastImplicit
		if want != nil {
			ctx = types.CastExplicit // ARRAY[…]::t[] casts each element to t
		}
		if elems[i], err = Coerce(elems[i], target, ctx); err != nil {
			return nil, withPos(err, a.Location)
		}
	}
	return &ArrayExpr{Elems: elems, T: at, Multi: multi}, nil
}

// compileScalarArrayOp compiles x op ANY (array) / x op ALL (array).
func (c *Compiler) compileScalarArrayOp(a *pg.A_Expr, all bool) (Expr, error) {
	l, err := c.Compile(a.Lexpr)
	if err != nil {
		return nil, err
	}
	r, err := c.Compile(a.Rexpr)
	if err != nil {
		return nil, err
	}
	op := opName(a.Name)
	lt, rt := l.Type(), r.Type()
	if rt.OID == types.UnknownOID {
		base := lt
		if base.OID == types.UnknownOID {
			base = types.Text
		}
		at, ok := types.ArrayOf(base)
		if !ok {
			return nil, withPos(pgerr.Errorf(pgerr.UndefinedObject, "could not find array type for data type %s", base), a.Location)
		}
		if r, err = Coerce(r, at, types.CastImplicit); err != nil {
			return nil, withPos(err, a.Location)
		}
		rt = at
	}
	et, ok := types.ElemType(rt)
	if !ok {
		return nil, withPos(pgerr.Errorf(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side"), a.Location)
	}
	fn, err := types.LookupOperator(op, lt, et)
	if err != nil {
		return nil, withPos(err, a.Location)
	}
	if fn.Ret.OID != types.BoolOID {
		return nil, withPos(pgerr.Errorf(pgerr.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean"), a.Location)
	}
	if l, err = Coerce(l, fn.Args[0], types.CastImplicit); err != nil {
		return nil, withPos(err, a.Location)
	}
	if fn.Args[1].OID != et.OID {
		want, ok := types.ArrayOf(fn.Args[1])
		if !ok {
			return nil, withPos(pgerr.Errorf(pgerr.UndefinedFunction, "operator does not exist: %s %s %s[]", lt, op, et), a.Location)
		}
		if r, err = Coerce(r, want, types.CastImplicit); err != nil {
			return nil, withPos(err, a.Location)
		}
	}
	return &ScalarArrayOp{Left: l, Arr: r, Op: fn, OpName: op, All: all}, nil
}

// CatalogCaller is implemented by the executor's CatalogFuncs for the
// builtins that read the catalogs (pg_get_indexdef, …).
type CatalogCaller interface {
	Call(name string, args []types.Datum) (types.Datum, error)
}

// CatalogCall is a builtin answered by the catalog (see catalogCallTypes).
type CatalogCall struct {
	Name string
	Args []Expr
	T    types.Type
}

func (f *CatalogCall) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	vals := make([]types.Datum, len(f.Args))
	for i, a := range f.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return d, err
		}
		if d.IsNull() && !nonStrictCalls[f.Name] {
			return types.Null(), nil
		}
		vals[i] = d
	}
	var cc CatalogCaller
	if env != nil {
		cc, _ = env.Catalog.(CatalogCaller)
	}
	if cc == nil {
		return types.Null(), pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not available here", f.Name)
	}
	return cc.Call(f.Name, vals)
}
func (f *CatalogCall) Type() types.Type { return f.T }
func (f *CatalogCall) String() string {
	parts := make([]string, len(f.Args))
	for i, a := range f.Args {
		parts[i] = a.String()
	}
	name, _, _ := strings.Cut(f.Name, ":") // pg_has_role:nn is pg_has_role
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// catalogCalls are the builtins that need the catalog: argument types
// (the trailing ones optional) and result type.
var catalogCalls = map[string]struct {
	args []types.Type
	min  int
	ret  types.Type
}{
	"pg_get_indexdef":                {[]types.Type{types.Oid, types.Int4, types.Boolean}, 1, types.Text},
	"pg_get_constraintdef":           {[]types.Type{types.Oid, types.Boolean}, 1, types.Text},
	"pg_get_partkeydef":              {[]types.Type{types.Oid}, 1, types.Text},
	"pg_get_partition_constraintdef": {[]types.Type{types.Oid}, 1, types.Text},
	"pg_relation_is_updatable":       {[]types.Type{types.Oid, types.Boolean}, 2, types.Int4},
	"pg_column_is_updatable":         {[]types.Type{types.Oid, types.Int2, types.Boolean}, 3, types.Boolean},
	"pg_get_ruledef":                 {[]types.Type{types.Oid, types.Boolean}, 1, types.Text},
	"pg_get_viewdef":                 {[]types.Type{types.Oid, types.Boolean}, 1, types.Text}, // a view's OID or name (regclass)
	"regclassout":                    {[]types.Type{types.Oid}, 1, types.Text},
	"regclassin":                     {[]types.Type{types.Text}, 1, types.Oid},
	"regtypein":                      {[]types.Type{types.Text}, 1, types.Regtype},
	"regnamespaceout":                {[]types.Type{types.Oid}, 1, types.Text},
	"regnamespacein":                 {[]types.Type{types.Text}, 1, types.Oid},
	"regrolein":                      {[]types.Type{types.Text}, 1, types.Oid},
	"pg_table_is_visible":            {[]types.Type{types.Oid}, 1, types.Boolean},
	"pg_my_temp_schema":              {nil, 0, types.Oid},
	"current_schemas":                {[]types.Type{types.Boolean}, 1, nameArray},
	"pg_is_other_temp_schema":        {[]types.Type{types.Oid}, 1, types.Boolean},
	"pg_get_userbyid":                {[]types.Type{types.Oid}, 1, types.Name}, // any role, not only the bootstrap one
	"pg_get_triggerdef":              {[]types.Type{types.Oid, types.Boolean}, 1, types.Text},
	// Routines (exec/proccat.go).
	"pg_get_functiondef":                 {[]types.Type{types.Oid}, 1, types.Text},
	"pg_get_function_arguments":          {[]types.Type{types.Oid}, 1, types.Text},
	"pg_get_function_identity_arguments": {[]types.Type{types.Oid}, 1, types.Text},
	"pg_get_function_result":             {[]types.Type{types.Oid}, 1, types.Text},
	"pg_get_function_sqlbody":            {[]types.Type{types.Oid}, 1, types.Text},
	"regprocin":                          {[]types.Type{types.Text}, 1, types.Oid},
	"regprocedurein":                     {[]types.Type{types.Text}, 1, types.Oid},
	"regprocout":                         {[]types.Type{types.Oid}, 1, types.Text},
	"regprocedureout":                    {[]types.Type{types.Oid}, 1, types.Text},
	// The sequence functions; their first argument is a regclass.
	"nextval":                {[]types.Type{types.Oid}, 1, types.Int8},
	"currval":                {[]types.Type{types.Oid}, 1, types.Int8},
	"setval":                 {[]types.Type{types.Oid, types.Int8, types.Boolean}, 2, types.Int8},
	"lastval":                {nil, 0, types.Int8},
	"pg_get_serial_sequence": {[]types.Type{types.Text, types.Text}, 2, types.Text},
	"pg_relation_filenode":   {[]types.Type{types.Oid}, 1, types.Oid},
	// Advisory locks: a bigint key, or two integers (exec/advisory.go).
	"pg_advisory_lock":                 {advisoryKey, 1, types.Void},
	"pg_advisory_lock_shared":          {advisoryKey, 1, types.Void},
	"pg_advisory_xact_lock":            {advisoryKey, 1, types.Void},
	"pg_advisory_xact_lock_shared":     {advisoryKey, 1, types.Void},
	"pg_try_advisory_lock":             {advisoryKey, 1, types.Boolean},
	"pg_try_advisory_lock_shared":      {advisoryKey, 1, types.Boolean},
	"pg_try_advisory_xact_lock":        {advisoryKey, 1, types.Boolean},
	"pg_try_advisory_xact_lock_shared": {advisoryKey, 1, types.Boolean},
	"pg_advisory_unlock":               {advisoryKey, 1, types.Boolean},
	"pg_advisory_unlock_shared":        {advisoryKey, 1, types.Boolean},
	"pg_advisory_unlock_all":           {nil, 0, types.Void},
	// The backend functions: they need the session and its registry.
	"pg_backend_pid":       {nil, 0, types.Int4},
	"pg_trigger_depth":     {nil, 0, types.Int4},
	"pg_cancel_backend":    {[]types.Type{types.Int4}, 1, types.Boolean},
	"pg_terminate_backend": {[]types.Type{types.Int4, types.Int8}, 1, types.Boolean},
	"pg_sleep":             {[]types.Type{types.Float8}, 1, types.Void},
	"pg_sleep_for":         {[]types.Type{types.Interval}, 1, types.Void},
	"pg_sleep_until":       {[]types.Type{types.Timestamptz}, 1, types.Void},
	"pg_stat_reset_shared": {[]types.Type{types.Text}, 0, types.Void},
}

// advisoryKey: (bigint) or (integer, integer); the first argument of the
// pair form is read as a bigint and must fit an integer.
var advisoryKey = []types.Type{types.Int8, types.Int4}

// regclassArg marks the functions whose first argument is a regclass: a
// string there names a relation.
var regclassArg = map[string]bool{"nextval": true, "currval": true, "setval": true, "pg_relation_filenode": true,
	"pg_get_viewdef": true, "pg_relation_is_updatable": true, "pg_column_is_updatable": true}

func (c *Compiler) catalogCall(name string, args []Expr, loc int32) (Expr, bool, error) {
	if name == "pg_has_role" {
		return pgHasRoleCall(args, loc)
	}
	if _, ok := privilegeFuncs[name]; ok {
		return privilegeCall(name, args, loc)
	}
	spec, ok := catalogCalls[name]
	if !ok || len(args) < spec.min || len(args) > len(spec.args) {
		return nil, false, nil
	}
	for i := range args {
		var err error
		if i == 0 && regclassArg[name] && (types.IsString(args[0].Type()) || args[0].Type().OID == types.UnknownOID) {
			if args[0], _, err = regCast(args[0], "regclass"); err != nil {
				return nil, true, withPos(err, loc)
			}
		}
		if args[i], err = Coerce(args[i], spec.args[i], types.CastImplicit); err != nil {
			return nil, true, withPos(err, loc)
		}
	}
	return &CatalogCall{Name: name, Args: args, T: spec.ret}, true, nil
}

// regCast compiles casts to regclass/regtype/regnamespace/regproc, which
// tidal has no types for: from an OID they give the object's name as
// text; from a string, the object's OID.
func regCast(e Expr, name string) (Expr, bool, error) {
	kind := ""
	switch name {
	case "regclass":
		kind = "regclass"
	case "regtype":
		kind = "regtype"
	case "regnamespace":
		kind = "regnamespace"
	case "regproc", "regprocedure", "regrole":
		kind = name
	default:
		return nil, false, nil
	}
	t := e.Type()
	if types.IsString(t) || t.OID == types.UnknownOID {
		if kind != "regclass" && kind != "regnamespace" && kind != "regrole" && kind != "regproc" && kind != "regprocedure" && kind != "regtype" {
			return nil, true, pgerr.Errorf(pgerr.FeatureNotSupported, "casts to %s are not supported yet", kind)
		}
		a, err := Coerce(e, types.Text, types.CastImplicit)
		if err != nil {
			return nil, true, err
		}
		if kind == "regtype" {
			return &CatalogCall{Name: "regtypein", Args: []Expr{a}, T: types.Regtype}, true, nil
		}
		return &CatalogCall{Name: kind + "in", Args: []Expr{a}, T: types.Oid}, true, nil
	}
	a, err := Coerce(e, types.Oid, types.CastImplicit)
	if err != nil {
		return nil, true, err
	}
	switch kind {
	case "regtype":
		fn, err := types.LookupFunction("format_type", []types.Type{types.Oid, types.Int4})
		if err != nil {
			return nil, true, err
		}
		return &Func{Fn: fn, Args: []Expr{a, &Const{Val: types.Null(), T: types.Int4}}, Name: "format_type"}, true, nil
	case "regclass", "regnamespace":
		return &CatalogCall{Name: kind + "out", Args: []Expr{a}, T: types.Text}, true, nil
	case "regrole":
		return &CatalogCall{Name: "pg_get_userbyid", Args: []Expr{a}, T: types.Name}, true, nil
	case "regproc", "regprocedure":
		return &CatalogCall{Name: kind + "out", Args: []Expr{a}, T: types.Text}, true, nil
	}
	return a, true, nil
}

// compileIndirection compiles field selection and array subscripts:
// (r).f, a[i][j], a[l:u]; consecutive subscripts form one reference.
func (c *Compiler) compileIndirection(ind *pg.A_Indirection) (Expr, error) {
	e, err := c.Compile(ind.Arg)
	if err != nil {
		return nil, err
	}
	var pending []*pg.A_Indices
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		var err error
		if e.Type().OID == types.JSONBOID {
			e, err = c.jsonbSubscript(e, pending)
		} else {
			e, err = c.compileIndices(e, pending)
		}
		pending = nil
		return err
	}
	for _, n := range ind.Indirection {
		if fs := n.GetString_(); fs != nil {
			if err := flush(); err != nil {
				return nil, err
			}
			if e, err = c.selectField(e, fs.Sval); err != nil {
				return nil, err
			}
			continue
		}
		ai := n.GetAIndices()
		if ai == nil {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of indirection is not supported yet")
		}
		pending = append(pending, ai)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return e, nil
}

// NamedFields is an expression whose value is a row with known column
// names (a call of a routine with OUT parameters): (expr).name selects
// one.
type NamedFields interface {
	FieldNames() []string
	FieldTypes() []types.Type
}

func (c *Compiler) selectField(e Expr, name string) (Expr, error) {
	if comp := types.CompositeOf(c.Settings, e.Type()); comp != nil {
		for i, n := range comp.Fields {
			if n == name {
				return &FieldSelect{Arg: e, Field: i, T: comp.Types[i]}, nil
			}
		}
		return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" not found in data type %s", name, comp.Name)
	}
	nf, ok := e.(NamedFields)
	if !ok {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this kind of indirection is not supported yet")
	}
	for i, n := range nf.FieldNames() {
		if n == name {
			return &FieldSelect{Arg: e, Field: i, T: nf.FieldTypes()[i]}, nil
		}
	}
	return nil, pgerr.Errorf(pgerr.UndefinedColumn, "could not identify column \"%s\" in record data type", name)
}

var nameArray, _ = types.ArrayOf(types.Name)
