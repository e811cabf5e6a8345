package exec

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/sql/types"
)

// pg_get_viewdef: a view's stored (normalized) query printed in
// PostgreSQL 15's layout — clauses on their own indented lines, one
// target per line, references qualified, literals with their type
// (PostgreSQL's ruleutils). pretty leaves out the parentheses around
// operator expressions that pretty mode drops; non-pretty has them all.
// Expression kinds without a printer here fall back to pg_query's
// deparser.

func (f *catalogFuncs) viewDef(oid uint32, pretty bool) (types.Datum, error) {
	rel, err := f.c.Eng.Catalog.ByOID(f.c.Tx, oid)
	if err != nil || rel == nil || rel.ViewQuery == "" {
		return types.Null(), err
	}
	sel, err := ParseViewQuery(rel)
	if err != nil {
		return types.Null(), err
	}
	var names []string
	for _, a := range rel.Attrs {
		names = append(names, a.Name)
	}
	d := &viewPrinter{pretty: pretty, visible: func(schema, name string) bool {
		// A relation is printed unqualified when the search path finds
		// it by its name alone (ruleutils' generate_relation_name).
		want, err := f.c.Eng.Catalog.Lookup(f.c.Tx, schema, name)
		if err != nil || want == nil {
			return false
		}
		first, err := f.c.Eng.Catalog.Lookup(f.c.Tx, "", name)
		return err == nil && first != nil && first.OID == want.OID
	}}
	d.query(sel, names, 0)
	return types.Str(d.b.String() + ";"), nil
}

type viewPrinter struct {
	b      strings.Builder
	pretty bool
	// visible: schema.name may be printed as name alone.
	visible func(schema, name string) bool
}

func (d *viewPrinter) line(indent int, s string) {
	if d.b.Len() > 0 {
		d.b.WriteByte('\n')
	}
	d.b.WriteString(strings.Repeat(" ", indent) + s)
}

// query prints a SELECT; names are the column names its targets get
// (a view's columns), nil for a nested query.
func (d *viewPrinter) query(s *pg.SelectStmt, names []string, indent int) {
	if s.Op != pg.SetOperation_SETOP_NONE {
		d.query(s.Larg, names, indent)
		op := map[pg.SetOperation]string{pg.SetOperation_SETOP_UNION: "UNION", pg.SetOperation_SETOP_INTERSECT: "INTERSECT", pg.SetOperation_SETOP_EXCEPT: "EXCEPT"}[s.Op]
		if s.All {
			op += " ALL"
		}
		d.line(indent, op)
		d.query(s.Rarg, names, indent)
		d.tail(s, indent)
		return
	}
	if len(s.ValuesLists) > 0 {
		var rows []string
		for _, r := range s.ValuesLists {
			rows = append(rows, "("+d.exprList(r.GetList().GetItems())+")")
		}
		d.line(indent+1, "VALUES "+strings.Join(rows, ","))
		return
	}
	head := "SELECT"
	if len(s.DistinctClause) > 0 {
		head += " DISTINCT"
		if s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil {
			head += " ON (" + d.exprList(s.DistinctClause) + ")"
		}
	}
	for _, t := range s.TargetList {
		if cr := t.GetResTarget().Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			names = nil // a star kept (USING joins): names do not line up with targets
		}
	}
	for i, t := range s.TargetList {
		rt := t.GetResTarget()
		item := d.expr(rt.Val, true)
		if c := rt.Val.GetAConst(); c != nil && c.Isnull && names != nil {
			item = "NULL::text" // an untyped NULL column of a view is text
		}
		name := rt.Name
		if i < len(names) {
			name = names[i]
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			name = ""
		}
		if name != "" && !(rt.Val.GetColumnRef() != nil && normTargetName(&pg.ResTarget{Val: rt.Val}) == name) {
			item += " AS " + quoteIdent(name)
		}
		sep := ","
		if i == len(s.TargetList)-1 {
			sep = ""
		}
		if i == 0 {
			d.line(indent+1, head+" "+item+sep)
		} else {
			d.line(indent+4, item+sep)
		}
	}
	if len(s.TargetList) == 0 {
		d.line(indent+1, head)
	}
	for i, f := range s.FromClause {
		sep := ","
		if i == len(s.FromClause)-1 {
			sep = ""
		}
		if i == 0 {
			d.line(indent+3, "FROM "+d.fromItem(f, indent)+sep)
		} else {
			d.line(indent+4, d.fromItem(f, indent)+sep)
		}
	}
	if s.WhereClause != nil {
		d.line(indent+2, "WHERE "+d.expr(s.WhereClause, true))
	}
	if len(s.GroupClause) > 0 {
		d.line(indent+2, "GROUP BY "+d.exprList(s.GroupClause))
	}
	if s.HavingClause != nil {
		d.line(indent+1, "HAVING "+d.expr(s.HavingClause, true))
	}
	d.tail(s, indent)
}

