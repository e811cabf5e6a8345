package session

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// createTableAs runs CREATE TABLE ... AS SELECT and SELECT ... INTO: a
// table with the query's column names and types is created, then filled
// by INSERT ... SELECT, in the statement's transaction. The command tag is
// PostgreSQL's "SELECT n".
func (s *Session) createTableAs(c *exec.Ctx, into *pg.IntoClause, query *pg.SelectStmt, ifNotExists bool, w pgwire.ResultWriter) error {
	if into.TableSpaceName != "" {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE TABLE AS with TABLESPACE is not supported yet")
	}
	rv := into.Rel
	nsp, err := s.namespaceFor(c, rv)
	if err != nil {
		return err
	}
	if err := checkOnCommit(into.OnCommit, s.eng.Catalog.IsTempNamespace(nsp)); err != nil {
		return err
	}
	if existing, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname); err != nil {
		return err
	} else if existing != nil && existing.Namespace == nsp {
		if ifNotExists {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateTable, "relation \"%s\" already exists, skipping", rv.Relname))
			return w.CommandComplete("CREATE TABLE AS")
		}
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
	}
	_, cols, err := (&exec.Planner{C: c}).PlanSelect(query)
	if err != nil {
		return err
	}
	if len(into.ColNames) > len(cols) {
		return pgerr.Errorf(pgerr.SyntaxError, "too many column names were specified")
	}
	defs := make([]string, len(cols))
	for i, col := range cols {
		name := col.Name
		if i < len(into.ColNames) {
			name = into.ColNames[i].GetString_().GetSval()
		}
		t := col.Type
		if t.OID == types.UnknownOID {
			t = types.Text
		}
		defs[i] = quoteIdent(name) + " " + t.String()
	}
	parsed, err := pg.Parse("CREATE TABLE t (" + strings.Join(defs, ", ") + ")")
	if err != nil {
		return fmt.Errorf("create table as: column list: %w", err)
	}
	cs := parsed.Stmts[0].Stmt.GetCreateStmt()
	cs.Relation, cs.Options, cs.Oncommit, cs.AccessMethod = rv, into.Options, into.OnCommit, into.AccessMethod
	if err := s.createTable(c, cs, discardTag{w}); err != nil {
		return err
	}
	if into.SkipData {
		return w.CommandComplete("CREATE TABLE AS")
	}
	schema := rv.Schemaname
	if s.eng.Catalog.IsTempNamespace(nsp) {
		schema = "pg_temp"
	}
	target := &pg.RangeVar{Schemaname: schema, Relname: rv.Relname, Inh: true, Location: -1}
	insert := &pg.InsertStmt{Relation: target, SelectStmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: query}}}
	mt, err := (&exec.Planner{C: c}).PlanInsert(insert)
	if err != nil {
		return err
	}
	if err := exec.Run(c, mt, nil); err != nil {
		return err
	}
	return w.CommandComplete(fmt.Sprintf("SELECT %d", mt.Count))
}

// discardTag passes everything through but the command tag, so a
// statement built from others reports only its own.
type discardTag struct{ pgwire.ResultWriter }

func (discardTag) CommandComplete(string) error { return nil }
