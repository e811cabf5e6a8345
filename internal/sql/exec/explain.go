package exec

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
)

// ExplainOptions are EXPLAIN's options.
type ExplainOptions struct {
	Analyze, Buffers, WAL, Costs, Timing, Verbose, Summary bool
}

// Explain renders a plan (after running it, with Analyze) as PostgreSQL's
// text format, one line per output row.
func Explain(root Node, opt ExplainOptions, planUsage stats.Usage, planTime, execTime time.Duration) []string {
	e := &explainer{opt: opt}
	e.node(root, 0, nil)
	if opt.Analyze || opt.Summary {
		if opt.Buffers && planUsage.Buf != (stats.BufferUsage{}) {
			e.lines = append(e.lines, "Planning:")
			for _, l := range bufferLines(planUsage.Buf) {
				e.lines = append(e.lines, "  "+l)
			}
		}
		if opt.Summary {
			e.lines = append(e.lines, fmt.Sprintf("Planning Time: %.3f ms", ms(planTime)))
		}
	}
	if opt.Analyze && opt.Summary {
		e.lines = append(e.lines, fmt.Sprintf("Execution Time: %.3f ms", ms(execTime)))
	}
	return e.lines
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

type explainer struct {
	opt   ExplainOptions
	lines []string
	pad   string // extra indentation (subplan and CTE sections)
	// seenCTE: CTEs whose plan was printed already.
	seenCTE map[*cteDef]bool
}

// bufferLines are the "Buffers:" line (when a block was counted) and the
// "I/O Timings:" line (when track_io_timing measured something), as
// PostgreSQL 15's show_buffer_usage prints them.
func bufferLines(b stats.BufferUsage) []string {
	var out []string
	if b.SharedHit != 0 || b.SharedRead != 0 || b.SharedDirtied != 0 || b.SharedWritten != 0 || b.TempRead != 0 || b.TempWritten != 0 {
		out = append(out, bufferLine(b))
	}
	if b.ReadTime != 0 || b.WriteTime != 0 {
		s := "I/O Timings: shared"
		if b.ReadTime != 0 {
			s += fmt.Sprintf(" read=%0.3f", ms(b.ReadTime))
		}
		if b.WriteTime != 0 {
			s += fmt.Sprintf(" write=%0.3f", ms(b.WriteTime))
		}
		out = append(out, s)
	}
	return out
}

// bufferLine is show_buffer_usage's "Buffers:" line: the shared part,
// then ", temp" when temporary files were read or written.
func bufferLine(b stats.BufferUsage) string {
	s := "Buffers:"
	shared := b.SharedHit > 0 || b.SharedRead > 0 || b.SharedDirtied > 0 || b.SharedWritten > 0
	if shared {
		s += " shared"
		if b.SharedHit > 0 {
			s += fmt.Sprintf(" hit=%d", b.SharedHit)
		}
		if b.SharedRead > 0 {
			s += fmt.Sprintf(" read=%d", b.SharedRead)
		}
		if b.SharedDirtied > 0 {
			s += fmt.Sprintf(" dirtied=%d", b.SharedDirtied)
		}
		if b.SharedWritten > 0 {
			s += fmt.Sprintf(" written=%d", b.SharedWritten)
		}
	}
	if b.TempRead > 0 || b.TempWritten > 0 {
		if shared {
			s += ","
		}
		s += " temp"
		if b.TempRead > 0 {
			s += fmt.Sprintf(" read=%d", b.TempRead)
		}
		if b.TempWritten > 0 {
			s += fmt.Sprintf(" written=%d", b.TempWritten)
		}
	}
	return s
}

func walLine(w stats.WALUsage) string {
	s := "WAL:"
	if w.Records > 0 {
		s += fmt.Sprintf(" records=%d", w.Records)
	}
	if w.FPI > 0 {
		s += fmt.Sprintf(" fpi=%d", w.FPI)
	}
	if w.Bytes > 0 {
		s += fmt.Sprintf(" bytes=%d", w.Bytes)
	}
	return s
}

// estimate is a node's planner estimate for the cost display.
type estimate struct {
	startup, total float64
	rows           float64
	width          int
}

func typeWidth(t types.Type) int {
	l := t.Layout()
	if l.Len > 0 {
		return int(l.Len)
	}
	if t.Typmod > 4 {
		return int(t.Typmod - 4)
	}
	return 32
}

func colsWidth(cols []Column) int {
	w := 0
	for _, c := range cols {
		if c.Dropped {
			continue
		}
		if c.Name == "ctid" && c.Type.OID == types.Int8OID {
			w += 6
			continue
		}
		w += typeWidth(c.Type)
	}
	return w
}

func (e *explainer) estimate(n Node) estimate {
	switch x := n.(type) {
	case *SeqScan:
		pages := float64(x.Rel.Pages)
		tuples := float64(x.Rel.Tuples)
		if tuples < 0 {
			pages, tuples = 10, 2550/float64(colsWidth(x.Columns())+28)*10
		}
		quals := 0.0
		sel := 1.0
		if x.Qual != nil {
			quals = float64(len(conjuncts(x.Qual)))
			sel = math.Pow(0.005, quals)
		}
		rows := math.Max(1, math.Round(tuples*sel))
		cpu := tuples * (0.01 + 0.0025*quals)
		if x.Parallel && x.parallelDiv > 0 {
			// Each participant's share (cost_seqscan's parallel_divisor).
			cpu /= x.parallelDiv
			rows = math.Max(1, math.Round(tuples*sel/x.parallelDiv))
		}
		return estimate{0, pages + cpu, rows, colsWidth(x.Columns())}
	case *IndexScan:
		return estimate{0.42, 8.44, 1, colsWidth(x.Columns())}
	case *TidScan:
		return estimate{0, 4.02, 1, colsWidth(x.Columns())}
	case *ModifyTable:
		in := e.estimate(x.Input)
		return estimate{0, in.total, 0, 0}
	case *Project:
		in := e.estimate(x.Input)
		return estimate{in.startup, in.total, in.rows, colsWidth(x.Cols)}
	case *Filter:
		in := e.estimate(x.Input)
		return estimate{in.startup, in.total, math.Max(1, math.Round(in.rows*0.33)), in.width}
	case *Sort:
		in := e.estimate(x.Input)
		c := in.total + 2*0.0025*in.rows*math.Log2(math.Max(2, in.rows))
		return estimate{c, c + 0.0025*in.rows, in.rows, in.width}
	case *Limit:
		in := e.estimate(x.Input)
		return estimate{in.startup, in.total, in.rows, in.width}
	case *Agg:
		in := e.estimate(x.Input)
		rows := 1.0
		if len(x.GroupBy) > 0 {
			rows = math.Max(1, math.Round(in.rows/10))
		}
		c := in.total + in.rows*0.0025*float64(len(x.Aggs)+len(x.GroupBy))
		return estimate{c, c + rows*0.01, rows, colsWidth(x.Cols)}
	case *FunctionScan:
		return estimate{0, 10, 1000, typeWidth(x.SRF.Ret)}
	case *Values:
		return estimate{0, 0.01 * float64(len(x.Rows)), float64(len(x.Rows)), colsWidth(x.Cols)}
	case *Result:
		return estimate{0, 0.01, 1, colsWidth(x.Columns())}
	}
	return e.estimateMore(n)
}

func (e *explainer) label(n Node) string {
	switch x := n.(type) {
	case *SeqScan:
		s := "Seq Scan on " + x.Rel.Name
		if x.Parallel {
			s = "Parallel " + s
		}
		if x.Alias != "" && x.Alias != x.Rel.Name {
			s += " " + x.Alias
		}
		return s
	case *IndexScan:
		s := "Index Scan using " + x.Index.Name + " on " + x.Rel.Name
		if x.Alias != "" && x.Alias != x.Rel.Name {
			s += " " + x.Alias
		}
		return s
	case *TidScan:
		return x.label()
	case *ModifyTable:
		if x.Alias != "" && x.Alias != x.Rel.Name {
			return x.Kind + " on " + x.Rel.Name + " " + x.Alias
		}
		return x.Kind + " on " + x.Rel.Name
	case *Sort:
		return "Sort"
	case *Limit:
		return "Limit"
	case *Agg:
		if x.Sets != nil {
			return x.setsLabel()
		}
		l := "Aggregate"
		if x.distinct || len(x.GroupBy) > 0 {
			l = "HashAggregate"
		}
		return x.split.label() + l
	case *FunctionScan:
		return "Function Scan on " + x.SRF.Name + " " + x.Alias
	case *Values:
		return "Values Scan on \"*VALUES*\""
	case *ViewScan:
		return "Function Scan on " + x.Name
	case *Result:
		return "Result"
	}
	if l := labelMore(n); l != "" {
		return l
	}
	return fmt.Sprintf("%T", n)
}

func (e *explainer) children(n Node) []Node {
	switch x := n.(type) {
	case *ModifyTable:
		return []Node{x.Input}
	case *Sort:
		return []Node{x.Input}
	case *Limit:
		return []Node{x.Input}
	case *Agg:
		if _, ok := x.Input.(*Result); ok && len(x.Input.(*Result).Exprs) == 0 {
			return nil
		}
		return []Node{x.Input}
	}
	return childrenMore(n)
}

// node prints n at depth d. extra are detail lines contributed by a
// transparent parent (Filter).
func (e *explainer) node(n Node, d int, extra []string) {
	e.nodeSubs(n, d, extra, nil)
}

func (e *explainer) nodeSubs(n Node, d int, extra []string, subs []expr.Expr) {
	switch x := n.(type) {
	case *Project:
		e.nodeSubs(x.Input, d, extra, append(subs, x.Exprs...))
		return
	case *Filter:
		e.nodeSubs(x.Input, d, append(extra, "Filter: "+x.Qual.String(), fmt.Sprintf("Rows Removed by Filter: %d", x.instr.Filtered)), append(subs, x.Qual))
		return
	case *InhChild:
		e.nodeSubs(x.Input, d, extra, subs)
		return
	case *ModifyingWith:
		e.nodeSubs(x.Input, d, extra, subs)
		return
	}
	line := e.label(n)
	if e.opt.Costs {
		est := e.estimate(n)
		line += fmt.Sprintf("  (cost=%.2f..%.2f rows=%.0f width=%d)", est.startup, est.total, est.rows, est.width)
	}
	in := &n.base().instr
	if e.opt.Analyze {
		if in.Loops == 0 {
			line += " (never executed)"
		} else {
			loops := float64(in.Loops)
			if e.opt.Timing {
				line += fmt.Sprintf(" (actual time=%.3f..%.3f rows=%.0f loops=%d)", ms(in.First)/loops, ms(in.Total)/loops, float64(in.Rows)/loops, in.Loops)
			} else {
				line += fmt.Sprintf(" (actual rows=%.0f loops=%d)", float64(in.Rows)/loops, in.Loops)
			}
		}
	}
	if d == 0 {
		e.lines = append(e.lines, e.pad+line)
	} else {
		e.lines = append(e.lines, e.pad+strings.Repeat(" ", 6*d-4)+"->  "+line)
	}
	ind := e.pad + strings.Repeat(" ", 2+6*d)
	add := func(s string) { e.lines = append(e.lines, ind+s) }
	switch x := n.(type) {
	case *SeqScan:
		if x.Qual != nil {
			add("Filter: " + x.Qual.String())
			if e.opt.Analyze {
				removed := in.Filtered
				if x.Parallel && in.Loops > 0 {
					removed /= in.Loops // per participant, as PostgreSQL shows it
				}
				add(fmt.Sprintf("Rows Removed by Filter: %d", removed))
			}
		}
	case *TidScan:
		add("TID Cond: " + x.Cond)
		if x.Filter != nil {
			add("Filter: " + x.Filter.String())
			if e.opt.Analyze {
				add(fmt.Sprintf("Rows Removed by Filter: %d", in.Filtered))
			}
		}
	case *IndexScan:
		add("Index Cond: " + x.Cond)
		if x.Qual != nil {
			add("Filter: " + x.Qual.String())
			if e.opt.Analyze {
				add(fmt.Sprintf("Rows Removed by Filter: %d", in.Filtered))
			}
		}
	case *FunctionScan:
		if x.Qual != nil {
			add("Filter: " + x.Qual.String())
			if e.opt.Analyze {
				add(fmt.Sprintf("Rows Removed by Filter: %d", in.Filtered))
			}
		}
	case *Sort:
		var ks []string
		for _, k := range x.Keys {
			ks = append(ks, k.String())
		}
		add("Sort Key: " + strings.Join(ks, ", "))
		if e.opt.Analyze {
			if x.stats.Method != "" {
				add(fmt.Sprintf("Sort Method: %s  %s: %dkB", x.stats.Method, x.stats.SpaceType, x.stats.SpaceKB))
			}
		}
	case *Agg:
		if x.Sets != nil {
			for _, l := range x.setsKeyLines() {
				add(l)
			}
		} else if len(x.GroupBy) > 0 {
			var ks []string
			for _, g := range x.GroupBy {
				ks = append(ks, g.String())
			}
			add("Group Key: " + strings.Join(ks, ", "))
		}
		if sp := x.spill; e.opt.Analyze && sp != nil && sp.batches > 0 {
			l := fmt.Sprintf("Batches: %d  Memory Usage: %dkB", sp.batches, (sp.memPeak+1023)/1024)
			if sp.batches > 1 {
				l += fmt.Sprintf("  Disk Usage: %dkB", (sp.diskPeak+1023)/1024)
			}
			add(l)
		}
	case *Result:
		if x.Qual != nil {
			add("One-Time Filter: " + x.Qual.String())
		}
	default:
		e.detailsMore(n, add)
	}
	for _, s := range extra {
		if strings.HasPrefix(s, "Rows Removed") && !e.opt.Analyze {
			continue
		}
		add(s)
	}
	if e.opt.Analyze && e.opt.Buffers && in.Usage.Buf != (stats.BufferUsage{}) {
		for _, l := range bufferLines(in.Usage.Buf) {
			add(l)
		}
	}
	if e.opt.Analyze && e.opt.WAL && in.Usage.WAL != (stats.WALUsage{}) {
		add(walLine(in.Usage.WAL))
	}
	e.sections(n, d, subs)
	for _, c := range e.children(n) {
		e.node(c, d+1, nil)
	}
}
