package exec

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"

	"sort"
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Table constraints at run time: CHECK expressions are evaluated on every
// new row version (after NOT NULL, in constraint-name order, as
// PostgreSQL's ExecConstraints); foreign keys are checked once the row is
// in the table, on the referencing side (the referenced key must exist)
// and on the referenced side (a deleted or changed key must not be
// referenced any more, or the referencing rows follow it: CASCADE, SET
// NULL).
//
// Locking, as PostgreSQL's RI triggers: the referencing side locks the
// referenced row FOR KEY SHARE (so it cannot go or change its key until
// the transaction ends, but referencing inserts and updates that keep the
// key go on); the referenced side, removing a key, locks the referencing
// rows it finds FOR KEY SHARE before it complains about them (so it waits
// for their own concurrent deletion). Referencing rows are looked for
// with a fresh snapshot, in every isolation level (detectNewRows).

// checkExprAllowed refuses what PostgreSQL refuses in a CHECK expression.
func checkExprAllowed(n *pg.Node) error {
	var err error
	WalkExpr(n, func(x *pg.Node) {
		if err != nil {
			return
		}
		if x.GetSubLink() != nil {
			err = pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use subquery in check constraint")
		} else if fc := x.GetFuncCall(); fc != nil && fc.Over != nil {
			err = pgerr.Errorf("42P20", "window functions are not allowed in check constraints")
		}
	})
	if err == nil && hasAggregates(n) {
		err = pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in check constraints")
	}
	return err
}

// WalkExpr calls fn for every node of an expression parse tree, parents
// before children, operands left to right.
func WalkExpr(n *pg.Node, fn func(*pg.Node)) {
	if n == nil {
		return
	}
	fn(n)
	all := func(ns []*pg.Node) {
		for _, x := range ns {
			WalkExpr(x, fn)
		}
	}
	switch x := n.Node.(type) {
	case *pg.Node_AExpr:
		WalkExpr(x.AExpr.Lexpr, fn)
		WalkExpr(x.AExpr.Rexpr, fn)
	case *pg.Node_BoolExpr:
		all(x.BoolExpr.Args)
	case *pg.Node_FuncCall:
		all(x.FuncCall.Args)
	case *pg.Node_TypeCast:
		WalkExpr(x.TypeCast.Arg, fn)
	case *pg.Node_NullTest:
		WalkExpr(x.NullTest.Arg, fn)
	case *pg.Node_BooleanTest:
		WalkExpr(x.BooleanTest.Arg, fn)
	case *pg.Node_List:
		all(x.List.Items)
	case *pg.Node_CoalesceExpr:
		all(x.CoalesceExpr.Args)
	case *pg.Node_CaseExpr:
		WalkExpr(x.CaseExpr.Arg, fn)
		for _, w := range x.CaseExpr.Args {
			if cw := w.GetCaseWhen(); cw != nil {
				WalkExpr(cw.Expr, fn)
				WalkExpr(cw.Result, fn)
			}
		}
		WalkExpr(x.CaseExpr.Defresult, fn)
	case *pg.Node_AArrayExpr:
		all(x.AArrayExpr.Elements)
	case *pg.Node_MinMaxExpr:
		all(x.MinMaxExpr.Args)
	case *pg.Node_SubLink:
		WalkExpr(x.SubLink.Testexpr, fn)
	}
}

// checkConstraint is a compiled CHECK constraint.
type checkConstraint struct {
	name string
	e    expr.Expr
}

// CompileCheck compiles a CHECK constraint's expression (SQL text) over a
// row of rel's columns.
func CompileCheck(c *Ctx, rel *catalog.Relation, text string) (expr.Expr, error) {
	tree, err := parser.Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if err := checkExprAllowed(sel.TargetList[0].GetResTarget().Val); err != nil {
		return nil, err
	}
	sc := &scope{}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(rel.Name, a, a.Name, i))
	}
	p := &Planner{C: c}
	e, err := p.compiler(sc).Compile(sel.TargetList[0].GetResTarget().Val)
	if err != nil {
		return nil, err
	}
	return coerceBoolArg("CHECK", e)
}

func (m *ModifyTable) prepareConstraints(c *Ctx) error {
	if err := m.prepareDomains(c); err != nil {
		return err
	}
	m.checks = m.checks[:0]
	for _, k := range m.Rel.Constraints {
		if k.Type != catalog.ConCheck {
			continue
		}
		e, err := CompileCheck(c, m.Rel, k.Expr)
		if err != nil {
			return err
		}
		m.checks = append(m.checks, checkConstraint{name: k.Name, e: e})
	}
	sort.Slice(m.checks, func(i, j int) bool { return m.checks[i].name < m.checks[j].name })
	return nil
}

