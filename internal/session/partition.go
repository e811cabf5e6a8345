package session

// Declarative partitioning DDL, as PostgreSQL 15's tablecmds.c: CREATE
// TABLE … PARTITION BY (the key, catalog/partition.go) and … PARTITION OF
// parent FOR VALUES … | DEFAULT (a child of the parent, through the
// inheritance code, with a bound checked against its siblings'),
// ALTER TABLE … ATTACH / DETACH PARTITION, and the indexes a partition
// takes from its parent. exec/partition*.go has the bound logic, tuple
// routing and pruning.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// newPartition is what CREATE TABLE … PARTITION OF has checked before
// the table exists.
type newPartition struct {
	parent    *catalog.Relation
	bound     string
	isDefault bool
}

// partitionParent opens and checks the parent of CREATE TABLE …
// PARTITION OF and the new partition's bound.
func (s *Session) partitionParent(c *exec.Ctx, cs *pg.CreateStmt, temp bool) (*newPartition, error) {
	if len(cs.InhRelations) != 1 {
		return nil, pgerr.Errorf(pgerr.InvalidTableDefinition, "a partition has exactly one parent")
	}
	rv := cs.InhRelations[0].GetRangeVar()
	parent, err := (&exec.Planner{C: c}).OpenRelation(rv, int(xact.AccessExclusiveLock))
	if err != nil {
		return nil, err
	}
	if !parent.IsPartitioned() {
		if parent.Kind != catalog.KindTable {
			return nil, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table", parent.Name)
		}
		return nil, pgerr.Errorf(pgerr.InvalidObjectDefinition, "\"%s\" is not partitioned", parent.Name)
	}
	if parent.IsTemp() && !temp {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot create a permanent relation as partition of temporary relation \"%s\"", parent.Name)
	}
	if !parent.IsTemp() && temp {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "cannot create a temporary relation as partition of permanent relation \"%s\"", parent.Name)
	}
	bound, def, err := exec.NewPartitionBound(c, parent, cs.Relation.Relname, cs.Partbound)
	if err != nil {
		return nil, err
	}
	return &newPartition{parent: parent, bound: bound, isDefault: def}, nil
}

// partitionColumnType is the type of column name of a partition's parent
// (a PARTITION OF column list names columns without types).
func partitionColumnType(np *newPartition, name string) (types.Type, error) {
	if np != nil {
		if i := np.parent.AttrByName(name); i >= 0 {
			return np.parent.Attrs[i].Type, nil
		}
	}
	return types.Type{}, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
}

// storePartitioning finishes CREATE TABLE of table oid: its partition key
// (PARTITION BY) and its bound in its parent (PARTITION OF), with the
// indexes the parent's partitions all have.
func (s *Session) storePartitioning(c *exec.Ctx, oid uint32, cs *pg.CreateStmt, np *newPartition) error {
	if cs.Partspec != nil {
		rel, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return err
		}
		k, err := exec.PartitionKeyFromSpec(c, rel, cs.Partspec, deparseExpr)
		if err != nil {
			return err
		}
		if err := s.eng.Catalog.AddPartitionKey(c.Tx, oid, k); err != nil {
			return err
		}
	}
	if np == nil {
		return nil
	}
	return s.becomePartition(c, oid, np)
}

// becomePartition records table oid as a partition of np.parent (the
// pg_inherits row exists) and gives it the parent's indexes.
func (s *Session) becomePartition(c *exec.Ctx, oid uint32, np *newPartition) error {
	if err := s.eng.Catalog.SetPartitionBound(c.Tx, oid, np.bound); err != nil {
		return err
	}
	if np.isDefault {
		if err := s.eng.Catalog.SetDefaultPartition(c.Tx, np.parent.OID, oid); err != nil {
			return err
		}
	} else if def := exec.DefaultPartitionOf(np.parent); def != 0 {
		if err := s.validateDefaultPartition(c, def); err != nil {
			return err
		}
	}
	if err := s.cloneParentIndexes(c, np.parent, oid); err != nil {
		return err
	}
	if err := s.cloneParentTriggers(c, np.parent, oid); err != nil {
		return err
	}
	return s.cloneParentForeignKeys(c, np.parent, oid)
}

