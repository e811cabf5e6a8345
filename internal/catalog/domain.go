package catalog

import (
	"sort"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Domains (CREATE DOMAIN) are pg_type rows with typtype 'd': typbasetype
// is the type the domain is declared over (a builtin or another domain),
// typtypmod its typmod, typnotnull the NOT NULL constraint and typdefault
// the DEFAULT expression as SQL text. Their CHECK constraints are
// pg_constraint rows with contypid set and conrelid 0. Every domain has
// an array type "_name" (typelem the domain), as in PostgreSQL.
//
// Values of a domain are values of its base type: the SQL layer works on
// Base and enforces the constraints where a value is coerced to the
// domain (a cast, a column of the domain).

// Domain is a domain as the SQL layer uses it.
type Domain struct {
	OID       uint32
	Name      string
	Namespace uint32
	Owner     uint32
	// Declared is the type named in CREATE DOMAIN (pg_type.typbasetype);
	// Base the builtin type beneath every level, with the typmod.
	Declared uint32
	Base     types.Type
	NotNull  bool
	Default  string // "" when none
	ArrayOID uint32
	// Checks are the CHECK constraints of the domain and of the domains
	// it is over, the innermost level's first, by name within a level
	// (the order PostgreSQL evaluates them in).
	Checks []*Constraint
	// NotNullBy names the level whose NOT NULL applies (the domain in
	// "domain x does not allow null values").
	NotNullBy string

	tid page.ItemPointer
}

// TypeKind is pg_type.typtype.
const (
	TypeBase   = 'b'
	TypeDomain = 'd'
)

var (
	tyOid       = PgType.ColumnIndex("oid")
	tyName      = PgType.ColumnIndex("typname")
	tyNsp       = PgType.ColumnIndex("typnamespace")
	tyOwner     = PgType.ColumnIndex("typowner")
	tyType      = PgType.ColumnIndex("typtype")
	tyArray     = PgType.ColumnIndex("typarray")
	tyNotNull   = PgType.ColumnIndex("typnotnull")
	tyBaseType  = PgType.ColumnIndex("typbasetype")
	tyTypmod    = PgType.ColumnIndex("typtypmod")
	tyDefault   = PgType.ColumnIndex("typdefault")
	tyElem      = PgType.ColumnIndex("typelem")
	tyTypeCount = len(PgType.Columns)
)

// typeRow is a pg_type row of a type with t's layout and category.
func typeRow(oid uint32, name string, nsp, owner uint32, kind byte, t types.Type) []types.Datum {
	l := t.Layout()
	row := make([]types.Datum, tyTypeCount)
	copy(row, []types.Datum{
		ov(oid), types.Str(name), ov(nsp), ov(owner),
		iv(int64(l.Len)), bv(l.ByVal), cv(kind), cv(types.Category(t)),
		bv(false), bv(true), cv(','), ov(0),
		ov(0), ov(0), cv(l.Align), cv(l.Storage),
		bv(false), ov(0), iv(-1), iv(0),
		ov(0), types.Null(), types.Null(),
	})
	return row
}

// TypeNameTaken reports whether nsp has a type (or a relation, whose row
// type PostgreSQL would have) called name.
func (c *Catalog) TypeNameTaken(tx *Txn, nsp uint32, name string) (bool, error) {
	taken := false
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyNsp].Int()) == nsp && v[tyName].Str() == name {
			taken = true
			return false, nil
		}
		return true, nil
	})
	if err != nil || taken {
		return taken, err
	}
	r, err := c.lookupIn(tx, nsp, name)
	return r != nil, err
}

