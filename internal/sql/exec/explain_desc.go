package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/stats"
)

// EXPLAIN builds one description of the plan (planDesc, a tree of
// properties in PostgreSQL's order and with its keys) and renders it in
// the format asked for (explain_format.go), as PostgreSQL's
// ExplainProperty* calls do: each property knows its key and typed value
// for the structured formats, and its line for the text format.

// propKind is the type of a property's value in the structured formats.
type propKind uint8

const (
	propText   propKind = iota // a quoted string
	propNum                    // a number, printed as val
	propBool                   // true / false
	propList                   // a list of strings
	propGroup                  // a nested object (sub)
	propGroups                 // a list of nested objects (subs)
)

// prop is one ExplainProperty.
type prop struct {
	key  string
	kind propKind
	val  string
	list []string
	sub  []prop
	subs [][]prop
	// text are the text format's lines for the property; nil means
	// "key: value" (a list joined with ", "). textSkip: the text format
	// does not print it (PostgreSQL prints some counters only in the
	// structured formats, or folds them into another property's line).
	text     []string
	textSkip bool
}

func textProp(key, v string) prop { return prop{key: key, val: v} }
func intProp(key string, n int64) prop {
	return prop{key: key, kind: propNum, val: strconv.FormatInt(n, 10)}
}
func floatProp(key string, v float64, digits int) prop {
	return prop{key: key, kind: propNum, val: strconv.FormatFloat(v, 'f', digits, 64)}
}
func boolProp(key string, b bool) prop {
	return prop{key: key, kind: propBool, val: strconv.FormatBool(b)}
}
func listProp(key string, l []string) prop { return prop{key: key, kind: propList, list: l} }

// structured marks a property the text format leaves out.
func structured(p prop) prop { p.textSkip = true; return p }

// textAs gives a property its own text-format lines.
func textAs(p prop, lines ...string) prop { p.text = lines; return p }

// textLine is the text format's line of p (for a property without lines
// of its own).
func (p prop) textLine() string {
	if p.kind == propList {
		return p.key + ": " + strings.Join(p.list, ", ")
	}
	return p.key + ": " + p.val
}

// lineProp turns a detail line "Key: value" into its property, numeric
// when the value is an integer; the text format prints the line as it is.
func lineProp(l string) prop {
	k, v, ok := strings.Cut(l, ": ")
	if !ok {
		return textAs(textProp(l, ""), l)
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return textAs(prop{key: k, kind: propNum, val: v}, l)
	}
	return textAs(textProp(k, v), l)
}

// planDesc is one plan node's description.
type planDesc struct {
	// name is the text format's node name ("Seq Scan on boat b").
	name string
	// kind: Node Type, Strategy, Partial Mode, Operation; target:
	// Parallel Aware onwards up to the costs (scan target, join type).
	kind, target []prop
	// relationship and subplan are Parent Relationship and Subplan Name;
	// the text format prints subplan as a section title above the node.
	relationship, subplan string
	est                   *estimate
	act                   *actualDesc
	// details: Output, conditions, sort and hash details, buffers, WAL.
	details  []prop
	children []*planDesc
}

// actualDesc is a node's ANALYZE figures, per loop.
type actualDesc struct {
	loops          int64
	startup, total float64 // ms
	rows           float64
	timing         bool
}

// costProps are the estimate's properties (Startup Cost … Plan Width).
func (est *estimate) props() []prop {
	return []prop{
		floatProp("Startup Cost", est.startup, 2), floatProp("Total Cost", est.total, 2),
		floatProp("Plan Rows", est.rows, 0), intProp("Plan Width", int64(est.width)),
	}
}

func (a *actualDesc) props() []prop {
	var out []prop
	if a.timing {
		out = append(out, floatProp("Actual Startup Time", a.startup, 3), floatProp("Actual Total Time", a.total, 3))
	}
	return append(out, floatProp("Actual Rows", a.rows, 0), intProp("Actual Loops", a.loops))
}

// headLine is the text format's first line of the node.
func (d *planDesc) headLine() string {
	line := d.name
	if d.est != nil {
		line += fmt.Sprintf("  (cost=%.2f..%.2f rows=%.0f width=%d)", d.est.startup, d.est.total, d.est.rows, d.est.width)
	}
	if a := d.act; a != nil {
		switch {
		case a.loops == 0:
			line += " (never executed)"
		case a.timing:
			line += fmt.Sprintf(" (actual time=%.3f..%.3f rows=%.0f loops=%d)", a.startup, a.total, a.rows, a.loops)
		default:
			line += fmt.Sprintf(" (actual rows=%.0f loops=%d)", a.rows, a.loops)
		}
	}
	return line
}

// props is the node's properties in PostgreSQL's order, without Plans.
func (d *planDesc) props() []prop {
	out := append([]prop{}, d.kind...)
	if d.relationship != "" {
		out = append(out, textProp("Parent Relationship", d.relationship))
	}
	if d.subplan != "" {
		out = append(out, textProp("Subplan Name", d.subplan))
	}
	out = append(out, d.target...)
	if d.est != nil {
		out = append(out, d.est.props()...)
	}
	if d.act != nil {
		out = append(out, d.act.props()...)
	}
	return append(out, d.details...)
}

// bufferProps are show_buffer_usage's properties: in the text format the
// "Buffers:" and "I/O Timings:" lines (none when nothing was counted), in
// the others every counter, zero or not.
func bufferProps(b stats.BufferUsage, ioTiming bool) []prop {
	out := []prop{
		intProp("Shared Hit Blocks", b.SharedHit), intProp("Shared Read Blocks", b.SharedRead),
		intProp("Shared Dirtied Blocks", b.SharedDirtied), intProp("Shared Written Blocks", b.SharedWritten),
		intProp("Local Hit Blocks", 0), intProp("Local Read Blocks", 0),
		intProp("Local Dirtied Blocks", 0), intProp("Local Written Blocks", 0),
		intProp("Temp Read Blocks", b.TempRead), intProp("Temp Written Blocks", b.TempWritten),
	}
	if ioTiming {
		out = append(out, floatProp("I/O Read Time", ms(b.ReadTime), 3), floatProp("I/O Write Time", ms(b.WriteTime), 3),
			floatProp("Temp I/O Read Time", 0, 3), floatProp("Temp I/O Write Time", 0, 3))
	}
	for i := range out {
		out[i].textSkip = true
	}
	if lines := bufferLines(b); len(lines) > 0 {
		out[0].textSkip, out[0].text = false, lines
	}
	return out
}

// walProps are show_wal_usage's properties.
func walProps(w stats.WALUsage) []prop {
	out := []prop{
		structured(intProp("WAL Records", w.Records)), structured(intProp("WAL FPI", w.FPI)),
		structured(intProp("WAL Bytes", w.Bytes)),
	}
	if w != (stats.WALUsage{}) {
		out[0].textSkip, out[0].text = false, []string{walLine(w)}
	}
	return out
}

// sortMethodProps are a Sort's "Sort Method: m  Space: nkB" line.
func sortMethodProps(method, space string, kb int64) []prop {
	return []prop{
		textAs(textProp("Sort Method", method), fmt.Sprintf("Sort Method: %s  %s: %dkB", method, space, kb)),
		structured(intProp("Sort Space Used", kb)),
		structured(textProp("Sort Space Type", space)),
	}
}
