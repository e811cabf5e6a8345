package plpgsql

// The exec.Language of LANGUAGE plpgsql: validation at CREATE, calls,
// DO blocks.

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func init() { exec.RegisterLanguage(catalog.LangPLpgSQL, language{}) }

type language struct{}

// site is a call site's program and what it keeps between calls: the
// datums' kinds and types, compiled expressions and plans.
type site struct {
	prog    *program
	proc    *catalog.Proc
	version uint64
	kinds   []int
	types   []types.Type
	rows    map[int]*record // a %ROWTYPE datum's fields
	// exprs are each expression's compiled forms: one per level of
	// recursion that runs it at once.
	exprs map[*exprNode][]*compiled
}

// initial is datum i's value before it is assigned.
func (s *site) initial(i int) value {
	v := value{kind: s.kinds[i], t: s.types[i], d: types.Null()}
	if r := s.rows[i]; r != nil {
		v.rec = &record{names: r.names, types: r.types, vals: make([]types.Datum, len(r.vals))}
	}
	return v
}

// createText is a CREATE FUNCTION statement the parser compiles the body
// of: the parameters' names and modes and the result matter to it.
func createText(p *catalog.Proc) string {
	var b strings.Builder
	b.WriteString("CREATE FUNCTION ")
	b.WriteString(pgQuote(p.Name) + "(")
	all := p.AllArgTypes
	if all == nil {
		all = p.ArgTypes
	}
	for i, t := range all {
		if i > 0 {
			b.WriteString(", ")
		}
		mode := byte(catalog.ArgIn)
		if p.ArgModes != nil {
			mode = p.ArgModes[i]
		}
		switch mode {
		case catalog.ArgOut:
			b.WriteString("OUT ")
		case catalog.ArgInOut:
			b.WriteString("INOUT ")
		case catalog.ArgVariadic:
			b.WriteString("VARIADIC ")
		case catalog.ArgTable:
			b.WriteString("OUT ")
		}
		if i < len(p.ArgNames) && p.ArgNames[i] != "" {
			b.WriteString(pgQuote(p.ArgNames[i]) + " ")
		}
		b.WriteString(types.Type{OID: t, Typmod: -1}.BaseName())
	}
	b.WriteString(") RETURNS ")
	if p.RetSet {
		b.WriteString("SETOF ")
	}
	b.WriteString(types.Type{OID: p.RetType, Typmod: -1}.BaseName())
	b.WriteString(" AS " + dollarQuote(p.Src) + " LANGUAGE plpgsql")
	return b.String()
}

func pgQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func dollarQuote(src string) string {
	tag := "$plpgsql$"
	for i := 0; strings.Contains(src, tag); i++ {
		tag = "$plpgsql" + strconv.Itoa(i) + "$"
	}
	return tag + src + tag
}

// parseBody parses a routine's (or DO block's) body.
func parseBody(text, src string) (*function, error) {
	js, err := pg.ParsePlPgSqlToJSON(text)
	if err != nil {
		return nil, compileError(err, src)
	}
	return parseTree(js)
}

// compileError is a parser error as PostgreSQL reports it at CREATE:
// its message and the CONTEXT "compilation of PL/pgSQL function …".
func compileError(err error, src string) error {
	var pe *pgparser.Error
	if !errors.As(err, &pe) {
		return pgerr.Errorf(pgerr.SyntaxError, "%v", err)
	}
	e := pgerr.Errorf(pgerr.SyntaxError, "%s", pe.Message)
	if strings.HasSuffix(pe.Message, "is declared CONSTANT") {
		e.Code = codeErrorInAssign
	}
	e.Where = pe.Context
	ce := &compileErr{pe: e}
	if m := nearLine.FindStringSubmatch(pe.Context); m != nil {
		ce.line, _ = strconv.Atoi(m[1])
	}
	if m := quotedToken.FindStringSubmatch(pe.Message); m != nil {
		ce.token = m[1]
	}
	return ce
}

var (
	nearLine    = regexp.MustCompile(`near line (\d+)`)
	quotedToken = regexp.MustCompile(`"([^"]+)"`)
)

// compileErr is a CREATE-time error with the line and token it is at.
type compileErr struct {
	pe    *pgerr.Error
	line  int
	token string
}

func (c *compileErr) Error() string { return c.pe.Error() }

// plainError is the *pgerr.Error inside a compile error (err itself if
// it holds none).
func plainError(err error) error {
	if pe := asError(err); pe != nil {
		return pe
	}
	return err
}
func (c *compileErr) Unwrap() error { return c.pe }

