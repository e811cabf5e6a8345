// Package expr is tidal's scalar expressions: a tree compiled from
// PostgreSQL parse nodes, typed, evaluated against a row, and printed the
// way PostgreSQL's EXPLAIN prints expressions.
package expr

import (
	"fmt"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Env is what evaluation needs besides the row.
type Env struct {
	// Catalog answers functions that look at the database itself.
	Catalog  CatalogFuncs
	Params   []types.Datum
	TxnTime  int64 // transaction start, µs since 2000-01-01 (now())
	StmtTime int64
	// Settings are the session settings types need (TimeZone); nil
	// means the defaults.
	Settings *types.Settings
	// Outer is the stack of rows of enclosing queries (correlated
	// subqueries, LATERAL): OuterVar{Depth: d} reads Outer[len-d].
	Outer [][]types.Datum
	// Exec is the executor's per-statement state, for running subqueries.
	Exec any
}

// Expr is a typed scalar expression.
type Expr interface {
	Eval(env *Env, row []types.Datum) (types.Datum, error)
	Type() types.Type
	// String prints the expression as EXPLAIN does.
	String() string
}

// Const is a literal.
type Const struct {
	Val types.Datum
	T   types.Type
	// Implicit: print without a cast (integer literals, booleans).
	Implicit bool
	// Loc is the literal's position in the query (0-based), or -1.
	Loc int32
	// Settings, when set, are the session settings the value was
	// converted in; EXPLAIN prints it in them (timestamptz in TimeZone).
	Settings *types.Settings
}

func (c *Const) Eval(*Env, []types.Datum) (types.Datum, error) { return c.Val, nil }
func (c *Const) Type() types.Type                              { return c.T }
func (c *Const) String() string {
	if c.Val.IsNull() {
		return "NULL::" + c.T.String()
	}
	s := types.FormatTextWith(c.Settings, c.T, c.Val)
	switch c.T.OID {
	case types.Int4OID, types.BoolOID:
		if c.T.OID == types.BoolOID {
			if c.Val.Bool() {
				return "true"
			}
			return "false"
		}
		if c.Val.Int() < 0 {
			return "'" + s + "'::integer"
		}
		return s
	case types.UnknownOID:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::" + c.T.String()
}

// Var reads a column of the input row.
type Var struct {
	Index int
	T     types.Type
	Name  string // as EXPLAIN prints it
}

func (v *Var) Eval(_ *Env, row []types.Datum) (types.Datum, error) { return row[v.Index], nil }
func (v *Var) Type() types.Type                                    { return v.T }
func (v *Var) String() string                                      { return v.Name }

// Param is $n of a prepared statement.
type Param struct {
	N int // 1-based
	T types.Type
	// Slot, when set, is the statement-wide type of $N (an element of the
	// compiler's Hooks.ParamTypes): inferring this node's type from its
	// context also fixes the type there, so that later uses of $N and the
	// statement's ParameterDescription agree, as in PostgreSQL.
	Slot *types.Type
}

// Infer gives a still-unknown parameter the type t that its context calls
// for (PostgreSQL's variable parameter type resolution).
func (p *Param) Infer(t types.Type) {
	p.T = t
	if p.Slot != nil && p.Slot.OID == types.UnknownOID {
		*p.Slot = types.Type{OID: t.OID, Typmod: -1}
	}
}

func (p *Param) Eval(env *Env, _ []types.Datum) (types.Datum, error) {
	if env == nil || p.N > len(env.Params) {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedParameter, "there is no parameter $%d", p.N)
	}
	return env.Params[p.N-1], nil
}
func (p *Param) Type() types.Type { return p.T }
func (p *Param) String() string   { return fmt.Sprintf("$%d", p.N) }

// Func applies a function or operator.
type Func struct {
	Fn   *types.Func
	Args []Expr
	Op   string // operator symbol, "" for a function call
	Name string // function name as printed
	buf  []types.Datum
}

func (f *Func) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	n := len(f.Args)
	if f.Fn.NeedsTxnTime {
		n++
	}
	// The scratch slice is reused: an expression tree is evaluated by one
	// goroutine at a time, and functions do not keep their arguments.
	if cap(f.buf) < n {
		f.buf = make([]types.Datum, n)
	}
	args := f.buf[:n]
	for i, a := range f.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return types.Null(), err
		}
		if d.IsNull() && f.Fn.Strict {
			return types.Null(), nil
		}
		args[i] = d
	}
	if f.Fn.NeedsTxnTime {
		t := int64(0)
		if env != nil {
			t = env.TxnTime
		}
		args[len(f.Args)] = types.TimestampMicros(t)
	}
	var d types.Datum
	var err error
	if f.Fn.FnWith != nil {
		d, err = f.Fn.FnWith(env.settings(), args)
	} else {
		d, err = f.Fn.Fn(args)
	}
	if err == nil {
		err = types.CheckAllocSize(d)
	}
	return d, err
}
func (f *Func) Type() types.Type { return f.Fn.Ret }
func (f *Func) String() string {
	if f.Op != "" {
		if len(f.Args) == 1 {
			return "(" + f.Op + " " + f.Args[0].String() + ")"
		}
		return "(" + f.Args[0].String() + " " + f.Op + " " + f.Args[1].String() + ")"
	}
	parts := make([]string, len(f.Args))
	for i, a := range f.Args {
		parts[i] = a.String()
	}
	return f.Name + "(" + strings.Join(parts, ", ") + ")"
}

