package expr

import (
	"fmt"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// OuterVar reads a column of an enclosing query's current row (a
// correlated reference): Depth 1 is the innermost enclosing row.
type OuterVar struct {
	Depth int
	Index int
	T     types.Type
	Name  string
}

func (v *OuterVar) Eval(env *Env, _ []types.Datum) (types.Datum, error) {
	if env == nil || len(env.Outer) < v.Depth {
		return types.Null(), pgerr.Errorf(pgerr.InternalError, "outer reference %s evaluated without its row", v.Name)
	}
	r := env.Outer[len(env.Outer)-v.Depth]
	if v.Index >= len(r) {
		return types.Null(), nil
	}
	return r[v.Index], nil
}
func (v *OuterVar) Type() types.Type { return v.T }
func (v *OuterVar) String() string   { return v.Name }

// SubLinkKind is the kind of a subquery in an expression.
type SubLinkKind int

const (
	SubExists SubLinkKind = iota
	SubExpr
	SubAny
	SubAll
	SubArray
	// SubRowCompare is (a, b) op (SELECT x, y): the subquery returns at
	// most one row, and none makes the comparison NULL.
	SubRowCompare
	// SubRow is the source of UPDATE … SET (a, b) = (SELECT x, y): the
	// subquery's one row as a record (NULL when there is none), whose
	// fields FieldSelect takes apart.
	SubRow
)

// SubqueryPlan is a planned subquery, run by the executor.
type SubqueryPlan struct {
	ID         int
	Types      []types.Type
	Correlated bool
	// Run opens the plan with env (whose Outer stack already holds the
	// current row) and calls fn per row until fn returns false.
	Run func(env *Env, fn func(row []types.Datum) (bool, error)) error
	// Node is the plan, for EXPLAIN.
	Node any
	// Levels are the query levels below its own the subquery refers to
	// (with Correlated).
	Levels map[int]bool
}

// SubPlan is EXISTS (…), (SELECT …), x IN (SELECT …), x op ANY/ALL
// (SELECT …) or ARRAY(SELECT …). A correlated subquery runs again for
// each row; an uncorrelated one once per statement.
type SubPlan struct {
	Kind SubLinkKind
	Plan *SubqueryPlan
	// Left are the left operands of ANY/ALL, evaluated against the row.
	Left []Expr
	// Test compares one subquery row with the left operands: it is
	// evaluated against [left values…, subquery row…].
	Test Expr
	T    types.Type

	cacheEnv  *Env
	cached    types.Datum
	cacheRows [][]types.Datum
	// hashed is the cached rows' keys when x IN (uncorrelated SELECT)
	// can be answered by hashing (hashedIn); hashNull: a row was NULL.
	hashed   map[string]struct{}
	hashNull bool
	hashType types.Type
}

func (s *SubPlan) Type() types.Type { return s.T }
func (s *SubPlan) String() string {
	name := fmt.Sprintf("SubPlan %d", s.Plan.ID)
	if !s.Plan.Correlated {
		name = fmt.Sprintf("InitPlan %d", s.Plan.ID)
	}
	switch s.Kind {
	case SubAny, SubAll:
		var ls []string
		for _, l := range s.Left {
			ls = append(ls, l.String())
		}
		q := "ANY"
		if s.Kind == SubAll {
			q = "ALL"
		}
		return "(" + strings.Join(ls, ", ") + " " + q + " (" + name + "))"
	case SubExists:
		return "(EXISTS (" + name + "))"
	}
	return "(" + name + ")"
}

func (s *SubPlan) run(env *Env, row []types.Datum, fn func(r []types.Datum) (bool, error)) error {
	env.Outer = append(env.Outer, row)
	defer func() { env.Outer = env.Outer[:len(env.Outer)-1] }()
	return s.Plan.Run(env, fn)
}

func (s *SubPlan) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	if env == nil {
		env = &Env{}
	}
	cache := !s.Plan.Correlated
	if cache && s.cacheEnv != env {
		s.cacheEnv, s.cacheRows, s.cached = nil, nil, types.Null()
	}
	switch s.Kind {
	case SubAny, SubAll, SubRowCompare:
		left := make([]types.Datum, len(s.Left))
		for i, l := range s.Left {
			d, err := l.Eval(env, row)
			if err != nil {
				return d, err
			}
			left[i] = d
		}
		if s.Kind == SubRowCompare {
			return s.evalRowCompare(env, row, left)
		}
		sawNull := false
		result := types.Null()
		done := false
		test := func(r []types.Datum) (bool, error) {
			buf := append(append(make([]types.Datum, 0, len(left)+len(r)), left...), r...)
			d, err := s.Test.Eval(env, buf)
			if err != nil {
				return false, err
			}
			switch {
			case d.IsNull():
				sawNull = true
			case d.Bool() == (s.Kind == SubAny):
				result, done = types.Bool(s.Kind == SubAny), true
				return false, nil
			}
			return true, nil
		}
		if cache {
			if s.cacheEnv == nil {
				var rows [][]types.Datum
				if err := s.run(env, row, func(r []types.Datum) (bool, error) {
					rows = append(rows, append([]types.Datum(nil), r...))
					return true, nil
				}); err != nil {
					return types.Null(), err
				}
				s.cacheRows, s.cacheEnv = rows, env
				s.hashed, s.hashNull = nil, false
				if t, ok := s.hashedIn(); ok {
					s.buildHash(t)
				}
			}
			if s.hashed != nil {
				return s.probeHash(left[0]), nil
			}
			for _, r := range s.cacheRows {
				more, err := test(r)
				if err != nil {
					return types.Null(), err
				}
				if !more {
					break
				}
			}
		} else if err := s.run(env, row, test); err != nil {
			return types.Null(), err
		}
		if done {
			return result, nil
		}
		if sawNull {
			return types.Null(), nil
		}
		return types.Bool(s.Kind == SubAll), nil
	}
	if cache && s.cacheEnv == env {
		return s.cached, nil
	}
	var out types.Datum
	var err error
	switch s.Kind {
	case SubExists:
		found := false
		err = s.run(env, row, func([]types.Datum) (bool, error) { found = true; return false, nil })
		out = types.Bool(found)
	case SubExpr:
		n := 0
		out = types.Null()
		err = s.run(env, row, func(r []types.Datum) (bool, error) {
			n++
			if n > 1 {
				return false, pgerr.Errorf(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			out = r[0]
			return true, nil
		})
	case SubRow:
		n := 0
		out = types.Null()
		err = s.run(env, row, func(r []types.Datum) (bool, error) {
			n++
			if n > 1 {
				return false, pgerr.Errorf(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			out = types.RecordValue(s.Plan.Types, r)
			return true, nil
		})
	case SubArray:
		var elems []types.Datum
		ofArrays := types.IsArray(s.Plan.Types[0])
		err = s.run(env, row, func(r []types.Datum) (bool, error) {
			if ofArrays {
				if err := types.CheckAccumArray(elems, r[0]); err != nil {
					return false, err
				}
			}
			elems = append(elems, r[0])
			return true, nil
		})
		out = types.Array(elems)
		if ofArrays && err == nil {
			out, err = types.StackArrays(elems)
		}
	}
	if err != nil {
		return types.Null(), err
	}
	if cache {
		s.cached, s.cacheEnv = out, env
	}
	return out, nil
}

// ArrayExpr is ARRAY[a, b, …]; Multi: the elements are arrays, stacked
// into one more dimension (ARRAY[[1,2],[3,4]]).
type ArrayExpr struct {
	Elems []Expr
	T     types.Type
	Multi bool
}

func (a *ArrayExpr) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	vals := make([]types.Datum, len(a.Elems))
	for i, e := range a.Elems {
		d, err := e.Eval(env, row)
		if err != nil {
			return d, err
		}
		vals[i] = d
	}
	if a.Multi {
		return types.StackArrays(vals)
	}
	return types.Array(vals), nil
}
func (a *ArrayExpr) Type() types.Type { return a.T }
func (a *ArrayExpr) String() string {
	parts := make([]string, len(a.Elems))
	for i, e := range a.Elems {
		parts[i] = e.String()
	}
	return "ARRAY[" + strings.Join(parts, ", ") + "]"
}

// ScalarArrayOp is x op ANY (array) / x op ALL (array).
type ScalarArrayOp struct {
	Left, Arr Expr
	Op        *types.Func // on (left type, element type)
	OpName    string
	All       bool
}

func (s *ScalarArrayOp) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	l, err := s.Left.Eval(env, row)
	if err != nil {
		return l, err
	}
	a, err := s.Arr.Eval(env, row)
	if err != nil || a.IsNull() {
		return types.Null(), err
	}
	elems := a.Elems()
	if len(elems) == 0 {
		return types.Bool(s.All), nil
	}
	if l.IsNull() {
		return types.Null(), nil
	}
	sawNull := false
	args := make([]types.Datum, 2)
	for _, e := range elems {
		if e.IsNull() {
			sawNull = true
			continue
		}
		args[0], args[1] = l, e
		d, err := s.Op.Fn(args)
		if err != nil {
			return d, err
		}
		if d.IsNull() {
			sawNull = true
		} else if d.Bool() != s.All {
			return types.Bool(!s.All), nil
		}
	}
	if sawNull {
		return types.Null(), nil
	}
	return types.Bool(s.All), nil
}
func (s *ScalarArrayOp) Type() types.Type { return types.Boolean }
func (s *ScalarArrayOp) String() string {
	q := "ANY"
	if s.All {
		q = "ALL"
	}
	return "(" + s.Left.String() + " " + s.OpName + " " + q + " (" + s.Arr.String() + "))"
}

// Children returns the direct subexpressions of e that are evaluated
// against the same row; ok is false for a node this package does not know.
func Children(e Expr) (kids []Expr, ok bool) {
	switch x := e.(type) {
	case nil, *Var, *OuterVar, *Const, *Param:
		return nil, true
	case *Func:
		return x.Args, true
	case *BoolOp:
		return x.Args, true
	case *NullTest:
		return []Expr{x.Arg}, true
	case *Cast:
		return []Expr{x.Arg}, true
	case *Like:
		return []Expr{x.Arg, x.Pattern}, true
	case *InList:
		return append([]Expr{x.Arg}, x.Eqs...), true
	case *Case:
		out := append(append([]Expr{}, x.Whens...), x.Thens...)
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out, true
	case *Coalesce:
		return x.Args, true
	case *distinctFrom:
		return []Expr{x.l, x.r, x.eq}, true
	case *CatalogFunc:
		return x.Args, true
	case *SubPlan:
		return x.Left, true
	case *HashedExists:
		return x.Keys, true
	case *ArrayExpr:
		return x.Elems, true
	case *ScalarArrayOp:
		return []Expr{x.Left, x.Arr}, true
	case *RowValue:
		return x.Fields, true
	case *RowCompare:
		return append(append([]Expr{}, x.Left...), x.Right...), true
	case ExternalNode:
		return x.ArgExprs(), true
	case *CatalogCall:
		return x.Args, true
	}
	return nil, false
}

// Walk calls fn for e and its subexpressions (preorder) until fn returns
// false; it returns false if some node was unknown.
func Walk(e Expr, fn func(Expr) bool) bool {
	if e == nil {
		return true
	}
	if !fn(e) {
		return true
	}
	kids, ok := Children(e)
	if !ok {
		return false
	}
	for _, k := range kids {
		if !Walk(k, fn) {
			return false
		}
	}
	return true
}

// ExternalNode is an expression node of another package (a call of a
// user routine) whose arguments MapVars and MapParams reach.
type ExternalNode interface {
	Expr
	ArgExprs() []Expr
	WithArgs(args []Expr) Expr
}

// MapVars returns a copy of e with every Var replaced by fn(v); ok is
// false if e holds a node that cannot be copied (a correlated subquery,
// which reads the whole row, or an unknown node).
func MapVars(e Expr, fn func(v *Var) Expr) (Expr, bool) {
	return mapLeaves(e, func(x Expr) (Expr, bool) {
		if v, ok := x.(*Var); ok {
			return fn(v), true
		}
		return nil, false
	})
}

// MapParams returns a copy of e with every Param replaced by fn(p) (the
// arguments of an inlined function); ok as for MapVars.
func MapParams(e Expr, fn func(p *Param) Expr) (Expr, bool) {
	return mapLeaves(e, func(x Expr) (Expr, bool) {
		if p, ok := x.(*Param); ok {
			return fn(p), true
		}
		return nil, false
	})
}

// mapLeaves copies e, replacing each node for which leaf says done.
func mapLeaves(e Expr, leaf func(Expr) (Expr, bool)) (Expr, bool) {
	if e == nil {
		return nil, true
	}
	if r, done := leaf(e); done {
		return r, true
	}
	mapAll := func(es []Expr) ([]Expr, bool) {
		out := make([]Expr, len(es))
		for i, a := range es {
			m, ok := mapLeaves(a, leaf)
			if !ok {
				return nil, false
			}
			out[i] = m
		}
		return out, true
	}
	switch x := e.(type) {
	case *Var, *OuterVar, *Const, *Param:
		return x, true
	case ExternalNode:
		args, ok := mapAll(x.ArgExprs())
		if !ok {
			return nil, false
		}
		return x.WithArgs(args), true
	case *Func:
		args, ok := mapAll(x.Args)
		return &Func{Fn: x.Fn, Args: args, Op: x.Op, Name: x.Name}, ok
	case *BoolOp:
		args, ok := mapAll(x.Args)
		return &BoolOp{Op: x.Op, Args: args}, ok
	case *NullTest:
		a, ok := mapLeaves(x.Arg, leaf)
		return &NullTest{Arg: a, Not: x.Not, Of: x.Of}, ok
	case *Cast:
		a, ok := mapLeaves(x.Arg, leaf)
		return &Cast{Arg: a, To: x.To, Ctx: x.Ctx}, ok
	case *Like:
		a, ok1 := mapLeaves(x.Arg, leaf)
		p, ok2 := mapLeaves(x.Pattern, leaf)
		return &Like{Arg: a, Pattern: p, Not: x.Not, ICase: x.ICase}, ok1 && ok2
	case *InList:
		a, ok1 := mapLeaves(x.Arg, leaf)
		eqs, ok2 := mapAll(x.Eqs)
		return &InList{Arg: a, Eqs: eqs, Not: x.Not, Text: x.Text}, ok1 && ok2
	case *Case:
		w, ok1 := mapAll(x.Whens)
		t, ok2 := mapAll(x.Thens)
		el, ok3 := mapLeaves(x.Else, leaf)
		return &Case{Whens: w, Thens: t, Else: el, T: x.T}, ok1 && ok2 && ok3
	case *Coalesce:
		args, ok := mapAll(x.Args)
		return &Coalesce{Args: args, T: x.T, Name: x.Name}, ok
	case *distinctFrom:
		l, ok1 := mapLeaves(x.l, leaf)
		r, ok2 := mapLeaves(x.r, leaf)
		eq, ok3 := mapLeaves(x.eq, leaf)
		return &distinctFrom{l: l, r: r, eq: eq, not: x.not}, ok1 && ok2 && ok3
	case *CatalogFunc:
		args, ok := mapAll(x.Args)
		return &CatalogFunc{Name: x.Name, Args: args}, ok
	case *SubPlan:
		if x.Plan.Correlated {
			return nil, false
		}
		left, ok := mapAll(x.Left)
		return &SubPlan{Kind: x.Kind, Plan: x.Plan, Left: left, Test: x.Test, T: x.T}, ok
	case *HashedExists:
		keys, ok := mapAll(x.Keys)
		return &HashedExists{Plan: x.Plan, Keys: keys, Test: x.Test, table: x.table}, ok
	case *ArrayExpr:
		el, ok := mapAll(x.Elems)
		return &ArrayExpr{Elems: el, T: x.T, Multi: x.Multi}, ok
	case *ScalarArrayOp:
		l, ok1 := mapLeaves(x.Left, leaf)
		a, ok2 := mapLeaves(x.Arr, leaf)
		return &ScalarArrayOp{Left: l, Arr: a, Op: x.Op, OpName: x.OpName, All: x.All}, ok1 && ok2
	case *RowValue:
		fields, ok := mapAll(x.Fields)
		return &RowValue{Fields: fields}, ok
	case *RowCompare:
		l, ok1 := mapAll(x.Left)
		r, ok2 := mapAll(x.Right)
		return &RowCompare{Op: x.Op, Left: l, Right: r, Cmp: x.Cmp, Eq: x.Eq}, ok1 && ok2
	case *CatalogCall:
		args, ok := mapAll(x.Args)
		return &CatalogCall{Name: x.Name, Args: args, T: x.T}, ok
	}
	return nil, false
}

// FieldSelect is field Field (from 0) of a record; NULL for a NULL record.
type FieldSelect struct {
	Arg   Expr
	Field int
	T     types.Type
}

func (f *FieldSelect) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	d, err := f.Arg.Eval(env, row)
	if err != nil || d.IsNull() {
		return types.Null(), err
	}
	_, vals := types.RecordFields(d)
	if f.Field >= len(vals) {
		return types.Null(), nil
	}
	return vals[f.Field], nil
}
func (f *FieldSelect) Type() types.Type { return f.T }
func (f *FieldSelect) String() string   { return fmt.Sprintf("(%s).f%d", f.Arg.String(), f.Field+1) }

// hashKeyTypes are the types whose AppendGroupKey bytes are equal exactly
// when = says the values are equal (no collation, no -0/NaN or trailing
// blank rules), so a hash set can answer x IN (…).
var hashKeyTypes = map[types.OID]bool{
	types.Int2OID: true, types.Int4OID: true, types.Int8OID: true, types.OidOID: true,
	types.TextOID: true, types.VarcharOID: true, types.NameOID: true, types.BoolOID: true,
	types.DateOID: true, types.TimestampOID: true, types.UUIDOID: true,
}

// hashedIn reports whether s is x IN (SELECT y …) with x = y on one
// column of a hash-key type: then, like PostgreSQL's hashed SubPlan, the
// subquery's rows go into a hash set once instead of being compared with
// every outer row.
func (s *SubPlan) hashedIn() (types.Type, bool) {
	if s.Kind != SubAny || len(s.Left) != 1 {
		return types.Type{}, false
	}
	f, ok := s.Test.(*Func)
	if !ok || f.Op != "=" || len(f.Args) != 2 || f.Fn == nil || len(f.Fn.Args) != 2 {
		return types.Type{}, false
	}
	l, lok := f.Args[0].(*Var)
	r, rok := f.Args[1].(*Var)
	if !lok || !rok || l.Index != 0 || r.Index != 1 {
		return types.Type{}, false
	}
	t := l.T
	if r.T.OID != t.OID || f.Fn.Args[0].OID != t.OID || f.Fn.Args[1].OID != t.OID || !hashKeyTypes[t.OID] {
		return types.Type{}, false
	}
	return t, true
}

func (s *SubPlan) buildHash(t types.Type) {
	s.hashed, s.hashType = make(map[string]struct{}, len(s.cacheRows)), t
	for _, r := range s.cacheRows {
		if r[0].IsNull() {
			s.hashNull = true
			continue
		}
		s.hashed[string(types.AppendGroupKey(nil, t, r[0]))] = struct{}{}
	}
}

// probeHash is x IN (…) by the hash set, with SQL's NULL rules: NULL when
// x is NULL (and there are rows) or when x is not found but a row was NULL.
func (s *SubPlan) probeHash(x types.Datum) types.Datum {
	if len(s.cacheRows) == 0 {
		return types.Bool(false)
	}
	if x.IsNull() {
		return types.Null()
	}
	if _, ok := s.hashed[string(types.AppendGroupKey(nil, s.hashType, x))]; ok {
		return types.Bool(true)
	}
	if s.hashNull {
		return types.Null()
	}
	return types.Bool(false)
}
