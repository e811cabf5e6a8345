package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// addConstraintUsingIndex is ALTER TABLE … ADD [CONSTRAINT name] PRIMARY
// KEY | UNIQUE USING INDEX ix, as PostgreSQL does it (transformIndexConstraint,
// ATExecAddIndexConstraint): the existing unique index becomes the
// constraint's index, renamed to the constraint's name (with a NOTICE) if
// one is given; for a primary key the index is marked primary and its
// columns NOT NULL, after checking the rows.
func (s *Session) addConstraintUsingIndex(c *exec.Ctx, rel *catalog.Relation, con *pg.Constraint) error {
	ir, err := s.usableConstraintIndex(c, rel, con)
	if err != nil {
		return err
	}
	primary := con.Contype == pg.ConstrType_CONSTR_PRIMARY
	name := ir.Name
	if con.Conname != "" && con.Conname != ir.Name {
		name = con.Conname
		c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion,
			"ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index \"%s\" to \"%s\"", ir.Name, name))
	}
	keys := ir.Index.Keys
	if primary {
		for _, ix := range rel.Indexes {
			if ix.Index.Primary {
				return pgerr.Errorf(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", rel.Name)
			}
		}
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
	cat := s.eng.Catalog
	if name != ir.Name {
		if err := cat.RenameRelation(c.Tx, ir, name); err != nil {
			return err
		}
	}
	kind := byte(catalog.ConUnique)
	if primary {
		kind = catalog.ConPrimary
		if err := cat.MarkIndexPrimary(c.Tx, ir.OID); err != nil {
			return err
		}
		for _, k := range keys {
			if err := cat.SetColumnNotNull(c.Tx, rel, k, true); err != nil {
				return err
			}
		}
	}
	return cat.AddConstraint(c.Tx, &catalog.Constraint{Name: name, Namespace: rel.Namespace, Type: kind,
		Validated: true, RelID: rel.OID, IndexID: ir.OID, Keys: keys})
}

// usableConstraintIndex finds the index a USING INDEX clause names and
// makes PostgreSQL's checks of it (tidal's indexes are always btree, valid,
// immediate, on plain columns in default order, so those checks hold).
func (s *Session) usableConstraintIndex(c *exec.Ctx, rel *catalog.Relation, con *pg.Constraint) (*catalog.Relation, error) {
	at := func(e *pgerr.Error) *pgerr.Error {
		e.Position = con.Location + 1
		return e
	}
	var ir *catalog.Relation
	for _, x := range rel.Indexes {
		if x.Name == con.Indexname {
			ir = x
		}
	}
	if ir == nil {
		other, err := s.eng.Catalog.Lookup(c.Tx, "", con.Indexname)
		if err != nil {
			return nil, err
		}
		if other != nil && other.Kind == catalog.KindIndex && other.Namespace == rel.Namespace {
			return nil, at(pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "index \"%s\" does not belong to table \"%s\"", con.Indexname, rel.Name))
		}
		return nil, at(pgerr.Errorf(pgerr.UndefinedObject, "index \"%s\" does not exist", con.Indexname))
	}
	for _, k := range rel.Constraints {
		if k.IndexID == ir.OID && (k.Type == catalog.ConPrimary || k.Type == catalog.ConUnique) {
			return nil, at(pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "index \"%s\" is already associated with a constraint", ir.Name))
		}
	}
	if !ir.Index.Unique {
		return nil, at(pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a unique index", ir.Name).
			WithDetail("Cannot create a primary key or unique constraint using such an index."))
	}
	return ir, nil
}

// existingIndexInCreateTable is PostgreSQL's error for USING INDEX in
// CREATE TABLE, where there is no index to use yet.
func existingIndexInCreateTable(con *pg.Constraint) error {
	e := pgerr.Errorf(pgerr.FeatureNotSupported, "cannot use an existing index in CREATE TABLE")
	e.Position = con.Location + 1
	return e
}
