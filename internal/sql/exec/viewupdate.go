package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Automatically updatable views (PostgreSQL's rewriteTargetView): an
// INSERT, UPDATE or DELETE naming a view that selects from one table or
// updatable view, without aggregation, DISTINCT, set operations, WITH or
// LIMIT, is rewritten onto that relation: view columns become the base
// expressions they stand for, the view's WHERE is added to UPDATE's and
// DELETE's, and WITH CHECK OPTION conditions become checks on new rows.

const withCheckOptionViolation = "44000"

// viewTarget is one updatable view of the chain a statement goes
// through.
type viewTarget struct {
	view  *catalog.Relation
	base  *pg.RangeVar        // the relation the view selects from
	qual  string              // the name the view's query gives it
	cols  map[string]*pg.Node // view column → expression over the base
	names map[string]string   // view column → base column, for plain columns
	order []string            // view columns in order
	where *pg.Node
}

// viewCheck is a WITH CHECK OPTION condition in terms of the target
// table's columns.
type viewCheck struct {
	view string
	cond *pg.Node
	e    expr.Expr
}

var viewOpHints = map[string]string{
	"insert": "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
	"update": "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
	"delete": "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
}

var viewOpVerbs = map[string]string{"insert": "cannot insert into view", "update": "cannot update view", "delete": "cannot delete from view"}

// ViewNotUpdatable is why a view's query is not automatically updatable
// (PostgreSQL's DETAIL), or "".
func ViewNotUpdatable(sel *pg.SelectStmt) string {
	switch {
	case sel.Op != pg.SetOperation_SETOP_NONE:
		return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable."
	case sel.WithClause != nil:
		return "Views containing WITH are not automatically updatable."
	case len(sel.DistinctClause) > 0:
		return "Views containing DISTINCT are not automatically updatable."
	case len(sel.GroupClause) > 0:
		return "Views containing GROUP BY are not automatically updatable."
	case sel.HavingClause != nil:
		return "Views containing HAVING are not automatically updatable."
	case sel.LimitCount != nil || sel.LimitOffset != nil:
		return "Views containing LIMIT or OFFSET are not automatically updatable."
	case len(sel.ValuesLists) > 0:
		return "Views that do not select from a single table or view are not automatically updatable."
	}
	for _, t := range sel.TargetList {
		if hasAggregates(t) {
			return "Views that return aggregate functions are not automatically updatable."
		}
		if hasWindowCall(t) {
			return "Views that return window functions are not automatically updatable."
		}
		if hasSRF(t) {
			return "Views that return set-returning functions are not automatically updatable."
		}
	}
	if len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil {
		return "Views that do not select from a single table or view are not automatically updatable."
	}
	return ""
}

func hasWindowCall(n *pg.Node) bool {
	found := false
	parser.Walk(n, func(m proto.Message) bool {
		if fc, ok := m.(*pg.FuncCall); ok && fc.Over != nil {
			found = true
		}
		_, sub := m.(*pg.SelectStmt)
		return !found && !sub
	})
	return found
}

func hasSRF(n *pg.Node) bool {
	found := false
	parser.Walk(n, func(m proto.Message) bool {
		if fc, ok := m.(*pg.FuncCall); ok && types.IsSRF(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()) {
			found = true
		}
		_, sub := m.(*pg.SelectStmt)
		return !found && !sub
	})
	return found
}

// viewTargetOf analyzes the view a statement of kind op ("insert",
// "update", "delete") targets; nil when rv names no view.
func (p *Planner) viewTargetOf(rv *pg.RangeVar, op string) (*viewTarget, error) {
	rel, err := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname)
	if err != nil || rel == nil {
		return nil, err
	}
	if rel.MatView && !p.FillMatView {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot change materialized view \"%s\"", rel.Name)
	}
	if rel.Kind != catalog.KindView || rel.MatView {
		return nil, nil
	}
	if p.C.LockRel != nil {
		if err := p.C.LockRel(rel.OID, lockRowExclusive); err != nil {
			return nil, err
		}
	}
	return analyzeView(rel, op)
}

