package catalog

import (
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// PgAuthid is the roles catalog (PostgreSQL's pg_authid, less nothing
// tidal uses). rolpassword holds a SCRAM-SHA-256 verifier or NULL.
var PgAuthid = &TableDef{PgAuthidRelID, "pg_authid", []Column{
	col("oid", tOid), col("rolname", tName), col("rolsuper", tBool), col("rolinherit", tBool),
	col("rolcreaterole", tBool), col("rolcreatedb", tBool), col("rolcanlogin", tBool), col("rolreplication", tBool),
	col("rolbypassrls", tBool), col("rolconnlimit", tInt4), col("rolpassword", tText), col("rolvaliduntil", types.Timestamptz),
}}

// Role is a row of pg_authid.
type Role struct {
	OID         uint32
	Name        string
	Super       bool
	Inherit     bool
	CreateRole  bool
	CreateDB    bool
	CanLogin    bool
	Replication bool
	BypassRLS   bool
	ConnLimit   int32
	Password    string // verifier; "" = NULL
	HasPassword bool
	ValidUntil  types.Datum // timestamptz or NULL

	tid page.ItemPointer
}

// BootstrapRole is the superuser initdb creates.
func BootstrapRole() Role {
	return Role{OID: BootstrapSuperuserID, Name: "postgres", Super: true, Inherit: true, CreateRole: true,
		CreateDB: true, CanLogin: true, Replication: true, BypassRLS: true, ConnLimit: -1}
}

func (r *Role) row() []types.Datum {
	pw := types.Null()
	if r.HasPassword {
		pw = types.Str(r.Password)
	}
	return []types.Datum{
		ov(r.OID), types.Str(r.Name), bv(r.Super), bv(r.Inherit),
		bv(r.CreateRole), bv(r.CreateDB), bv(r.CanLogin), bv(r.Replication),
		bv(r.BypassRLS), iv(int64(r.ConnLimit)), pw, r.ValidUntil,
	}
}

func roleFromRow(v []types.Datum, tid page.ItemPointer) Role {
	r := Role{
		OID: uint32(v[0].Int()), Name: v[1].Str(), Super: v[2].Bool(), Inherit: v[3].Bool(),
		CreateRole: v[4].Bool(), CreateDB: v[5].Bool(), CanLogin: v[6].Bool(), Replication: v[7].Bool(),
		BypassRLS: v[8].Bool(), ConnLimit: int32(v[9].Int()), ValidUntil: v[11], tid: tid,
	}
	if !v[10].IsNull() {
		r.Password, r.HasPassword = v[10].Str(), true
	}
	return r
}

// PgDatabaseOwnerID is the predefined role pg_database_owner, owner of the
// public schema since PostgreSQL 15.
const PgDatabaseOwnerID = 6171

// PgSignalBackendID is the predefined role pg_signal_backend, whose members
// may cancel and terminate other roles' backends.
const PgSignalBackendID = 4200

// predefinedRoles are the roles PostgreSQL 15's initdb creates besides the
// bootstrap superuser, with their fixed OIDs: they cannot log in, and
// psql's \du leaves them out (its query skips names starting with "pg_").
var predefinedRoles = []struct {
	oid  uint32
	name string
}{
	{3373, "pg_monitor"}, {3374, "pg_read_all_settings"}, {3375, "pg_read_all_stats"},
	{3377, "pg_stat_scan_tables"}, {PgSignalBackendID, "pg_signal_backend"}, {4544, "pg_checkpoint"},
	{4569, "pg_read_server_files"}, {4570, "pg_write_server_files"}, {4571, "pg_execute_server_program"},
	{PgDatabaseOwnerID, "pg_database_owner"}, {6181, "pg_read_all_data"}, {6182, "pg_write_all_data"},
}

func (c *Catalog) insertBootstrapRole(tx *Txn) error {
	r := BootstrapRole()
	if _, err := c.insert(tx, PgAuthid, r.row()); err != nil {
		return err
	}
	for _, p := range predefinedRoles {
		role := Role{OID: p.oid, Name: p.name, Inherit: true, ConnLimit: -1}
		if _, err := c.insert(tx, PgAuthid, role.row()); err != nil {
			return err
		}
	}
	return nil
}

// HasAuthid reports whether pg_authid exists (data directories created
// before it was added lack it).
func (c *Catalog) HasAuthid(tx *Txn) (bool, error) {
	found := false
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == PgAuthidRelID {
			found = true
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// CreateAuthid adds pg_authid, with the bootstrap superuser, to a data
// directory that lacks it. tx must have an xid; everything is WAL-logged.
func (c *Catalog) CreateAuthid(tx *Txn) error {
	if err := c.CreateStorage(tx, PgAuthidRelID); err != nil {
		return err
	}
	d := PgAuthid
	row := classRow(d.OID, d.Name, PgCatalogNamespace, KindTable, d.OID, len(d.Columns), HeapAmOID, false, nil)
	row[PgClass.ColumnIndex("relfrozenxid")] = ov(tx.newRelFrozenXid())
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return err
	}
	for i, col := range d.Columns {
		if _, err := c.insert(tx, PgAttribute, attrRow(d.OID, Attr{Name: col.Name, Type: col.Type, Num: int16(i + 1), NotNull: col.Name != "rolpassword" && col.Name != "rolvaliduntil"})); err != nil {
			return err
		}
	}
	if err := c.insertBootstrapRole(tx); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// Roles lists every role visible to tx, by OID.
func (c *Catalog) Roles(tx *Txn) ([]Role, error) {
	var out []Role
	err := c.scan(tx, PgAuthid, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		out = append(out, roleFromRow(v, tid))
		return true, nil
	})
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].OID < out[j-1].OID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, err
}

// LookupRole finds a role by name; nil, nil if there is none.
func (c *Catalog) LookupRole(tx *Txn, name string) (*Role, error) {
	var found *Role
	err := c.scan(tx, PgAuthid, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if v[1].Str() == name {
			r := roleFromRow(v, tid)
			found = &r
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// RoleName returns the name of role oid, or "" if there is none.
func (c *Catalog) RoleName(tx *Txn, oid uint32) (string, error) {
	roles, err := c.Roles(tx)
	for _, r := range roles {
		if r.OID == oid {
			return r.Name, err
		}
	}
	return "", err
}

// CreateRole adds a role; it assigns r.OID.
func (c *Catalog) CreateRole(tx *Txn, r *Role) error {
	if existing, err := c.LookupRole(tx, r.Name); err != nil {
		return err
	} else if existing != nil {
		return pgerr.Errorf(pgerr.DuplicateObject, "role \"%s\" already exists", r.Name)
	}
	if strings.HasPrefix(r.Name, "pg_") {
		return pgerr.Errorf("42939", "role name \"%s\" is reserved", r.Name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	r.OID = oid
	if _, err := c.insert(tx, PgAuthid, r.row()); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// UpdateRole writes a new version of a role found by LookupRole.
func (c *Catalog) UpdateRole(tx *Txn, r *Role) error {
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgAuthid, r.tid, r.row())
	if err == nil && oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

// DropRole removes a role found by LookupRole.
func (c *Catalog) DropRole(tx *Txn, r *Role) error {
	if err := c.delete(tx, PgAuthid, r.tid); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// LegacyBootstrap makes Bootstrap write a data directory as tidal did
// before pg_authid, pg_constraint, pg_sequence, pg_depend,
// pg_auth_members, pg_proc, pg_language and pg_inherits existed
// (tests of the upgrade at engine start).
var LegacyBootstrap bool

func bootstrapTables() []*TableDef {
	if !LegacyBootstrap {
		return SystemTables
	}
	var out []*TableDef
	for _, d := range SystemTables {
		if d != PgAuthid && d != PgConstraint && d != PgSequence && d != PgDepend && d != PgAuthMembers && d != PgProc && d != PgLanguage && d != PgInherits && d != PgEnum && d != PgRewrite && d != PgPartitionedTable {
			out = append(out, d)
		}
	}
	return out
}
