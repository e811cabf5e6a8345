package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// WindowAgg evaluates the window functions of one window (PostgreSQL's
// WindowAgg node). Its input arrives sorted by the window's PARTITION BY
// then ORDER BY keys; it buffers one partition at a time, computes every
// function for each of the partition's rows and returns each input row
// with the functions' results appended, in input order.
type WindowAgg struct {
	nodeBase
	Input Node
	Win   *WindowSpec
	Funcs []*WindowFunc
	Cols  []Column

	startOff, endOff types.Datum // the frame offsets, evaluated at Open
	next             Row         // first row of the next partition
	eof              bool
	part             *winPartition
	results          [][]types.Datum // per function, per partition row
	pos              int
}

// WindowSpec is a resolved window: partitioning, ordering and frame.
type WindowSpec struct {
	Partition []expr.Expr
	Order     []SortKey
	// Frame holds PostgreSQL's FRAMEOPTION_* bits.
	Frame                  int32
	StartOffset, EndOffset expr.Expr
	// startRange/endRange compare RANGE offsets (window_frame.go).
	startRange, endRange *rangeOffset
	// text is the definition as the planner matched it (dedupe).
	text string
}

// WindowFunc is one window function call of a WindowAgg.
type WindowFunc struct {
	Name string
	Args []expr.Expr
	// Agg, for an aggregate used as a window function, is the aggregate
	// (its FILTER included); nil for the built-in window functions.
	Agg  *AggCall
	T    types.Type
	Text string
}

// winPartition is one buffered partition.
type winPartition struct {
	rows []Row
	keys [][]types.Datum // ORDER BY values of each row
	// group is each row's peer group; gstart the first row of each group,
	// with len(rows) appended (so group g is gstart[g]..gstart[g+1]).
	group  []int
	gstart []int
	// head/tail: each row's frame is rows head..tail-1 (before exclusion).
	head, tail []int
}

func (w *WindowAgg) Columns() []Column { return w.Cols }

func (w *WindowAgg) Open(c *Ctx) error {
	w.next, w.eof, w.part, w.results, w.pos = nil, false, nil, nil, 0
	var err error
	if w.startOff, err = w.Win.frameOffset(c, w.Win.StartOffset, "starting"); err != nil {
		return err
	}
	if w.endOff, err = w.Win.frameOffset(c, w.Win.EndOffset, "ending"); err != nil {
		return err
	}
	return Open(c, w.Input)
}

func (w *WindowAgg) Next(c *Ctx) (Row, error) {
	for w.part == nil || w.pos >= len(w.part.rows) {
		ok, err := w.loadPartition(c)
		if err != nil || !ok {
			return nil, err
		}
	}
	in := w.part.rows[w.pos]
	out := make(Row, len(in), len(in)+len(w.Funcs))
	copy(out, in)
	for f := range w.Funcs {
		out = append(out, w.results[f][w.pos])
	}
	w.pos++
	return out, nil
}

func (w *WindowAgg) Close(c *Ctx) {
	w.part, w.results, w.next = nil, nil, nil
	Close(c, w.Input)
}

// loadPartition reads the next partition and computes the functions over
// it; false at the end of the input.
func (w *WindowAgg) loadPartition(c *Ctx) (bool, error) {
	w.part, w.results, w.pos = nil, nil, 0
	if w.next == nil && !w.eof {
		r, err := Next(c, w.Input)
		if err != nil {
			return false, err
		}
		w.next, w.eof = r, r == nil
	}
	if w.next == nil {
		return false, nil
	}
	first, err := evalExprs(c, w.Win.Partition, w.next)
	if err != nil {
		return false, err
	}
	p := &winPartition{rows: []Row{w.next}}
	w.next = nil
	for {
		r, err := Next(c, w.Input)
		if err != nil {
			return false, err
		}
		if r == nil {
			w.eof = true
			break
		}
		k, err := evalExprs(c, w.Win.Partition, r)
		if err != nil {
			return false, err
		}
		if !sameGroupKeys(w.Win.Partition, first, k) {
			w.next = r
			break
		}
		p.rows = append(p.rows, r)
	}
	if err := w.peers(c, p); err != nil {
		return false, err
	}
	if err := w.frames(c, p); err != nil {
		return false, err
	}
	w.part = p
	w.results = make([][]types.Datum, len(w.Funcs))
	for i, f := range w.Funcs {
		if w.results[i], err = w.evalFunc(c, f, p); err != nil {
			return false, err
		}
	}
	return true, nil
}

