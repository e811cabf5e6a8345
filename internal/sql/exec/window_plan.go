package exec

import (
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Window functions are planned as PostgreSQL does: each distinct window
// (after WINDOW-clause inheritance) becomes one WindowAgg node; the nodes
// are stacked over the query's scan/join/aggregate output, each with a
// Sort below it unless the rows already come in an order that suits it.
// A window call in the target list or ORDER BY compiles to a reference to
// its result column, which the WindowAgg appends to the row.

// hasWindowCalls: some call in the nodes has OVER (sub-selects aside).
func hasWindowCalls(nodes ...*pg.Node) bool {
	found := false
	for _, n := range nodes {
		parser.Walk(n, func(m proto.Message) bool {
			switch x := m.(type) {
			case *pg.FuncCall:
				if x.Over != nil {
					found = true
				}
			case *pg.SelectStmt:
				return false
			}
			return !found
		})
	}
	return found
}

// windowPlanner collects a SELECT's windows and window calls.
type windowPlanner struct {
	p *Planner
	// args compiles arguments, PARTITION BY and ORDER BY: the target
	// list's compiler without windows (they cannot be nested).
	args *expr.Compiler
	// windows in PostgreSQL's p_windowdefs order: the WINDOW clause's,
	// then those of OVER clauses as they appear.
	windows []*plannedWindow
	named   map[string]*plannedWindow
	calls   map[string]*expr.Var
}

type plannedWindow struct {
	name    string
	refname string
	// own is the definition's own text (before inheritance), to find an
	// OVER clause identical to an earlier one as PostgreSQL does.
	own   string
	spec  *WindowSpec
	funcs []*WindowFunc
	vars  []*expr.Var
}

func newWindowPlanner(p *Planner, tcomp *expr.Compiler, s *pg.SelectStmt) (*windowPlanner, error) {
	args := *tcomp
	args.Hooks.Window = nil
	args.Hooks.NoWindow = func() error {
		return pgerr.Errorf(pgerr.WindowingError, "window function calls cannot be nested")
	}
	w := &windowPlanner{p: p, args: &args, named: map[string]*plannedWindow{}, calls: map[string]*expr.Var{}}
	for _, n := range s.WindowClause {
		def := n.GetWindowDef()
		if w.named[def.Name] != nil {
			return nil, windowErrAt(def.Location, "window \"%s\" is already defined", def.Name)
		}
		pw, err := w.define(def)
		if err != nil {
			return nil, err
		}
		w.named[def.Name] = pw
		w.windows = append(w.windows, pw)
	}
	return w, nil
}

func windowErrAt(loc int32, format string, args ...any) *pgerr.Error {
	e := pgerr.Errorf(pgerr.WindowingError, format, args...)
	if loc >= 0 {
		e.Position = loc + 1
	}
	return e
}

// define resolves one window definition (a WINDOW clause entry or an
// OVER clause), applying PostgreSQL's rules for copying a named window.
func (w *windowPlanner) define(def *pg.WindowDef) (*plannedWindow, error) {
	defComp := *w.args
	defComp.Hooks.NoWindow = func() error {
		return pgerr.Errorf(pgerr.WindowingError, "window functions are not allowed in window definitions")
	}
	pw := &plannedWindow{name: def.Name, refname: def.Refname, spec: &WindowSpec{Frame: def.FrameOptions}}
	var own []string
	var base *plannedWindow
	if def.Refname != "" {
		if base = w.named[def.Refname]; base == nil {
			e := pgerr.Errorf(pgerr.UndefinedObject, "window \"%s\" does not exist", def.Refname)
			e.Position = def.Location + 1
			return nil, e
		}
	}
	var order []SortKey
	for _, o := range def.OrderClause {
		by := o.GetSortBy()
		e, err := defComp.Compile(by.Node)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == types.UnknownOID {
			e, _ = expr.Coerce(e, types.Text, types.CastImplicit)
		}
		k, err := sortKeyFor(by, e)
		if err != nil {
			return nil, err
		}
		order = append(order, k)
		own = append(own, "o:"+k.String())
	}
	var part []expr.Expr
	for _, n := range def.PartitionClause {
		e, err := defComp.Compile(n)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == types.UnknownOID {
			e, _ = expr.Coerce(e, types.Text, types.CastImplicit)
		}
		part = append(part, e)
		own = append(own, "p:"+e.String())
	}
	spec := pw.spec
	spec.Partition, spec.Order = part, order
	if base != nil {
		if len(def.PartitionClause) > 0 {
			return nil, windowErrAt(def.Location, "cannot override PARTITION BY clause of window \"%s\"", def.Refname)
		}
		spec.Partition = base.spec.Partition
		if len(order) > 0 && len(base.spec.Order) > 0 {
			return nil, windowErrAt(def.Location, "cannot override ORDER BY clause of window \"%s\"", def.Refname)
		}
		if len(order) == 0 {
			spec.Order = base.spec.Order
		}
		if base.spec.Frame != frameDefaults {
			e := windowErrAt(def.Location, "cannot copy window \"%s\" because it has a frame clause", def.Refname)
			if def.Name == "" && len(order) == 0 && def.FrameOptions == frameDefaults {
				e = e.WithHint("Omit the parentheses in this OVER clause.")
			}
			return nil, e
		}
	}
	if err := w.planFrame(def, spec); err != nil {
		return nil, err
	}
	for _, e := range []expr.Expr{spec.StartOffset, spec.EndOffset} {
		if e != nil {
			own = append(own, "f:"+e.String())
		}
	}
	pw.own = fmt.Sprintf("%s|%x|%s", def.Refname, def.FrameOptions, strings.Join(own, ","))
	var text []string
	for _, e := range spec.Partition {
		text = append(text, e.String())
	}
	for _, k := range spec.Order {
		text = append(text, k.String())
	}
	spec.text = strings.Join(text, ",")
	return pw, nil
}

// planFrame checks the frame clause and compiles its offsets.
func (w *windowPlanner) planFrame(def *pg.WindowDef, spec *WindowSpec) error {
	opts := spec.Frame
	if opts&frameRange != 0 && opts&(frameStartOffset|frameEndOffset) != 0 && len(spec.Order) != 1 {
		return windowErrAt(def.Location, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	if opts&frameGroups != 0 && len(spec.Order) == 0 {
		return windowErrAt(def.Location, "GROUPS mode requires an ORDER BY clause")
	}
	var err error
	if spec.StartOffset, spec.startRange, err = w.frameOffsetExpr(def.StartOffset, spec); err != nil {
		return err
	}
	spec.EndOffset, spec.endRange, err = w.frameOffsetExpr(def.EndOffset, spec)
	return err
}

// frameOffsetExpr compiles a frame offset: a bigint for ROWS and GROUPS;
// for RANGE, a value of the type PostgreSQL's in_range support functions
// take for the ORDER BY column's type.
func (w *windowPlanner) frameOffsetExpr(n *pg.Node, spec *WindowSpec) (expr.Expr, *rangeOffset, error) {
	if n == nil {
		return nil, nil, nil
	}
	mode := "ROWS"
	switch {
	case spec.Frame&frameRange != 0:
		mode = "RANGE"
	case spec.Frame&frameGroups != 0:
		mode = "GROUPS"
	}
	c := *w.args
	c.Hooks.NoWindow = func() error {
		return pgerr.Errorf(pgerr.WindowingError, "window functions are not allowed in window definitions")
	}
	e, err := c.Compile(n)
	if err != nil {
		return nil, nil, err
	}
	hasVar := false
	expr.Walk(e, func(x expr.Expr) bool {
		if _, ok := x.(*expr.Var); ok {
			hasVar = true
		}
		return !hasVar
	})
	if hasVar {
		return nil, nil, pgerr.Errorf(pgerr.InvalidColumnReference, "argument of %s must not contain variables", mode)
	}
	if mode != "RANGE" {
		out, err := expr.Coerce(e, types.Int8, types.CastImplicit)
		if err != nil {
			return nil, nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of %s must be type bigint, not type %s", mode, e.Type())
		}
		return out, nil, nil
	}
	return rangeOffsetFor(spec.Order[0].Expr.Type(), e)
}

// rangeOffsetFor pairs a RANGE offset with the ORDER BY column's type:
// integers take an integer offset, floats float8, numeric numeric, the
// date/time types an interval.
func rangeOffsetFor(keyT types.Type, off expr.Expr) (expr.Expr, *rangeOffset, error) {
	var offT types.Type
	switch {
	case types.IsInteger(keyT):
		offT = types.Int8
		if !types.IsInteger(off.Type()) && off.Type().OID != types.UnknownOID {
			offT = types.Type{}
		}
	case types.IsFloat(keyT):
		offT = types.Float8
	case keyT.OID == types.NumericOID:
		offT = types.Numeric
	case keyT.OID == types.DateOID, keyT.OID == types.TimestampOID, keyT.OID == types.TimestamptzOID,
		keyT.OID == types.TimeOID, keyT.OID == types.IntervalOID:
		offT = types.Interval
	default:
		if types.IsString(keyT) {
			keyT = types.Text // the operator class's input type, as PostgreSQL names it
		}
		return nil, nil, pgerr.Errorf(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", keyT)
	}
	notSupported := pgerr.Errorf(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", keyT, off.Type()).
		WithHint("Cast the offset value to an appropriate type.")
	if offT.OID == 0 {
		return nil, nil, notSupported
	}
	e, err := expr.Coerce(off, offT, types.CastImplicit)
	if err != nil {
		return nil, nil, notSupported
	}
	ro := &rangeOffset{keyT: keyT}
	if types.IsInteger(keyT) || types.IsFloat(keyT) {
		return e, ro, nil
	}
	if ro.zero, err = types.Parse(offT, "0"); err != nil {
		return nil, nil, err
	}
	base, offV := &expr.Var{Index: 0, T: keyT, Name: "base"}, &expr.Var{Index: 1, T: offT, Name: "offset"}
	if ro.plus, err = expr.Binary("+", base, offV); err != nil {
		return nil, nil, notSupported
	}
	if ro.minus, err = expr.Binary("-", base, offV); err != nil {
		return nil, nil, notSupported
	}
	ro.sumT = ro.plus.Type()
	if ro.toSum, err = expr.Coerce(base, ro.sumT, types.CastImplicit); err != nil {
		return nil, nil, notSupported
	}
	return e, ro, nil
}

// window finds or defines the window an OVER clause names or spells.
func (w *windowPlanner) window(over *pg.WindowDef) (*plannedWindow, error) {
	if over.Name != "" && over.Refname == "" && len(over.PartitionClause) == 0 && len(over.OrderClause) == 0 && over.FrameOptions == frameDefaults {
		if pw := w.named[over.Name]; pw != nil {
			return pw, nil
		}
		e := pgerr.Errorf(pgerr.UndefinedObject, "window \"%s\" does not exist", over.Name)
		e.Position = over.Location + 1
		return nil, e
	}
	pw, err := w.define(over)
	if err != nil {
		return nil, err
	}
	for _, old := range w.windows {
		if old.own == pw.own {
			return old, nil
		}
	}
	w.windows = append(w.windows, pw)
	return pw, nil
}

// call compiles one window function call (the compiler's Window hook).
func (w *windowPlanner) call(fc *pg.FuncCall) (expr.Expr, error) {
	name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
	isAgg := aggNames[name] || fc.AggStar
	switch {
	case fc.AggWithinGroup:
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "OVER is not supported for ordered-set aggregate %s", name)
	case !isAgg && !expr.IsWindowFunction(name):
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
	case fc.AggDistinct:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
	case len(fc.AggOrder) > 0:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions")
	case !isAgg && fc.AggFilter != nil:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions")
	}
	for _, a := range append([]*pg.Node{fc.AggFilter}, fc.Args...) {
		if a != nil && hasWindowCalls(a) {
			return nil, pgerr.Errorf(pgerr.WindowingError, "window function calls cannot be nested")
		}
	}
	pw, err := w.window(fc.Over)
	if err != nil {
		return nil, err
	}
	var f *WindowFunc
	if isAgg {
		call, err := planAggCall(w.args, name, fc)
		if err != nil {
			return nil, err
		}
		f = &WindowFunc{Name: name, Agg: call, T: call.T, Text: call.String()}
	} else if f, err = w.builtinCall(name, fc); err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%p|%s", pw, f.String())
	if v := w.calls[key]; v != nil {
		return v, nil
	}
	v := &expr.Var{Index: -1, T: f.T, Name: f.String() + " OVER (?)"}
	w.calls[key] = v
	pw.funcs = append(pw.funcs, f)
	pw.vars = append(pw.vars, v)
	return v, nil
}

// builtinCall compiles a call of a built-in window function, with its
// arguments coerced to PostgreSQL's signatures.
func (w *windowPlanner) builtinCall(name string, fc *pg.FuncCall) (*WindowFunc, error) {
	var args []expr.Expr
	for _, a := range fc.Args {
		e, err := w.args.Compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	sig := func() error {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.Type().String()
		}
		return types.FuncNotFound(name, strings.Join(ts, ", "), false)
	}
	f := &WindowFunc{Name: name, Args: args}
	valueArg := func() {
		if args[0].Type().OID == types.UnknownOID {
			args[0], _ = expr.Coerce(args[0], types.Text, types.CastImplicit)
		}
		f.T = args[0].Type()
	}
	intArg := func(i int) error {
		e, err := expr.Coerce(args[i], types.Int4, types.CastImplicit)
		if err != nil {
			return sig()
		}
		args[i] = e
		return nil
	}
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
		if len(args) != 0 {
			return nil, sig()
		}
		f.T = types.Int8
		if name == "percent_rank" || name == "cume_dist" {
			f.T = types.Float8
		}
	case "ntile":
		if len(args) != 1 {
			return nil, sig()
		}
		if err := intArg(0); err != nil {
			return nil, err
		}
		f.T = types.Int4
	case "first_value", "last_value":
		if len(args) != 1 {
			return nil, sig()
		}
		valueArg()
	case "nth_value":
		if len(args) != 2 {
			return nil, sig()
		}
		if err := intArg(1); err != nil {
			return nil, err
		}
		valueArg()
	case "lag", "lead":
		if len(args) < 1 || len(args) > 3 {
			return nil, sig()
		}
		if len(args) > 1 {
			if err := intArg(1); err != nil {
				return nil, err
			}
		}
		if len(args) == 3 {
			t, ok := types.CommonType(args[0].Type(), args[2].Type())
			if args[0].Type().OID == types.UnknownOID && args[2].Type().OID == types.UnknownOID {
				t, ok = types.Text, true
			}
			if !ok {
				return nil, sig()
			}
			for _, i := range []int{0, 2} {
				e, err := expr.Coerce(args[i], t, types.CastImplicit)
				if err != nil {
					return nil, sig()
				}
				args[i] = e
			}
		}
		valueArg()
	}
	f.Args = args
	return f, nil
}

// build stacks the WindowAggs over input, in PostgreSQL's order, and
// points each window call's reference at its result column. queryOrder
// and groupBy are the query's ORDER BY and GROUP BY expressions, which
// take part in that order (see orderWindows).
func (w *windowPlanner) build(input Node, queryOrder, groupBy []expr.Expr) Node {
	base := len(input.Columns())
	active := w.orderWindows(queryOrder, groupBy)
	node := input
	var sorted []SortKey
	for _, pw := range active {
		need := pw.sortKeys()
		if len(need) > 0 && !sortKeysPrefix(need, sorted) {
			node = &Sort{Input: node, Keys: need}
			sorted = need
		}
		cols := append([]Column{}, node.Columns()...)
		for i, f := range pw.funcs {
			pw.vars[i].Index = base
			base++
			cols = append(cols, Column{Name: f.Name, Type: f.T})
		}
		node = &WindowAgg{Input: node, Win: pw.spec, Funcs: pw.funcs, Cols: cols}
	}
	return node
}

// sortKeys are the order a window's input must come in: the partition
// keys (ascending), then the ORDER BY keys, each expression once.
func (pw *plannedWindow) sortKeys() []SortKey {
	var keys []SortKey
	seen := map[string]bool{}
	for _, e := range pw.spec.Partition {
		if !seen[e.String()] {
			seen[e.String()] = true
			keys = append(keys, SortKey{Expr: e})
		}
	}
	for _, k := range pw.spec.Order {
		if !seen[k.Expr.String()] {
			seen[k.Expr.String()] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// sortKeysPrefix: rows sorted by have are also sorted by need.
func sortKeysPrefix(need, have []SortKey) bool {
	if len(need) > len(have) {
		return false
	}
	for i, k := range need {
		h := have[i]
		if k.Expr.String() != h.Expr.String() || k.Desc != h.Desc || k.NullsFirst != h.NullsFirst {
			return false
		}
	}
	return true
}

// orderWindows returns the windows that have calls, in the order
// PostgreSQL's planner stacks them (select_active_windows): sorted by
// their sort keys compared by "sort group reference" — numbers given to
// expressions as the query's ORDER BY, GROUP BY and then the windows'
// ORDER BY and PARTITION BY mention them — higher first, descending
// before ascending, NULLS FIRST before LAST, longer lists first. The
// first window is evaluated first (lowest in the plan).
func (w *windowPlanner) orderWindows(queryOrder, groupBy []expr.Expr) []*plannedWindow {
	refs := map[string]int{}
	ref := func(e expr.Expr) int {
		s := e.String()
		if r, ok := refs[s]; ok {
			return r
		}
		refs[s] = len(refs) + 1
		return refs[s]
	}
	for _, e := range queryOrder {
		ref(e)
	}
	for _, e := range groupBy {
		ref(e)
	}
	for _, pw := range w.windows {
		for _, k := range pw.spec.Order {
			ref(k.Expr)
		}
		for _, e := range pw.spec.Partition {
			ref(e)
		}
	}
	var active []*plannedWindow
	for _, pw := range w.windows {
		if len(pw.funcs) > 0 {
			active = append(active, pw)
		}
	}
	sort.SliceStable(active, func(i, j int) bool {
		a, b := active[i].sortKeys(), active[j].sortKeys()
		for k := 0; k < len(a) && k < len(b); k++ {
			ra, rb := ref(a[k].Expr), ref(b[k].Expr)
			if ra != rb {
				return ra > rb
			}
			if a[k].Desc != b[k].Desc {
				return a[k].Desc
			}
			if a[k].NullsFirst != b[k].NullsFirst {
				return a[k].NullsFirst
			}
		}
		return len(a) > len(b)
	})
	return active
}

// windowCallInAggregate refuses a window call in an aggregate's
// arguments or FILTER, as PostgreSQL does.
func windowCallInAggregate(fc *pg.FuncCall) error {
	nodes := append([]*pg.Node{fc.AggFilter}, fc.Args...)
	for _, n := range nodes {
		if n != nil && hasWindowCalls(n) {
			return pgerr.Errorf(pgerr.GroupingError, "aggregate function calls cannot contain window function calls")
		}
	}
	return nil
}

// noWindowIn makes comp refuse window calls naming the clause, as
// PostgreSQL: "window functions are not allowed in WHERE".
func noWindowIn(comp *expr.Compiler, clause string) {
	comp.Hooks.NoWindow = func() error {
		return pgerr.Errorf(pgerr.WindowingError, "window functions are not allowed in %s", clause)
	}
}

// compileWithoutWindows compiles n with comp, window calls refused there.
func compileWithoutWindows(comp *expr.Compiler, clause string, n *pg.Node) (expr.Expr, error) {
	saved := comp.Hooks
	comp.Hooks.Window = nil
	noWindowIn(comp, clause)
	defer func() { comp.Hooks = saved }()
	return comp.Compile(n)
}

// sortKeyExprs are the expressions the query's ORDER BY keys sort by
// (the keys are references to the projection's expressions).
func sortKeyExprs(exprs []expr.Expr, keys []SortKey) []expr.Expr {
	var out []expr.Expr
	for _, k := range keys {
		if v, ok := k.Expr.(*expr.Var); ok && v.Index < len(exprs) {
			out = append(out, exprs[v.Index])
		}
	}
	return out
}

func groupKeys(a *Agg) []expr.Expr {
	if a == nil {
		return nil
	}
	return a.GroupBy
}

// sameOutputExpr: ORDER BY expression e is select-list expression x. A
// window call's reference (its result column not yet placed, Index < 0)
// is the same only as itself: calls over different windows print alike.
func sameOutputExpr(x, e expr.Expr) bool {
	vx, okx := x.(*expr.Var)
	ve, oke := e.(*expr.Var)
	if (okx && vx.Index < 0) || (oke && ve.Index < 0) {
		return x == e
	}
	return x.String() == e.String()
}