// analyzeView is viewTargetOf's analysis of an updatable view, or
// PostgreSQL's error for one that is not.
func analyzeView(rel *catalog.Relation, op string) (*viewTarget, error) {
	sel, err := ParseViewQuery(rel)
	if err != nil {
		return nil, err
	}
	if why := ViewNotUpdatable(sel); why != "" {
		return nil, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\"", viewOpVerbs[op], rel.Name).
			WithDetail("%s", why).WithHint("%s", viewOpHints[op])
	}
	base := proto.Clone(sel.FromClause[0].GetRangeVar()).(*pg.RangeVar)
	vt := &viewTarget{view: rel, base: base, qual: base.Relname, cols: map[string]*pg.Node{}, names: map[string]string{}, where: sel.WhereClause}
	if base.Alias != nil {
		vt.qual = base.Alias.Aliasname
	}
	for i, t := range sel.TargetList {
		if i >= len(rel.Attrs) {
			break
		}
		name := rel.Attrs[i].Name
		val := t.GetResTarget().Val
		vt.cols[name] = val
		vt.order = append(vt.order, name)
		if cr := val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetString_() != nil &&
			(len(cr.Fields) == 1 || len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == vt.qual) {
			vt.names[name] = cr.Fields[len(cr.Fields)-1].GetString_().Sval
		}
	}
	return vt, nil
}

// subst replaces references to the view's columns (bare, or qualified
// by ref, the statement's name for the view) with the expressions they
// stand for, in place.
func (vt *viewTarget) subst(n *pg.Node, ref string) *pg.Node {
	if n == nil {
		return nil
	}
	if e := vt.replacement(n, ref); e != nil {
		return e
	}
	parser.Walk(n, func(m proto.Message) bool {
		node, ok := m.(*pg.Node)
		if !ok {
			return true
		}
		if e := vt.replacement(node, ref); e != nil {
			node.Node = e.Node
			return false
		}
		return true
	})
	return n
}

func (vt *viewTarget) replacement(n *pg.Node, ref string) *pg.Node {
	cr := n.GetColumnRef()
	if cr == nil {
		return nil
	}
	f := cr.Fields
	last := f[len(f)-1].GetString_()
	if last == nil || len(f) > 2 || len(f) == 2 && f[0].GetString_().GetSval() != ref {
		return nil
	}
	if e, ok := vt.cols[last.Sval]; ok {
		return proto.Clone(e).(*pg.Node)
	}
	return nil
}

func (vt *viewTarget) notUpdatableColumn(op, col string) error {
	verb := map[string]string{"insert": "insert into", "update": "update"}[op]
	return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot %s column \"%s\" of view \"%s\"", verb, col, vt.view.Name).
		WithDetail("View columns that are not columns of their base relation are not updatable.")
}

// returning rewrites a RETURNING list: * becomes the view's columns.
func (vt *viewTarget) returning(list []*pg.Node, ref string) []*pg.Node {
	var out []*pg.Node
	for _, t := range list {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			for _, name := range vt.order {
				out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: name, Val: proto.Clone(vt.cols[name]).(*pg.Node), Location: -1}}})
			}
			continue
		}
		if rt.Name == "" {
			rt.Name = normTargetName(rt)
		}
		rt.Val = vt.subst(rt.Val, ref)
		out = append(out, t)
	}
	return out
}

// checks carries the WITH CHECK OPTION conditions one view further down:
// those from above, rewritten in its base's terms, and its own when it
// has the option or one above has CASCADED.
func (vt *viewTarget) checks(above []viewCheck, cascaded *bool) []viewCheck {
	var out []viewCheck
	for _, k := range above {
		out = append(out, viewCheck{view: k.view, cond: vt.subst(k.cond, vt.view.Name)})
	}
	opt := vt.view.Options["check_option"]
	if opt == "cascaded" {
		*cascaded = true
	}
	if (opt != "" || *cascaded) && vt.where != nil {
		out = append(out, viewCheck{view: vt.view.Name, cond: proto.Clone(vt.where).(*pg.Node)})
	}
	return out
}

func refName(rv *pg.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

// baseTarget is the base relation as the rewritten statement's target:
// named as the view's query names it, so the substituted expressions
// resolve.
func (vt *viewTarget) baseTarget() *pg.RangeVar {
	rv := proto.Clone(vt.base).(*pg.RangeVar)
	rv.Inh = true
	return rv
}

// rewriteInsert maps an INSERT on views down to the table below them.
func (p *Planner) rewriteInsert(s *pg.InsertStmt) (*pg.InsertStmt, []viewCheck, error) {
	var checks []viewCheck
	cascaded := false
	for {
		if v, err := p.insteadView(s.Relation, catalog.TriggerTypeInsert); err != nil || v != nil {
			return s, checks, err
		}
		vt, err := p.viewTargetOf(s.Relation, "insert")
		if err != nil || vt == nil {
			return s, checks, err
		}
		ref := refName(s.Relation)
		ns := proto.Clone(s).(*pg.InsertStmt)
		ns.Relation = vt.baseTarget()
		names := vt.order
		if len(s.Cols) > 0 {
			names = nil
			for _, c := range s.Cols {
				names = append(names, c.GetResTarget().Name)
			}
		}
		ns.Cols = nil
		seen := map[string]bool{}
		for i, name := range names {
			if len(s.Cols) == 0 && !insertSetsColumn(s, i) {
				break // fewer values than view columns: only those given
			}
			if _, ok := vt.cols[name]; !ok {
				return nil, nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, vt.view.Name)
			}
			base, ok := vt.names[name]
			if !ok {
				return nil, nil, vt.notUpdatableColumn("insert", name)
			}
			if seen[base] {
				return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", base)
			}
			seen[base] = true
			ns.Cols = append(ns.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: base, Location: -1}}})
		}
		if err := p.addViewDefaults(vt, names, ns); err != nil {
			return nil, nil, err
		}
		ns.ReturningList = vt.returning(ns.ReturningList, ref)
		checks = vt.checks(checks, &cascaded)
		s = ns
	}
}