// checkRow enforces the CHECK constraints on a new row version: it fails
// only when an expression is false (NULL passes).
func (m *ModifyTable) checkRow(c *Ctx, row Row) error {
	for _, k := range m.checks {
		v, err := k.e.Eval(c.Env, row)
		if err != nil {
			return err
		}
		if !v.IsNull() && !v.Bool() {
			return pgerr.Errorf(pgerr.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", m.Rel.Name, k.name).
				WithDetail("Failing row contains %s.", formatRow(m.Rel, row)).
				WithConstraint(nspName(c.Eng.Catalog, m.Rel.Namespace), m.Rel.Name, k.name)
		}
	}
	return m.checkViewOptions(c, row)
}

// keyOf returns row's values of the columns cols (attribute numbers) and
// whether any is NULL.
func keyOf(row Row, cols []int16) ([]types.Datum, bool) {
	key := make([]types.Datum, len(cols))
	null := false
	for i, a := range cols {
		key[i] = row[a-1]
		null = null || key[i].IsNull()
	}
	return key, null
}

func keysEqual(rel *catalog.Relation, a, b Row, cols []int16) bool {
	for _, k := range cols {
		x, y := a[k-1], b[k-1]
		if x.IsNull() != y.IsNull() || (!x.IsNull() && !types.Equal(rel.Attrs[k-1].Type, x, y)) {
			return false
		}
	}
	return true
}

func colNames(rel *catalog.Relation, cols []int16) string {
	names := make([]string, len(cols))
	for i, k := range cols {
		names[i] = rel.Attrs[k-1].Name
	}
	return strings.Join(names, ", ")
}

func formatKey(rel *catalog.Relation, cols []int16, key []types.Datum) string {
	parts := make([]string, len(key))
	for i, d := range key {
		if d.IsNull() {
			parts[i] = "null"
		} else {
			parts[i] = types.FormatText(rel.Attrs[cols[i]-1].Type, d)
		}
	}
	return strings.Join(parts, ", ")
}

// checkForeignKeys enforces the foreign keys of the table on a new row
// version (old: the version it replaces, nil for an insert).
func (m *ModifyTable) checkForeignKeys(c *Ctx, row, old Row) error {
	for _, k := range m.Rel.Constraints {
		if k.Type != catalog.ConForeign {
			continue
		}
		if old != nil && keysEqual(m.Rel, row, old, k.Keys) {
			continue
		}
		if err := CheckReferencedKeyExists(c, m.Rel, k, row); err != nil {
			return err
		}
	}
	return nil
}

// CheckReferencedKeyExists checks that the row of rel (the referencing
// table of foreign key k) references an existing row, and locks that key
// in share mode until the transaction ends.
func CheckReferencedKeyExists(c *Ctx, rel *catalog.Relation, k *catalog.Constraint, row Row) error {
	key, null := keyOf(row, k.Keys)
	if null {
		allNull := true
		for _, d := range key {
			allNull = allNull && d.IsNull()
		}
		if k.FMatch == catalog.FKMatchFull && !allNull {
			return pgerr.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", rel.Name, k.Name).
				WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.").
				WithConstraint(nspName(c.Eng.Catalog, rel.Namespace), rel.Name, k.Name)
		}
		return nil
	}
	parent, err := c.Eng.Catalog.ByOID(c.Tx, k.FRelID)
	if err != nil {
		return err
	}
	if parent == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation with OID %d does not exist", k.FRelID)
	}
	found, err := referencedRowExists(c, parent, k, key, false)
	if err != nil || found {
		return err
	}
	return pgerr.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", rel.Name, k.Name).
		WithDetail("Key (%s)=(%s) is not present in table \"%s\".", colNames(rel, k.Keys), formatKey(rel, k.Keys, key), parent.Name).
		WithConstraint(nspName(c.Eng.Catalog, rel.Namespace), rel.Name, k.Name)
}

func parentTypes(parent *catalog.Relation, k *catalog.Constraint) []types.Type {
	ts := make([]types.Type, len(k.FKeys))
	for i, a := range k.FKeys {
		ts[i] = parent.Attrs[a-1].Type
	}
	return ts
}