// validateDefaultPartition fails when a row of default partition def
// belongs to a partition just added.
func (s *Session) validateDefaultPartition(c *exec.Ctx, def uint32) error {
	rel, err := s.eng.Catalog.ByOID(c.Tx, def)
	if err != nil || rel == nil {
		return err
	}
	return exec.ValidatePartitionRows(c, rel, func() error {
		return pgerr.Errorf(pgerr.CheckViolation, "updated partition constraint for default partition \"%s\" would be violated by some row", rel.Name)
	})
}

// cloneParentIndexes gives partition oid an index like each of parent's
// (PostgreSQL attaches an existing equivalent index instead of making a
// new one; so does this).
func (s *Session) cloneParentIndexes(c *exec.Ctx, parent *catalog.Relation, oid uint32) error {
	for _, ix := range parent.Indexes {
		rel, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || rel == nil {
			return err
		}
		var cols []string
		for _, k := range ix.Index.Keys {
			cols = append(cols, parent.Attrs[k-1].Name)
		}
		if hasIndexOn(rel, cols, ix.Index.Unique) {
			continue
		}
		constraint := false
		for _, k := range parent.Constraints {
			if k.IndexID == ix.OID && (k.Type == catalog.ConPrimary || k.Type == catalog.ConUnique) {
				constraint = true
			}
		}
		sp := indexSpec{cols: cols, unique: ix.Index.Unique, primary: ix.Index.Primary, constraint: constraint}
		if !constraint && !ix.Index.Primary {
			sp.name = ""
		}
		if err := s.addIndex(c, oid, sp, false); err != nil {
			return err
		}
	}
	return nil
}

func hasIndexOn(rel *catalog.Relation, cols []string, unique bool) bool {
	for _, ix := range rel.Indexes {
		if ix.Index.Unique != unique || len(ix.Index.Keys) != len(cols) {
			continue
		}
		same := true
		for i, k := range ix.Index.Keys {
			if rel.Attrs[k-1].Name != cols[i] {
				same = false
			}
		}
		if same {
			return true
		}
	}
	return false
}

// partitionedIndex checks an index to be made on partitioned table rel:
// a unique one must include every key column.
func partitionedIndexCheck(rel *catalog.Relation, sp indexSpec) error {
	if !rel.IsPartitioned() || !sp.unique {
		return nil
	}
	for i, a := range rel.PartKey.Attrs {
		if a == 0 {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "unsupported %s constraint with partition key definition", constraintWord(sp)).
				WithDetail("%s constraints cannot be used when partition keys include expressions.", constraintWord(sp))
		}
		found := false
		for _, col := range sp.cols {
			if col == rel.Attrs[a-1].Name {
				found = true
			}
		}
		if !found {
			what := constraintWord(sp) + " constraint"
			if !sp.constraint {
				what = "UNIQUE constraint"
			}
			_ = i
			return pgerr.Errorf(pgerr.FeatureNotSupported, "unique constraint on partitioned table must include all partitioning columns").
				WithDetail("%s on table \"%s\" lacks column \"%s\" which is part of the partition key.", what, rel.Name, rel.Attrs[a-1].Name)
		}
	}
	return nil
}

func constraintWord(sp indexSpec) string {
	if sp.primary {
		return "PRIMARY KEY"
	}
	return "UNIQUE"
}

// indexPartitions makes index ioid of partitioned table rel a partitioned
// index and builds one like it on each partition.
func (s *Session) indexPartitions(c *exec.Ctx, rel *catalog.Relation, ioid uint32, sp indexSpec) error {
	if err := s.eng.Catalog.SetPartitionedIndex(c.Tx, ioid); err != nil {
		return err
	}
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		kr, err := s.eng.Catalog.ByOID(c.Tx, k)
		if err != nil || kr == nil {
			return err
		}
		if hasIndexOn(kr, sp.cols, sp.unique) {
			continue
		}
		child := indexSpec{cols: sp.cols, unique: sp.unique, primary: sp.primary, constraint: sp.constraint}
		if err := s.addIndex(c, k, child, false); err != nil {
			return err
		}
	}
	return nil
}

