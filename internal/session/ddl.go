package session

import (
	"fmt"
	"github.com/tidal-db/tidal/internal/acl"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/vacuum"
	"github.com/tidal-db/tidal/internal/xact"
)

func smgrRel(n uint32) smgr.RelFileNumber { return smgr.RelFileNumber(n) }

// deparseExpr renders an expression parse tree back to SQL text (column
// defaults are stored as text).
func deparseExpr(n *pg.Node) (string, error) {
	castSequenceArgs(n)
	tree := &pg.ParseResult{Version: 170007, Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
	}}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(s, "SELECT "), nil
}

func (s *Session) lockRel(c *exec.Ctx, oid uint32, mode xact.LockMode) error {
	return s.eng.Xact.Lock(c.Context, s.proc, xact.RelationTag(oid), mode, false)
}

func (s *Session) assignXid(c *exec.Ctx) error {
	xid, err := s.eng.Xact.AssignXid(s.proc)
	c.Tx.Heap.Xid = xid
	return err
}

// columnConstraint applies a column constraint that CREATE TABLE and ALTER
// TABLE ADD COLUMN treat alike to the new column a: NULL/NOT NULL and
// DEFAULT change a, PRIMARY KEY and UNIQUE add an index to build, CHECK
// and FOREIGN KEY a constraint to add once the column exists. handled is
// false for a kind the caller must deal with (or refuse).
func columnConstraint(con *pg.Constraint, column string, a *catalog.Attr, idx *[]indexSpec, cons *[]pendingConstraint) (handled bool, err error) {
	switch con.Contype {
	case pg.ConstrType_CONSTR_NOTNULL:
		a.NotNull = true
	case pg.ConstrType_CONSTR_NULL:
	case pg.ConstrType_CONSTR_DEFAULT:
		txt, err := deparseExpr(con.RawExpr)
		if err != nil {
			return true, err
		}
		a.Default, a.HasDefault = txt, true
	case pg.ConstrType_CONSTR_PRIMARY:
		a.NotNull = true
		*idx = append(*idx, indexSpec{name: con.Conname, cols: []string{column}, unique: true, primary: true, constraint: true})
	case pg.ConstrType_CONSTR_UNIQUE:
		*idx = append(*idx, indexSpec{name: con.Conname, cols: []string{column}, unique: true, constraint: true})
	case pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN:
		*cons = append(*cons, pendingConstraint{con: con, column: column})
	default:
		return false, nil
	}
	return true, nil
}

type indexSpec struct {
	name    string
	cols    []string
	unique  bool
	primary bool
	// constraint: the index enforces a PRIMARY KEY or UNIQUE constraint
	// (a pg_constraint row), not just CREATE UNIQUE INDEX.
	constraint bool
	// options: the index's storage parameters (WITH (...)), checked.
	options map[string]string
}

