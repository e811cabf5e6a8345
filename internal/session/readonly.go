package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// checkReadOnly refuses a statement that would write in a read-only
// transaction (START TRANSACTION READ ONLY, default_transaction_read_only),
// as PostgreSQL's ExecCheckXactReadOnly and PreventCommandIfReadOnly do:
// 25006 "cannot execute <command> in a read-only transaction". Reads,
// SET/SHOW, VACUUM, ANALYZE and CHECKPOINT stay allowed; sequence
// functions check for themselves.
func (s *Session) checkReadOnly(stmt *pg.Node) error {
	if !s.readOnly {
		return nil
	}
	name := writeCommandName(stmt)
	if name == "" || s.writesOnlyTempTable(stmt) {
		return nil
	}
	return pgerr.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", name)
}

// writesOnlyTempTable reports whether stmt is INSERT, UPDATE, DELETE or
// COPY FROM whose target is a temporary table of the session: PostgreSQL's
// ExecCheckXactReadOnly lets a read-only transaction write those. (The
// other tables of UPDATE … FROM and DELETE … USING are only read.)
func (s *Session) writesOnlyTempTable(stmt *pg.Node) bool {
	var rv *pg.RangeVar
	switch {
	case stmt.GetInsertStmt() != nil:
		rv = stmt.GetInsertStmt().Relation
	case stmt.GetUpdateStmt() != nil:
		rv = stmt.GetUpdateStmt().Relation
	case stmt.GetDeleteStmt() != nil:
		rv = stmt.GetDeleteStmt().Relation
	case stmt.GetCopyStmt() != nil && stmt.GetCopyStmt().IsFrom:
		rv = stmt.GetCopyStmt().Relation
	}
	if rv == nil || s.temp.nsp == 0 {
		return false
	}
	// The statement takes its snapshot next anyway; looking the target up
	// needs one now (an interrupted wait for a safe snapshot fails the
	// statement when it takes its own).
	if s.statementSnapshot() != nil {
		return false
	}
	rel, err := s.eng.Catalog.Lookup(&s.ctx, rv.Schemaname, rv.Relname)
	return err == nil && rel != nil && rel.IsTemp() && rel.Namespace == s.temp.nsp
}

// writeCommandName is PostgreSQL's command name of a statement that
// writes data or catalogs, or "" for one that does not.
func writeCommandName(n *pg.Node) string {
	switch {
	case n.GetInsertStmt() != nil:
		return "INSERT"
	case n.GetUpdateStmt() != nil:
		return "UPDATE"
	case n.GetDeleteStmt() != nil:
		return "DELETE"
	case n.GetSelectStmt() != nil:
		if sel := n.GetSelectStmt(); sel.IntoClause != nil {
			return "SELECT INTO"
		} else if len(sel.LockingClause) > 0 {
			return "SELECT FOR UPDATE"
		}
	case n.GetCreateTableAsStmt() != nil:
		return "CREATE TABLE AS"
	case n.GetCreateStmt() != nil:
		return "CREATE TABLE"
	case n.GetIndexStmt() != nil:
		return "CREATE INDEX"
	case n.GetCreateSeqStmt() != nil:
		return "CREATE SEQUENCE"
	case n.GetAlterSeqStmt() != nil:
		return "ALTER SEQUENCE"
	case n.GetDropStmt() != nil:
		return "DROP " + objectTypeName(n.GetDropStmt().RemoveType)
	case n.GetAlterTableStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterTableStmt().Objtype)
	case n.GetRenameStmt() != nil:
		return "ALTER " + objectTypeName(n.GetRenameStmt().RenameType)
	case n.GetTruncateStmt() != nil:
		return "TRUNCATE TABLE"
	case n.GetCopyStmt() != nil:
		if n.GetCopyStmt().IsFrom {
			return "COPY FROM"
		}
	case n.GetCreateFunctionStmt() != nil:
		if n.GetCreateFunctionStmt().IsProcedure {
			return "CREATE PROCEDURE"
		}
		return "CREATE FUNCTION"
	case n.GetAlterFunctionStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterFunctionStmt().Objtype)
	case n.GetAlterOwnerStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterOwnerStmt().ObjectType)
	case n.GetCreateRoleStmt() != nil:
		return "CREATE ROLE"
	case n.GetAlterRoleStmt() != nil:
		return "ALTER ROLE"
	case n.GetDropRoleStmt() != nil:
		return "DROP ROLE"
	case n.GetGrantRoleStmt() != nil:
		if n.GetGrantRoleStmt().IsGrant {
			return "GRANT ROLE"
		}
		return "REVOKE ROLE"
	case n.GetExplainStmt() != nil:
		ex := n.GetExplainStmt()
		for _, o := range ex.Options {
			if de := o.GetDefElem(); de != nil && de.Defname == "analyze" && !isFalseOption(de) {
				return writeCommandName(ex.Query)
			}
		}
	}
	return ""
}

func isFalseOption(de *pg.DefElem) bool {
	if de.Arg == nil {
		return false
	}
	if c := de.Arg.GetAConst(); c != nil {
		if b := c.GetBoolval(); b != nil {
			return !b.Boolval
		}
		if sv := c.GetSval(); sv != nil {
			return sv.Sval == "false" || sv.Sval == "off"
		}
	}
	if sv := de.Arg.GetString_(); sv != nil {
		return sv.Sval == "false" || sv.Sval == "off"
	}
	return false
}

func objectTypeName(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_INDEX:
		return "INDEX"
	case pg.ObjectType_OBJECT_SEQUENCE:
		return "SEQUENCE"
	case pg.ObjectType_OBJECT_VIEW:
		return "VIEW"
	case pg.ObjectType_OBJECT_SCHEMA:
		return "SCHEMA"
	case pg.ObjectType_OBJECT_FUNCTION:
		return "FUNCTION"
	case pg.ObjectType_OBJECT_PROCEDURE:
		return "PROCEDURE"
	case pg.ObjectType_OBJECT_ROUTINE:
		return "ROUTINE"
	case pg.ObjectType_OBJECT_TYPE:
		return "TYPE"
	}
	return "TABLE"
}