// attachPartition is ALTER TABLE parent ATTACH PARTITION name FOR VALUES
// …: the table must match the parent's columns, and its rows the bound.
func (s *Session) attachPartition(c *exec.Ctx, parent *catalog.Relation, cmd *pg.PartitionCmd, w pgwire.ResultWriter) error {
	if !parent.IsPartitioned() {
		return pgerr.Errorf(pgerr.WrongObjectType, "table \"%s\" is not partitioned", parent.Name)
	}
	rel, err := (&exec.Planner{C: c}).OpenRelation(cmd.Name, int(xact.AccessExclusiveLock))
	if err != nil {
		return err
	}
	if rel.Kind != catalog.KindTable {
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table", rel.Name)
	}
	if rel.IsPartition() {
		p, _ := s.eng.Catalog.ByOID(c.Tx, rel.Parents[0])
		pname := "?"
		if p != nil {
			pname = p.Name
		}
		return pgerr.Errorf("55006", "\"%s\" is already a partition of \"%s\"", rel.Name, pname)
	}
	if len(rel.Parents) > 0 {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot attach inheritance child as partition")
	}
	if rel.OID == parent.OID {
		return pgerr.Errorf(pgerr.DuplicateTable, "cannot attach a table to itself")
	}
	if anc, err := s.eng.Catalog.AllInheritors(c.Tx, rel.OID); err != nil {
		return err
	} else {
		for _, a := range anc {
			if a == parent.OID {
				return pgerr.Errorf(pgerr.DuplicateTable, "circular inheritance not allowed").
					WithDetail("\"%s\" is already a child of \"%s\".", parent.Name, rel.Name)
			}
		}
		if len(anc) > 1 && !rel.IsPartitioned() {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot attach inheritance parent as partition")
		}
	}
	if rel.IsTemp() != parent.IsTemp() {
		if parent.IsTemp() {
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot attach a permanent relation as partition of temporary relation \"%s\"", parent.Name)
		}
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot attach a temporary relation as partition of permanent relation \"%s\"", parent.Name)
	}
	if err := attachColumnsMatch(parent, rel); err != nil {
		return err
	}
	bound, def, err := exec.NewPartitionBound(c, parent, rel.Name, cmd.Bound)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.eng.Catalog.AddInherit(c.Tx, rel.OID, parent.OID, 1); err != nil {
		return err
	}
	for _, a := range rel.Attrs {
		if a.Dropped {
			continue
		}
		if err := s.eng.Catalog.SetColumnInheritance(c.Tx, rel.OID, a.Num, a.InhCount+1, false); err != nil {
			return err
		}
	}
	np := &newPartition{parent: parent, bound: bound, isDefault: def}
	if err := s.eng.Catalog.SetPartitionBound(c.Tx, rel.OID, bound); err != nil {
		return err
	}
	cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
	if err != nil || cur == nil {
		return err
	}
	if err := exec.ValidatePartitionRows(c, cur, func() error {
		return pgerr.Errorf(pgerr.CheckViolation, "partition constraint of relation \"%s\" is violated by some row", rel.Name)
	}); err != nil {
		return err
	}
	if def {
		if err := s.eng.Catalog.SetDefaultPartition(c.Tx, parent.OID, rel.OID); err != nil {
			return err
		}
	} else if d := exec.DefaultPartitionOf(parent); d != 0 {
		if err := s.validateDefaultPartition(c, d); err != nil {
			return err
		}
	}
	if err := s.cloneParentIndexes(c, np.parent, rel.OID); err != nil {
		return err
	}
	if err := s.cloneParentTriggers(c, np.parent, rel.OID); err != nil {
		return err
	}
	return s.cloneParentForeignKeys(c, np.parent, rel.OID)
}

