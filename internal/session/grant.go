package session

// GRANT and REVOKE on objects (PostgreSQL's aclchk.c): the privileges
// named are checked against what the object has, the grantor chosen (the
// owner, when the current user has the owner's privileges; else a role of
// the current user holding the grant options), what it may not grant is
// dropped with a warning, and each grantee's aclitem is updated. REVOKE of
// a table privilege that columns also have revokes it from every column.

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// grantRequest is a GRANT or REVOKE statement, resolved.
type grantRequest struct {
	st       *pg.GrantStmt
	grant    bool
	option   bool // WITH GRANT OPTION / GRANT OPTION FOR
	cascade  bool
	all      bool // ALL PRIVILEGES
	privs    acl.Mode
	cols     map[acl.Mode][]string // column privileges: privilege → columns
	grantees []string              // "" = PUBLIC
	user     *catalog.Role
	az       *catalog.Authz
}

// grantObject is one object a GRANT names, as aclchk sees it.
type grantObject struct {
	kind  acl.Kind
	name  string // for messages
	owner uint32
	list  acl.ACL
	store func(acl.ACL) error
	rel   *catalog.Relation // a relation's (for column privileges)
	// procedure: a routine that is a procedure (for messages)
	procedure bool
}

func (s *Session) grantStmt(c *exec.Ctx, st *pg.GrantStmt, w pgwire.ResultWriter) error {
	if st.Targtype == pg.GrantTargetType_ACL_TARGET_DEFAULTS {
		return pgerr.Errorf(pgerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES is not supported yet")
	}
	if !s.usesTxSnapshot() {
		s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	req, err := s.resolveGrant(c, st)
	if err != nil {
		return err
	}
	objs, err := s.grantObjects(c, req)
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	for _, o := range objs {
		if err := s.grantOn(c, req, o); err != nil {
			return err
		}
	}
	if req.grant {
		return w.CommandComplete("GRANT")
	}
	return w.CommandComplete("REVOKE")
}

func (s *Session) resolveGrant(c *exec.Ctx, st *pg.GrantStmt) (*grantRequest, error) {
	az, err := s.eng.Catalog.NewAuthz(c.Tx)
	if err != nil {
		return nil, err
	}
	user := az.Role(s.currentUser())
	if user == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", s.currentUser())
	}
	req := &grantRequest{st: st, grant: st.IsGrant, option: st.GrantOption, cascade: st.Behavior == pg.DropBehavior_DROP_CASCADE,
		user: user, az: az, all: len(st.Privileges) == 0}
	if st.Grantor != nil {
		name, err := s.roleSpecName(st.Grantor)
		if err != nil {
			return nil, err
		}
		if name != user.Name {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "grantor must be current user")
		}
	}
	for _, g := range st.Grantees {
		rs := g.GetRoleSpec()
		if rs.GetRoletype() == pg.RoleSpecType_ROLESPEC_PUBLIC {
			if req.grant && req.option {
				return nil, pgerr.Errorf(pgerr.InvalidGrantOperation, "grant options can only be granted to roles")
			}
			req.grantees = append(req.grantees, "")
			continue
		}
		name, err := s.roleSpecName(rs)
		if err != nil {
			return nil, err
		}
		if az.Role(name) == nil {
			return nil, pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		req.grantees = append(req.grantees, name)
	}
	kind := grantKind(st.Objtype)
	for _, n := range st.Privileges {
		ap := n.GetAccessPriv()
		var m acl.Mode
		if ap.PrivName == "" && len(ap.Cols) > 0 {
			m = acl.All(acl.Column) // ALL (columns)
		} else if ap.PrivName == "" {
			m = acl.All(kind)
		} else {
			var ok bool
			if m, ok = acl.ParseName(ap.PrivName); !ok {
				return nil, pgerr.Errorf(pgerr.SyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
			}
		}
		if len(ap.Cols) > 0 {
			if req.cols == nil {
				req.cols = map[acl.Mode][]string{}
			}
			if m&^acl.All(acl.Column) != 0 {
				return nil, pgerr.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for column", acl.Name(m&^acl.All(acl.Column)))
			}
			for _, col := range ap.Cols {
				req.cols[m] = append(req.cols[m], col.GetString_().Sval)
			}
			continue
		}
		if m&^acl.All(kind) != 0 && !(kind == acl.Table && m&^(acl.All(acl.Table)|acl.All(acl.Sequence)) == 0) {
			return nil, pgerr.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", acl.Name(m), grantKindWord(st.Objtype))
		}
		req.privs |= m
	}
	if req.all {
		req.privs = acl.All(kind)
	}
	return req, nil
}

func grantKind(t pg.ObjectType) acl.Kind {
	switch t {
	case pg.ObjectType_OBJECT_SEQUENCE:
		return acl.Sequence
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
		return acl.Function
	case pg.ObjectType_OBJECT_SCHEMA:
		return acl.Schema
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		return acl.Type
	case pg.ObjectType_OBJECT_DATABASE:
		return acl.Database
	case pg.ObjectType_OBJECT_LANGUAGE:
		return acl.Language
	case pg.ObjectType_OBJECT_LARGEOBJECT:
		return acl.LargeObject
	}
	return acl.Table
}

func grantKindWord(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_SEQUENCE:
		return "sequence"
	case pg.ObjectType_OBJECT_FUNCTION:
		return "function"
	case pg.ObjectType_OBJECT_PROCEDURE:
		return "procedure"
	case pg.ObjectType_OBJECT_ROUTINE:
		return "routine"
	case pg.ObjectType_OBJECT_SCHEMA:
		return "schema"
	case pg.ObjectType_OBJECT_TYPE:
		return "type"
	case pg.ObjectType_OBJECT_DOMAIN:
		return "domain"
	case pg.ObjectType_OBJECT_DATABASE:
		return "database"
	case pg.ObjectType_OBJECT_LANGUAGE:
		return "language"
	case pg.ObjectType_OBJECT_LARGEOBJECT:
		return "large object"
	}
	return "table"
}

// grantObjects resolves the objects a GRANT names.
func (s *Session) grantObjects(c *exec.Ctx, req *grantRequest) ([]*grantObject, error) {
	st := req.st
	cat := s.eng.Catalog
	var out []*grantObject
	if st.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		for _, n := range st.Objects {
			nsp, err := cat.NamespaceOID(c.Tx, n.GetString_().Sval)
			if err != nil {
				return nil, err
			}
			rels, err := cat.AllTables(c.Tx)
			if err != nil {
				return nil, err
			}
			seqs, err := cat.Sequences(c.Tx)
			if err != nil {
				return nil, err
			}
			rels = append(rels, seqs...)
			for _, r := range rels {
				if r.Namespace != nsp || (st.Objtype == pg.ObjectType_OBJECT_SEQUENCE) != (r.Kind == catalog.KindSequence) {
					continue
				}
				out = append(out, s.relationObject(c, r))
			}
		}
		return out, nil
	}
	for _, n := range st.Objects {
		switch grantKind(st.Objtype) {
		case acl.Table, acl.Sequence:
			rv := n.GetRangeVar()
			rel, err := (&exec.Planner{C: c}).OpenRelation(rv, lockAccessShareMode)
			if err != nil && !isWrongObjectType(err) {
				return nil, err
			}
			if rel == nil {
				if rel, err = cat.Lookup(c.Tx, rv.Schemaname, rv.Relname); err != nil || rel == nil {
					return nil, err
				}
			}
			if st.Objtype == pg.ObjectType_OBJECT_SEQUENCE && rel.Kind != catalog.KindSequence {
				return nil, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", rel.Name)
			}
			out = append(out, s.relationObject(c, rel))
		case acl.Function:
			p, _, err := s.lookupRoutine(c, n.GetObjectWithArgs(), st.Objtype, false)
			if err != nil {
				return nil, err
			}
			out = append(out, &grantObject{kind: acl.Function, name: p.Name, owner: p.Owner, list: p.ACL, procedure: p.Kind == catalog.ProcProcedure,
				store: func(l acl.ACL) error { np := *p; np.ACL = l; return cat.UpdateProc(c.Tx, &np) }})
		case acl.Schema:
			name := n.GetString_().Sval
			oid, err := cat.NamespaceOID(c.Tx, name)
			if err != nil {
				return nil, err
			}
			owner, list, _, err := cat.NamespaceACL(c.Tx, oid)
			if err != nil {
				return nil, err
			}
			out = append(out, &grantObject{kind: acl.Schema, name: name, owner: owner, list: list,
				store: func(l acl.ACL) error { return cat.SetNamespaceACL(c.Tx, oid, l) }})
		case acl.Type:
			o, err := s.typeObject(c, n, st.Objtype)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		case acl.Language:
			name := n.GetString_().Sval
			var lang *catalog.Language
			for i := range catalog.BootstrapLanguages {
				if catalog.BootstrapLanguages[i].Name == name {
					lang = &catalog.BootstrapLanguages[i]
				}
			}
			if lang == nil {
				return nil, pgerr.Errorf(pgerr.UndefinedObject, "language \"%s\" does not exist", name)
			}
			if !lang.Trusted {
				return nil, pgerr.Errorf(pgerr.WrongObjectType, "language \"%s\" is not trusted", name).
					WithDetail("GRANT and REVOKE are not allowed on untrusted languages, because only superusers can use untrusted languages.")
			}
			owner, list, _, err := cat.LanguageACL(c.Tx, lang.OID)
			if err != nil {
				return nil, err
			}
			oid := lang.OID
			out = append(out, &grantObject{kind: acl.Language, name: name, owner: owner, list: list,
				store: func(l acl.ACL) error { return cat.SetLanguageACL(c.Tx, oid, l) }})
		default:
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "GRANT on %s is not supported yet", grantKindWord(st.Objtype))
		}
	}
	return out, nil
}

