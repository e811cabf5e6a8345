package session

// Privilege and ownership checks of utility statements (TRUNCATE, LOCK,
// COPY, DROP, ALTER, CREATE INDEX): pg_class_aclcheck and
// object_ownercheck. A superuser passes without reading a catalog.

import (
	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// currentAuthz reads the roles for a check as the current user; nil
// role for a superuser, who needs no check.
func (s *Session) currentAuthz(c *exec.Ctx) (*catalog.Authz, *catalog.Role, error) {
	if s.isSuperuser() {
		return nil, nil, nil
	}
	az, err := s.eng.Catalog.NewAuthz(c.Tx)
	if err != nil {
		return nil, nil, err
	}
	user := az.Role(s.currentUser())
	if user == nil {
		user = &catalog.Role{}
	}
	return az, user, nil
}

// requireRelPrivilege refuses unless the current user holds one of
// anyOf on rel.
func (s *Session) requireRelPrivilege(c *exec.Ctx, rel *catalog.Relation, anyOf acl.Mode) error {
	az, user, err := s.currentAuthz(c)
	if err != nil || az == nil || user.Super {
		return err
	}
	have, _ := az.Mask(user, catalog.RelationKind(rel), rel.Owner, az.RelationACL(rel))
	if have&anyOf == 0 {
		return exec.PermissionDenied(rel)
	}
	return nil
}

// requireColumnsPrivilege refuses unless the current user holds priv on
// rel, or on each of its columns cols (attribute indexes; nil: all).
func (s *Session) requireColumnsPrivilege(c *exec.Ctx, rel *catalog.Relation, priv acl.Mode, cols []int) error {
	az, user, err := s.currentAuthz(c)
	if err != nil || az == nil || user.Super {
		return err
	}
	if have, _ := az.Mask(user, catalog.RelationKind(rel), rel.Owner, az.RelationACL(rel)); have&priv != 0 {
		return nil
	}
	if cols == nil {
		cols = rel.VisibleAttrs()
	}
	if len(cols) == 0 {
		return exec.PermissionDenied(rel)
	}
	for _, i := range cols {
		if az.ColumnPrivileges(user, rel, &rel.Attrs[i])&priv == 0 {
			return exec.PermissionDenied(rel)
		}
	}
	return nil
}

// requireRelOwner refuses unless the current user has the privileges of
// rel's owner.
func (s *Session) requireRelOwner(c *exec.Ctx, rel *catalog.Relation) error {
	az, user, err := s.currentAuthz(c)
	if err != nil || az == nil || az.HasPrivsOf(user, rel.Owner) {
		return err
	}
	return exec.NotOwner(rel)
}

// lockPrivileges are what LOCK TABLE in a mode needs one of
// (LockTableAclCheck).
func lockPrivileges(mode int) acl.Mode {
	switch mode {
	case 1: // ACCESS SHARE
		return acl.Select
	case 3: // ROW EXCLUSIVE
		return acl.Insert | acl.Update | acl.Delete | acl.Truncate
	}
	return acl.Update | acl.Delete | acl.Truncate
}

// checkNewOwner is what ALTER … OWNER TO role needs of a user other than
// a superuser: membership in the new owner, which must be allowed to
// create in the object's schema (nsp; 0 for objects outside schemas).
func (s *Session) checkNewOwner(c *exec.Ctx, role *catalog.Role, nsp uint32) error {
	az, user, err := s.currentAuthz(c)
	if err != nil || az == nil || user.Super {
		return err
	}
	if !az.IsMember(user.OID, role.OID) {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "must be member of role \"%s\"", role.Name)
	}
	if nsp == 0 {
		return nil
	}
	owner, list, ok, err := s.eng.Catalog.NamespaceACL(c.Tx, nsp)
	if err != nil || !ok {
		return err
	}
	if have, _ := az.Mask(role, acl.Schema, owner, list); have&acl.Create == 0 {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for schema %s", s.eng.Catalog.NamespaceName(nsp))
	}
	return nil
}

// requireLanguageUsage: creating a routine needs USAGE on its language,
// and an untrusted one (C, internal) a superuser.
func (s *Session) requireLanguageUsage(c *exec.Ctx, lang uint32) error {
	az, user, err := s.currentAuthz(c)
	if err != nil || az == nil || user.Super {
		return err
	}
	for _, l := range catalog.BootstrapLanguages {
		if l.OID != lang {
			continue
		}
		if l.Trusted {
			owner, list, _, err := s.eng.Catalog.LanguageACL(c.Tx, lang)
			if err != nil {
				return err
			}
			if have, _ := az.Mask(user, acl.Language, owner, list); have&acl.Usage != 0 {
				return nil
			}
		}
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied for language %s", l.Name)
	}
	return nil
}