func (s *Session) createTable(c *exec.Ctx, cs *pg.CreateStmt, w pgwire.ResultWriter) error {
	if cs.OfTypename != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "typed tables are not supported yet")
	}
	rv := cs.Relation
	nsp, err := s.namespaceFor(c, rv)
	if err != nil {
		return err
	}
	if err := checkOnCommit(cs.Oncommit, s.eng.Catalog.IsTempNamespace(nsp)); err != nil {
		return err
	}
	if existing, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname); err != nil {
		return err
	} else if existing != nil && existing.Namespace == nsp {
		if cs.IfNotExists {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname))
			return w.CommandComplete("CREATE TABLE")
		}
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
	}
	if err := checkPartitionedCreate(cs); err != nil {
		return err
	}
	var np *newPartition
	if cs.Partbound != nil {
		if np, err = s.partitionParent(c, cs, s.eng.Catalog.IsTempNamespace(nsp)); err != nil {
			return err
		}
	}
	var attrs []catalog.Attr
	var idx []indexSpec
	var cons []pendingConstraint
	var colSeqs []*columnSequence
	seqNames := map[string]bool{}
	seen := map[string]bool{}
	for _, el := range cs.TableElts {
		if cd := el.GetColumnDef(); cd != nil {
			if seen[cd.Colname] {
				return pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
			}
			seen[cd.Colname] = true
			var t types.Type
			var domain uint32
			serial := false
			if cd.TypeName == nil {
				t, err = partitionColumnType(np, cd.Colname)
				if err != nil {
					return err
				}
			} else if t, serial = serialType(cd.TypeName); !serial {
				if t, domain, err = s.columnType(c, cd.TypeName); err != nil {
					return err
				}
			}
			if types.Category(t) == 'P' {
				// record, void…: no storage format (CREATE TABLE AS of a ROW() too)
				return pgerr.Errorf(pgerr.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", cd.Colname, t)
			}
			if cd.CollClause != nil {
				if err := expr.CheckCollation(cd.CollClause.Collname); err != nil {
					return err
				}
			}
			a := catalog.Attr{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull, Domain: domain}
			if err := columnToastOptions(cd, &a); err != nil {
				return err
			}
			var identity *pg.Constraint
			for _, cn := range cd.Constraints {
				con := cn.GetConstraint()
				switch con.Contype {
				case pg.ConstrType_CONSTR_IDENTITY:
					if identity != nil {
						return pgerr.Errorf(pgerr.SyntaxError, "multiple identity specifications for column \"%s\" of table \"%s\"", cd.Colname, rv.Relname)
					}
					identity = con
				default:
					handled, err := columnConstraint(con, cd.Colname, &a, &idx, &cons)
					if err != nil {
						return err
					}
					if !handled {
						return pgerr.Errorf(pgerr.FeatureNotSupported, "constraint type %s is not supported yet", con.Contype)
					}
				}
			}
			colSeq, err := s.columnSequenceFor(c, nsp, rv.Relname, int16(len(attrs)+1), &a, serial, identity, seqNames)
			if err != nil {
				return err
			}
			if colSeq != nil {
				colSeqs = append(colSeqs, colSeq)
			}
			attrs = append(attrs, a)
			continue
		}
		if tl := el.GetTableLikeClause(); tl != nil {
			like, likeCons, err := s.tableLike(c, tl)
			if err != nil {
				return err
			}
			for _, a := range like {
				if seen[a.Name] {
					return pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", a.Name)
				}
				seen[a.Name] = true
				attrs = append(attrs, a)
			}
			cons = append(cons, likeCons...)
			continue
		}
		if con := el.GetConstraint(); con != nil {
			if isTableConstraint(con) {
				cons = append(cons, pendingConstraint{con: con})
				continue
			}
			spec, err := constraintIndex(con)
			if err != nil {
				return err
			}
			idx = append(idx, spec)
			continue
		}
		return pgerr.Errorf(pgerr.FeatureNotSupported, "this table element is not supported yet")
	}
	var inh *tableInheritance
	if len(cs.InhRelations) > 0 {
		if inh, attrs, cons, err = s.inheritFor(c, cs, nsp, attrs, colSeqs, cons); err != nil {
			return err
		}
	}
	if len(attrs) > 1600 {
		return pgerr.Errorf(pgerr.TooManyColumns, "tables can have at most 1600 columns")
	}
	opts := map[string]string{}
	for _, o := range cs.Options {
		de := o.GetDefElem()
		k, v, err := relOption(de)
		if err != nil {
			return err
		}
		opts[k] = v
	}
	am, err := s.newTableAM(cs.AccessMethod)
	if err != nil {
		return err
	}
	// Validate defaults now so a bad one fails CREATE TABLE, not INSERT.
	if err := s.assignXid(c); err != nil {
		return err
	}
	oid, err := s.eng.Catalog.CreateTable(c.Tx, nsp, rv.Relname, attrs, opts, am)
	if err != nil {
		return err
	}
	s.noteOnCommit(c, oid, cs.Oncommit)
	if inh != nil {
		if err := s.storeInheritance(c, oid, inh); err != nil {
			return err
		}
	}
	if err := s.storePartitioning(c, oid, cs, np); err != nil {
		return err
	}
	if err := s.createColumnSequences(c, nsp, oid, colSeqs); err != nil {
		return err
	}
	for _, a := range attrs {
		for _, sp := range idx {
			for _, col := range sp.cols {
				_ = col
				_ = a
			}
		}
	}
	// As in PostgreSQL: CHECK constraints come with the table, then the
	// indexes, then the foreign keys (which may need those indexes).
	for _, fk := range []bool{false, true} {
		for _, pc := range cons {
			if (pc.con.Contype == pg.ConstrType_CONSTR_FOREIGN) == fk {
				if err := s.addConstraint(c, oid, pc, false); err != nil {
					return err
				}
			}
		}
		if fk {
			break
		}
		for _, sp := range idx {
			if err := s.addIndex(c, oid, sp, false); err != nil {
				return err
			}
		}
	}
	return w.CommandComplete("CREATE TABLE")
}