// CreateDomain adds a domain over declared (a builtin type with its
// typmod, or a domain: over.OID) and its array type; d.OID and
// d.ArrayOID are assigned. Its CHECK constraints are added afterwards
// (AddDomainCheck).
func (c *Catalog) CreateDomain(tx *Txn, d *Domain, declared types.Type, over *Domain) error {
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	arr, err := c.NewOid()
	if err != nil {
		return err
	}
	d.OID, d.ArrayOID = oid, arr
	base := declared
	if over != nil {
		base = over.Base
		d.Declared = over.OID
	} else {
		d.Declared = declared.OID
	}
	d.Base = base
	row := typeRow(oid, d.Name, d.Namespace, d.Owner, TypeDomain, base)
	row[tyArray] = ov(arr)
	row[tyNotNull] = bv(d.NotNull)
	row[tyBaseType] = ov(d.Declared)
	row[tyTypmod] = iv(int64(declared.Typmod))
	if over != nil {
		row[tyTypmod] = iv(-1)
	}
	if d.Default != "" {
		row[tyDefault] = types.Str(d.Default)
	}
	if _, err := c.insert(tx, PgType, row); err != nil {
		return err
	}
	arrRow := typeRow(arr, arrayTypeName(d.Name), d.Namespace, d.Owner, TypeBase, types.Text)
	arrRow[PgType.ColumnIndex("typcategory")] = cv('A')
	arrRow[PgType.ColumnIndex("typalign")] = cv(arrayAlign(base))
	arrRow[tyElem] = ov(oid)
	if _, err := c.insert(tx, PgType, arrRow); err != nil {
		return err
	}
	if err := c.addDepend(tx, PgTypeRelID, oid, PgNamespaceRelID, d.Namespace, DepNormal); err != nil {
		return err
	}
	if over != nil {
		if err := c.addDepend(tx, PgTypeRelID, oid, PgTypeRelID, over.OID, DepNormal); err != nil {
			return err
		}
	}
	if err := c.addDepend(tx, PgTypeRelID, arr, PgTypeRelID, oid, DepInternal); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// arrayTypeName is makeArrayTypeName: "_" and the element's name, cut to
// fit in a name.
func arrayTypeName(name string) string {
	n := "_" + name
	if len(n) > types.NameDataLen-1 {
		n = n[:types.NameDataLen-1]
	}
	return n
}

// arrayAlign is an array's typalign: 'd' for elements aligned so, else 'i'.
func arrayAlign(elem types.Type) byte {
	if elem.Layout().Align == 'd' {
		return 'd'
	}
	return 'i'
}

func (c *Catalog) addDepend(tx *Txn, classID, objID, refClassID, refObjID uint32, deptype byte) error {
	if refClassID == PgNamespaceRelID && refObjID == PgCatalogNamespace {
		return nil // pinned
	}
	_, err := c.insert(tx, PgDepend, []types.Datum{ov(classID), ov(objID), iv(0), ov(refClassID), ov(refObjID), iv(0), cv(deptype)})
	return err
}

// DomainByName finds a domain in nsp; nil when there is none.
func (c *Catalog) DomainByName(tx *Txn, nsp uint32, name string) (*Domain, error) {
	var oid uint32
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyNsp].Int()) == nsp && v[tyName].Str() == name && v[tyType].Int() == TypeDomain {
			oid = uint32(v[tyOid].Int())
			return false, nil
		}
		return true, nil
	})
	if err != nil || oid == 0 {
		return nil, err
	}
	return c.DomainByOID(tx, oid)
}

// LookupDomain finds a domain by (optionally schema-qualified) name along
// the search path; nil when there is none.
func (c *Catalog) LookupDomain(tx *Txn, schema, name string) (*Domain, error) {
	nsps, err := c.lookupNamespaces(tx, schema)
	if err != nil {
		return nil, err
	}
	for _, nsp := range nsps {
		d, err := c.DomainByName(tx, nsp, name)
		if err != nil || d != nil {
			return d, err
		}
	}
	return nil, nil
}

