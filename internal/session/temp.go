package session

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// Temporary tables and sequences (see catalog/temp.go for the storage
// side). The session takes a slot and its namespace pg_temp_<slot> when it
// first creates a temporary object, keeps the ON COMMIT actions of its
// tables, runs them before each commit, and drops all its temporary
// objects when it ends.

// tempState is the session's temporary namespace and ON COMMIT actions.
type tempState struct {
	slot int    // 0: none taken yet
	nsp  uint32 // pg_temp_<slot>
	// onCommit holds the tables with ON COMMIT DELETE ROWS or DROP. An
	// entry whose table no longer exists (its creation rolled back, or it
	// was dropped) is forgotten when next looked at: OIDs are not reused.
	onCommit map[uint32]pg.OnCommitAction
}

// tempNamespace returns the session's temporary namespace, taking a slot
// and making the namespace if this is the session's first temporary object.
func (s *Session) tempNamespace(c *exec.Ctx) (uint32, error) {
	if s.temp.nsp != 0 {
		return s.temp.nsp, nil
	}
	slot := s.eng.Catalog.AcquireTempSlot()
	nsp, err := s.eng.Catalog.TempNamespace(slot)
	if err != nil {
		s.eng.Catalog.ReleaseTempSlot(slot)
		return 0, err
	}
	s.temp.slot, s.temp.nsp = slot, nsp
	c.Tx.TempNamespace = nsp
	// An earlier session of this slot may have left objects behind (it
	// could not drop them); PostgreSQL clears them on first use too.
	return nsp, s.dropTempRelations(c)
}

// namespaceFor resolves the namespace a new relation rv goes into, as
// PostgreSQL's RangeVarGetCreationNamespace and
// RangeVarAdjustRelationPersistence do: TEMP or the schema pg_temp mean the
// session's temporary namespace; a temporary namespace given by name must
// be the session's own; a TEMP relation cannot go into another schema.
func (s *Session) namespaceFor(c *exec.Ctx, rv *pg.RangeVar) (uint32, error) {
	posErr := func(code, msg string) error {
		e := pgerr.Errorf(code, "%s", msg)
		e.Position = rv.Location + 1
		return e
	}
	switch {
	case rv.Schemaname == "pg_temp" || (rv.Schemaname == "" && rv.Relpersistence == "t"):
		c.Tx.AccessedTemp = true
		return s.tempNamespace(c)
	case rv.Schemaname == "":
		nsp, err := s.creationNamespace(c)
		if e, ok := err.(*pgerr.Error); ok && e.Code == pgerr.InvalidSchemaName {
			e.Position = rv.Location + 1
		}
		return nsp, err
	}
	nsp, err := s.eng.Catalog.NamespaceOID(c.Tx, rv.Schemaname)
	if err != nil {
		return 0, err
	}
	if s.eng.Catalog.IsTempNamespace(nsp) {
		c.Tx.AccessedTemp = true
		if nsp != s.temp.nsp {
			return 0, posErr(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions")
		}
		return nsp, nil
	}
	if rv.Relpersistence == "t" {
		return 0, posErr(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	return nsp, nil
}

// noteOnCommit records a new table's ON COMMIT clause.
func (s *Session) noteOnCommit(c *exec.Ctx, oid uint32, action pg.OnCommitAction) {
	if action != pg.OnCommitAction_ONCOMMIT_DELETE_ROWS && action != pg.OnCommitAction_ONCOMMIT_DROP {
		return
	}
	if s.temp.onCommit == nil {
		s.temp.onCommit = map[uint32]pg.OnCommitAction{}
	}
	s.temp.onCommit[oid] = action
}

// checkOnCommit refuses ON COMMIT for a table that is not temporary.
func checkOnCommit(action pg.OnCommitAction, temp bool) error {
	if temp || action == pg.OnCommitAction_ONCOMMIT_NOOP || action == pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
		return nil
	}
	return pgerr.Errorf(pgerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
}

// preCommitTemp runs the ON COMMIT actions inside the committing
// transaction (PostgreSQL's PreCommit_on_commit_actions): ON COMMIT DROP
// tables are dropped, with what depends on them; ON COMMIT DELETE ROWS
// tables that hold any pages are emptied — a table referenced by a foreign
// key of a table that is not emptied too is an error, as in PostgreSQL.
func (s *Session) preCommitTemp(ctx context.Context) error {
	if len(s.temp.onCommit) == 0 {
		return nil
	}
	if s.htx.Snap == nil {
		// The transaction ran nothing that needed a snapshot (SET); the
		// actions read and write catalogs.
		if err := s.statementSnapshot(); err != nil {
			return err
		}
	}
	c := s.newCtx(ctx, quietWriter{})
	var drop, deleteRows, empty []*catalog.Relation
	for oid, action := range s.temp.onCommit {
		rel, err := s.eng.Catalog.ByOID(c.Tx, oid)
		if err != nil {
			return err
		}
		if rel == nil {
			delete(s.temp.onCommit, oid)
			continue
		}
		if action == pg.OnCommitAction_ONCOMMIT_DROP {
			drop = append(drop, rel)
			continue
		}
		deleteRows = append(deleteRows, rel)
		// A table without pages has no rows to remove.
		if n, err := rel.Table.NBlocks(); err != nil {
			return err
		} else if n > 0 {
			empty = append(empty, rel)
		}
	}
	if err := s.checkOnCommitKeys(c, deleteRows); err != nil {
		return err
	}
	if len(empty) > 0 {
		if err := s.assignXid(c); err != nil {
			return err
		}
		if err := s.truncateRels(c, empty, false); err != nil {
			return err
		}
	}
	if len(drop) == 0 {
		return nil
	}
	ds := &pg.DropStmt{RemoveType: pg.ObjectType_OBJECT_TABLE, Behavior: pg.DropBehavior_DROP_CASCADE, MissingOk: true}
	for _, rel := range drop {
		ds.Objects = append(ds.Objects, &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{
			{Node: &pg.Node_String_{String_: &pg.String{Sval: "pg_temp"}}}, {Node: &pg.Node_String_{String_: &pg.String{Sval: rel.Name}}},
		}}}})
		delete(s.temp.onCommit, rel.OID)
	}
	return s.drop(c, ds, quietWriter{})
}