const lockAccessShareMode = 1

func isWrongObjectType(err error) bool { return pgerr.Code(err) == pgerr.WrongObjectType }

func (s *Session) relationObject(c *exec.Ctx, rel *catalog.Relation) *grantObject {
	return &grantObject{kind: catalog.RelationKind(rel), name: rel.Name, owner: rel.Owner, list: rel.ACL, rel: rel,
		store: func(l acl.ACL) error { return s.eng.Catalog.SetRelACL(c.Tx, rel.OID, l) }}
}

// grantOn applies the request to one object.
func (s *Session) grantOn(c *exec.Ctx, req *grantRequest, o *grantObject) error {
	privs := req.privs
	if o.kind == acl.Sequence && req.st.Objtype != pg.ObjectType_OBJECT_SEQUENCE {
		// GRANT … ON TABLE naming a sequence.
		if privs&^acl.All(acl.Sequence) != 0 {
			if !req.all {
				c.Notice(pgerr.Noticef(pgerr.SevWarning, "01007", "sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges", o.name))
			}
			privs &= acl.All(acl.Sequence)
		}
	} else if o.kind == acl.Table && privs&^acl.All(acl.Table) != 0 {
		return pgerr.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for table", acl.Name(lowestBit(privs&^acl.All(acl.Table))))
	}
	ownerName := req.az.OwnerName(o.owner)
	list := o.list
	if list == nil {
		list = acl.Default(o.kind, ownerName)
	}
	if privs != 0 || len(req.cols) == 0 {
		next, err := s.applyGrant(c, req, list, o, privs, fmt.Sprintf("\"%s\"", o.name), nil)
		if err != nil {
			return err
		}
		if err := o.store(next); err != nil {
			return err
		}
	}
	if o.rel != nil {
		return s.grantColumns(c, req, o, privs, list)
	}
	return nil
}

