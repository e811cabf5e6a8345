package session

// Table inheritance, as PostgreSQL 15's tablecmds.c defines it:
// CREATE TABLE … INHERITS (MergeAttributes), DROP TABLE of a table with
// children (the child depends on each parent), and ALTER TABLE … [NO]
// INHERIT (inheritalter.go has the ALTER TABLE recursion). The catalog
// side is catalog/inherit.go; queries of a parent read its children in
// exec/inherit.go.

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// tableInheritance is what a new table takes from its parents.
type tableInheritance struct {
	parents []*catalog.Relation
	// checks are the child's inherited CHECK constraints, merged by name.
	checks []*catalog.Constraint
	// partition: the new table is a partition, whose columns merge with
	// its parent's without notices.
	partition bool
}

func notice(c *exec.Ctx, format string, args ...any) {
	c.Notice(pgerr.Noticef(pgerr.SevNotice, "00000", format, args...))
}

func noticeDetail(c *exec.Ctx, detail, format string, args ...any) {
	n := pgerr.Noticef(pgerr.SevNotice, "00000", format, args...)
	n.Detail = detail
	c.Notice(n)
}

// openParents locks and checks the tables of an INHERITS list for a new
// table in namespace nsp.
func (s *Session) openParents(c *exec.Ctx, list []*pg.Node, nsp uint32, partition bool) ([]*catalog.Relation, error) {
	childTemp := s.eng.Catalog.IsTempNamespace(nsp)
	var parents []*catalog.Relation
	for _, n := range list {
		rv := n.GetRangeVar()
		// ShareUpdateExclusive, as MergeAttributes: two CREATE TABLEs
		// may inherit at once, but no ALTER changes the parent meanwhile.
		rel, err := (&exec.Planner{C: c}).OpenRelation(rv, int(xact.ShareUpdateExclusiveLock))
		if err != nil {
			return nil, err
		}
		if partition && rel.IsPartitioned() {
			if rel.IsTemp() && !childTemp {
				return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot create a permanent relation as partition of temporary relation \"%s\"", rel.Name)
			}
			if !rel.IsTemp() && childTemp {
				return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot create a temporary relation as partition of permanent relation \"%s\"", rel.Name)
			}
		} else if err := checkInheritable(c, rel, childTemp); err != nil {
			return nil, err
		}
		for _, p := range parents {
			if p.OID == rel.OID {
				return nil, pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" would be inherited from more than once", rel.Name)
			}
		}
		parents = append(parents, rel)
	}
	return parents, nil
}

// checkInheritable refuses a parent a table cannot inherit from.
func checkInheritable(c *exec.Ctx, parent *catalog.Relation, childTemp bool) error {
	if parent.IsPartitioned() {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot inherit from partitioned table \"%s\"", parent.Name)
	}
	if parent.IsPartition() {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot inherit from partition \"%s\"", parent.Name)
	}
	if parent.Kind != catalog.KindTable {
		return pgerr.Errorf(pgerr.WrongObjectType, "inherited relation \"%s\" is not a table or foreign table", parent.Name)
	}
	if parent.IsTemp() && !childTemp {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot inherit from temporary relation \"%s\"", parent.Name)
	}
	if c.Tx.IsOtherTemp(parent) {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot inherit from temporary relation of another session")
	}
	return nil
}

