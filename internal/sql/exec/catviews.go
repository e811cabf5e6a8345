package exec

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// systemView returns the computed view rv names, if it names one and no
// stored relation of that name exists.
func (p *Planner) systemView(rv *pg.RangeVar) *systemView {
	view := systemViews[rv.Relname]
	if view == nil {
		view = catalogViews[rv.Relname]
	}
	if view == nil || (rv.Schemaname != "" && rv.Schemaname != "pg_catalog") {
		return nil
	}
	if r, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname); r != nil {
		return nil
	}
	return view
}

var (
	int2Array, _ = types.ArrayOf(types.Int2)
	oidArray, _  = types.ArrayOf(types.Oid)
	textArray, _ = types.ArrayOf(types.Text)
)

func colSpec(spec ...any) []Column {
	var out []Column
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, Column{Name: spec[i].(string), Type: spec[i+1].(types.Type)})
	}
	return out
}

func emptyView(spec ...any) *systemView {
	return &systemView{cols: colSpec(spec...), rows: func(*Ctx) ([]Row, error) { return nil, nil }}
}

func nspName(cat *catalog.Catalog, oid uint32) string { return cat.NamespaceName(oid) }

// catalogViews are catalog tables tidal computes instead of storing:
// their contents follow from other catalogs or are fixed.
var catalogViews = map[string]*systemView{
	"pg_am": {
		cols: colSpec("oid", types.Oid, "amname", types.Name, "amhandler", types.Oid, "amtype", types.Char),
		rows: func(c *Ctx) ([]Row, error) {
			var out []Row
			for _, am := range c.Eng.Catalog.AccessMethodRows() {
				out = append(out, Row{types.Int(int64(am.OID)), types.Str(am.Name), types.Int(int64(am.Handler)), types.Int(int64(am.Type))})
			}
			return out, nil
		},
	},
	"pg_database": {
		cols: colSpec("oid", types.Oid, "datname", types.Name, "datdba", types.Oid, "encoding", types.Int4,
			"datlocprovider", types.Char, "datistemplate", types.Boolean, "datallowconn", types.Boolean,
			"datconnlimit", types.Int4, "datfrozenxid", types.Oid, "datminmxid", types.Oid, "dattablespace", types.Oid,
			"datcollate", types.Text, "datctype", types.Text, "daticulocale", types.Text, "daticurules", types.Text,
			"datcollversion", types.Text, "datacl", textArray),
		rows: func(*Ctx) ([]Row, error) {
			return []Row{{types.Int(catalog.DatabaseOID), types.Str("postgres"), types.Int(catalog.BootstrapSuperuserID), types.Int(6),
				types.Int('c'), types.Bool(false), types.Bool(true), types.Int(-1), types.Int(3), types.Int(1), types.Int(1663),
				types.Str("C"), types.Str("C"), types.Null(), types.Null(), types.Null(), types.Null()}}, nil
		},
	},
	"pg_tablespace": {
		cols: colSpec("oid", types.Oid, "spcname", types.Name, "spcowner", types.Oid, "spcacl", types.Text, "spcoptions", types.Text),
		rows: func(*Ctx) ([]Row, error) {
			return []Row{
				{types.Int(1663), types.Str("pg_default"), types.Int(10), types.Null(), types.Null()},
				{types.Int(1664), types.Str("pg_global"), types.Int(10), types.Null(), types.Null()},
			}, nil
		},
	},
	"pg_policy":                emptyView("oid", types.Oid, "polname", types.Name, "polrelid", types.Oid, "polcmd", types.Char, "polpermissive", types.Boolean, "polroles", oidArray, "polqual", types.Text, "polwithcheck", types.Text),
	"pg_statistic_ext":         emptyView("oid", types.Oid, "stxrelid", types.Oid, "stxname", types.Name, "stxnamespace", types.Oid, "stxowner", types.Oid, "stxstattarget", types.Int4, "stxkeys", types.Int2VectorType, "stxkind", textArray, "stxexprs", types.Text),
	"pg_publication":           emptyView("oid", types.Oid, "pubname", types.Name, "pubowner", types.Oid, "puballtables", types.Boolean, "pubinsert", types.Boolean, "pubupdate", types.Boolean, "pubdelete", types.Boolean, "pubtruncate", types.Boolean, "pubviaroot", types.Boolean),
	"pg_publication_rel":       emptyView("oid", types.Oid, "prpubid", types.Oid, "prrelid", types.Oid, "prqual", types.Text, "prattrs", types.Int2VectorType),
	"pg_publication_namespace": emptyView("oid", types.Oid, "pnpubid", types.Oid, "pnnspid", types.Oid),
	"pg_foreign_table":         emptyView("ftrelid", types.Oid, "ftserver", types.Oid, "ftoptions", textArray),
	"pg_collation":             emptyView("oid", types.Oid, "collname", types.Name, "collnamespace", types.Oid, "collowner", types.Oid, "collprovider", types.Char, "collisdeterministic", types.Boolean, "collencoding", types.Int4, "collcollate", types.Text, "collctype", types.Text),
	"pg_db_role_setting":       emptyView("setdatabase", types.Oid, "setrole", types.Oid, "setconfig", textArray),
	"pg_roles":                 rolesView(),
	"pg_user": {
		cols: colSpec("usename", types.Name, "usesysid", types.Oid, "usecreatedb", types.Boolean, "usesuper", types.Boolean,
			"userepl", types.Boolean, "usebypassrls", types.Boolean, "passwd", types.Text, "valuntil", types.Timestamptz, "useconfig", textArray),
		rows: userRows,
	},
}

