package catalog

import (
	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Authz answers privilege questions as of one transaction: the roles,
// who has whose privileges (pg_auth_members, following INHERIT), and
// what an access control list gives a role (PostgreSQL's aclmask). It
// is built once per statement that needs it.
type Authz struct {
	byName map[string]*Role
	byOID  map[uint32]*Role
	graph  *MembershipGraph
}

// NewAuthz reads the roles and memberships visible to tx.
func (c *Catalog) NewAuthz(tx *Txn) (*Authz, error) {
	roles, err := c.Roles(tx)
	if err != nil {
		return nil, err
	}
	g, err := c.LoadMembershipGraph(tx)
	if err != nil {
		return nil, err
	}
	a := &Authz{byName: map[string]*Role{}, byOID: map[uint32]*Role{}, graph: g}
	for i := range roles {
		a.byName[roles[i].Name] = &roles[i]
		a.byOID[roles[i].OID] = &roles[i]
	}
	return a, nil
}

// Role is the role named name, nil if none.
func (a *Authz) Role(name string) *Role { return a.byName[name] }

// RoleByOID is role oid, nil if none.
func (a *Authz) RoleByOID(oid uint32) *Role { return a.byOID[oid] }

// OwnerName is the name of role oid ("" if it was dropped).
func (a *Authz) OwnerName(oid uint32) string {
	if r := a.byOID[oid]; r != nil {
		return r.Name
	}
	return ""
}

// HasPrivsOf is has_privs_of_role: user is role, or a member of it
// through roles that inherit, or a superuser.
func (a *Authz) HasPrivsOf(user *Role, role uint32) bool {
	return user.Super || a.graph.IsMember(user.OID, role, true)
}

// IsMember is is_member_of_role_nosuper.
func (a *Authz) IsMember(user, role uint32) bool { return a.graph.IsMember(user, role, false) }

// IsAdmin is is_admin_of_role (superusers included).
func (a *Authz) IsAdmin(user *Role, role uint32) bool {
	return user.Super || a.graph.IsAdmin(user.OID, role)
}

// Mask is what list (nil: kind's default for owner) gives user: the
// privileges of every item naming PUBLIC or a role whose privileges user
// has, and their grant options; whoever has the owner's privileges holds
// every grant option, and a superuser everything.
func (a *Authz) Mask(user *Role, kind acl.Kind, owner uint32, list acl.ACL) (privs, grant acl.Mode) {
	all := acl.All(kind)
	if user.Super {
		return all, all
	}
	if list == nil {
		list = acl.Default(kind, a.OwnerName(owner))
	}
	privs, grant = list.Mask(func(grantee string) bool {
		r := a.byName[grantee]
		return r != nil && a.graph.IsMember(user.OID, r.OID, true)
	})
	if owner != 0 && a.graph.IsMember(user.OID, owner, true) {
		grant = all
	}
	return privs, grant
}

// ColumnMask is what a column's own list gives user (a table's owner
// holds every grant option on its columns too).
func (a *Authz) ColumnMask(user *Role, owner uint32, list acl.ACL) (privs, grant acl.Mode) {
	if user.Super {
		return acl.All(acl.Column), acl.All(acl.Column)
	}
	privs, grant = list.Mask(func(grantee string) bool {
		r := a.byName[grantee]
		return r != nil && a.graph.IsMember(user.OID, r.OID, true)
	})
	if owner != 0 && a.graph.IsMember(user.OID, owner, true) {
		grant = acl.All(acl.Column)
	}
	return privs, grant
}

// ColumnPrivileges is what user holds on column attr of rel: the table's
// privileges that columns have, and the column's own.
func (a *Authz) ColumnPrivileges(user *Role, rel *Relation, attr *Attr) acl.Mode {
	tp, _ := a.Mask(user, acl.Table, rel.Owner, a.RelationACL(rel))
	cp, _ := a.ColumnMask(user, rel.Owner, attr.ACL)
	return (tp & acl.All(acl.Column)) | cp
}

// RelationKind is the list kind of a relation: sequences have their own
// privileges.
func RelationKind(rel *Relation) acl.Kind {
	if rel.Kind == KindSequence {
		return acl.Sequence
	}
	return acl.Table
}

// hiddenCatalogs are the system catalogs PUBLIC may not read.
var hiddenCatalogs = map[string]bool{"pg_authid": true, "pg_statistic": true, "pg_largeobject": true, "pg_user_mapping": true, "pg_subscription": true}

// RelationACL is the list privileges of rel are checked against: its
// relacl, or while that is NULL, the default — which for a system
// catalog, as initdb leaves them, also lets PUBLIC read it.
func (a *Authz) RelationACL(rel *Relation) acl.ACL {
	if rel.ACL != nil {
		return rel.ACL
	}
	list := acl.Default(RelationKind(rel), a.OwnerName(rel.Owner))
	if rel.Namespace == PgCatalogNamespace && !hiddenCatalogs[rel.Name] {
		list = append(list, acl.Item{Grantor: a.OwnerName(rel.Owner), Privs: acl.Select})
	}
	return list
}

// RelationsOwnedBy lists the tables, views, materialized views and
// sequences role owns (what REASSIGN/DROP OWNED act on), by OID.
func (c *Catalog) RelationsOwnedBy(tx *Txn, role uint32) ([]*Relation, error) {
	var oids []uint32
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		switch byte(v[cRelkind].Int()) {
		case KindTable, KindView, KindMatView, KindSequence, KindPartitioned:
			if uint32(v[cRelowner].Int()) == role && uint32(v[cRelnsp].Int()) != PgCatalogNamespace {
				oids = append(oids, uint32(v[cOid].Int()))
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Relation
	for _, oid := range oids {
		r, err := c.ByOID(tx, oid)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// RelationsWithACL lists the relations whose relacl or columns' attacl
// is set (what DROP OWNED revokes from).
func (c *Catalog) RelationsWithACL(tx *Txn) ([]*Relation, error) {
	seen := map[uint32]bool{}
	var oids []uint32
	note := func(oid uint32) {
		if !seen[oid] {
			seen[oid] = true
			oids = append(oids, oid)
		}
	}
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if !v[cRelacl].IsNull() {
			note(uint32(v[cOid].Int()))
		}
		return true, nil
	})
	if err == nil {
		err = c.scan(tx, PgAttribute, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
			if aACL < len(v) && !v[aACL].IsNull() {
				note(uint32(v[aRelid].Int()))
			}
			return true, nil
		})
	}
	if err != nil {
		return nil, err
	}
	var out []*Relation
	for _, oid := range oids {
		r, err := c.ByOID(tx, oid)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}