// BoolOp is AND, OR or NOT with SQL's three-valued logic.
type BoolOp struct {
	Op   string // "AND", "OR", "NOT"
	Args []Expr
}

func (b *BoolOp) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	switch b.Op {
	case "NOT":
		d, err := b.Args[0].Eval(env, row)
		if err != nil || d.IsNull() {
			return d, err
		}
		return types.Bool(!d.Bool()), nil
	case "AND":
		sawNull := false
		for _, a := range b.Args {
			d, err := a.Eval(env, row)
			if err != nil {
				return d, err
			}
			if d.IsNull() {
				sawNull = true
			} else if !d.Bool() {
				return types.Bool(false), nil
			}
		}
		if sawNull {
			return types.Null(), nil
		}
		return types.Bool(true), nil
	default:
		sawNull := false
		for _, a := range b.Args {
			d, err := a.Eval(env, row)
			if err != nil {
				return d, err
			}
			if d.IsNull() {
				sawNull = true
			} else if d.Bool() {
				return types.Bool(true), nil
			}
		}
		if sawNull {
			return types.Null(), nil
		}
		return types.Bool(false), nil
	}
}
func (b *BoolOp) Type() types.Type { return types.Boolean }
func (b *BoolOp) String() string {
	if b.Op == "NOT" {
		return "(NOT " + b.Args[0].String() + ")"
	}
	parts := make([]string, len(b.Args))
	for i, a := range b.Args {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, " "+b.Op+" ") + ")"
}

// NullTest is IS [NOT] NULL, and also the boolean tests IS [NOT] TRUE,
// IS [NOT] FALSE and IS [NOT] UNKNOWN (Of set): all of them are "does the
// value equal this, NULL included", never NULL themselves, so one node (and
// every walker that knows it) serves them.
type NullTest struct {
	Arg Expr
	Not bool
	Of  TruthValue
}

// TruthValue is what an IS test compares with.
type TruthValue uint8

const (
	TruthNull TruthValue = iota // IS NULL, IS UNKNOWN
	TruthTrue
	TruthFalse
)

func (n *NullTest) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	d, err := n.Arg.Eval(env, row)
	if err != nil {
		return d, err
	}
	var is bool
	switch n.Of {
	case TruthNull:
		is = d.IsNull()
		if !is && n.Arg.Type().OID == types.RecordOID {
			// A record IS NULL when all its fields are, IS NOT NULL
			// when none is (so both can be false).
			return recordNullTest(d, n.Not), nil
		}
	case TruthTrue:
		is = !d.IsNull() && d.Bool()
	case TruthFalse:
		is = !d.IsNull() && !d.Bool()
	}
	return types.Bool(is != n.Not), nil
}
func (n *NullTest) Type() types.Type { return types.Boolean }
func (n *NullTest) String() string {
	what := [...]string{TruthNull: "NULL", TruthTrue: "TRUE", TruthFalse: "FALSE"}[n.Of]
	if n.Not {
		what = "NOT " + what
	}
	return "(" + n.Arg.String() + " IS " + what + ")"
}

// Cast converts a value to another type.
type Cast struct {
	Arg Expr
	To  types.Type
	Ctx types.CastContext
}

func (c *Cast) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	d, err := c.Arg.Eval(env, row)
	if err != nil || d.IsNull() {
		return d, err
	}
	return types.CastWith(env.settings(), d, c.Arg.Type(), c.To, c.Ctx)
}

