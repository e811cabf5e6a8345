package exec

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// rolePrivilege is what one pg_has_role privilege name asks for.
type rolePrivilege int

const (
	privMember rolePrivilege = iota // is_member_of_role
	privUsage                       // has_privs_of_role
	privAdmin                       // is_admin_of_role
)

// rolePrivileges are PostgreSQL's names (convert_role_priv_string): the
// "grant option" variants all mean the admin option.
var rolePrivileges = map[string]rolePrivilege{
	"MEMBER": privMember, "MEMBER WITH GRANT OPTION": privAdmin, "MEMBER WITH ADMIN OPTION": privAdmin,
	"USAGE": privUsage, "USAGE WITH GRANT OPTION": privAdmin, "USAGE WITH ADMIN OPTION": privAdmin,
}

// pgHasRole implements pg_has_role. kinds says, per role argument,
// whether it is a name ("n") or an OID ("o"); with one role argument the
// user is the current user. A name that matches no role is an error; an
// OID that matches none simply has no membership.
func (f *catalogFuncs) pgHasRole(kinds string, args []types.Datum) (types.Datum, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	var privs []rolePrivilege
	for _, p := range strings.Split(args[len(args)-1].Str(), ",") {
		p = strings.TrimSpace(p)
		priv, ok := rolePrivileges[strings.ToUpper(p)]
		if !ok {
			return types.Null(), pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", p)
		}
		privs = append(privs, priv)
	}
	resolve := func(kind byte, d types.Datum) (*catalog.Role, error) {
		roles, err := cat.Roles(tx)
		if err != nil {
			return nil, err
		}
		for i := range roles {
			if (kind == 'o' && roles[i].OID == uint32(d.Int())) || (kind == 'n' && roles[i].Name == d.Str()) {
				return &roles[i], nil
			}
		}
		if kind == 'n' {
			return nil, pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", d.Str())
		}
		return nil, nil
	}
	var user, role *catalog.Role
	var err error
	if len(kinds) == 2 {
		if user, err = resolve(kinds[0], args[0]); err != nil {
			return types.Null(), err
		}
		if role, err = resolve(kinds[1], args[1]); err != nil {
			return types.Null(), err
		}
	} else {
		current := f.c.CurrentUser()
		if user, err = resolve('n', types.Str(current)); err != nil {
			return types.Null(), err
		}
		if role, err = resolve(kinds[0], args[0]); err != nil {
			return types.Null(), err
		}
	}
	if user == nil || role == nil {
		return types.Bool(false), nil
	}
	g, err := cat.LoadMembershipGraph(tx)
	if err != nil {
		return types.Null(), err
	}
	for _, p := range privs {
		var ok bool
		switch p {
		case privMember:
			ok = user.Super || g.IsMember(user.OID, role.OID, false)
		case privUsage:
			ok = user.Super || g.IsMember(user.OID, role.OID, true)
		case privAdmin:
			ok = user.Super || g.IsAdmin(user.OID, role.OID)
		}
		if ok {
			return types.Bool(true), nil
		}
	}
	return types.Bool(false), nil
}

// regroleIn is 'name'::regrole: the role's OID. As an identifier, the
// name is folded to lower case unless double-quoted; digits are an OID.
func (f *catalogFuncs) regroleIn(s string) (types.Datum, error) {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return types.Int(int64(n)), nil
	}
	name := strings.ToLower(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		name = strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	r, err := f.c.Eng.Catalog.LookupRole(f.c.Tx, name)
	if err != nil {
		return types.Null(), err
	}
	if r == nil {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return types.Int(int64(r.OID)), nil
}
