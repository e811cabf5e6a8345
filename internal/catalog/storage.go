package catalog

import (
	"context"
	"sort"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// Tables reach their storage only through internal/access/tableam: a
// relation's AM comes from pg_class.relam, its handle from the AM's Open,
// shared by every session per relfilenode (so cached insertion targets
// persist); the system catalogs are heap tables.

// tableHandle is an open relation file and what it was opened as.
type tableHandle struct {
	am   tableam.AM
	spec tableam.RelSpec
	rel  tableam.Relation
}

// AccessMethods is the engine's registry of table access methods.
func (c *Catalog) AccessMethods() *tableam.Registry { return c.ams }

// HeapAM is the heap access method (system catalogs, TOAST, sequences).
func (c *Catalog) HeapAM() tableam.AM { return c.heapAM }

// tableAM resolves a relation's relam: tables use theirs; TOAST tables and
// sequences (and relations whose relam is 0) are heap.
func (c *Catalog) tableAM(r *Relation, relam uint32) (tableam.AM, error) {
	if r.Kind != KindTable || relam == 0 {
		return c.heapAM, nil
	}
	am, ok := c.ams.ByOID(relam)
	if !ok {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "table access method with OID %d of relation \"%s\" is not registered", relam, r.Name)
	}
	return am, nil
}

// openTable gives r its storage handle, by r.AM (heap if unset).
func (c *Catalog) openTable(r *Relation, fillFactor int) {
	if r.AM == nil {
		r.AM = c.heapAM
	}
	r.Table = c.TableFor(r.AM, tableam.RelSpec{File: smgr.RelFileNumber(r.RelFileNode), Name: r.Name, Types: r.Types(), FillFactor: fillFactor})
}

// TableFor returns the shared storage handle of spec's file, opened by am;
// a handle opened with another shape or AM is replaced, keeping what an
// AM carries over (heap: the insertion target).
func (c *Catalog) TableFor(am tableam.AM, spec tableam.RelSpec) tableam.Relation {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.sysRels[uint32(spec.File)]; h != nil {
		return h
	}
	h, ok := c.tables[uint32(spec.File)]
	if ok && h.am.OID() == am.OID() && sameSpec(h.spec, spec) {
		return h.rel
	}
	rel := am.Open(c.env, spec)
	if ok {
		if t, carries := rel.(interface{ InheritTarget(tableam.Relation) }); carries {
			t.InheritTarget(h.rel)
		}
	}
	c.tables[uint32(spec.File)] = tableHandle{am: am, spec: spec, rel: rel}
	return rel
}

func sameSpec(a, b tableam.RelSpec) bool {
	return len(a.Types) == len(b.Types) && a.FillFactor == b.FillFactor && a.Name == b.Name
}

// sysForm is the tuple format of a system catalog's rows.
func (c *Catalog) sysForm(def *TableDef) tableam.Format {
	return c.heapAM.NewFormat(tableam.FormatSpec{Layout: types.NewDeformer(def.Types())})
}

// catalogUpdate is the hint of every catalog row update: never HOT (the
// heap always made a new version for them; catalog rows are few and small).
var catalogUpdate = tableam.UpdateHint{ChangedIndexes: ^uint64(0)}

// updateRow replaces a catalog row, returning the new version's TID.
func (c *Catalog) updateRow(tx *Txn, def *TableDef, tid page.ItemPointer, vals []types.Datum) (page.ItemPointer, tableam.Outcome, error) {
	res, err := c.sysRels[def.OID].Update(context.Background(), tx.U, tx.Heap, tid, c.sysForm(def).Form(vals), catalogUpdate)
	return res.NewTID, res.Outcome, err
}

// inplaceUpdate overwrites a catalog row without a new version (pg_class
// statistics; heap_inplace_update).
func (c *Catalog) inplaceUpdate(tx *Txn, def *TableDef, tid page.ItemPointer, vals []types.Datum) error {
	return c.sysRels[def.OID].(tableam.InplaceUpdater).InplaceUpdate(tx.U, tx.Heap, tid, c.sysForm(def).Form(vals))
}

// indexAMNames are pg_am's index access methods (amtype 'i').
var indexAMNames = map[string]uint32{"btree": BtreeAmOID}

// TableAMByName resolves a table access method name (CREATE TABLE …
// USING, ALTER TABLE … SET ACCESS METHOD, default_table_access_method) as
// PostgreSQL's get_table_am_oid: an index AM's name is 55000, an unknown
// name 42704.
func (c *Catalog) TableAMByName(name string) (tableam.AM, error) {
	if am, ok := c.ams.ByName(name); ok {
		return am, nil
	}
	if _, ok := indexAMNames[name]; ok {
		return nil, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "access method \"%s\" is not of type TABLE", name)
	}
	return nil, pgerr.Errorf(pgerr.UndefinedObject, "access method \"%s\" does not exist", name)
}

// AccessMethodRow is one row of pg_am.
type AccessMethodRow struct {
	OID     uint32
	Name    string
	Handler uint32 // amhandler (pg_proc OID; 0 for AMs PostgreSQL lacks)
	Type    byte   // 't' table, 'i' index
}

// AccessMethodRows are pg_am's rows, by OID: the registered table AMs and
// the index AMs.
func (c *Catalog) AccessMethodRows() []AccessMethodRow {
	var out []AccessMethodRow
	for _, am := range c.ams.All() {
		h := uint32(0)
		if am.OID() == HeapAmOID {
			h = 3 // heap_tableam_handler
		}
		out = append(out, AccessMethodRow{OID: am.OID(), Name: am.Name(), Handler: h, Type: 't'})
	}
	out = append(out, AccessMethodRow{OID: BtreeAmOID, Name: "btree", Handler: 330, Type: 'i'}) // bthandler
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// SetAccessMethod records am as r's access method (pg_class.relam); the
// caller rewrites the table into new files, which the new AM then opens.
func (c *Catalog) SetAccessMethod(tx *Txn, r *Relation, am tableam.AM) error {
	return c.updateClassRow(tx, r.OID, map[int]types.Datum{cRelam: ov(am.OID())})
}
