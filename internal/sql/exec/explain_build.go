package exec

import (
	"fmt"
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/stats"
)

// ExplainFormat is EXPLAIN's FORMAT option.
type ExplainFormat uint8

const (
	ExplainText ExplainFormat = iota
	ExplainXML
	ExplainJSON
	ExplainYAML
)

// ExplainSetting is a planner setting that differs from its default, for
// EXPLAIN (SETTINGS): its name and its value as SHOW prints it.
type ExplainSetting struct{ Name, Value string }

// ExplainOptions are EXPLAIN's options.
type ExplainOptions struct {
	Analyze, Buffers, WAL, Costs, Timing, Verbose, Summary bool
	Format                                                 ExplainFormat
	// Settings: the SETTINGS option; ChangedSettings the settings it
	// lists, sorted by name.
	Settings        bool
	ChangedSettings []ExplainSetting
	// IOTiming is track_io_timing (the I/O time properties).
	IOTiming bool
	// SchemaName names a relation's schema for VERBOSE (nil: none).
	SchemaName func(oid uint32) string
	// QueryID is VERBOSE's Query Identifier (0: not shown).
	QueryID int64
}

// Explain renders a plan (after running it, with Analyze) in the format
// asked for: the text format one row per line, the others one row.
func Explain(root Node, opt ExplainOptions, planUsage stats.Usage, planTime, execTime time.Duration) []string {
	e := &explainer{opt: opt}
	plan := e.describe(root, nil, nil, nil)
	top := e.topProps(planUsage, planTime, execTime)
	switch opt.Format {
	case ExplainJSON:
		return []string{renderJSON(plan, top)}
	case ExplainYAML:
		return []string{renderYAML(plan, top)}
	case ExplainXML:
		return []string{renderXML(plan, top)}
	}
	return renderText(plan, top)
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

type explainer struct {
	opt ExplainOptions
	// seenCTE: CTEs whose plan was described already.
	seenCTE map[*cteDef]bool
}

// topProps are the properties after the plan: Settings, Planning (buffer
// usage), Planning Time, Triggers, Execution Time, in ExplainOnePlan's
// order.
func (e *explainer) topProps(planUsage stats.Usage, planTime, execTime time.Duration) []prop {
	var out []prop
	if e.opt.Settings {
		var sub []prop
		var parts []string
		for _, s := range e.opt.ChangedSettings {
			sub = append(sub, textProp(s.Name, s.Value))
			parts = append(parts, fmt.Sprintf("%s = '%s'", s.Name, s.Value))
		}
		p := prop{key: "Settings", kind: propGroup, sub: sub, textSkip: len(parts) == 0}
		out = append(out, textAs(p, "Settings: "+strings.Join(parts, ", ")))
	}
	if e.opt.Verbose && e.opt.QueryID != 0 {
		out = append(out, intProp("Query Identifier", e.opt.QueryID))
	}
	if e.opt.Buffers {
		sub := bufferProps(planUsage.Buf, e.opt.IOTiming)
		var lines []string
		for _, p := range sub {
			if !p.textSkip {
				for _, l := range p.text {
					lines = append(lines, "  "+l)
				}
			}
		}
		p := prop{key: "Planning", kind: propGroup, sub: sub, textSkip: len(lines) == 0}
		out = append(out, textAs(p, append([]string{"Planning:"}, lines...)...))
	}
	if e.opt.Summary {
		out = append(out, textAs(floatProp("Planning Time", ms(planTime), 3), fmt.Sprintf("Planning Time: %.3f ms", ms(planTime))))
	}
	if e.opt.Analyze {
		// tidal reports no per-trigger times yet: the list is empty.
		out = append(out, structured(prop{key: "Triggers", kind: propGroups}))
	}
	if e.opt.Analyze && e.opt.Summary {
		out = append(out, textAs(floatProp("Execution Time", ms(execTime), 3), fmt.Sprintf("Execution Time: %.3f ms", ms(execTime))))
	}
	return out
}

// describe is n's description. extra are detail properties contributed
// by a transparent parent (Filter), subs the expressions of transparent
// parents whose subplans belong to n, output a transparent Project's
// target list (VERBOSE's Output).
func (e *explainer) describe(n Node, extra []prop, subs []expr.Expr, output []string) *planDesc {
	switch x := n.(type) {
	case *Project:
		if output == nil {
			output = exprStrings(x.Exprs)
		}
		return e.describe(x.Input, extra, append(subs, x.Exprs...), output)
	case *Filter:
		f := []prop{textProp("Filter", x.Qual.String())}
		if e.opt.Analyze {
			f = append(f, intProp("Rows Removed by Filter", x.instr.Filtered))
		}
		return e.describe(x.Input, append(extra, f...), append(subs, x.Qual), output)
	case *InhChild:
		return e.describe(x.Input, extra, subs, output)
	case *ModifyingWith:
		return e.describe(x.Input, extra, subs, output)
	}
	d := &planDesc{name: e.label(n)}
	d.kind, d.target = e.nodeKind(n)
	if e.opt.Costs {
		est := e.estimate(n)
		d.est = &est
	}
	in := &n.base().instr
	if e.opt.Analyze {
		a := &actualDesc{loops: in.Loops, timing: e.opt.Timing}
		if in.Loops > 0 {
			loops := float64(in.Loops)
			a.startup, a.total, a.rows = ms(in.First)/loops, ms(in.Total)/loops, float64(in.Rows)/loops
		}
		d.act = a
	}
	if e.opt.Verbose {
		if output == nil {
			output = nodeOutput(n)
		}
		d.details = append(d.details, listProp("Output", output))
	}
	add := func(l string) { d.details = append(d.details, lineProp(l)) }
	e.details(n, d, add)
	d.details = append(d.details, extra...)
	if e.opt.Buffers {
		d.details = append(d.details, bufferProps(in.Usage.Buf, e.opt.IOTiming)...)
	}
	if e.opt.Analyze && e.opt.WAL {
		d.details = append(d.details, walProps(in.Usage.WAL)...)
	}
	d.children = e.sections(n, subs)
	rel := childRelationships(n)
	for i, c := range e.children(n) {
		cd := e.describe(c, nil, nil, nil)
		cd.relationship = rel(i)
		d.children = append(d.children, cd)
	}
	return d
}

func exprStrings(es []expr.Expr) []string {
	out := make([]string, 0, len(es))
	for _, x := range es {
		out = append(out, x.String())
	}
	return out
}

// nodeOutput is VERBOSE's Output of a node no Project sits on: the
// expressions a Result or an Agg computes, else its columns' names.
func nodeOutput(n Node) []string {
	switch x := n.(type) {
	case *Result:
		if len(x.Exprs) > 0 {
			return exprStrings(x.Exprs)
		}
	case *Agg:
		if x.Sets == nil {
			out := exprStrings(x.GroupBy)
			for _, a := range x.Aggs {
				out = append(out, a.explainString())
			}
			if len(out) == len(x.Columns()) {
				return out
			}
		}
	}
	return columnNames(n.Columns())
}

// explainString is an aggregate call as EXPLAIN VERBOSE prints it.
func (a *AggCall) explainString() string {
	if a.Arg == nil {
		return a.Name + "(*)"
	}
	arg := a.Arg.String()
	if a.Arg2 != nil {
		arg += ", " + a.Arg2.String()
	}
	if a.Distinct {
		arg = "DISTINCT " + arg
	}
	return a.Name + "(" + arg + ")"
}

func columnNames(cols []Column) []string {
	out := make([]string, 0, len(cols))
	for _, c := range cols {
		if !c.Dropped {
			out = append(out, c.Name)
		}
	}
	return out
}

// childRelationships is Parent Relationship of n's i-th child.
func childRelationships(n Node) func(i int) string {
	switch n.(type) {
	case *Append:
		return func(int) string { return "Member" }
	case *SubqueryScan:
		return func(int) string { return "Subquery" }
	}
	return func(i int) string {
		if i == 0 {
			return "Outer"
		}
		return "Inner"
	}
}

// details adds n's own detail properties (conditions, sort and hash
// details) to d.
func (e *explainer) details(n Node, d *planDesc, add func(string)) {
	in := &n.base().instr
	filter := func(q expr.Expr, removed int64) {
		if q == nil {
			return
		}
		d.details = append(d.details, textProp("Filter", q.String()))
		if e.opt.Analyze {
			d.details = append(d.details, intProp("Rows Removed by Filter", removed))
		}
	}
	switch x := n.(type) {
	case *SeqScan:
		removed := in.Filtered
		if x.Parallel && in.Loops > 0 {
			removed /= in.Loops // per participant, as PostgreSQL shows it
		}
		filter(x.Qual, removed)
	case *TidScan:
		add("TID Cond: " + x.Cond)
		filter(x.Filter, in.Filtered)
	case *IndexScan:
		add("Index Cond: " + x.Cond)
		if e.opt.Analyze {
			d.details = append(d.details, structured(intProp("Rows Removed by Index Recheck", 0)))
		}
		filter(x.Qual, in.Filtered)
	case *FunctionScan:
		filter(x.Qual, in.Filtered)
	case *Sort:
		var ks []string
		for _, k := range x.Keys {
			ks = append(ks, k.String())
		}
		d.details = append(d.details, listProp("Sort Key", ks))
		if e.opt.Analyze && x.stats.Method != "" {
			d.details = append(d.details, sortMethodProps(x.stats.Method, x.stats.SpaceType, int64(x.stats.SpaceKB))...)
		}
	case *Agg:
		e.aggDetails(x, d)
	case *Result:
		if x.Qual != nil {
			add("One-Time Filter: " + x.Qual.String())
		}
	default:
		e.detailsMore(n, d, add)
	}
}

func (e *explainer) aggDetails(x *Agg, d *planDesc) {
	if x.Sets != nil {
		var sets [][]prop
		var lines []string
		for _, l := range x.setsKeyLines() {
			lines = append(lines, l)
			k, v, _ := strings.Cut(strings.TrimSpace(l), ": ")
			sets = append(sets, []prop{listProp(k, strings.Split(v, ", "))})
		}
		d.details = append(d.details, textAs(prop{key: "Grouping Sets", kind: propGroups, subs: sets}, lines...))
	} else if len(x.GroupBy) > 0 {
		d.details = append(d.details, listProp("Group Key", exprStrings(x.GroupBy)))
	}
	if sp := x.spill; e.opt.Analyze && sp != nil && sp.batches > 0 {
		memKB, diskKB := (sp.memPeak+1023)/1024, (sp.diskPeak+1023)/1024
		l := fmt.Sprintf("Batches: %d  Memory Usage: %dkB", sp.batches, memKB)
		if sp.batches > 1 {
			l += fmt.Sprintf("  Disk Usage: %dkB", diskKB)
		}
		d.details = append(d.details, textAs(intProp("HashAgg Batches", int64(sp.batches)), l),
			structured(intProp("Peak Memory Usage", int64(memKB))))
		if sp.batches > 1 {
			d.details = append(d.details, structured(intProp("Disk Usage", int64(diskKB))))
		}
	}
}
