package catalog

import (
	"sort"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Table inheritance (CREATE TABLE … INHERITS, ALTER TABLE … [NO] INHERIT),
// stored as PostgreSQL 15 stores it: one pg_inherits row per (child,
// parent) with the parent's position in the child's INHERITS list
// (inhseqno, from 1); relhassubclass on a parent once it has had a child
// (never cleared here; PostgreSQL clears it lazily in VACUUM/ANALYZE);
// attinhcount/attislocal on columns and coninhcount/conislocal on CHECK
// constraints, counting the parents a column or constraint comes from;
// and a normal dependency (pg_depend deptype 'n') of the child on each
// parent. NOT NULL is inherited as the attnotnull flag (PostgreSQL 15 has
// no NOT NULL rows in pg_constraint).

// PgInheritsRelID is pg_inherits' OID (PostgreSQL's).
const PgInheritsRelID = 2611

// PgInherits is PostgreSQL's pg_inherits.
var PgInherits = &TableDef{PgInheritsRelID, "pg_inherits", []Column{
	col("inhrelid", tOid), col("inhparent", tOid), col("inhseqno", tInt4), col("inhdetachpending", tBool),
}}

// inheritsRow is one pg_inherits row.
type inheritsRow struct {
	child, parent uint32
	seqno         int
	tid           page.ItemPointer
}

func (c *Catalog) inheritsWhere(tx *Txn, keep func(inheritsRow) bool) ([]inheritsRow, error) {
	var out []inheritsRow
	err := c.scan(tx, PgInherits, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		r := inheritsRow{child: uint32(v[0].Int()), parent: uint32(v[1].Int()), seqno: int(v[2].Int()), tid: tid}
		if keep(r) {
			out = append(out, r)
		}
		return true, nil
	})
	return out, err
}

// InheritParents lists the parents of table oid in inhseqno order.
func (c *Catalog) InheritParents(tx *Txn, oid uint32) ([]uint32, error) {
	rows, err := c.inheritsWhere(tx, func(r inheritsRow) bool { return r.child == oid })
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].seqno < rows[j].seqno })
	out := make([]uint32, len(rows))
	for i, r := range rows {
		out[i] = r.parent
	}
	return out, nil
}

// InheritChildren lists the direct children of table oid by OID, as
// PostgreSQL's find_inheritance_children orders them.
func (c *Catalog) InheritChildren(tx *Txn, oid uint32) ([]uint32, error) {
	rows, err := c.inheritsWhere(tx, func(r inheritsRow) bool { return r.parent == oid })
	if err != nil {
		return nil, err
	}
	out := make([]uint32, len(rows))
	for i, r := range rows {
		out[i] = r.child
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// AllInheritors lists table oid and every table that inherits from it,
// directly or not, each once, breadth first (find_all_inheritors): the
// order in which a query of the table reads them.
func (c *Catalog) AllInheritors(tx *Txn, oid uint32) ([]uint32, error) {
	rows, err := c.inheritsWhere(tx, func(inheritsRow) bool { return true })
	if err != nil {
		return nil, err
	}
	children := map[uint32][]uint32{}
	for _, r := range rows {
		children[r.parent] = append(children[r.parent], r.child)
	}
	out := []uint32{oid}
	seen := map[uint32]bool{oid: true}
	for i := 0; i < len(out); i++ {
		kids := children[out[i]]
		sort.Slice(kids, func(a, b int) bool { return kids[a] < kids[b] })
		for _, k := range kids {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// AddInherit makes child inherit from parent at position seqno of its
// parent list: the pg_inherits row, the dependency, and the parent's
// relhassubclass. Columns and constraints are the caller's.
func (c *Catalog) AddInherit(tx *Txn, child, parent uint32, seqno int) error {
	if _, err := c.insert(tx, PgInherits, []types.Datum{ov(child), ov(parent), iv(int64(seqno)), bv(false)}); err != nil {
		return err
	}
	dep := []types.Datum{ov(PgClassRelID), ov(child), iv(0), ov(PgClassRelID), ov(parent), iv(0), cv(DepNormal)}
	if _, err := c.insert(tx, PgDepend, dep); err != nil {
		return err
	}
	tx.Heap.Cid++
	_, vals, err := c.classRow(tx, parent)
	if err != nil {
		return err
	}
	if ci := PgClass.ColumnIndex("relhassubclass"); !vals[ci].Bool() {
		return c.updateClassRow(tx, parent, map[int]types.Datum{ci: bv(true)})
	}
	return nil
}

// RemoveInherit undoes AddInherit (ALTER TABLE … NO INHERIT); the
// remaining parents keep their inhseqno, as in PostgreSQL.
func (c *Catalog) RemoveInherit(tx *Txn, child, parent uint32) error {
	rows, err := c.inheritsWhere(tx, func(r inheritsRow) bool { return r.child == child && r.parent == parent })
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return pgerr.Errorf(pgerr.UndefinedTable, "relation %d is not a parent of relation %d", parent, child)
	}
	for _, r := range rows {
		if err := c.delete(tx, PgInherits, r.tid); err != nil {
			return err
		}
	}
	err = c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[1].Int()) == child && uint32(v[4].Int()) == parent && v[6].Int() == DepNormal && uint32(v[0].Int()) == PgClassRelID
	})
	tx.Heap.Cid++
	return err
}

// dropInheritsOf removes the pg_inherits rows naming table oid as a child
// (DROP TABLE; dropping a table that still has children is refused, or
// cascades to them, before this).
func (c *Catalog) dropInheritsOf(tx *Txn, oid uint32) error {
	rows, err := c.inheritsWhere(tx, func(r inheritsRow) bool { return r.child == oid || r.parent == oid })
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := c.delete(tx, PgInherits, r.tid); err != nil {
			return err
		}
	}
	return nil
}

// SetColumnInheritance writes a column's attinhcount and attislocal.
func (c *Catalog) SetColumnInheritance(tx *Txn, rel uint32, num int16, inhCount int16, inheritedOnly bool) error {
	return c.updateAttr(tx, rel, num, func(v []types.Datum) {
		v[aInhCount] = iv(int64(inhCount))
		v[aIsLocal] = bv(!inheritedOnly)
	})
}

// InheritDependents lists the tables that depend on table oid as its
// children (their pg_depend rows), in the catalog's physical order, as
// PostgreSQL's dependency walk finds them for DROP.
func (c *Catalog) InheritDependents(tx *Txn, oid uint32) ([]uint32, error) {
	var out []uint32
	err := c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[4].Int()) == oid && v[6].Int() == DepNormal && uint32(v[0].Int()) == PgClassRelID && uint32(v[3].Int()) == PgClassRelID {
			out = append(out, uint32(v[1].Int()))
		}
		return true, nil
	})
	return out, err
}
