package exec

// has_table_privilege and its siblings (PostgreSQL's acl.c): whether a
// role — the current user unless named — holds any of a comma-separated
// list of privileges, each optionally WITH GRANT OPTION, on an object
// named by its name or OID. A name that matches nothing is an error; an
// OID that matches nothing gives NULL.

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/routine"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// privilegeNames are each function's accepted privilege names; a name
// mapped to 0 is accepted and never held (RULE, kept for compatibility).
var privilegeNames = map[string]map[string]acl.Mode{
	"table": {"SELECT": acl.Select, "INSERT": acl.Insert, "UPDATE": acl.Update, "DELETE": acl.Delete,
		"TRUNCATE": acl.Truncate, "REFERENCES": acl.References, "TRIGGER": acl.Trigger, "RULE": 0},
	"sequence": {"USAGE": acl.Usage, "SELECT": acl.Select, "UPDATE": acl.Update},
	"column":   {"SELECT": acl.Select, "INSERT": acl.Insert, "UPDATE": acl.Update, "REFERENCES": acl.References},
	"function": {"EXECUTE": acl.Execute},
	"schema":   {"CREATE": acl.Create, "USAGE": acl.Usage},
	"database": {"CREATE": acl.Create, "CONNECT": acl.Connect, "TEMPORARY": acl.CreateTemp, "TEMP": acl.CreateTemp},
	"type":     {"USAGE": acl.Usage},
	"language": {"USAGE": acl.Usage},
}

// parsePrivileges reads a privilege list: the privileges, and those
// asked WITH GRANT OPTION.
func parsePrivileges(kind, s string) (privs, grant acl.Mode, err error) {
	for _, part := range strings.Split(s, ",") {
		p := strings.ToUpper(strings.Join(strings.Fields(part), " "))
		withGrant := false
		if strings.HasSuffix(p, " WITH GRANT OPTION") {
			p, withGrant = strings.TrimSuffix(p, " WITH GRANT OPTION"), true
		}
		m, ok := privilegeNames[kind][p]
		if !ok {
			return 0, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(part))
		}
		if withGrant {
			grant |= m
		} else {
			privs |= m
		}
	}
	return privs, grant, nil
}

// hasPrivilege answers "has_privilege:<function>:<kinds>".
func (f *catalogFuncs) hasPrivilege(call string, args []types.Datum) (types.Datum, error) {
	parts := strings.SplitN(call, ":", 3)
	fn, kinds := parts[1], parts[2]
	az, err := f.c.Eng.Catalog.NewAuthz(f.c.Tx)
	if err != nil {
		return types.Null(), err
	}
	objs := privilegeFuncs[fn]
	var user *catalog.Role
	if len(kinds) > objs {
		if kinds[0] == 'n' {
			if user = az.Role(args[0].Str()); user == nil {
				return types.Null(), pgerr.Errorf(pgerr.UndefinedObject, "role \"%s\" does not exist", args[0].Str())
			}
		} else if user = az.RoleByOID(uint32(args[0].Int())); user == nil {
			user = &catalog.Role{OID: uint32(args[0].Int())}
		}
		args, kinds = args[1:], kinds[1:]
	} else if user = az.Role(f.c.CurrentUser()); user == nil {
		user = &catalog.Role{}
	}
	kind := strings.TrimSuffix(strings.TrimPrefix(fn, "has_"), "_privilege")
	if kind == "any_column" {
		kind = "column"
	}
	privs, grant, err := parsePrivileges(kind, args[len(args)-1].Str())
	if err != nil {
		return types.Null(), err
	}
	var have, haveGrant acl.Mode
	var found bool
	switch fn {
	case "has_table_privilege", "has_sequence_privilege", "has_any_column_privilege", "has_column_privilege":
		have, haveGrant, found, err = f.relationPrivileges(az, user, fn, kinds, args)
	case "has_function_privilege":
		have, haveGrant, found, err = f.functionPrivileges(az, user, kinds[0], args[0])
	case "has_schema_privilege":
		have, haveGrant, found, err = f.schemaPrivileges(az, user, kinds[0], args[0])
	default:
		// Databases, types and languages: tidal keeps no list for them,
		// so they have PostgreSQL's defaults (the bootstrap superuser owns them).
		k := map[string]acl.Kind{"database": acl.Database, "type": acl.Type, "language": acl.Language}[kind]
		owner, list := uint32(catalog.BootstrapSuperuserID), acl.ACL(nil)
		if owner, list, err = f.storedACL(kind, kinds[0], args[0]); err != nil {
			return types.Null(), err
		}
		have, haveGrant = az.Mask(user, k, owner, list)
		found = true
	}
	if err != nil || !found {
		return types.Null(), err
	}
	return types.Bool(have&privs != 0 || haveGrant&grant != 0), nil
}