func (language) Validate(c *exec.Ctx, p *catalog.Proc, def *routine.Definition, checkBodies bool) error {
	f, err := parseBody(createText(p), p.Src)
	if err == nil {
		err = checkReturns(p, f)
	}
	return placeError(err, p, def)
}

// placeError points a CREATE-time error at its token in the CREATE
// statement (the parser gives a line, not a position), as PostgreSQL's
// caret does; the compilation CONTEXT then goes, as there.
func placeError(err error, p *catalog.Proc, def *routine.Definition) error {
	var ce *compileErr
	if !errors.As(err, &ce) {
		return err
	}
	pe := ce.pe
	if def == nil || def.SrcLocation < 0 || int(def.SrcLocation) > len(def.Text) {
		return pe
	}
	body := strings.Index(def.Text[def.SrcLocation:], p.Src)
	line, tok := ce.line, ce.token
	if body < 0 || tok == "" {
		return pe
	}
	start := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(p.Src[start:], '\n')
		if i < 0 {
			return pe
		}
		start += i + 1
	}
	i := strings.Index(strings.ToLower(p.Src[start:]), strings.ToLower(tok))
	if i < 0 {
		return pe
	}
	pe.Position = int32(int(def.SrcLocation)+body+start+i) + 1
	pe.Where = ""
	return pe
}

// checkReturns refuses what PostgreSQL's parser refuses knowing the
// result type.
func checkReturns(p *catalog.Proc, f *function) error {
	var bad *pgerr.Error
	var at *stmt
	hasOut := len(p.OutputArgs()) > 0
	walkStmts([]*stmt{f.Action}, func(s *stmt) {
		if bad != nil {
			return
		}
		at = s
		switch {
		case s.kind == "return" && s.Expr.e != nil && p.RetSet:
			bad = pgerr.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function returning set").
				WithHint("Use RETURN NEXT or RETURN QUERY.")
		case s.kind == "return" && s.Expr.e != nil && p.Kind == catalog.ProcProcedure:
			bad = pgerr.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in a procedure")
		case s.kind == "return" && s.Expr.e != nil && hasOut:
			bad = pgerr.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function with OUT parameters")
		case s.kind == "return" && s.Expr.e != nil && p.RetType == types.VoidOID:
			bad = pgerr.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function returning void")
		case s.kind == "return" && s.Expr.e == nil && s.Lineno > 0 && !p.RetSet && !hasOut && p.RetType != types.VoidOID && p.Kind != catalog.ProcProcedure:
			bad = pgerr.Errorf(pgerr.SyntaxError, "missing expression at or near \";\"")
		case (s.kind == "return_next" || s.kind == "return_query") && !p.RetSet:
			bad = pgerr.Errorf(pgerr.SyntaxError, "cannot use %s in a non-SETOF function", strings.ToUpper(strings.ReplaceAll(s.kind, "_", " ")))
		case s.kind == "return_next" && s.Expr.e != nil && hasOut:
			bad = pgerr.Errorf(pgerr.SyntaxError, "RETURN NEXT cannot have a parameter in function with OUT parameters")
		}
	})
	if bad == nil {
		return nil
	}
	ce := &compileErr{pe: bad, line: at.Lineno, token: strings.ToLower(stmtName(at))}
	if at.Expr.e != nil {
		ce.token = at.Expr.e.Query
	}
	return ce
}

func (language) Call(c *exec.Ctx, rc *exec.RoutineCall, args []types.Datum, emit func(exec.Row) (bool, error)) error {
	if err := c.CheckRoutineDepth(); err != nil {
		return err
	}
	st, err := siteFor(c, rc)
	if err != nil {
		return err
	}
	x := newCall(c, st, rc, emit)
	for i, d := range st.prog.argDnos {
		if i < len(args) {
			x.vals[d].d = args[i]
		}
	}
	return x.runCall()
}

// siteFor is the compiled routine a call runs: the call site's, else
// the session's for this routine and argument types (so a recursive
// function is compiled once), else compiled now. A catalog change, or a
// transaction's own uncommitted one, compiles it again.
func siteFor(c *exec.Ctx, rc *exec.RoutineCall) (*site, error) {
	current := func(st *site) bool { return st != nil && st.version == c.Eng.Catalog.Version() && !c.Tx.Dirty }
	if st, _ := rc.Compiled().(*site); current(st) {
		return st, nil
	}
	key := strconv.FormatUint(uint64(rc.Proc.OID), 10)
	for _, t := range rc.ArgTypes {
		key += "," + strconv.FormatUint(uint64(t.OID), 10)
	}
	return cachedSite(c, rc, key)
}

