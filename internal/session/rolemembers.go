package session

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// invalidGrantOperation is SQLSTATE 0LP01.
const invalidGrantOperation = "0LP01"

// lookupRoleSpec resolves a role name to its pg_authid row, failing with
// PostgreSQL's "role does not exist".
func (s *Session) lookupRoleSpec(c *exec.Ctx, rs *pg.RoleSpec) (*catalog.Role, error) {
	name, err := s.roleSpecName(rs)
	if err != nil {
		return nil, err
	}
	return s.lookupRoleName(c, name)
}

func (s *Session) lookupRoleName(c *exec.Ctx, name string) (*catalog.Role, error) {
	r, err := s.eng.Catalog.LookupRole(c.Tx, name)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return r, nil
}

func (s *Session) lookupRoleSpecs(c *exec.Ctx, nodes []*pg.Node) ([]*catalog.Role, error) {
	var out []*catalog.Role
	for _, n := range nodes {
		r, err := s.lookupRoleSpec(c, n.GetRoleSpec())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// grantRole runs GRANT role TO role / REVOKE role FROM role (PostgreSQL
// 15's syntax: WITH ADMIN OPTION, REVOKE ADMIN OPTION FOR, GRANTED BY).
func (s *Session) grantRole(c *exec.Ctx, gs *pg.GrantRoleStmt, w pgwire.ResultWriter) error {
	admin := false
	for _, o := range gs.Opt {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		if de.Defname != "admin" {
			// PostgreSQL 15 has no INHERIT / SET options.
			return pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near \"%s\"", de.Defname)
		}
		admin = true // WITH ADMIN OPTION, or REVOKE ADMIN OPTION FOR
	}
	grantor, err := s.lookupRoleName(c, s.currentUser())
	if err != nil {
		return err
	}
	if gs.Grantor != nil {
		if grantor, err = s.lookupRoleSpec(c, gs.Grantor); err != nil {
			return err
		}
	}
	members, err := s.lookupRoleSpecs(c, gs.GranteeRoles)
	if err != nil {
		return err
	}
	for _, n := range gs.GrantedRoles {
		role, err := s.lookupRoleName(c, n.GetAccessPriv().GetPrivName())
		if err != nil {
			return err
		}
		if gs.IsGrant {
			err = s.addRoleMembers(c, role, members, grantor, admin)
		} else {
			err = s.removeRoleMembers(c, role, members, grantor, admin)
		}
		if err != nil {
			return err
		}
	}
	if gs.IsGrant {
		return w.CommandComplete("GRANT ROLE")
	}
	return w.CommandComplete("REVOKE ROLE")
}

// checkRoleAdmin is PostgreSQL 15's permission check for changing the
// members of role: superusers' memberships need a superuser, others
// CREATEROLE or the admin option.
func (s *Session) checkRoleAdmin(c *exec.Ctx, role, grantor *catalog.Role) error {
	if s.isSuperuser() {
		return nil
	}
	if role.Super {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be superuser to alter superusers")
	}
	if grantor.CreateRole || grantor.Super {
		return nil
	}
	g, err := s.eng.Catalog.LoadMembershipGraph(c.Tx)
	if err != nil {
		return err
	}
	if !g.IsAdmin(grantor.OID, role.OID) {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "must have admin option on role \"%s\"", role.Name)
	}
	return nil
}

