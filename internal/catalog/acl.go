package catalog

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/acl"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// aclFromDatum reads a stored aclitem[] (text[]); NULL is nil. A list
// that does not parse reads as nil: the catalog wrote it, so that is an
// invariant broken, and the owner's default is the safe reading.
func aclFromDatum(d types.Datum) acl.ACL {
	if d.IsNull() {
		return nil
	}
	elems := d.Elems()
	strs := make([]string, len(elems))
	for i, e := range elems {
		strs[i] = e.Str()
	}
	a, err := acl.Parse(strs)
	if err != nil {
		return nil
	}
	if a == nil {
		a = acl.ACL{} // '{}': no privileges at all, unlike NULL
	}
	return a
}

// aclDatum is the stored form of a list; nil is NULL.
func aclDatum(a acl.ACL) types.Datum {
	if a == nil {
		return types.Null()
	}
	strs := a.Strings()
	elems := make([]types.Datum, len(strs))
	for i, s := range strs {
		elems[i] = types.Str(s)
	}
	return types.Array(elems)
}

// creatorOID is the role that owns what tx creates: its current user.
func (c *Catalog) creatorOID(tx *Txn) uint32 {
	if tx.User == "" {
		return BootstrapSuperuserID
	}
	r, err := c.LookupRole(tx, tx.User)
	if err != nil || r == nil {
		return BootstrapSuperuserID
	}
	return r.OID
}

// SetRelACL stores a relation's relacl (nil: NULL, the default).
func (c *Catalog) SetRelACL(tx *Txn, oid uint32, a acl.ACL) error {
	return c.updateClassRow(tx, oid, map[int]types.Datum{cRelacl: aclDatum(a)})
}

// SetAttrACL stores column num's attacl.
func (c *Catalog) SetAttrACL(tx *Txn, rel uint32, num int16, a acl.ACL) error {
	return c.updateAttr(tx, rel, num, func(v []types.Datum) { v[aACL] = aclDatum(a) })
}

// objectACL reads the owner and ACL columns of def's row whose first
// column (oid) is oid; ok is false when there is none.
func (c *Catalog) objectACL(tx *Txn, def *TableDef, ownerCol, aclCol int, oid uint32) (owner uint32, list acl.ACL, ok bool, err error) {
	err = c.scan(tx, def, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) != oid {
			return true, nil
		}
		owner, list, ok = uint32(v[ownerCol].Int()), aclFromDatum(v[aclCol]), true
		return false, nil
	})
	return owner, list, ok, err
}

// setObjectACL stores the ACL column of def's row oid.
func (c *Catalog) setObjectACL(tx *Txn, def *TableDef, aclCol int, oid uint32, list acl.ACL) error {
	var target page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, def, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			target, vals = tid, append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil || vals == nil {
		return err
	}
	vals[aclCol] = aclDatum(list)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, def, target, vals)
	if err != nil {
		return err
	}
	if oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return nil
}

// NamespaceACL is a schema's owner and nspacl; ok is false when there is
// no schema oid.
//
// The schemas initdb makes let PUBLIC use them (their lists, while still
// NULL here, read as PostgreSQL's initdb leaves them).
func (c *Catalog) NamespaceACL(tx *Txn, oid uint32) (owner uint32, list acl.ACL, ok bool, err error) {
	owner, list, ok, err = c.objectACL(tx, PgNamespace, 2, 3, oid)
	if err != nil || !ok || list != nil {
		return owner, list, ok, err
	}
	switch c.NamespaceName(oid) {
	case "pg_catalog", "public", "information_schema":
		name, err := c.RoleName(tx, owner)
		if err != nil {
			return 0, nil, false, err
		}
		list = append(acl.Default(acl.Schema, name), acl.Item{Grantor: name, Privs: acl.Usage})
	}
	return owner, list, ok, nil
}

// SetNamespaceACL stores a schema's nspacl.
func (c *Catalog) SetNamespaceACL(tx *Txn, oid uint32, list acl.ACL) error {
	return c.setObjectACL(tx, PgNamespace, 3, oid, list)
}

// TypeACL is a type's owner and typacl.
func (c *Catalog) TypeACL(tx *Txn, oid uint32) (owner uint32, list acl.ACL, ok bool, err error) {
	return c.objectACL(tx, PgType, tyOwner, PgType.ColumnIndex("typacl"), oid)
}

// SetTypeACL stores a type's typacl.
func (c *Catalog) SetTypeACL(tx *Txn, oid uint32, list acl.ACL) error {
	return c.setObjectACL(tx, PgType, PgType.ColumnIndex("typacl"), oid, list)
}

// LanguageACL is a language's owner and lanacl.
func (c *Catalog) LanguageACL(tx *Txn, oid uint32) (owner uint32, list acl.ACL, ok bool, err error) {
	return c.objectACL(tx, PgLanguage, 2, 8, oid)
}

// SetLanguageACL stores a language's lanacl.
func (c *Catalog) SetLanguageACL(tx *Txn, oid uint32, list acl.ACL) error {
	return c.setObjectACL(tx, PgLanguage, 8, oid, list)
}