// cachedSite is the session's compiled routine under key, else compiled
// now (and kept unless the transaction changed catalogs).
func cachedSite(c *exec.Ctx, rc *exec.RoutineCall, key string) (*site, error) {
	current := func(st *site) bool { return st != nil && st.version == c.Eng.Catalog.Version() && !c.Tx.Dirty }
	cache := map[string]any{}
	if rcs, ok := c.Session.(exec.RoutineCaches); ok {
		cache = rcs.RoutineCache()
	}
	if st, _ := cache[key].(*site); current(st) {
		rc.SetCompiled(st)
		return st, nil
	}
	f, err := parseBody(createText(rc.Proc), rc.Proc.Src)
	if err != nil {
		return nil, plainError(err)
	}
	prog := buildProgram(f, exec.ProcSignature(rc.Proc), rc.Proc.Src, procParams(rc.Proc), rc.Proc.Name)
	st := &site{prog: prog, proc: rc.Proc, version: c.Eng.Catalog.Version(), exprs: map[*exprNode][]*compiled{}}
	if err := st.resolveTypes(c, rc); err != nil {
		return nil, err
	}
	rc.SetCompiled(st)
	if !c.Tx.Dirty {
		cache[key] = st
	}
	return st, nil
}

func newCall(c *exec.Ctx, st *site, rc *exec.RoutineCall, emit func(exec.Row) (bool, error)) *call {
	x := &call{site: st, prog: st.prog, c: c, rc: rc, emit: emit, vals: make([]value, len(st.prog.datums))}
	x.res = &resolver{x: x}
	x.bc = c.BodyCtx(x.res)
	for i := range x.vals {
		x.vals[i] = st.initial(i)
	}
	return x
}

// runCall runs the body once with the snapshot rules of routine bodies.
func (x *call) runCall() error {
	volatile := x.rc == nil || x.rc.Proc.Volatile == catalog.VolatileVolatile
	x.snaps = x.c.BeginBodySnapshots(volatile)
	defer x.snaps.End()
	if x.prog.found >= 0 {
		x.vals[x.prog.found].d = types.Bool(false)
	}
	if _, err := x.stmt(x.prog.root); err != nil {
		return err
	}
	if x.rc == nil {
		return nil
	}
	rc := x.rc
	switch {
	case rc.Proc.Kind == catalog.ProcProcedure:
		if len(x.prog.outDnos) > 0 {
			return x.emitOut()
		}
	case rc.Proc.RetSet, x.returned, rc.Ret.OID == types.VoidOID:
	case len(x.prog.outDnos) > 0:
		return x.emitOut()
	default:
		e := pgerr.Errorf(codeNoReturn, "control reached end of function without RETURN")
		e.Where = "PL/pgSQL function " + x.prog.name
		return e
	}
	return nil
}

// procParams are a routine's parameters as the parser numbers them.
func procParams(p *catalog.Proc) []param {
	all := p.AllArgTypes
	if all == nil {
		all = p.ArgTypes
	}
	out := make([]param, len(all))
	for i := range all {
		mode := byte(catalog.ArgIn)
		if p.ArgModes != nil {
			mode = p.ArgModes[i]
		}
		name := ""
		if i < len(p.ArgNames) {
			name = p.ArgNames[i]
		}
		out[i] = param{name: name, input: catalog.IsInputMode(mode), output: mode == catalog.ArgOut || mode == catalog.ArgInOut || mode == catalog.ArgTable}
	}
	return out
}

// Inline runs a DO block.
func (language) Inline(c *exec.Ctx, src string) error {
	if err := c.CheckRoutineDepth(); err != nil {
		return err
	}
	f, err := parseBody("DO "+dollarQuote(src), src)
	if err == nil {
		// A DO block is a procedure-like routine returning void.
		err = checkReturns(&catalog.Proc{RetType: types.VoidOID}, f)
	}
	if err != nil {
		return plainError(err)
	}
	prog := buildProgram(f, "inline_code_block", src, nil, "")
	st := &site{prog: prog, version: c.Eng.Catalog.Version(), exprs: map[*exprNode][]*compiled{}}
	if err := st.resolveTypes(c, nil); err != nil {
		return err
	}
	return newCall(c, st, nil, nil).runCall()
}