// DomainByOID describes domain oid with the constraints of every level;
// nil when oid is not a domain.
func (c *Catalog) DomainByOID(tx *Txn, oid uint32) (*Domain, error) {
	var d *Domain
	var typmod int32
	err := c.scan(tx, PgType, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[tyOid].Int()) != oid {
			return true, nil
		}
		if v[tyType].Int() == TypeDomain {
			d = &Domain{OID: oid, Name: v[tyName].Str(), Namespace: uint32(v[tyNsp].Int()), Owner: uint32(v[tyOwner].Int()),
				Declared: uint32(v[tyBaseType].Int()), NotNull: v[tyNotNull].Bool(), ArrayOID: uint32(v[tyArray].Int()), tid: tid}
			typmod = int32(v[tyTypmod].Int())
			if len(v) > tyDefault && !v[tyDefault].IsNull() {
				d.Default = v[tyDefault].Str()
			}
		}
		return false, nil
	})
	if err != nil || d == nil {
		return nil, err
	}
	if d.NotNull {
		d.NotNullBy = d.Name
	}
	if t, ok := types.TypeByOID(d.Declared); ok {
		t.Typmod = typmod
		d.Base = t
	} else if u, err := c.UserTypeByOID(tx, d.Declared); err != nil {
		return nil, err
	} else if u != nil && u.Kind != TypeDomain {
		d.Base = types.Type{OID: d.Declared, Typmod: -1}
	} else {
		over, err := c.DomainByOID(tx, d.Declared)
		if err != nil {
			return nil, err
		}
		if over == nil {
			return nil, pgerr.Errorf(pgerr.InternalError, "cache lookup failed for type %d", d.Declared)
		}
		d.Base = over.Base
		d.Checks = over.Checks
		if !d.NotNull && over.NotNull {
			d.NotNull, d.NotNullBy = true, over.NotNullBy
		}
		if d.Default == "" {
			d.Default = over.Default
		}
	}
	own, err := c.DomainConstraints(tx, oid)
	if err != nil {
		return nil, err
	}
	d.Checks = append(append([]*Constraint(nil), d.Checks...), own...)
	return d, nil
}

// DomainConstraints lists a domain's own CHECK constraints by name.
func (c *Catalog) DomainConstraints(tx *Txn, oid uint32) ([]*Constraint, error) {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool { return k.TypID == oid })
	sort.Slice(ks, func(i, j int) bool { return ks[i].Name < ks[j].Name })
	return ks, err
}

