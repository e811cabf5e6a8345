package session

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// ALTER TABLE's column subcommands and RENAME. The table is locked
// AccessExclusive (alterTable opened it so); every change is written to
// the catalogs by this transaction, so it rolls back with it.

// alterColumnCmd runs one ALTER TABLE subcommand on rel. handled is false
// for subcommands it does not know.
func (s *Session) alterColumnCmd(c *exec.Ctx, rel *catalog.Relation, ac *pg.AlterTableCmd) (handled bool, err error) {
	if rel.Namespace == catalog.PgCatalogNamespace {
		return true, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rel.Name)
	}
	switch ac.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		return true, s.addColumn(c, rel, ac.Def.GetColumnDef(), ac.MissingOk)
	case pg.AlterTableType_AT_DropColumn:
		return true, s.dropColumn(c, rel, ac.Name, ac.MissingOk, ac.Behavior == pg.DropBehavior_DROP_CASCADE)
	case pg.AlterTableType_AT_ColumnDefault:
		i, err := alteredColumn(rel, ac.Name)
		if err != nil {
			return true, err
		}
		text := ""
		if ac.Def != nil {
			if text, err = deparseExpr(ac.Def); err != nil {
				return true, err
			}
			// A default that does not compile fails now, not at INSERT.
			a := rel.Attrs[i]
			a.Default = text
			if _, err := (&exec.Planner{C: c}).ColumnDefault(a); err != nil {
				return true, err
			}
		}
		if err := s.assignXid(c); err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetColumnDefault(c.Tx, rel, rel.Attrs[i].Num, text)
	case pg.AlterTableType_AT_SetNotNull:
		i, err := alteredColumn(rel, ac.Name)
		if err != nil {
			return true, err
		}
		if rel.Attrs[i].NotNull {
			return true, nil
		}
		if err := s.checkNoNulls(c, rel, i); err != nil {
			return true, err
		}
		if err := s.assignXid(c); err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetColumnNotNull(c.Tx, rel, rel.Attrs[i].Num, true)
	case pg.AlterTableType_AT_DropNotNull:
		i, err := alteredColumn(rel, ac.Name)
		if err != nil {
			return true, err
		}
		for _, ix := range rel.Indexes {
			if ix.Index.Primary && hasKey(ix.Index.Keys, rel.Attrs[i].Num) {
				return true, pgerr.Errorf(pgerr.InvalidTableDefinition, "column \"%s\" is in a primary key", ac.Name)
			}
		}
		if !rel.Attrs[i].NotNull {
			return true, nil
		}
		if err := s.assignXid(c); err != nil {
			return true, err
		}
		return true, s.eng.Catalog.SetColumnNotNull(c.Tx, rel, rel.Attrs[i].Num, false)
	case pg.AlterTableType_AT_AlterColumnType:
		return true, s.alterColumnType(c, rel, ac.Name, ac.Def.GetColumnDef())
	}
	return false, nil
}

func hasKey(keys []int16, num int16) bool {
	for _, k := range keys {
		if k == num {
			return true
		}
	}
	return false
}

// alteredColumn finds the column an ALTER COLUMN names.
func alteredColumn(rel *catalog.Relation, name string) (int, error) {
	i := rel.AttrByName(name)
	if i < 0 {
		return 0, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
	}
	return i, nil
}

