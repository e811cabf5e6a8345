package expr

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Row constructors — (a, b) and ROW(a, b) — are compiled away wherever
// PostgreSQL's parser and planner do the same, so the rest of tidal only
// sees the nodes it already knows:
//
//	(a, b) = (1, 2)              (a = 1) AND (b = 2)
//	(a, b) <> (1, 2)             (a <> 1) OR (b <> 2)
//	(a, b) IN ((1, 2), (3, 4))   OR of row equalities (NOT IN: AND of <>)
//	ROW(a, b) IS NULL            (a IS NULL) AND (b IS NULL)
//	ROW(a, b) IS NOT NULL        (a IS NOT NULL) AND (b IS NOT NULL)
//	ROW(a, b) IS DISTINCT FROM … OR of the fields' IS DISTINCT FROM
//
// Only the ordering comparisons (<, <=, >, >=) need a node of their own,
// RowCompare, because they are lexicographic.

// compileRowFields compiles the fields of a row constructor.
func (c *Compiler) compileRowFields(re *pg.RowExpr) ([]Expr, error) {
	out := make([]Expr, 0, len(re.Args))
	for _, a := range re.Args {
		e, err := c.Compile(a)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// compileRowOperands compiles the two sides of an operator of which at
// least one is a row constructor. A row against a non-row has no operator
// (PostgreSQL resolves it on type record and fails the same way).
func (c *Compiler) compileRowOperands(op string, ln, rn *pg.Node, loc int32) (l, r []Expr, err error) {
	lr, rr := ln.GetRowExpr(), rn.GetRowExpr()
	if lr == nil || rr == nil {
		lt, rt := types.Record, types.Record
		if lr == nil {
			if e, err := c.Compile(ln); err != nil {
				return nil, nil, err
			} else {
				lt = e.Type()
			}
		}
		if rr == nil {
			if e, err := c.Compile(rn); err != nil {
				return nil, nil, err
			} else {
				rt = e.Type()
			}
		}
		return nil, nil, withPos(pgerr.Errorf(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts."), loc)
	}
	if l, err = c.compileRowFields(lr); err != nil {
		return nil, nil, err
	}
	if r, err = c.compileRowFields(rr); err != nil {
		return nil, nil, err
	}
	if len(l) != len(r) {
		return nil, nil, withPos(pgerr.Errorf(pgerr.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	return l, r, nil
}

// rowComparison is l op r on two rows of the same length, as PostgreSQL's
// make_row_comparison_op builds it: = is the AND of the fields' equalities,
// <> the OR of their inequalities, and the ordering operators compare
// lexicographically. A one-field row compares as its field.
func (c *Compiler) rowComparison(op string, l, r []Expr, loc int32) (Expr, error) {
	if len(l) != len(r) {
		return nil, withPos(pgerr.Errorf(pgerr.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	if op == "!=" {
		op = "<>"
	}
	if len(l) == 0 {
		return nil, withPos(pgerr.Errorf(pgerr.FeatureNotSupported, "cannot compare rows of zero length"), loc)
	}
	pairs := make([]Expr, len(l))
	for i := range l {
		p, err := c.binary(op, l[i], r[i], loc)
		if err != nil {
			return nil, err
		}
		if p.Type().OID != types.BoolOID {
			return nil, withPos(pgerr.Errorf(pgerr.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", p.Type()), loc)
		}
		pairs[i] = p
	}
	if len(pairs) == 1 {
		return pairs[0], nil
	}
	switch op {
	case "=":
		return &BoolOp{Op: "AND", Args: pairs}, nil
	case "<>":
		return &BoolOp{Op: "OR", Args: pairs}, nil
	case "<", "<=", ">", ">=":
		rc := &RowCompare{Op: op}
		for _, p := range pairs {
			f := p.(*Func)
			a, b := f.Args[0], f.Args[1]
			eq, err := types.LookupOperator("=", a.Type(), b.Type())
			if err != nil {
				return nil, withPos(err, loc)
			}
			rc.Left = append(rc.Left, a)
			rc.Right = append(rc.Right, b)
			rc.Cmp = append(rc.Cmp, f.Fn)
			rc.Eq = append(rc.Eq, eq)
		}
		return rc, nil
	}
	return nil, withPos(pgerr.Errorf(pgerr.UndefinedFunction, "could not determine interpretation of row comparison operator %s", op).
		WithHint("Row comparison operators must be associated with btree operator families."), loc)
}

// rowIn is (…) [NOT] IN ((…), (…)): the OR of row equalities, or for NOT
// IN the AND of row inequalities (what PostgreSQL's planner shows).
func (c *Compiler) rowIn(a *pg.A_Expr, not bool) (Expr, error) {
	op, combine := "=", "OR"
	if not {
		op, combine = "<>", "AND"
	}
	var tests []Expr
	for _, it := range a.Rexpr.GetList().Items {
		l, r, err := c.compileRowOperands("=", a.Lexpr, it, a.Location)
		if err != nil {
			return nil, err
		}
		t, err := c.rowComparison(op, l, r, a.Location)
		if err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	if len(tests) == 1 {
		return tests[0], nil
	}
	return &BoolOp{Op: combine, Args: tests}, nil
}

// rowDistinct is (…) IS [NOT] DISTINCT FROM (…): the OR of the fields'
// IS DISTINCT FROM; its negation is the AND of their IS NOT DISTINCT FROM,
// written as PostgreSQL's planner prints it.
func (c *Compiler) rowDistinct(a *pg.A_Expr, not bool) (Expr, error) {
	l, r, err := c.compileRowOperands("=", a.Lexpr, a.Rexpr, a.Location)
	if err != nil {
		return nil, err
	}
	tests := make([]Expr, len(l))
	for i := range l {
		eq, err := c.binary("=", l[i], r[i], a.Location)
		if err != nil {
			return nil, err
		}
		var t Expr = &distinctFrom{l: l[i], r: r[i], eq: eq}
		if not {
			t = &BoolOp{Op: "NOT", Args: []Expr{t}}
		}
		tests[i] = t
	}
	if len(tests) == 1 {
		return tests[0], nil
	}
	if not {
		return &BoolOp{Op: "AND", Args: tests}, nil
	}
	return &BoolOp{Op: "OR", Args: tests}, nil
}

// rowNullTest is ROW(…) IS [NOT] NULL: true when every field is null (is
// not null), so IS NOT NULL is not the negation of IS NULL for a row with
// some null fields.
func (c *Compiler) rowNullTest(re *pg.RowExpr, not bool) (Expr, error) {
	fields, err := c.compileRowFields(re)
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		// Vacuously every field is null and every field is non-null.
		return &Const{Val: types.Bool(true), T: types.Boolean, Implicit: true}, nil
	}
	tests := make([]Expr, len(fields))
	for i, f := range fields {
		tests[i] = &NullTest{Arg: f, Not: not}
	}
	if len(tests) == 1 {
		return tests[0], nil
	}
	return &BoolOp{Op: "AND", Args: tests}, nil
}

// recordNullTest is IS [NOT] NULL on a non-null record value.
func recordNullTest(d types.Datum, not bool) types.Datum {
	_, fields := types.RecordFields(d)
	for _, f := range fields {
		if f.IsNull() == not {
			return types.Bool(false)
		}
	}
	return types.Bool(true)
}

// RowCompare is ROW(…) < ROW(…) and the other ordering comparisons: the
// fields are compared left to right; the first pair that is not equal
// decides, a NULL pair before it makes the result NULL, and equal rows
// satisfy only <= and >=.
type RowCompare struct {
	Op          string
	Left, Right []Expr
	// Cmp[i] is Op and Eq[i] is = on (Left[i], Right[i]) as typed.
	Cmp, Eq []*types.Func
	args    [2]types.Datum // scratch: one goroutine evaluates a tree at a time
}

func (rc *RowCompare) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	args := rc.args[:]
	for i := range rc.Left {
		a, err := rc.Left[i].Eval(env, row)
		if err != nil {
			return a, err
		}
		b, err := rc.Right[i].Eval(env, row)
		if err != nil {
			return b, err
		}
		if a.IsNull() || b.IsNull() {
			return types.Null(), nil
		}
		args[0], args[1] = a, b
		eq, err := callFunc(env, rc.Eq[i], args)
		if err != nil || eq.IsNull() {
			return eq, err
		}
		if !eq.Bool() {
			return callFunc(env, rc.Cmp[i], args)
		}
	}
	return types.Bool(rc.Op == "<=" || rc.Op == ">="), nil
}

// callFunc applies a builtin to already evaluated arguments.
func callFunc(env *Env, fn *types.Func, args []types.Datum) (types.Datum, error) {
	if fn.FnWith != nil {
		return fn.FnWith(env.settings(), args)
	}
	return fn.Fn(args)
}

func (rc *RowCompare) Type() types.Type { return types.Boolean }
func (rc *RowCompare) String() string {
	return "(" + rowString(rc.Left) + " " + rc.Op + " " + rowString(rc.Right) + ")"
}

func rowString(fields []Expr) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	return "ROW(" + strings.Join(parts, ", ") + ")"
}

// rowBetween is (…) [NOT] BETWEEN (…) AND (…), as two row comparisons
// (ok is false when no operand is a row constructor).
func (c *Compiler) rowBetween(a *pg.A_Expr) (e Expr, ok bool, err error) {
	bounds := a.Rexpr.GetList().Items
	if a.Lexpr.GetRowExpr() == nil && bounds[0].GetRowExpr() == nil && bounds[1].GetRowExpr() == nil {
		return nil, false, nil
	}
	lowOp, highOp, combine := ">=", "<=", "AND"
	if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		lowOp, highOp, combine = "<", ">", "OR"
	}
	var tests []Expr
	for i, op := range []string{lowOp, highOp} {
		l, r, err := c.compileRowOperands(op, a.Lexpr, bounds[i], a.Location)
		if err != nil {
			return nil, true, err
		}
		t, err := c.rowComparison(op, l, r, a.Location)
		if err != nil {
			return nil, true, err
		}
		tests = append(tests, t)
	}
	return &BoolOp{Op: combine, Args: tests}, true, nil
}

// evalRowCompare evaluates a SubRowCompare: the test against the
// subquery's only row, NULL if it has none. An uncorrelated subquery's row
// is kept for the statement (Eval has reset the cache for a new env).
func (s *SubPlan) evalRowCompare(env *Env, row []types.Datum, left []types.Datum) (types.Datum, error) {
	rows := s.cacheRows
	if s.Plan.Correlated || s.cacheEnv != env {
		rows = nil
		err := s.run(env, row, func(r []types.Datum) (bool, error) {
			if len(rows) > 0 {
				return false, pgerr.Errorf(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			rows = append(rows, append([]types.Datum(nil), r...))
			return true, nil
		})
		if err != nil {
			return types.Null(), err
		}
		if !s.Plan.Correlated {
			s.cacheRows, s.cacheEnv = rows, env
		}
	}
	if len(rows) == 0 {
		return types.Null(), nil
	}
	return s.Test.Eval(env, append(append(make([]types.Datum, 0, len(left)+len(rows[0])), left...), rows[0]...))
}

// RowValue is a row constructor used as a value (a result column): a
// record whose fields keep their types (types.RecordValue).
type RowValue struct {
	Fields []Expr
}

// compileRowValue compiles ROW(…) as a value; literals of unknown type
// become text, as PostgreSQL resolves them in a row.
func (c *Compiler) compileRowValue(re *pg.RowExpr) (Expr, error) {
	fields, err := c.compileRowFields(re)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		if f.Type().OID == types.UnknownOID {
			if fields[i], err = Coerce(f, types.Text, types.CastImplicit); err != nil {
				return nil, withPos(err, re.Location)
			}
		}
	}
	return &RowValue{Fields: fields}, nil
}

func (rv *RowValue) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	ts := make([]types.Type, len(rv.Fields))
	vals := make([]types.Datum, len(rv.Fields))
	for i, f := range rv.Fields {
		d, err := f.Eval(env, row)
		if err != nil {
			return d, err
		}
		ts[i], vals[i] = f.Type(), d
	}
	return types.RecordValue(ts, vals), nil
}
func (rv *RowValue) Type() types.Type { return types.Record }
func (rv *RowValue) String() string   { return rowString(rv.Fields) }