func (env *Env) settings() *types.Settings {
	if env == nil {
		return nil
	}
	return env.Settings
}
func (c *Cast) Type() types.Type { return c.To }
func (c *Cast) String() string {
	if k, ok := c.Arg.(*Const); ok && k.T.OID == types.UnknownOID && !k.Val.IsNull() {
		// a literal whose conversion waits for the session's settings
		return k.String() + "::" + c.To.String()
	}
	if c.Ctx == types.CastImplicit {
		// PostgreSQL prints implicit numeric promotions as a cast too.
		return "(" + c.Arg.String() + ")::" + c.To.String()
	}
	return "(" + c.Arg.String() + ")::" + c.To.String()
}

// Like is [NOT] LIKE / ILIKE.
type Like struct {
	Arg, Pattern Expr
	Not, ICase   bool
}

func (l *Like) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	a, err := l.Arg.Eval(env, row)
	if err != nil || a.IsNull() {
		return a, err
	}
	p, err := l.Pattern.Eval(env, row)
	if err != nil || p.IsNull() {
		return p, err
	}
	s, pat := a.Str(), p.Str()
	if l.ICase {
		s, pat = strings.ToLower(s), strings.ToLower(pat)
	}
	ok, err := types.Like(s, pat)
	if err != nil {
		return types.Null(), err
	}
	return types.Bool(ok != l.Not), nil
}
func (l *Like) Type() types.Type { return types.Boolean }
func (l *Like) String() string {
	op := "~~"
	if l.ICase {
		op = "~~*"
	}
	if l.Not {
		op = "!" + op
	}
	return "(" + l.Arg.String() + " " + op + " " + l.Pattern.String() + ")"
}

// InList is x [NOT] IN (a, b, …), as a chain of equality tests.
type InList struct {
	Arg  Expr
	Eqs  []Expr // Arg = item_i, already typed
	Not  bool
	Text string
}

func (in *InList) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	sawNull := false
	for _, e := range in.Eqs {
		d, err := e.Eval(env, row)
		if err != nil {
			return d, err
		}
		if d.IsNull() {
			sawNull = true
		} else if d.Bool() {
			return types.Bool(!in.Not), nil
		}
	}
	if sawNull {
		return types.Null(), nil
	}
	return types.Bool(in.Not), nil
}
func (in *InList) Type() types.Type { return types.Boolean }
func (in *InList) String() string   { return in.Text }

// Case is CASE WHEN … THEN … ELSE … END.
type Case struct {
	Whens []Expr
	Thens []Expr
	Else  Expr
	T     types.Type
}

func (c *Case) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	for i, w := range c.Whens {
		d, err := w.Eval(env, row)
		if err != nil {
			return d, err
		}
		if !d.IsNull() && d.Bool() {
			return c.Thens[i].Eval(env, row)
		}
	}
	if c.Else == nil {
		return types.Null(), nil
	}
	return c.Else.Eval(env, row)
}
func (c *Case) Type() types.Type { return c.T }
func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for i := range c.Whens {
		fmt.Fprintf(&b, " WHEN %s THEN %s", c.Whens[i], c.Thens[i])
	}
	if c.Else != nil {
		fmt.Fprintf(&b, " ELSE %s", c.Else)
	}
	b.WriteString(" END")
	return b.String()
}

// Coalesce returns its first non-NULL argument.
type Coalesce struct {
	Args []Expr
	T    types.Type
	Name string // COALESCE, GREATEST, LEAST, NULLIF
}

func (c *Coalesce) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	switch c.Name {
	case "NULLIF":
		a, err := c.Args[0].Eval(env, row)
		if err != nil || a.IsNull() {
			return a, err
		}
		b, err := c.Args[1].Eval(env, row)
		if err != nil {
			return b, err
		}
		if !b.IsNull() && types.Compare(c.T, a, b) == 0 {
			return types.Null(), nil
		}
		return a, nil
	case "GREATEST", "LEAST":
		var best types.Datum
		found := false
		for _, a := range c.Args {
			d, err := a.Eval(env, row)
			if err != nil {
				return d, err
			}
			if d.IsNull() {
				continue
			}
			cmp := 0
			if found {
				cmp = types.Compare(c.T, d, best)
			}
			if !found || (c.Name == "GREATEST" && cmp > 0) || (c.Name == "LEAST" && cmp < 0) {
				best, found = d, true
			}
		}
		if !found {
			return types.Null(), nil
		}
		return best, nil
	}
	for _, a := range c.Args {
		d, err := a.Eval(env, row)
		if err != nil || !d.IsNull() {
			return d, err
		}
	}
	return types.Null(), nil
}
func (c *Coalesce) Type() types.Type { return c.T }
func (c *Coalesce) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