func defInt(de *pg.DefElem) int {
	if de.Arg == nil {
		return 0
	}
	if i := de.Arg.GetInteger(); i != nil {
		return int(i.Ival)
	}
	if ac := de.Arg.GetAConst(); ac != nil && ac.GetIval() != nil {
		return int(ac.GetIval().Ival)
	}
	if sv := de.Arg.GetString_(); sv != nil {
		var n int
		fmt.Sscanf(sv.Sval, "%d", &n)
		return n
	}
	return 0
}

func constraintIndex(con *pg.Constraint) (indexSpec, error) {
	if con.Indexname != "" {
		return indexSpec{}, existingIndexInCreateTable(con)
	}
	var cols []string
	for _, k := range con.Keys {
		cols = append(cols, k.GetString_().Sval)
	}
	switch con.Contype {
	case pg.ConstrType_CONSTR_PRIMARY:
		return indexSpec{name: con.Conname, cols: cols, unique: true, primary: true, constraint: true}, nil
	case pg.ConstrType_CONSTR_UNIQUE:
		return indexSpec{name: con.Conname, cols: cols, unique: true, constraint: true}, nil
	}
	return indexSpec{}, pgerr.Errorf(pgerr.FeatureNotSupported, "constraint type %s is not supported yet", strings.TrimPrefix(con.Contype.String(), "CONSTR_"))
}

// addIndex creates and builds an index on table oid.
func (s *Session) addIndex(c *exec.Ctx, tableOID uint32, sp indexSpec, ifNotExists bool) error {
	rel, err := s.eng.Catalog.ByOID(c.Tx, tableOID)
	if err != nil {
		return err
	}
	if rel == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation with OID %d does not exist", tableOID)
	}
	var keys []int16
	for _, col := range sp.cols {
		i := rel.AttrByName(col)
		if i < 0 {
			return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", col)
		}
		keys = append(keys, int16(i+1))
	}
	if err := partitionedIndexCheck(rel, sp); err != nil {
		return err
	}
	if sp.primary {
		for _, ix := range rel.Indexes {
			if ix.Index.Primary {
				return pgerr.Errorf(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", rel.Name)
			}
		}
	}
	name := sp.name
	if name == "" {
		switch {
		case sp.primary:
			name = rel.Name + "_pkey"
		case sp.unique:
			name = rel.Name + "_" + strings.Join(sp.cols, "_") + "_key"
		default:
			name = rel.Name + "_" + strings.Join(sp.cols, "_") + "_idx"
		}
		name = s.uniqueName(c, rel.Namespace, name)
	}
	if existing, err := s.eng.Catalog.LookupIn(c.Tx, rel.Namespace, name); err != nil {
		return err
	} else if existing != nil {
		if ifNotExists {
			c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateTable, "relation \"%s\" already exists, skipping", name))
			return nil
		}
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if sp.primary {
		// Existing rows must not hold NULLs in the key.
		for _, k := range keys {
			if !rel.Attrs[k-1].NotNull {
				if err := s.checkNoNulls(c, rel, int(k-1)); err != nil {
					return err
				}
			}
		}
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	ioid, err := s.eng.Catalog.CreateIndex(c.Tx, rel, name, keys, sp.unique, sp.primary)
	if err != nil {
		return err
	}
	if sp.constraint {
		kind := byte(catalog.ConUnique)
		if sp.primary {
			kind = catalog.ConPrimary
		}
		if err := s.eng.Catalog.AddConstraint(c.Tx, &catalog.Constraint{Name: name, Namespace: rel.Namespace, Type: kind,
			Validated: true, RelID: rel.OID, IndexID: ioid, Keys: keys}); err != nil {
			return err
		}
	}
	rel, err = s.eng.Catalog.ByOID(c.Tx, tableOID)
	if err != nil {
		return err
	}
	var ir *catalog.Relation
	for _, x := range rel.Indexes {
		if x.OID == ioid {
			ir = x
		}
	}
	if ir == nil {
		return fmt.Errorf("index %q vanished after creation", name)
	}
	if len(sp.options) > 0 {
		if err := s.eng.Catalog.SetRelOptions(c.Tx, ir, sp.options); err != nil {
			return err
		}
		ir.Options = sp.options
	}
	if err := exec.BuildIndex(c, rel, ir); err != nil {
		return err
	}
	if rel.IsPartitioned() {
		return s.indexPartitions(c, rel, ioid, sp)
	}
	return nil
}