// addRoleMembers makes each of members a member of role (AddRoleMems).
func (s *Session) addRoleMembers(c *exec.Ctx, role *catalog.Role, members []*catalog.Role, grantor *catalog.Role, admin bool) error {
	if len(members) == 0 {
		return nil
	}
	if err := s.checkRoleAdmin(c, role, grantor); err != nil {
		return err
	}
	if role.OID == catalog.PgDatabaseOwnerID {
		return pgerr.Errorf(pgerr.InternalError, "role \"%s\" cannot have explicit members", role.Name)
	}
	cat := s.eng.Catalog
	for _, m := range members {
		if m.OID == catalog.PgDatabaseOwnerID {
			return pgerr.Errorf(pgerr.InternalError, "role \"%s\" cannot be a member of any role", m.Name)
		}
		g, err := cat.LoadMembershipGraph(c.Tx)
		if err != nil {
			return err
		}
		// No loops: role must not already be (through others) a member of m.
		if g.IsMember(role.OID, m.OID, false) {
			return pgerr.Errorf(invalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role.Name, m.Name)
		}
		existing, err := cat.LookupMembership(c.Tx, role.OID, m.OID)
		if err != nil {
			return err
		}
		if existing != nil && (!admin || existing.AdminOption) {
			c.Notice(&pgerr.Error{Severity: "NOTICE", Code: "00000",
				Message: fmt.Sprintf("role \"%s\" is already a member of role \"%s\"", m.Name, role.Name)})
			continue
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if existing != nil {
			existing.AdminOption, existing.Grantor = true, grantor.OID
			err = cat.UpdateMembership(c.Tx, existing)
		} else {
			err = cat.AddMembership(c.Tx, &catalog.Membership{Role: role.OID, Member: m.OID, Grantor: grantor.OID, AdminOption: admin})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// removeRoleMembers revokes role from each of members, or with
// adminOnly only their admin option (DelRoleMems).
func (s *Session) removeRoleMembers(c *exec.Ctx, role *catalog.Role, members []*catalog.Role, grantor *catalog.Role, adminOnly bool) error {
	if len(members) == 0 {
		return nil
	}
	if err := s.checkRoleAdmin(c, role, grantor); err != nil {
		return err
	}
	cat := s.eng.Catalog
	for _, m := range members {
		existing, err := cat.LookupMembership(c.Tx, role.OID, m.OID)
		if err != nil {
			return err
		}
		if existing == nil {
			c.Notice(&pgerr.Error{Severity: "WARNING", Code: "01000",
				Message: fmt.Sprintf("role \"%s\" is not a member of role \"%s\"", m.Name, role.Name)})
			continue
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if adminOnly {
			existing.AdminOption = false
			err = cat.UpdateMembership(c.Tx, existing)
		} else {
			err = cat.RemoveMembership(c.Tx, existing)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// roleMembershipOptions are the membership clauses of CREATE ROLE
// (IN ROLE, ROLE, ADMIN) and ALTER GROUP (ADD/DROP USER).
type roleMembershipOptions struct {
	inRoles, members, adminMembers []*pg.Node
}

// splitMembershipOptions takes the membership clauses out of opts.
func splitMembershipOptions(opts []*pg.Node) ([]*pg.Node, roleMembershipOptions) {
	var rest []*pg.Node
	var m roleMembershipOptions
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			rest = append(rest, o)
			continue
		}
		items := de.GetArg().GetList().GetItems()
		switch de.Defname {
		case "addroleto":
			m.inRoles = append(m.inRoles, items...)
		case "rolemembers":
			m.members = append(m.members, items...)
		case "adminmembers":
			m.adminMembers = append(m.adminMembers, items...)
		default:
			rest = append(rest, o)
		}
	}
	return rest, m
}

// applyCreateRoleMemberships makes the grants CREATE ROLE r's options ask
// for, in PostgreSQL's order: IN ROLE, then ADMIN, then ROLE.
func (s *Session) applyCreateRoleMemberships(c *exec.Ctx, r *catalog.Role, m roleMembershipOptions) error {
	grantor, err := s.lookupRoleName(c, s.currentUser())
	if err != nil {
		return err
	}
	for _, n := range m.inRoles {
		parent, err := s.lookupRoleSpec(c, n.GetRoleSpec())
		if err != nil {
			return err
		}
		if err := s.addRoleMembers(c, parent, []*catalog.Role{r}, grantor, false); err != nil {
			return err
		}
	}
	admins, err := s.lookupRoleSpecs(c, m.adminMembers)
	if err != nil {
		return err
	}
	if err := s.addRoleMembers(c, r, admins, grantor, true); err != nil {
		return err
	}
	members, err := s.lookupRoleSpecs(c, m.members)
	if err != nil {
		return err
	}
	return s.addRoleMembers(c, r, members, grantor, false)
}

// alterGroupMembers runs ALTER GROUP g ADD USER … (action 1) or
// DROP USER … (action -1).
func (s *Session) alterGroupMembers(c *exec.Ctx, group *catalog.Role, action int32, memberNodes []*pg.Node, w pgwire.ResultWriter) error {
	grantor, err := s.lookupRoleName(c, s.currentUser())
	if err != nil {
		return err
	}
	members, err := s.lookupRoleSpecs(c, memberNodes)
	if err != nil {
		return err
	}
	if action < 0 {
		err = s.removeRoleMembers(c, group, members, grantor, false)
	} else {
		err = s.addRoleMembers(c, group, members, grantor, false)
	}
	if err != nil {
		return err
	}
	return w.CommandComplete("ALTER ROLE")
}