// attachColumnsMatch: a table attached as a partition has exactly the
// parent's columns, by name and type.
func attachColumnsMatch(parent, rel *catalog.Relation) error {
	for _, a := range rel.Attrs {
		if a.Dropped {
			continue
		}
		i := parent.AttrByName(a.Name)
		if i < 0 {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "table \"%s\" contains column \"%s\" not found in parent \"%s\"", rel.Name, a.Name, parent.Name).
				WithDetail("The new partition may contain only the columns present in parent.")
		}
		if !sameType(parent.Attrs[i].Type, a.Type) {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "child table \"%s\" has different type for column \"%s\"", rel.Name, a.Name)
		}
	}
	for _, pa := range parent.Attrs {
		if pa.Dropped {
			continue
		}
		i := rel.AttrByName(pa.Name)
		if i < 0 {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "child table is missing column \"%s\"", pa.Name)
		}
		if pa.NotNull && !rel.Attrs[i].NotNull {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "column \"%s\" in child table must be marked NOT NULL", pa.Name)
		}
	}
	return nil
}

// detachPartition is ALTER TABLE parent DETACH PARTITION name.
func (s *Session) detachPartition(c *exec.Ctx, parent *catalog.Relation, cmd *pg.PartitionCmd) error {
	if !parent.IsPartitioned() {
		return pgerr.Errorf(pgerr.WrongObjectType, "table \"%s\" is not partitioned", parent.Name)
	}
	if cmd.Concurrent {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "DETACH PARTITION CONCURRENTLY is not supported yet")
	}
	rel, err := (&exec.Planner{C: c}).OpenRelation(cmd.Name, int(xact.AccessExclusiveLock))
	if err != nil {
		return err
	}
	if !rel.IsPartition() || len(rel.Parents) != 1 || rel.Parents[0] != parent.OID {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" is not a partition of relation \"%s\"", rel.Name, parent.Name)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.eng.Catalog.RemoveInherit(c.Tx, rel.OID, parent.OID); err != nil {
		return err
	}
	for _, a := range rel.Attrs {
		if a.Dropped || a.InhCount == 0 {
			continue
		}
		if err := s.eng.Catalog.SetColumnInheritance(c.Tx, rel.OID, a.Num, a.InhCount-1, false); err != nil {
			return err
		}
	}
	if rel.PartBound == "DEFAULT" {
		if err := s.eng.Catalog.SetDefaultPartition(c.Tx, parent.OID, 0); err != nil {
			return err
		}
	}
	if err := s.dropClonedTriggers(c, rel); err != nil {
		return err
	}
	return s.eng.Catalog.SetPartitionBound(c.Tx, rel.OID, "")
}

// truncateDescendants are the tables TRUNCATE of rel (without ONLY)
// empties besides rel: its partitions or inheritance children, locked.
func (s *Session) truncateDescendants(c *exec.Ctx, rel *catalog.Relation) ([]*catalog.Relation, error) {
	oids, err := s.eng.Catalog.AllInheritors(c.Tx, rel.OID)
	if err != nil {
		return nil, err
	}
	var out []*catalog.Relation
	for _, oid := range oids[1:] {
		if err := s.lockRel(c, oid, xact.AccessExclusiveLock); err != nil {
			return nil, err
		}
		kr, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return nil, err
		}
		if kr != nil && !c.Tx.IsOtherTemp(kr) {
			out = append(out, kr)
		}
	}
	return out, nil
}

// alterPartitionCmd runs the ALTER TABLE subcommands of partitioning.
func (s *Session) alterPartitionCmd(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd, w pgwire.ResultWriter) (bool, error) {
	switch ac.Subtype {
	case pg.AlterTableType_AT_AttachPartition:
		cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
		if err != nil {
			return true, err
		}
		return true, s.attachPartition(c, cur, ac.Def.GetPartitionCmd(), w)
	case pg.AlterTableType_AT_DetachPartition:
		cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
		if err != nil {
			return true, err
		}
		return true, s.detachPartition(c, cur, ac.Def.GetPartitionCmd())
	case pg.AlterTableType_AT_DetachPartitionFinalize:
		return true, pgerr.Errorf(pgerr.FeatureNotSupported, "DETACH PARTITION … FINALIZE is not supported yet")
	}
	return false, nil
}

