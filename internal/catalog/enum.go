package catalog

import (
	"sort"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Enum types are pg_type rows with typtype 'e' (4 bytes, by value, as
// PostgreSQL's) and one pg_enum row per label. enumsortorder is a float8
// here (PostgreSQL: float4): an enum value stores its label's sort
// order (internal/sql/types/enum.go), so sort orders are never
// renumbered, and float8 leaves room for about 50 insertions between two
// neighbours where float4 has about 20.

// PgEnumRelID is pg_enum's OID (PostgreSQL's).
const PgEnumRelID = 3501

// PgEnum is PostgreSQL's pg_enum.
var PgEnum = &TableDef{PgEnumRelID, "pg_enum", []Column{
	col("oid", tOid), col("enumtypid", tOid), col("enumsortorder", types.Float8), col("enumlabel", tName),
}}

// TypeEnum is pg_type.typtype of an enum.
const TypeEnum = 'e'

// UserType is a pg_type row of a user-defined type.
type UserType struct {
	OID       uint32
	Name      string
	Namespace uint32
	Kind      byte // typtype
	ArrayOID  uint32
}

// UserTypeByOID finds a user-defined type's pg_type row; nil if none.
func (c *Catalog) UserTypeByOID(tx *Txn, oid uint32) (*UserType, error) {
	var t *UserType
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyOid].Int()) != oid {
			return true, nil
		}
		t = &UserType{OID: oid, Name: v[tyName].Str(), Namespace: uint32(v[tyNsp].Int()), Kind: byte(v[tyType].Int()), ArrayOID: uint32(v[tyArray].Int())}
		return false, nil
	})
	return t, err
}

// LookupUserType finds a user-defined type by (optionally qualified)
// name along the search path; nil if none.
func (c *Catalog) LookupUserType(tx *Txn, schema, name string) (*UserType, error) {
	nsps, err := c.lookupNamespaces(tx, schema)
	if err != nil {
		return nil, err
	}
	for _, nsp := range nsps {
		var found *UserType
		err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
			if uint32(v[tyNsp].Int()) == nsp && v[tyName].Str() == name && uint32(v[tyOid].Int()) >= FirstNormalObjectID {
				found = &UserType{OID: uint32(v[tyOid].Int()), Name: name, Namespace: nsp, Kind: byte(v[tyType].Int()), ArrayOID: uint32(v[tyArray].Int())}
				return false, nil
			}
			return true, nil
		})
		if err != nil || found != nil {
			return found, err
		}
	}
	return nil, nil
}

// CreateEnum adds an enum type, its array type and its labels (sort
// orders 1, 2, …).
func (c *Catalog) CreateEnum(tx *Txn, nsp uint32, name string, labels []string) (uint32, error) {
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	arr, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	row := typeRow(oid, name, nsp, c.creatorOID(tx), TypeEnum, types.Oid)
	row[PgType.ColumnIndex("typcategory")] = cv('E')
	row[tyArray] = ov(arr)
	if _, err := c.insert(tx, PgType, row); err != nil {
		return 0, err
	}
	arrRow := typeRow(arr, arrayTypeName(name), nsp, c.creatorOID(tx), TypeBase, types.Text)
	arrRow[PgType.ColumnIndex("typcategory")] = cv('A')
	arrRow[PgType.ColumnIndex("typalign")] = cv('i')
	arrRow[tyElem] = ov(oid)
	if _, err := c.insert(tx, PgType, arrRow); err != nil {
		return 0, err
	}
	for i, l := range labels {
		if err := c.insertEnumLabel(tx, oid, float64(i+1), l); err != nil {
			return 0, err
		}
	}
	if err := c.addDepend(tx, PgTypeRelID, oid, PgNamespaceRelID, nsp, DepNormal); err != nil {
		return 0, err
	}
	if err := c.addDepend(tx, PgTypeRelID, arr, PgTypeRelID, oid, DepInternal); err != nil {
		return 0, err
	}
	tx.Heap.Cid++
	return oid, nil
}

func (c *Catalog) insertEnumLabel(tx *Txn, typ uint32, order float64, label string) error {
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	_, err = c.insert(tx, PgEnum, []types.Datum{ov(oid), ov(typ), types.Float(order), types.Str(label)})
	return err
}

type enumRow struct {
	label types.EnumLabel
	tid   page.ItemPointer
}

