package session

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// sessionTypes answers the type system's questions about user-defined
// types from the catalog, in the session's current transaction. One
// lives as long as the Settings it is in (a statement, a result set), so
// it keeps what it looked up: enum values are formatted row by row.
type sessionTypes struct {
	s          *Session
	enums      map[types.OID]*types.Enum
	composites map[types.OID]*types.Composite
}

func newSessionTypes(s *Session) *sessionTypes {
	return &sessionTypes{s: s, enums: map[types.OID]*types.Enum{}, composites: map[types.OID]*types.Composite{}}
}

func (t *sessionTypes) Composite(oid types.OID) *types.Composite {
	if c, ok := t.composites[oid]; ok {
		return c
	}
	c, err := exec.CompositeType(t.s.eng.Catalog, &t.s.ctx, oid)
	if err != nil {
		c = nil
	}
	t.composites[oid] = c
	return c
}

func (t *sessionTypes) TypeName(oid types.OID) string {
	u, err := t.s.eng.Catalog.UserTypeByOID(&t.s.ctx, oid)
	if err != nil || u == nil {
		return ""
	}
	return t.s.eng.Catalog.NamespaceQualifier(&t.s.ctx, u.Namespace) + types.QuoteIdent(u.Name)
}

func (t *sessionTypes) TypeOID(names []string) types.OID {
	schema := ""
	if len(names) == 2 {
		schema = names[0]
	} else if len(names) != 1 {
		return 0
	}
	u, err := t.s.eng.Catalog.LookupUserType(&t.s.ctx, schema, names[len(names)-1])
	if err != nil || u == nil {
		return 0
	}
	return u.OID
}

func (t *sessionTypes) Enum(oid types.OID) *types.Enum {
	if e, ok := t.enums[oid]; ok {
		return e
	}
	e, err := exec.EnumType(t.s.eng.Catalog, &t.s.ctx, oid)
	if err != nil {
		e = nil
	}
	t.enums[oid] = e
	return e
}

// userType resolves a type name that is no builtin to a user-defined
// type that is not a domain (an enum); ok=false if there is none.
func (s *Session) userType(c *exec.Ctx, names []*pg.Node) (types.Type, bool, error) {
	parts := stringList(names)
	schema := ""
	switch len(parts) {
	case 1:
	case 2:
		schema = parts[0]
	default:
		return types.Type{}, false, nil
	}
	u, err := s.eng.Catalog.LookupUserType(c.Tx, schema, parts[len(parts)-1])
	if err != nil || u == nil || u.Kind == catalog.TypeDomain {
		return types.Type{}, false, err
	}
	return types.Type{OID: u.OID, Typmod: -1}, true, nil
}

func (s *Session) createEnum(c *exec.Ctx, st *pg.CreateEnumStmt, w pgwire.ResultWriter) error {
	parts := stringList(st.TypeName)
	name := parts[len(parts)-1]
	nsp, err := s.typeNamespace(c, parts)
	if err != nil {
		return err
	}
	if taken, err := s.eng.Catalog.TypeNameTaken(c.Tx, nsp, name); err != nil {
		return err
	} else if taken {
		return pgerr.Errorf(pgerr.DuplicateObject, "type \"%s\" already exists", name)
	}
	labels := stringList(st.Vals)
	seen := map[string]bool{}
	for _, l := range labels {
		if err := checkEnumLabel(l); err != nil {
			return err
		}
		if seen[l] {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "enum label \"%s\" used more than once", l)
		}
		seen[l] = true
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if _, err := s.eng.Catalog.CreateEnum(c.Tx, nsp, name, labels); err != nil {
		return err
	}
	return w.CommandComplete("CREATE TYPE")
}

func checkEnumLabel(l string) error {
	if len(l) > types.NameDataLen-1 || l == "" {
		return pgerr.Errorf("42602", "invalid enum label \"%s\"", l).WithDetail("Labels must be %d bytes or less.", types.NameDataLen-1)
	}
	return nil
}