// tail prints ORDER BY, LIMIT and OFFSET.
func (d *viewPrinter) tail(s *pg.SelectStmt, indent int) {
	if len(s.SortClause) > 0 {
		var keys []string
		for _, n := range s.SortClause {
			sb := n.GetSortBy()
			k := d.expr(sb.Node, true)
			switch sb.SortbyDir {
			case pg.SortByDir_SORTBY_DESC:
				k += " DESC"
			case pg.SortByDir_SORTBY_USING:
				k += " USING " + sb.UseOp[len(sb.UseOp)-1].GetString_().GetSval()
			}
			switch sb.SortbyNulls {
			case pg.SortByNulls_SORTBY_NULLS_FIRST:
				if sb.SortbyDir != pg.SortByDir_SORTBY_DESC {
					k += " NULLS FIRST"
				}
			case pg.SortByNulls_SORTBY_NULLS_LAST:
				if sb.SortbyDir == pg.SortByDir_SORTBY_DESC {
					k += " NULLS LAST"
				}
			}
			keys = append(keys, k)
		}
		d.line(indent+2, "ORDER BY "+strings.Join(keys, ", "))
	}
	if s.LimitOffset != nil {
		d.line(indent+1, "OFFSET "+d.expr(s.LimitOffset, true))
	}
	if s.LimitCount != nil {
		d.line(indent+1, "LIMIT "+d.expr(s.LimitCount, true))
	}
}

func (d *viewPrinter) fromItem(n *pg.Node, indent int) string {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		s := quoteIdent(rv.Relname)
		if rv.Schemaname != "" && (d.visible == nil || !d.visible(rv.Schemaname, rv.Relname)) {
			s = quoteIdent(rv.Schemaname) + "." + s
		}
		if !rv.Inh {
			s = "ONLY " + s
		}
		return s + d.alias(rv.Alias)
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		sub := &viewPrinter{pretty: d.pretty, visible: d.visible}
		sub.query(rs.Subquery.GetSelectStmt(), nil, indent+5)
		lat := ""
		if rs.Lateral {
			lat = "LATERAL "
		}
		return lat + "(" + strings.TrimLeft(sub.b.String(), " ") + ")" + d.alias(rs.Alias)
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		kind := map[pg.JoinType]string{pg.JoinType_JOIN_INNER: "JOIN", pg.JoinType_JOIN_LEFT: "LEFT JOIN",
			pg.JoinType_JOIN_RIGHT: "RIGHT JOIN", pg.JoinType_JOIN_FULL: "FULL JOIN"}[j.Jointype]
		if j.Jointype == pg.JoinType_JOIN_INNER && j.Quals == nil && len(j.UsingClause) == 0 && !j.IsNatural {
			kind = "CROSS JOIN"
		}
		if j.IsNatural {
			kind = "NATURAL " + kind
		}
		s := d.fromItem(j.Larg, indent) + "\n" + strings.Repeat(" ", indent+5) + kind + " " + d.fromItem(j.Rarg, indent)
		if len(j.UsingClause) > 0 {
			var cols []string
			for _, c := range j.UsingClause {
				cols = append(cols, quoteIdent(c.GetString_().GetSval()))
			}
			s += " USING (" + strings.Join(cols, ", ") + ")"
		} else if j.Quals != nil {
			on := d.expr(j.Quals, true)
			if !d.pretty {
				on = "(" + on + ")"
			}
			s += " ON " + on
		}
		if !d.pretty || j.Alias != nil {
			s = "(" + s + ")"
		}
		return s + d.alias(j.Alias)
	}
	return d.fallback(n)
}

