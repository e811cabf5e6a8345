package exec

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/tuplesort"
)

// SortKey is one ORDER BY item.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
}

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
		if !k.NullsFirst {
			s += " NULLS LAST"
		}
	} else if k.NullsFirst {
		s += " NULLS FIRST"
	}
	return s
}

// Sort sorts its input rows, in memory within work_mem and by an external
// merge through temporary files beyond it (tuplesort).
type Sort struct {
	nodeBase
	Input Node
	Keys  []SortKey
	// MemKB overrides work_mem (0: work_mem).
	MemKB  int64
	sorter *tuplesort.Sorter
	width  int // the input's columns (a tuple may hold computed keys past them)
	// stats is how the last sort ran, for EXPLAIN ANALYZE.
	stats tuplesort.Stats
}

func (s *Sort) Columns() []Column { return s.Input.Columns() }
func (s *Sort) Open(c *Ctx) error {
	if err := Open(c, s.Input); err != nil {
		return err
	}
	s.closeSorter()
	mem := s.MemKB
	if mem == 0 {
		mem = c.settingKB("work_mem", 4096)
	}
	// A tuple is the row, then the values of keys that are not a column
	// of it: keys are evaluated once, and spilled runs need not evaluate
	// them again.
	cols, extra := sortKeyColumns(s.Keys, len(s.Input.Columns()))
	s.width = len(s.Input.Columns())
	s.sorter = c.newTupleSort(s.Keys, cols, mem)
	for {
		r, err := Next(c, s.Input)
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		t := r
		if len(extra) > 0 {
			t = make(tuplesort.Tuple, len(r), len(r)+len(extra))
			copy(t, r)
			for _, j := range extra {
				d, err := s.Keys[j].Expr.Eval(c.Env, r)
				if err != nil {
					return err
				}
				t = append(t, d)
			}
		}
		if err := s.sorter.Put(t); err != nil {
			return err
		}
	}
	if err := s.sorter.Done(); err != nil {
		return err
	}
	s.stats = s.sorter.Stats()
	return nil
}

