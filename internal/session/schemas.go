package session

import (
	"cmp"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// pathSetting tells the catalog which search path is in force
// (catalog/namespace.go resolves it).
func (s *Session) pathSetting() (string, string) {
	return s.Setting("search_path"), s.currentUser()
}

// creationNamespace is where an unqualified new object goes: the first
// existing schema of the search path, the session's temporary namespace
// if that is pg_temp.
func (s *Session) creationNamespace(c *exec.Ctx) (uint32, error) {
	nsp, temp, err := s.eng.Catalog.CreationNamespace(c.Tx)
	if err != nil || !temp {
		return nsp, err
	}
	c.Tx.AccessedTemp = true
	return s.tempNamespace(c)
}

// lockNamespaces serializes schema DDL: pg_namespace has no unique index
// to make a concurrent CREATE SCHEMA of the same name wait.
func (s *Session) lockNamespaces(c *exec.Ctx) error {
	if err := s.lockRel(c, catalog.PgNamespaceRelID, xact.ShareRowExclusiveLock); err != nil {
		return err
	}
	if !s.usesTxSnapshot() {
		s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	return nil
}

// checkSchemaName refuses the names PostgreSQL reserves.
func checkSchemaName(name string) error {
	if strings.HasPrefix(name, "pg_") {
		return pgerr.Errorf(pgerr.ReservedName, "unacceptable schema name \"%s\"", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	return nil
}

// createSchema is CREATE SCHEMA: the schema, then its elements, sorted as
// PostgreSQL's transformCreateSchemaStmt sorts them (sequences, tables,
// views, indexes, the rest), each made with the new schema first on the
// search path.
func (s *Session) createSchema(c *exec.Ctx, cs *pg.CreateSchemaStmt, w pgwire.ResultWriter) error {
	owner := s.currentRoleOID(c)
	name := cs.Schemaname
	if cs.Authrole != nil {
		role, err := s.lookupRoleSpec(c, cs.Authrole)
		if err != nil {
			return err
		}
		owner = role.OID
		if name == "" {
			name = role.Name
		}
	}
	if err := checkSchemaName(name); err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockNamespaces(c); err != nil {
		return err
	}
	if n, err := s.eng.Catalog.NamespaceByName(c.Tx, name); err != nil {
		return err
	} else if n != nil {
		if cs.IfNotExists {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.DuplicateSchema, "schema \"%s\" already exists, skipping", name))
			return w.CommandComplete("CREATE SCHEMA")
		}
		return pgerr.Errorf(pgerr.DuplicateSchema, "schema \"%s\" already exists", name)
	}
	if _, err := s.eng.Catalog.CreateNamespace(c.Tx, name, owner); err != nil {
		return err
	}
	elts, err := schemaElements(cs.SchemaElts, name)
	if err != nil {
		return err
	}
	if len(elts) > 0 {
		outer := c.Tx.PathSetting
		c.Tx.PathSetting = func() (string, string) {
			path, user := outer()
			return types.QuoteIdent(name) + ", " + path, user
		}
		defer func() { c.Tx.PathSetting = outer }()
		for _, e := range elts {
			if err := s.execute(c.Context, e, "", elementWriter{w}); err != nil {
				return err
			}
		}
	}
	return w.CommandComplete("CREATE SCHEMA")
}

// schemaElements orders a CREATE SCHEMA's elements and names the schema
// in each (an element naming another schema is an error).
func schemaElements(nodes []*pg.Node, schema string) ([]*pg.Node, error) {
	var seqs, tables, views, indexes, rest []*pg.Node
	setSchema := func(rv *pg.RangeVar) error {
		if rv == nil {
			return nil
		}
		if rv.Schemaname != "" && rv.Schemaname != schema {
			e := pgerr.Errorf("42P15", "CREATE specifies a schema (%s) different from the one being created (%s)", rv.Schemaname, schema)
			e.Position = rv.Location + 1
			return e
		}
		rv.Schemaname = schema
		return nil
	}
	for _, n := range nodes {
		var err error
		switch {
		case n.GetCreateSeqStmt() != nil:
			err = setSchema(n.GetCreateSeqStmt().Sequence)
			seqs = append(seqs, n)
		case n.GetCreateStmt() != nil:
			err = setSchema(n.GetCreateStmt().Relation)
			tables = append(tables, n)
		case n.GetViewStmt() != nil:
			err = setSchema(n.GetViewStmt().View)
			views = append(views, n)
		case n.GetIndexStmt() != nil:
			err = setSchema(n.GetIndexStmt().Relation)
			indexes = append(indexes, n)
		case n.GetCreateTrigStmt() != nil:
			err = setSchema(n.GetCreateTrigStmt().Relation)
			rest = append(rest, n)
		default:
			rest = append(rest, n)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(append(append(append(seqs, tables...), views...), indexes...), rest...), nil
}

// elementWriter passes a schema element's notices on and keeps its
// command tag to itself.
type elementWriter struct{ pgwire.ResultWriter }

func (elementWriter) CommandComplete(string) error { return nil }

// lookupSchema is the schema named name, PostgreSQL's 3F000 error if
// there is none (nil, nil when missingOK).
func (s *Session) lookupSchema(c *exec.Ctx, name string, missingOK bool) (*catalog.Namespace, error) {
	n, err := s.eng.Catalog.NamespaceByName(c.Tx, name)
	if err != nil || n != nil || missingOK {
		return n, err
	}
	return nil, pgerr.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
}

// systemSchema: a schema the database system needs (DROP refuses it).
func (s *Session) systemSchema(n *catalog.Namespace) bool {
	switch n.OID {
	case catalog.PgCatalogNamespace, catalog.PgToastNamespace, catalog.InfoSchemaNamespace:
		return true
	}
	return s.eng.Catalog.IsTempNamespace(n.OID)
}

// dropSchemas is DROP SCHEMA: RESTRICT refuses a schema that holds
// objects; CASCADE drops them (with what depends on them) first.
func (s *Session) dropSchemas(c *exec.Ctx, ds *pg.DropStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockNamespaces(c); err != nil {
		return err
	}
	cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
	var nsps []*catalog.Namespace
	for _, o := range ds.Objects {
		name := o.GetString_().GetSval()
		n, err := s.lookupSchema(c, name, ds.MissingOk)
		if err != nil {
			return err
		}
		if n == nil {
			w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", name))
			continue
		}
		if s.systemSchema(n) {
			return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
		}
		nsps = append(nsps, n)
	}
	// Objects are described in creation order (PostgreSQL's pg_depend
	// order) across the schemas, and dropped relations first.
	type described struct {
		oid          uint32
		text, schema string
	}
	var descs []described
	members := map[uint32][]catalog.NamespaceMember{}
	for _, n := range nsps {
		m, err := s.eng.Catalog.NamespaceMembers(c.Tx, n.OID)
		if err != nil {
			return err
		}
		members[n.OID] = m
		for _, x := range m {
			if x.Kind == catalog.KindSequence {
				// A column's sequence goes with its table, unlisted.
				if _, owned, err := s.eng.Catalog.SequenceOwner(c.Tx, x.OID); err != nil {
					return err
				} else if owned {
					continue
				}
			}
			descs = append(descs, described{x.OID, s.memberDescription(c, n, x), n.Name})
		}
	}
	slices.SortFunc(descs, func(a, b described) int { return cmp.Compare(a.oid, b.oid) })
	all := make([]string, len(descs))
	for i, d := range descs {
		all[i] = d.text
	}
	if len(all) > 0 && !cascade {
		var detail []string
		for _, d := range descs {
			detail = append(detail, d.text+" depends on schema "+d.schema)
		}
		return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", descs[0].schema).
			WithDetail("%s", strings.Join(detail, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	noticeCascade(w, all)
	// The members' own drops are reported by the notice above.
	notice := c.Notice
	c.Notice = func(*pgerr.Error) {}
	defer func() { c.Notice = notice }()
	for _, n := range nsps {
		for _, x := range members[n.OID] {
			if err := s.dropMember(c, n, x); err != nil {
				return err
			}
		}
		if err := s.eng.Catalog.DropNamespaceRow(c.Tx, n.OID); err != nil {
			return err
		}
	}
	return w.CommandComplete("DROP SCHEMA")
}

// noticeCascade is the NOTICE of a DROP … CASCADE that drops the objects
// described.
func noticeCascade(w pgwire.ResultWriter, descs []string) {
	switch len(descs) {
	case 0:
	case 1:
		w.Notice(pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %s", descs[0]))
	default:
		lines := make([]string, len(descs))
		for i, d := range descs {
			lines[i] = "drop cascades to " + d
		}
		n := pgerr.Noticef(pgerr.SevNotice, pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(descs))
		n.Detail = strings.Join(lines, "\n")
		w.Notice(n)
	}
}

var memberKindWords = map[byte]string{
	catalog.KindTable: "table", 'p': "table", catalog.KindView: "view", catalog.KindMatView: "materialized view",
	catalog.KindSequence: "sequence", 'f': "foreign table", 'T': "type",
}

// memberDescription is getObjectDescription's text for a schema member.
func (s *Session) memberDescription(c *exec.Ctx, n *catalog.Namespace, x catalog.NamespaceMember) string {
	qual := s.eng.Catalog.NamespaceQualifier(c.Tx, n.OID) + types.QuoteIdent(x.Name)
	if x.Kind == 'f' {
		p, err := s.eng.Catalog.ProcByOID(c.Tx, x.OID)
		if err == nil && p != nil {
			word := "function"
			if p.Kind == catalog.ProcProcedure {
				word = "procedure"
			}
			args := make([]string, len(p.ArgTypes))
			for i, t := range p.ArgTypes {
				args[i] = types.FormatTypeWith(s.typeSettings(), t, -1)
			}
			return word + " " + qual + "(" + strings.Join(args, ",") + ")"
		}
	}
	return memberKindWords[x.Kind] + " " + qual
}

// dropMember drops one object of a schema being dropped with CASCADE,
// as DROP … CASCADE of it would (it may be gone already, with an object
// it depended on).
func (s *Session) dropMember(c *exec.Ctx, n *catalog.Namespace, x catalog.NamespaceMember) error {
	qual := types.QuoteIdent(n.Name) + "." + types.QuoteIdent(x.Name)
	var stmt string
	switch x.Kind {
	case 'f':
		p, err := s.eng.Catalog.ProcByOID(c.Tx, x.OID)
		if err != nil || p == nil {
			return err
		}
		return s.eng.Catalog.DropProc(c.Tx, p)
	case 'T':
		word := "TYPE"
		if x.TypeKind == 'd' {
			word = "DOMAIN"
		}
		if u, err := s.eng.Catalog.UserTypeByOID(c.Tx, x.OID); err != nil || u == nil {
			return err
		}
		stmt = "DROP " + word + " IF EXISTS " + qual + " CASCADE"
	default:
		if r, err := s.eng.Catalog.ByOID(c.Tx, x.OID); err != nil || r == nil {
			return err
		}
		word := map[byte]string{catalog.KindView: "VIEW", catalog.KindMatView: "MATERIALIZED VIEW", catalog.KindSequence: "SEQUENCE"}[x.Kind]
		if word == "" {
			word = "TABLE"
		}
		stmt = "DROP " + word + " IF EXISTS " + qual + " CASCADE"
	}
	tree, err := pg.Parse(stmt)
	if err != nil {
		return err
	}
	return s.drop(c, tree.Stmts[0].Stmt.GetDropStmt(), quietWriter{})
}

// renameSchema is ALTER SCHEMA … RENAME TO.
func (s *Session) renameSchema(c *exec.Ctx, rs *pg.RenameStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockNamespaces(c); err != nil {
		return err
	}
	n, err := s.lookupSchema(c, rs.Subname, false)
	if err != nil {
		return err
	}
	if other, err := s.eng.Catalog.NamespaceByName(c.Tx, rs.Newname); err != nil {
		return err
	} else if other != nil {
		return pgerr.Errorf(pgerr.DuplicateSchema, "schema \"%s\" already exists", rs.Newname)
	}
	if err := checkSchemaName(rs.Newname); err != nil {
		return err
	}
	if err := s.renameSchemaInViews(c, n.Name, rs.Newname); err != nil {
		return err
	}
	if err := s.eng.Catalog.RenameNamespaceInDefaults(c.Tx, n.OID, n.Name, rs.Newname); err != nil {
		return err
	}
	if err := s.eng.Catalog.UpdateNamespace(c.Tx, n.OID, func(x *catalog.Namespace) { x.Name = rs.Newname }); err != nil {
		return err
	}
	return w.CommandComplete("ALTER SCHEMA")
}

// renameSchemaInViews rewrites the stored queries that name relations of
// a renamed schema (they are stored qualified; PostgreSQL stores OIDs).
func (s *Session) renameSchemaInViews(c *exec.Ctx, oldName, newName string) error {
	return s.rewriteViewRangeVars(c, func(rv *pg.RangeVar) bool {
		if rv.Schemaname == oldName {
			rv.Schemaname = newName
			return true
		}
		return false
	})
}

// alterSchemaOwner is ALTER SCHEMA … OWNER TO.
func (s *Session) alterSchemaOwner(c *exec.Ctx, st *pg.AlterOwnerStmt, w pgwire.ResultWriter) error {
	if err := s.assignXid(c); err != nil {
		return err
	}
	if err := s.lockNamespaces(c); err != nil {
		return err
	}
	n, err := s.lookupSchema(c, st.Object.GetString_().GetSval(), false)
	if err != nil {
		return err
	}
	role, err := s.lookupRoleSpec(c, st.Newowner)
	if err != nil {
		return err
	}
	if err := s.eng.Catalog.UpdateNamespace(c.Tx, n.OID, func(x *catalog.Namespace) { x.Owner = role.OID }); err != nil {
		return err
	}
	return w.CommandComplete("ALTER SCHEMA")
}

// executeSchemaStmt runs the schema and comment statements.
func (s *Session) executeSchemaStmt(c *exec.Ctx, stmt *pg.Node, w pgwire.ResultWriter) (bool, error) {
	switch {
	case stmt.GetCreateSchemaStmt() != nil:
		return true, s.createSchema(c, stmt.GetCreateSchemaStmt(), w)
	case stmt.GetAlterOwnerStmt() != nil && stmt.GetAlterOwnerStmt().ObjectType == pg.ObjectType_OBJECT_SCHEMA:
		return true, s.alterSchemaOwner(c, stmt.GetAlterOwnerStmt(), w)
	case stmt.GetAlterObjectSchemaStmt() != nil:
		return true, s.alterObjectSchema(c, stmt.GetAlterObjectSchemaStmt(), w)
	case stmt.GetCommentStmt() != nil:
		return true, s.comment(c, stmt.GetCommentStmt(), w)
	}
	return false, nil
}