// foreignKeyOnPartitions gives each partition of rel a copy of rel's
// foreign key k (PostgreSQL clones it, under the same name where it is
// free), so rows routed to a partition are checked, and referenced rows
// are looked for there.
func (s *Session) foreignKeyOnPartitions(c *exec.Ctx, rel *catalog.Relation, k *catalog.Constraint, validate bool) error {
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	for _, oid := range kids {
		if err := s.cloneForeignKey(c, rel, oid, k, validate); err != nil {
			return err
		}
	}
	return nil
}

// cloneForeignKey adds foreign key k of parent to partition oid.
func (s *Session) cloneForeignKey(c *exec.Ctx, parent *catalog.Relation, oid uint32, k *catalog.Constraint, validate bool) error {
	ref, err := s.eng.Catalog.ByOID(c.Tx, k.FRelID)
	if err != nil || ref == nil {
		return err
	}
	con := &pg.Constraint{Contype: pg.ConstrType_CONSTR_FOREIGN, Conname: k.Name, SkipValidation: !k.Validated,
		Pktable:     &pg.RangeVar{Relname: ref.Name, Schemaname: s.nspName(ref.Namespace), Inh: true},
		FkUpdAction: string(rune(k.FUpdType)), FkDelAction: string(rune(k.FDelType)), FkMatchtype: "s"}
	if k.FMatch == catalog.FKMatchFull {
		con.FkMatchtype = "f"
	}
	for _, a := range k.Keys {
		con.FkAttrs = append(con.FkAttrs, pg.MakeStrNode(parent.Attrs[a-1].Name))
	}
	for _, a := range k.FKeys {
		con.PkAttrs = append(con.PkAttrs, pg.MakeStrNode(ref.Attrs[a-1].Name))
	}
	if taken, err := s.eng.Catalog.ConstraintNameTaken(c.Tx, oid, k.Name); err != nil {
		return err
	} else if taken {
		con.Conname = ""
	}
	return s.addConstraint(c, oid, pendingConstraint{con: con}, validate)
}

// cloneParentForeignKeys gives a new partition its parent's foreign keys.
func (s *Session) cloneParentForeignKeys(c *exec.Ctx, parent *catalog.Relation, oid uint32) error {
	for _, k := range parent.Constraints {
		if k.Type != catalog.ConForeign {
			continue
		}
		if err := s.cloneForeignKey(c, parent, oid, k, true); err != nil {
			return err
		}
	}
	return nil
}

// addTableConstraint is ALTER TABLE … ADD CONSTRAINT of a CHECK or
// FOREIGN KEY. A CHECK reaches the table's children too (inheritance
// children and partitions, as PostgreSQL's ATAddCheckConstraint), unless
// NO INHERIT or ONLY (refused for a partitioned table).
func (s *Session) addTableConstraint(c *exec.Ctx, rel *catalog.Relation, con *pg.Constraint, recurse bool) error {
	if con.Contype == pg.ConstrType_CONSTR_CHECK && con.IsNoInherit && rel.IsPartitioned() {
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot add NO INHERIT constraint to partitioned table \"%s\"", rel.Name)
	}
	if con.Contype != pg.ConstrType_CONSTR_CHECK || con.IsNoInherit {
		return s.addConstraint(c, rel.OID, pendingConstraint{con: con}, true)
	}
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	if len(kids) > 0 && !recurse && rel.IsPartitioned() {
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "constraint must be added to child tables too")
	}
	if len(kids) == 0 || !recurse {
		return s.addConstraint(c, rel.OID, pendingConstraint{con: con}, true)
	}
	named := proto.Clone(con).(*pg.Constraint)
	if named.Conname == "" {
		var cols []string
		if refs := columnRefs(con.RawExpr); len(refs) == 1 {
			cols = refs
		}
		if named.Conname, err = s.chooseConstraintName(c, rel, cols, "check"); err != nil {
			return err
		}
	}
	if err := s.addConstraint(c, rel.OID, pendingConstraint{con: named}, true); err != nil {
		return err
	}
	return s.addCheckToChildren(c, kids, named)
}