// rolesView is pg_roles: pg_authid with the password hidden. (pg_authid
// itself is a stored catalog table.)
func rolesView() *systemView {
	spec := []any{"rolname", types.Name, "rolsuper", types.Boolean, "rolinherit", types.Boolean, "rolcreaterole", types.Boolean,
		"rolcreatedb", types.Boolean, "rolcanlogin", types.Boolean, "rolreplication", types.Boolean, "rolconnlimit", types.Int4,
		"rolpassword", types.Text, "rolvaliduntil", types.Timestamptz, "rolbypassrls", types.Boolean, "rolconfig", textArray, "oid", types.Oid}
	return &systemView{cols: colSpec(spec...), rows: func(c *Ctx) ([]Row, error) {
		roles, err := c.Eng.Catalog.Roles(c.Tx)
		if err != nil {
			return nil, err
		}
		var out []Row
		for _, r := range roles {
			out = append(out, Row{types.Str(r.Name), types.Bool(r.Super), types.Bool(r.Inherit), types.Bool(r.CreateRole),
				types.Bool(r.CreateDB), types.Bool(r.CanLogin), types.Bool(r.Replication), types.Int(int64(r.ConnLimit)),
				types.Str("********"), r.ValidUntil, types.Bool(r.BypassRLS), types.Null(), types.Int(int64(r.OID))})
		}
		return out, nil
	}}
}

// userRows is pg_user: the roles that can log in.
func userRows(c *Ctx) ([]Row, error) {
	roles, err := c.Eng.Catalog.Roles(c.Tx)
	if err != nil {
		return nil, err
	}
	var out []Row
	for _, r := range roles {
		if !r.CanLogin {
			continue
		}
		out = append(out, Row{types.Str(r.Name), types.Int(int64(r.OID)), types.Bool(r.CreateDB), types.Bool(r.Super),
			types.Bool(r.Replication), types.Bool(r.BypassRLS), types.Str("********"), r.ValidUntil, types.Null()})
	}
	return out, nil
}

// allRelations lists the tables (user and catalog) visible to c.
func allRelations(c *Ctx) ([]*catalog.Relation, error) {
	return c.Eng.Catalog.UserTables(c.Tx)
}

