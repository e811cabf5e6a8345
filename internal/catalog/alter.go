package catalog

import (
	"context"
	"fmt"
	"sync"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/toast"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// ALTER TABLE's catalog changes. Every change is a new MVCC version of a
// pg_class / pg_attribute / pg_attrdef row written by the altering
// transaction, so an ALTER that rolls back leaves the catalogs as they
// were, and other sessions see the new shape once it commits (the
// relation cache is flushed when a transaction that changed catalogs
// ends). Callers hold an AccessExclusive lock on the table.

// pg_attribute column positions.
var (
	aRelid      = PgAttribute.ColumnIndex("attrelid")
	aName       = PgAttribute.ColumnIndex("attname")
	aTypid      = PgAttribute.ColumnIndex("atttypid")
	aLen        = PgAttribute.ColumnIndex("attlen")
	aNum        = PgAttribute.ColumnIndex("attnum")
	aTypmod     = PgAttribute.ColumnIndex("atttypmod")
	aAlign      = PgAttribute.ColumnIndex("attalign")
	aStorage    = PgAttribute.ColumnIndex("attstorage")
	aCompress   = PgAttribute.ColumnIndex("attcompression")
	aNotNull    = PgAttribute.ColumnIndex("attnotnull")
	aHasDef     = PgAttribute.ColumnIndex("atthasdef")
	aIdentity   = PgAttribute.ColumnIndex("attidentity")
	aHasMissing = PgAttribute.ColumnIndex("atthasmissing")
	aIsDropped  = PgAttribute.ColumnIndex("attisdropped")
	aMissingVal = PgAttribute.ColumnIndex("attmissingval")
	aIsLocal    = PgAttribute.ColumnIndex("attislocal")
	aInhCount   = PgAttribute.ColumnIndex("attinhcount")
	aACL        = PgAttribute.ColumnIndex("attacl")
)

// attrFromRow builds a column description from its pg_attribute row.
func attrFromRow(v []types.Datum, domainOf func(uint32) (*Domain, error)) (Attr, error) {
	a := Attr{Name: v[aName].Str(), Num: int16(v[aNum].Int()), NotNull: v[aNotNull].Bool(), HasDefault: v[aHasDef].Bool(), Identity: byte(v[aIdentity].Int()),
		InhCount: int16(v[aInhCount].Int()), InheritedOnly: !v[aIsLocal].Bool()}
	if v[aIsDropped].Bool() {
		a.Dropped = true
		t, err := layoutStandIn(int16(v[aLen].Int()), byte(v[aAlign].Int()), byte(v[aStorage].Int()))
		if err != nil {
			return Attr{}, fmt.Errorf("catalog: dropped column %d: %w", a.Num, err)
		}
		a.Type = t
		return a, nil
	}
	t, ok := types.TypeByOID(uint32(v[aTypid].Int()))
	if ok {
		t.Typmod = int32(v[aTypmod].Int())
	} else {
		d, err := domainOf(uint32(v[aTypid].Int()))
		if err != nil {
			return Attr{}, err
		}
		if d == nil {
			return Attr{}, fmt.Errorf("catalog: column %s has unknown type %d", a.Name, v[aTypid].Int())
		}
		t, a.Domain = d.Base, d.OID
	}
	a.Type = t
	if s := byte(v[aStorage].Int()); s != t.Layout().Storage {
		a.Storage = s
	}
	a.Compression = byte(v[aCompress].Int())
	if aACL < len(v) {
		a.ACL = aclFromDatum(v[aACL])
	}
	if v[aHasMissing].Bool() && !v[aMissingVal].IsNull() {
		m, err := decodeMissing(t, v[aMissingVal].Str())
		if err != nil {
			return Attr{}, fmt.Errorf("catalog: missing value of column %s: %w", a.Name, err)
		}
		a.Missing = m
	}
	return a, nil
}

var (
	standInsOnce sync.Once
	standIns     map[[3]int]types.Type
)

// layoutStandIn returns a built-in type with the given storage layout. A
// dropped column's pg_attribute row keeps only its layout (atttypid is 0,
// as in PostgreSQL); that is all the tuple decoder needs to step over the
// column's bytes in old rows.
func layoutStandIn(length int16, align, storage byte) (types.Type, error) {
	standInsOnce.Do(func() {
		standIns = map[[3]int]types.Type{}
		// Lowest OIDs first, so the stand-in is a basic type.
		for o := types.OID(1); o < 10000; o++ {
			t, ok := types.TypeByOID(o)
			if !ok {
				continue
			}
			l := t.Layout()
			k := [3]int{int(l.Len), int(l.Align), int(l.Storage)}
			if _, seen := standIns[k]; !seen {
				standIns[k] = t
			}
		}
	})
	if t, ok := standIns[[3]int{int(length), int(align), int(storage)}]; ok {
		return t, nil
	}
	// Storage does not change where a value lies, only whether it may
	// use a short header, which the decoder reads from the bytes.
	for k, t := range standIns {
		if k[0] == int(length) && k[1] == int(align) {
			return t, nil
		}
	}
	return types.Type{}, fmt.Errorf("no type with length %d and alignment %c", length, align)
}

// MissingSupported reports whether values of t can be kept as a missing
// value (they are stored as a one-element array literal, as PostgreSQL's
// anyarray attmissingval).
func MissingSupported(t types.Type) bool {
	_, ok := types.ArrayOf(t)
	return ok
}

func encodeMissing(t types.Type, d types.Datum) (types.Datum, error) {
	at, ok := types.ArrayOf(t)
	if !ok {
		return types.Null(), fmt.Errorf("type %d has no array type", t.OID)
	}
	return types.Str(types.FormatText(at, types.Array([]types.Datum{d}))), nil
}

func decodeMissing(t types.Type, s string) (types.Datum, error) {
	at, ok := types.ArrayOf(t)
	if !ok {
		return types.Null(), fmt.Errorf("type %d has no array type", t.OID)
	}
	arr, err := types.Parse(at, s)
	if err != nil {
		return types.Null(), err
	}
	el := arr.Elems()
	if len(el) != 1 {
		return types.Null(), fmt.Errorf("malformed missing value %q", s)
	}
	return el[0], nil
}

// NewDeformer prepares the decoding of the table's tuples, old ones with
// fewer attributes included.
func (r *Relation) NewDeformer() tableam.Format { return r.NewDeformerFor(nil, nil) }

// NewDeformerFor is NewDeformer whose reads of TOAST values can be
// cancelled through ctx and are counted in u.
func (r *Relation) NewDeformerFor(ctx context.Context, u *stats.Usage) tableam.Format {
	l := r.layout
	if l == nil {
		l = r.storageLayout()
	}
	spec := tableam.FormatSpec{Layout: l}
	if r.Toast != nil {
		spec.Detoaster = toast.Reader{Rel: r.Toast, Ctx: ctx, U: u}
	}
	for i, a := range r.Attrs {
		if !a.Missing.IsNull() {
			if spec.Missing == nil {
				spec.Missing = make([]types.Datum, len(r.Attrs))
			}
			spec.Missing[i] = a.Missing
		}
	}
	return r.am().NewFormat(spec)
}

// am is the relation's access method (every relation the catalog builds
// has one: heap unless its relam says otherwise).
func (r *Relation) am() tableam.AM {
	if r.AM == nil {
		panic("catalog: relation " + r.Name + " has no access method")
	}
	return r.AM
}

// VisibleAttrs returns the indexes in Attrs of the columns that are not
// dropped, in order.
func (r *Relation) VisibleAttrs() []int {
	out := make([]int, 0, len(r.Attrs))
	for i, a := range r.Attrs {
		if !a.Dropped {
			out = append(out, i)
		}
	}
	return out
}

// attrRowOf finds the pg_attribute row of column num of relation rel.
func (c *Catalog) attrRowOf(tx *Txn, rel uint32, num int16) (page.ItemPointer, []types.Datum, error) {
	var target page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, PgAttribute, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[aRelid].Int()) == rel && int16(v[aNum].Int()) == num {
			target = tid
			vals = append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err == nil && !target.Valid() {
		err = fmt.Errorf("catalog: no attribute %d of relation %d", num, rel)
	}
	return target, vals, err
}

// updateAttr writes a new version of a column's pg_attribute row.
func (c *Catalog) updateAttr(tx *Txn, rel uint32, num int16, change func(v []types.Datum)) error {
	target, vals, err := c.attrRowOf(tx, rel, num)
	if err != nil {
		return err
	}
	change(vals)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgAttribute, target, vals)
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

// deleteAttrDefs removes the stored defaults of a column.
func (c *Catalog) deleteAttrDefs(tx *Txn, rel uint32, num int16) error {
	var tids []page.ItemPointer
	err := c.scan(tx, PgAttrdef, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[1].Int()) == rel && int16(v[2].Int()) == num {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgAttrdef, t); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) insertAttrDef(tx *Txn, rel uint32, num int16, text string) error {
	doid, err := c.NewOid()
	if err != nil {
		return err
	}
	_, err = c.insert(tx, PgAttrdef, []types.Datum{ov(doid), ov(rel), iv(int64(num)), types.Str(text)})
	return err
}

// AddColumn appends a column to table rel. missing, when not NULL, is
// what the rows already in the table read for it (a non-volatile default
// evaluated once, as PostgreSQL 11+ does instead of rewriting the table).
func (c *Catalog) AddColumn(tx *Txn, rel *Relation, a Attr, missing types.Datum) error {
	if len(rel.Attrs) >= 1600 {
		return pgerr.Errorf(pgerr.TooManyColumns, "tables can have at most 1600 columns")
	}
	if err := checkColumnName(a.Name); err != nil {
		return err
	}
	a.Num = int16(len(rel.Attrs) + 1)
	row := attrRow(rel.OID, a)
	if !missing.IsNull() {
		m, err := encodeMissing(a.Type, missing)
		if err != nil {
			return err
		}
		row[aHasMissing], row[aMissingVal] = bv(true), m
	}
	if _, err := c.insert(tx, PgAttribute, row); err != nil {
		return err
	}
	if a.Default != "" {
		if err := c.insertAttrDef(tx, rel.OID, a.Num, a.Default); err != nil {
			return err
		}
	}
	if err := c.updateClassRow(tx, rel.OID, map[int]types.Datum{cRelnatts: iv(int64(a.Num))}); err != nil {
		return err
	}
	cur, err := c.ByOID(tx, rel.OID)
	if err != nil || cur == nil {
		return err
	}
	return c.EnsureToastTable(tx, cur)
}

// DropColumn marks column num of rel dropped, as PostgreSQL does: the
// row keeps its layout (so old tuples still decode) under the name
// "........pg.dropped.N........" with atttypid 0, and its default goes.
// The caller drops the indexes that use the column.
func (c *Catalog) DropColumn(tx *Txn, rel *Relation, num int16) error {
	if err := c.DropColumnDescription(tx, rel.OID, int32(num)); err != nil {
		return err
	}
	if err := c.dropColumnSequences(tx, rel.OID, num); err != nil {
		return err
	}
	if err := c.deleteAttrDefs(tx, rel.OID, num); err != nil {
		return err
	}
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) {
		v[aName] = types.Str(fmt.Sprintf("........pg.dropped.%d........", num))
		v[aTypid] = ov(0)
		v[aIsDropped] = bv(true)
		v[aNotNull] = bv(false)
		v[aHasDef] = bv(false)
		v[aHasMissing] = bv(false)
		v[aMissingVal] = types.Null()
	})
}

