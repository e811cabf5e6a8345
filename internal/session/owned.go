package session

// REASSIGN OWNED and DROP OWNED (PostgreSQL's shdepReassignOwned and
// shdepDropOwned, over the catalogs tidal has): relations and routines
// change owner, or the relations are dropped and every privilege granted
// to the roles on relations, columns and routines is revoked. Schemas and
// types keep their owner, and DROP OWNED leaves owned routines in place.

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// ownedRoles resolves the roles of REASSIGN/DROP OWNED; the current user
// must have the privileges of each.
func (s *Session) ownedRoles(c *exec.Ctx, specs []*pg.Node, denied string) (*catalog.Authz, []*catalog.Role, error) {
	if !s.usesTxSnapshot() {
		s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	az, err := s.eng.Catalog.NewAuthz(c.Tx)
	if err != nil {
		return nil, nil, err
	}
	user := az.Role(s.currentUser())
	if user == nil {
		user = &catalog.Role{}
	}
	var out []*catalog.Role
	for _, n := range specs {
		name, err := s.roleSpecName(n.GetRoleSpec())
		if err != nil {
			return nil, nil, err
		}
		r := az.Role(name)
		if r == nil {
			return nil, nil, pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		if !az.HasPrivsOf(user, r.OID) {
			return nil, nil, pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to %s", denied)
		}
		out = append(out, r)
	}
	return az, out, nil
}

func (s *Session) reassignOwned(c *exec.Ctx, st *pg.ReassignOwnedStmt, w pgwire.ResultWriter) error {
	az, roles, err := s.ownedRoles(c, st.Roles, "reassign objects")
	if err != nil {
		return err
	}
	name, err := s.roleSpecName(st.Newrole)
	if err != nil {
		return err
	}
	to := az.Role(name)
	if to == nil {
		return pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if user := az.Role(s.currentUser()); user == nil || !az.HasPrivsOf(user, to.OID) {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to reassign objects")
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	cat := s.eng.Catalog
	for _, r := range roles {
		if r.OID == to.OID {
			continue
		}
		rels, err := cat.RelationsOwnedBy(c.Tx, r.OID)
		if err != nil {
			return err
		}
		for _, rel := range rels {
			if err := cat.SetRelOwner(c.Tx, rel.OID, to.OID); err != nil {
				return err
			}
			if rel.ACL != nil {
				if err := cat.SetRelACL(c.Tx, rel.OID, rel.ACL.NewOwner(r.Name, to.Name)); err != nil {
					return err
				}
			}
		}
		procs, err := cat.Procs(c.Tx, nil)
		if err != nil {
			return err
		}
		for _, p := range procs {
			if p.Owner != r.OID {
				continue
			}
			np := *p
			np.Owner = to.OID
			if np.ACL != nil {
				np.ACL = np.ACL.NewOwner(r.Name, to.Name)
			}
			if err := cat.ReplaceProc(c.Tx, p, &np); err != nil {
				return err
			}
		}
	}
	return w.CommandComplete("REASSIGN OWNED")
}

func (s *Session) dropOwned(c *exec.Ctx, st *pg.DropOwnedStmt, w pgwire.ResultWriter) error {
	_, roles, err := s.ownedRoles(c, st.Roles, "drop objects")
	if err != nil {
		return err
	}
	if err := s.assignXid(c); err != nil {
		return err
	}
	cat := s.eng.Catalog
	names := map[string]bool{}
	for _, r := range roles {
		names[r.Name] = true
	}
	withoutRoles := func(list acl.ACL) acl.ACL {
		if list == nil {
			return nil
		}
		out := acl.ACL{}
		for _, it := range list {
			if !names[it.Grantee] {
				out = append(out, it)
			}
		}
		return out
	}
	for _, r := range roles {
		rels, err := cat.RelationsOwnedBy(c.Tx, r.OID)
		if err != nil {
			return err
		}
		// Sequences last: one a table's column owns goes with the table.
		for _, seqs := range []bool{false, true} {
			for _, rel := range rels {
				if (rel.Kind == catalog.KindSequence) != seqs {
					continue
				}
				if err := s.dropOwnedRelation(c, rel, st.Behavior); err != nil {
					return err
				}
			}
		}
	}
	rels, err := cat.RelationsWithACL(c.Tx)
	if err != nil {
		return err
	}
	for _, rel := range rels {
		if next := withoutRoles(rel.ACL); len(next) != len(rel.ACL) {
			if err := cat.SetRelACL(c.Tx, rel.OID, next); err != nil {
				return err
			}
		}
		for _, a := range rel.Attrs {
			if next := withoutRoles(a.ACL); len(next) != len(a.ACL) {
				if len(next) == 0 {
					next = nil
				}
				if err := cat.SetAttrACL(c.Tx, rel.OID, a.Num, next); err != nil {
					return err
				}
			}
		}
	}
	procs, err := cat.Procs(c.Tx, nil)
	if err != nil {
		return err
	}
	for _, p := range procs {
		if next := withoutRoles(p.ACL); len(next) != len(p.ACL) {
			np := *p
			np.ACL = next
			if err := cat.ReplaceProc(c.Tx, p, &np); err != nil {
				return err
			}
		}
	}
	return w.CommandComplete("DROP OWNED")
}

// dropOwnedRelation drops one relation DROP OWNED found (it may be gone
// already, dropped with another).
func (s *Session) dropOwnedRelation(c *exec.Ctx, rel *catalog.Relation, behavior pg.DropBehavior) error {
	kind := pg.ObjectType_OBJECT_TABLE
	switch {
	case rel.MatView:
		kind = pg.ObjectType_OBJECT_MATVIEW
	case rel.Kind == catalog.KindView:
		kind = pg.ObjectType_OBJECT_VIEW
	case rel.Kind == catalog.KindSequence:
		kind = pg.ObjectType_OBJECT_SEQUENCE
	}
	name := &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{
		pg.MakeStrNode(s.eng.Catalog.NamespaceName(rel.Namespace)), pg.MakeStrNode(rel.Name)}}}}
	ds := &pg.DropStmt{RemoveType: kind, Objects: []*pg.Node{name}, Behavior: behavior, MissingOk: true}
	return s.drop(c, ds, quietWriter{})
}