func (s *Session) checkNoNulls(c *exec.Ctx, rel *catalog.Relation, col int) error {
	sc := &exec.SeqScan{Rel: rel}
	found := false
	err := exec.Run(c, sc, func(r exec.Row) error {
		if r[col].IsNull() {
			found = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if found {
		return pgerr.Errorf(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", rel.Attrs[col].Name, rel.Name).
			WithColumn(s.nspName(rel.Namespace), rel.Name, rel.Attrs[col].Name)
	}
	return nil
}

func (s *Session) uniqueName(c *exec.Ctx, nsp uint32, base string) string {
	name := base
	for i := 1; ; i++ {
		r, err := s.eng.Catalog.LookupIn(c.Tx, nsp, name)
		if err != nil || r == nil {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

func (s *Session) createIndex(c *exec.Ctx, is *pg.IndexStmt, w pgwire.ResultWriter) error {
	if is.AccessMethod != "" && is.AccessMethod != "btree" {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "access method \"%s\" is not supported yet", is.AccessMethod)
	}
	if is.WhereClause != nil {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "partial indexes are not supported yet")
	}
	if is.Concurrent {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE INDEX CONCURRENTLY is not supported yet")
	}
	p := &exec.Planner{C: c}
	if v, err := s.eng.Catalog.Lookup(c.Tx, is.Relation.Schemaname, is.Relation.Relname); err == nil && v != nil && v.Kind == catalog.KindView {
		return pgerr.Errorf(pgerr.WrongObjectType, "cannot create index on relation \"%s\"", v.Name).
			WithDetail("This operation is not supported for views.")
	}
	rel, err := p.OpenRelation(is.Relation, int(xact.ShareLock))
	if err != nil {
		return err
	}
	if err := s.requireRelOwner(c, rel); err != nil {
		return err
	}
	if c.Tx.IsOtherTemp(rel) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot create indexes on temporary tables of other sessions")
	}
	var cols []string
	for _, e := range is.IndexParams {
		ie := e.GetIndexElem()
		if ie.Name == "" {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "expression indexes are not supported yet")
		}
		if ie.Ordering != pg.SortByDir_SORTBY_DEFAULT && ie.Ordering != pg.SortByDir_SORTBY_ASC {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "DESC index columns are not supported yet")
		}
		cols = append(cols, ie.Name)
	}
	if len(is.IndexIncludingParams) > 0 {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "INCLUDE columns are not supported yet")
	}
	opts, err := indexRelOptions(is.Options)
	if err != nil {
		return err
	}
	if err := s.addIndex(c, rel.OID, indexSpec{name: is.Idxname, cols: cols, unique: is.Unique, primary: is.Primary, options: opts}, is.IfNotExists); err != nil {
		return err
	}
	return w.CommandComplete("CREATE INDEX")
}

func (s *Session) drop(c *exec.Ctx, ds *pg.DropStmt, w pgwire.ResultWriter) error {
	var kind byte
	var tag, what string
	if isRoutineObject(ds.RemoveType) {
		return s.dropRoutines(c, ds, w)
	}
	if ds.RemoveType == pg.ObjectType_OBJECT_DOMAIN || ds.RemoveType == pg.ObjectType_OBJECT_TYPE {
		return s.dropTypes(c, ds, w)
	}
	if ds.RemoveType == pg.ObjectType_OBJECT_SCHEMA {
		return s.dropSchemas(c, ds, w)
	}
	if ds.RemoveType == pg.ObjectType_OBJECT_TRIGGER {
		return s.dropTrigger(c, ds, w)
	}
	switch ds.RemoveType {
	case pg.ObjectType_OBJECT_TABLE:
		kind, tag, what = catalog.KindTable, "DROP TABLE", "table"
	case pg.ObjectType_OBJECT_INDEX:
		kind, tag, what = catalog.KindIndex, "DROP INDEX", "index"
	case pg.ObjectType_OBJECT_SEQUENCE:
		kind, tag, what = catalog.KindSequence, "DROP SEQUENCE", "sequence"
	case pg.ObjectType_OBJECT_VIEW:
		kind, tag, what = catalog.KindView, "DROP VIEW", "view"
	case pg.ObjectType_OBJECT_MATVIEW:
		kind, tag, what = catalog.KindMatView, "DROP MATERIALIZED VIEW", "materialized view"
	default:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "DROP %s is not supported yet", strings.TrimPrefix(ds.RemoveType.String(), "OBJECT_"))
	}
	var rels []*catalog.Relation
	for _, o := range ds.Objects {
		var parts []string
		for _, n := range o.GetList().Items {
			parts = append(parts, n.GetString_().Sval)
		}
		schema, name := "", parts[len(parts)-1]
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		rel, err := s.eng.Catalog.Lookup(c.Tx, schema, name)
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.InvalidSchemaName && ds.MissingOk {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", schema))
			continue
		}
		if err != nil {
			return err
		}
		if rel == nil {
			if ds.MissingOk {
				w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedTable, "%s \"%s\" does not exist, skipping", what, name))
				continue
			}
			return pgerr.Errorf(pgerr.UndefinedTable, "%s \"%s\" does not exist", what, qualName(schema, name))
		}
		if relKind(rel) != kind {
			return wrongDropKind(rel, name, what)
		}
		if rel.Namespace == catalog.PgCatalogNamespace {
			return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", name)
		}
		if err := s.requireRelOwner(c, rel); err != nil {
			return err
		}
		if rel.Kind == catalog.KindSequence {
			if err := s.checkSequenceDrop(c, rel, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
				return err
			}
		}
		if rel.IsTemp() {
			c.Tx.AccessedTemp = true
		}
		rels = append(rels, rel)
	}
	for _, rel := range rels {
		lockOID := rel.OID
		if rel.Kind == catalog.KindIndex {
			lockOID = rel.Index.RelID
		}
		if err := s.lockRel(c, lockOID, xact.AccessExclusiveLock); err != nil {
			return err
		}
		if err := s.dropDependentViews(c, rel, rels, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return err
		}
		if err := s.dropDependencies(c, rel, rels, ds.Behavior == pg.DropBehavior_DROP_CASCADE, w); err != nil {
			return err
		}
		if rel.Kind == catalog.KindTable {
			if err := s.dropInheritors(c, rel, rels, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
				return err
			}
		}
		if err := s.lockOwnedSequences(c, rel); err != nil {
			return err
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID); err != nil {
			return err
		} else if cur != nil {
			rel = cur
		}
		if err := s.eng.Catalog.DropRelation(c.Tx, rel); err != nil {
			return err
		}
	}
	return w.CommandComplete(tag)
}

