package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// PgAuthMembersRelID is pg_auth_members' OID (PostgreSQL's).
const PgAuthMembersRelID = 1261

// PgAuthMembers records role membership (GRANT role TO role), with
// PostgreSQL 15's columns: there is at most one row per (roleid, member).
var PgAuthMembers = &TableDef{PgAuthMembersRelID, "pg_auth_members", []Column{
	col("roleid", tOid), col("member", tOid), col("grantor", tOid), col("admin_option", tBool),
}}

// Membership is a row of pg_auth_members: Member is a member of Role.
type Membership struct {
	Role, Member, Grantor uint32
	AdminOption           bool

	tid page.ItemPointer
}

func (m *Membership) row() []types.Datum {
	return []types.Datum{ov(m.Role), ov(m.Member), ov(m.Grantor), bv(m.AdminOption)}
}

// predefinedMemberships are the grants PostgreSQL 15's initdb makes:
// pg_monitor is a member of the statistics and settings roles.
var predefinedMemberships = []Membership{
	{Role: 3374, Member: 3373, Grantor: BootstrapSuperuserID},
	{Role: 3375, Member: 3373, Grantor: BootstrapSuperuserID},
	{Role: 3377, Member: 3373, Grantor: BootstrapSuperuserID},
}

func (c *Catalog) insertBootstrapMemberships(tx *Txn) error {
	for _, m := range predefinedMemberships {
		if _, err := c.insert(tx, PgAuthMembers, m.row()); err != nil {
			return err
		}
	}
	return nil
}

// Memberships lists every row of pg_auth_members visible to tx, in
// physical order.
func (c *Catalog) Memberships(tx *Txn) ([]Membership, error) {
	var out []Membership
	err := c.scan(tx, PgAuthMembers, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		out = append(out, Membership{Role: uint32(v[0].Int()), Member: uint32(v[1].Int()),
			Grantor: uint32(v[2].Int()), AdminOption: v[3].Bool(), tid: tid})
		return true, nil
	})
	return out, err
}

// LookupMembership finds the row making member a member of role; nil if
// there is none.
func (c *Catalog) LookupMembership(tx *Txn, role, member uint32) (*Membership, error) {
	ms, err := c.Memberships(tx)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].Role == role && ms[i].Member == member {
			return &ms[i], nil
		}
	}
	return nil, nil
}

// AddMembership inserts a pg_auth_members row; the caller has checked
// there is none for the pair yet.
func (c *Catalog) AddMembership(tx *Txn, m *Membership) error {
	if _, err := c.insert(tx, PgAuthMembers, m.row()); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// UpdateMembership writes a new version of a row found by
// LookupMembership (its admin option or grantor changed).
func (c *Catalog) UpdateMembership(tx *Txn, m *Membership) error {
	if err := c.delete(tx, PgAuthMembers, m.tid); err != nil {
		return err
	}
	return c.AddMembership(tx, m)
}

// RemoveMembership deletes a row found by LookupMembership.
func (c *Catalog) RemoveMembership(tx *Txn, m *Membership) error {
	if err := c.delete(tx, PgAuthMembers, m.tid); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// RemoveRoleMemberships deletes every membership in or of role (DROP ROLE).
func (c *Catalog) RemoveRoleMemberships(tx *Txn, role uint32) error {
	ms, err := c.Memberships(tx)
	if err != nil {
		return err
	}
	for i := range ms {
		if ms[i].Role == role || ms[i].Member == role {
			if err := c.delete(tx, PgAuthMembers, ms[i].tid); err != nil {
				return err
			}
		}
	}
	tx.Heap.Cid++
	return nil
}

// MembershipGraph answers membership questions over a snapshot of
// pg_auth_members and pg_authid, as PostgreSQL's roles_is_member_of.
type MembershipGraph struct {
	inherits map[uint32]bool         // role → rolinherit
	parents  map[uint32][]Membership // member → the rows making it a member
}

// LoadMembershipGraph reads the graph as of tx.
func (c *Catalog) LoadMembershipGraph(tx *Txn) (*MembershipGraph, error) {
	roles, err := c.Roles(tx)
	if err != nil {
		return nil, err
	}
	ms, err := c.Memberships(tx)
	if err != nil {
		return nil, err
	}
	g := &MembershipGraph{inherits: map[uint32]bool{}, parents: map[uint32][]Membership{}}
	for _, r := range roles {
		g.inherits[r.OID] = r.Inherit
	}
	for _, m := range ms {
		g.parents[m.Member] = append(g.parents[m.Member], m)
	}
	return g, nil
}

// IsMember reports whether member is role or a member of it, directly or
// through other roles, ignoring superuserness. With privsOnly the walk
// only passes through roles that inherit (has_privs_of_role).
func (g *MembershipGraph) IsMember(member, role uint32, privsOnly bool) bool {
	if member == role {
		return true
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if privsOnly && !g.inherits[cur] {
			continue
		}
		for _, m := range g.parents[cur] {
			if m.Role == role {
				return true
			}
			if !seen[m.Role] {
				seen[m.Role] = true
				queue = append(queue, m.Role)
			}
		}
	}
	return false
}

// IsAdmin reports whether member holds the admin option on role, directly
// or through a role it is a member of (a role never administers itself).
func (g *MembershipGraph) IsAdmin(member, role uint32) bool {
	if member == role {
		return false
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, m := range g.parents[cur] {
			if m.Role == role && m.AdminOption {
				return true
			}
			if !seen[m.Role] {
				seen[m.Role] = true
				queue = append(queue, m.Role)
			}
		}
	}
	return false
}
