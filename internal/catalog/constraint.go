package catalog

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// PgConstraintRelID is pg_constraint's OID (PostgreSQL's).
const PgConstraintRelID = 2606

// PgConstraint holds table constraints: primary keys and UNIQUE
// constraints (contype 'p'/'u', with the index that enforces them),
// CHECK constraints ('c', the expression as SQL text in conbin) and
// foreign keys ('f'). As in the other catalogs, the int2[] columns conkey
// and confkey are stored as their text form ("{1,2}"). NOT NULL is a
// pg_attribute flag, as in PostgreSQL 15.
var PgConstraint = &TableDef{PgConstraintRelID, "pg_constraint", []Column{
	col("oid", tOid), col("conname", tName), col("connamespace", tOid), col("contype", tChar),
	col("condeferrable", tBool), col("condeferred", tBool), col("convalidated", tBool), col("conrelid", tOid),
	col("contypid", tOid), col("conindid", tOid), col("conparentid", tOid), col("confrelid", tOid),
	col("confupdtype", tChar), col("confdeltype", tChar), col("confmatchtype", tChar), col("conislocal", tBool),
	col("coninhcount", tInt4), col("connoinherit", tBool), col("conkey", tText), col("confkey", tText),
	col("conbin", tText),
}}

// Constraint types (contype).
const (
	ConPrimary = 'p'
	ConUnique  = 'u'
	ConCheck   = 'c'
	ConForeign = 'f'
)

// Foreign key actions (confupdtype, confdeltype) and match type.
const (
	FKNoAction    = 'a'
	FKRestrict    = 'r'
	FKCascade     = 'c'
	FKSetNull     = 'n'
	FKSetDefault  = 'd'
	FKMatchSimple = 's'
	FKMatchFull   = 'f'
)

// Constraint is a row of pg_constraint.
type Constraint struct {
	OID       uint32
	Name      string
	Namespace uint32
	Type      byte
	Validated bool
	RelID     uint32  // the constrained table
	TypID     uint32  // a domain's constraint: the domain (contypid); RelID is 0
	IndexID   uint32  // p/u: its index; f: the referenced table's unique index
	FRelID    uint32  // f: the referenced table
	FUpdType  byte    // f: ON UPDATE action
	FDelType  byte    // f: ON DELETE action
	FMatch    byte    // f: MATCH type
	Keys      []int16 // constrained columns (c: the columns the expression uses)
	FKeys     []int16 // f: referenced columns, pairwise with Keys
	Expr      string  // c: the CHECK expression as SQL text
	// InhCount is coninhcount (how many parents' constraints this one
	// stands for), InheritedOnly !conislocal, NoInherit connoinherit
	// (a CHECK … NO INHERIT, which children do not get).
	InhCount      int
	InheritedOnly bool
	NoInherit     bool

	tid page.ItemPointer
}

func formatInt2s(ks []int16) types.Datum {
	if ks == nil {
		return types.Null()
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = strconv.Itoa(int(k))
	}
	return types.Str("{" + strings.Join(parts, ",") + "}")
}

