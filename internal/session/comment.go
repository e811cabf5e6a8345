package session

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/xact"
)

// COMMENT ON: the object is resolved as PostgreSQL's get_object_address
// resolves it, then its comment is stored in pg_description (or
// pg_shdescription for roles and the database); IS NULL or '' removes it.

// objectAddress identifies an object as pg_description keys it.
type objectAddress struct {
	classoid, objoid uint32
	subid            int32
}

func (s *Session) comment(c *exec.Ctx, cs *pg.CommentStmt, w pgwire.ResultWriter) error {
	addr, err := s.commentTarget(c, cs.Objtype, cs.Object)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if addr.classoid == catalog.PgClassRelID {
		if err := s.lockRel(c, addr.objoid, xact.ShareUpdateExclusiveLock); err != nil {
			return err
		}
	}
	if err := s.eng.Catalog.SetDescription(c.Tx, addr.classoid, addr.objoid, addr.subid, cs.Comment); err != nil {
		return err
	}
	return w.CommandComplete("COMMENT")
}

var relationObjectKinds = map[pg.ObjectType]struct {
	kinds []byte
	what  string
}{
	pg.ObjectType_OBJECT_TABLE:         {[]byte{catalog.KindTable, 'p'}, "table"},
	pg.ObjectType_OBJECT_VIEW:          {[]byte{catalog.KindView}, "view"},
	pg.ObjectType_OBJECT_MATVIEW:       {[]byte{catalog.KindMatView}, "materialized view"},
	pg.ObjectType_OBJECT_SEQUENCE:      {[]byte{catalog.KindSequence}, "sequence"},
	pg.ObjectType_OBJECT_INDEX:         {[]byte{catalog.KindIndex, 'I'}, "index"},
	pg.ObjectType_OBJECT_FOREIGN_TABLE: {[]byte{'f'}, "foreign table"},
}

func (s *Session) commentTarget(c *exec.Ctx, kind pg.ObjectType, obj *pg.Node) (objectAddress, error) {
	if rk, ok := relationObjectKinds[kind]; ok {
		rel, err := s.commentRelation(c, stringList(obj.GetList().GetItems()))
		if err != nil {
			return objectAddress{}, err
		}
		k := relKind(rel)
		if rel.PartKey != nil {
			k = 'p'
		}
		if rel.Kind == catalog.KindIndex && rel.PartitionedIndex {
			k = 'I'
		}
		for _, want := range rk.kinds {
			if k == want {
				return objectAddress{catalog.PgClassRelID, rel.OID, 0}, nil
			}
		}
		return objectAddress{}, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a%s %s", rel.Name, article(rk.what), rk.what)
	}
	switch kind {
	case pg.ObjectType_OBJECT_COLUMN:
		parts := stringList(obj.GetList().GetItems())
		if len(parts) < 2 {
			return objectAddress{}, pgerr.Errorf(pgerr.SyntaxError, "column name must be qualified")
		}
		rel, err := s.commentRelation(c, parts[:len(parts)-1])
		if err != nil {
			return objectAddress{}, err
		}
		col := parts[len(parts)-1]
		for _, a := range rel.Attrs {
			if a.Name == col && !a.Dropped {
				return objectAddress{catalog.PgClassRelID, rel.OID, int32(a.Num)}, nil
			}
		}
		return objectAddress{}, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, strings.Join(parts[:len(parts)-1], "."))
	case pg.ObjectType_OBJECT_SCHEMA:
		n, err := s.lookupSchema(c, obj.GetString_().GetSval(), false)
		if err != nil {
			return objectAddress{}, err
		}
		return objectAddress{catalog.PgNamespaceRelID, n.OID, 0}, nil
	case pg.ObjectType_OBJECT_ROLE:
		r, err := s.lookupRoleName(c, obj.GetString_().GetSval())
		if err != nil {
			return objectAddress{}, err
		}
		return objectAddress{catalog.PgAuthidRelID, r.OID, 0}, nil
	case pg.ObjectType_OBJECT_DATABASE:
		name := obj.GetString_().GetSval()
		if name != catalog.DatabaseName {
			return objectAddress{}, pgerr.Errorf("3D000", "database \"%s\" does not exist", name)
		}
		return objectAddress{catalog.PgDatabaseRelID, catalog.DatabaseOID, 0}, nil
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE:
		p, _, err := s.lookupRoutine(c, obj.GetObjectWithArgs(), kind, false)
		if err != nil {
			return objectAddress{}, err
		}
		return objectAddress{catalog.PgProcRelID, p.OID, 0}, nil
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		oid, err := s.commentType(c, obj.GetTypeName(), kind == pg.ObjectType_OBJECT_DOMAIN)
		return objectAddress{catalog.PgTypeRelID, oid, 0}, err
	case pg.ObjectType_OBJECT_TABCONSTRAINT:
		parts := stringList(obj.GetList().GetItems())
		rel, err := s.commentRelation(c, parts[:len(parts)-1])
		if err != nil {
			return objectAddress{}, err
		}
		name := parts[len(parts)-1]
		for _, k := range rel.Constraints {
			if k.Name == name {
				return objectAddress{catalog.PgConstraintRelID, k.OID, 0}, nil
			}
		}
		return objectAddress{}, pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, rel.Name)
	case pg.ObjectType_OBJECT_DOMCONSTRAINT:
		items := obj.GetList().GetItems()
		oid, err := s.commentType(c, items[0].GetTypeName(), true)
		if err != nil {
			return objectAddress{}, err
		}
		name := items[1].GetString_().GetSval()
		ks, err := s.eng.Catalog.DomainConstraints(c.Tx, oid)
		if err != nil {
			return objectAddress{}, err
		}
		for _, k := range ks {
			if k.Name == name {
				return objectAddress{catalog.PgConstraintRelID, k.OID, 0}, nil
			}
		}
		return objectAddress{}, pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for domain %s does not exist", name, typeNameString(items[0].GetTypeName()))
	}
	return objectAddress{}, pgerr.Errorf(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported yet", strings.ReplaceAll(strings.TrimPrefix(kind.String(), "OBJECT_"), "_", " "))
}

func article(what string) string {
	if strings.IndexByte("aeiou", what[0]) >= 0 {
		return "n"
	}
	return ""
}

// commentRelation resolves a possibly qualified relation name.
func (s *Session) commentRelation(c *exec.Ctx, parts []string) (*catalog.Relation, error) {
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	rel, err := s.eng.Catalog.Lookup(c.Tx, schema, name)
	if err != nil {
		return nil, err
	}
	if rel == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, name))
	}
	return rel, nil
}

// commentType resolves a type name: a domain (which domainOnly asks
// for), a user-defined type or a built-in one.
func (s *Session) commentType(c *exec.Ctx, tn *pg.TypeName, domainOnly bool) (uint32, error) {
	d, err := s.domainNamed(c, tn.Names)
	if err != nil {
		return 0, err
	}
	if d != nil {
		return d.OID, nil
	}
	if t, ok, err := s.userType(c, tn.Names); err != nil {
		return 0, err
	} else if ok {
		if domainOnly {
			return 0, pgerr.Errorf(pgerr.WrongObjectType, "%s is not a domain", typeNameString(tn))
		}
		return t.OID, nil
	}
	t, err := expr.TypeFromName(tn)
	if err != nil {
		return 0, err
	}
	if domainOnly {
		return 0, pgerr.Errorf(pgerr.WrongObjectType, "%s is not a domain", typeNameString(tn))
	}
	return t.OID, nil
}
