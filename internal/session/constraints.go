package session

import (
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// pendingConstraint is a CHECK or FOREIGN KEY constraint of a CREATE TABLE,
// added once the table and its indexes exist. column is set for a column
// constraint.
type pendingConstraint struct {
	con    *pg.Constraint
	column string
	// inherited: a CHECK an ALTER TABLE of a parent adds to its child.
	inherited bool
}

// isTableConstraint reports whether addConstraint handles con (rather
// than an index: PRIMARY KEY, UNIQUE).
func isTableConstraint(con *pg.Constraint) bool {
	return con.Contype == pg.ConstrType_CONSTR_CHECK || con.Contype == pg.ConstrType_CONSTR_FOREIGN
}

// addConstraint adds a CHECK or FOREIGN KEY constraint to table oid.
// validate: check the rows the table already has (ALTER TABLE, unless NOT
// VALID).
func (s *Session) addConstraint(c *exec.Ctx, oid uint32, pc pendingConstraint, validate bool) error {
	rel, err := s.eng.Catalog.ByOID(c.Tx, oid)
	if err != nil {
		return err
	}
	if rel == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation with OID %d does not exist", oid)
	}
	if pc.con.Deferrable || pc.con.Initdeferred {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "deferrable constraints are not supported yet")
	}
	if pc.con.Conname != "" {
		if taken, err := s.eng.Catalog.ConstraintNameTaken(c.Tx, rel.OID, pc.con.Conname); err != nil {
			return err
		} else if taken {
			return pgerr.Errorf(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", pc.con.Conname, rel.Name)
		}
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if pc.con.Contype == pg.ConstrType_CONSTR_CHECK {
		return s.addCheck(c, rel, pc, validate)
	}
	return s.addForeignKey(c, rel, pc, validate)
}

// chooseConstraintName is PostgreSQL's ChooseConstraintName: table, the
// columns and a label joined by "_", made unique among the schema's
// constraint names with a number.
func (s *Session) chooseConstraintName(c *exec.Ctx, rel *catalog.Relation, cols []string, label string) (string, error) {
	taken, err := s.eng.Catalog.ConstraintNamesInNamespace(c.Tx, rel.Namespace)
	if err != nil {
		return "", err
	}
	parts := append([]string{rel.Name}, cols...)
	base := strings.Join(parts, "_")
	name := base + "_" + label
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("%s_%s%d", base, label, i)
	}
	return name, nil
}

// columnRefs lists the column names an expression uses, in order of
// appearance, each once.
func columnRefs(n *pg.Node) []string {
	var out []string
	seen := map[string]bool{}
	exec.WalkExpr(n, func(x *pg.Node) {
		if cr := x.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
			if sv := cr.Fields[len(cr.Fields)-1].GetString_(); sv != nil && !seen[sv.Sval] {
				seen[sv.Sval] = true
				out = append(out, sv.Sval)
			}
		}
	})
	return out
}