// mergeColumns is MergeAttributes: the parents' columns first, a column
// several parents have merged into one (same type), then the new table's
// own columns, each merged into an inherited column of its name or
// appended. pos[i] is where local column i ends up.
func (inh *tableInheritance) mergeColumns(c *exec.Ctx, local []catalog.Attr) (attrs []catalog.Attr, pos []int, err error) {
	byName := map[string]int{}
	// conflicting: inherited columns whose parents' defaults differ; an
	// error unless the new table gives a default of its own.
	conflicting := map[int]bool{}
	for _, p := range inh.parents {
		for _, pa := range p.Attrs {
			if pa.Dropped {
				continue
			}
			def := pa.Default
			if pa.Identity != 0 {
				def = "" // identity is not inherited, nor its sequence default
			}
			if i, ok := byName[pa.Name]; ok {
				notice(c, "merging multiple inherited definitions of column \"%s\"", pa.Name)
				a := &attrs[i]
				if !sameType(a.Type, pa.Type) {
					return nil, nil, pgerr.Errorf(pgerr.DatatypeMismatch, "inherited column \"%s\" has a type conflict", pa.Name).
						WithDetail("%s versus %s", a.Type, pa.Type)
				}
				a.InhCount++
				a.NotNull = a.NotNull || pa.NotNull
				if def != "" {
					if a.Default == "" && !conflicting[i] {
						a.Default, a.HasDefault = def, true
					} else if a.Default != def {
						conflicting[i] = true
					}
				}
				continue
			}
			byName[pa.Name] = len(attrs)
			attrs = append(attrs, catalog.Attr{Name: pa.Name, Type: pa.Type, NotNull: pa.NotNull || pa.Identity != 0,
				Default: def, HasDefault: def != "", Storage: pa.Storage, Compression: pa.Compression,
				InhCount: 1, InheritedOnly: true})
		}
	}
	pos = make([]int, len(local))
	for li, la := range local {
		i, ok := byName[la.Name]
		if !ok {
			pos[li] = len(attrs)
			attrs = append(attrs, la)
			continue
		}
		if inh.partition {
		} else if i == li {
			notice(c, "merging column \"%s\" with inherited definition", la.Name)
		} else {
			noticeDetail(c, "User-specified column moved to the position of the inherited column.",
				"moving and merging column \"%s\" with inherited definition", la.Name)
		}
		a := &attrs[i]
		if !sameType(a.Type, la.Type) {
			return nil, nil, pgerr.Errorf(pgerr.DatatypeMismatch, "column \"%s\" has a type conflict", la.Name).
				WithDetail("%s versus %s", a.Type, la.Type)
		}
		a.InheritedOnly = false
		a.NotNull = a.NotNull || la.NotNull
		if la.HasDefault {
			a.Default, a.HasDefault = la.Default, true
			delete(conflicting, i)
		}
		if la.Storage != 0 {
			a.Storage = la.Storage
		}
		if la.Compression != 0 {
			a.Compression = la.Compression
		}
		a.Identity = la.Identity
		pos[li] = i
	}
	for i := range attrs {
		if conflicting[i] {
			return nil, nil, pgerr.Errorf(pgerr.InvalidColumnDefinition, "column \"%s\" inherits conflicting default values", attrs[i].Name).
				WithHint("To resolve the conflict, specify a default explicitly.")
		}
	}
	return attrs, pos, nil
}

func sameType(a, b types.Type) bool { return a.OID == b.OID && a.Typmod == b.Typmod }

// mergeChecks collects the parents' inheritable CHECK constraints;
// same-named ones must have the same expression and become one.
func (inh *tableInheritance) mergeChecks() error {
	for _, p := range inh.parents {
		for _, k := range p.Constraints {
			if k.Type != catalog.ConCheck || k.NoInherit {
				continue
			}
			merged := false
			for _, have := range inh.checks {
				if have.Name != k.Name {
					continue
				}
				if have.Expr != k.Expr {
					return pgerr.Errorf(pgerr.DuplicateObject, "check constraint name \"%s\" appears multiple times but with different expressions", k.Name)
				}
				have.InhCount++
				merged = true
			}
			if !merged {
				inh.checks = append(inh.checks, &catalog.Constraint{Name: k.Name, Type: catalog.ConCheck, Validated: true,
					Expr: k.Expr, InhCount: 1, InheritedOnly: true})
			}
		}
	}
	return nil
}

// mergeLocalChecks merges the new table's named CHECK constraints into
// inherited ones of the same name (AddRelationNewConstraints'
// MergeWithExistingConstraint); it returns the constraints left to add.
func (inh *tableInheritance) mergeLocalChecks(c *exec.Ctx, table string, cons []pendingConstraint) ([]pendingConstraint, error) {
	var rest []pendingConstraint
	for _, pc := range cons {
		k := inh.checkNamed(pc.con)
		if k == nil {
			rest = append(rest, pc)
			continue
		}
		text, err := deparseExpr(pc.con.RawExpr)
		if err != nil {
			return nil, err
		}
		if err := mergeableCheck(k, text, pc.con.IsNoInherit, table); err != nil {
			return nil, err
		}
		if !inh.partition {
			notice(c, "merging constraint \"%s\" with inherited definition", k.Name)
		}
		k.InheritedOnly = false
	}
	return rest, nil
}

func (inh *tableInheritance) checkNamed(con *pg.Constraint) *catalog.Constraint {
	if con.Contype != pg.ConstrType_CONSTR_CHECK || con.Conname == "" {
		return nil
	}
	for _, k := range inh.checks {
		if k.Name == con.Conname {
			return k
		}
	}
	return nil
}