func lowestBit(m acl.Mode) acl.Mode { return m & -m }

// applyGrant is ExecGrant_* for one list: the grantor, the privileges it
// may grant (warning about the rest) and the updated list. merged is, for
// a column, the table's list with the column's (what the grantor holds).
func (s *Session) applyGrant(c *exec.Ctx, req *grantRequest, list acl.ACL, o *grantObject, privs acl.Mode, what string, col *catalog.Attr) (acl.ACL, error) {
	merged := list
	if col != nil {
		base := o.list
		if base == nil {
			base = acl.Default(o.kind, req.az.OwnerName(o.owner))
		}
		merged = append(append(acl.ACL(nil), base...), list...)
	}
	grantor, avail := s.bestGrantor(req, merged, o.owner, privs)
	if avail == 0 {
		var has acl.Mode
		if col != nil {
			has = req.az.ColumnPrivileges(req.user, o.rel, col)
		} else {
			has, _ = req.az.Mask(req.user, o.kind, o.owner, o.list)
		}
		if has == 0 {
			if col != nil {
				return nil, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for column %s of relation %s", col.Name, o.rel.Name)
			}
			return nil, s.aclDenied(o)
		}
	}
	this := privs & avail
	switch {
	case this == 0 && req.grant:
		c.Notice(pgerr.Noticef(pgerr.SevWarning, "01007", "no privileges were granted for %s", what))
	case this == 0:
		c.Notice(pgerr.Noticef(pgerr.SevWarning, "01006", "no privileges could be revoked for %s", what))
	case this != privs && !req.all && req.grant:
		c.Notice(pgerr.Noticef(pgerr.SevWarning, "01007", "not all privileges were granted for %s", what))
	case this != privs && !req.all:
		c.Notice(pgerr.Noticef(pgerr.SevWarning, "01006", "not all privileges could be revoked for %s", what))
	}
	next := list
	for _, g := range req.grantees {
		if req.grant {
			if req.option && g == grantor {
				return nil, pgerr.Errorf(pgerr.InvalidGrantOperation, "grant options cannot be granted back to your own grantor")
			}
			var opt acl.Mode
			if req.option {
				opt = this
			}
			next = next.Grant(g, grantor, this, opt)
			continue
		}
		var err error
		next, err = next.Revoke(g, grantor, this, req.option, req.cascade)
		if err == acl.ErrDependentPrivileges {
			return nil, pgerr.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
		if err != nil {
			return nil, err
		}
	}
	return next, nil
}

// bestGrantor is select_best_grantor: the owner when the current user
// has its privileges (or is a superuser); else the user's role holding
// the most of the grant options needed.
func (s *Session) bestGrantor(req *grantRequest, list acl.ACL, owner uint32, privs acl.Mode) (string, acl.Mode) {
	ownerName := req.az.OwnerName(owner)
	if req.user.Super || req.user.OID == owner {
		return ownerName, privs
	}
	best, bestN := req.user.Name, 0
	var bestOpts acl.Mode
	for _, r := range s.rolesWithPrivsOf(req) {
		var opts acl.Mode
		if r.OID == owner {
			opts = privs
		} else {
			for _, it := range list {
				if it.Grantee == r.Name {
					opts |= it.Grant & privs
				}
			}
		}
		if opts == privs {
			return r.Name, opts
		}
		if n := len(acl.Bits(opts)); n > bestN {
			best, bestN, bestOpts = r.Name, n, opts
		}
	}
	return best, bestOpts
}

// rolesWithPrivsOf lists the current user and the roles whose privileges
// it has, itself first.
func (s *Session) rolesWithPrivsOf(req *grantRequest) []*catalog.Role {
	out := []*catalog.Role{req.user}
	roles, _ := s.eng.Catalog.Roles(&s.ctx)
	for i := range roles {
		r := &roles[i]
		if r.OID != req.user.OID && req.az.IsMember(req.user.OID, r.OID) && req.az.HasPrivsOf(req.user, r.OID) {
			out = append(out, r)
		}
	}
	return out
}

func (s *Session) aclDenied(o *grantObject) error {
	if o.rel != nil {
		return exec.PermissionDenied(o.rel)
	}
	word := map[acl.Kind]string{acl.Function: "function", acl.Schema: "schema", acl.Type: "type", acl.Database: "database", acl.Language: "language"}[o.kind]
	if o.kind == acl.Function && o.procedure {
		word = "procedure"
	}
	return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for %s %s", word, o.name)
}

// grantColumns applies the column privileges of the request; a REVOKE of
// table privileges revokes them from every column too.
func (s *Session) grantColumns(c *exec.Ctx, req *grantRequest, o *grantObject, tablePrivs acl.Mode, tableList acl.ACL) error {
	perCol := map[int]acl.Mode{}
	var order []int
	add := func(i int, m acl.Mode) {
		if _, ok := perCol[i]; !ok {
			order = append(order, i)
		}
		perCol[i] |= m
	}
	for m, names := range req.cols {
		for _, name := range names {
			i := o.rel.AttrByName(name)
			if i < 0 && isSystemColumn(name) {
				continue // tidal keeps no privileges of system columns: the table's apply
			}
			if i < 0 {
				return pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, o.rel.Name)
			}
			add(i, m)
		}
	}
	explicit := len(order) > 0
	if !req.grant && tablePrivs&acl.All(acl.Column) != 0 {
		for i, a := range o.rel.Attrs {
			if !a.Dropped && a.ACL != nil {
				add(i, tablePrivs&acl.All(acl.Column))
			}
		}
	}
	_ = tableList
	for _, i := range sortedInts(order) {
		a := &o.rel.Attrs[i]
		list := a.ACL
		if list == nil {
			list = acl.ACL{}
		}
		what := fmt.Sprintf("column \"%s\" of relation \"%s\"", a.Name, o.rel.Name)
		sub := *req
		sub.all = sub.all || !explicit
		next, err := s.applyGrant(c, &sub, list, o, perCol[i], what, a)
		if err != nil {
			return err
		}
		if len(next) == 0 {
			next = nil
		}
		if err := s.eng.Catalog.SetAttrACL(c.Tx, o.rel.OID, a.Num, next); err != nil {
			return err
		}
	}
	return nil
}

