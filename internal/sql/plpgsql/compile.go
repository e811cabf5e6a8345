package plpgsql

// From the parser's tree to a program: which block declares which
// datum, the name scopes expressions are resolved in, the datums of
// the parameters and of FOUND. pg_query's JSON does not carry a block's
// declarations (initvarnos) or an expression's namespace, so they are
// rebuilt from the order the parser creates datums in (README).

import (
	"strings"
)

// datum kinds at run time.
const (
	kScalar = iota // a variable of a scalar (or array) type
	kRecord        // RECORD: takes the shape of what it is assigned
	kRow           // table%ROWTYPE: fixed fields
	kTarget        // the parser's unnamed row of an INTO list
	kField         // rec.field
)

// scope is one level of names: a block's declarations, a FOR loop's
// variable, an exception handler's SQLSTATE and SQLERRM, or the
// function's parameters (labelled with the function's name).
type scope struct {
	parent *scope
	label  string
	names  map[string]int
}

func (s *scope) lookup(name string) (int, bool) {
	for c := s; c != nil; c = c.parent {
		if d, ok := c.names[name]; ok {
			return d, true
		}
	}
	return 0, false
}

func (s *scope) labelled(label string) *scope {
	for c := s; c != nil; c = c.parent {
		if c.label == label {
			return c
		}
	}
	return nil
}

// program is a parsed body ready to run.
type program struct {
	name   string // the CONTEXT lines' function: "f(integer)" or "inline_code_block"
	datums []*datumNode
	root   *stmt
	// argDnos are the input parameters' datums, outDnos the output ones
	// (OUT, INOUT, TABLE) in declaration order; found is FOUND's.
	argDnos, outDnos []int
	found            int
	// blockVars are the datums a block (re)initializes on entry;
	// declScope is the scope a declared datum's default and %TYPE are
	// resolved in.
	blockVars map[*stmt][]int
	declScope map[int]*scope
	// exprScope is where each expression's names resolve; loopScope
	// and handlerScope are the scopes of FOR bodies and handlers.
	exprScope    map[*exprNode]*scope
	handlerScope map[*handler]*scope
	loopVar      map[*stmt]int
	// trig are a trigger function's NEW, OLD and TG_* datums (nil for
	// other functions).
	trig *triggerDatums
	// src is the body; stmtScope the scope of each statement.
	src       string
	stmtScope map[*stmt]*scope
}

// param is a routine parameter as the body sees it.
type param struct {
	name          string
	input, output bool
}

// buildProgram places the datums of f: the parser makes one datum per
// parameter, in pg_proc order, then FOUND.
func buildProgram(f *function, name, src string, params []param, funcLabel string) *program {
	p := &program{name: name, src: src, stmtScope: map[*stmt]*scope{}, datums: f.Datums, root: f.Action, blockVars: map[*stmt][]int{},
		declScope: map[int]*scope{}, exprScope: map[*exprNode]*scope{}, handlerScope: map[*handler]*scope{},
		loopVar: map[*stmt]int{}, found: -1}
	top := &scope{label: funcLabel, names: map[string]int{}}
	claimed := make([]bool, len(f.Datums))
	for i, prm := range params {
		if i >= len(f.Datums) {
			break
		}
		claimed[i] = true
		if prm.name != "" {
			top.names[prm.name] = i
		}
		top.names["$"+itoa(i+1)] = i
		if prm.input {
			p.argDnos = append(p.argDnos, i)
		}
		if prm.output {
			p.outDnos = append(p.outDnos, i)
		}
	}
	for i, d := range f.Datums {
		if claimed[i] {
			continue
		}
		if d.kind == "var" && d.Refname == "found" {
			claimed[i] = true
			top.names["found"] = i
			p.found = i
			break
		}
		if d.kind == "row" { // the OUT parameters' row
			claimed[i] = true
		}
	}
	claimed = declareTriggerVars(f, p, top, claimed)
	declareAliases(src, top)
	b := &builder{p: p, claimed: claimed}
	b.claim(f.Action)
	b.block(f.Action, top)
	return p
}

type builder struct {
	p       *program
	claimed []bool
	cursor  int // next datum a declaration may be
	foriAt  int
	excAt   int
}

// claim marks the datums statements create (not declarations): record
// fields, INTO rows, CASE variables, integer FOR variables, handlers'
// SQLSTATE/SQLERRM.
func (b *builder) claim(root *stmt) {
	for i, d := range b.p.datums {
		switch {
		case d.kind == "recfield", d.kind == "row" && d.Refname == "(unnamed row)",
			d.kind == "var" && strings.HasPrefix(d.Refname, "__Case__Variable_"):
			b.claimed[i] = true
		case d.kind == "var" && d.IsConst && (d.Refname == "sqlstate" || d.Refname == "sqlerrm") &&
			d.Datatype != nil && d.Datatype.Typname == "pg_catalog.text":
			b.claimed[i] = true
		}
	}
	walkStmts([]*stmt{root}, func(s *stmt) {
		if s.kind != "fori" || s.Var == nil {
			return
		}
		for i := b.foriAt; i < len(b.p.datums); i++ {
			d := b.p.datums[i]
			if !b.claimed[i] && d.kind == "var" && d.Refname == s.Var.Refname && d.Lineno == s.Var.Lineno {
				b.claimed[i] = true
				b.p.loopVar[s] = i
				b.foriAt = i + 1
				return
			}
		}
	})
}