// relationPrivileges: the table functions; for a column, what the table
// gives its columns and what the column has; for "any column", what any
// column has.
func (f *catalogFuncs) relationPrivileges(az *catalog.Authz, user *catalog.Role, fn, kinds string, args []types.Datum) (acl.Mode, acl.Mode, bool, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	var rel *catalog.Relation
	var err error
	if kinds[0] == 'o' {
		if rel, err = cat.ByOID(tx, uint32(args[0].Int())); err != nil || rel == nil {
			return 0, 0, false, err
		}
	} else {
		schema, name := splitQualified(args[0].Str())
		if rel, err = cat.Lookup(tx, schema, name); err != nil {
			return 0, 0, false, err
		}
		if rel == nil {
			return 0, 0, false, pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, name))
		}
	}
	if fn == "has_sequence_privilege" && rel.Kind != catalog.KindSequence {
		return 0, 0, false, pgerr.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", rel.Name)
	}
	list := az.RelationACL(rel)
	kind := catalog.RelationKind(rel)
	if fn == "has_table_privilege" {
		kind = acl.Table // a sequence answers as a table
	}
	have, grant := az.Mask(user, kind, rel.Owner, list)
	switch fn {
	case "has_column_privilege":
		attr, ok, err := columnArg(rel, kinds[1], args[1])
		if err != nil || !ok {
			return 0, 0, false, err
		}
		cp, cg := az.ColumnMask(user, rel.Owner, attr.ACL)
		return have | cp, grant | cg, true, nil
	case "has_any_column_privilege":
		for i := range rel.Attrs {
			if a := &rel.Attrs[i]; !a.Dropped {
				cp, cg := az.ColumnMask(user, rel.Owner, a.ACL)
				have, grant = have|cp, grant|cg
			}
		}
	}
	return have, grant, true, nil
}

// columnArg finds the column a has_column_privilege argument names (by
// name: an error if missing; by number: not found if missing or dropped).
func columnArg(rel *catalog.Relation, kind byte, d types.Datum) (*catalog.Attr, bool, error) {
	for i := range rel.Attrs {
		a := &rel.Attrs[i]
		if a.Dropped {
			continue
		}
		if (kind == 'n' && a.Name == d.Str()) || (kind == 'o' && int64(a.Num) == d.Int()) {
			return a, true, nil
		}
	}
	if kind == 'o' {
		if n := d.Int(); n < 0 && n >= -7 {
			return &catalog.Attr{Num: int16(n)}, true, nil // a system column: the table's privileges
		}
		return nil, false, nil
	}
	return nil, false, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", d.Str(), rel.Name)
}

func (f *catalogFuncs) functionPrivileges(az *catalog.Authz, user *catalog.Role, kind byte, d types.Datum) (acl.Mode, acl.Mode, bool, error) {
	oid := uint32(d.Int())
	if kind == 'n' {
		o, err := f.regprocedureIn(d.Str())
		if err != nil {
			if f.isBuiltinSignature(d.Str()) {
				return acl.Execute, 0, true, nil // built in: PUBLIC may execute it
			}
			return 0, 0, false, err
		}
		oid = uint32(o.Int())
	}
	p, err := f.c.Eng.Catalog.ProcByOID(f.c.Tx, oid)
	if err != nil || p == nil {
		return 0, 0, false, err
	}
	have, grant := az.Mask(user, acl.Function, p.Owner, p.ACL)
	return have, grant, true, nil
}

func (f *catalogFuncs) schemaPrivileges(az *catalog.Authz, user *catalog.Role, kind byte, d types.Datum) (acl.Mode, acl.Mode, bool, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	oid := uint32(d.Int())
	if kind == 'n' {
		o, err := cat.NamespaceOID(tx, d.Str())
		if err != nil {
			return 0, 0, false, err
		}
		oid = o
	}
	owner, list, ok, err := cat.NamespaceACL(tx, oid)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	have, grant := az.Mask(user, acl.Schema, owner, list)
	return have, grant, true, nil
}

// privilegeFuncs: how many object arguments each function has.
var privilegeFuncs = map[string]int{
	"has_table_privilege": 1, "has_sequence_privilege": 1, "has_any_column_privilege": 1,
	"has_column_privilege": 2, "has_function_privilege": 1, "has_schema_privilege": 1,
	"has_database_privilege": 1, "has_type_privilege": 1, "has_language_privilege": 1,
}

// isBuiltinSignature: s ("name(type, …)") is a function built into
// tidal rather than stored in pg_proc.
func (f *catalogFuncs) isBuiltinSignature(s string) bool {
	tree, err := pg.Parse("DROP FUNCTION " + s)
	owa := dropTarget(tree, err)
	if owa == nil {
		return false
	}
	schema, name, err := routine.QualifiedName(owa.Objname)
	if err != nil || (schema != "" && schema != "pg_catalog") {
		return false
	}
	var want []types.Type
	for _, a := range owa.Objargs {
		t, err := DeclType(f.c, a.GetTypeName())
		if err != nil {
			return false
		}
		want = append(want, t)
	}
	_, err = types.LookupFunction(name, want)
	return err == nil
}

// storedACL is the owner and list of a type (a user-defined one; built-in
// types have the defaults) or a language; databases have the defaults.
func (f *catalogFuncs) storedACL(kind string, argKind byte, d types.Datum) (uint32, acl.ACL, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	oid := uint32(d.Int())
	switch kind {
	case "type":
		if argKind == 'n' {
			schema, name := splitQualified(d.Str())
			t, err := cat.LookupUserType(tx, schema, name)
			if err != nil || t == nil {
				return catalog.BootstrapSuperuserID, nil, err
			}
			oid = t.OID
		}
		owner, list, ok, err := cat.TypeACL(tx, oid)
		if !ok || err != nil {
			return catalog.BootstrapSuperuserID, nil, err
		}
		return owner, list, nil
	case "language":
		if argKind == 'n' {
			for _, l := range catalog.BootstrapLanguages {
				if l.Name == d.Str() {
					oid = l.OID
				}
			}
		}
		owner, list, ok, err := cat.LanguageACL(tx, oid)
		if !ok || err != nil {
			return catalog.BootstrapSuperuserID, nil, err
		}
		return owner, list, nil
	}
	return catalog.BootstrapSuperuserID, nil, nil
}
