package session

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/xact"
)

// ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE … SET SCHEMA, as
// PostgreSQL's AlterTableNamespace: the relation moves with its indexes,
// constraints and owned sequences; stored texts that name it qualified
// (view queries, sequence defaults) are rewritten to the new schema.

var setSchemaTags = map[pg.ObjectType]string{
	pg.ObjectType_OBJECT_TABLE: "ALTER TABLE", pg.ObjectType_OBJECT_VIEW: "ALTER VIEW",
	pg.ObjectType_OBJECT_MATVIEW: "ALTER MATERIALIZED VIEW", pg.ObjectType_OBJECT_SEQUENCE: "ALTER SEQUENCE",
}

func (s *Session) alterObjectSchema(c *exec.Ctx, st *pg.AlterObjectSchemaStmt, w pgwire.ResultWriter) error {
	tag, ok := setSchemaTags[st.ObjectType]
	if !ok {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER %s SET SCHEMA is not supported yet", objectTypeName(st.ObjectType))
	}
	rv := st.Relation
	rel, err := s.eng.Catalog.Lookup(c.Tx, rv.Schemaname, rv.Relname)
	if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.InvalidSchemaName && st.MissingOk {
		rel, err = nil, nil
	}
	if err != nil {
		return err
	}
	if rel == nil {
		if st.MissingOk {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname))
			return w.CommandComplete(tag)
		}
		return pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname))
	}
	if st.Newschema == "pg_temp" {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	target, err := s.lookupSchema(c, st.Newschema, false)
	if err != nil {
		return err
	}
	if err := s.checkMovable(c, rel, target); err != nil {
		return err
	}
	if rel.Namespace == target.OID {
		return w.CommandComplete(tag)
	}
	if clash, err := s.eng.Catalog.LookupIn(c.Tx, target.OID, rel.Name); err != nil {
		return err
	} else if clash != nil {
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", rel.Name, target.Name)
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockRel(c, rel.OID, xact.AccessExclusiveLock); err != nil {
		return err
	}
	oldName := s.nspName(rel.Namespace)
	owned, err := s.eng.Catalog.OwnedSequences(c.Tx, rel.OID)
	if err != nil {
		return err
	}
	moving := []*catalog.Relation{rel}
	for oid := range owned {
		if seq, err := s.eng.Catalog.ByOID(c.Tx, oid); err != nil {
			return err
		} else if seq != nil && seq.Namespace == rel.Namespace {
			moving = append(moving, seq)
		}
	}
	for _, r := range moving {
		if err := s.moveInViews(c, oldName, target.Name, r.Name); err != nil {
			return err
		}
		if r.Kind == catalog.KindSequence {
			if err := s.eng.Catalog.MoveSequenceInDefaults(c.Tx, r.Name, oldName, target.Name); err != nil {
				return err
			}
		}
		if err := s.eng.Catalog.SetRelationNamespace(c.Tx, r, target.OID); err != nil {
			return err
		}
	}
	return w.CommandComplete(tag)
}

// checkMovable refuses what PostgreSQL refuses to move.
func (s *Session) checkMovable(c *exec.Ctx, rel *catalog.Relation, target *catalog.Namespace) error {
	cat := s.eng.Catalog
	if rel.IsTemp() || cat.IsTempNamespace(target.OID) {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if rel.Namespace == catalog.PgToastNamespace || target.OID == catalog.PgToastNamespace {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot move objects into or out of TOAST schema")
	}
	if rel.Kind == catalog.KindSequence {
		if o, ok, err := cat.SequenceOwner(c.Tx, rel.OID); err != nil {
			return err
		} else if ok {
			table, err := cat.ByOID(c.Tx, o.Table)
			if err != nil {
				return err
			}
			name := ""
			if table != nil {
				name = table.Name
			}
			return pgerr.Errorf(pgerr.FeatureNotSupported, "cannot move an owned sequence into another schema").
				WithDetail("Sequence \"%s\" is linked to table \"%s\".", rel.Name, name)
		}
	}
	return nil
}

// moveInViews rewrites the stored queries that name schema.name so that
// they name it in its new schema.
func (s *Session) moveInViews(c *exec.Ctx, schema, newSchema, name string) error {
	return s.rewriteViewRangeVars(c, func(rv *pg.RangeVar) bool {
		if rv.Schemaname == schema && rv.Relname == name {
			rv.Schemaname = newSchema
			return true
		}
		return false
	})
}

// rewriteViewRangeVars applies change to every relation reference of
// every stored view query, storing again the queries it changed.
func (s *Session) rewriteViewRangeVars(c *exec.Ctx, change func(*pg.RangeVar) bool) error {
	views, err := s.eng.Catalog.Views(c.Tx)
	if err != nil {
		return err
	}
	for _, ve := range views {
		v, err := s.eng.Catalog.ByOID(c.Tx, ve.OID)
		if err != nil || v == nil {
			return err
		}
		sel, err := exec.ParseViewQuery(v)
		if err != nil {
			return err
		}
		changed := false
		parser.Walk(sel, func(m proto.Message) bool {
			if rv, ok := m.(*pg.RangeVar); ok && change(rv) {
				changed = true
			}
			return true
		})
		if !changed {
			continue
		}
		text, err := exec.DeparseSelect(sel)
		if err != nil {
			return fmt.Errorf("rewriting view %s: %w", v.Name, err)
		}
		if err := s.eng.Catalog.SetViewQuery(c.Tx, ve.OID, text); err != nil {
			return err
		}
	}
	return nil
}