func sortedInts(v []int) []int {
	out := append([]int(nil), v...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func isSystemColumn(name string) bool {
	for _, n := range catalog.SystemColumnNames {
		if n == name {
			return true
		}
	}
	return false
}

// typeObject resolves GRANT … ON TYPE/DOMAIN name: a user-defined type
// (array types take their element's privileges).
func (s *Session) typeObject(c *exec.Ctx, n *pg.Node, objType pg.ObjectType) (*grantObject, error) {
	cat := s.eng.Catalog
	var parts []string
	items := n.GetTypeName().GetNames()
	if l := n.GetList(); l != nil {
		items = l.Items
	}
	for _, item := range items {
		parts = append(parts, item.GetString_().Sval)
	}
	if len(parts) == 0 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "type name expected")
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	t, err := cat.LookupUserType(c.Tx, schema, name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		if strings.HasPrefix(name, "_") {
			if elem, _ := cat.LookupUserType(c.Tx, schema, name[1:]); elem != nil {
				return nil, pgerr.Errorf(pgerr.InvalidGrantOperation, "cannot set privileges of array types").
					WithHint("Set the privileges of the element type instead.")
			}
		}
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "type \"%s\" does not exist", name)
	}
	if objType == pg.ObjectType_OBJECT_DOMAIN && t.Kind != 'd' {
		return nil, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a domain", name)
	}
	owner, list, _, err := cat.TypeACL(c.Tx, t.OID)
	if err != nil {
		return nil, err
	}
	oid := t.OID
	return &grantObject{kind: acl.Type, name: name, owner: owner, list: list,
		store: func(l acl.ACL) error { return cat.SetTypeACL(c.Tx, oid, l) }}, nil
}