func (s *Session) alterEnum(c *exec.Ctx, st *pg.AlterEnumStmt, w pgwire.ResultWriter) error {
	t, ok, err := s.userType(c, st.TypeName)
	if err != nil {
		return err
	}
	if !ok {
		if _, terr := s.domainNamed(c, st.TypeName); terr == nil {
			if d, _ := s.domainNamed(c, st.TypeName); d != nil {
				return pgerr.Errorf(pgerr.WrongObjectType, "%s is not an enum", d.Name)
			}
		}
		return pgerr.Errorf(pgerr.UndefinedObject, "type \"%s\" does not exist", joinNames(st.TypeName))
	}
	e, err := exec.EnumType(s.eng.Catalog, c.Tx, t.OID)
	if err != nil {
		return err
	}
	if e == nil {
		return pgerr.Errorf(pgerr.WrongObjectType, "%s is not an enum", joinNames(st.TypeName))
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if st.OldVal != "" {
		err = s.eng.Catalog.RenameEnumValue(c.Tx, t.OID, st.OldVal, st.NewVal)
	} else {
		if err := checkEnumLabel(st.NewVal); err != nil {
			return err
		}
		for _, l := range e.Labels {
			if l.Label == st.NewVal {
				if st.SkipIfNewValExists {
					c.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateObject, "enum label \"%s\" already exists, skipping", st.NewVal))
					return w.CommandComplete("ALTER TYPE")
				}
				return pgerr.Errorf(pgerr.DuplicateObject, "enum label \"%s\" already exists", st.NewVal)
			}
		}
		err = s.eng.Catalog.AddEnumValue(c.Tx, t.OID, st.NewVal, st.NewValNeighbor, st.NewValIsAfter)
	}
	if err != nil {
		return err
	}
	return w.CommandComplete("ALTER TYPE")
}

func joinNames(ns []*pg.Node) string {
	out := ""
	for i, p := range stringList(ns) {
		if i > 0 {
			out += "."
		}
		out += p
	}
	return out
}

// typeNamespace is the schema a new type named parts goes in: the one
// named, else the one new relations go in.
func (s *Session) typeNamespace(c *exec.Ctx, parts []string) (uint32, error) {
	rv := &pg.RangeVar{Relname: parts[len(parts)-1], Relpersistence: "p", Location: -1}
	if len(parts) > 1 {
		rv.Schemaname = parts[len(parts)-2]
	}
	return s.namespaceFor(c, rv)
}

// createComposite is CREATE TYPE … AS (…).
func (s *Session) createComposite(c *exec.Ctx, st *pg.CompositeTypeStmt, w pgwire.ResultWriter) error {
	parts := []string{st.Typevar.Relname}
	if st.Typevar.Schemaname != "" {
		parts = []string{st.Typevar.Schemaname, st.Typevar.Relname}
	}
	name := st.Typevar.Relname
	nsp, err := s.typeNamespace(c, parts)
	if err != nil {
		return err
	}
	if taken, err := s.eng.Catalog.TypeNameTaken(c.Tx, nsp, name); err != nil {
		return err
	} else if taken {
		return pgerr.Errorf(pgerr.DuplicateObject, "type \"%s\" already exists", name)
	}
	var attrs []catalog.Attr
	seen := map[string]bool{}
	for _, n := range st.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil {
			continue
		}
		if seen[cd.Colname] {
			return pgerr.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
		}
		seen[cd.Colname] = true
		t, dom, err := s.columnType(c, cd.TypeName)
		if err != nil {
			return err
		}
		if types.Category(t) == 'P' {
			return pgerr.Errorf(pgerr.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", cd.Colname, t)
		}
		attrs = append(attrs, catalog.Attr{Name: cd.Colname, Type: t, Domain: dom})
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if _, err := s.eng.Catalog.CreateComposite(c.Tx, nsp, name, attrs); err != nil {
		return err
	}
	return w.CommandComplete("CREATE TYPE")
}
