// Package catalog keeps tidal's system catalogs — pg_namespace, pg_class,
// pg_attribute, pg_type, pg_index, pg_attrdef, pg_authid, pg_constraint,
// pg_sequence, pg_depend, pg_auth_members, pg_proc, pg_language — as
// ordinary heap tables of the engine (README.md),
// with PostgreSQL's names, OIDs and column names, so DDL is transactional
// and the catalogs can be queried with plain SQL.
//
// On top of the tables it keeps a cache of relation descriptions, flushed
// whenever a transaction that changed the catalogs ends.
package catalog

import (
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Well-known OIDs (PostgreSQL's).
const (
	PgCatalogNamespace   = 11
	PublicNamespace      = 2200
	PgToastNamespace     = 99
	InfoSchemaNamespace  = 13000
	PgTypeRelID          = 1247
	PgAttributeRelID     = 1249
	PgClassRelID         = 1259
	PgNamespaceRelID     = 2615
	PgIndexRelID         = 2610
	PgAttrdefRelID       = 2604
	PgAuthidRelID        = 1260
	HeapAmOID            = 2
	BtreeAmOID           = 403
	BootstrapSuperuserID = 10
	DatabaseOID          = 5
	// DatabaseName is the one database's name (current_database()).
	DatabaseName = "postgres"
	// FirstNormalObjectID is where user objects' OIDs start.
	FirstNormalObjectID = 16384
)

// Column describes one column of a catalog table.
type Column struct {
	Name string
	Type types.Type
}

// TableDef describes a catalog table.
type TableDef struct {
	OID     uint32
	Name    string
	Columns []Column
}

func col(name string, t types.Type) Column { return Column{name, t} }

var (
	tOid   = types.Oid
	tName  = types.Name
	tInt2  = types.Int2
	tInt4  = types.Int4
	tFlt4  = types.Float4
	tBool  = types.Boolean
	tChar  = types.Char
	tText  = types.Text
	tI2Vec = types.Type{OID: types.Int2VectorOID, Typmod: -1}
	// tTextArr is text[], stored in its text form (the bytes a text
	// column with the same value would hold).
	tTextArr, _ = types.ArrayOf(types.Text)
)

// The catalog tables. Column order is PostgreSQL 17's, less columns tidal
// has no use for yet, plus attstattarget at the end of pg_attribute; the
// types are PostgreSQL's, except that array and node-tree columns
// (relacl, …) are stored as text, and reloptions, a text[], in its text
// form.
var (
	PgNamespace = &TableDef{PgNamespaceRelID, "pg_namespace", []Column{
		col("oid", tOid), col("nspname", tName), col("nspowner", tOid), col("nspacl", tTextArr),
	}}
	PgClass = &TableDef{PgClassRelID, "pg_class", []Column{
		col("oid", tOid), col("relname", tName), col("relnamespace", tOid), col("reltype", tOid),
		col("reloftype", tOid), col("relowner", tOid), col("relam", tOid), col("relfilenode", tOid),
		col("reltablespace", tOid), col("relpages", tInt4), col("reltuples", tFlt4), col("relallvisible", tInt4),
		col("reltoastrelid", tOid), col("relhasindex", tBool), col("relisshared", tBool), col("relpersistence", tChar),
		col("relkind", tChar), col("relnatts", tInt2), col("relchecks", tInt2), col("relhasrules", tBool),
		col("relhastriggers", tBool), col("relhassubclass", tBool), col("relrowsecurity", tBool), col("relforcerowsecurity", tBool),
		col("relispopulated", tBool), col("relreplident", tChar), col("relispartition", tBool), col("relrewrite", tOid),
		col("relfrozenxid", tOid), col("relminmxid", tOid), col("relacl", tTextArr), col("reloptions", tTextArr),
		col("relpartbound", tText),
	}}
	PgAttribute = &TableDef{PgAttributeRelID, "pg_attribute", []Column{
		col("attrelid", tOid), col("attname", tName), col("atttypid", tOid), col("attlen", tInt2),
		col("attnum", tInt2), col("attcacheoff", tInt4), col("atttypmod", tInt4), col("attndims", tInt2),
		col("attbyval", tBool), col("attalign", tChar), col("attstorage", tChar), col("attcompression", tChar),
		col("attnotnull", tBool), col("atthasdef", tBool), col("atthasmissing", tBool), col("attidentity", tChar),
		col("attgenerated", tChar), col("attisdropped", tBool), col("attislocal", tBool), col("attinhcount", tInt2),
		col("attcollation", tOid), col("attmissingval", tText), col("attstattarget", tInt4), col("attacl", tTextArr),
	}}
	PgType = &TableDef{PgTypeRelID, "pg_type", []Column{
		col("oid", tOid), col("typname", tName), col("typnamespace", tOid), col("typowner", tOid),
		col("typlen", tInt2), col("typbyval", tBool), col("typtype", tChar), col("typcategory", tChar),
		col("typispreferred", tBool), col("typisdefined", tBool), col("typdelim", tChar), col("typrelid", tOid),
		col("typelem", tOid), col("typarray", tOid), col("typalign", tChar), col("typstorage", tChar),
		col("typnotnull", tBool), col("typbasetype", tOid), col("typtypmod", tInt4), col("typndims", tInt4),
		col("typcollation", tOid), col("typdefault", tText), col("typacl", tTextArr),
	}}
	PgIndex = &TableDef{PgIndexRelID, "pg_index", []Column{
		col("indexrelid", tOid), col("indrelid", tOid), col("indnatts", tInt2), col("indnkeyatts", tInt2),
		col("indisunique", tBool), col("indnullsnotdistinct", tBool), col("indisprimary", tBool), col("indisexclusion", tBool),
		col("indimmediate", tBool), col("indisclustered", tBool), col("indisvalid", tBool), col("indcheckxmin", tBool),
		col("indisready", tBool), col("indislive", tBool), col("indisreplident", tBool), col("indkey", tI2Vec),
		col("indexprs", tText), col("indpred", tText),
	}}
	PgAttrdef = &TableDef{PgAttrdefRelID, "pg_attrdef", []Column{
		col("oid", tOid), col("adrelid", tOid), col("adnum", tInt2), col("adbin", tText),
	}}
)

// SystemTables lists the catalog tables, bootstrapped in this order.
var SystemTables = []*TableDef{PgNamespace, PgClass, PgAttribute, PgType, PgIndex, PgAttrdef, PgAuthid, PgConstraint, PgSequence, PgDepend, PgAuthMembers, PgProc, PgLanguage, PgInherits, PgEnum, PgRewrite, PgPartitionedTable, PgDescription, PgShdescription, PgTrigger}

// ColumnIndex returns the position of a column in a catalog table.
func (d *TableDef) ColumnIndex(name string) int {
	for i, c := range d.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("catalog: no column " + name + " in " + d.Name)
}

// Types returns the column types.
func (d *TableDef) Types() []types.Type {
	ts := make([]types.Type, len(d.Columns))
	for i, c := range d.Columns {
		ts[i] = c.Type
	}
	return ts
}
