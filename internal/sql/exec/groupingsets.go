package exec

import (
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// GROUPING SETS, ROLLUP and CUBE: the GROUP BY clause expands, as
// PostgreSQL's expand_grouping_sets does, into a list of grouping sets,
// each a subset of the distinct grouping expressions. The Agg node then
// aggregates every input row once per set; a grouping expression outside
// a row's set reads as NULL, and GROUPING(...) says which ones those are.

// planGroupClause compiles GROUP BY: its distinct expressions and, when
// it uses grouping sets, the sets (indexes into the expressions).
func (p *Planner) planGroupClause(comp *expr.Compiler, s *pg.SelectStmt) ([]expr.Expr, [][]int, error) {
	var exprs []expr.Expr
	hasSets := false
	for _, g := range s.GroupClause {
		if g.GetGroupingSet() != nil {
			hasSets = true
		}
	}
	if !hasSets {
		for _, g := range s.GroupClause {
			ge, err := p.groupExpr(comp, g, s.TargetList)
			if err != nil {
				return nil, nil, err
			}
			exprs = append(exprs, ge)
		}
		return exprs, nil, nil
	}
	index := map[string]int{}
	add := func(n *pg.Node) (int, error) {
		ge, err := p.groupExpr(comp, n, s.TargetList)
		if err != nil {
			return 0, err
		}
		k := ge.String()
		if i, ok := index[k]; ok {
			return i, nil
		}
		index[k] = len(exprs)
		exprs = append(exprs, ge)
		return len(exprs) - 1, nil
	}
	var result [][]int
	for i, g := range s.GroupClause {
		sets, err := expandGroupingItem(g, add)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			result = sets
			continue
		}
		var prod [][]int
		for _, a := range result {
			for _, b := range sets {
				prod = append(prod, append(append([]int{}, a...), b...))
			}
		}
		result = prod
	}
	if s.GroupDistinct {
		result = distinctSets(result)
	}
	for i, set := range result {
		result[i] = uniqueInts(set)
	}
	return exprs, orderSets(result), nil
}

// expandGroupingItem expands one GROUP BY item into its grouping sets.
func expandGroupingItem(n *pg.Node, add func(*pg.Node) (int, error)) ([][]int, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		ids, err := simpleSet(n, add)
		return [][]int{ids}, err
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
		var ids []int
		for _, c := range gs.Content {
			more, err := simpleSet(c, add)
			if err != nil {
				return nil, err
			}
			ids = append(ids, more...)
		}
		return [][]int{ids}, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]int
		for _, c := range gs.Content {
			sets, err := expandGroupingItem(c, add)
			if err != nil {
				return nil, err
			}
			out = append(out, sets...)
		}
		return out, nil
	}
	// ROLLUP and CUBE: their elements are expressions or (a, b) lists.
	var elems [][]int
	for _, c := range gs.Content {
		ids, err := simpleSet(c, add)
		if err != nil {
			return nil, err
		}
		elems = append(elems, ids)
	}
	var out [][]int
	if gs.Kind == pg.GroupingSetKind_GROUPING_SET_ROLLUP {
		for k := len(elems); k >= 0; k-- {
			var set []int
			for _, e := range elems[:k] {
				set = append(set, e...)
			}
			out = append(out, set)
		}
		return out, nil
	}
	if len(elems) > 12 {
		return nil, pgerr.Errorf(pgerr.ProgramLimitExceeded, "CUBE is limited to 12 elements")
	}
	for mask := 0; mask < 1<<len(elems); mask++ {
		set := []int{}
		for b, e := range elems {
			if mask&(1<<b) != 0 {
				set = append(set, e...)
			}
		}
		out = append(out, set)
	}
	return out, nil
}

// simpleSet: an expression, or a parenthesized list of them (a row
// constructor without ROW, which PostgreSQL reads as a set here).
func simpleSet(n *pg.Node, add func(*pg.Node) (int, error)) ([]int, error) {
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
		var ids []int
		for _, a := range r.Args {
			i, err := add(a)
			if err != nil {
				return nil, err
			}
			ids = append(ids, i)
		}
		return ids, nil
	}
	if gs := n.GetGroupingSet(); gs != nil && gs.Kind == pg.GroupingSetKind_GROUPING_SET_EMPTY {
		return []int{}, nil
	}
	i, err := add(n)
	return []int{i}, err
}

