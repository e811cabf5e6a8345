package exec

import (
	"encoding/json"
	"strings"
)

// The four renderers of a plan description, laid out as PostgreSQL's
// explain.c lays out each format (indentation, empty groups, list style),
// so tools that read PostgreSQL's output read tidal's.

// textLines are p's lines in the text format.
func (p prop) textLines() []string {
	switch {
	case p.textSkip:
		return nil
	case p.text != nil:
		return p.text
	}
	return []string{p.textLine()}
}

func renderText(plan *planDesc, top []prop) []string {
	var lines []string
	textNode(&lines, plan, 0, "")
	for _, p := range top {
		lines = append(lines, p.textLines()...)
	}
	return lines
}

// textNode prints d at depth under pad (the indentation of the section
// it is in): "->  " arrows for children, a title line for a subplan.
func textNode(lines *[]string, d *planDesc, depth int, pad string) {
	if depth == 0 {
		*lines = append(*lines, pad+d.headLine())
	} else {
		*lines = append(*lines, pad+strings.Repeat(" ", 6*depth-4)+"->  "+d.headLine())
	}
	ind := strings.Repeat(" ", 2+6*depth)
	for _, p := range d.details {
		for _, l := range p.textLines() {
			*lines = append(*lines, pad+ind+l)
		}
	}
	for _, c := range d.children {
		if c.subplan != "" {
			*lines = append(*lines, pad+ind+c.subplan)
			textNode(lines, c, 1, pad+strings.Repeat(" ", 6*depth+2))
			continue
		}
		textNode(lines, c, depth+1, pad)
	}
}

// queryProps are the query's top-level properties: Plan, then the rest.
func queryProps(plan *planDesc, top []prop) []prop {
	return append([]prop{{key: "Plan", kind: propGroup, sub: planProps(plan)}}, top...)
}

// planProps are d's properties with its children as Plans.
func planProps(d *planDesc) []prop {
	out := d.props()
	if len(d.children) > 0 {
		subs := make([][]prop, len(d.children))
		for i, c := range d.children {
			subs[i] = planProps(c)
		}
		out = append(out, prop{key: "Plans", kind: propGroups, subs: subs})
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	// PostgreSQL's escape_json leaves <, > and & as they are.
	r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	return r.Replace(string(b))
}

func renderJSON(plan *planDesc, top []prop) string {
	var b strings.Builder
	b.WriteString("[\n  {\n")
	jsonProps(&b, queryProps(plan, top), 4)
	b.WriteString("\n  }\n]")
	return b.String()
}

func jsonProps(b *strings.Builder, props []prop, indent int) {
	ind := strings.Repeat(" ", indent)
	for i, p := range props {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(ind + jsonString(p.key) + ": ")
		switch p.kind {
		case propText:
			b.WriteString(jsonString(p.val))
		case propNum, propBool:
			b.WriteString(p.val)
		case propList:
			items := make([]string, len(p.list))
			for j, s := range p.list {
				items[j] = jsonString(s)
			}
			b.WriteString("[" + strings.Join(items, ", ") + "]")
		case propGroup:
			b.WriteString("{\n")
			jsonProps(b, p.sub, indent+2)
			b.WriteString("\n" + ind + "}")
		case propGroups:
			b.WriteString("[")
			for j, sub := range p.subs {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString("\n" + ind + "  {\n")
				jsonProps(b, sub, indent+4)
				b.WriteString("\n" + ind + "  }")
			}
			b.WriteString("\n" + ind + "]")
		}
	}
}

func renderYAML(plan *planDesc, top []prop) string {
	var b strings.Builder
	b.WriteString("- ")
	yamlProps(&b, queryProps(plan, top), 2, true)
	return b.String()
}

// yamlProps writes props at indent; first: the first one continues the
// current line (after a list item's "- ").
func yamlProps(b *strings.Builder, props []prop, indent int, first bool) {
	ind := strings.Repeat(" ", indent)
	for i, p := range props {
		if i > 0 || !first {
			b.WriteString("\n" + ind)
		}
		b.WriteString(p.key + ": ")
		switch p.kind {
		case propText:
			b.WriteString(jsonString(p.val))
		case propNum, propBool:
			b.WriteString(p.val)
		case propList:
			for _, s := range p.list {
				b.WriteString("\n" + ind + "  - " + jsonString(s))
			}
		case propGroup:
			yamlProps(b, p.sub, indent+2, false)
		case propGroups:
			for _, sub := range p.subs {
				b.WriteString("\n" + ind + "  - ")
				yamlProps(b, sub, indent+4, true)
			}
		}
	}
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "&#x0d;")

func renderXML(plan *planDesc, top []prop) string {
	var b strings.Builder
	b.WriteString("<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n  <Query>")
	xmlProps(&b, queryProps(plan, top), 4)
	b.WriteString("\n  </Query>\n</explain>")
	return b.String()
}

// xmlTag is a key as an element name: spaces become dashes.
func xmlTag(key string) string { return strings.ReplaceAll(key, " ", "-") }

func xmlProps(b *strings.Builder, props []prop, indent int) {
	ind := strings.Repeat(" ", indent)
	for _, p := range props {
		tag := xmlTag(p.key)
		b.WriteString("\n" + ind + "<" + tag + ">")
		switch p.kind {
		case propText, propNum, propBool:
			b.WriteString(xmlEscaper.Replace(p.val))
		case propList:
			for _, s := range p.list {
				b.WriteString("\n" + ind + "  <Item>" + xmlEscaper.Replace(s) + "</Item>")
			}
			b.WriteString("\n" + ind)
		case propGroup:
			xmlProps(b, p.sub, indent+2)
			b.WriteString("\n" + ind)
		case propGroups:
			elem := strings.TrimSuffix(tag, "s") // Plans: Plan, Target-Tables: Target-Table
			for _, sub := range p.subs {
				b.WriteString("\n" + ind + "  <" + elem + ">")
				xmlProps(b, sub, indent+4)
				b.WriteString("\n" + ind + "  </" + elem + ">")
			}
			b.WriteString("\n" + ind)
		}
		b.WriteString("</" + tag + ">")
	}
}
