package exec

import (
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// aggSplit is an Agg's role in a parallel aggregation (PostgreSQL's
// AggSplit): each participant of a Gather runs a Partial Agg over its
// share of the rows and hands over its groups' transition states; the
// Finalize Agg above the Gather combines the states group by group and
// computes the results. States cross as Go values (aggGroup), not
// serialized: participants are goroutines of one process.
type aggSplit uint8

const (
	aggSimple aggSplit = iota
	aggPartial
	aggFinalize
)

// parallelAggregable reports whether a can be computed as partial states
// combined later: no DISTINCT or ORDER BY (they need all rows in one
// place), and a transition state with a combine step.
func parallelAggregable(a *AggCall) bool {
	if a.Distinct || len(a.OrderBy) > 0 || a.Arg2 != nil {
		return false
	}
	switch a.Name {
	case "count":
		return true
	case "bool_and", "bool_or", "every":
		return true
	case "min", "max":
		return a.Arg != nil
	case "sum", "avg":
		// Interval sums keep their own state (aggregate_interval.go).
		return a.Arg != nil && a.Arg.Type().OID != types.IntervalOID
	}
	return false
}

// cloneForWorker is a copy of the call with expressions of its own, or
// false if an expression is not parallel safe.
func (a *AggCall) cloneForWorker() (*AggCall, bool) {
	cp := *a
	var ok bool
	if a.Arg != nil {
		if cp.Arg, ok = expr.CloneForWorker(a.Arg); !ok {
			return nil, false
		}
	}
	if a.Filter != nil {
		if cp.Filter, ok = expr.CloneForWorker(a.Filter); !ok {
			return nil, false
		}
	}
	return &cp, true
}

// combine adds src's state, accumulated from other rows, to dst's.
func (a *AggCall) combine(dst, src *aggState) error {
	if a.Arg == nil {
		dst.count += src.count
		return nil
	}
	if src.count == 0 && !src.set {
		return nil
	}
	t := a.Arg.Type()
	switch a.Name {
	case "count":
		dst.count += src.count
	case "sum", "avg":
		dst.count += src.count
		switch {
		case a.T.OID == types.NumericOID:
			if src.num == nil {
				return nil
			}
			if dst.num == nil {
				dst.num = new(types.NumericAccum)
			}
			dst.num.Combine(src.num)
		case types.IsInteger(t):
			s := dst.sumI + src.sumI
			if (src.sumI > 0 && s < dst.sumI) || (src.sumI < 0 && s > dst.sumI) {
				return pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			dst.sumI = s
			dst.sumF += src.sumF
		default:
			dst.sumF += src.sumF
		}
	case "min", "max":
		dst.count += src.count
		if !dst.set {
			dst.val, dst.set = src.val, true
			return nil
		}
		cmp := types.Compare(t, src.val, dst.val)
		if (a.Name == "min" && cmp < 0) || (a.Name == "max" && cmp > 0) {
			dst.val = src.val
		}
	case "bool_and", "every", "bool_or":
		dst.count += src.count
		if !dst.set {
			dst.val, dst.set = src.val, true
		} else if src.val.Bool() == (a.Name == "bool_or") {
			dst.val = src.val
		}
	}
	return nil
}

// combineGathered reads the partial groups its Gather collects from the
// participants and merges them by group key (Finalize Aggregate).
func (a *Agg) combineGathered(c *Ctx) ([]*aggGroup, error) {
	g := a.Input.(*Gather)
	groups := map[string]*aggGroup{}
	var order []*aggGroup
	for {
		r, err := Next(c, g)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return order, nil
		}
		part := g.partial
		dst := groups[part.key]
		if dst == nil {
			groups[part.key] = part
			order = append(order, part)
			continue
		}
		for i, ag := range a.Aggs {
			if err := ag.combine(&dst.states[i], &part.states[i]); err != nil {
				return nil, err
			}
		}
	}
}

// cloneForWorker is a fresh Partial Agg over a fresh copy of the input,
// for one participant; false if anything in it is not parallel safe.
func (a *Agg) cloneForWorker() (Node, bool) {
	in, ok := cloneParallelNode(a.Input)
	if !ok {
		return nil, false
	}
	cp := &Agg{Input: in, Cols: a.Cols, split: aggPartial}
	for _, g := range a.GroupBy {
		e, ok := expr.CloneForWorker(g)
		if !ok {
			return nil, false
		}
		cp.GroupBy = append(cp.GroupBy, e)
	}
	for _, call := range a.Aggs {
		cc, ok := call.cloneForWorker()
		if !ok {
			return nil, false
		}
		cp.Aggs = append(cp.Aggs, cc)
	}
	return cp, true
}

// label is EXPLAIN's prefix for the Agg's role.
func (s aggSplit) label() string {
	switch s {
	case aggPartial:
		return "Partial "
	case aggFinalize:
		return "Finalize "
	}
	return ""
}

// narrowAggScan lets a Seq Scan right below a that feeds aggregates which
// buffer no rows decode only the columns a reads, into one reused row
// (SeqScan.reuseRow): the rows are consumed as they come.
func narrowAggScan(a *Agg) {
	scan, ok := a.Input.(*SeqScan)
	if !ok || scan.WithTID || len(scan.Sys) > 0 {
		return
	}
	n := 0
	use := func(e expr.Expr) {
		if m := expr.MaxVar(e); m > n {
			n = m
		}
	}
	for _, g := range a.GroupBy {
		use(g)
	}
	for _, call := range a.Aggs {
		if call.sortsInput() {
			return
		}
		use(call.Arg)
		use(call.Arg2)
		use(call.Filter)
	}
	if n > len(scan.Rel.Attrs) {
		n = len(scan.Rel.Attrs)
	}
	scan.reuseRow, scan.leadAttrs = true, n
}
