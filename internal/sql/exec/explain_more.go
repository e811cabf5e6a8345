package exec

import (
	"math"
	"strings"

	"github.com/tidal-db/tidal/internal/sql/expr"
)

// EXPLAIN for joins, subqueries, CTEs and set operations.

func (e *explainer) estimateMore(n Node) estimate {
	switch x := n.(type) {
	case *WindowAgg:
		return x.estimate(e.estimate(x.Input))
	case *Gather:
		return e.estimateGather(x)
	case *LockRows:
		in := e.estimate(x.Input)
		return estimate{in.startup, in.total + 0.01*in.rows, in.rows, in.width}
	case *HashJoin:
		l, r := e.estimate(x.Left), e.estimate(x.Hash.Input)
		rows := math.Max(l.rows, r.rows)
		return estimate{r.total + 0.0125*r.rows, l.total + r.total + 0.01*(l.rows+r.rows), rows, l.width + r.width}
	case *NestLoop:
		l, r := e.estimate(x.Left), e.estimate(x.Right)
		rows := l.rows * r.rows
		if x.Qual != nil {
			rows = math.Max(1, math.Round(rows*0.33))
		}
		return estimate{l.startup + r.startup, l.total + l.rows*r.total, rows, l.width + r.width}
	case *Hash:
		return e.estimate(x.Input)
	case *SubqueryScan:
		in := e.estimate(x.Input)
		return estimate{in.startup, in.total, in.rows, colsWidth(x.Cols)}
	case *CTEScan:
		in := e.estimate(x.def.node)
		return estimate{0, in.rows * 0.02, in.rows, colsWidth(x.def.cols)}
	case *WorkTableScan:
		return estimate{0, 2, 100, colsWidth(x.cols)}
	case *RecursiveUnion:
		l, r := e.estimate(x.NonRecursive), e.estimate(x.Recursive)
		return estimate{0, l.total + 10*r.total, l.rows + 10*r.rows, colsWidth(x.Cols)}
	case *Append:
		var out estimate
		for _, c := range x.Inputs {
			in := e.estimate(c)
			out.total += in.total
			out.rows += in.rows
		}
		out.width = colsWidth(x.Cols)
		return out
	case *SetOp:
		l, r := e.estimate(x.Left), e.estimate(x.Right)
		return estimate{l.total + r.total, l.total + r.total + 0.01*l.rows, l.rows, colsWidth(x.Cols)}
	case *ViewScan:
		return estimate{0, 10, 1000, colsWidth(x.view.cols)}
	case *RoutineScan:
		rows := 1.0
		if rc, ok := x.Call.(*RoutineCall); ok && rc.Proc.RetSet {
			rows = float64(rc.Proc.Rows)
		}
		return estimate{0.25, 0.25 + 0.01*rows, rows, colsWidth(x.Cols)}
	case *InhChild:
		return e.estimate(x.Input)
	case *inheritUpdateResult:
		return e.estimate(x.Input)
	}
	return estimate{0, 0, 1, 0}
}

func labelMore(n Node) string {
	switch x := n.(type) {
	case *WindowAgg:
		return "WindowAgg"
	case *Gather:
		return "Gather"
	case *LockRows:
		return "LockRows"
	case *RoutineScan:
		return "Function Scan on " + x.Name + " " + x.Alias
	case *HashJoin:
		if k := joinName(x.Kind); k != "" {
			return "Hash " + k + " Join"
		}
		return "Hash Join"
	case *NestLoop:
		if k := joinName(x.Kind); k != "" {
			return "Nested Loop " + k + " Join"
		}
		return "Nested Loop"
	case *Hash:
		return "Hash"
	case *SubqueryScan:
		return "Subquery Scan on " + x.Alias
	case *WorkTableScan:
		s := "WorkTable Scan on " + x.Name
		if x.Alias != "" && x.Alias != x.Name {
			s += " " + x.Alias
		}
		return s
	case *RecursiveUnion:
		return "Recursive Union"
	case *CTEScan:
		s := "CTE Scan on " + x.def.name
		if x.Alias != "" && x.Alias != x.def.name {
			s += " " + x.Alias
		}
		return s
	case *Append:
		return "Append"
	case *inheritUpdateResult:
		return "Result"
	case *CurrentOfScan:
		return x.explainLabel()
	case *SetOp:
		s := "HashSetOp Intersect"
		if x.Except {
			s = "HashSetOp Except"
		}
		if x.All {
			s += " All"
		}
		return s
	}
	return ""
}

func childrenMore(n Node) []Node {
	switch x := n.(type) {
	case *WindowAgg:
		return []Node{x.Input}
	case *Gather:
		return []Node{x.Input}
	case *LockRows:
		return []Node{x.Input}
	case *HashJoin:
		return []Node{x.Left, x.Hash}
	case *NestLoop:
		return []Node{x.Left, x.Right}
	case *Hash:
		return []Node{x.Input}
	case *SubqueryScan:
		return []Node{x.Input}
	case *Append:
		return x.Inputs
	case *inheritUpdateResult:
		return []Node{x.Input}
	case *SetOp:
		return []Node{x.Left, x.Right}
	case *RecursiveUnion:
		return []Node{x.NonRecursive, x.Recursive}
	case *Project:
		return []Node{x.Input}
	case *Filter:
		return []Node{x.Input}
	}
	return nil
}