func (d *viewPrinter) alias(a *pg.Alias) string {
	if a == nil {
		return ""
	}
	s := " " + quoteIdent(a.Aliasname)
	if len(a.Colnames) > 0 {
		var cols []string
		for _, c := range a.Colnames {
			cols = append(cols, quoteIdent(c.GetString_().GetSval()))
		}
		s += "(" + strings.Join(cols, ", ") + ")"
	}
	return s
}

func (d *viewPrinter) exprList(list []*pg.Node) string {
	var out []string
	for _, n := range list {
		out = append(out, d.expr(n, true))
	}
	return strings.Join(out, ", ")
}

// paren wraps an operator expression: always in non-pretty mode, and in
// pretty mode unless it stands alone (top).
func (d *viewPrinter) paren(s string, top bool) string {
	if d.pretty && top {
		return s
	}
	return "(" + s + ")"
}

// expr prints an expression; top: it is a whole target, condition or
// argument, where pretty mode needs no parentheses.
func (d *viewPrinter) expr(n *pg.Node, top bool) string {
	switch {
	case n == nil:
		return ""
	case n.GetColumnRef() != nil:
		var parts []string
		for _, f := range n.GetColumnRef().Fields {
			if f.GetAStar() != nil {
				parts = append(parts, "*")
			} else {
				parts = append(parts, quoteIdent(f.GetString_().GetSval()))
			}
		}
		return strings.Join(parts, ".")
	case n.GetAConst() != nil:
		return d.constant(n.GetAConst(), "")
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		tname := typeNameText(tc.TypeName)
		if c := tc.Arg.GetAConst(); c != nil {
			return d.constant(c, tname)
		}
		return "(" + d.expr(tc.Arg, true) + ")::" + tname
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_OP:
		a := n.GetAExpr()
		op := a.Name[len(a.Name)-1].GetString_().GetSval()
		if a.Lexpr == nil {
			return d.paren(op+" "+d.expr(a.Rexpr, false), top)
		}
		return d.paren(d.expr(a.Lexpr, false)+" "+op+" "+d.expr(a.Rexpr, false), top)
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		var args []string
		for _, a := range b.Args {
			args = append(args, d.expr(a, d.pretty && b.Boolop != pg.BoolExprType_NOT_EXPR))
		}
		switch b.Boolop {
		case pg.BoolExprType_AND_EXPR:
			return d.paren(strings.Join(args, " AND "), top)
		case pg.BoolExprType_OR_EXPR:
			return d.paren(strings.Join(args, " OR "), top)
		}
		return d.paren("NOT "+args[0], top)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		op := " IS NULL"
		if nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			op = " IS NOT NULL"
		}
		return d.paren(d.expr(nt.Arg, false)+op, top)
	case n.GetFuncCall() != nil:
		fc := n.GetFuncCall()
		if fc.Over != nil || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.AggWithinGroup {
			return d.fallback(n)
		}
		var name []string
		for _, p := range fc.Funcname {
			if s := p.GetString_().GetSval(); s != "pg_catalog" {
				name = append(name, quoteIdent(s))
			}
		}
		args := "*"
		if !fc.AggStar {
			args = d.exprList(fc.Args)
			if fc.AggDistinct {
				args = "DISTINCT " + args
			}
		}
		return strings.Join(name, ".") + "(" + args + ")"
	case n.GetSubLink() != nil && n.GetSubLink().SubLinkType == pg.SubLinkType_EXISTS_SUBLINK:
		sub := &viewPrinter{pretty: d.pretty, visible: d.visible}
		sub.query(n.GetSubLink().Subselect.GetSelectStmt(), nil, 8)
		return "(EXISTS ( " + strings.TrimLeft(sub.b.String(), " ") + "))"
	}
	return d.fallback(n)
}

// constant prints a literal as ruleutils does: numbers bare (negative
// ones quoted and cast), strings with their type, ::text by default.
func (d *viewPrinter) constant(c *pg.A_Const, tname string) string {
	switch {
	case c.Isnull:
		if tname != "" {
			return "NULL::" + tname
		}
		return "NULL"
	case c.GetIval() != nil:
		v := strconv.FormatInt(int64(c.GetIval().Ival), 10)
		if tname == "" || tname == "integer" {
			if c.GetIval().Ival < 0 {
				return "'" + v + "'::integer"
			}
			return v
		}
		return "'" + v + "'::" + tname
	case c.GetFval() != nil:
		v := c.GetFval().Fval
		if tname == "" || tname == "numeric" {
			if strings.HasPrefix(v, "-") {
				return "'" + v + "'::numeric"
			}
			return v
		}
		return "'" + v + "'::" + tname
	case c.GetBoolval() != nil:
		if c.GetBoolval().Boolval {
			return "true"
		}
		return "false"
	case c.GetSval() != nil:
		if tname == "" {
			tname = "text"
		}
		return "'" + strings.ReplaceAll(c.GetSval().Sval, "'", "''") + "'::" + tname
	}
	return d.fallback(&pg.Node{Node: &pg.Node_AConst{AConst: c}})
}

