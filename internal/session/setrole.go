package session

// The session's two user identities, as PostgreSQL's miscinit.c: the
// session user (who logged in, or whom SET SESSION AUTHORIZATION names)
// and the current user (SET ROLE's role, else the session user), against
// which privileges are checked. Both are settings — session_authorization
// and role ("none" when no SET ROLE is in effect) — so they are undone
// with an aborted transaction and SET LOCAL lasts to its end, exactly like
// any other setting; is_superuser changes with them, tracked the same way,
// so it always describes the current user. The authenticated user, who
// alone decides whether SET SESSION AUTHORIZATION is allowed, never
// changes.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/exec"
)

// noRole is the role setting's value when no SET ROLE is in effect.
const noRole = "none"

// isRoleSetting reports whether a SET/RESET names one of the identities.
func isRoleSetting(name string) bool {
	n := strings.ToLower(name)
	return n == "role" || n == "session_authorization"
}

// sessionUser is session_user: the session_authorization setting.
func (s *Session) sessionUser() string { return s.Get("session_authorization") }

// setIdentityStmt runs SET [LOCAL] ROLE, RESET ROLE, SET SESSION
// AUTHORIZATION and RESET SESSION AUTHORIZATION.
func (s *Session) setIdentityStmt(c *exec.Ctx, vs *pg.VariableSetStmt, w pgwire.ResultWriter) error {
	target := "" // "" = back to the default
	if vs.Kind == pg.VariableSetKind_VAR_SET_VALUE && len(vs.Args) == 1 {
		if ac := vs.Args[0].GetAConst(); ac != nil && ac.GetSval() != nil {
			target = ac.GetSval().Sval
		}
	}
	rr := s.identityCtx(c)
	var err error
	if strings.EqualFold(vs.Name, "role") {
		err = s.setCurrentRole(rr, target, vs.IsLocal)
	} else {
		err = s.setSessionAuthorization(rr, target, vs.IsLocal)
	}
	if err != nil {
		return err
	}
	if vs.Kind == pg.VariableSetKind_VAR_RESET {
		return w.CommandComplete("RESET")
	}
	return w.CommandComplete("SET")
}

// setCurrentRole is SET ROLE name ("" or "none": back to the session
// user). The session user must be a member of the role, or a superuser.
func (s *Session) setCurrentRole(c roleReader, name string, local bool) error {
	if name == "" || strings.EqualFold(name, noRole) {
		sess, err := c.role(s.sessionUser())
		if err != nil {
			return err
		}
		s.changeSetting("role", noSetting, local)
		s.changeSetting("is_superuser", onOff(sess != nil && sess.Super), local)
		return nil
	}
	r, err := c.role(name)
	if err != nil {
		return err
	}
	if r == nil {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	sess, err := c.role(s.sessionUser())
	if err != nil {
		return err
	}
	if sess == nil || (!sess.Super && !c.isMember(sess.OID, r.OID)) {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to set role \"%s\"", name)
	}
	s.changeSetting("role", r.Name, local)
	s.changeSetting("is_superuser", onOff(r.Super), local)
	return nil
}

// setSessionAuthorization is SET SESSION AUTHORIZATION name ("": back to
// the authenticated user); only a superuser may have logged in to use it.
// It ends any SET ROLE.
func (s *Session) setSessionAuthorization(c roleReader, name string, local bool) error {
	if name == "" {
		name = s.authUser
	}
	r, err := c.role(name)
	if err != nil {
		return err
	}
	if r == nil {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	if r.Name != s.authUser && !s.authSuper {
		return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to set session authorization")
	}
	s.changeSetting("session_authorization", r.Name, local)
	s.changeSetting("role", noSetting, local)
	s.changeSetting("is_superuser", onOff(r.Super), local)
	return nil
}

// roleReader reads roles and memberships for the identity statements
// in the running transaction, as of a fresh snapshot (or the
// transaction's, in REPEATABLE READ).
type roleReader struct {
	s *Session
	c *exec.Ctx
}

func (s *Session) identityCtx(c *exec.Ctx) roleReader {
	if !s.usesTxSnapshot() {
		s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	return roleReader{s, c}
}

func (r roleReader) role(name string) (*catalog.Role, error) {
	return r.s.eng.Catalog.LookupRole(r.c.Tx, name)
}

func (r roleReader) isMember(member, role uint32) bool {
	g, err := r.s.eng.Catalog.LoadMembershipGraph(r.c.Tx)
	return err == nil && g.IsMember(member, role, false)
}

// BecomeDefiner implements exec.DefinerSession: for a SECURITY DEFINER
// routine's call, its owner is the current user (role and is_superuser
// say so); done restores the caller's identity.
func (s *Session) BecomeDefiner(owner uint32) (func(), error) {
	roles, err := s.eng.Catalog.Roles(&s.ctx)
	if err != nil {
		return nil, err
	}
	var r *catalog.Role
	for i := range roles {
		if roles[i].OID == owner {
			r = &roles[i]
		}
	}
	if r == nil {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "role with OID %d does not exist", owner)
	}
	priorRole, priorSuper := s.settingValue("role"), s.settingValue("is_superuser")
	s.putSetting("role", r.Name)
	s.putSetting("is_superuser", onOff(r.Super))
	return func() {
		s.putSetting("role", priorRole)
		s.putSetting("is_superuser", priorSuper)
	}, nil
}