// insertSetsColumn: the INSERT without a column list gives a value for
// its i-th column (a VALUES row or SELECT with more than i entries).
func insertSetsColumn(s *pg.InsertStmt, i int) bool {
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil {
		return false
	}
	if len(sel.ValuesLists) > 0 {
		return i < len(sel.ValuesLists[0].GetList().GetItems())
	}
	if sel.Op == pg.SetOperation_SETOP_NONE {
		return i < len(sel.TargetList)
	}
	return true
}

// addViewDefaults gives the columns an INSERT … VALUES leaves out the
// view's own defaults (ALTER VIEW … ALTER COLUMN … SET DEFAULT), which
// take precedence over the base table's.
func (p *Planner) addViewDefaults(vt *viewTarget, given []string, ns *pg.InsertStmt) error {
	sel := ns.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) == 0 {
		return nil
	}
	defaults := map[string]*pg.Node{}
	for _, a := range vt.view.Attrs {
		if _, ok := vt.names[a.Name]; ok && a.Default != "" {
			tree, err := parser.Parse("SELECT " + a.Default)
			if err != nil {
				return err
			}
			defaults[a.Name] = tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	listed := map[string]bool{}
	for i := range ns.Cols {
		name := given[i]
		listed[name] = true
		if def := defaults[name]; def != nil {
			// DEFAULT for this column means the view's default.
			for _, row := range sel.ValuesLists {
				if items := row.GetList().GetItems(); i < len(items) && items[i].GetSetToDefault() != nil {
					items[i] = proto.Clone(def).(*pg.Node)
				}
			}
		}
	}
	for _, a := range vt.view.Attrs {
		def := defaults[a.Name]
		if def == nil || listed[a.Name] {
			continue
		}
		ns.Cols = append(ns.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: vt.names[a.Name], Location: -1}}})
		for _, row := range sel.ValuesLists {
			l := row.GetList()
			l.Items = append(l.Items, proto.Clone(def).(*pg.Node))
		}
	}
	return nil
}

// rewriteUpdate maps an UPDATE on views down to the table below them.
func (p *Planner) rewriteUpdate(s *pg.UpdateStmt) (*pg.UpdateStmt, []viewCheck, error) {
	var checks []viewCheck
	cascaded := false
	for {
		if v, err := p.insteadView(s.Relation, catalog.TriggerTypeUpdate); err != nil || v != nil {
			return s, checks, err
		}
		vt, err := p.viewTargetOf(s.Relation, "update")
		if err != nil || vt == nil {
			return s, checks, err
		}
		ref := refName(s.Relation)
		ns := proto.Clone(s).(*pg.UpdateStmt)
		ns.Relation = vt.baseTarget()
		seen := map[string]bool{}
		for _, t := range ns.TargetList {
			rt := t.GetResTarget()
			if _, ok := vt.cols[rt.Name]; !ok {
				return nil, nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, vt.view.Name)
			}
			base, ok := vt.names[rt.Name]
			if !ok {
				return nil, nil, vt.notUpdatableColumn("update", rt.Name)
			}
			rt.Name = base
			rt.Val = vt.subst(rt.Val, ref)
			if seen[base] {
				return nil, nil, pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", base)
			}
			seen[base] = true
		}
		ns.WhereClause = andWhere(vt.subst(ns.WhereClause, ref), vt.where)
		ns.ReturningList = vt.returning(ns.ReturningList, ref)
		checks = vt.checks(checks, &cascaded)
		s = ns
	}
}

// rewriteDelete maps a DELETE on views down to the table below them.
func (p *Planner) rewriteDelete(s *pg.DeleteStmt) (*pg.DeleteStmt, error) {
	for {
		if v, err := p.insteadView(s.Relation, catalog.TriggerTypeDelete); err != nil || v != nil {
			return s, err
		}
		vt, err := p.viewTargetOf(s.Relation, "delete")
		if err != nil || vt == nil {
			return s, err
		}
		ref := refName(s.Relation)
		ns := proto.Clone(s).(*pg.DeleteStmt)
		ns.Relation = vt.baseTarget()
		ns.WhereClause = andWhere(vt.subst(ns.WhereClause, ref), vt.where)
		ns.ReturningList = vt.returning(ns.ReturningList, ref)
		s = ns
	}
}