// RenameColumn renames column num of rel.
func (c *Catalog) RenameColumn(tx *Txn, rel *Relation, num int16, name string) error {
	if err := checkColumnName(name); err != nil {
		return err
	}
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aName] = types.Str(name) })
}

// SetColumnDefault replaces a column's default expression (SQL text);
// "" removes it.
func (c *Catalog) SetColumnDefault(tx *Txn, rel *Relation, num int16, text string) error {
	if err := c.deleteAttrDefs(tx, rel.OID, num); err != nil {
		return err
	}
	if text != "" {
		if err := c.insertAttrDef(tx, rel.OID, num, text); err != nil {
			return err
		}
	}
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aHasDef] = bv(text != "") })
}

// SetColumnNotNull sets or clears a column's NOT NULL flag; the caller
// has checked the rows.
func (c *Catalog) SetColumnNotNull(tx *Txn, rel *Relation, num int16, notNull bool) error {
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aNotNull] = bv(notNull) })
}

// SetColumnType changes a column's type (after the caller rewrote the
// table's rows); the missing value, if any, no longer applies since
// every row now stores the column.
func (c *Catalog) SetColumnType(tx *Txn, rel *Relation, num int16, t types.Type) error {
	l := t.Layout()
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) {
		v[aTypid] = ov(t.OID)
		v[aTypmod] = iv(int64(t.Typmod))
		v[aLen] = iv(int64(l.Len))
		v[PgAttribute.ColumnIndex("attbyval")] = bv(l.ByVal)
		v[aAlign] = cv(l.Align)
		v[aStorage] = cv(l.Storage)
		v[aHasMissing] = bv(false)
		v[aMissingVal] = types.Null()
	})
}

// ClearMissing forgets every column's missing value (the table was
// rewritten, so every row stores every column).
func (c *Catalog) ClearMissing(tx *Txn, rel *Relation) error {
	for _, a := range rel.Attrs {
		if a.Missing.IsNull() {
			continue
		}
		if err := c.updateAttr(tx, rel.OID, a.Num, func(v []types.Datum) {
			v[aHasMissing] = bv(false)
			v[aMissingVal] = types.Null()
		}); err != nil {
			return err
		}
	}
	return nil
}

// RenameRelation renames a table or index within its schema.
func (c *Catalog) RenameRelation(tx *Txn, rel *Relation, name string) error {
	if existing, err := c.lookupIn(tx, rel.Namespace, name); err != nil {
		return err
	} else if existing != nil {
		return pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if rel.Kind == KindSequence {
		if err := c.renameSequenceInDefaults(tx, rel, name); err != nil {
			return err
		}
	}
	return c.updateClassRow(tx, rel.OID, map[int]types.Datum{cRelname: types.Str(name)})
}
