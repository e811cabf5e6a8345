package exec

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// information_schema, as PostgreSQL defines it (its information_schema.sql):
// views written in SQL over the catalogs, planned wherever they are named
// as a view's stored query is. Their column lists and order are
// PostgreSQL 15's. PostgreSQL types the columns with the domains
// sql_identifier (over name), cardinal_number (integer), character_data
// (character varying), yes_or_no (character varying(3)) and time_stamp
// (timestamp(2) with time zone); here each column has the domain's base
// type (tidal has no built-in domains), which clients read the same way.

const (
	sqlIdentifier  = "::name"
	cardinalNumber = "::integer"
	characterData  = "::varchar"
	yesOrNo        = "::varchar(3)"
	timeStamp      = "::timestamptz(2)"
)

// infoCol is one output column: its expression and the domain cast.
type infoCol struct{ name, expr, domain string }

// infoSelect writes SELECT <cols> <rest>, each column cast to its domain's
// base type and named.
func infoSelect(cols []infoCol, rest string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + c.expr + ")" + c.domain + " AS " + c.name)
	}
	b.WriteString(" " + rest)
	return b.String()
}

// nullCols are columns that are always NULL in PostgreSQL too (features
// it does not have), typed by domain.
func nullCols(domain string, names ...string) []infoCol {
	out := make([]infoCol, len(names))
	for i, n := range names {
		out[i] = infoCol{n, "NULL", domain}
	}
	return out
}