// Call implements expr.CatalogCaller: the builtins that read catalogs.
func (f *catalogFuncs) Call(name string, args []types.Datum) (types.Datum, error) {
	cat, tx := f.c.Eng.Catalog, f.c.Tx
	if strings.HasPrefix(name, "has_privilege:") {
		return f.hasPrivilege(name, args)
	}
	switch name {
	case "pg_table_is_visible":
		r, err := cat.ByOID(tx, uint32(args[0].Int()))
		if err != nil || r == nil {
			return types.Null(), err
		}
		vis, err := relationVisible(f.c, r)
		return types.Bool(vis), err
	case "pg_my_temp_schema":
		return types.Int(int64(tx.TempNamespace)), nil
	case "current_schema", "current_schemas", "obj_description", "col_description", "shobj_description", "pg_get_expr":
		return f.namespaceCall(name, args)
	case "pg_is_other_temp_schema":
		nsp := uint32(args[0].Int())
		return types.Bool(cat.IsTempNamespace(nsp) && !cat.IsOwnTempNamespace(tx, nsp)), nil
	case "pg_get_userbyid":
		oid := args[0].Int()
		n, err := cat.RoleName(tx, uint32(oid))
		if err != nil {
			return types.Null(), err
		}
		if n == "" {
			return types.Str("unknown (OID=" + strconv.FormatInt(oid, 10) + ")"), nil
		}
		return types.Str(n), nil
	case "pg_has_role:nn", "pg_has_role:no", "pg_has_role:on", "pg_has_role:oo", "pg_has_role:n", "pg_has_role:o":
		return f.pgHasRole(name[len("pg_has_role:"):], args)
	case "nextval", "currval", "setval", "lastval", "pg_get_serial_sequence":
		return f.sequenceCall(name, args)
	case "pg_advisory_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
		"pg_try_advisory_lock", "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
		"pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all":
		return f.advisoryCall(name, args)
	case "pg_trigger_depth":
		return types.Int(int64(f.c.triggerDepth)), nil
	case "pg_backend_pid", "pg_cancel_backend", "pg_terminate_backend", "pg_sleep", "pg_sleep_for", "pg_sleep_until":
		return f.backendCall(name, args)
	case "pg_stat_reset_shared":
		target := types.Null()
		if len(args) > 0 {
			target = args[0]
		}
		return voidValue, statResetShared(f.c, target)
	case "pg_blocking_pids", "pg_stat_reset", "pg_stat_reset_single_table_counters", "pg_stat_force_next_flush", "pg_stat_clear_snapshot":
		return f.statCall(name, args)
	case "pg_stat_statements_reset":
		return voidValue, resetStmtStats(f.c, args)
	case "regclassout", "regnamespaceout":
		oid := uint32(args[0].Int())
		if name == "regnamespaceout" {
			if s := nspName(cat, oid); s != strconv.Itoa(int(oid)) {
				return types.Str(s), nil
			}
			return types.Str(strconv.Itoa(int(oid))), nil
		}
		if oid == 0 {
			return types.Str("-"), nil
		}
		r, err := cat.ByOID(tx, oid)
		if err != nil {
			return types.Null(), err
		}
		if r == nil {
			return types.Str(strconv.Itoa(int(oid))), nil
		}
		if vis, err := relationVisible(f.c, r); err != nil {
			return types.Null(), err
		} else if !vis {
			return types.Str(types.QuoteIdent(nspName(cat, r.Namespace)) + "." + types.QuoteIdent(r.Name)), nil
		}
		return types.Str(types.QuoteIdent(r.Name)), nil
	case "regrolein":
		return f.regroleIn(args[0].Str())
	case "regtypein":
		return regtypeIn(f.c, args[0].Str())
	case "regclassin", "regnamespacein":
		s := args[0].Str()
		if n, err := strconv.ParseUint(s, 10, 32); err == nil {
			return types.Int(int64(n)), nil
		}
		if name == "regnamespacein" {
			o, err := cat.NamespaceOID(tx, s)
			return types.Int(int64(o)), err
		}
		schema, rel := splitQualified(s)
		r, err := cat.Lookup(tx, schema, rel)
		if err != nil {
			return types.Null(), err
		}
		if r == nil {
			return types.Null(), pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, rel))
		}
		return types.Int(int64(r.OID)), nil
	case "pg_get_triggerdef":
		return triggerDef(f.c, uint32(args[0].Int()), len(args) > 1 && !args[1].IsNull() && args[1].Bool())
	case "pg_get_functiondef", "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_result",
		"pg_get_function_sqlbody", "regprocin", "regprocedurein", "regprocout", "regprocedureout":
		return f.procCall(name, args)
	case "pg_relation_is_updatable", "pg_column_is_updatable":
		return f.isUpdatable(name, args)
	case "pg_get_ruledef":
		return f.ruleDef(uint32(args[0].Int()), len(args) > 1 && !args[1].IsNull() && args[1].Bool())
	case "pg_get_viewdef":
		return f.viewDef(uint32(args[0].Int()), len(args) > 1 && !args[1].IsNull() && args[1].Bool())
	case "pg_get_partition_constraintdef":
		rel, err := cat.ByOID(tx, uint32(args[0].Int()))
		if err != nil || rel == nil {
			return types.Null(), err
		}
		def, ok, err := PartitionConstraintDef(f.c, rel)
		if err != nil || !ok {
			return types.Null(), err
		}
		return types.Str(def), nil
	case "pg_get_partkeydef":
		rel, err := cat.ByOID(tx, uint32(args[0].Int()))
		if err != nil || rel == nil || !rel.IsPartitioned() {
			return types.Null(), err
		}
		def, err := PartitionKeyDef(f.c, rel)
		if err != nil {
			return types.Null(), err
		}
		return types.Str(def), nil
	case "pg_get_constraintdef":
		return constraintDef(f.c, uint32(args[0].Int()), len(args) > 1 && !args[1].IsNull() && args[1].Bool())
	case "pg_relation_filenode":
		r, err := cat.ByOID(tx, uint32(args[0].Int()))
		if err != nil || r == nil || r.RelFileNode == 0 {
			return types.Null(), err
		}
		return types.Int(int64(r.RelFileNode)), nil
	case "pg_get_indexdef":
		ix, err := cat.ByOID(tx, uint32(args[0].Int()))
		if err != nil || ix == nil || ix.Index == nil {
			return types.Null(), err
		}
		table, err := cat.ByOID(tx, ix.Index.RelID)
		if err != nil || table == nil {
			return types.Null(), err
		}
		var keys []string
		for _, k := range ix.Index.Keys {
			if int(k) >= 1 && int(k) <= len(table.Attrs) {
				keys = append(keys, types.QuoteIdent(table.Attrs[k-1].Name))
			}
		}
		if name == "pg_get_indexdef" && len(args) > 1 && args[1].Int() > 0 {
			k := int(args[1].Int())
			if k > len(keys) {
				return types.Null(), nil
			}
			return types.Str(keys[k-1]), nil
		}
		u := ""
		if ix.Index.Unique {
			u = "UNIQUE "
		}
		return types.Str("CREATE " + u + "INDEX " + types.QuoteIdent(ix.Name) + " ON " + nspName(cat, table.Namespace) + "." +
			types.QuoteIdent(table.Name) + " USING btree (" + strings.Join(keys, ", ") + ")"), nil
	}
	if expr.IsSessionCall(name) {
		sess, err := f.c.session()
		if err != nil {
			return types.Null(), err
		}
		return sess.Call(name, args)
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}

// relationVisible is RelationIsVisible: r's namespace is searched for
// unqualified names and no relation of the same name comes before it.
func relationVisible(c *Ctx, r *catalog.Relation) (bool, error) {
	if searched, err := c.Eng.Catalog.NamespaceSearched(c.Tx, r.Namespace); err != nil || !searched {
		return false, err
	}
	first, err := c.Eng.Catalog.Lookup(c.Tx, "", r.Name)
	return err == nil && first != nil && first.OID == r.OID, err
}