func parseInt2s(d types.Datum) []int16 {
	if d.IsNull() {
		return nil
	}
	var out []int16
	for _, p := range strings.Split(strings.Trim(d.Str(), "{}"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil {
			out = append(out, int16(n))
		}
	}
	return out
}

func charOrSpace(b byte) types.Datum {
	if b == 0 {
		b = ' '
	}
	return cv(b)
}

func (k *Constraint) row() []types.Datum {
	bin := types.Null()
	if k.Type == ConCheck {
		bin = types.Str(k.Expr)
	}
	return []types.Datum{
		ov(k.OID), types.Str(k.Name), ov(k.Namespace), cv(k.Type),
		bv(false), bv(false), bv(k.Validated), ov(k.RelID),
		ov(k.TypID), ov(k.IndexID), ov(0), ov(k.FRelID),
		charOrSpace(k.FUpdType), charOrSpace(k.FDelType), charOrSpace(k.FMatch), bv(!k.InheritedOnly),
		iv(int64(k.InhCount)), bv(k.NoInherit), formatInt2s(k.Keys), formatInt2s(k.FKeys),
		bin,
	}
}

func constraintFromRow(v []types.Datum, tid page.ItemPointer) *Constraint {
	k := &Constraint{
		OID: uint32(v[0].Int()), Name: v[1].Str(), Namespace: uint32(v[2].Int()), Type: byte(v[3].Int()),
		Validated: v[6].Bool(), RelID: uint32(v[7].Int()), TypID: uint32(v[8].Int()), IndexID: uint32(v[9].Int()), FRelID: uint32(v[11].Int()),
		FUpdType: byte(v[12].Int()), FDelType: byte(v[13].Int()), FMatch: byte(v[14].Int()),
		Keys: parseInt2s(v[18]), FKeys: parseInt2s(v[19]), tid: tid,
		InheritedOnly: !v[15].Bool(), InhCount: int(v[16].Int()), NoInherit: v[17].Bool(),
	}
	if !v[20].IsNull() {
		k.Expr = v[20].Str()
	}
	return k
}

// AddConstraint stores a constraint; it assigns k.OID. A CHECK constraint
// counts in the table's relchecks, a foreign key sets relhastriggers on
// both tables (psql shows those sections only then), as in PostgreSQL.
func (c *Catalog) AddConstraint(tx *Txn, k *Constraint) error {
	oid, err := c.NewOid()
	if err != nil {
		return err
	}
	k.OID = oid
	if _, err := c.insert(tx, PgConstraint, k.row()); err != nil {
		return err
	}
	tx.Heap.Cid++
	return c.refreshConstraintFlags(tx, k)
}

// DropConstraint removes a constraint (its index, if any, is the caller's).
func (c *Catalog) DropConstraint(tx *Txn, k *Constraint) error {
	if err := c.DropDescriptions(tx, PgConstraintRelID, k.OID); err != nil {
		return err
	}
	if err := c.delete(tx, PgConstraint, k.tid); err != nil {
		return err
	}
	tx.Heap.Cid++
	return c.refreshConstraintFlags(tx, k)
}

// refreshConstraintFlags recomputes relchecks and relhastriggers of the
// tables k involves.
func (c *Catalog) refreshConstraintFlags(tx *Txn, k *Constraint) error {
	rels := []uint32{k.RelID}
	if k.Type == ConForeign && k.FRelID != k.RelID {
		rels = append(rels, k.FRelID)
	}
	if k.Type != ConCheck && k.Type != ConForeign {
		return nil
	}
	all, err := c.constraintsWhere(tx, func(*Constraint) bool { return true })
	if err != nil {
		return err
	}
	for _, rel := range rels {
		checks, fks := 0, false
		for _, o := range all {
			if o.Type == ConCheck && o.RelID == rel {
				checks++
			}
			if o.Type == ConForeign && (o.RelID == rel || o.FRelID == rel) {
				fks = true
			}
		}
		_, vals, err := c.classRow(tx, rel)
		if err != nil {
			if pgerr.Code(err) == pgerr.UndefinedTable {
				continue // the table itself is being dropped
			}
			return err
		}
		ci, ti := PgClass.ColumnIndex("relchecks"), PgClass.ColumnIndex("relhastriggers")
		// Like PostgreSQL, relhastriggers stays set once a foreign key
		// involved the table.
		fks = fks || vals[ti].Bool()
		if vals[ci].Int() == int64(checks) && vals[ti].Bool() == fks {
			continue
		}
		if err := c.updateClassRow(tx, rel, map[int]types.Datum{ci: iv(int64(checks)), ti: bv(fks)}); err != nil {
			return err
		}
	}
	return nil
}

func (c *Catalog) constraintsWhere(tx *Txn, keep func(*Constraint) bool) ([]*Constraint, error) {
	var out []*Constraint
	err := c.scan(tx, PgConstraint, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if k := constraintFromRow(v, tid); keep(k) {
			out = append(out, k)
		}
		return true, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out, err
}

// ConstraintByOID finds a constraint; nil if there is none.
func (c *Catalog) ConstraintByOID(tx *Txn, oid uint32) (*Constraint, error) {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool { return k.OID == oid })
	if err != nil || len(ks) == 0 {
		return nil, err
	}
	return ks[0], nil
}

// ConstraintNameTaken reports whether a constraint of that name exists on
// the table (PostgreSQL also refuses names used in the same schema by
// other tables' constraints of an index, which are relation names).
func (c *Catalog) ConstraintNameTaken(tx *Txn, rel uint32, name string) (bool, error) {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool { return k.RelID == rel && k.Name == name })
	return len(ks) > 0, err
}

// ConstraintNamesInNamespace lists the constraint names used in a schema
// (automatic names avoid them, as PostgreSQL's ChooseConstraintName does).
func (c *Catalog) ConstraintNamesInNamespace(tx *Txn, nsp uint32) (map[string]bool, error) {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool { return k.Namespace == nsp })
	names := map[string]bool{}
	for _, k := range ks {
		names[k.Name] = true
	}
	return names, err
}