// walkStmts visits statements in text order.
func walkStmts(list []*stmt, f func(*stmt)) {
	for _, s := range list {
		f(s)
		walkStmts(s.Body, f)
		walkStmts(s.ThenBody, f)
		for _, a := range s.Elsifs {
			walkStmts(a.Stmts, f)
		}
		walkStmts(s.ElseBody, f)
		for _, a := range s.Whens {
			walkStmts(a.Stmts, f)
		}
		walkStmts(s.ElseStmt, f)
		if s.Exc != nil {
			for _, h := range s.Exc.Handlers {
				walkStmts(h.Action, f)
			}
		}
	}
}

// block takes the block's declarations: the unclaimed datums from the
// cursor declared on lines up to its BEGIN.
func (b *builder) block(s *stmt, parent *scope) {
	sc := &scope{parent: parent, label: s.Label, names: map[string]int{}}
	// Line 0: the block the parser wraps around a labelled top block (or
	// one with handlers) to add the final RETURN; it declares nothing.
	for b.cursor < len(b.p.datums) && s.Lineno > 0 {
		i := b.cursor
		if b.claimed[i] {
			b.cursor++
			continue
		}
		d := b.p.datums[i]
		if _, dup := sc.names[d.Refname]; dup || d.Lineno > s.Lineno {
			break // a nested block's declaration on the same line
		}
		// A declaration sees the ones before it, not itself or later
		// ones (x int := x + 1 is an error, as in PostgreSQL).
		before := &scope{parent: parent, label: s.Label, names: make(map[string]int, len(sc.names))}
		for n, v := range sc.names {
			before.names[n] = v
		}
		b.p.declScope[i] = before
		b.exprs(d.Default.e, before)
		sc.names[d.Refname] = i
		b.p.blockVars[s] = append(b.p.blockVars[s], i)
		b.claimed[i] = true
		b.cursor++
	}
	b.stmts(s.Body, sc)
	if s.Exc != nil {
		// The parser makes each handler section's SQLSTATE and SQLERRM
		// after the body's datums.
		hs := &scope{parent: sc, names: map[string]int{}}
		for i := b.excAt; i+1 < len(b.p.datums); i++ {
			d := b.p.datums[i]
			if d.kind == "var" && d.IsConst && d.Refname == "sqlstate" && b.p.datums[i+1].Refname == "sqlerrm" {
				hs.names["sqlstate"], hs.names["sqlerrm"] = i, i+1
				b.excAt = i + 2
				break
			}
		}
		for _, h := range s.Exc.Handlers {
			b.p.handlerScope[h] = hs
			b.stmts(h.Action, hs)
		}
	}
}

func (b *builder) stmts(list []*stmt, sc *scope) {
	for _, s := range list {
		b.stmt(s, sc)
	}
}

func (b *builder) stmt(s *stmt, sc *scope) {
	b.p.stmtScope[s] = sc
	if s.kind == "block" {
		b.block(s, sc)
		return
	}
	for _, e := range stmtExprs(s) {
		b.exprs(e, sc)
	}
	for _, a := range s.Elsifs {
		b.exprs(a.Cond.e, sc)
		b.stmts(a.Stmts, sc)
	}
	if s.kind == "case" && s.TExpr.e != nil && s.TVarno < len(b.p.datums) {
		sc.names[b.p.datums[s.TVarno].Refname] = s.TVarno
	}
	for _, a := range s.Whens {
		b.exprs(a.Expr.e, sc)
		b.stmts(a.Stmts, sc)
	}
	b.stmts(s.ThenBody, sc)
	b.stmts(s.ElseBody, sc)
	b.stmts(s.ElseStmt, sc)
	body := sc
	if s.Label != "" || s.kind == "fori" {
		body = &scope{parent: sc, label: s.Label, names: map[string]int{}}
		if d, ok := b.p.loopVar[s]; ok {
			body.names[b.p.datums[d].Refname] = d
		}
	}
	b.stmts(s.Body, body)
}

func (b *builder) exprs(e *exprNode, sc *scope) {
	if e != nil {
		b.p.exprScope[e] = sc
	}
}

// stmtExprs are a statement's own expressions (not its arms').
func stmtExprs(s *stmt) []*exprNode {
	out := []*exprNode{s.Expr.e, s.Cond.e, s.TExpr.e, s.Lower.e, s.Upper.e, s.Step.e, s.Query.e, s.DynQ.e, s.SQL.e, s.messageExpr()}
	for _, p := range s.Params {
		out = append(out, p.e)
	}
	for _, o := range s.Options {
		out = append(out, o.Expr.e)
	}
	return out
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