func (e *explainer) detailsMore(n Node, d *planDesc, add func(string)) {
	filter := func(label string, q expr.Expr, removed int64) {
		if q == nil {
			return
		}
		d.details = append(d.details, textProp(label, q.String()))
		if e.opt.Analyze {
			d.details = append(d.details, intProp("Rows Removed by "+label, removed))
		}
	}
	switch x := n.(type) {
	case *Gather:
		d.details = append(d.details, intProp("Workers Planned", int64(x.Planned)))
		if e.opt.Analyze && x.run != nil {
			d.details = append(d.details, intProp("Workers Launched", int64(x.Launched)))
		}
	case *CurrentOfScan:
		add(x.explainCond())
	case *ModifyTable:
		e.modifyDetails(x, d, add)
	case *HashJoin:
		d.details = append(d.details, structured(boolProp("Inner Unique", false)))
		c := strings.Join(x.Conds, " AND ")
		if len(x.Conds) > 1 {
			c = "(" + c + ")"
		}
		add("Hash Cond: " + c)
		filter("Join Filter", x.Qual, x.instr.Filtered)
	case *NestLoop:
		d.details = append(d.details, structured(boolProp("Inner Unique", false)))
		filter("Join Filter", x.Qual, x.instr.Filtered)
	case *SubqueryScan:
		filter("Filter", x.Qual, x.instr.Filtered)
	case *CTEScan:
		filter("Filter", x.Qual, x.instr.Filtered)
	case *ViewScan:
		filter("Filter", x.Qual, x.instr.Filtered)
	case *Hash:
		if st := x.stats; e.opt.Analyze && st.batches > 0 {
			d.details = append(d.details, textAs(intProp("Hash Buckets", int64(st.buckets)), st.explainLine()),
				structured(intProp("Original Hash Buckets", int64(st.buckets))), structured(intProp("Hash Batches", int64(st.batches))),
				structured(intProp("Original Hash Batches", 1)), structured(intProp("Peak Memory Usage", int64((st.memPeak+1023)/1024))))
		}
	}
}

// modifyDetails are a ModifyTable's target tables (inheritance) and its
// ON CONFLICT properties.
func (e *explainer) modifyDetails(x *ModifyTable, d *planDesc, add func(string)) {
	if x.inh != nil && len(x.inh.subs) > 0 {
		var lines []string
		var subs [][]prop
		for _, sub := range x.inh.subs {
			lines = append(lines, x.Kind+" on "+sub.Rel.Name+" "+sub.Alias)
			subs = append(subs, append(e.relTarget(sub.Rel.Name, sub.Rel.Namespace), textProp("Alias", sub.Alias)))
		}
		d.details = append(d.details, textAs(prop{key: "Target Tables", kind: propGroups, subs: subs}, lines...))
	}
	if x.Conflict != nil {
		for _, l := range x.Conflict.explainLines() {
			p := lineProp(l)
			if p.key == "Conflict Arbiter Indexes" {
				p.kind, p.list = propList, strings.Split(p.val, ", ")
			}
			d.details = append(d.details, p)
		}
	}
}

// nodeExprs are the expressions a node evaluates itself.
func nodeExprs(n Node) []expr.Expr {
	switch x := n.(type) {
	case *WindowAgg:
		return x.exprs()
	case *SeqScan:
		return []expr.Expr{x.Qual}
	case *IndexScan:
		return append(append([]expr.Expr{x.Qual}, x.Lower...), x.Upper...)
	case *TidScan:
		return []expr.Expr{x.Qual, x.TID}
	case *FunctionScan:
		return append([]expr.Expr{x.Qual}, x.Args...)
	case *ViewScan:
		return []expr.Expr{x.Qual}
	case *RoutineScan:
		return []expr.Expr{x.Call}
	case *SubqueryScan:
		return []expr.Expr{x.Qual}
	case *CTEScan:
		return []expr.Expr{x.Qual}
	case *HashJoin:
		return append(append([]expr.Expr{x.Qual}, x.LeftKeys...), x.RightKeys...)
	case *NestLoop:
		return []expr.Expr{x.Qual}
	case *Result:
		return append([]expr.Expr{x.Qual}, x.Exprs...)
	case *Sort:
		var out []expr.Expr
		for _, k := range x.Keys {
			out = append(out, k.Expr)
		}
		return out
	case *Agg:
		out := append([]expr.Expr{}, x.GroupBy...)
		for _, a := range x.Aggs {
			out = append(out, a.Arg)
		}
		return out
	case *Values:
		var out []expr.Expr
		for _, r := range x.Rows {
			out = append(out, r...)
		}
		return out
	case *ModifyTable:
		return append(append([]expr.Expr{x.Qual}, x.NewRow...), x.Returning...)
	}
	return nil
}