func qualName(schema, name string) string {
	if schema != "" {
		return schema + "." + name
	}
	return name
}

func (s *Session) alterTable(c *exec.Ctx, at *pg.AlterTableStmt, w pgwire.ResultWriter) error {
	if err := s.checkSetAccessMethodTarget(c, at); err != nil {
		return err
	}
	if v, err := s.lockedView(c, at.Relation); err != nil || v != nil {
		if err == nil {
			err = s.requireRelOwner(c, v)
		}
		if err != nil {
			return err
		}
		return s.alterView(c, v, at, w)
	}
	p := &exec.Planner{C: c}
	rel, err := p.OpenRelation(at.Relation, int(xact.AccessExclusiveLock))
	if err == nil {
		err = checkOtherTemp(c, rel, "alter")
	}
	if err == nil {
		err = s.requireRelOwner(c, rel)
	}
	if err != nil {
		if at.MissingOk && pgerr.Code(err) == pgerr.UndefinedTable {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedTable, "relation \"%s\" does not exist, skipping", at.Relation.Relname))
			return w.CommandComplete("ALTER TABLE")
		}
		if pe, ok := err.(*pgerr.Error); ok {
			pe.Position = 0 // PostgreSQL's ALTER TABLE points at nothing
		}
		return err
	}
	if rel.MatView || at.Objtype == pg.ObjectType_OBJECT_VIEW || at.Objtype == pg.ObjectType_OBJECT_MATVIEW {
		return s.alterView(c, rel, at, w)
	}
	amChanged := false
	for _, cmd := range at.Cmds {
		ac := cmd.GetAlterTableCmd()
		switch ac.Subtype {
		case pg.AlterTableType_AT_SetAccessMethod:
			changed, err := s.setAccessMethod(c, rel, ac.Name, amChanged)
			if err != nil {
				return err
			}
			amChanged = amChanged || changed
		case pg.AlterTableType_AT_AddConstraint, pg.AlterTableType_AT_AddIndex:
			con := ac.Def.GetConstraint()
			if con == nil {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "this ALTER TABLE form is not supported yet")
			}
			if isTableConstraint(con) {
				if err := s.addTableConstraint(c, rel, con, at.Relation.Inh); err != nil {
					return err
				}
				continue
			}
			if con.Indexname != "" {
				if err := s.addConstraintUsingIndex(c, rel, con); err != nil {
					return err
				}
				break
			}
			spec, err := constraintIndex(con)
			if err != nil {
				return err
			}
			if err := s.addIndex(c, rel.OID, spec, false); err != nil {
				return err
			}
		case pg.AlterTableType_AT_ValidateConstraint:
			cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
			if err != nil {
				return err
			}
			if err := s.validateConstraint(c, cur, ac.Name); err != nil {
				return err
			}
		case pg.AlterTableType_AT_DropConstraint:
			cur, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
			if err != nil {
				return err
			}
			if err := s.dropConstraint(c, cur, ac.Name, ac.MissingOk, ac.Behavior == pg.DropBehavior_DROP_CASCADE, w); err != nil {
				return err
			}
		case pg.AlterTableType_AT_ChangeOwner:
			if err := s.setRelOwner(c, rel, ac.Newowner); err != nil {
				return err
			}
		default:
			handled, err := s.alterPartitionCmd(c, rel, ac, w)
			if err == nil && !handled {
				handled, err = s.alterTriggerCmd(c, rel, ac)
			}
			if err == nil && !handled {
				handled, err = s.alterColumnRecursive(c, rel, ac, at.Relation.Inh)
			}
			if err == nil && !handled {
				handled, err = s.alterIdentityCmd(c, rel, ac)
			}
			if err == nil && !handled {
				handled, err = s.alterColumnCmd(c, rel, ac)
			}
			if err == nil && !handled {
				handled, err = s.alterToastCmd(c, rel, ac)
			}
			if err != nil {
				return err
			}
			if !handled {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER TABLE %s is not supported yet", strings.TrimPrefix(ac.Subtype.String(), "AT_"))
			}
		}
		// The next subcommand sees the table as this one left it.
		if rel, err = s.eng.Catalog.ByOID(c.Tx, rel.OID); err != nil {
			return err
		}
	}
	return w.CommandComplete("ALTER TABLE")
}