// AddDomainCheck stores a CHECK constraint of domain d; k.OID is assigned.
func (c *Catalog) AddDomainCheck(tx *Txn, d *Domain, k *Constraint) error {
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	k.OID, k.TypID, k.RelID, k.Namespace, k.Type = oid, d.OID, 0, d.Namespace, ConCheck
	if _, err := c.insert(tx, PgConstraint, k.row()); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// DropDomainConstraint removes a constraint of a domain.
func (c *Catalog) DropDomainConstraint(tx *Txn, k *Constraint) error {
	if err := c.DropDescriptions(tx, PgConstraintRelID, k.OID); err != nil {
		return err
	}
	if err := c.delete(tx, PgConstraint, k.tid); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// ValidateDomainConstraint marks a domain constraint validated.
func (c *Catalog) ValidateDomainConstraint(tx *Txn, k *Constraint) error {
	k.Validated = true
	return c.UpdateConstraint(tx, k)
}

// AlterDomain rewrites a domain's NOT NULL and DEFAULT (d's own values).
func (c *Catalog) AlterDomain(tx *Txn, oid uint32, notNull bool, def string) error {
	var tid page.ItemPointer
	var row []types.Datum
	err := c.scan(tx, PgType, func(v []types.Datum, t page.ItemPointer) (bool, error) {
		if uint32(v[tyOid].Int()) == oid {
			tid, row = t, append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil || row == nil {
		return err
	}
	for len(row) < tyTypeCount {
		row = append(row, types.Null())
	}
	row[tyNotNull] = bv(notNull)
	row[tyDefault] = types.Null()
	if def != "" {
		row[tyDefault] = types.Str(def)
	}
	if _, _, err := c.updateRow(tx, PgType, tid, row); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// OwnDomainDefaults returns the NOT NULL flag and DEFAULT text a domain
// itself declares (not inherited from the domain it is over).
func (c *Catalog) OwnDomainDefaults(tx *Txn, oid uint32) (notNull bool, def string, err error) {
	err = c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyOid].Int()) != oid {
			return true, nil
		}
		notNull = v[tyNotNull].Bool()
		if len(v) > tyDefault && !v[tyDefault].IsNull() {
			def = v[tyDefault].Str()
		}
		return false, nil
	})
	return
}

// DomainUser is something that uses a domain: a column of a table or
// another domain over it.
type DomainUser struct {
	Rel    *Relation // a column's table
	Attnum int16
	Domain *Domain // a domain over it
}

// DomainUsers lists the columns and the domains that use domain oid
// directly.
func (c *Catalog) DomainUsers(tx *Txn, oid uint32) ([]DomainUser, error) {
	var out []DomainUser
	var doms []uint32
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if v[tyType].Int() == TypeDomain && uint32(v[tyBaseType].Int()) == oid {
			doms = append(doms, uint32(v[tyOid].Int()))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	type col struct {
		rel uint32
		num int16
	}
	var cols []col
	err = c.scan(tx, PgAttribute, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[aTypid].Int()) == oid && !v[aIsDropped].Bool() && v[aNum].Int() > 0 {
			cols = append(cols, col{uint32(v[0].Int()), int16(v[aNum].Int())})
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(cols, func(i, j int) bool {
		if cols[i].rel != cols[j].rel {
			return cols[i].rel < cols[j].rel
		}
		return cols[i].num < cols[j].num
	})
	for _, cl := range cols {
		r, err := c.ByOID(tx, cl.rel)
		if err != nil {
			return nil, err
		}
		if r != nil && r.Kind != KindIndex {
			out = append(out, DomainUser{Rel: r, Attnum: cl.num})
		}
	}
	for _, o := range doms {
		d, err := c.DomainByOID(tx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, DomainUser{Domain: d})
	}
	return out, nil
}

// DropDomain removes a domain, its array type, its constraints and its
// dependencies. Users of it are the caller's (DomainUsers).
func (c *Catalog) DropDomain(tx *Txn, d *Domain) error {
	if err := c.DropDescriptions(tx, PgTypeRelID, d.OID); err != nil {
		return err
	}
	var tids []page.ItemPointer
	err := c.scan(tx, PgType, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if o := uint32(v[tyOid].Int()); o == d.OID || (o == d.ArrayOID && d.ArrayOID != 0) {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgType, t); err != nil {
			return err
		}
	}
	own, err := c.DomainConstraints(tx, d.OID)
	if err != nil {
		return err
	}
	for _, k := range own {
		if err := c.delete(tx, PgConstraint, k.tid); err != nil {
			return err
		}
	}
	err = c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[0].Int()) == PgTypeRelID && (uint32(v[1].Int()) == d.OID || uint32(v[1].Int()) == d.ArrayOID)
	})
	if err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// RenameType renames a domain and its array type.
func (c *Catalog) RenameType(tx *Txn, d *Domain, name string) error {
	type upd struct {
		tid page.ItemPointer
		row []types.Datum
	}
	var ups []upd
	err := c.scan(tx, PgType, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		switch uint32(v[tyOid].Int()) {
		case d.OID:
			row := append([]types.Datum(nil), v...)
			row[tyName] = types.Str(name)
			ups = append(ups, upd{tid, row})
		case d.ArrayOID:
			row := append([]types.Datum(nil), v...)
			row[tyName] = types.Str(arrayTypeName(name))
			ups = append(ups, upd{tid, row})
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, u := range ups {
		for len(u.row) < tyTypeCount {
			u.row = append(u.row, types.Null())
		}
		if _, _, err := c.updateRow(tx, PgType, u.tid, u.row); err != nil {
			return err
		}
	}
	tx.Dirty = true
	tx.Heap.Cid++
	return nil
}