// addColumn is ALTER TABLE … ADD COLUMN. As PostgreSQL 11+, existing rows
// are not rewritten when the default is not volatile: they keep fewer
// attributes, and read the default evaluated once (the column's missing
// value). A volatile default needs a value per row, so the table is
// rewritten.
func (s *Session) addColumn(c *exec.Ctx, rel *catalog.Relation, cd *pg.ColumnDef, ifNotExists bool) error {
	if rel.AttrByName(cd.Colname) >= 0 {
		if ifNotExists {
			c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists, skipping", cd.Colname, rel.Name))
			return nil
		}
		return pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, rel.Name)
	}
	t, domain, err := s.columnType(c, cd.TypeName)
	if err != nil {
		return err
	}
	a := catalog.Attr{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull, Domain: domain}
	if err := columnToastOptions(cd, &a); err != nil {
		return err
	}
	var idx []indexSpec
	var cons []pendingConstraint
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		handled, err := columnConstraint(con, cd.Colname, &a, &idx, &cons)
		if err != nil {
			return err
		}
		if !handled {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "constraint type %s is not supported yet in ADD COLUMN", strings.TrimPrefix(con.Contype.String(), "CONSTR_"))
		}
	}
	p := &exec.Planner{C: c}
	def, err := p.ColumnDefault(a)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	volatile := exec.IsVolatile(def)
	missing := types.Null()
	if !volatile {
		if missing, err = def.Eval(c.Env, nil); err != nil {
			return err
		}
	}
	rewrite := volatile || (!missing.IsNull() && !catalog.MissingSupported(t))
	if a.NotNull && missing.IsNull() && !rewrite {
		// Every existing row would read NULL.
		empty, err := tableIsEmpty(c, rel)
		if err != nil {
			return err
		}
		if !empty {
			return pgerr.Errorf(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", a.Name, rel.Name).
				WithColumn(s.nspName(rel.Namespace), rel.Name, a.Name)
		}
	}
	if a.Domain != 0 {
		if def, err = s.domainColumnDefault(c, rel, a, def, missing, rewrite); err != nil {
			return err
		}
	}
	if rewrite {
		missing = types.Null()
	}
	if err := s.eng.Catalog.AddColumn(c.Tx, rel, a, missing); err != nil {
		return err
	}
	if rewrite {
		err := s.rewriteTable(c, rel, func(old exec.Row) (exec.Row, error) {
			v, err := def.Eval(c.Env, nil)
			if err != nil {
				return nil, err
			}
			return append(append(exec.Row(nil), old...), v), nil
		})
		if err != nil {
			return err
		}
	}
	for _, sp := range idx {
		if err := s.addIndex(c, rel.OID, sp, false); err != nil {
			return err
		}
	}
	for _, pc := range cons {
		if err := s.addConstraint(c, rel.OID, pc, true); err != nil {
			return err
		}
	}
	return nil
}

// tableIsEmpty reports whether no row of rel is visible.
func tableIsEmpty(c *exec.Ctx, rel *catalog.Relation) (bool, error) {
	empty := true
	errStop := fmt.Errorf("stop")
	err := exec.Run(c, &exec.SeqScan{Rel: rel}, func(exec.Row) error {
		empty = false
		return errStop
	})
	if err == errStop {
		err = nil
	}
	return empty, err
}

// rewriteTable gives rel (whose catalog rows the caller has just changed)
// and its indexes new files, and copies the rows that were visible in the
// old file into them through transform, which maps a row of the old shape
// to one of the new. As PostgreSQL's table rewrite, the old file goes at
// commit, the new at abort.
func (s *Session) rewriteTable(c *exec.Ctx, old *catalog.Relation, transform func(exec.Row) (exec.Row, error)) error {
	cat := s.eng.Catalog
	cur, err := cat.ByOID(c.Tx, old.OID)
	if err != nil {
		return err
	}
	if _, err := cat.NewRelFileNode(c.Tx, cur); err != nil {
		return err
	}
	for _, ix := range cur.Indexes {
		if _, err := cat.NewRelFileNode(c.Tx, ix); err != nil {
			return err
		}
	}
	if err := cat.NewToastFiles(c.Tx, cur); err != nil {
		return err
	}
	if err := cat.ClearMissing(c.Tx, cur); err != nil {
		return err
	}
	nr, err := cat.ByOID(c.Tx, old.OID)
	if err != nil {
		return err
	}
	if err := cat.EnsureToastTable(c.Tx, nr); err != nil {
		return err
	}
	if nr, err = cat.ByOID(c.Tx, old.OID); err != nil {
		return err
	}
	for _, ix := range nr.Indexes {
		if err := exec.BuildIndex(c, nr, ix); err != nil {
			return err
		}
	}
	return exec.RewriteTable(c, old, nr, transform)
}