func cols(parts ...[]infoCol) []infoCol {
	var out []infoCol
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func ic(name, expr, domain string) []infoCol { return []infoCol{{name, expr, domain}} }

// typeFacts are the columns that describe a data type by its true type
// and typmod (a domain's base type and typmod), as PostgreSQL's
// _pg_char_max_length, _pg_numeric_precision, … compute them. The
// database encoding is UTF8: 4 bytes at most per character.
func typeFacts(tid, tmod string, charsetLast bool) []infoCol {
	all := typeFactCols(tid, tmod)
	if !charsetLast {
		return all
	}
	// all is lengths (2), character set and collation (6), the rest.
	return cols(all[:2], all[8:], all[2:8])
}

func typeFactCols(tid, tmod string) []infoCol {
	r := strings.NewReplacer("TID", tid, "TMOD", tmod)
	return []infoCol{
		{"character_maximum_length", r.Replace(`CASE WHEN TID IN (1042, 1043) THEN CASE WHEN TMOD = -1 THEN NULL ELSE TMOD - 4 END
			WHEN TID IN (1560, 1562) THEN CASE WHEN TMOD = -1 THEN NULL ELSE TMOD END END`), cardinalNumber},
		{"character_octet_length", r.Replace(`CASE WHEN TID IN (25, 1042, 1043) THEN CASE WHEN TMOD = -1 THEN 1073741824 ELSE (TMOD - 4) * 4 END END`), cardinalNumber},
		{"character_set_catalog", "NULL", sqlIdentifier},
		{"character_set_schema", "NULL", sqlIdentifier},
		{"character_set_name", "NULL", sqlIdentifier},
		{"collation_catalog", "NULL", sqlIdentifier},
		{"collation_schema", "NULL", sqlIdentifier},
		{"collation_name", "NULL", sqlIdentifier},
		{"numeric_precision", r.Replace(`CASE TID WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64
			WHEN 1700 THEN CASE WHEN TMOD = -1 THEN NULL ELSE ((TMOD - 4) >> 16) & 65535 END
			WHEN 700 THEN 24 WHEN 701 THEN 53 END`), cardinalNumber},
		{"numeric_precision_radix", r.Replace(`CASE WHEN TID IN (21, 23, 20, 700, 701) THEN 2 WHEN TID = 1700 THEN 10 END`), cardinalNumber},
		{"numeric_scale", r.Replace(`CASE WHEN TID IN (21, 23, 20) THEN 0
			WHEN TID = 1700 THEN CASE WHEN TMOD = -1 THEN NULL ELSE (TMOD - 4) & 65535 END END`), cardinalNumber},
		{"datetime_precision", r.Replace(`CASE WHEN TID = 1082 THEN 0
			WHEN TID IN (1083, 1114, 1184, 1266) THEN CASE WHEN TMOD < 0 THEN 6 ELSE TMOD END
			WHEN TID = 1186 THEN CASE WHEN TMOD < 0 OR TMOD & 65535 = 65535 THEN 6 ELSE TMOD & 65535 END END`), cardinalNumber},
		{"interval_type", "NULL", characterData},
		{"interval_precision", "NULL", cardinalNumber},
	}
}

// dataType is the data_type column: ARRAY, the built-in type's SQL name,
// or USER-DEFINED; a domain is described by its base type.
func dataType(t, nt, bt, nbt, typid string) string {
	r := strings.NewReplacer("T.", t+".", "NT.", nt+".", "BT.", bt+".", "NBT.", nbt+".", "TYPID", typid)
	return r.Replace(`CASE WHEN T.typtype = 'd' THEN
			CASE WHEN BT.typelem <> 0 AND BT.typlen = -1 THEN 'ARRAY'
				WHEN NBT.nspname = 'pg_catalog' THEN format_type(T.typbasetype, NULL) ELSE 'USER-DEFINED' END
		ELSE CASE WHEN T.typelem <> 0 AND T.typlen = -1 THEN 'ARRAY'
			WHEN NT.nspname = 'pg_catalog' THEN format_type(TYPID, NULL) ELSE 'USER-DEFINED' END END`)
}

const (
	yes = "'YES'"
	no  = "'NO'"
	db  = "current_database()"
)

func yesIf(cond string) string { return "CASE WHEN " + cond + " THEN 'YES' ELSE 'NO' END" }

// Visibility: PostgreSQL shows an object to roles that own it (through
// membership) or hold a privilege on it.
const (
	tableVisible = `(pg_has_role(c.relowner, 'USAGE') OR has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER'))`
	relVisible   = `(pg_has_role(r.relowner, 'USAGE') OR has_table_privilege(r.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER'))`
)

var infoSchemaSQL = map[string]string{
	"schemata": infoSelect(cols(
		ic("catalog_name", db, sqlIdentifier), ic("schema_name", "n.nspname", sqlIdentifier), ic("schema_owner", "u.rolname", sqlIdentifier),
		nullCols(sqlIdentifier, "default_character_set_catalog", "default_character_set_schema", "default_character_set_name"),
		ic("sql_path", "NULL", characterData)),
		`FROM pg_catalog.pg_namespace n, pg_catalog.pg_authid u
		WHERE n.nspowner = u.oid AND (pg_has_role(n.nspowner, 'USAGE') OR has_schema_privilege(n.oid, 'CREATE, USAGE'))`),

	"tables": infoSelect(cols(
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nc.nspname", sqlIdentifier), ic("table_name", "c.relname", sqlIdentifier),
		ic("table_type", `CASE WHEN nc.oid = pg_my_temp_schema() THEN 'LOCAL TEMPORARY'
			WHEN c.relkind IN ('r', 'p') THEN 'BASE TABLE' WHEN c.relkind = 'v' THEN 'VIEW' WHEN c.relkind = 'f' THEN 'FOREIGN' END`, characterData),
		ic("self_referencing_column_name", "NULL", sqlIdentifier), ic("reference_generation", "NULL", characterData),
		ic("user_defined_type_catalog", "CASE WHEN t.typname IS NOT NULL THEN "+db+" END", sqlIdentifier),
		ic("user_defined_type_schema", "nt.nspname", sqlIdentifier), ic("user_defined_type_name", "t.typname", sqlIdentifier),
		ic("is_insertable_into", yesIf("c.relkind IN ('r', 'p') OR (c.relkind IN ('v', 'f') AND (pg_relation_is_updatable(c.oid, false) & 8) = 8)"), yesOrNo),
		ic("is_typed", yesIf("t.typname IS NOT NULL"), yesOrNo),
		ic("commit_action", "CASE WHEN nc.oid = pg_my_temp_schema() THEN 'PRESERVE' END", characterData)),
		`FROM pg_catalog.pg_namespace nc JOIN pg_catalog.pg_class c ON nc.oid = c.relnamespace
		LEFT JOIN pg_catalog.pg_type t ON t.oid = c.reloftype LEFT JOIN pg_catalog.pg_namespace nt ON nt.oid = t.typnamespace
		WHERE c.relkind IN ('r', 'v', 'f', 'p') AND NOT pg_is_other_temp_schema(nc.oid) AND `+tableVisible),

	"columns": infoSelect(cols(
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nc.nspname", sqlIdentifier), ic("table_name", "c.relname", sqlIdentifier),
		ic("column_name", "a.attname", sqlIdentifier), ic("ordinal_position", "a.attnum", cardinalNumber),
		ic("column_default", "CASE WHEN a.attgenerated = '' THEN pg_get_expr(ad.adbin, ad.adrelid) END", characterData),
		ic("is_nullable", "CASE WHEN a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) THEN 'NO' ELSE 'YES' END", yesOrNo),
		ic("data_type", dataType("t", "nt", "bt", "nbt", "a.atttypid"), characterData),
		typeFacts("a.tid", "a.tmod", true),
		ic("domain_catalog", "CASE WHEN t.typtype = 'd' THEN "+db+" END", sqlIdentifier),
		ic("domain_schema", "CASE WHEN t.typtype = 'd' THEN nt.nspname END", sqlIdentifier),
		ic("domain_name", "CASE WHEN t.typtype = 'd' THEN t.typname END", sqlIdentifier),
		ic("udt_catalog", db, sqlIdentifier), ic("udt_schema", "COALESCE(nbt.nspname, nt.nspname)", sqlIdentifier),
		ic("udt_name", "COALESCE(bt.typname, t.typname)", sqlIdentifier),
		nullCols(sqlIdentifier, "scope_catalog", "scope_schema", "scope_name"),
		ic("maximum_cardinality", "NULL", cardinalNumber), ic("dtd_identifier", "a.attnum::text", sqlIdentifier),
		ic("is_self_referencing", no, yesOrNo),
		ic("is_identity", yesIf("a.attidentity IN ('a', 'd')"), yesOrNo),
		ic("identity_generation", "CASE a.attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END", characterData),
		ic("identity_start", "seq.seqstart::text", characterData), ic("identity_increment", "seq.seqincrement::text", characterData),
		ic("identity_maximum", "seq.seqmax::text", characterData), ic("identity_minimum", "seq.seqmin::text", characterData),
		ic("identity_cycle", "CASE WHEN seq.seqcycle THEN 'YES' ELSE 'NO' END", yesOrNo),
		ic("is_generated", "CASE WHEN a.attgenerated <> '' THEN 'ALWAYS' ELSE 'NEVER' END", characterData),
		ic("generation_expression", "CASE WHEN a.attgenerated <> '' THEN pg_get_expr(ad.adbin, ad.adrelid) END", characterData),
		ic("is_updatable", yesIf("c.relkind IN ('r', 'p') OR (c.relkind IN ('v', 'f') AND pg_column_is_updatable(c.oid, a.attnum, false))"), yesOrNo)),
		`FROM (SELECT a.*, CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE a.atttypid END AS tid,
				CASE WHEN ty.typtype = 'd' THEN ty.typtypmod ELSE a.atttypmod END AS tmod
			FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
			WHERE a.attnum > 0 AND NOT a.attisdropped) a
		LEFT JOIN pg_catalog.pg_attrdef ad ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
		JOIN pg_catalog.pg_class c ON a.attrelid = c.oid JOIN pg_catalog.pg_namespace nc ON c.relnamespace = nc.oid
		JOIN pg_catalog.pg_type t ON a.atttypid = t.oid JOIN pg_catalog.pg_namespace nt ON t.typnamespace = nt.oid
		LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND t.typbasetype = bt.oid
		LEFT JOIN pg_catalog.pg_namespace nbt ON bt.typnamespace = nbt.oid
		LEFT JOIN pg_catalog.pg_depend dep ON dep.refclassid = 'pg_catalog.pg_class'::regclass AND dep.refobjid = c.oid
			AND dep.refobjsubid = a.attnum AND dep.classid = 'pg_catalog.pg_class'::regclass AND dep.deptype = 'i' AND a.attidentity IN ('a', 'd')
		LEFT JOIN pg_catalog.pg_sequence seq ON dep.objid = seq.seqrelid
		WHERE NOT pg_is_other_temp_schema(nc.oid) AND c.relkind IN ('r', 'v', 'f', 'p')
			AND (pg_has_role(c.relowner, 'USAGE') OR has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))`),

	"views": infoSelect(cols(
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nc.nspname", sqlIdentifier), ic("table_name", "c.relname", sqlIdentifier),
		ic("view_definition", "CASE WHEN pg_has_role(c.relowner, 'USAGE') THEN pg_get_viewdef(c.oid) END", characterData),
		ic("check_option", `CASE WHEN 'check_option=cascaded' = ANY (c.reloptions) THEN 'CASCADED'
			WHEN 'check_option=local' = ANY (c.reloptions) THEN 'LOCAL' ELSE 'NONE' END`, characterData),
		ic("is_updatable", yesIf("(pg_relation_is_updatable(c.oid, false) & 20) = 20"), yesOrNo),
		ic("is_insertable_into", yesIf("(pg_relation_is_updatable(c.oid, false) & 8) = 8"), yesOrNo),
		// tidal has no triggers, so no view is trigger-updatable.
		ic("is_trigger_updatable", no, yesOrNo), ic("is_trigger_deletable", no, yesOrNo), ic("is_trigger_insertable_into", no, yesOrNo)),
		`FROM pg_catalog.pg_namespace nc, pg_catalog.pg_class c
		WHERE c.relnamespace = nc.oid AND c.relkind = 'v' AND NOT pg_is_other_temp_schema(nc.oid) AND `+tableVisible),

	"table_constraints": infoSelect(tableConstraintCols("nc.nspname", "c.conname", `CASE c.contype WHEN 'c' THEN 'CHECK' WHEN 'f' THEN 'FOREIGN KEY'
			WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' THEN 'UNIQUE' END`, "c.condeferrable", "c.condeferred",
		"CASE WHEN c.contype = 'u' THEN CASE WHEN (SELECT NOT i.indnullsnotdistinct FROM pg_catalog.pg_index i WHERE i.indexrelid = c.conindid) THEN 'YES' ELSE 'NO' END END"),
		`FROM pg_catalog.pg_namespace nc, pg_catalog.pg_namespace nr, pg_catalog.pg_constraint c, pg_catalog.pg_class r
		WHERE nc.oid = c.connamespace AND nr.oid = r.relnamespace AND c.conrelid = r.oid AND c.contype NOT IN ('t', 'x')
			AND r.relkind IN ('r', 'p') AND NOT pg_is_other_temp_schema(nr.oid) AND `+relVisible) +
		" UNION ALL " + infoSelect(tableConstraintCols("nr.nspname", notNullName, "'CHECK'", "false", "false", "NULL"),
		`FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_attribute a
		WHERE nr.oid = r.relnamespace AND r.oid = a.attrelid AND a.attnotnull AND a.attnum > 0 AND NOT a.attisdropped
			AND r.relkind IN ('r', 'p') AND NOT pg_is_other_temp_schema(nr.oid) AND `+relVisible),

	"check_constraints": infoSelect(cols(
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", "rs.nspname", sqlIdentifier),
		ic("constraint_name", "con.conname", sqlIdentifier), ic("check_clause", "substr(pg_get_constraintdef(con.oid), 7)", characterData)),
		`FROM pg_catalog.pg_constraint con LEFT JOIN pg_catalog.pg_namespace rs ON rs.oid = con.connamespace
		LEFT JOIN pg_catalog.pg_class c ON c.oid = con.conrelid LEFT JOIN pg_catalog.pg_type t ON t.oid = con.contypid
		WHERE pg_has_role(COALESCE(c.relowner, t.typowner), 'USAGE') AND con.contype = 'c'`) +
		" UNION ALL " + infoSelect(cols(
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", "nr.nspname", sqlIdentifier),
		ic("constraint_name", notNullName, sqlIdentifier), ic("check_clause", "a.attname || ' IS NOT NULL'", characterData)),
		`FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_attribute a
		WHERE nr.oid = r.relnamespace AND r.oid = a.attrelid AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull
			AND r.relkind IN ('r', 'p') AND pg_has_role(r.relowner, 'USAGE')`),

	"key_column_usage": infoSelect(cols(
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", "ss.nc_nspname", sqlIdentifier),
		ic("constraint_name", "ss.conname", sqlIdentifier), ic("table_catalog", db, sqlIdentifier),
		ic("table_schema", "ss.nr_nspname", sqlIdentifier), ic("table_name", "ss.relname", sqlIdentifier),
		ic("column_name", "a.attname", sqlIdentifier), ic("ordinal_position", "ss.n", cardinalNumber),
		ic("position_in_unique_constraint", `CASE WHEN ss.contype = 'f' THEN (SELECT k.n FROM pg_catalog.pg_index i,
				unnest(i.indkey::int2[]) WITH ORDINALITY AS k(v, n)
				WHERE i.indexrelid = ss.conindid AND k.v = (ss.confkey::int2[])[ss.n::int]) END`, cardinalNumber)),
		`FROM pg_catalog.pg_attribute a, (SELECT r.oid AS roid, r.relname, r.relowner, nc.nspname AS nc_nspname, nr.nspname AS nr_nspname,
				c.conname, c.contype, c.conindid, c.confkey, k.v AS attnum, k.n
			FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_namespace nc, pg_catalog.pg_constraint c,
				unnest(c.conkey::int2[]) WITH ORDINALITY AS k(v, n)
			WHERE nr.oid = r.relnamespace AND r.oid = c.conrelid AND nc.oid = c.connamespace AND c.contype IN ('p', 'u', 'f')
				AND r.relkind IN ('r', 'p') AND NOT pg_is_other_temp_schema(nr.oid)) ss
		WHERE ss.roid = a.attrelid AND a.attnum = ss.attnum AND NOT a.attisdropped
			AND (pg_has_role(ss.relowner, 'USAGE') OR has_column_privilege(ss.roid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))`),

	"referential_constraints": infoSelect(cols(
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", "ncon.nspname", sqlIdentifier),
		ic("constraint_name", "con.conname", sqlIdentifier),
		ic("unique_constraint_catalog", "CASE WHEN npkc.nspname IS NULL THEN NULL ELSE "+db+" END", sqlIdentifier),
		ic("unique_constraint_schema", "npkc.nspname", sqlIdentifier), ic("unique_constraint_name", "pkc.conname", sqlIdentifier),
		ic("match_option", "CASE con.confmatchtype WHEN 'f' THEN 'FULL' WHEN 'p' THEN 'PARTIAL' WHEN 's' THEN 'NONE' END", characterData),
		ic("update_rule", fkRule("con.confupdtype"), characterData), ic("delete_rule", fkRule("con.confdeltype"), characterData)),
		`FROM pg_catalog.pg_namespace ncon JOIN pg_catalog.pg_constraint con ON ncon.oid = con.connamespace
		JOIN pg_catalog.pg_class c ON con.conrelid = c.oid AND con.contype = 'f'
		LEFT JOIN pg_catalog.pg_constraint pkc ON pkc.conindid = con.conindid AND pkc.conrelid = con.confrelid AND pkc.contype IN ('p', 'u')
		LEFT JOIN pg_catalog.pg_namespace npkc ON pkc.connamespace = npkc.oid
		WHERE pg_has_role(c.relowner, 'USAGE') OR has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')`),

	"constraint_column_usage": infoSelect(cols(
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "x.tblschema", sqlIdentifier), ic("table_name", "x.tblname", sqlIdentifier),
		ic("column_name", "x.colname", sqlIdentifier), ic("constraint_catalog", db, sqlIdentifier),
		ic("constraint_schema", "x.cstrschema", sqlIdentifier), ic("constraint_name", "x.cstrname", sqlIdentifier)),
		`FROM (SELECT nr.nspname AS tblschema, r.relname AS tblname, r.relowner AS tblowner, a.attname AS colname, nc.nspname AS cstrschema, c.conname AS cstrname
			FROM pg_catalog.pg_namespace nr, pg_catalog.pg_class r, pg_catalog.pg_attribute a, pg_catalog.pg_namespace nc, pg_catalog.pg_constraint c
			WHERE nr.oid = r.relnamespace AND r.oid = a.attrelid AND nc.oid = c.connamespace
				AND r.oid = CASE c.contype WHEN 'f' THEN c.confrelid ELSE c.conrelid END
				AND a.attnum = ANY ((CASE c.contype WHEN 'f' THEN c.confkey ELSE c.conkey END)::int2[])
				AND NOT a.attisdropped AND c.contype IN ('p', 'u', 'f', 'c') AND r.relkind IN ('r', 'p')) x
		WHERE pg_has_role(x.tblowner, 'USAGE')`),

	"constraint_table_usage": infoSelect(cols(
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nr.nspname", sqlIdentifier), ic("table_name", "r.relname", sqlIdentifier),
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", "nc.nspname", sqlIdentifier), ic("constraint_name", "c.conname", sqlIdentifier)),
		`FROM pg_catalog.pg_constraint c, pg_catalog.pg_namespace nc, pg_catalog.pg_class r, pg_catalog.pg_namespace nr
		WHERE c.connamespace = nc.oid AND r.relnamespace = nr.oid
			AND ((c.contype = 'f' AND c.confrelid = r.oid) OR (c.contype IN ('p', 'u') AND c.conrelid = r.oid))
			AND r.relkind IN ('r', 'p') AND pg_has_role(r.relowner, 'USAGE')`),

	"sequences": infoSelect(cols(
		ic("sequence_catalog", db, sqlIdentifier), ic("sequence_schema", "nc.nspname", sqlIdentifier), ic("sequence_name", "c.relname", sqlIdentifier),
		ic("data_type", "format_type(s.seqtypid, NULL)", characterData),
		ic("numeric_precision", "CASE s.seqtypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64 END", cardinalNumber),
		ic("numeric_precision_radix", "2", cardinalNumber), ic("numeric_scale", "0", cardinalNumber),
		ic("start_value", "s.seqstart::text", characterData), ic("minimum_value", "s.seqmin::text", characterData),
		ic("maximum_value", "s.seqmax::text", characterData), ic("increment", "s.seqincrement::text", characterData),
		ic("cycle_option", yesIf("s.seqcycle"), yesOrNo)),
		`FROM pg_catalog.pg_namespace nc, pg_catalog.pg_class c, pg_catalog.pg_sequence s
		WHERE c.relnamespace = nc.oid AND c.relkind = 'S' AND c.oid = s.seqrelid
			AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'i')
			AND NOT pg_is_other_temp_schema(nc.oid)
			AND (pg_has_role(c.relowner, 'USAGE') OR has_sequence_privilege(c.oid, 'SELECT, UPDATE, USAGE'))`),

	"routines": infoSelect(routineCols(),
		`FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_proc p ON n.oid = p.pronamespace
		JOIN pg_catalog.pg_language l ON p.prolang = l.oid
		LEFT JOIN pg_catalog.pg_type t ON p.prorettype = t.oid AND p.prokind <> 'p'
		LEFT JOIN pg_catalog.pg_namespace nt ON t.typnamespace = nt.oid
		LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND t.typbasetype = bt.oid
		LEFT JOIN pg_catalog.pg_namespace nbt ON bt.typnamespace = nbt.oid
		WHERE pg_has_role(p.proowner, 'USAGE') OR has_function_privilege(p.oid, 'EXECUTE')`),

	"parameters": infoSelect(cols(
		ic("specific_catalog", db, sqlIdentifier), ic("specific_schema", "ss.nspname", sqlIdentifier),
		ic("specific_name", "ss.proname || '_' || ss.p_oid::text", sqlIdentifier), ic("ordinal_position", "ss.n", cardinalNumber),
		ic("parameter_mode", `CASE WHEN ss.proargmodes IS NULL THEN 'IN' ELSE
			CASE (ss.proargmodes::text[])[ss.n::int] WHEN 'i' THEN 'IN' WHEN 'o' THEN 'OUT' WHEN 'b' THEN 'INOUT' WHEN 'v' THEN 'IN' WHEN 't' THEN 'OUT' END END`, characterData),
		ic("is_result", no, yesOrNo), ic("as_locator", no, yesOrNo),
		ic("parameter_name", "NULLIF((ss.proargnames::text[])[ss.n::int], '')", sqlIdentifier),
		ic("data_type", dataType("t", "nt", "bt", "nbt", "t.oid"), characterData),
		typeFacts("COALESCE(bt.oid, t.oid)", "-1", false),
		ic("udt_catalog", db, sqlIdentifier), ic("udt_schema", "COALESCE(nbt.nspname, nt.nspname)", sqlIdentifier),
		ic("udt_name", "COALESCE(bt.typname, t.typname)", sqlIdentifier),
		nullCols(sqlIdentifier, "scope_catalog", "scope_schema", "scope_name"),
		ic("maximum_cardinality", "NULL", cardinalNumber), ic("dtd_identifier", "ss.n::text", sqlIdentifier),
		ic("parameter_default", "NULL", characterData)),
		`FROM (SELECT n.nspname, p.proname, p.oid AS p_oid, p.proowner, p.proargmodes, p.proargnames, k.v AS typid, k.n
			FROM pg_catalog.pg_namespace n, pg_catalog.pg_proc p,
				unnest(COALESCE(p.proallargtypes, regexp_split_to_array(NULLIF(p.proargtypes::text, ''), ' ')::oid[])) WITH ORDINALITY AS k(v, n)
			WHERE n.oid = p.pronamespace AND (pg_has_role(p.proowner, 'USAGE') OR has_function_privilege(p.oid, 'EXECUTE'))) ss
		JOIN pg_catalog.pg_type t ON t.oid = ss.typid JOIN pg_catalog.pg_namespace nt ON t.typnamespace = nt.oid
		LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND t.typbasetype = bt.oid
		LEFT JOIN pg_catalog.pg_namespace nbt ON bt.typnamespace = nbt.oid`),

	// tidal has no triggers (pg_trigger is empty): the view has
	// PostgreSQL's columns and no rows.
	"triggers": infoSelect(cols(
		nullCols(sqlIdentifier, "trigger_catalog", "trigger_schema", "trigger_name"),
		ic("event_manipulation", "NULL", characterData),
		nullCols(sqlIdentifier, "event_object_catalog", "event_object_schema", "event_object_table"),
		ic("action_order", "NULL", cardinalNumber),
		nullCols(characterData, "action_condition", "action_statement", "action_orientation", "action_timing"),
		nullCols(sqlIdentifier, "action_reference_old_table", "action_reference_new_table", "action_reference_old_row", "action_reference_new_row"),
		ic("created", "NULL", timeStamp)), "WHERE false"),

	"table_privileges": infoSelect(tablePrivilegeCols(), tablePrivilegesFrom),
	"role_table_grants": infoSelect(tablePrivilegeCols(), tablePrivilegesFrom+
		" AND (pg_has_role(u_grantor.oid, 'USAGE') OR pg_has_role(grantee.oid, 'USAGE'))"),
}

// notNullName is the name PostgreSQL 15 gives a NOT NULL column's
// pseudo-constraint.
const notNullName = "nr.oid::text || '_' || r.oid::text || '_' || a.attnum::text || '_not_null'"

func tableConstraintCols(schema, name, ctype, deferrable, deferred, nullsDistinct string) []infoCol {
	return cols(
		ic("constraint_catalog", db, sqlIdentifier), ic("constraint_schema", schema, sqlIdentifier), ic("constraint_name", name, sqlIdentifier),
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nr.nspname", sqlIdentifier), ic("table_name", "r.relname", sqlIdentifier),
		ic("constraint_type", ctype, characterData),
		ic("is_deferrable", yesIf(deferrable), yesOrNo), ic("initially_deferred", yesIf(deferred), yesOrNo),
		ic("enforced", yes, yesOrNo), ic("nulls_distinct", nullsDistinct, yesOrNo))
}

func fkRule(col string) string {
	return "CASE " + col + " WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' WHEN 'r' THEN 'RESTRICT' WHEN 'a' THEN 'NO ACTION' END"
}

func routineCols() []infoCol {
	resultCast := []infoCol{{"result_cast_from_data_type", "NULL", characterData}, {"result_cast_as_locator", "NULL", yesOrNo},
		{"result_cast_char_max_length", "NULL", cardinalNumber}, {"result_cast_char_octet_length", "NULL", cardinalNumber}}
	resultCast = append(resultCast, nullCols(sqlIdentifier, "result_cast_char_set_catalog", "result_cast_char_set_schema", "result_cast_char_set_name",
		"result_cast_collation_catalog", "result_cast_collation_schema", "result_cast_collation_name")...)
	resultCast = append(resultCast, nullCols(cardinalNumber, "result_cast_numeric_precision", "result_cast_numeric_precision_radix",
		"result_cast_numeric_scale", "result_cast_datetime_precision")...)
	resultCast = append(resultCast, infoCol{"result_cast_interval_type", "NULL", characterData}, infoCol{"result_cast_interval_precision", "NULL", cardinalNumber})
	resultCast = append(resultCast, nullCols(sqlIdentifier, "result_cast_type_udt_catalog", "result_cast_type_udt_schema", "result_cast_type_udt_name",
		"result_cast_scope_catalog", "result_cast_scope_schema", "result_cast_scope_name")...)
	resultCast = append(resultCast, infoCol{"result_cast_maximum_cardinality", "NULL", cardinalNumber}, infoCol{"result_cast_dtd_identifier", "NULL", sqlIdentifier})
	return cols(
		ic("specific_catalog", db, sqlIdentifier), ic("specific_schema", "n.nspname", sqlIdentifier),
		ic("specific_name", "p.proname || '_' || p.oid::text", sqlIdentifier),
		ic("routine_catalog", db, sqlIdentifier), ic("routine_schema", "n.nspname", sqlIdentifier), ic("routine_name", "p.proname", sqlIdentifier),
		ic("routine_type", "CASE p.prokind WHEN 'f' THEN 'FUNCTION' WHEN 'p' THEN 'PROCEDURE' END", characterData),
		nullCols(sqlIdentifier, "module_catalog", "module_schema", "module_name", "udt_catalog", "udt_schema", "udt_name"),
		ic("data_type", "CASE WHEN p.prokind = 'p' THEN NULL ELSE "+dataType("t", "nt", "bt", "nbt", "t.oid")+" END", characterData),
		typeFacts("NULL::oid", "-1", false),
		ic("type_udt_catalog", "CASE WHEN nt.nspname IS NOT NULL THEN "+db+" END", sqlIdentifier),
		ic("type_udt_schema", "nt.nspname", sqlIdentifier), ic("type_udt_name", "t.typname", sqlIdentifier),
		nullCols(sqlIdentifier, "scope_catalog", "scope_schema", "scope_name"),
		ic("maximum_cardinality", "NULL", cardinalNumber),
		ic("dtd_identifier", "CASE WHEN p.prokind <> 'p' THEN '0' END", sqlIdentifier),
		ic("routine_body", "CASE WHEN l.lanname = 'sql' THEN 'SQL' ELSE 'EXTERNAL' END", characterData),
		ic("routine_definition", "CASE WHEN pg_has_role(p.proowner, 'USAGE') THEN p.prosrc END", characterData),
		ic("external_name", "CASE WHEN l.lanname = 'c' THEN p.prosrc END", characterData),
		ic("external_language", "upper(l.lanname)", characterData), ic("parameter_style", "'GENERAL'", characterData),
		ic("is_deterministic", yesIf("p.provolatile = 'i'"), yesOrNo), ic("sql_data_access", "'MODIFIES'", characterData),
		ic("is_null_call", "CASE WHEN p.prokind <> 'p' THEN "+yesIf("p.proisstrict")+" END", yesOrNo),
		ic("sql_path", "NULL", characterData), ic("schema_level_routine", yes, yesOrNo),
		ic("max_dynamic_result_sets", "0", cardinalNumber), ic("is_user_defined_cast", "NULL", yesOrNo),
		ic("is_implicitly_invocable", "NULL", yesOrNo),
		ic("security_type", "CASE WHEN p.prosecdef THEN 'DEFINER' ELSE 'INVOKER' END", characterData),
		nullCols(sqlIdentifier, "to_sql_specific_catalog", "to_sql_specific_schema", "to_sql_specific_name"),
		ic("as_locator", no, yesOrNo), ic("created", "NULL", timeStamp), ic("last_altered", "NULL", timeStamp),
		ic("new_savepoint_level", "NULL", yesOrNo), ic("is_udt_dependent", no, yesOrNo),
		resultCast)
}

// Table privileges come from relacl, or the owner's default privileges
// (acldefault) while relacl is NULL; each aclitem is
// grantee=privileges/grantor, a privilege letter followed by * when
// grantable.
func tablePrivilegeCols() []infoCol {
	return cols(
		ic("grantor", "u_grantor.rolname", sqlIdentifier),
		ic("grantee", "COALESCE(grantee.rolname, 'PUBLIC')", sqlIdentifier),
		ic("table_catalog", db, sqlIdentifier), ic("table_schema", "nc.nspname", sqlIdentifier), ic("table_name", "c.relname", sqlIdentifier),
		ic("privilege_type", "pr.name", characterData),
		ic("is_grantable", yesIf("strpos(acl.privs, pr.letter || '*') > 0 OR acl.grantee_name = owner.rolname"), yesOrNo),
		ic("with_hierarchy", yesIf("pr.name = 'SELECT'"), yesOrNo))
}

const tablePrivilegesFrom = `FROM (SELECT c.oid AS relid, split_part(item, '=', 1) AS grantee_name,
			split_part(split_part(item, '=', 2), '/', 1) AS privs, split_part(item, '/', 2) AS grantor_name
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_authid o ON o.oid = c.relowner,
			unnest(COALESCE(c.relacl, ARRAY[o.rolname || '=arwdDxt/' || o.rolname])) AS item
		WHERE c.relkind IN ('r', 'v', 'f', 'p')) acl
	JOIN pg_catalog.pg_class c ON c.oid = acl.relid
	JOIN pg_catalog.pg_namespace nc ON nc.oid = c.relnamespace
	JOIN pg_catalog.pg_authid owner ON owner.oid = c.relowner
	JOIN pg_catalog.pg_authid u_grantor ON u_grantor.rolname = acl.grantor_name
	LEFT JOIN pg_catalog.pg_authid grantee ON grantee.rolname = acl.grantee_name
	JOIN (VALUES ('a', 'INSERT'), ('r', 'SELECT'), ('w', 'UPDATE'), ('d', 'DELETE'), ('D', 'TRUNCATE'), ('x', 'REFERENCES'), ('t', 'TRIGGER')) AS pr(letter, name)
		ON strpos(acl.privs, pr.letter) > 0
	WHERE NOT pg_is_other_temp_schema(nc.oid)`

// infoSchemaView plans an information_schema view named in FROM, if rv
// names one (qualified, or found through the search path) and no stored
// relation of the name comes first.
func (p *Planner) infoSchemaView(rv *pg.RangeVar, sc *scope) (*jtree, bool, error) {
	text, ok := infoSchemaSQL[rv.Relname]
	if !ok {
		return nil, false, nil
	}
	switch rv.Schemaname {
	case "information_schema":
	case "":
		if r, _ := p.C.Eng.Catalog.Lookup(p.C.Tx, "", rv.Relname); r != nil {
			return nil, false, nil
		}
		nsps, err := p.C.Eng.Catalog.SearchNamespaces(p.C.Tx, false)
		if err != nil {
			return nil, false, err
		}
		found := false
		for _, n := range nsps {
			found = found || n == catalog.InfoSchemaNamespace
		}
		if !found {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	if err := p.q.locks.refuseNamed(rv.Relname, "a view"); err != nil {
		return nil, true, err
	}
	tree, err := pg.Parse(text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, true, pgerr.Errorf(pgerr.InternalError, "information_schema.%s has a malformed definition", rv.Relname)
	}
	j, err := p.expandSQLView(tree.Stmts[0].Stmt.GetSelectStmt(), rv, sc)
	return j, true, err
}

// expandSQLView plans a system view defined in SQL as the subquery it
// stands for, its columns named by the query's output names.
func (p *Planner) expandSQLView(sel *pg.SelectStmt, rv *pg.RangeVar, sc *scope) (*jtree, error) {
	alias, colAliases := aliasOf(rv.Alias, rv.Relname)
	outerLocks, outerCTEs, uses, usedCols := p.q.locks, p.q.ctes, p.Uses, p.UsedColumns
	p.q.locks, p.q.ctes, p.Uses, p.UsedColumns = nil, nil, nil, nil
	defer func() { p.q.locks, p.q.ctes, p.Uses, p.UsedColumns = outerLocks, outerCTEs, uses, usedCols }()
	node, qcols, _, err := p.planQuery(sel, sc.parent, sc.level)
	if err != nil {
		return nil, err
	}
	if len(colAliases) > len(qcols) {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, len(qcols), len(colAliases))
	}
	scols := make([]scopeCol, len(qcols))
	outCols := make([]Column, len(qcols))
	for i, c := range qcols {
		name := c.Name
		if i < len(colAliases) {
			name = colAliases[i]
		}
		scols[i] = scopeCol{rel: alias, name: name, t: c.Type, relname: rv.Relname}
		outCols[i] = Column{Name: name, Type: c.Type}
	}
	ss := &SubqueryScan{Input: node, Alias: alias, Cols: outCols}
	return p.addLeaf(sc, &fromItem{node: ss, alias: alias}, scols), nil
}