// typeNameText is a type as format_type prints it.
func typeNameText(tn *pg.TypeName) string {
	name := tn.Names[len(tn.Names)-1].GetString_().GetSval()
	canon := map[string]string{"unknown": "text", "int4": "integer", "int": "integer", "int8": "bigint", "int2": "smallint", "float8": "double precision",
		"float4": "real", "varchar": "character varying", "bpchar": "character", "bool": "boolean", "timestamptz": "timestamp with time zone",
		"timestamp": "timestamp without time zone", "timetz": "time with time zone", "time": "time without time zone", "varbit": "bit varying"}
	if c, ok := canon[name]; ok {
		name = c
	} else {
		name = quoteIdent(name)
	}
	if len(tn.Typmods) > 0 {
		var mods []string
		for _, m := range tn.Typmods {
			if c := m.GetAConst(); c != nil && c.GetIval() != nil {
				mods = append(mods, strconv.Itoa(int(c.GetIval().Ival)))
			}
		}
		name += "(" + strings.Join(mods, ",") + ")"
	}
	if len(tn.ArrayBounds) > 0 {
		name += "[]"
	}
	return name
}

// fallback prints what this printer has no rule for with pg_query's
// deparser.
func (d *viewPrinter) fallback(n *pg.Node) string {
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}}
	if n.GetJoinExpr() != nil || n.GetRangeFunction() != nil {
		sel = &pg.SelectStmt{FromClause: []*pg.Node{n}}
		s, err := DeparseSelect(sel)
		if err != nil {
			return "?"
		}
		return strings.TrimPrefix(s, "SELECT FROM ")
	}
	s, err := DeparseSelect(sel)
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(s, "SELECT ")
}

// reservedWords are the keywords quote_identifier quotes (PostgreSQL's
// reserved, column-name and type-function-name keywords, the usual ones).
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization between bigint binary bit
		boolean both case cast char character check coalesce collate collation column concurrently constraint create cross
		current_catalog current_date current_role current_schema current_time current_timestamp current_user dec decimal
		default deferrable desc distinct do else end except exists extract false fetch float for foreign freeze from full
		grant greatest group grouping having ilike in initially inner inout int integer intersect interval into is isnull
		join lateral leading least left like limit localtime localtimestamp national natural nchar none normalize not
		notnull null nullif numeric offset on only or order out outer overlaps overlay placing position precision primary
		real references returning right row select session_user setof similar smallint some substring symmetric system_user
		table tablesample then time timestamp to trailing treat trim true union unique user using values varchar variadic
		verbose when where window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi
		xmlroot xmlserialize xmltable`) {
		reservedWords[w] = true
	}
}

// quoteIdent is quote_identifier: keywords are quoted too.
func quoteIdent(s string) string {
	if reservedWords[s] {
		return `"` + s + `"`
	}
	return types.QuoteIdent(s)
}

// ruleDef is pg_get_ruledef of a view's _RETURN rule (the only rules
// tidal has).
func (f *catalogFuncs) ruleDef(rule uint32, pretty bool) (types.Datum, error) {
	view, err := f.c.Eng.Catalog.RuleView(f.c.Tx, rule)
	if err != nil || view == 0 {
		return types.Null(), err
	}
	rel, err := f.c.Eng.Catalog.ByOID(f.c.Tx, view)
	if err != nil || rel == nil {
		return types.Null(), err
	}
	def, err := f.viewDef(view, pretty)
	if err != nil || def.IsNull() {
		return def, err
	}
	return types.Str("CREATE RULE \"_RETURN\" AS\n    ON SELECT TO " + quoteIdent(rel.Name) + " DO INSTEAD " + strings.TrimLeft(def.Str(), " ")), nil
}