func (s *Session) addCheckToChildren(c *exec.Ctx, kids []uint32, con *pg.Constraint) error {
	for _, oid := range kids {
		if err := s.addConstraint(c, oid, pendingConstraint{con: con, inherited: true}, true); err != nil {
			return err
		}
		grand, err := s.eng.Catalog.InheritChildren(c.Tx, oid)
		if err != nil {
			return err
		}
		if err := s.addCheckToChildren(c, grand, con); err != nil {
			return err
		}
	}
	return nil
}

// dropChildConstraints follows ALTER TABLE … DROP CONSTRAINT of k on rel
// to its children: an inherited CHECK loses one parent (and goes when it
// has none left and is not the child's own); a partition's copy of a
// partitioned table's foreign key goes.
func (s *Session) dropChildConstraints(c *exec.Ctx, rel *catalog.Relation, k *catalog.Constraint) error {
	if k.Type != catalog.ConCheck && !(k.Type == catalog.ConForeign && rel.IsPartitioned()) {
		return nil
	}
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	for _, oid := range kids {
		kr, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || kr == nil {
			return err
		}
		ck := kr.ConstraintByName(k.Name)
		if ck == nil || ck.Type != k.Type {
			continue
		}
		if k.Type == catalog.ConCheck && ck.InhCount > 1 {
			ck.InhCount--
			if err := s.eng.Catalog.UpdateConstraint(c.Tx, ck); err != nil {
				return err
			}
			continue
		}
		if k.Type == catalog.ConCheck && !ck.InheritedOnly {
			ck.InhCount = 0
			if err := s.eng.Catalog.UpdateConstraint(c.Tx, ck); err != nil {
				return err
			}
			continue
		}
		if err := s.eng.Catalog.DropConstraint(c.Tx, ck); err != nil {
			return err
		}
		if err := s.dropChildConstraints(c, kr, ck); err != nil {
			return err
		}
	}
	return nil
}