func (c *Catalog) enumRows(tx *Txn, typ uint32) ([]enumRow, error) {
	var out []enumRow
	err := c.scan(tx, PgEnum, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[1].Int()) == typ {
			out = append(out, enumRow{types.EnumLabel{OID: uint32(v[0].Int()), Order: v[2].Float(), Label: v[3].Str()}, tid})
		}
		return true, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].label.Order < out[j].label.Order })
	return out, err
}

// EnumLabels lists an enum's labels in sort order.
func (c *Catalog) EnumLabels(tx *Txn, typ uint32) ([]types.EnumLabel, error) {
	rows, err := c.enumRows(tx, typ)
	out := make([]types.EnumLabel, len(rows))
	for i, r := range rows {
		out[i] = r.label
	}
	return out, err
}

// AddEnumValue is ALTER TYPE … ADD VALUE: label goes last, or just
// before or after neighbor (after=false: before).
func (c *Catalog) AddEnumValue(tx *Txn, typ uint32, label, neighbor string, after bool) error {
	rows, err := c.enumRows(tx, typ)
	if err != nil {
		return err
	}
	order := 1.0
	if len(rows) > 0 {
		order = rows[len(rows)-1].label.Order + 1
	}
	if neighbor != "" {
		i := -1
		for j, r := range rows {
			if r.label.Label == neighbor {
				i = j
			}
		}
		if i < 0 {
			return pgerr.Errorf(pgerr.InvalidParameterValue, "\"%s\" is not an existing enum label", neighbor)
		}
		lo, hi := rows[i].label.Order-1, rows[i].label.Order
		if after {
			lo, hi = rows[i].label.Order, rows[i].label.Order+1
			if i+1 < len(rows) {
				hi = rows[i+1].label.Order
			}
		} else if i > 0 {
			lo = rows[i-1].label.Order
		}
		if (after && i+1 == len(rows)) || (!after && i == 0) {
			order = hi
			if !after {
				order = lo
			}
		} else {
			order = (lo + hi) / 2
			if order <= lo || order >= hi {
				return pgerr.Errorf(pgerr.ProgramLimitExceeded, "no room for a new label between \"%s\" and its neighbour in enum sort order", neighbor)
			}
		}
	}
	if err := c.insertEnumLabel(tx, typ, order, label); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// RenameEnumValue is ALTER TYPE … RENAME VALUE.
func (c *Catalog) RenameEnumValue(tx *Txn, typ uint32, from, to string) error {
	rows, err := c.enumRows(tx, typ)
	if err != nil {
		return err
	}
	var target *enumRow
	taken := false
	for i := range rows {
		taken = taken || rows[i].label.Label == to
		if rows[i].label.Label == from {
			target = &rows[i]
		}
	}
	if target == nil {
		return pgerr.Errorf(pgerr.InvalidParameterValue, "\"%s\" is not an existing enum label", from)
	}
	if taken {
		return pgerr.Errorf(pgerr.DuplicateObject, "enum label \"%s\" already exists", to)
	}
	l := target.label
	if _, _, err := c.updateRow(tx, PgEnum, target.tid, []types.Datum{ov(l.OID), ov(typ), types.Float(l.Order), types.Str(to)}); err != nil {
		return err
	}
	tx.Dirty = true
	tx.Heap.Cid++
	return nil
}

// DropUserType removes a user-defined type that is not a domain (an
// enum): its pg_type rows, its labels and its dependencies.
func (c *Catalog) DropUserType(tx *Txn, t *UserType) error {
	if err := c.DropDescriptions(tx, PgTypeRelID, t.OID); err != nil {
		return err
	}
	relOID, _, err := c.CompositeAttrs(tx, t.OID)
	if err != nil {
		return err
	}
	if relOID != 0 {
		if err := c.dropCompositeRelation(tx, relOID); err != nil {
			return err
		}
	}
	if err := c.DropDomain(tx, &Domain{OID: t.OID, ArrayOID: t.ArrayOID}); err != nil {
		return err
	}
	rows, err := c.enumRows(tx, t.OID)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := c.delete(tx, PgEnum, r.tid); err != nil {
			return err
		}
	}
	return nil
}

// TypeUsers lists the table columns whose type is oid, and the domains
// over it.
func (c *Catalog) TypeUsers(tx *Txn, oid uint32) ([]DomainUser, error) { return c.DomainUsers(tx, oid) }

// userTypeAsDomain describes the type of a column whose atttypid is no
// builtin: a domain, or another user-defined type as a "domain" of
// itself (Base is the type, OID 0), so the column's Type is the type.
func (c *Catalog) userTypeAsDomain(tx *Txn, oid uint32) (*Domain, error) {
	d, err := c.DomainByOID(tx, oid)
	if err != nil || d != nil {
		return d, err
	}
	t, err := c.UserTypeByOID(tx, oid)
	if err != nil || t == nil {
		return nil, err
	}
	return &Domain{Base: types.Type{OID: oid, Typmod: -1}}, nil
}

