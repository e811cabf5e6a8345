package session

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/scram"
	"github.com/tidal-db/tidal/internal/sql/exec"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// Authenticator returns the authenticator the settings auth_loopback
// (default trust) and auth_remote (default scram-sha-256) describe.
func (s *Server) Authenticator() pgwire.Authenticator {
	get := func(name, def string) string {
		if v, ok := s.Conf[name]; ok && v != "" {
			return strings.ToLower(v)
		}
		return def
	}
	return &pgwire.HostAuthenticator{
		Loopback:  get("auth_loopback", pgwire.MethodTrust),
		Remote:    get("auth_remote", pgwire.MethodSCRAM),
		Passwords: s,
	}
}

// readRole reads a role in a short read-only transaction of its own.
func (s *Server) readRole(name string) (*catalog.Role, error) {
	proc := s.Eng.Xact.NewProc()
	defer s.Eng.Xact.ReleaseProc(proc)
	defer s.Eng.Xact.ResetXmin(proc)
	tx := &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: s.Eng.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: &stats.Usage{}}
	return s.Eng.Catalog.LookupRole(tx, name)
}

// RoleVerifier implements pgwire.PasswordSource.
func (s *Server) RoleVerifier(user string) (string, error) {
	r, err := s.readRole(user)
	if err != nil || r == nil || !r.HasPassword {
		return "", err
	}
	if !r.ValidUntil.IsNull() && r.ValidUntil.Int() < types.NowMicros() {
		return "", nil // expired
	}
	return r.Password, nil
}

// loginRole checks that user exists and may log in (after
// authentication, like PostgreSQL's InitializeSessionUserId).
func (s *Server) loginRole(user string) (*catalog.Role, error) {
	r, err := s.readRole(user)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, pgerr.Errorf(pgerr.InvalidAuthorizationSpec, "role \"%s\" does not exist", user)
	}
	if !r.CanLogin {
		return nil, pgerr.Errorf(pgerr.InvalidAuthorizationSpec, "role \"%s\" is not permitted to log in", user)
	}
	return r, nil
}

// setRole makes r the session user.
func (s *Session) setRole(r *catalog.Role) {
	if r == nil {
		return
	}
	s.authUser, s.authSuper = r.Name, r.Super
	s.storeSetting("session_authorization", r.Name)
	s.storeSetting("is_superuser", onOff(r.Super))
}

// currentUser is current_user: SET ROLE's role, else the session user.
func (s *Session) currentUser() string {
	if r := s.Get("role"); r != "" && r != noRole {
		return r
	}
	return s.Get("session_authorization")
}

func (s *Session) isSuperuser() bool { return s.Get("is_superuser") == "on" }

