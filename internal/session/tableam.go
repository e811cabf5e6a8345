package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// Table access methods at the SQL level, as PostgreSQL 15: CREATE TABLE …
// USING, default_table_access_method, ALTER TABLE … SET ACCESS METHOD.
// Names resolve through the catalog (the engine's registry, pg_am).

// newTableAM is the access method a new table gets: USING's, else
// default_table_access_method's.
func (s *Session) newTableAM(using string) (tableam.AM, error) {
	if using == "" {
		using = s.Setting("default_table_access_method")
	}
	return s.eng.Catalog.TableAMByName(using)
}

// checkDefaultTableAM is default_table_access_method's check hook
// (check_default_table_access_method).
func (s *Session) checkDefaultTableAM(v string) error {
	invalid := func(format string, args ...any) error {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"default_table_access_method\": \"%s\"", v).
			WithDetail(format, args...)
	}
	switch {
	case v == "":
		return invalid("default_table_access_method cannot be empty.")
	case len(v) >= 64:
		return invalid("default_table_access_method is too long (maximum %d characters).", 63)
	}
	_, err := s.eng.Catalog.TableAMByName(v)
	if pgerr.Code(err) == pgerr.UndefinedObject {
		return invalid("Table access method \"%s\" does not exist.", v)
	}
	return err
}

// checkSetAccessMethodTarget refuses SET ACCESS METHOD on a relation that
// is not a table before ALTER TABLE opens it as one, with PostgreSQL's
// ATSimplePermissions message.
func (s *Session) checkSetAccessMethodTarget(c *exec.Ctx, at *pg.AlterTableStmt) error {
	has := false
	for _, cmd := range at.Cmds {
		if cmd.GetAlterTableCmd().GetSubtype() == pg.AlterTableType_AT_SetAccessMethod {
			has = true
		}
	}
	if !has || at.Relation == nil {
		return nil
	}
	rel, err := s.eng.Catalog.Lookup(c.Tx, at.Relation.Schemaname, at.Relation.Relname)
	if err != nil || rel == nil {
		return err
	}
	what := map[byte]string{catalog.KindIndex: "indexes", catalog.KindSequence: "sequences", catalog.KindView: "views", catalog.KindToast: "TOAST tables"}[rel.Kind]
	if what == "" {
		return nil
	}
	return pgerr.Errorf(pgerr.WrongObjectType, "ALTER action SET ACCESS METHOD cannot be performed on relation \"%s\"", rel.Name).
		WithDetail("This operation is not supported for %s.", what)
}

// setAccessMethod is ALTER TABLE … SET ACCESS METHOD name: a table that
// already uses name is left alone (PostgreSQL 15); otherwise its rows are
// rewritten into new files of the new AM and its indexes rebuilt. changed
// reports a change of AM, which one statement may make only once.
func (s *Session) setAccessMethod(c *exec.Ctx, rel *catalog.Relation, name string, changedBefore bool) (changed bool, err error) {
	am, err := s.eng.Catalog.TableAMByName(name)
	if err != nil {
		return false, err
	}
	if changedBefore {
		return false, pgerr.Errorf(pgerr.SyntaxError, "cannot have multiple SET ACCESS METHOD subcommands")
	}
	if rel.AM != nil && rel.AM.OID() == am.OID() {
		return false, nil
	}
	if err := s.assignXid(c); err != nil {
		return false, err
	}
	if err := s.eng.Catalog.SetAccessMethod(c.Tx, rel, am); err != nil {
		return false, err
	}
	return true, s.rewriteTable(c, rel, func(row exec.Row) (exec.Row, error) { return row, nil })
}