func (s *Session) addCheck(c *exec.Ctx, rel *catalog.Relation, pc pendingConstraint, validate bool) error {
	con := pc.con
	text, err := deparseExpr(con.RawExpr)
	if err != nil {
		return err
	}
	check, err := exec.CompileCheck(c, rel, text)
	if err != nil {
		// A position would point into the deparsed expression, not the
		// statement.
		var pe *pgerr.Error
		if errors.As(err, &pe) {
			pe.Position = 0
		}
		return err
	}
	var keys []int16
	refs := columnRefs(con.RawExpr)
	for _, name := range refs {
		if i := rel.AttrByName(name); i >= 0 {
			keys = append(keys, rel.Attrs[i].Num)
		}
	}
	name := con.Conname
	if name == "" {
		// As PostgreSQL: named after the column when the expression uses
		// exactly one (whether written as a column or table constraint).
		var cols []string
		if len(refs) == 1 {
			cols = refs
		}
		if name, err = s.chooseConstraintName(c, rel, cols, "check"); err != nil {
			return err
		}
	}
	if validate && !con.SkipValidation {
		bad := false
		err := exec.Run(c, &exec.SeqScan{Rel: rel}, func(r exec.Row) error {
			v, err := check.Eval(c.Env, r)
			if err != nil {
				return err
			}
			if !v.IsNull() && !v.Bool() {
				bad = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		if bad {
			return pgerr.Errorf(pgerr.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", name, rel.Name).
				WithConstraint(s.nspName(rel.Namespace), rel.Name, name)
		}
	}
	return s.eng.Catalog.AddConstraint(c.Tx, &catalog.Constraint{
		Name: name, Namespace: rel.Namespace, Type: catalog.ConCheck, Validated: !con.SkipValidation,
		RelID: rel.OID, Keys: keys, Expr: text, NoInherit: con.IsNoInherit,
		InhCount: map[bool]int{true: 1}[pc.inherited], InheritedOnly: pc.inherited,
	})
}

func stringList(ns []*pg.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.GetString_().Sval)
	}
	return out
}

// fkCompatible reports whether a referencing column's type can reference
// the referenced column's (PostgreSQL asks for an equality operator
// between them; tidal accepts the same type, or two integer types, or two
// string types).
func fkCompatible(a, b types.Type) bool {
	if a.OID == b.OID {
		return true
	}
	ints := map[types.OID]bool{types.Int2OID: true, types.Int4OID: true, types.Int8OID: true}
	strs := map[types.OID]bool{types.TextOID: true, types.VarcharOID: true, types.BpcharOID: true}
	return (ints[a.OID] && ints[b.OID]) || (strs[a.OID] && strs[b.OID])
}

func (s *Session) addForeignKey(c *exec.Ctx, rel *catalog.Relation, pc pendingConstraint, validate bool) error {
	con := pc.con
	fkCols := stringList(con.FkAttrs)
	if pc.column != "" {
		fkCols = []string{pc.column}
	}
	var parent *catalog.Relation
	if con.Pktable.Relname == rel.Name && (con.Pktable.Schemaname == "" || s.nspName(rel.Namespace) == con.Pktable.Schemaname) {
		parent = rel // self-reference
	} else {
		p := &exec.Planner{C: c}
		var err error
		if parent, err = p.OpenRelation(con.Pktable, int(xact.ShareRowExclusiveLock)); err != nil {
			return err
		}
		if parent.Kind != catalog.KindTable {
			return pgerr.Errorf(pgerr.WrongObjectType, "referenced relation \"%s\" is not a table", parent.Name)
		}
		if parent.IsPartitioned() {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "foreign keys referencing partitioned tables are not supported yet")
		}
		if err := checkForeignKeyPersistence(c, rel, parent); err != nil {
			return err
		}
	}
	var keys, fkeys []int16
	for _, name := range fkCols {
		i := rel.AttrByName(name)
		if i < 0 {
			return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", name)
		}
		keys = append(keys, rel.Attrs[i].Num)
	}
	pkCols := stringList(con.PkAttrs)
	if len(pkCols) == 0 {
		for _, ir := range parent.Indexes {
			if ir.Index.Primary {
				for _, k := range ir.Index.Keys {
					pkCols = append(pkCols, parent.Attrs[k-1].Name)
				}
			}
		}
		if len(pkCols) == 0 {
			return pgerr.Errorf(pgerr.UndefinedObject, "there is no primary key for referenced table \"%s\"", parent.Name)
		}
	}
	for _, name := range pkCols {
		i := parent.AttrByName(name)
		if i < 0 {
			return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", name)
		}
		fkeys = append(fkeys, parent.Attrs[i].Num)
	}
	if len(keys) != len(fkeys) {
		return pgerr.Errorf(pgerr.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	// The referenced columns must be exactly a unique index's keys.
	var index *catalog.Relation
	for _, ir := range parent.Indexes {
		if !ir.Index.Unique || len(ir.Index.Keys) != len(fkeys) {
			continue
		}
		all := true
		for _, k := range fkeys {
			found := false
			for _, ik := range ir.Index.Keys {
				found = found || ik == k
			}
			all = all && found
		}
		if all && (index == nil || parent.IndexConstraint(ir) != nil && parent.IndexConstraint(index) == nil) {
			index = ir
		}
	}
	if index == nil {
		return pgerr.Errorf(pgerr.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", parent.Name)
	}
	name := con.Conname
	if name == "" {
		var err error
		if name, err = s.chooseConstraintName(c, rel, fkCols, "fkey"); err != nil {
			return err
		}
	}
	for i := range keys {
		a, b := rel.Attrs[keys[i]-1], parent.Attrs[fkeys[i]-1]
		if !fkCompatible(a.Type, b.Type) {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", name).
				WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", a.Name, b.Name, a.Type.String(), b.Type.String())
		}
	}
	action := func(s string) (byte, error) {
		switch s {
		case "", "a":
			return catalog.FKNoAction, nil
		case "r", "c", "n", "d":
			return s[0], nil
		}
		return 0, pgerr.Errorf(pgerr.FeatureNotSupported, "foreign key action %q is not supported", s)
	}
	upd, err := action(con.FkUpdAction)
	if err != nil {
		return err
	}
	del, err := action(con.FkDelAction)
	if err != nil {
		return err
	}
	if len(con.FkDelSetCols) > 0 {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "column lists in ON DELETE SET NULL/DEFAULT are not supported yet")
	}
	match := byte(catalog.FKMatchSimple)
	switch con.FkMatchtype {
	case "f":
		match = catalog.FKMatchFull
	case "p":
		return pgerr.Errorf(pgerr.FeatureNotSupported, "MATCH PARTIAL not yet implemented")
	}
	k := &catalog.Constraint{
		Name: name, Namespace: rel.Namespace, Type: catalog.ConForeign, Validated: !con.SkipValidation,
		RelID: rel.OID, IndexID: index.OID, FRelID: parent.OID, FUpdType: upd, FDelType: del, FMatch: match,
		Keys: keys, FKeys: fkeys,
	}
	if validate && !con.SkipValidation {
		err := exec.Run(c, &exec.SeqScan{Rel: rel}, func(r exec.Row) error {
			return exec.CheckReferencedKeyExists(c, rel, k, r)
		})
		if err != nil {
			return err
		}
	}
	if err := s.eng.Catalog.AddConstraint(c.Tx, k); err != nil {
		return err
	}
	if rel.IsPartitioned() {
		return s.foreignKeyOnPartitions(c, rel, k, validate)
	}
	return nil
}

// dropConstraint is ALTER TABLE … DROP CONSTRAINT.
func (s *Session) dropConstraint(c *exec.Ctx, rel *catalog.Relation, name string, missingOk, cascade bool, w pgwire.ResultWriter) error {
	k := rel.ConstraintByName(name)
	if k == nil {
		if missingOk {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist, skipping", name, rel.Name))
			return nil
		}
		return pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, rel.Name)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if k.Type == catalog.ConPrimary || k.Type == catalog.ConUnique {
		// Foreign keys that use the index depend on it.
		var deps []*catalog.Constraint
		for _, f := range rel.ReferencedBy {
			if f.IndexID == k.IndexID {
				deps = append(deps, f)
			}
		}
		var ir *catalog.Relation
		for _, x := range rel.Indexes {
			if x.OID == k.IndexID {
				ir = x
			}
		}
		if len(deps) > 0 {
			if err := s.dropDependentFKs(c, fmt.Sprintf("constraint %s on table %s", k.Name, rel.Name), fmt.Sprintf("index %s", ir.Name), deps, cascade, c.Notice); err != nil {
				return err
			}
		}
		if err := s.eng.Catalog.DropConstraint(c.Tx, k); err != nil {
			return err
		}
		if ir != nil {
			return s.eng.Catalog.DropRelation(c.Tx, ir)
		}
		return nil
	}
	if k.Type == catalog.ConCheck && k.InhCount > 0 {
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop inherited constraint \"%s\" of relation \"%s\"", k.Name, rel.Name)
	}
	if err := s.eng.Catalog.DropConstraint(c.Tx, k); err != nil {
		return err
	}
	return s.dropChildConstraints(c, rel, k)
}

// dropDependentFKs refuses to drop what (on which the foreign keys deps
// depend through dependsOn) unless cascade, in which case it drops them
// with PostgreSQL's notices.
func (s *Session) dropDependentFKs(c *exec.Ctx, what, dependsOn string, deps []*catalog.Constraint, cascade bool, notice func(*pgerr.Error)) error {
	var lines []string
	for _, f := range deps {
		child, err := s.eng.Catalog.ByOID(c.Tx, f.RelID)
		if err != nil {
			return err
		}
		childName := fmt.Sprint(f.RelID)
		if child != nil {
			childName = child.Name
		}
		if cascade {
			lines = append(lines, fmt.Sprintf("drop cascades to constraint %s on table %s", f.Name, childName))
		} else {
			lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on %s", f.Name, childName, dependsOn))
		}
	}
	if !cascade {
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) == 1 {
		notice(pgerr.Noticef(pgerr.SevNotice, "00000", "%s", lines[0]))
	} else {
		n := pgerr.Noticef(pgerr.SevNotice, "00000", "drop cascades to %d other objects", len(lines))
		n.Detail = strings.Join(lines, "\n")
		notice(n)
	}
	for _, f := range deps {
		if err := s.eng.Catalog.DropConstraint(c.Tx, f); err != nil {
			return err
		}
	}
	return nil
}

// dropDependencies handles what depends on a relation about to be dropped
// (dropping lists every relation of the statement): foreign keys of other
// tables referencing a table (refused, or dropped with CASCADE), and the
// constraint an index enforces (always refused, as PostgreSQL does).
func (s *Session) dropDependencies(c *exec.Ctx, rel *catalog.Relation, dropping []*catalog.Relation, cascade bool, w pgwire.ResultWriter) error {
	if rel.Kind == catalog.KindIndex {
		table, err := s.eng.Catalog.ByOID(c.Tx, rel.Index.RelID)
		if err != nil || table == nil {
			return err
		}
		if k := table.IndexConstraint(rel); k != nil {
			return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", rel.Name, k.Name, table.Name).
				WithHint("You can drop constraint %s on table %s instead.", k.Name, table.Name)
		}
		return nil
	}
	cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
	if err != nil || cur == nil {
		return err
	}
	var deps []*catalog.Constraint
	for _, f := range cur.ReferencedBy {
		gone := false
		for _, d := range dropping {
			gone = gone || d.OID == f.RelID
		}
		if !gone {
			deps = append(deps, f)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	return s.dropDependentFKs(c, "table "+rel.Name, "table "+rel.Name, deps, cascade, c.Notice)
}

// truncateReferencing checks TRUNCATE's tables against the foreign keys
// that reference them: a referencing table must be truncated too, which
// CASCADE arranges (with PostgreSQL's notice). It returns the full list.
func (s *Session) truncateReferencing(c *exec.Ctx, rels []*catalog.Relation, cascade bool, w pgwire.ResultWriter) ([]*catalog.Relation, error) {
	listed := func(oid uint32) bool {
		for _, r := range rels {
			if r.OID == oid {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(rels); i++ {
		for _, f := range rels[i].ReferencedBy {
			if listed(f.RelID) {
				continue
			}
			child, err := s.eng.Catalog.ByOID(c.Tx, f.RelID)
			if err != nil {
				return nil, err
			}
			if child == nil {
				continue
			}
			if !cascade {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
					WithDetail("Table \"%s\" references \"%s\".", child.Name, rels[i].Name).
					WithHint("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", child.Name)
			}
			if err := s.lockRel(c, child.OID, xact.AccessExclusiveLock); err != nil {
				return nil, err
			}
			w.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", "truncate cascades to table \"%s\"", child.Name))
			rels = append(rels, child)
		}
	}
	return rels, nil
}

// constraintsOnDropColumn handles the constraints that involve a column
// being dropped, as PostgreSQL does: the table's own CHECK constraints
// and foreign keys using it go with it; foreign keys of other tables
// referencing it are refused, or dropped with CASCADE. (Indexes, and the
// primary key or UNIQUE constraints they enforce, are dropColumn's.)
func (s *Session) constraintsOnDropColumn(c *exec.Ctx, rel *catalog.Relation, num int16, cascade bool) error {
	uses := func(cols []int16) bool {
		for _, k := range cols {
			if k == num {
				return true
			}
		}
		return false
	}
	var deps []*catalog.Constraint
	for _, f := range rel.ReferencedBy {
		if f.RelID != rel.OID && uses(f.FKeys) {
			deps = append(deps, f)
		}
	}
	col := rel.Attrs[num-1].Name
	if len(deps) > 0 {
		what := fmt.Sprintf("column %s of table %s", col, rel.Name)
		if err := s.dropDependentFKs(c, what, what, deps, cascade, c.Notice); err != nil {
			return err
		}
	}
	for _, k := range rel.Constraints {
		if (k.Type == catalog.ConCheck && uses(k.Keys)) || (k.Type == catalog.ConForeign && (uses(k.Keys) || (k.FRelID == rel.OID && uses(k.FKeys)))) {
			if err := s.eng.Catalog.DropConstraint(c.Tx, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// renameColumnInChecks rewrites the CHECK expressions (stored as SQL
// text) of rel that use a renamed column.
func (s *Session) renameColumnInChecks(c *exec.Ctx, rel *catalog.Relation, num int16, oldName, newName string) error {
	for _, k := range rel.Constraints {
		if k.Type != catalog.ConCheck {
			continue
		}
		used := false
		for _, a := range k.Keys {
			used = used || a == num
		}
		if !used {
			continue
		}
		text, err := renameColumnRefs(k.Expr, oldName, newName)
		if err != nil {
			return err
		}
		nk := *k
		nk.Expr = text
		if err := s.eng.Catalog.UpdateConstraint(c.Tx, &nk); err != nil {
			return err
		}
	}
	return nil
}

// renameColumnRefs renames the column references old in an expression's
// SQL text.
func renameColumnRefs(text, oldName, newName string) (string, error) {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil {
		return "", err
	}
	e := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	exec.WalkExpr(e, func(n *pg.Node) {
		if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
			if sv := cr.Fields[len(cr.Fields)-1].GetString_(); sv != nil && sv.Sval == oldName {
				sv.Sval = newName
			}
		}
	})
	return deparseExpr(e)
}

// renameConstraint is ALTER TABLE … RENAME CONSTRAINT: a primary key or
// UNIQUE constraint renames its index too, as in PostgreSQL.
func (s *Session) renameConstraint(c *exec.Ctx, rel *catalog.Relation, name, newName string) error {
	k := rel.ConstraintByName(name)
	if k == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, rel.Name)
	}
	if rel.ConstraintByName(newName) != nil {
		return pgerr.Errorf(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", newName, rel.Name)
	}
	if k.Type == catalog.ConPrimary || k.Type == catalog.ConUnique {
		for _, ix := range rel.Indexes {
			if ix.OID == k.IndexID {
				if err := s.eng.Catalog.RenameRelation(c.Tx, ix, newName); err != nil {
					return err
				}
			}
		}
	}
	nk := *k
	nk.Name = newName
	return s.eng.Catalog.UpdateConstraint(c.Tx, &nk)
}

// renameIndexConstraint follows ALTER INDEX … RENAME of an index that
// enforces a constraint: the constraint takes the new name too.
func (s *Session) renameIndexConstraint(c *exec.Ctx, ix *catalog.Relation, newName string) error {
	table, err := s.eng.Catalog.ByOID(c.Tx, ix.Index.RelID)
	if err != nil || table == nil {
		return err
	}
	k := table.IndexConstraint(ix)
	if k == nil {
		return nil
	}
	nk := *k
	nk.Name = newName
	return s.eng.Catalog.UpdateConstraint(c.Tx, &nk)
}

// validateConstraint is ALTER TABLE … VALIDATE CONSTRAINT: the rows of a
// NOT VALID CHECK or foreign key are checked, and it becomes valid.
func (s *Session) validateConstraint(c *exec.Ctx, rel *catalog.Relation, name string) error {
	k := rel.ConstraintByName(name)
	if k == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, rel.Name)
	}
	if k.Type != catalog.ConCheck && k.Type != catalog.ConForeign {
		return pgerr.Errorf(pgerr.WrongObjectType, "constraint \"%s\" of relation \"%s\" is not a foreign key or check constraint", name, rel.Name)
	}
	if k.Validated {
		return nil
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	var check func(exec.Row) error
	if k.Type == catalog.ConCheck {
		e, err := exec.CompileCheck(c, rel, k.Expr)
		if err != nil {
			return err
		}
		check = func(r exec.Row) error {
			v, err := e.Eval(c.Env, r)
			if err == nil && !v.IsNull() && !v.Bool() {
				err = pgerr.Errorf(pgerr.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", k.Name, rel.Name).
					WithConstraint(s.nspName(rel.Namespace), rel.Name, k.Name)
			}
			return err
		}
	} else {
		check = func(r exec.Row) error { return exec.CheckReferencedKeyExists(c, rel, k, r) }
	}
	if err := exec.Run(c, &exec.SeqScan{Rel: rel}, check); err != nil {
		return err
	}
	nk := *k
	nk.Validated = true
	return s.eng.Catalog.UpdateConstraint(c.Tx, &nk)
}