// dropColumn is ALTER TABLE … DROP COLUMN: the column is marked dropped
// (old rows keep its bytes, invisible), and the indexes that use it go.
func (s *Session) dropColumn(c *exec.Ctx, rel *catalog.Relation, name string, ifExists, cascade bool) error {
	i := rel.AttrByName(name)
	if i < 0 {
		if ifExists {
			c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist, skipping", name, rel.Name))
			return nil
		}
		return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, rel.Name)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	num := rel.Attrs[i].Num
	if err := s.dropColumnViews(c, rel, num, name, cascade); err != nil {
		return err
	}
	if err := s.dropColumnTriggers(c, rel, num, name, cascade); err != nil {
		return err
	}
	if err := s.constraintsOnDropColumn(c, rel, num, cascade); err != nil {
		return err
	}
	for _, ix := range rel.Indexes {
		if hasKey(ix.Index.Keys, num) {
			if err := s.eng.Catalog.DropRelation(c.Tx, ix); err != nil {
				return err
			}
		}
	}
	return s.eng.Catalog.DropColumn(c.Tx, rel, num)
}

// alterColumnType is ALTER COLUMN … TYPE … [USING …]: the table is
// rewritten with every row's value converted, and its indexes rebuilt.
func (s *Session) alterColumnType(c *exec.Ctx, rel *catalog.Relation, name string, cd *pg.ColumnDef) error {
	i, err := alteredColumn(rel, name)
	if err != nil {
		return err
	}
	t, err := expr.TypeFromName(cd.TypeName)
	if err != nil {
		return err
	}
	if err := s.checkColumnTypeChange(c, rel, rel.Attrs[i].Num, name); err != nil {
		return err
	}
	p := &exec.Planner{C: c}
	old := rel.Attrs[i]
	var conv expr.Expr = &expr.Var{Index: i, T: old.Type, Name: old.Name}
	if cd.RawDefault != nil {
		if conv, err = p.CompileOnRow(rel, cd.RawDefault); err != nil {
			return err
		}
	}
	conv, err = exec.CoerceForColumn(conv, t)
	if err != nil {
		if cd.RawDefault != nil {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "result of USING clause for column \"%s\" cannot be cast automatically to type %s", name, t.String()).
				WithHint("You might need to add an explicit cast.")
		}
		return pgerr.Errorf(pgerr.DatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", name, t.String()).
			WithHint("You might need to specify \"USING %s::%s\".", types.QuoteIdent(name), t.String())
	}
	if old.Default != "" {
		// The default, of the old type, must convert to the new one.
		d, err := p.ColumnDefault(old)
		if err != nil {
			return err
		}
		if _, err := exec.CoerceForColumn(d, t); err != nil {
			return pgerr.Errorf(pgerr.DatatypeMismatch, "default for column \"%s\" cannot be cast automatically to type %s", name, t.String())
		}
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	cat := s.eng.Catalog
	if err := cat.SetColumnType(c.Tx, rel, old.Num, t); err != nil {
		return err
	}
	// The index's own column rows carry the key's type too.
	for _, ix := range rel.Indexes {
		for k, key := range ix.Index.Keys {
			if key == old.Num {
				if err := cat.SetColumnType(c.Tx, ix, int16(k+1), t); err != nil {
					return err
				}
			}
		}
	}
	return s.rewriteTable(c, rel, func(row exec.Row) (exec.Row, error) {
		v, err := conv.Eval(c.Env, row)
		if err != nil {
			return nil, err
		}
		out := append(exec.Row(nil), row...)
		out[i] = v
		return out, nil
	})
}

// rename handles ALTER TABLE / ALTER INDEX … RENAME.
func (s *Session) rename(c *exec.Ctx, rs *pg.RenameStmt, w pgwire.ResultWriter) error {
	if isRoutineObject(rs.RenameType) {
		return s.renameRoutine(c, rs, w)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_SCHEMA {
		return s.renameSchema(c, rs, w)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_TRIGGER {
		return s.renameTrigger(c, rs, w)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_DOMAIN || rs.RenameType == pg.ObjectType_OBJECT_TYPE || rs.RenameType == pg.ObjectType_OBJECT_DOMCONSTRAINT {
		return s.renameType(c, rs, w)
	}
	tag := "ALTER TABLE"
	if rs.RenameType == pg.ObjectType_OBJECT_INDEX || rs.RelationType == pg.ObjectType_OBJECT_INDEX {
		tag = "ALTER INDEX"
	}
	if rs.RenameType == pg.ObjectType_OBJECT_SEQUENCE {
		tag = "ALTER SEQUENCE"
	}
	if t := viewTag(rs.RenameType, rs.RelationType); t != "" {
		tag = t
	}
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT, pg.ObjectType_OBJECT_SEQUENCE,
		pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
	default:
		return pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER %s RENAME is not supported yet", strings.TrimPrefix(rs.RenameType.String(), "OBJECT_"))
	}
	rv := rs.Relation
	rel, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	if rel == nil {
		if rs.MissingOk {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.UndefinedTable, "relation \"%s\" does not exist, skipping", rv.Relname))
			return w.CommandComplete(tag)
		}
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname))
	}
	if rel.Namespace == catalog.PgCatalogNamespace {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rel.Name)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_SEQUENCE && rel.Kind != catalog.KindSequence {
		return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", rel.Name)
	}
	if err := checkViewKind(rel, rs.RenameType, rs.RelationType); err != nil {
		return err
	}
	lockOID := rel.OID
	if rel.Kind == catalog.KindIndex {
		lockOID = rel.Index.RelID
	}
	if err := s.lockRel(c, lockOID, xact.AccessExclusiveLock); err != nil {
		return err
	}
	// Re-read: the relation may have changed while we waited.
	if rel, err = s.eng.Catalog.ByOID(c.Tx, rel.OID); err != nil {
		return err
	} else if rel == nil {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname))
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if rs.RenameType == pg.ObjectType_OBJECT_COLUMN {
		if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindView {
			return pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table, view, materialized view, composite type, index, or foreign table", rel.Name)
		}
		i := rel.AttrByName(rs.Subname)
		if i < 0 {
			return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", rs.Subname)
		}
		if rel.AttrByName(rs.Newname) >= 0 {
			return pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, rel.Name)
		}
		if err := s.renameInViews(c, rel, exec.ViewRename{OldCol: rs.Subname, NewCol: rs.Newname}); err != nil {
			return err
		}
		if err := s.eng.Catalog.RenameColumn(c.Tx, rel, rel.Attrs[i].Num, rs.Newname); err != nil {
			return err
		}
		if err := s.renameColumnInChecks(c, rel, rel.Attrs[i].Num, rs.Subname, rs.Newname); err != nil {
			return err
		}
		return w.CommandComplete(tag)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_TABCONSTRAINT {
		if err := s.renameConstraint(c, rel, rs.Subname, rs.Newname); err != nil {
			return err
		}
		return w.CommandComplete(tag)
	}
	if err := s.renameInViews(c, rel, exec.ViewRename{OldTable: rel.Name, NewTable: rs.Newname}); err != nil {
		return err
	}
	if err := s.eng.Catalog.RenameRelation(c.Tx, rel, rs.Newname); err != nil {
		return err
	}
	if rel.Kind == catalog.KindIndex {
		if err := s.renameIndexConstraint(c, rel, rs.Newname); err != nil {
			return err
		}
	}
	return w.CommandComplete(tag)
}
