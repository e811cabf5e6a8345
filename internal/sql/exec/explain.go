package exec

import (
	"fmt"
	"math"

	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
)

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
		s := "Seq Scan on " + e.relName(x.Rel)
		if x.Parallel {
			s = "Parallel " + s
		}
		if x.Alias != "" && x.Alias != x.Rel.Name {
			s += " " + x.Alias
		}
		return s
	case *IndexScan:
		s := "Index Scan using " + x.Index.Name + " on " + e.relName(x.Rel)
		if x.Alias != "" && x.Alias != x.Rel.Name {
			s += " " + x.Alias
		}
		return s
	case *TidScan:
		return x.label()
	case *ModifyTable:
		if x.Alias != "" && x.Alias != x.Rel.Name {
			return x.Kind + " on " + e.relName(x.Rel) + " " + x.Alias
		}
		return x.Kind + " on " + e.relName(x.Rel)
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
