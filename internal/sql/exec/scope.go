package exec

import (
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// scopeCol is a column visible to expressions.
type scopeCol struct {
	rel   string // alias or table name
	name  string
	t     types.Type
	index int
	// hidden: the right-hand copy of a JOIN … USING column, reachable
	// only qualified and left out of an unqualified *.
	hidden bool
	// dropped: a dropped table column, which keeps its place in the row
	// but has no name and is left out of every *. It is also hidden.
	dropped bool
	// system: a system column (ctid, xmin, …): resolvable like any
	// column but left out of every * (syscols.go).
	system bool
	// table and attnum identify a table column for RowDescription;
	// relname is the table's own name (rel may be an alias).
	table   uint32
	attnum  int16
	relname string
}

// scope is the columns of one query level's FROM clause. Scopes nest:
// a subquery's scope has the enclosing query's scope as parent, and a
// reference that resolves there becomes an outer reference.
type scope struct {
	cols []scopeCol
	// qualify: print column names with their relation (joins).
	qualify bool
	parent  levelScope
	// level is the number of enclosing rows on the executor's outer-row
	// stack while this scope's expressions run.
	level int
	p     *Planner
}

// levelScope is a scope that takes part in outer-reference resolution.
type levelScope interface {
	expr.Scope
	// lookup resolves a column at this level only: found=false if there
	// is none (err reports ambiguity or grouping errors).
	lookup(qual, name string) (v *expr.Var, found bool, err error)
	lvl() int
	up() levelScope
	hasRel(qual string) bool
	planner() *Planner
}

func (s *scope) lvl() int          { return s.level }
func (s *scope) up() levelScope    { return s.parent }
func (s *scope) planner() *Planner { return s.p }
func (s *scope) display(c scopeCol) string {
	if s.qualify {
		return c.rel + "." + c.name
	}
	return c.name
}

func (s *scope) hasRel(qual string) bool {
	for _, c := range s.cols {
		if c.rel == qual {
			return true
		}
	}
	return false
}

func (s *scope) lookup(qual, name string) (*expr.Var, bool, error) {
	found := -1
	for i, c := range s.cols {
		if c.name != name || (qual == "" && c.hidden) || (qual != "" && qual != c.rel) {
			continue
		}
		if found >= 0 {
			return nil, false, pgerr.Errorf(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", name)
		}
		found = i
	}
	if found < 0 {
		return nil, false, nil
	}
	c := s.cols[found]
	if s.p != nil && s.p.UsedColumns != nil && c.table != 0 && c.attnum > 0 {
		s.p.noteColumnUse(c.table, c.attnum)
	}
	if s.p != nil && c.table != 0 && c.attnum > 0 {
		s.p.noteColumnRead(c.table, c.attnum)
	}
	return &expr.Var{Index: c.index, T: c.t, Name: s.display(c)}, true, nil
}

func (s *scope) Resolve(qual, name string, loc int32) (expr.Expr, error) {
	if p := s.planner(); p != nil && p.C != nil && p.C.vars != nil {
		return p.resolveWithVars(s, qual, name, loc)
	}
	return resolveChain(s, qual, name)
}

// resolveChain resolves a column in s or, failing that, in the enclosing
// scopes (an outer reference).
func resolveChain(s levelScope, qual, name string) (expr.Expr, error) {
	for cur := s; cur != nil; cur = cur.up() {
		v, found, err := cur.lookup(qual, name)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if cur == s || cur.lvl() >= s.lvl() {
			return v, nil
		}
		if p := s.planner(); p != nil {
			p.markOuterRef(cur.lvl())
		}
		return &expr.OuterVar{Depth: s.lvl() - cur.lvl(), Index: v.Index, T: v.T, Name: v.Name}, nil
	}
	if e, err := s.planner().routineParam(qual, name); e != nil || err != nil {
		return e, err
	}
	if t, ok := wantSystemColumn(s, qual, name); ok {
		// The statement is planned again with the column (syscols.go);
		// until then it reads as NULL.
		return &expr.Const{Val: types.Null(), T: t}, nil
	}
	if qual != "" {
		known := false
		for cur := s; cur != nil; cur = cur.up() {
			if cur.hasRel(qual) {
				known = true
			}
		}
		if !known {
			if alias := aliasHiding(s, qual); alias != "" {
				return nil, pgerr.Errorf(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", qual).
					WithHint("Perhaps you meant to reference the table alias \"%s\".", alias)
			}
			return nil, pgerr.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual)
		}
		return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column %s.%s does not exist", qual, name)
	}
	return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
}

func (a *aggScope) lvl() int             { return a.input.level }
func (a *aggScope) up() levelScope       { return a.input.parent }
func (a *aggScope) planner() *Planner    { return a.p }
func (a *aggScope) hasRel(q string) bool { return a.input.hasRel(q) }

func (a *aggScope) lookup(qual, name string) (*expr.Var, bool, error) {
	v, found, err := a.input.lookup(qual, name)
	if err != nil || !found {
		return nil, found, err
	}
	for i, g := range a.groups {
		if g.String() == v.String() {
			return &expr.Var{Index: i, T: g.Type(), Name: v.String()}, true, nil
		}
	}
	rel := ""
	for _, c := range a.input.cols {
		if c.index == v.Index {
			rel = c.rel
		}
	}
	return nil, false, pgerr.Errorf(pgerr.GroupingError, "column \"%s.%s\" must appear in the GROUP BY clause or be used in an aggregate function", rel, name)
}

func (a *aggScope) Resolve(qual, name string, loc int32) (expr.Expr, error) {
	return resolveChain(a, qual, name)
}

// tableScopeCol is the scope entry of column i of a table, under name.
func tableScopeCol(rel string, a catalog.Attr, name string, i int) scopeCol {
	if a.Dropped {
		return scopeCol{rel: rel, t: a.Type, index: i, hidden: true, dropped: true}
	}
	return scopeCol{rel: rel, name: name, t: a.Type, index: i}
}

// aliasHiding finds the alias under which table relname is in scope, if
// it is (a reference by the table's own name is then PostgreSQL's "invalid
// reference to FROM-clause entry").
func aliasHiding(s levelScope, relname string) string {
	for cur := s; cur != nil; cur = cur.up() {
		sc, ok := cur.(*scope)
		if !ok {
			if a, isAgg := cur.(*aggScope); isAgg {
				sc = a.input
			} else {
				continue
			}
		}
		for _, c := range sc.cols {
			if c.relname == relname && c.rel != relname {
				return c.rel
			}
		}
	}
	return ""
}

// WholeRow is the row of FROM item rel (t.* or t as a value), in this
// scope or an enclosing one; in a procedural body, a record variable of
// that name.
func (s *scope) WholeRow(rel string, loc int32) (expr.Expr, bool, error) {
	for cur := levelScope(s); cur != nil; cur = cur.up() {
		sc, ok := cur.(*scope)
		if !ok || !sc.hasRel(rel) {
			continue
		}
		var fields []expr.Expr
		for _, c := range sc.cols {
			if c.rel != rel || c.hidden || c.system || c.name == "" {
				continue
			}
			e, err := resolveChain(s, rel, c.name)
			if err != nil {
				return nil, true, err
			}
			fields = append(fields, e)
		}
		return expr.NewRowValue(fields), true, nil
	}
	if p := s.planner(); p != nil && p.C != nil && p.C.vars != nil {
		e, err := p.resolveWithVars(s, "", rel, loc)
		if err == nil && e.Type().OID == types.RecordOID {
			return e, true, nil
		}
	}
	return nil, false, nil
}

// RowColumns are the visible columns of FROM item rel.
func (s *scope) RowColumns(rel string) ([]string, bool) {
	for cur := levelScope(s); cur != nil; cur = cur.up() {
		sc, ok := cur.(*scope)
		if !ok || !sc.hasRel(rel) {
			continue
		}
		var out []string
		for _, c := range sc.cols {
			if c.rel == rel && !c.hidden && !c.system && c.name != "" {
				out = append(out, c.name)
			}
		}
		return out, true
	}
	if p := s.planner(); p != nil && p.C != nil {
		if rv, ok := p.C.vars.(RecordVars); ok {
			return rv.RecordFields(rel)
		}
	}
	return nil, false
}

// RecordVars are procedural variables that are records (rec.* expands
// to their fields).
type RecordVars interface {
	RecordFields(name string) ([]string, bool)
}

// WholeRow of a body's expression without FROM: a record variable.
func (s routineParamScope) WholeRow(rel string, loc int32) (expr.Expr, bool, error) {
	if s.p.C == nil || s.p.C.vars == nil || !s.p.C.vars.Has("", rel) {
		return nil, false, nil
	}
	e, err := s.Resolve("", rel, loc)
	if err != nil || e.Type().OID != types.RecordOID {
		return nil, false, nil
	}
	return e, true, nil
}

// RowColumns of a body's expression without FROM: a record variable's
// fields.
func (s routineParamScope) RowColumns(rel string) ([]string, bool) {
	if s.p.C != nil {
		if rv, ok := s.p.C.vars.(RecordVars); ok {
			return rv.RecordFields(rel)
		}
	}
	return nil, false
}