// TypeComposite is pg_type.typtype of a composite type; KindComposite its
// pg_class relkind.
const (
	TypeComposite = 'c'
	KindComposite = 'c'
)

// CreateComposite adds a composite type (CREATE TYPE … AS (…)): a
// pg_class row of relkind 'c' with its attributes, the pg_type row
// (typrelid) and the array type.
func (c *Catalog) CreateComposite(tx *Txn, nsp uint32, name string, attrs []Attr) (uint32, error) {
	relOID, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	arr, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	cls := classRow(relOID, name, nsp, KindComposite, 0, len(attrs), 0, false, nil)
	cls[PgClass.ColumnIndex("reltype")] = ov(oid)
	if _, err := c.insert(tx, PgClass, cls); err != nil {
		return 0, err
	}
	for i, a := range attrs {
		if err := checkColumnName(a.Name); err != nil {
			return 0, err
		}
		a.Num = int16(i + 1)
		if _, err := c.insert(tx, PgAttribute, attrRow(relOID, a)); err != nil {
			return 0, err
		}
	}
	row := typeRow(oid, name, nsp, c.creatorOID(tx), TypeComposite, types.Text)
	row[PgType.ColumnIndex("typcategory")] = cv('C')
	row[PgType.ColumnIndex("typalign")] = cv('d')
	row[PgType.ColumnIndex("typrelid")] = ov(relOID)
	row[tyArray] = ov(arr)
	if _, err := c.insert(tx, PgType, row); err != nil {
		return 0, err
	}
	arrRow := typeRow(arr, arrayTypeName(name), nsp, c.creatorOID(tx), TypeBase, types.Text)
	arrRow[PgType.ColumnIndex("typcategory")] = cv('A')
	arrRow[PgType.ColumnIndex("typalign")] = cv('d')
	arrRow[tyElem] = ov(oid)
	if _, err := c.insert(tx, PgType, arrRow); err != nil {
		return 0, err
	}
	if err := c.addDepend(tx, PgTypeRelID, oid, PgNamespaceRelID, nsp, DepNormal); err != nil {
		return 0, err
	}
	if err := c.addDepend(tx, PgTypeRelID, arr, PgTypeRelID, oid, DepInternal); err != nil {
		return 0, err
	}
	tx.Heap.Cid++
	return oid, nil
}

// CompositeAttrs returns a composite type's pg_class OID and its
// attributes in order (nil if oid is no composite type).
func (c *Catalog) CompositeAttrs(tx *Txn, oid uint32) (uint32, []Attr, error) {
	var relOID uint32
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[tyOid].Int()) != oid {
			return true, nil
		}
		if v[tyType].Int() == TypeComposite {
			relOID = uint32(v[PgType.ColumnIndex("typrelid")].Int())
		}
		return false, nil
	})
	if err != nil || relOID == 0 {
		return 0, nil, err
	}
	var attrs []Attr
	err = c.scan(tx, PgAttribute, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) != relOID || v[aNum].Int() <= 0 {
			return true, nil
		}
		a, err := attrFromRow(v, func(o uint32) (*Domain, error) { return c.userTypeAsDomain(tx, o) })
		if err != nil {
			return false, err
		}
		if !a.Dropped {
			attrs = append(attrs, a)
		}
		return true, nil
	})
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].Num < attrs[j].Num })
	return relOID, attrs, err
}

// dropCompositeRelation removes a composite type's pg_class row and
// attributes.
func (c *Catalog) dropCompositeRelation(tx *Txn, relOID uint32) error {
	var tids []page.ItemPointer
	err := c.scan(tx, PgClass, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == relOID {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgClass, t); err != nil {
			return err
		}
	}
	tids = tids[:0]
	err = c.scan(tx, PgAttribute, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == relOID {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgAttribute, t); err != nil {
			return err
		}
	}
	return nil
}

// CompositeTypeOf is the pg_type OID of composite relation relOID (0 if
// none).
func (c *Catalog) CompositeTypeOf(tx *Txn, relOID uint32) (uint32, error) {
	var oid uint32
	ri := PgType.ColumnIndex("typrelid")
	err := c.scan(tx, PgType, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[ri].Int()) == relOID {
			oid = uint32(v[tyOid].Int())
			return false, nil
		}
		return true, nil
	})
	return oid, err
}