func andWhere(a, b *pg.Node) *pg.Node {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return proto.Clone(b).(*pg.Node)
	case b == nil:
		return a
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR,
		Args: []*pg.Node{proto.Clone(b).(*pg.Node), a}, Location: -1}}}
}

// attachViewChecks compiles the WITH CHECK OPTION conditions over the
// target table's rows (named as the rewritten statement names it).
func (p *Planner) attachViewChecks(mt *ModifyTable, target *pg.RangeVar, checks []viewCheck) error {
	if len(checks) == 0 {
		return nil
	}
	sc := &scope{p: p}
	name := refName(target)
	for i, a := range mt.Rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(name, a, a.Name, i))
	}
	for i := len(checks) - 1; i >= 0; i-- {
		e, err := p.compiler(sc).Compile(checks[i].cond)
		if err != nil {
			return err
		}
		checks[i].e = e
		mt.viewChecks = append(mt.viewChecks, checks[i])
	}
	return nil
}

// checkViewOptions enforces WITH CHECK OPTION on a new row: a condition
// that is false or NULL fails.
func (m *ModifyTable) checkViewOptions(c *Ctx, row Row) error {
	for _, k := range m.viewChecks {
		ok, err := expr.IsTrue(c.Env, k.e, row)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.Errorf(withCheckOptionViolation, "new row violates check option for view \"%s\"", k.view).
				WithDetail("Failing row contains %s.", formatRow(m.Rel, row))
		}
	}
	return nil
}

// Event bits of pg_relation_is_updatable: 1 << CMD_UPDATE, CMD_INSERT,
// CMD_DELETE.
const (
	updatableUpdate = 1 << 2
	updatableInsert = 1 << 3
	updatableDelete = 1 << 4
)

// isUpdatable is pg_relation_is_updatable(rel, include_triggers) and
// pg_column_is_updatable(rel, attnum, include_triggers): what an
// automatically updatable view (or a table) allows.
func (f *catalogFuncs) isUpdatable(name string, args []types.Datum) (types.Datum, error) {
	rel, err := f.c.Eng.Catalog.ByOID(f.c.Tx, uint32(args[0].Int()))
	if err != nil {
		return types.Null(), err
	}
	column := name == "pg_column_is_updatable"
	events, cols := 0, map[int16]bool{}
	switch {
	case rel == nil || rel.MatView || rel.Kind == catalog.KindSequence || rel.Kind == catalog.KindIndex:
	case rel.Kind == catalog.KindView:
		events, cols, err = f.viewUpdatable(rel, 0)
		if err != nil {
			return types.Null(), err
		}
	default:
		events = updatableUpdate | updatableInsert | updatableDelete
		for _, a := range rel.Attrs {
			cols[a.Num] = true
		}
	}
	if column {
		return types.Bool(events&(updatableUpdate|updatableInsert) != 0 && cols[int16(args[1].Int())]), nil
	}
	return types.Int(int64(events)), nil
}

// viewUpdatable follows a view down to its table: the events it allows
// and its columns that are columns of the table.
func (f *catalogFuncs) viewUpdatable(view *catalog.Relation, depth int) (int, map[int16]bool, error) {
	cols := map[int16]bool{}
	vt, err := analyzeView(view, "update")
	if err != nil || depth > 100 {
		return 0, cols, nil // not automatically updatable
	}
	base, err := f.c.Eng.Catalog.Lookup(f.c.Tx, vt.base.Schemaname, vt.base.Relname)
	if err != nil || base == nil || base.MatView {
		return 0, cols, err
	}
	events := updatableUpdate | updatableInsert | updatableDelete
	baseCols := map[int16]bool{}
	switch base.Kind {
	case catalog.KindView:
		if events, baseCols, err = f.viewUpdatable(base, depth+1); err != nil || events == 0 {
			return 0, cols, err
		}
	case catalog.KindTable:
		for _, a := range base.Attrs {
			baseCols[a.Num] = true
		}
	default:
		return 0, cols, nil
	}
	for _, a := range view.Attrs {
		if bn, ok := vt.names[a.Name]; ok {
			if i := base.AttrByName(bn); i >= 0 && baseCols[base.Attrs[i].Num] {
				cols[a.Num] = true
			}
		}
	}
	if len(cols) == 0 {
		events &= updatableDelete // no updatable column: only DELETE
	}
	return events, cols, nil
}
