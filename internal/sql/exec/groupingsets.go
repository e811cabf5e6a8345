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

// planGroupClause compiles GROUP BY into a's GroupBy: its distinct
// expressions and, when it uses grouping sets, the sets (indexes into
// the expressions).
func (p *Planner) planGroupClause(comp *expr.Compiler, s *pg.SelectStmt, a *Agg) error {
	var err error
	a.GroupBy, a.Sets, err = p.groupingSets(comp, s)
	a.sortSets = !p.methodEnabled("enable_hashagg")
	return err
}

func (p *Planner) groupingSets(comp *expr.Compiler, s *pg.SelectStmt) ([]expr.Expr, [][]int, error) {
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
	if a.sortedSets() {
		return a.accumulateRollups(c)
	}
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
	case a.sortedSets():
		return "GroupAggregate"
	case empty > 0:
		return "MixedAggregate"
	}
	return "HashAggregate"
}

// setsKeyLines are EXPLAIN's "Hash Key:" line per set, then a
// "Group Key: ()" per empty set.
func (a *Agg) setsKeyLines() []string {
	if a.sortedSets() {
		return a.rollupKeyLines()
	}
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

// sortedSets: the sets are computed as PostgreSQL's GroupAggregate does
// (which then decides the order of the groups): when hashing is off, or
// an aggregate needs sorted input (PostgreSQL cannot hash those).
func (a *Agg) sortedSets() bool {
	if a.sortSets {
		return true
	}
	for _, ag := range a.Aggs {
		if ag.Distinct || len(ag.OrderBy) > 0 {
			return true
		}
	}
	return false
}

// rollup is a chain of grouping sets, each containing the next, computed
// from one sort of the input: keys is the sort order, in which every set
// of the chain is a prefix (prefix[i] long).
type rollup struct {
	sets   []int // indexes into Agg.Sets, largest first
	keys   []int // GroupBy indexes in sort order
	prefix []int
}

// rollups covers the sets with chains, greedily: the sets largest first,
// each added to the first chain whose smallest set contains it.
func (a *Agg) rollups() []*rollup {
	order := make([]int, len(a.Sets))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(a.Sets[order[i]]) > len(a.Sets[order[j]]) })
	contains := func(big, small []int) bool {
		in := map[int]bool{}
		for _, x := range big {
			in[x] = true
		}
		for _, x := range small {
			if !in[x] {
				return false
			}
		}
		return true
	}
	var chains []*rollup
	for _, si := range order {
		placed := false
		for _, ch := range chains {
			if contains(a.Sets[ch.sets[len(ch.sets)-1]], a.Sets[si]) {
				ch.sets = append(ch.sets, si)
				placed = true
				break
			}
		}
		if !placed {
			chains = append(chains, &rollup{sets: []int{si}})
		}
	}
	for _, ch := range chains {
		seen := map[int]bool{}
		ch.prefix = make([]int, len(ch.sets))
		for k := len(ch.sets) - 1; k >= 0; k-- {
			set := append([]int{}, a.Sets[ch.sets[k]]...)
			sort.Ints(set)
			for _, g := range set {
				if !seen[g] {
					seen[g] = true
					ch.keys = append(ch.keys, g)
				}
			}
			ch.prefix[k] = len(ch.keys)
		}
	}
	return chains
}

// accumulateRollups computes the sets rollup by rollup: the input sorted
// by the rollup's keys, a set's group ends where its prefix of the keys
// changes. Groups come out as PostgreSQL's GroupAggregate emits them.
func (a *Agg) accumulateRollups(c *Ctx) ([]*aggGroup, error) {
	var rows []Row
	for {
		r, err := Next(c, a.Input)
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		rows = append(rows, append(Row(nil), r...)) // the scan may reuse r
	}
	var out []*aggGroup
	for _, ch := range a.rollups() {
		keys := make([]SortKey, len(ch.keys))
		for i, g := range ch.keys {
			keys[i] = SortKey{Expr: a.GroupBy[g]}
		}
		idx, err := c.sortOrder(rows, keys)
		if err != nil {
			return nil, err
		}
		cur := make([]*aggGroup, len(ch.sets))
		var prev []types.Datum
		for _, ri := range idx {
			r := rows[ri]
			all, err := evalExprs(c, a.GroupBy, r)
			if err != nil {
				return nil, err
			}
			for k, si := range ch.sets {
				if cur[k] != nil && !samePrefix(a.GroupBy, ch.keys[:ch.prefix[k]], prev, all) {
					out = append(out, cur[k])
					cur[k] = nil
				}
				if cur[k] == nil {
					cur[k] = a.newSetGroup(si, all)
				}
				for i, ag := range a.Aggs {
					if err := ag.step(c, &cur[k].states[i], r); err != nil {
						return nil, err
					}
				}
			}
			prev = all
		}
		for k, si := range ch.sets {
			if cur[k] == nil && len(a.Sets[si]) == 0 {
				cur[k] = a.newSetGroup(si, nil)
			}
			if cur[k] != nil {
				out = append(out, cur[k])
			}
		}
	}
	return out, nil
}

func samePrefix(group []expr.Expr, keys []int, a, b []types.Datum) bool {
	for _, g := range keys {
		x, y := a[g], b[g]
		if x.IsNull() || y.IsNull() {
			if x.IsNull() != y.IsNull() {
				return false
			}
			continue
		}
		if types.Compare(group[g].Type(), x, y) != 0 {
			return false
		}
	}
	return true
}

// newSetGroup starts a group of set si whose keys come from the row's
// grouping values all (nil: no row).
func (a *Agg) newSetGroup(si int, all []types.Datum) *aggGroup {
	keys := make([]types.Datum, len(a.GroupBy))
	if all != nil {
		for _, i := range a.Sets[si] {
			keys[i] = all[i]
		}
	}
	return &aggGroup{keys: keys, states: make([]aggState, len(a.Aggs)), set: si}
}

// rollupKeyLines: "Group Key:" per set of the first rollup; each later
// rollup under its own "Sort Key:", as PostgreSQL's GroupAggregate.
func (a *Agg) rollupKeyLines() []string {
	names := func(ids []int) string {
		if len(ids) == 0 {
			return "()"
		}
		ks := make([]string, len(ids))
		for i, g := range ids {
			ks[i] = a.GroupBy[g].String()
		}
		return strings.Join(ks, ", ")
	}
	var out []string
	for ci, ch := range a.rollups() {
		ind := ""
		if ci > 0 {
			out = append(out, "Sort Key: "+names(ch.keys))
			ind = "  "
		}
		for k := range ch.sets {
			out = append(out, ind+"Group Key: "+names(ch.keys[:ch.prefix[k]]))
		}
	}
	return out
}