// referencedRowExists looks the key up in the referenced table's unique
// index and locks the row it finds FOR KEY SHARE, as PostgreSQL's
// RI_FKey_check does with SELECT 1 FROM pk WHERE key = $1 FOR KEY SHARE:
// the row can then not be deleted nor its key changed until the
// transaction ends, while other referencing rows and updates that keep the
// key go on. A row being deleted or key-updated is waited for. The lookup
// sees what the foreign key check's snapshot sees (riTxn); detectNewRows
// asks for the latest snapshot in REPEATABLE READ too.
func referencedRowExists(c *Ctx, parent *catalog.Relation, k *catalog.Constraint, key []types.Datum, detectNewRows bool) (bool, error) {
	var ir *catalog.Relation
	for _, x := range parent.Indexes {
		if x.OID == k.IndexID {
			ir = x
		}
	}
	if ir == nil {
		return false, pgerr.Errorf(pgerr.InternalError, "index %d of foreign key \"%s\" is missing", k.IndexID, k.Name)
	}
	// The index's key order may differ from the constraint's.
	ikey := make([]types.Datum, len(ir.Index.Keys))
	for i, a := range ir.Index.Keys {
		for j, f := range k.FKeys {
			if f == a {
				ikey[i] = key[j]
			}
		}
	}
	tids, err := indexEqualTIDs(c, parent, ir, ikey)
	if err != nil {
		return false, err
	}
	tx, err := riTxn(c, detectNewRows)
	if err != nil {
		return false, err
	}
	matches := keyMatcher(parent, k.FKeys, key)
	for _, tid := range tids {
		t, vtid, found, err := parent.Table.Fetch(c.U(), tx, tid)
		if err != nil {
			return false, err
		}
		if !found {
			continue
		}
		if ok, err := matches(t); err != nil || !ok {
			if err != nil {
				return false, err
			}
			continue
		}
		if ok, err := lockKeyShare(c, tx, parent, vtid, matches); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// checkReferencedBy enforces the foreign keys that reference the table
// when the row version old is deleted (row nil) or replaced by row.
func (m *ModifyTable) checkReferencedBy(c *Ctx, old, row Row) error {
	for _, k := range m.Rel.ReferencedBy {
		if row != nil && keysEqual(m.Rel, row, old, k.FKeys) {
			continue
		}
		key, null := keyOf(old, k.FKeys)
		if null {
			continue
		}
		child, err := c.Eng.Catalog.ByOID(c.Tx, k.RelID)
		if err != nil {
			return err
		}
		if child == nil {
			continue
		}
		action := k.FDelType
		if row != nil {
			action = k.FUpdType
		}
		refs, err := referencingRows(c, child, k, key)
		if err == nil && !cascades(action) {
			refs, err = lockReferencing(c, child, k, key, refs)
		}
		if err != nil || len(refs) == 0 {
			return err
		}
		switch action {
		case catalog.FKNoAction:
			// Checked again when the statement ends: by then the
			// referencing rows may be gone, or the key back.
			m.defer_(deferredRefCheck{k: k, parent: m.Rel, child: child, key: key})
		case catalog.FKCascade, catalog.FKSetNull, catalog.FKSetDefault:
			if err := m.cascade(c, child, k, action, refs, row); err != nil {
				return err
			}
		default:
			return stillReferenced(c, m.Rel, child, k, key)
		}
	}
	return nil
}

func stillReferenced(c *Ctx, parent, child *catalog.Relation, k *catalog.Constraint, key []types.Datum) error {
	return pgerr.Errorf(pgerr.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", parent.Name, k.Name, child.Name).
		WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", colNames(parent, k.FKeys), formatKey(parent, k.FKeys, key), child.Name).
		WithConstraint(nspName(c.Eng.Catalog, child.Namespace), child.Name, k.Name)
}

// deferredRefCheck is a NO ACTION check of a removed referenced key.
type deferredRefCheck struct {
	k             *catalog.Constraint
	parent, child *catalog.Relation
	key           []types.Datum
}

func (m *ModifyTable) defer_(d deferredRefCheck) {
	q := m.queue()
	q.events = append(q.events, d)
}

// fire makes a NO ACTION check at the end of the statement: a removed
// key is an error if rows still reference it and no row has taken the
// key back.
func (d deferredRefCheck) fire(c *Ctx) error {
	back, err := referencedRowExists(c, d.parent, d.k, d.key, true)
	if err != nil || back {
		return err
	}
	refs, err := referencingRows(c, d.child, d.k, d.key)
	if err == nil {
		refs, err = lockReferencing(c, d.child, d.k, d.key, refs)
	}
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return stillReferenced(c, d.parent, d.child, d.k, d.key)
	}
	return nil
}

// referencingRows are child's rows (with their TIDs last) whose foreign
// key k equals key, seen with a fresh snapshot that also sees the current
// command's changes. An index of child that leads with the key's columns
// is used when there is one; otherwise the table is scanned (as
// PostgreSQL, whose users index referencing columns for this reason).
func referencingRows(c *Ctx, child *catalog.Relation, k *catalog.Constraint, key []types.Datum) ([]Row, error) {
	tx, err := riTxn(c, true)
	if err != nil {
		return nil, err
	}
	def := child.NewDeformer()
	natts := len(child.Attrs)
	var out []Row
	consider := func(t tableam.Tuple, tid page.ItemPointer) error {
		row := make(Row, natts+1)
		if err := def.Deform(t, row[:natts]); err != nil {
			return err
		}
		for i, a := range k.Keys {
			d := row[a-1]
			if d.IsNull() || !types.Equal(child.Attrs[a-1].Type, d, key[i]) {
				return nil
			}
		}
		row[natts] = TIDDatum(tid)
		out = append(out, row)
		return nil
	}
	if ir, ikey := leadingIndex(child, k.Keys, key); ir != nil {
		cur := IndexHandle(c.Eng, child, ir).ScanEqual(c.U(), ikey)
		var tids []page.ItemPointer
		for {
			tid, _, ok, err := cur.Next()
			if err != nil {
				cur.Close()
				return nil, err
			}
			if !ok {
				break
			}
			tids = append(tids, tid)
		}
		cur.Close()
		for _, tid := range tids {
			t, vtid, found, err := child.Table.Fetch(c.U(), tx, tid)
			if err != nil {
				return nil, err
			}
			if found {
				if err := consider(t, vtid); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	scan, err := child.Table.BeginScan(c.U(), tx, tableam.ScanOptions{})
	if err != nil {
		return nil, err
	}
	defer scan.Close()
	for {
		t, tid, ok, err := scan.Next()
		if err != nil || !ok {
			return out, err
		}
		if err := consider(t, tid); err != nil {
			return nil, err
		}
	}
}

// leadingIndex finds an index of rel whose leading columns are cols (in
// any order) and returns it with key arranged in its column order.
func leadingIndex(rel *catalog.Relation, cols []int16, key []types.Datum) (*catalog.Relation, []types.Datum) {
	for _, ir := range rel.Indexes {
		if len(ir.Index.Keys) < len(cols) {
			continue
		}
		ikey := make([]types.Datum, len(cols))
		ok := true
		for i, a := range ir.Index.Keys[:len(cols)] {
			j := -1
			for x, c := range cols {
				if c == a {
					j = x
				}
			}
			if j < 0 {
				ok = false
				break
			}
			ikey[i] = key[j]
		}
		if ok {
			return ir, ikey
		}
	}
	return nil, nil
}

// cascade applies a referential action to the referencing rows refs of
// child: ON DELETE/UPDATE CASCADE deletes them or copies the new key into
// them; SET NULL and SET DEFAULT set their key columns.
func (m *ModifyTable) cascade(c *Ctx, child *catalog.Relation, k *catalog.Constraint, action byte, refs []Row, row Row) error {
	kind := "Delete"
	if action != catalog.FKCascade || row != nil {
		kind = "Update"
	}
	cm := &ModifyTable{Kind: kind, Rel: child, after: m.queue()}
	cm.deformer = child.NewDeformer()
	if err := cm.prepareConstraints(c); err != nil {
		return err
	}
	natts := len(child.Attrs)
	if kind == "Update" {
		cm.NewRow = make([]expr.Expr, natts)
		for i, a := range child.Attrs {
			cm.NewRow[i] = &expr.Var{Index: i, T: a.Type, Name: a.Name}
		}
		for i, a := range k.Keys {
			var e expr.Expr
			switch action {
			case catalog.FKCascade:
				e = &expr.Const{Val: row[k.FKeys[i]-1], T: child.Attrs[a-1].Type}
			case catalog.FKSetNull:
				e = &expr.Const{Val: types.Null(), T: child.Attrs[a-1].Type}
			default:
				var err error
				if e, err = (&Planner{C: c}).defaultExpr(child.Attrs[a-1]); err != nil {
					return err
				}
			}
			cm.NewRow[a-1] = e
		}
	}
	for _, r := range refs {
		var err error
		if kind == "Delete" {
			_, _, err = cm.delete(c, r)
		} else {
			_, _, _, err = cm.update(c, r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// constraintError names the table and constraint in a unique violation
// from index ix of rel (PostgreSQL's errtableconstraint): the index layer
// knows neither the table nor its schema.
func constraintError(c *Ctx, err error, rel *catalog.Relation, ix string) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Code == pgerr.UniqueViolation && pe.TableName == "" {
		pe.WithConstraint(nspName(c.Eng.Catalog, rel.Namespace), rel.Name, ix)
	}
	return err
}