// IsTrue evaluates a qual: NULL counts as false.
func IsTrue(env *Env, e Expr, row []types.Datum) (bool, error) {
	d, err := e.Eval(env, row)
	if err != nil || d.IsNull() {
		return false, err
	}
	return d.Bool(), nil
}

// CatalogFuncs are the builtins that need the catalog or storage.
type CatalogFuncs interface {
	// RelationSize is pg_relation_size(name, fork) and friends: kind is
	// "relation", "table", "indexes" or "total".
	RelationSize(name string, kind string, fork string) (types.Datum, error)
	// Check is tidal_check(name): verify a table and its indexes.
	Check(name string) (types.Datum, error)
}

// CatalogFunc calls a CatalogFuncs builtin.
type CatalogFunc struct {
	Name string
	Args []Expr
}

func (f *CatalogFunc) Eval(env *Env, row []types.Datum) (types.Datum, error) {
	vals := make([]string, len(f.Args))
	for i, a := range f.Args {
		d, err := a.Eval(env, row)
		if err != nil || d.IsNull() {
			return types.Null(), err
		}
		vals[i] = types.FormatText(a.Type(), d)
	}
	if env == nil || env.Catalog == nil {
		return types.Null(), pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not available here", f.Name)
	}
	if f.Name == "tidal_check" {
		return env.Catalog.Check(vals[0])
	}
	fork := "main"
	if len(vals) > 1 {
		fork = vals[1]
	}
	kind := map[string]string{"pg_relation_size": "relation", "pg_table_size": "table", "pg_indexes_size": "indexes", "pg_total_relation_size": "total"}[f.Name]
	return env.Catalog.RelationSize(vals[0], kind, fork)
}
func (f *CatalogFunc) Type() types.Type {
	if f.Name == "tidal_check" {
		return types.Text
	}
	return types.Int8
}
func (f *CatalogFunc) String() string {
	parts := make([]string, len(f.Args))
	for i, a := range f.Args {
		parts[i] = a.String()
	}
	return f.Name + "(" + strings.Join(parts, ", ") + ")"
}

// MaxVar returns one more than the highest input column e reads (0 if it
// reads none), so a scan can decode only the leading columns it needs.
func MaxVar(e Expr) int {
	m := 0
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case nil:
		case *Var:
			if x.Index+1 > m {
				m = x.Index + 1
			}
		case *Func:
			for _, a := range x.Args {
				walk(a)
			}
		case *BoolOp:
			for _, a := range x.Args {
				walk(a)
			}
		case *NullTest:
			walk(x.Arg)
		case *Cast:
			walk(x.Arg)
		case *Like:
			walk(x.Arg)
			walk(x.Pattern)
		case *InList:
			walk(x.Arg)
			for _, a := range x.Eqs {
				walk(a)
			}
		case *Case:
			for i := range x.Whens {
				walk(x.Whens[i])
				walk(x.Thens[i])
			}
			walk(x.Else)
		case *Coalesce:
			for _, a := range x.Args {
				walk(a)
			}
		case *distinctFrom:
			walk(x.l)
			walk(x.r)
		case *CatalogFunc:
			for _, a := range x.Args {
				walk(a)
			}
		case *Const, *Param, *OuterVar:
		case *SubPlan:
			if x.Plan.Correlated {
				m = 1 << 30 // pushes the whole row for the subquery
			}
			for _, a := range x.Left {
				walk(a)
			}
		case *ArrayExpr:
			for _, a := range x.Elems {
				walk(a)
			}
		case *ScalarArrayOp:
			walk(x.Left)
			walk(x.Arr)
		case *RowValue:
			for _, a := range x.Fields {
				walk(a)
			}
		case *RowCompare:
			for i := range x.Left {
				walk(x.Left[i])
				walk(x.Right[i])
			}
		case ExternalNode:
			for _, a := range x.ArgExprs() {
				walk(a)
			}
		default:
			m = 1 << 30 // unknown node: assume it reads everything
		}
	}
	walk(e)
	return m
}