// mergeableCheck refuses to merge a CHECK (expression text, NO INHERIT
// or not) into the existing constraint k of table.
func mergeableCheck(k *catalog.Constraint, text string, noInherit bool, table string) error {
	if k.Type != catalog.ConCheck || k.Expr != text {
		return pgerr.Errorf(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", k.Name, table)
	}
	if k.NoInherit {
		return pgerr.Errorf(pgerr.InvalidObjectDefinition, "constraint \"%s\" conflicts with non-inherited constraint on relation \"%s\"", k.Name, table)
	}
	if k.InhCount > 0 && noInherit {
		return pgerr.Errorf(pgerr.InvalidObjectDefinition, "constraint \"%s\" conflicts with inherited constraint on relation \"%s\"", k.Name, table)
	}
	return nil
}

// storeInheritance records a new table's parents and inherited CHECK
// constraints (before its own constraints, as heap_create_with_catalog).
func (s *Session) storeInheritance(c *exec.Ctx, oid uint32, inh *tableInheritance) error {
	for i, p := range inh.parents {
		if err := s.eng.Catalog.AddInherit(c.Tx, oid, p.OID, i+1); err != nil {
			return err
		}
	}
	rel, err := s.eng.Catalog.ByOID(c.Tx, oid)
	if err != nil {
		return err
	}
	for _, k := range inh.checks {
		k.Namespace, k.RelID = rel.Namespace, oid
		k.Keys = checkKeys(rel, k.Expr)
		if err := s.eng.Catalog.AddConstraint(c.Tx, k); err != nil {
			return err
		}
	}
	return nil
}

// checkKeys are the columns of rel a CHECK expression (SQL text) uses.
func checkKeys(rel *catalog.Relation, text string) []int16 {
	var keys []int16
	tree, err := pg.Parse("SELECT " + text)
	if err != nil {
		return nil
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	for _, name := range columnRefs(n) {
		if i := rel.AttrByName(name); i >= 0 {
			keys = append(keys, rel.Attrs[i].Num)
		}
	}
	return keys
}

// dropInheritors handles a DROP TABLE of a table with children: each
// child depends on its parents, so the drop is refused (2BP01, with every
// dependent table in DETAIL) unless CASCADE, which drops them too. Tables
// the statement drops anyway (dropping) are not reported.
func (s *Session) dropInheritors(c *exec.Ctx, rel *catalog.Relation, dropping []*catalog.Relation, cascade bool) error {
	listed := map[uint32]bool{}
	for _, d := range dropping {
		listed[d.OID] = true
	}
	type dep struct {
		child, parent *catalog.Relation
		// auto: a partition, dropped with its parent unasked.
		auto bool
	}
	var deps []dep
	seen := map[uint32]bool{rel.OID: true}
	var walk func(p *catalog.Relation) error
	walk = func(p *catalog.Relation) error {
		kids, err := s.eng.Catalog.InheritDependents(c.Tx, p.OID)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if seen[k] {
				continue
			}
			seen[k] = true
			kr, err := s.eng.Catalog.ByOID(c.Tx, k)
			if err != nil || kr == nil {
				return err
			}
			if !listed[k] {
				deps = append(deps, dep{kr, p, kr.IsPartition() && p.IsPartitioned()})
			}
			if err := walk(kr); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(rel); err != nil || len(deps) == 0 {
		return err
	}
	var lines []string
	for _, d := range deps {
		if d.auto {
			continue
		}
		if cascade {
			lines = append(lines, "drop cascades to table "+d.child.Name)
		} else {
			lines = append(lines, fmt.Sprintf("table %s depends on table %s", d.child.Name, d.parent.Name))
		}
	}
	if !cascade && len(lines) > 0 {
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", rel.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) == 1 {
		notice(c, "%s", lines[0])
	} else if len(lines) > 1 {
		noticeDetail(c, strings.Join(lines, "\n"), "drop cascades to %d other objects", len(lines))
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	// Children before their parents (the deepest last in the list).
	for i := len(deps) - 1; i >= 0; i-- {
		if err := s.lockRel(c, deps[i].child.OID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		cur, err := s.eng.Catalog.ByOID(c.Tx, deps[i].child.OID)
		if err != nil || cur == nil {
			return err
		}
		if err := s.eng.Catalog.DropRelation(c.Tx, cur); err != nil {
			return err
		}
	}
	return nil
}

// inheritFor is CREATE TABLE's share of INHERITS: the parents, the
// merged column list (local columns renumbered, their sequences with
// them) and the constraints left to add after the inherited ones.
func (s *Session) inheritFor(c *exec.Ctx, cs *pg.CreateStmt, nsp uint32, local []catalog.Attr, seqs []*columnSequence, cons []pendingConstraint) (*tableInheritance, []catalog.Attr, []pendingConstraint, error) {
	parents, err := s.openParents(c, cs.InhRelations, nsp, cs.Partbound != nil)
	if err != nil {
		return nil, nil, nil, err
	}
	inh := &tableInheritance{parents: parents, partition: cs.Partbound != nil}
	attrs, pos, err := inh.mergeColumns(c, local)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, sq := range seqs {
		sq.attnum = int16(pos[sq.attnum-1] + 1)
	}
	if err := inh.mergeChecks(); err != nil {
		return nil, nil, nil, err
	}
	if cons, err = inh.mergeLocalChecks(c, cs.Relation.Relname, cons); err != nil {
		return nil, nil, nil, err
	}
	return inh, attrs, cons, nil
}