// vacuum handles VACUUM and ANALYZE.
func (s *Session) vacuum(c *exec.Ctx, vs *pg.VacuumStmt, w pgwire.ResultWriter) error {
	analyze := !vs.IsVacuumcmd
	processToast := true
	o := vacuum.Options{IndexCleanup: "auto", Truncate: true, Parallel: -1}
	ringSet := false
	for _, opt := range vs.Options {
		de := opt.GetDefElem()
		switch de.Defname {
		case "analyze", "verbose", "freeze", "truncate", "skip_locked", "disable_page_skipping", "process_toast", "process_main", "skip_database_stats", "only_database_stats":
			b, err := defBool(de)
			if err != nil {
				return err
			}
			switch de.Defname {
			case "analyze":
				analyze = analyze || b
			case "verbose":
				o.Verbose = b
			case "freeze":
				o.Freeze = b
			case "truncate":
				o.Truncate = b
			case "process_toast":
				processToast = b
			}
		case "full":
			if b, _ := defBool(de); b {
				return pgerr.Errorf(pgerr.FeatureNotSupported, "VACUUM FULL is not supported yet")
			}
		case "index_cleanup":
			v := "on"
			if de.Arg != nil {
				v = strings.ToLower(defString(de))
			}
			switch v {
			case "auto", "on", "off", "true", "false":
				o.IndexCleanup = map[string]string{"true": "on", "false": "off"}[v]
				if o.IndexCleanup == "" {
					o.IndexCleanup = v
				}
			default:
				return pgerr.Errorf(pgerr.InvalidParameterValue, "index_cleanup requires a Boolean value or \"auto\"")
			}
		case "parallel":
			if de.Arg == nil {
				return pgerr.Errorf(pgerr.SyntaxError, "parallel option requires a value between 0 and 1024")
			}
			n := defInt(de)
			if n < 0 || n > 1024 {
				return pgerr.Errorf(pgerr.SyntaxError, "parallel workers for vacuum must be between 0 and 1024")
			}
			o.Parallel = n
		case "buffer_usage_limit":
			d, _ := guc.Lookup("vacuum_buffer_usage_limit")
			v, err := d.Normalize(defString(de))
			if err != nil {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "BUFFER_USAGE_LIMIT option must be 0 or between 128 kB and 16777216 kB")
			}
			kb, _ := strconv.Atoi(v)
			if kb != 0 && (kb < 128 || kb > 16<<20) {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "BUFFER_USAGE_LIMIT option must be 0 or between 128 kB and 16777216 kB")
			}
			o.RingBytes, ringSet = kb*1024, true
		default:
			return pgerr.Errorf(pgerr.SyntaxError, "unrecognized %s option \"%s\"", map[bool]string{true: "VACUUM", false: "ANALYZE"}[vs.IsVacuumcmd], de.Defname)
		}
	}
	s.vacuumSettings(&o, ringSet)

	var rels []*catalog.Relation
	p := &exec.Planner{C: c}
	for _, r := range vs.Rels {
		vr := r.GetVacuumRelation()
		rel, err := p.OpenRelation(vr.Relation, int(xact.ShareUpdateExclusiveLock))
		if err != nil {
			if skipped := s.skipSequence(c, vr.Relation, err, vs.IsVacuumcmd, w); skipped {
				continue
			}
			return err
		}
		if c.Tx.IsOtherTemp(rel) {
			continue // PostgreSQL skips them silently
		}
		rels = append(rels, rel)
	}
	if len(vs.Rels) == 0 {
		all, err := s.eng.Catalog.AllTables(c.Tx)
		if err != nil {
			return err
		}
		for _, rel := range all {
			if c.Tx.IsOtherTemp(rel) {
				continue
			}
			if err := s.lockRel(c, rel.OID, xact.ShareUpdateExclusiveLock); err != nil {
				return err
			}
			rels = append(rels, rel)
		}
	}
	for _, rel := range rels {
		if vs.IsVacuumcmd {
			if err := s.vacuumRel(c, rel, o, w); err != nil {
				return err
			}
			// A table's TOAST table is vacuumed with it (PROCESS_TOAST).
			if rel.ToastRel != nil && processToast {
				if err := s.vacuumRel(c, rel.ToastRel, o, w); err != nil {
					return err
				}
			}
		}
		if analyze {
			if o.Verbose {
				w.Notice(pgerr.Noticef(pgerr.SevInfo, "00000", "analyzing \"%s.%s\"", s.nspName(rel.Namespace), rel.Name))
			}
			if err := s.analyzeRel(c, rel); err != nil {
				return err
			}
		}
	}
	if vs.IsVacuumcmd {
		if err := s.eng.UpdateWrapLimit(); err != nil {
			return err
		}
		return w.CommandComplete("VACUUM")
	}
	return w.CommandComplete("ANALYZE")
}