// checkOnCommitKeys: a table emptied at commit may be referenced only by
// tables emptied too (heap_truncate_check_FKs).
func (s *Session) checkOnCommitKeys(c *exec.Ctx, empty []*catalog.Relation) error {
	emptied := map[uint32]bool{}
	for _, r := range empty {
		emptied[r.OID] = true
	}
	for _, r := range empty {
		for _, k := range r.ReferencedBy {
			if emptied[k.RelID] {
				continue
			}
			child, err := s.eng.Catalog.ByOID(c.Tx, k.RelID)
			if err != nil {
				return err
			}
			name := "?"
			if child != nil {
				name = child.Name
			}
			return pgerr.Errorf(pgerr.FeatureNotSupported, "unsupported ON COMMIT and foreign key combination").
				WithDetail("Table \"%s\" references \"%s\", but they do not have the same ON COMMIT setting.", name, r.Name)
		}
	}
	return nil
}

// dropTempRelations drops every object in the session's temporary
// namespace, in the current transaction (DISCARD TEMP, first use of a
// slot, the end of the session).
func (s *Session) dropTempRelations(c *exec.Ctx) error {
	if s.temp.nsp == 0 {
		return nil
	}
	if empty, err := s.eng.Catalog.NamespaceIsEmpty(c.Tx, s.temp.nsp); err != nil || empty {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	_, err := s.eng.Catalog.DropTempRelations(c.Tx, s.temp.nsp)
	return err
}

// endTemp drops the session's temporary objects in a transaction of its
// own and gives up its slot (the session is ending; an open transaction
// has been rolled back). A failure is logged: the objects stay until the
// slot's next user or the next start-up clears them.
func (s *Session) endTemp() {
	if s.temp.nsp == 0 {
		return
	}
	s.temp.onCommit = nil
	s.begin()
	err := s.statementSnapshot()
	if err == nil {
		err = s.dropTempRelations(s.newCtx(context.Background(), quietWriter{}))
	}
	if err == nil {
		err = s.commit()
	} else {
		s.abort()
	}
	if err != nil {
		s.eng.Logf("WARNING:  could not drop temporary objects of namespace %s: %v", s.eng.Catalog.NamespaceName(s.temp.nsp), err)
	}
	s.eng.Catalog.ReleaseTempSlot(s.temp.slot)
	s.temp = tempState{}
}

// discard runs DISCARD TEMP (other forms are not supported yet).
func (s *Session) discard(c *exec.Ctx, ds *pg.DiscardStmt, w pgwire.ResultWriter) error {
	if ds.Target != pg.DiscardMode_DISCARD_TEMP {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "DISCARD %s is not supported yet", map[pg.DiscardMode]string{
			pg.DiscardMode_DISCARD_ALL: "ALL", pg.DiscardMode_DISCARD_PLANS: "PLANS", pg.DiscardMode_DISCARD_SEQUENCES: "SEQUENCES"}[ds.Target])
	}
	if err := s.dropTempRelations(c); err != nil {
		return err
	}
	return w.CommandComplete("DISCARD TEMP")
}

// checkOtherTemp refuses to change another session's temporary table.
func checkOtherTemp(c *exec.Ctx, rel *catalog.Relation, what string) error {
	if c.Tx.IsOtherTemp(rel) {
		return catalog.OtherSessionTempError(what)
	}
	return nil
}

// quietWriter swallows what internal statements would report.
type quietWriter struct{}

func (quietWriter) RowDescription([]pgwire.FieldDesc) error { return nil }
func (quietWriter) DataRow([][]byte) error                  { return nil }
func (quietWriter) CommandComplete(string) error            { return nil }
func (quietWriter) EmptyQuery() error                       { return nil }
func (quietWriter) Notice(*pgerr.Error) error               { return nil }

// checkForeignKeyPersistence: a permanent table may reference only
// permanent tables, a temporary one only temporary tables of its session.
func checkForeignKeyPersistence(c *exec.Ctx, rel, parent *catalog.Relation) error {
	switch {
	case !rel.IsTemp() && parent.IsTemp():
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	case rel.IsTemp() && !parent.IsTemp():
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	case rel.IsTemp() && parent.Namespace != rel.Namespace:
		return pgerr.Errorf(pgerr.InvalidTableDefinition, "constraints on temporary tables must involve temporary tables of this session")
	}
	return nil
}