func uniqueInts(xs []int) []int {
	out := []int{}
	seen := map[int]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// distinctSets drops repeated sets (GROUP BY DISTINCT).
func distinctSets(sets [][]int) [][]int {
	var out [][]int
	seen := map[string]bool{}
	for _, s := range sets {
		k := uniqueInts(s)
		sort.Ints(k)
		key := fmt.Sprint(k)
		if !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	return out
}

// orderSets puts the sets in the order PostgreSQL's hashed grouping sets
// return their groups: the empty set's row first, then the others by
// size, largest first.
func orderSets(sets [][]int) [][]int {
	sort.SliceStable(sets, func(i, j int) bool {
		if (len(sets[i]) == 0) != (len(sets[j]) == 0) {
			return len(sets[i]) == 0
		}
		return len(sets[i]) > len(sets[j])
	})
	return sets
}

// groupingFuncHook compiles GROUPING(...) above an Agg with grouping sets
// (or plain GROUP BY, where it is 0), and offers other nodes to next.
func groupingFuncHook(input *expr.Compiler, a *Agg, next func(*pg.Node) (expr.Expr, bool, error)) func(*pg.Node) (expr.Expr, bool, error) {
	return func(n *pg.Node) (expr.Expr, bool, error) {
		gf := n.GetGroupingFunc()
		if gf == nil && a.Sets != nil && n.GetAConst() != nil {
			// a constant grouped by (GROUP BY 1 naming a literal) is the
			// group's key: NULL in the sets that leave it out
			if e, err := input.Compile(n); err == nil {
				for i, g := range a.GroupBy {
					if g.String() == e.String() {
						return &expr.Var{Index: i, T: g.Type(), Name: g.String()}, true, nil
					}
				}
			}
		}
		if gf == nil {
			if next == nil {
				return nil, false, nil
			}
			return next(n)
		}
		if len(gf.Args) > 31 {
			return nil, true, pgerr.Errorf(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments")
		}
		call := &AggCall{Name: "grouping", T: types.Int4}
		var names []string
		for _, arg := range gf.Args {
			e, err := input.Compile(arg)
			if err != nil {
				return nil, true, err
			}
			ref := -1
			for i, g := range a.GroupBy {
				if g.String() == e.String() {
					ref = i
					break
				}
			}
			if ref < 0 {
				err := pgerr.Errorf(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
				err.Position = gf.Location + 1
				if loc := parser.Location(arg); loc >= 0 {
					err.Position = loc + 1
				}
				return nil, true, err
			}
			call.GroupingRefs = append(call.GroupingRefs, ref)
			names = append(names, e.String())
		}
		a.Aggs = append(a.Aggs, call)
		return &expr.Var{Index: len(a.GroupBy) + len(a.Aggs) - 1, T: call.T, Name: "GROUPING(" + strings.Join(names, ", ") + ")"}, true, nil
	}
}

// groupingValue is GROUPING(...) for a group of set: a bit per argument,
// the last argument the lowest, set when the argument is not grouped.
func (a *Agg) groupingValue(call *AggCall, g *aggGroup) types.Datum {
	var in map[int]bool
	if a.Sets != nil {
		in = map[int]bool{}
		for _, i := range a.Sets[g.set] {
			in[i] = true
		}
	}
	v := int64(0)
	for _, ref := range call.GroupingRefs {
		v <<= 1
		if in != nil && !in[ref] {
			v |= 1
		}
	}
	return types.Int(v)
}

// accumulateSets is accumulate for grouping sets: each row joins one
// group of every set. Groups come out set by set, each set's groups in
// the order their first rows came; an empty set has its one row even
// when there is no input.
func (a *Agg) accumulateSets(c *Ctx) ([]*aggGroup, error) {
	groups := make([]map[string]*aggGroup, len(a.Sets))
	order := make([][]*aggGroup, len(a.Sets))
	for i := range groups {
		groups[i] = map[string]*aggGroup{}
	}
	var kb strings.Builder
	for {
		r, err := Next(c, a.Input)
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		all, err := evalExprs(c, a.GroupBy, r)
		if err != nil {
			return nil, err
		}
		for si, set := range a.Sets {
			kb.Reset()
			for _, i := range set {
				if all[i].IsNull() {
					kb.WriteString("\x00N")
				} else {
					kb.Write(types.AppendGroupKey(nil, a.GroupBy[i].Type(), all[i]))
				}
				kb.WriteByte(0)
			}
			g := groups[si][kb.String()]
			if g == nil {
				keys := make([]types.Datum, len(a.GroupBy))
				for _, i := range set {
					keys[i] = all[i]
				}
				g = &aggGroup{key: kb.String(), keys: keys, states: make([]aggState, len(a.Aggs)), set: si}
				groups[si][g.key] = g
				order[si] = append(order[si], g)
			}
			for i, ag := range a.Aggs {
				if err := ag.step(c, &g.states[i], r); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []*aggGroup
	for si, set := range a.Sets {
		if len(set) == 0 && len(order[si]) == 0 {
			order[si] = append(order[si], &aggGroup{keys: make([]types.Datum, len(a.GroupBy)), states: make([]aggState, len(a.Aggs)), set: si})
		}
		out = append(out, order[si]...)
	}
	return out, nil
}

// setsLabel names the node as PostgreSQL's hashed grouping sets plan
// does: HashAggregate, MixedAggregate when an empty set is computed
// alongside, Aggregate when there are only empty sets.
func (a *Agg) setsLabel() string {
	empty, other := 0, 0
	for _, s := range a.Sets {
		if len(s) == 0 {
			empty++
		} else {
			other++
		}
	}
	switch {
	case other == 0:
		return "Aggregate"
	case empty > 0:
		return "MixedAggregate"
	}
	return "HashAggregate"
}

// setsKeyLines are EXPLAIN's "Hash Key:" line per set, then a
// "Group Key: ()" per empty set.
func (a *Agg) setsKeyLines() []string {
	var hash, group []string
	for _, s := range a.Sets {
		if len(s) == 0 {
			group = append(group, "Group Key: ()")
			continue
		}
		ks := make([]string, len(s))
		for i, g := range s {
			ks[i] = a.GroupBy[g].String()
		}
		hash = append(hash, "Hash Key: "+strings.Join(ks, ", "))
	}
	return append(hash, group...)
}