// vacuumRel vacuums one table (or TOAST table), reporting as VERBOSE asks.
func (s *Session) vacuumRel(c *exec.Ctx, rel *catalog.Relation, o vacuum.Options, w pgwire.ResultWriter) error {
	if o.Verbose {
		w.Notice(pgerr.Noticef(pgerr.SevInfo, "00000", "vacuuming \"postgres.%s.%s\"", s.nspName(rel.Namespace), rel.Name))
	}
	rep, err := vacuum.Vacuum(c.Context, s.eng.Catalog, c.Tx, rel, o)
	if err != nil {
		return err
	}
	s.eng.Stats.Vacuumed(rel.OID, false, rep.TuplesRemain, rep.TuplesRecentlyDead, time.Now())
	if o.Verbose {
		if rep.WorkersPlanned > 0 {
			w.Notice(pgerr.Noticef(pgerr.SevInfo, "00000", "launched %d parallel vacuum worker%s for index vacuuming (planned: %d)", rep.WorkersLaunched, plural(rep.WorkersLaunched), rep.WorkersPlanned))
		}
		w.Notice(pgerr.Noticef(pgerr.SevInfo, "00000", "%s", rep.Verbose("postgres", s.nspName(rel.Namespace))))
	}
	// VACUUM's catalog updates are in place; later statements must not
	// use stale relpages.
	s.eng.Catalog.Invalidate()
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func defString(de *pg.DefElem) string {
	if de.Arg == nil {
		return ""
	}
	if sv := de.Arg.GetString_(); sv != nil {
		return sv.Sval
	}
	if ac := de.Arg.GetAConst(); ac != nil {
		switch {
		case ac.GetSval() != nil:
			return ac.GetSval().Sval
		case ac.GetIval() != nil:
			return strconv.Itoa(int(ac.GetIval().Ival))
		}
	}
	if i := de.Arg.GetInteger(); i != nil {
		return strconv.Itoa(int(i.Ival))
	}
	return ""
}

func (s *Session) nspName(oid uint32) string { return s.eng.Catalog.NamespaceName(oid) }

func (s *Session) userTables(c *exec.Ctx) ([]*catalog.Relation, error) {
	return s.eng.Catalog.UserTables(c.Tx)
}

// truncate empties tables by giving each (and its indexes) a new file,
// transactionally, as PostgreSQL's TRUNCATE does.
func (s *Session) truncate(c *exec.Ctx, ts *pg.TruncateStmt, w pgwire.ResultWriter) error {
	p := &exec.Planner{C: c}
	var rels []*catalog.Relation
	for _, n := range ts.Relations {
		rel, err := p.OpenRelation(n.GetRangeVar(), int(xact.AccessExclusiveLock))
		if err != nil {
			return err
		}
		if rel.MatView {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table", rel.Name)
		}
		if err := s.requireRelPrivilege(c, rel, acl.Truncate); err != nil {
			return err
		}
		if err := checkOtherTemp(c, rel, "truncate"); err != nil {
			return err
		}
		rels = append(rels, rel)
		if n.GetRangeVar().Inh {
			kids, err := s.truncateDescendants(c, rel)
			if err != nil {
				return err
			}
			rels = append(rels, kids...)
		}
	}
	rels, err := s.truncateReferencing(c, rels, ts.Behavior == pg.DropBehavior_DROP_CASCADE, w)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := exec.TruncateTriggers(c, rels, catalog.TriggerTypeBefore); err != nil {
		return err
	}
	if err := s.truncateRels(c, rels, ts.RestartSeqs); err != nil {
		return err
	}
	if err := exec.TruncateTriggers(c, rels, 0); err != nil {
		return err
	}
	return w.CommandComplete("TRUNCATE TABLE")
}

// truncateRels gives each table and its indexes a new, empty file.
func (s *Session) truncateRels(c *exec.Ctx, rels []*catalog.Relation, restartSeqs bool) error {
	for _, rel := range rels {
		// Emptying the table writes every row: its serializable readers
		// conflict with us.
		if err := c.Tx.Heap.SSI.TableConflictIn(rel.RelFileNode); err != nil {
			return err
		}
		if _, err := s.eng.Catalog.NewRelFileNode(c.Tx, rel); err != nil {
			return err
		}
		if err := s.eng.Catalog.NewToastFiles(c.Tx, rel); err != nil {
			return err
		}
		for _, ix := range rel.Indexes {
			if _, err := s.eng.Catalog.NewRelFileNode(c.Tx, ix); err != nil {
				return err
			}
		}
		if restartSeqs {
			if err := s.restartOwnedSequences(c, rel); err != nil {
				return err
			}
		}
		// Build the empty indexes in their new files.
		nr, err := s.eng.Catalog.ByOID(c.Tx, rel.OID)
		if err != nil {
			return err
		}
		for _, ix := range nr.Indexes {
			if err := exec.BuildIndex(c, nr, ix); err != nil {
				return err
			}
		}
	}
	return nil
}