// sortOrder returns the order of rows sorted by keys (each key
// evaluated once per row), checking for interrupts as it goes.
func (c *Ctx) sortOrder(rows []Row, keys []SortKey) ([]int, error) {
	vals := make([][]types.Datum, len(rows))
	for i, r := range rows {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		k := make([]types.Datum, len(keys))
		for j, sk := range keys {
			d, err := sk.Expr.Eval(c.Env, r)
			if err != nil {
				return nil, err
			}
			k[j] = d
		}
		vals[i] = k
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	// PostgreSQL's algorithm, so that rows tying on the keys come out in
	// PostgreSQL's order (a stable sort would keep their input order).
	err := interrupt.QsortFunc(idx, func(a, b int) int { return compareKeys(keys, vals[a], vals[b]) }, c.Interrupts.Check)
	return idx, err
}

func compareKeys(ks []SortKey, a, b []types.Datum) int {
	for j, k := range ks {
		if c := compareKey(k, a[j], b[j]); c != 0 {
			return c
		}
	}
	return 0
}

// compareKey orders two values of one sort key, NULLs and DESC included.
func compareKey(k SortKey, x, y types.Datum) int {
	var c int
	switch {
	case x.IsNull() && y.IsNull():
		return 0
	case x.IsNull():
		c = 1
		if k.NullsFirst {
			c = -1
		}
		if k.Desc {
			c = -c
		}
	case y.IsNull():
		c = -1
		if k.NullsFirst {
			c = 1
		}
		if k.Desc {
			c = -c
		}
	default:
		c = types.Compare(k.Expr.Type(), x, y)
	}
	if k.Desc {
		c = -c
	}
	return c
}

// sortKeyColumns says where each key's value is in a sort tuple of a
// width-column row: a key that is a column of the row is that column; the
// others (extra, by key index) are computed and appended after the row.
func sortKeyColumns(keys []SortKey, width int) (cols, extra []int) {
	cols = make([]int, len(keys))
	for j, k := range keys {
		if v, ok := k.Expr.(*expr.Var); ok && v.Index < width {
			cols[j] = v.Index
			continue
		}
		cols[j] = width + len(extra)
		extra = append(extra, j)
	}
	return cols, extra
}

func (s *Sort) Next(c *Ctx) (Row, error) {
	if s.sorter == nil {
		return nil, nil
	}
	t, err := s.sorter.Next()
	if err != nil || t == nil {
		return nil, err
	}
	return t[:s.width:s.width], nil
}

func (s *Sort) closeSorter() {
	if s.sorter != nil {
		s.sorter.Close()
		s.sorter = nil
	}
}

func (s *Sort) Close(c *Ctx) { s.closeSorter(); Close(c, s.Input) }

// Limit implements LIMIT/OFFSET.
type Limit struct {
	nodeBase
	Input         Node
	Count, Offset expr.Expr
	n, off, seen  int64
	hasCount      bool
}

func (l *Limit) Columns() []Column { return l.Input.Columns() }
func (l *Limit) Open(c *Ctx) error {
	l.seen, l.hasCount, l.off = 0, false, 0
	if l.Count != nil {
		d, err := l.Count.Eval(c.Env, nil)
		if err != nil {
			return err
		}
		if !d.IsNull() {
			l.n, l.hasCount = d.Int(), true
			if l.n < 0 {
				return pgerr.Errorf("2201W", "LIMIT must not be negative")
			}
		}
	}
	if l.Offset != nil {
		d, err := l.Offset.Eval(c.Env, nil)
		if err != nil {
			return err
		}
		if !d.IsNull() {
			l.off = d.Int()
			if l.off < 0 {
				return pgerr.Errorf("2201X", "OFFSET must not be negative")
			}
		}
	}
	return Open(c, l.Input)
}
func (l *Limit) Next(c *Ctx) (Row, error) {
	for {
		if l.hasCount && l.seen >= l.off+l.n {
			return nil, nil
		}
		r, err := Next(c, l.Input)
		if err != nil || r == nil {
			return nil, err
		}
		l.seen++
		if l.seen > l.off {
			return r, nil
		}
	}
}
func (l *Limit) Close(c *Ctx) { Close(c, l.Input) }

// AggCall is one aggregate in an Agg node.
type AggCall struct {
	Name     string    // count, sum, avg, min, max, bool_and, bool_or, string_agg
	Arg      expr.Expr // nil for count(*)
	Arg2     expr.Expr // string_agg's delimiter
	Distinct bool
	// Filter (FILTER (WHERE ...)) admits a row only when it is true.
	Filter expr.Expr
	// OrderBy (agg(x ORDER BY y)) fixes the order rows are fed in; it
	// matters for string_agg and array_agg.
	OrderBy []SortKey
	T       types.Type // result type
	// GroupingRefs, for GROUPING(...) (Name "grouping"), are the GROUP BY
	// expressions it asks about (groupingsets.go).
	GroupingRefs []int
}

func (a *AggCall) String() string {
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	s := a.Name + "(" + d
	if a.Arg == nil {
		s += "*"
	} else {
		s += a.Arg.String()
	}
	if a.Arg2 != nil {
		s += ", " + a.Arg2.String()
	}
	if len(a.OrderBy) > 0 {
		keys := make([]string, len(a.OrderBy))
		for i, k := range a.OrderBy {
			keys[i] = k.String()
		}
		s += " ORDER BY " + strings.Join(keys, ", ")
	}
	s += ")"
	if a.Filter != nil {
		s += " FILTER (WHERE " + a.Filter.String() + ")"
	}
	return s
}

// ResultType gives an aggregate's result type for its argument type.
func AggResultType(name string, arg types.Type) (types.Type, error) {
	if arg.OID == types.IntervalOID && (name == "sum" || name == "avg") {
		return types.Interval, nil
	}
	switch name {
	case "count":
		return types.Int8, nil
	case "sum":
		switch arg.OID {
		case types.Int2OID, types.Int4OID:
			return types.Int8, nil
		case types.Int8OID, types.NumericOID:
			return types.Numeric, nil
		case types.Float4OID:
			return types.Float4, nil
		case types.Float8OID:
			return types.Float8, nil
		}
	case "avg":
		if types.IsInteger(arg) || arg.OID == types.NumericOID {
			return types.Numeric, nil
		}
		if types.IsFloat(arg) {
			return types.Float8, nil
		}
	case "min", "max":
		return arg, nil
	case "variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop":
		if types.IsInteger(arg) || arg.OID == types.NumericOID {
			return types.Numeric, nil
		}
		if types.IsFloat(arg) {
			return types.Float8, nil
		}
	case "bool_and", "bool_or", "every":
		return types.Boolean, nil
	case "string_agg":
		if types.IsString(arg) || arg.OID == types.UnknownOID {
			return types.Text, nil
		}
	case "array_agg":
		if types.IsArray(arg) {
			return arg, nil // array_agg(anyarray): one more dimension
		}
		if t, ok := types.ArrayOf(arg); ok {
			return t, nil
		}
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return types.JSONAggResultType(name), nil
	}
	return types.Type{}, pgerr.Errorf(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, arg)
}

type aggState struct {
	count    int64
	sumI     int64
	sumF     float64
	num      *types.NumericAccum // sums computed in numeric (see AggResultType)
	numVar   *types.NumericVarianceAccum
	floatVar *types.FloatVarianceAccum
	val      types.Datum
	set      bool
	seen     map[string]bool
	elems    []types.Datum
	keys     []types.Datum // json(b)_object_agg's keys, beside elems
	sb       strings.Builder
	// buffered holds the admitted input rows of an aggregate that must
	// see its input sorted (ORDER BY or DISTINCT); final replays them.
	buffered []Row
}

// step feeds one input row to the aggregate.
func (a *AggCall) step(c *Ctx, st *aggState, row Row) error {
	if a.Filter != nil {
		ok, err := a.Filter.Eval(c.Env, row)
		if err != nil {
			return err
		}
		if ok.IsNull() || !ok.Bool() {
			return nil
		}
	}
	if a.sortsInput() {
		st.buffered = append(st.buffered, row)
		return nil
	}
	return a.accumulate(c, st, row)
}

// sortsInput: the aggregate sees its rows in a defined order. PostgreSQL
// sorts DISTINCT aggregates' input by their arguments, which shows in
// string_agg(DISTINCT ...) and array_agg(DISTINCT ...) output, in float
// sums (rounding) and in which of two equal numerics min/max keep. Where
// the order cannot show, DISTINCT is a hash lookup and nothing is buffered.
func (a *AggCall) sortsInput() bool {
	if len(a.OrderBy) == 0 && !(a.Distinct && a.Arg != nil) {
		return false
	}
	switch a.Name {
	case "count", "bool_and", "bool_or", "every":
		return false
	case "min", "max":
		return a.Arg.Type().OID == types.NumericOID
	case "string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return true
	}
	return types.IsFloat(a.Arg.Type()) // sum, avg, variances
}

// inputOrder is the sort order sortsInput applies.
func (a *AggCall) inputOrder() []SortKey {
	if len(a.OrderBy) > 0 {
		return a.OrderBy
	}
	keys := []SortKey{{Expr: a.Arg}}
	if a.Arg2 != nil {
		keys = append(keys, SortKey{Expr: a.Arg2})
	}
	return keys
}

// replaySorted sorts the buffered rows and accumulates them in order.
func (a *AggCall) replaySorted(c *Ctx, st *aggState) error {
	idx, err := c.sortOrder(st.buffered, a.inputOrder())
	if err != nil {
		return err
	}
	rows := st.buffered
	st.buffered = nil
	for _, i := range idx {
		if err := a.accumulate(c, st, rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// distinctSeen reports whether DISTINCT already saw this argument value,
// and remembers it.
func (a *AggCall) distinctSeen(c *Ctx, st *aggState, row Row, d types.Datum) (bool, error) {
	k := types.AppendGroupKey(nil, a.Arg.Type(), d)
	if d.IsNull() {
		k = []byte("\x00N")
	}
	if a.Arg2 != nil {
		d2, err := a.Arg2.Eval(c.Env, row)
		if err != nil {
			return false, err
		}
		k = append(k, 0)
		if d2.IsNull() {
			k = append(k, "\x00N"...)
		} else {
			k = types.AppendGroupKey(k, a.Arg2.Type(), d2)
		}
	}
	if st.seen == nil {
		st.seen = map[string]bool{}
	}
	if st.seen[string(k)] {
		return true, nil
	}
	st.seen[string(k)] = true
	return false, nil
}

// accumulate adds one admitted row's argument to the state.
func (a *AggCall) accumulate(c *Ctx, st *aggState, row Row) error {
	if a.Arg == nil {
		st.count++
		return nil
	}
	d, err := a.Arg.Eval(c.Env, row)
	if err != nil {
		return err
	}
	if isJSON, object := types.IsJSONAgg(a.Name); isJSON {
		return a.accumulateJSON(c, st, row, d, object)
	}
	if d.IsNull() && a.Name != "array_agg" {
		return nil
	}
	if a.Distinct {
		if dup, err := a.distinctSeen(c, st, row, d); err != nil || dup {
			return err
		}
	}
	if a.Name == "array_agg" {
		if types.IsArray(a.Arg.Type()) {
			if err := types.CheckAccumArray(st.elems, d); err != nil {
				return err
			}
		}
		st.elems = append(st.elems, d)
		st.set = true
		return nil
	}
	st.count++
	t := a.Arg.Type()
	if t.OID == types.IntervalOID && (a.Name == "sum" || a.Name == "avg") {
		return stepIntervalSum(st, d)
	}
	switch a.Name {
	case "string_agg":
		if st.set && a.Arg2 != nil {
			sep, err := a.Arg2.Eval(c.Env, row)
			if err != nil {
				return err
			}
			if !sep.IsNull() {
				st.sb.WriteString(sep.Str())
			}
		}
		st.sb.WriteString(d.Str())
		st.set = true
	case "sum", "avg":
		if a.T.OID == types.NumericOID {
			if st.num == nil {
				st.num = new(types.NumericAccum)
			}
			if types.IsInteger(t) {
				st.num.AddInt(d.Int())
			} else {
				st.num.AddNumeric(d)
			}
		} else if types.IsInteger(t) {
			s := st.sumI + d.Int()
			if (d.Int() > 0 && s < st.sumI) || (d.Int() < 0 && s > st.sumI) {
				return pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			st.sumI = s
			st.sumF += float64(d.Int())
		} else {
			st.sumF += d.Float()
		}
	case "variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop":
		switch {
		case types.IsFloat(t):
			if st.floatVar == nil {
				st.floatVar = new(types.FloatVarianceAccum)
			}
			return st.floatVar.Add(d.Float())
		case st.numVar == nil:
			st.numVar = new(types.NumericVarianceAccum)
		}
		if types.IsInteger(t) {
			st.numVar.AddInt(d.Int())
		} else {
			st.numVar.AddNumeric(d)
		}
	case "min", "max":
		if !st.set {
			st.val, st.set = d, true
			return nil
		}
		cmp := types.Compare(t, d, st.val)
		if cmp == 0 && t.OID == types.NumericOID {
			// numeric_smaller/larger keep the newer of two equal values
			// (1.5 and 1.50 print differently)
			st.val = d
		} else if (a.Name == "min" && cmp < 0) || (a.Name == "max" && cmp > 0) {
			st.val = d
		}
	case "bool_and", "every":
		if !st.set {
			st.val, st.set = d, true
		} else if !d.Bool() {
			st.val = d
		}
	case "bool_or":
		if !st.set {
			st.val, st.set = d, true
		} else if d.Bool() {
			st.val = d
		}
	}
	return nil
}

func (a *AggCall) final(c *Ctx, st *aggState) (types.Datum, error) {
	if a.sortsInput() {
		if err := a.replaySorted(c, st); err != nil {
			return types.Null(), err
		}
	}
	if a.Arg != nil && a.Arg.Type().OID == types.IntervalOID && (a.Name == "sum" || a.Name == "avg") {
		return finalIntervalSum(a.Name, st)
	}
	if isJSON, _ := types.IsJSONAgg(a.Name); isJSON {
		if !st.set {
			return types.Null(), nil
		}
		kt := a.Arg.Type()
		vt := kt
		if a.Arg2 != nil {
			vt = a.Arg2.Type()
		}
		return types.JSONAggResult(c.Env.Settings, a.Name, kt, vt, st.keys, st.elems)
	}
	switch a.Name {
	case "sum", "avg":
		if st.count == 0 {
			return types.Null(), nil
		}
		if a.T.OID == types.NumericOID {
			if a.Name == "sum" {
				return st.num.Sum()
			}
			return st.num.Avg(st.count)
		}
	case "variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop":
		kind := types.VarianceKind{Sample: !strings.HasSuffix(a.Name, "_pop"), Stddev: strings.HasPrefix(a.Name, "stddev")}
		switch {
		case st.floatVar != nil:
			return st.floatVar.Result(kind), nil
		case st.numVar != nil:
			return st.numVar.Result(kind)
		}
		return types.Null(), nil
	}
	return a.finalValue(st), nil
}

func (a *AggCall) finalValue(st *aggState) types.Datum {
	switch a.Name {
	case "count":
		return types.Int(st.count)
	case "sum":
		if types.IsInteger(a.Arg.Type()) {
			return types.Int(st.sumI)
		}
		return types.Float(st.sumF)
	case "avg":
		return types.Float(st.sumF / float64(st.count))
	case "string_agg":
		if !st.set {
			return types.Null()
		}
		return types.Str(st.sb.String())
	case "array_agg":
		if !st.set {
			return types.Null()
		}
		if types.IsArray(a.Arg.Type()) {
			d, _ := types.StackArrays(st.elems) // CheckAccumArray admitted each
			return d
		}
		return types.Array(st.elems)
	default:
		if !st.set {
			return types.Null()
		}
		return st.val
	}
}

// Agg computes aggregates, grouped by GroupBy (hash aggregation) or over
// all input (plain aggregation). Output: group keys, then aggregates.
type Agg struct {
	nodeBase
	Input   Node
	GroupBy []expr.Expr
	// Sets, for GROUPING SETS / ROLLUP / CUBE, are the grouping sets as
	// indexes into GroupBy (groupingsets.go); nil for a plain GROUP BY.
	Sets [][]int
	// sortSets: compute the sets by sorting (enable_hashagg is off);
	// aggregates that sort their input (DISTINCT, ORDER BY) do too.
	sortSets bool
	Aggs     []*AggCall
	Cols     []Column
	// distinct: this Agg implements SELECT DISTINCT (EXPLAIN says Unique/HashAggregate).
	distinct bool
	// split says whether this is one half of a parallel aggregation
	// (parallel_agg.go): a Partial Agg under a Gather, or the Finalize Agg
	// above it.
	split    aggSplit
	out      []Row
	i        int
	partials []*aggGroup // a Partial Agg's groups, for its Gather
	// spill is a grouped Agg's spill state past hash_mem (aggspill.go).
	spill *aggSpill
}

// aggGroup is one group's keys and the aggregates' transition states.
type aggGroup struct {
	key    string
	keys   []types.Datum
	states []aggState
	set    int // the grouping set (an index into Agg.Sets)
}

func (a *Agg) Columns() []Column { return a.Cols }
func (a *Agg) Open(c *Ctx) error {
	if err := Open(c, a.Input); err != nil {
		return err
	}
	a.closeSpill()
	a.spill = nil
	if a.canSpill(c) {
		a.spill = &aggSpill{limit: c.hashMemKB() * 1024, seed: maphash.MakeSeed()}
	}
	var order []*aggGroup
	var err error
	switch {
	case a.split == aggFinalize:
		order, err = a.combineGathered(c)
	case a.Sets != nil:
		// Grouping sets are computed in memory (groupingsets.go).
		order, err = a.accumulateSets(c)
	default:
		order, err = a.aggBatch(c, func() (Row, error) { return Next(c, a.Input) }, 0, -1)
	}
	if err != nil {
		return err
	}
	if len(a.GroupBy) == 0 && len(order) == 0 {
		order = append(order, &aggGroup{states: make([]aggState, len(a.Aggs))})
	}
	if a.split == aggPartial {
		a.out, a.i = a.out[:0], 0
		a.partials = order
		for _, g := range order {
			a.out = append(a.out, append(append(Row{}, g.keys...), make(Row, len(a.Aggs))...))
		}
		return nil
	}
	return a.finalizeGroups(c, order)
}

// finalizeGroups makes a.out the output rows of groups: keys, then the
// aggregates' final values.
func (a *Agg) finalizeGroups(c *Ctx, order []*aggGroup) error {
	a.out, a.i = a.out[:0], 0
	for _, g := range order {
		row := make(Row, 0, len(g.keys)+len(a.Aggs))
		row = append(row, g.keys...)
		for i, ag := range a.Aggs {
			if ag.Name == "grouping" {
				row = append(row, a.groupingValue(ag, g))
				continue
			}
			v, err := ag.final(c, &g.states[i])
			if err != nil {
				return err
			}
			row = append(row, v)
		}
		a.out = append(a.out, row)
	}
	return nil
}

func (a *Agg) Next(c *Ctx) (Row, error) {
	for a.i >= len(a.out) {
		ok, err := a.nextBatch(c)
		if err != nil || !ok {
			return nil, err
		}
	}
	a.i++
	return a.out[a.i-1], nil
}
func (a *Agg) Close(c *Ctx) { a.closeSpill(); Close(c, a.Input) }

var _ = fmt.Sprintf

// accumulateJSON is the transition of the JSON aggregates: every value,
// NULL too; json(b)_object_agg's key d (refused if NULL) and value Arg2.
func (a *AggCall) accumulateJSON(c *Ctx, st *aggState, row Row, d types.Datum, object bool) error {
	if a.Distinct {
		if dup, err := a.distinctSeen(c, st, row, d); err != nil || dup {
			return err
		}
	}
	st.set = true
	if !object {
		st.elems = append(st.elems, d)
		return nil
	}
	if d.IsNull() {
		return types.ErrJSONAggNullKey()
	}
	v, err := a.Arg2.Eval(c.Env, row)
	if err != nil {
		return err
	}
	st.keys, st.elems = append(st.keys, d), append(st.elems, v)
	return nil
}