// loadConstraints fills a table's Constraints and ReferencedBy.
func (c *Catalog) loadConstraints(tx *Txn, r *Relation) error {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool {
		return k.RelID == r.OID || (k.Type == ConForeign && k.FRelID == r.OID)
	})
	if err != nil {
		return err
	}
	for _, k := range ks {
		if k.RelID == r.OID {
			r.Constraints = append(r.Constraints, k)
		}
		if k.Type == ConForeign && k.FRelID == r.OID {
			r.ReferencedBy = append(r.ReferencedBy, k)
		}
	}
	return nil
}

// dropConstraintsOf removes the constraints of table oid (DROP TABLE;
// foreign keys referencing it are the caller's to refuse or drop first).
func (c *Catalog) dropConstraintsOf(tx *Txn, oid uint32) error {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool { return k.RelID == oid })
	if err != nil {
		return err
	}
	for _, k := range ks {
		if err := c.DropDescriptions(tx, PgConstraintRelID, k.OID); err != nil {
			return err
		}
		if err := c.delete(tx, PgConstraint, k.tid); err != nil {
			return err
		}
		if k.Type == ConForeign && k.FRelID != oid {
			tx.Heap.Cid++
			if err := c.refreshConstraintFlags(tx, &Constraint{Type: ConForeign, RelID: k.FRelID}); err != nil {
				return err
			}
		}
	}
	return nil
}

// IndexConstraint is the primary key or UNIQUE constraint an index
// enforces, or nil (an index made by CREATE UNIQUE INDEX has none).
func (r *Relation) IndexConstraint(ir *Relation) *Constraint {
	for _, k := range r.Constraints {
		if (k.Type == ConPrimary || k.Type == ConUnique) && k.IndexID == ir.OID {
			return k
		}
	}
	return nil
}

// ConstraintByName finds one of the table's constraints.
func (r *Relation) ConstraintByName(name string) *Constraint {
	for _, k := range r.Constraints {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// HasPgConstraint reports whether pg_constraint exists (data directories
// created before it was added lack it).
func (c *Catalog) HasPgConstraint(tx *Txn) (bool, error) {
	found := false
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == PgConstraintRelID {
			found = true
			return false, nil
		}
		return true, nil
	})
	return found, err
}

// CreatePgConstraint adds pg_constraint to a data directory that lacks it,
// with rows for the primary keys and UNIQUE constraints it has. Such a
// directory did not record which unique indexes a constraint made; as
// tidal did then, an index named like a UNIQUE constraint's
// (<table>_<columns>_key) counts as one. tx must have an xid.
func (c *Catalog) CreatePgConstraint(tx *Txn) error {
	if err := c.CreateStorage(tx, PgConstraintRelID); err != nil {
		return err
	}
	d := PgConstraint
	row := classRow(d.OID, d.Name, PgCatalogNamespace, KindTable, d.OID, len(d.Columns), HeapAmOID, false, nil)
	row[PgClass.ColumnIndex("relfrozenxid")] = ov(tx.newRelFrozenXid())
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return err
	}
	for i, col := range d.Columns {
		notNull := col.Name != "conkey" && col.Name != "confkey" && col.Name != "conbin"
		if _, err := c.insert(tx, PgAttribute, attrRow(d.OID, Attr{Name: col.Name, Type: col.Type, Num: int16(i + 1), NotNull: notNull})); err != nil {
			return err
		}
	}
	tx.Heap.Cid++
	tables, err := c.UserTables(tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		for _, ir := range t.Indexes {
			kind := byte(0)
			switch {
			case ir.Index.Primary:
				kind = ConPrimary
			case ir.Index.Unique && strings.HasSuffix(ir.Name, "_key"):
				kind = ConUnique
			default:
				continue
			}
			k := &Constraint{Name: ir.Name, Namespace: t.Namespace, Type: kind, Validated: true, RelID: t.OID, IndexID: ir.OID, Keys: ir.Index.Keys}
			if err := c.AddConstraint(tx, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// UpdateConstraint writes k's new name and expression as a new version of
// its row (RENAME CONSTRAINT, RENAME COLUMN of a column a CHECK uses).
func (c *Catalog) UpdateConstraint(tx *Txn, k *Constraint) error {
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgConstraint, k.tid, k.row())
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

// dropIndexConstraint removes the primary key or UNIQUE constraint that
// index oid enforces, if any (the index is being dropped).
func (c *Catalog) dropIndexConstraint(tx *Txn, oid uint32) error {
	ks, err := c.constraintsWhere(tx, func(k *Constraint) bool {
		return k.IndexID == oid && (k.Type == ConPrimary || k.Type == ConUnique)
	})
	for _, k := range ks {
		if err == nil {
			err = c.delete(tx, PgConstraint, k.tid)
		}
	}
	return err
}