// checkPartitionedCreate refuses what CREATE TABLE … PARTITION BY may not
// combine with.
func checkPartitionedCreate(cs *pg.CreateStmt) error {
	if cs.Partspec == nil {
		return nil
	}
	if len(cs.InhRelations) > 0 && cs.Partbound == nil {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot create partitioned table as inheritance child")
	}
	noInherit := func(con *pg.Constraint) error {
		if con != nil && con.Contype == pg.ConstrType_CONSTR_CHECK && con.IsNoInherit {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot add NO INHERIT constraint to partitioned table \"%s\"", cs.Relation.Relname)
		}
		if con != nil && con.Contype == pg.ConstrType_CONSTR_EXCLUSION {
			return pgerr.Errorf(pgerr.WrongObjectType, "exclusion constraints are not supported on partitioned tables")
		}
		return nil
	}
	for _, el := range cs.TableElts {
		if err := noInherit(el.GetConstraint()); err != nil {
			return err
		}
		if cd := el.GetColumnDef(); cd != nil {
			for _, n := range cd.Constraints {
				if err := noInherit(n.GetConstraint()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// LIKE options (PostgreSQL's CREATE_TABLE_LIKE_* bits).
const (
	likeConstraints = 1 << 2
	likeDefaults    = 1 << 3
)

// tableLike is CREATE TABLE … (LIKE source …): source's columns with
// their types and NOT NULL, with INCLUDING DEFAULTS their defaults, with
// INCLUDING CONSTRAINTS their CHECK constraints. (Indexes, identity,
// storage and comments are not copied.)
func (s *Session) tableLike(c *exec.Ctx, tl *pg.TableLikeClause) ([]catalog.Attr, []pendingConstraint, error) {
	src, err := (&exec.Planner{C: c}).OpenRelation(tl.Relation, int(xact.AccessShareLock))
	if err != nil {
		return nil, nil, err
	}
	var attrs []catalog.Attr
	for _, a := range src.Attrs {
		if a.Dropped {
			continue
		}
		na := catalog.Attr{Name: a.Name, Type: a.Type, NotNull: a.NotNull, Storage: a.Storage, Compression: a.Compression}
		if tl.Options&likeDefaults != 0 && a.HasDefault && a.Identity == 0 {
			na.Default, na.HasDefault = a.Default, true
		}
		attrs = append(attrs, na)
	}
	var cons []pendingConstraint
	if tl.Options&likeConstraints != 0 {
		for _, k := range src.Constraints {
			if k.Type != catalog.ConCheck {
				continue
			}
			tree, err := pg.Parse("SELECT " + k.Expr)
			if err != nil {
				return nil, nil, err
			}
			raw := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
			cons = append(cons, pendingConstraint{con: &pg.Constraint{Contype: pg.ConstrType_CONSTR_CHECK, Conname: k.Name,
				RawExpr: raw, IsNoInherit: k.NoInherit, SkipValidation: !k.Validated}})
		}
	}
	return attrs, cons, nil
}

// alterColumnRecursive runs the column subcommands of ALTER TABLE that
// reach a table's children (partitions and inheritance children, as
// PostgreSQL's ATSimpleRecursion / ATExecAddColumn / ATExecDropColumn):
// ADD COLUMN, DROP COLUMN, SET / DROP NOT NULL and ALTER COLUMN TYPE.
// handled is false for other subcommands, and for a table without
// children.
func (s *Session) alterColumnRecursive(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd, recurse bool) (bool, error) {
	switch ac.Subtype {
	case pg.AlterTableType_AT_AddColumn, pg.AlterTableType_AT_DropColumn, pg.AlterTableType_AT_SetNotNull,
		pg.AlterTableType_AT_DropNotNull, pg.AlterTableType_AT_AlterColumnType:
	default:
		return false, nil
	}
	if err := partitionColumnRules(rel, ac); err != nil {
		return true, err
	}
	kids, err := s.eng.Catalog.InheritChildren(c.Tx, rel.OID)
	if err != nil || len(kids) == 0 {
		return err != nil, err
	}
	if !recurse {
		switch ac.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			return true, pgerr.Errorf(pgerr.InvalidTableDefinition, "column must be added to child tables too")
		case pg.AlterTableType_AT_AlterColumnType:
			return true, pgerr.Errorf(pgerr.InvalidTableDefinition, "type of inherited column \"%s\" must be changed in child tables too", ac.Name)
		case pg.AlterTableType_AT_DropColumn:
			if rel.IsPartitioned() {
				return true, pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop column from only the partitioned table when partitions exist").
					WithHint("Do not specify the ONLY keyword.")
			}
		}
		return false, nil
	}
	if handled, err := s.alterColumnCmd(c, rel, ac); err != nil || !handled {
		return handled, err
	}
	for _, oid := range kids {
		kr, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || kr == nil {
			return true, err
		}
		if err := s.alterChildColumn(c, kr, ac); err != nil {
			return true, err
		}
	}
	return true, nil
}

// alterChildColumn applies a recursed column subcommand to child kr (and
// its own children).
func (s *Session) alterChildColumn(c *exec.Ctx, kr *catalog.Relation, ac *pg.AlterTableCmd) error {
	switch ac.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		cd := ac.Def.GetColumnDef()
		if i := kr.AttrByName(cd.Colname); i >= 0 {
			a := kr.Attrs[i]
			if !sameType(a.Type, mustType(cd)) {
				return pgerr.Errorf(pgerr.DatatypeMismatch, "child table \"%s\" has different type for column \"%s\"", kr.Name, cd.Colname)
			}
			if !kr.IsPartition() {
				notice(c, "merging definition of column \"%s\" for child \"%s\"", cd.Colname, kr.Name)
			}
			return s.eng.Catalog.SetColumnInheritance(c.Tx, kr.OID, a.Num, a.InhCount+1, a.InheritedOnly)
		}
		if _, err := s.alterColumnCmd(c, kr, ac); err != nil {
			return err
		}
		cur, err := s.eng.Catalog.ByOID(c.Tx, kr.OID)
		if err != nil || cur == nil {
			return err
		}
		i := cur.AttrByName(cd.Colname)
		if err := s.eng.Catalog.SetColumnInheritance(c.Tx, cur.OID, cur.Attrs[i].Num, 1, true); err != nil {
			return err
		}
		kr = cur
	case pg.AlterTableType_AT_DropColumn:
		i := kr.AttrByName(ac.Name)
		if i < 0 {
			return nil
		}
		if a := kr.Attrs[i]; a.InhCount > 1 || !a.InheritedOnly {
			return s.eng.Catalog.SetColumnInheritance(c.Tx, kr.OID, a.Num, a.InhCount-1, false)
		}
		if _, err := s.alterColumnCmd(c, kr, ac); err != nil {
			return err
		}
	default:
		if kr.AttrByName(ac.Name) < 0 {
			return nil
		}
		if _, err := s.alterColumnCmd(c, kr, ac); err != nil {
			return err
		}
	}
	grand, err := s.eng.Catalog.InheritChildren(c.Tx, kr.OID)
	if err != nil {
		return err
	}
	for _, oid := range grand {
		g, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil || g == nil {
			return err
		}
		if err := s.alterChildColumn(c, g, ac); err != nil {
			return err
		}
	}
	return nil
}

func mustType(cd *pg.ColumnDef) types.Type {
	t, _ := expr.TypeFromName(cd.TypeName)
	return t
}

// partitionColumnRules refuses the column changes partitioning forbids:
// on a partition, adding or dropping a column or dropping an inherited
// NOT NULL; on a partitioned table, dropping or retyping a key column.
func partitionColumnRules(rel *catalog.Relation, ac *pg.AlterTableCmd) error {
	if ac.Subtype == pg.AlterTableType_AT_DropColumn && !rel.IsPartition() {
		if i := rel.AttrByName(ac.Name); i >= 0 && rel.Attrs[i].InhCount > 0 {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop inherited column \"%s\"", ac.Name)
		}
	}
	if rel.IsPartition() {
		switch ac.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			return pgerr.Errorf(pgerr.WrongObjectType, "cannot add column to a partition")
		case pg.AlterTableType_AT_DropColumn:
			if i := rel.AttrByName(ac.Name); i >= 0 && rel.Attrs[i].InhCount > 0 {
				return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop inherited column \"%s\"", ac.Name)
			}
		case pg.AlterTableType_AT_AlterColumnType:
			if i := rel.AttrByName(ac.Name); i >= 0 && rel.Attrs[i].InhCount > 0 {
				return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot alter inherited column \"%s\"", ac.Name)
			}
		}
	}
	if !rel.IsPartitioned() {
		return nil
	}
	i := rel.AttrByName(ac.Name)
	if i < 0 {
		return nil
	}
	inKey := false
	for _, a := range rel.PartKey.Attrs {
		inKey = inKey || a == rel.Attrs[i].Num
	}
	for _, e := range rel.PartKey.Exprs {
		if tree, err := pg.Parse("SELECT " + e); err == nil {
			for _, name := range columnRefs(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val) {
				inKey = inKey || name == ac.Name
			}
		}
	}
	if !inKey {
		return nil
	}
	switch ac.Subtype {
	case pg.AlterTableType_AT_DropColumn:
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "cannot drop column \"%s\" because it is part of the partition key of relation \"%s\"", ac.Name, rel.Name)
	case pg.AlterTableType_AT_AlterColumnType:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot alter column \"%s\" because it is part of the partition key of relation \"%s\"", ac.Name, rel.Name)
	}
	return nil
}