func evalExprs(c *Ctx, es []expr.Expr, r Row) ([]types.Datum, error) {
	out := make([]types.Datum, len(es))
	for i, e := range es {
		d, err := e.Eval(c.Env, r)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// sameGroupKeys: two rows' keys are equal, nulls equal to nulls (as
// grouping compares them).
func sameGroupKeys(es []expr.Expr, a, b []types.Datum) bool {
	for i, e := range es {
		switch {
		case a[i].IsNull() || b[i].IsNull():
			if a[i].IsNull() != b[i].IsNull() {
				return false
			}
		case types.Compare(e.Type(), a[i], b[i]) != 0:
			return false
		}
	}
	return true
}

// peers evaluates the ORDER BY keys and numbers the peer groups (rows
// equal in every ORDER BY key; without ORDER BY all rows are peers).
func (w *WindowAgg) peers(c *Ctx, p *winPartition) error {
	n := len(p.rows)
	p.keys = make([][]types.Datum, n)
	p.group = make([]int, n)
	p.gstart = p.gstart[:0]
	for i, r := range p.rows {
		if i%1024 == 0 {
			if err := c.checkCancel(); err != nil {
				return err
			}
		}
		k := make([]types.Datum, len(w.Win.Order))
		for j, sk := range w.Win.Order {
			d, err := sk.Expr.Eval(c.Env, r)
			if err != nil {
				return err
			}
			k[j] = d
		}
		p.keys[i] = k
		if i == 0 || compareKeys(w.Win.Order, p.keys[i-1], k) != 0 {
			p.gstart = append(p.gstart, i)
		}
		p.group[i] = len(p.gstart) - 1
	}
	p.gstart = append(p.gstart, n)
	return nil
}

// excluded: the frame of row cur leaves out row j (EXCLUDE ...).
func (w *WindowAgg) excluded(p *winPartition, cur, j int) bool {
	switch {
	case w.Win.Frame&frameExcludeCurrentRow != 0:
		return j == cur
	case w.Win.Frame&frameExcludeGroup != 0:
		return p.group[j] == p.group[cur]
	case w.Win.Frame&frameExcludeTies != 0:
		return j != cur && p.group[j] == p.group[cur]
	}
	return false
}

// frameRows calls fn for each row of cur's frame in order, until fn
// returns false.
func (w *WindowAgg) frameRows(c *Ctx, p *winPartition, cur int, fn func(j int) (bool, error)) error {
	for j := p.head[cur]; j < p.tail[cur]; j++ {
		if (j-p.head[cur])%1024 == 1023 {
			if err := c.checkCancel(); err != nil {
				return err
			}
		}
		if w.excluded(p, cur, j) {
			continue
		}
		more, err := fn(j)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// evalFunc computes one function for every row of the partition.
func (w *WindowAgg) evalFunc(c *Ctx, f *WindowFunc, p *winPartition) ([]types.Datum, error) {
	if f.Agg != nil {
		return w.evalAggregate(c, f.Agg, p)
	}
	n := len(p.rows)
	out := make([]types.Datum, n)
	var tile *ntileState
	for i := 0; i < n; i++ {
		if i%1024 == 0 {
			if err := c.checkCancel(); err != nil {
				return nil, err
			}
		}
		g := p.group[i]
		var d types.Datum
		var err error
		switch f.Name {
		case "row_number":
			d = types.Int(int64(i + 1))
		case "rank":
			d = types.Int(int64(p.gstart[g] + 1))
		case "dense_rank":
			d = types.Int(int64(g + 1))
		case "percent_rank":
			d = types.Float(0)
			if n > 1 {
				d = types.Float(float64(p.gstart[g]) / float64(n-1))
			}
		case "cume_dist":
			d = types.Float(float64(p.gstart[g+1]) / float64(n))
		case "ntile":
			if tile == nil {
				if tile, err = newNtile(c, f, p.rows[i], n); err != nil {
					return nil, err
				}
			}
			if tile == nil {
				d = types.Null() // a null bucket count: asked again on the next row
			} else {
				d = tile.step()
			}
		case "lag", "lead":
			d, err = w.leadLag(c, f, p, i)
		case "first_value", "last_value", "nth_value":
			d, err = w.frameValue(c, f, p, i)
		default:
			err = pgerr.Errorf(pgerr.InternalError, "unknown window function %s", f.Name)
		}
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// ntileState divides the partition into buckets as PostgreSQL's ntile:
// the first total%buckets buckets get one row more.
type ntileState struct {
	tile, perBucket, boundary, remainder int64
}

func newNtile(c *Ctx, f *WindowFunc, row Row, total int) (*ntileState, error) {
	d, err := f.Args[0].Eval(c.Env, row)
	if err != nil || d.IsNull() {
		return nil, err
	}
	buckets := d.Int()
	if buckets <= 0 {
		return nil, pgerr.Errorf(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
	}
	t := &ntileState{tile: 1, boundary: int64(total) / buckets}
	if t.boundary <= 0 {
		t.boundary = 1
	} else if t.remainder = int64(total) % buckets; t.remainder != 0 {
		t.boundary++
	}
	return t, nil
}

func (t *ntileState) step() types.Datum {
	t.perBucket++
	if t.boundary < t.perBucket {
		if t.remainder != 0 && t.tile == t.remainder {
			t.remainder = 0
			t.boundary--
		}
		t.tile++
		t.perBucket = 1
	}
	return types.Int(t.tile)
}

// leadLag: the argument at the row offset rows after (lead) or before
// (lag) the current one in the partition, or the default.
func (w *WindowAgg) leadLag(c *Ctx, f *WindowFunc, p *winPartition, i int) (types.Datum, error) {
	row := p.rows[i]
	off := int64(1)
	if len(f.Args) > 1 {
		d, err := f.Args[1].Eval(c.Env, row)
		if err != nil || d.IsNull() {
			return types.Null(), err
		}
		off = d.Int()
	}
	if f.Name == "lag" {
		off = -off
	}
	target := int64(i) + off
	if target >= 0 && target < int64(len(p.rows)) {
		return f.Args[0].Eval(c.Env, p.rows[target])
	}
	if len(f.Args) > 2 {
		return f.Args[2].Eval(c.Env, row)
	}
	return types.Null(), nil
}

// frameValue: first_value, last_value and nth_value over the frame.
func (w *WindowAgg) frameValue(c *Ctx, f *WindowFunc, p *winPartition, i int) (types.Datum, error) {
	want := int64(1)
	if f.Name == "nth_value" {
		d, err := f.Args[1].Eval(c.Env, p.rows[i])
		if err != nil || d.IsNull() {
			return types.Null(), err
		}
		if want = d.Int(); want <= 0 {
			return types.Null(), pgerr.Errorf(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
		}
	}
	found := -1
	seen := int64(0)
	err := w.frameRows(c, p, i, func(j int) (bool, error) {
		seen++
		if f.Name == "last_value" {
			found = j
			return true, nil
		}
		if seen == want {
			found = j
			return false, nil
		}
		return true, nil
	})
	if err != nil || found < 0 {
		return types.Null(), err
	}
	return f.Args[0].Eval(c.Env, p.rows[found])
}

// evalAggregate computes an aggregate over each row's frame. While the
// frame keeps its start and only grows (the default frame, UNBOUNDED
// PRECEDING), rows are added to one running state; otherwise the frame
// is aggregated afresh, as PostgreSQL does for aggregates without an
// inverse transition.
func (w *WindowAgg) evalAggregate(c *Ctx, a *AggCall, p *winPartition) ([]types.Datum, error) {
	n := len(p.rows)
	out := make([]types.Datum, n)
	exclusion := w.Win.Frame&frameExclusion != 0
	var st aggState
	aggHead, aggTail := 0, -1 // the rows st holds: aggHead..aggTail-1
	for i := 0; i < n; i++ {
		head, tail := p.head[i], p.tail[i]
		if i > 0 && !exclusion && head == p.head[i-1] && tail == p.tail[i-1] {
			out[i] = out[i-1]
			continue
		}
		if !exclusion && aggTail >= 0 && head > aggHead && head <= aggTail && tail >= aggTail && a.invertible() {
			// the frame's start moved on: take its first rows back out
			for j := aggHead; j < head; j++ {
				if err := a.retract(c, &st, p.rows[j]); err != nil {
					return nil, err
				}
			}
			aggHead = head
		}
		if exclusion || aggTail < 0 || head != aggHead || tail < aggTail {
			st, aggHead, aggTail = aggState{}, head, head
		}
		for j := aggTail; j < tail; j++ {
			if j%1024 == 1023 {
				if err := c.checkCancel(); err != nil {
					return nil, err
				}
			}
			if exclusion && w.excluded(p, i, j) {
				continue
			}
			if err := a.step(c, &st, p.rows[j]); err != nil {
				return nil, err
			}
		}
		if tail > aggTail {
			aggTail = tail
		}
		d, err := a.final(c, &st)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// String prints the call as EXPLAIN VERBOSE and column names need it.
func (f *WindowFunc) String() string {
	if f.Text != "" {
		return f.Text
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		args[i] = a.String()
	}
	return f.Name + "(" + strings.Join(args, ", ") + ")"
}

// estimate is cost_windowagg's: per input row, one operator per function
// argument and key, and one tuple.
func (w *WindowAgg) estimate(in estimate) estimate {
	ops := len(w.Win.Partition) + len(w.Win.Order)
	for _, f := range w.Funcs {
		ops += 1 + len(f.Args)
	}
	c := in.total + in.rows*(0.0025*float64(ops)+0.01)
	return estimate{in.startup, c, in.rows, colsWidth(w.Cols)}
}

// exprs are the expressions the node evaluates (EXPLAIN's subplans).
func (w *WindowAgg) exprs() []expr.Expr {
	out := append([]expr.Expr{}, w.Win.Partition...)
	for _, k := range w.Win.Order {
		out = append(out, k.Expr)
	}
	for _, f := range w.Funcs {
		out = append(out, f.Args...)
		if f.Agg != nil {
			out = append(out, f.Agg.Arg, f.Agg.Arg2, f.Agg.Filter)
		}
	}
	return out
}

// invertible: a row can be taken back out of the aggregate's state
// exactly (PostgreSQL's inverse transition functions), for count and for
// sums of int2 and int4, whose state is an integer.
func (a *AggCall) invertible() bool {
	switch a.Name {
	case "count":
		return !a.Distinct
	case "sum":
		return !a.Distinct && a.Arg != nil && a.T.OID == types.Int8OID && types.IsInteger(a.Arg.Type())
	}
	return false
}

// retract undoes accumulate for one row of an invertible aggregate.
func (a *AggCall) retract(c *Ctx, st *aggState, row Row) error {
	if a.Filter != nil {
		ok, err := a.Filter.Eval(c.Env, row)
		if err != nil || ok.IsNull() || !ok.Bool() {
			return err
		}
	}
	if a.Arg == nil {
		st.count--
		return nil
	}
	d, err := a.Arg.Eval(c.Env, row)
	if err != nil || d.IsNull() {
		return err
	}
	st.count--
	if a.Name == "sum" {
		st.sumI -= d.Int()
		st.sumF -= float64(d.Int())
	}
	return nil
}