func (s *Session) roleStmt(c *exec.Ctx, stmt *pg.Node, w pgwire.ResultWriter) error {
	// Serialize role changes, then look at the catalog as of now.
	if err := s.lockRel(c, catalog.PgAuthidRelID, xact.ExclusiveLock); err != nil {
		return err
	}
	if !s.usesTxSnapshot() {
		s.htx.Snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	cat := s.eng.Catalog
	switch {
	case stmt.GetGrantRoleStmt() != nil:
		return s.grantRole(c, stmt.GetGrantRoleStmt(), w)
	case stmt.GetCreateRoleStmt() != nil:
		cs := stmt.GetCreateRoleStmt()
		if !s.isSuperuser() {
			return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to create role")
		}
		r := &catalog.Role{Name: cs.Role, Inherit: true, ConnLimit: -1, CanLogin: cs.StmtType == pg.RoleStmtType_ROLESTMT_USER}
		opts, memberships := splitMembershipOptions(cs.Options)
		if err := s.applyRoleOptions(c, r, opts, false); err != nil {
			return err
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if err := cat.CreateRole(c.Tx, r); err != nil {
			return err
		}
		if err := s.applyCreateRoleMemberships(c, r, memberships); err != nil {
			return err
		}
		tag := "CREATE ROLE"
		return w.CommandComplete(tag)
	case stmt.GetAlterRoleStmt() != nil:
		as := stmt.GetAlterRoleStmt()
		name, err := s.roleSpecName(as.Role)
		if err != nil {
			return err
		}
		r, err := cat.LookupRole(c.Tx, name)
		if err != nil {
			return err
		}
		if r == nil {
			return pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		if opts, memberships := splitMembershipOptions(as.Options); len(opts) < len(as.Options) {
			// ALTER GROUP … ADD/DROP USER: the grammar allows nothing else with it.
			return s.alterGroupMembers(c, r, as.Action, memberships.members, w)
		}
		if !s.isSuperuser() {
			// A role may change only its own password.
			if name != s.currentUser() || len(as.Options) != 1 || as.Options[0].GetDefElem().GetDefname() != "password" {
				return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to alter role")
			}
		}
		if err := s.applyRoleOptions(c, r, as.Options, true); err != nil {
			return err
		}
		if r.OID == catalog.BootstrapSuperuserID && !r.Super {
			return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to alter role").
				WithDetail("The bootstrap user must have the SUPERUSER attribute.")
		}
		if err := s.assignXid(c); err != nil {
			return err
		}
		if err := cat.UpdateRole(c.Tx, r); err != nil {
			return err
		}
		return w.CommandComplete("ALTER ROLE")
	default:
		ds := stmt.GetDropRoleStmt()
		if !s.isSuperuser() {
			return pgerr.Errorf(pgerr.InsufficientPrivilege, "permission denied to drop role")
		}
		for _, n := range ds.Roles {
			name, err := s.roleSpecName(n.GetRoleSpec())
			if err != nil {
				return err
			}
			r, err := cat.LookupRole(c.Tx, name)
			if err != nil {
				return err
			}
			if r == nil {
				if ds.MissingOk {
					c.Notice(&pgerr.Error{Severity: "NOTICE", Code: "00000", Message: fmt.Sprintf("role \"%s\" does not exist, skipping", name)})
					continue
				}
				return pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
			}
			if name == s.currentUser() {
				return pgerr.Errorf("55006", "current user cannot be dropped")
			}
			if name == s.sessionUser() {
				return pgerr.Errorf("55006", "session user cannot be dropped")
			}
			if r.OID == catalog.BootstrapSuperuserID {
				return pgerr.Errorf(pgerr.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", name)
			}
			if err := s.assignXid(c); err != nil {
				return err
			}
			if err := cat.DropRole(c.Tx, r); err != nil {
				return err
			}
			if err := cat.RemoveRoleMemberships(c.Tx, r.OID); err != nil {
				return err
			}
		}
		return w.CommandComplete("DROP ROLE")
	}
}

func (s *Session) roleSpecName(rs *pg.RoleSpec) (string, error) {
	if rs == nil {
		return "", pgerr.Errorf(pgerr.SyntaxError, "role name expected")
	}
	switch rs.Roletype {
	case pg.RoleSpecType_ROLESPEC_CSTRING:
		return rs.Rolename, nil
	case pg.RoleSpecType_ROLESPEC_CURRENT_ROLE, pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_SESSION_USER:
		return s.currentUser(), nil
	}
	return "", pgerr.Errorf(pgerr.UndefinedObject, "role \"public\" does not exist")
}

// applyRoleOptions sets the attributes CREATE/ALTER ROLE name.
func (s *Session) applyRoleOptions(c *exec.Ctx, r *catalog.Role, opts []*pg.Node, alter bool) error {
	seen := map[string]bool{}
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		if seen[de.Defname] {
			return pgerr.Errorf(pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		flag := func() bool {
			if de.Arg != nil && de.Arg.GetBoolean() != nil {
				return de.Arg.GetBoolean().Boolval
			}
			if de.Arg != nil && de.Arg.GetInteger() != nil {
				return de.Arg.GetInteger().Ival != 0
			}
			return true
		}
		switch de.Defname {
		case "superuser":
			r.Super = flag()
		case "inherit":
			r.Inherit = flag()
		case "createrole":
			r.CreateRole = flag()
		case "createdb":
			r.CreateDB = flag()
		case "canlogin":
			r.CanLogin = flag()
		case "isreplication":
			r.Replication = flag()
		case "bypassrls":
			r.BypassRLS = flag()
		case "connectionlimit":
			n := int32(-1)
			if de.Arg != nil && de.Arg.GetInteger() != nil {
				n = de.Arg.GetInteger().Ival
			}
			if n < -1 {
				return pgerr.Errorf(pgerr.InvalidParameterValue, "invalid connection limit: %d", n)
			}
			r.ConnLimit = n
		case "password":
			if de.Arg == nil || de.Arg.GetString_() == nil {
				r.Password, r.HasPassword = "", false
				continue
			}
			pw := de.Arg.GetString_().Sval
			if pw == "" {
				c.Notice(&pgerr.Error{Severity: "NOTICE", Code: "00000", Message: "empty string is not a valid password, clearing password"})
				r.Password, r.HasPassword = "", false
				continue
			}
			v, err := scram.Encrypt(pw)
			if err != nil {
				return err
			}
			r.Password, r.HasPassword = v, true
		case "validUntil":
			if de.Arg == nil || de.Arg.GetString_() == nil {
				r.ValidUntil = types.Null()
				continue
			}
			d, err := types.Parse(types.Timestamptz, de.Arg.GetString_().Sval)
			if err != nil {
				return err
			}
			r.ValidUntil = d
		case "sysid":
			c.Notice(&pgerr.Error{Severity: "NOTICE", Code: "00000", Message: "SYSID can no longer be specified"})
		default:
			return pgerr.Errorf(pgerr.FeatureNotSupported, "role option \"%s\" is not supported yet", de.Defname)
		}
	}
	return nil
}