// resolveTypes gives every datum its kind and type.
func (s *site) resolveTypes(c *exec.Ctx, rc *exec.RoutineCall) error {
	n := len(s.prog.datums)
	s.kinds, s.types, s.rows = make([]int, n), make([]types.Type, n), map[int]*record{}
	params := 0
	if rc != nil {
		params = len(procParams(rc.Proc))
	}
	for i, d := range s.prog.datums {
		switch {
		case i < params:
			s.types[i] = paramType(rc, i)
			if s.types[i].OID == types.RecordOID {
				s.kinds[i] = kRecord
			}
		case d.kind == "rec":
			s.kinds[i], s.types[i] = kRecord, types.Record
		case d.kind == "row":
			s.kinds[i] = kTarget
		case d.kind == "recfield":
			s.kinds[i] = kField
		default:
			if err := s.declType(c, i, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// paramType is parameter i's type, polymorphic ones as bound at the
// call site.
func paramType(rc *exec.RoutineCall, i int) types.Type {
	p := rc.Proc
	in, out := 0, 0
	for k := 0; k < i; k++ {
		pp := procParams(p)[k]
		if pp.input {
			in++
		}
		if pp.output {
			out++
		}
	}
	pp := procParams(p)[i]
	if pp.input && in < len(rc.ArgTypes) {
		return rc.ArgTypes[in]
	}
	if pp.output && out < len(rc.Cols) {
		return rc.Cols[out].Type
	}
	if pp.output && len(rc.Cols) == 0 {
		return rc.Ret
	}
	all := p.AllArgTypes
	if all == nil {
		all = p.ArgTypes
	}
	return types.Type{OID: all[i], Typmod: -1}
}

// declType resolves a declared variable's type: a type name,
// var%TYPE, table.column%TYPE, table%ROWTYPE or a table's row type.
func (s *site) declType(c *exec.Ctx, i int, d *datumNode) error {
	if d.Datatype == nil {
		s.types[i] = types.Text
		return nil
	}
	name := strings.TrimSpace(d.Datatype.Typname)
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, "%rowtype"):
		return s.rowType(c, i, strings.TrimSpace(name[:len(name)-len("%rowtype")]))
	case strings.HasSuffix(lower, "%type"):
		return s.pctType(c, i, strings.TrimSpace(name[:len(name)-len("%type")]))
	}
	tree, err := pg.Parse("SELECT NULL::" + name)
	if err != nil {
		return pgerr.Errorf(pgerr.SyntaxError, "type \"%s\" does not exist", name)
	}
	tn := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().GetTypeName()
	t, err := expr.DeclTypeFromName(tn)
	if err != nil {
		if rerr := s.rowType(c, i, name); rerr == nil {
			return nil
		}
		return err
	}
	s.types[i] = t
	return nil
}

func (s *site) rowType(c *exec.Ctx, i int, name string) error {
	parts := strings.Split(name, ".")
	schema, table := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	rel, err := c.Eng.Catalog.Lookup(c.Tx, schema, table)
	if err != nil {
		return err
	}
	if rel == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	r := &record{}
	for _, a := range rel.Attrs {
		if a.Dropped {
			continue
		}
		r.names = append(r.names, a.Name)
		r.types = append(r.types, types.Type{OID: a.Type.OID, Typmod: a.Type.Typmod})
		r.vals = append(r.vals, types.Null())
	}
	s.kinds[i], s.types[i], s.rows[i] = kRow, types.Record, r
	return nil
}

func (s *site) pctType(c *exec.Ctx, i int, name string) error {
	parts := strings.Split(name, ".")
	if len(parts) == 1 {
		if sc := s.prog.declScope[i]; sc != nil {
			if d, ok := sc.lookup(parts[0]); ok && d != i {
				s.kinds[i], s.types[i] = s.kinds[d], s.types[d]
				if r := s.rows[d]; r != nil {
					s.rows[i] = r
				}
				return nil
			}
		}
		return pgerr.Errorf(pgerr.SyntaxError, "variable \"%s\" does not exist", name)
	}
	schema, table, column := "", parts[len(parts)-2], parts[len(parts)-1]
	if len(parts) > 2 {
		schema = parts[len(parts)-3]
	}
	rel, err := c.Eng.Catalog.Lookup(c.Tx, schema, table)
	if err != nil {
		return err
	}
	if rel == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", table)
	}
	k := rel.AttrByName(column)
	if k < 0 {
		return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, table)
	}
	s.types[i] = rel.Attrs[k].Type
	return nil
}
