package catalog

import (
	"encoding/binary"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// CreateStorage makes a relation's main fork file, WAL-logged so redo
// recreates it.
func (c *Catalog) CreateStorage(tx *Txn, relfilenode uint32) error {
	sm := c.env.Pool.Smgr()
	if err := sm.Create(smgr.RelFileNumber(relfilenode), smgr.MainFork); err != nil {
		return err
	}
	rec := wal.NewRecord(wal.RmSmgr, InfoSmgrCreate, tx.Heap.Xid)
	rec.SetMain(binary.LittleEndian.AppendUint32(nil, relfilenode))
	if _, err := c.env.WAL.Insert(tx.U, rec); err != nil {
		return err
	}
	tx.Created = append(tx.Created, relfilenode)
	return nil
}

func bv(b bool) types.Datum   { return types.Bool(b) }
func ov(o uint32) types.Datum { return types.Int(int64(o)) }
func cv(c byte) types.Datum   { return types.Int(int64(c)) }
func iv(i int64) types.Datum  { return types.Int(i) }

func classRow(oid uint32, name string, nsp uint32, kind byte, relfilenode uint32, natts int, am uint32, hasIndex bool, options map[string]string) []types.Datum {
	v := make([]types.Datum, len(PgClass.Columns))
	set := func(col string, d types.Datum) { v[PgClass.ColumnIndex(col)] = d }
	set("oid", ov(oid))
	set("relname", types.Str(name))
	set("relnamespace", ov(nsp))
	set("reltype", ov(0))
	set("reloftype", ov(0))
	set("relowner", ov(BootstrapSuperuserID))
	set("relam", ov(am))
	set("relfilenode", ov(relfilenode))
	set("reltablespace", ov(0))
	set("relpages", iv(0))
	set("reltuples", types.Float(-1))
	set("relallvisible", iv(0))
	set("reltoastrelid", ov(0))
	set("relhasindex", bv(hasIndex))
	set("relisshared", bv(false))
	set("relpersistence", cv('p'))
	set("relkind", cv(kind))
	set("relnatts", iv(int64(natts)))
	set("relchecks", iv(0))
	for _, b := range []string{"relhasrules", "relhastriggers", "relhassubclass", "relrowsecurity", "relforcerowsecurity", "relispartition"} {
		set(b, bv(false))
	}
	set("relispopulated", bv(true))
	set("relreplident", cv('d'))
	set("relrewrite", ov(0))
	set("relfrozenxid", ov(0))
	set("relminmxid", ov(0))
	set("relacl", types.Null())
	set("reloptions", formatOptions(options))
	set("relpartbound", types.Null())
	return v
}

func attrRow(rel uint32, a Attr) []types.Datum {
	l := a.Type.Layout()
	align := l.Align
	typid, typmod := a.Type.OID, a.Type.Typmod
	if a.Domain != 0 {
		typid, typmod = a.Domain, -1 // the typmod is the domain's (pg_type.typtypmod)
	}
	return []types.Datum{
		ov(rel), types.Str(a.Name), ov(typid), iv(int64(l.Len)),
		iv(int64(a.Num)), iv(-1), iv(int64(typmod)), iv(0),
		bv(l.ByVal), cv(align), cv(a.storage()), cv(a.Compression),
		bv(a.NotNull), bv(a.HasDefault), bv(false), cv(a.Identity),
		cv(0), bv(false), bv(!a.InheritedOnly), iv(int64(a.InhCount)),
		ov(0), types.Null(), iv(-1), aclDatum(a.ACL),
	}
}

// CreateTable adds a table (or, with kind 'i', the pg_class part of an
// index) and its columns, and creates its file. The OID doubles as the
// relfilenode, as PostgreSQL does for new relations.
// am is the table's access method (pg_class.relam).
func (c *Catalog) CreateTable(tx *Txn, nsp uint32, name string, attrs []Attr, options map[string]string, am tableam.AM) (uint32, error) {
	if existing, err := c.lookupIn(tx, nsp, name); err != nil {
		return 0, err
	} else if existing != nil {
		return 0, pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	for _, a := range attrs {
		if err := checkColumnName(a.Name); err != nil {
			return 0, err
		}
	}
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	row := classRow(oid, name, nsp, KindTable, oid, len(attrs), am.OID(), false, options)
	row[PgClass.ColumnIndex("relfrozenxid")] = ov(tx.newRelFrozenXid())
	row[cRelowner] = ov(c.creatorOID(tx))
	row[cRelpersist] = cv(c.Persistence(nsp))
	if needsToastTable(attrs) {
		toid, err := c.createToastTable(tx, oid, nsp)
		if err != nil {
			return 0, err
		}
		row[cReltoastrelid] = ov(toid)
	}
	// No multixact older than today's horizon can name its rows.
	row[PgClass.ColumnIndex("relminmxid")] = ov(c.env.Xact.OldestMulti())
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return 0, err
	}
	for i := range attrs {
		attrs[i].Num = int16(i + 1)
		if _, err := c.insert(tx, PgAttribute, attrRow(oid, attrs[i])); err != nil {
			return 0, err
		}
		if attrs[i].Default != "" {
			doid, err := c.NewOid()
			if err != nil {
				return 0, err
			}
			if _, err := c.insert(tx, PgAttrdef, []types.Datum{ov(doid), ov(oid), iv(int64(i + 1)), types.Str(attrs[i].Default)}); err != nil {
				return 0, err
			}
		}
	}
	tx.Heap.Cid++ // CommandCounterIncrement: later steps see the new rows
	return oid, c.createRelStorage(tx, oid, nsp)
}

// CreateIndex adds an index on table over the given columns.
func (c *Catalog) CreateIndex(tx *Txn, table *Relation, name string, keys []int16, unique, primary bool) (uint32, error) {
	if existing, err := c.lookupIn(tx, table.Namespace, name); err != nil {
		return 0, err
	} else if existing != nil {
		return 0, pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	class := classRow(oid, name, table.Namespace, KindIndex, oid, len(keys), BtreeAmOID, false, nil)
	class[cRelowner] = ov(table.Owner)
	class[cRelpersist] = cv(c.Persistence(table.Namespace))
	if _, err := c.insert(tx, PgClass, class); err != nil {
		return 0, err
	}
	for i, k := range keys {
		a := table.Attrs[k-1]
		a.Num = int16(i + 1)
		a.HasDefault, a.Identity = false, 0
		if _, err := c.insert(tx, PgAttribute, attrRow(oid, a)); err != nil {
			return 0, err
		}
	}
	if _, err := c.insert(tx, PgIndex, indexRow(oid, table.OID, keys, unique, primary)); err != nil {
		return 0, err
	}
	if !table.HasIndex {
		if err := c.setClassFields(tx, table.OID, map[int]types.Datum{cRelhasindex: bv(true)}); err != nil {
			return 0, err
		}
	}
	if primary {
		// A primary key makes its columns NOT NULL.
		for _, k := range keys {
			if err := c.setAttrNotNull(tx, table.OID, k); err != nil {
				return 0, err
			}
		}
	}
	tx.Heap.Cid++
	return oid, c.createRelStorage(tx, oid, table.Namespace)
}

// indexRow is an index's pg_index row.
func indexRow(oid, table uint32, keys []int16, unique, primary bool) []types.Datum {
	return []types.Datum{
		ov(oid), ov(table), iv(int64(len(keys))), iv(int64(len(keys))),
		bv(unique), bv(false), bv(primary), bv(false),
		bv(true), bv(false), bv(true), bv(false),
		bv(true), bv(true), bv(false), types.Int2Vector(keys),
		types.Null(), types.Null(),
	}
}

// DropRelation removes a relation, its columns, (for a table) its
// indexes and TOAST table from the catalogs; the files go when the
// transaction commits.
func (c *Catalog) DropRelation(tx *Txn, r *Relation) error {
	if err := c.DropDescriptions(tx, PgClassRelID, r.OID); err != nil {
		return err
	}
	if r.ToastRel != nil {
		if err := c.DropRelation(tx, r.ToastRel); err != nil {
			return err
		}
	}
	if r.Kind == KindTable || r.Kind == KindView {
		if err := c.dropTriggersOf(tx, r.OID); err != nil {
			return err
		}
	}
	if r.Kind == KindTable {
		if err := c.dropConstraintsOf(tx, r.OID); err != nil {
			return err
		}
		if err := c.dropInheritsOf(tx, r.OID); err != nil {
			return err
		}
		if err := c.dropPartitionKey(tx, r.OID); err != nil {
			return err
		}
		if r.PartBound == "DEFAULT" && len(r.Parents) == 1 {
			if err := c.SetDefaultPartition(tx, r.Parents[0], 0); err != nil {
				return err
			}
		}
	}
	if r.Kind == KindIndex {
		if err := c.dropIndexConstraint(tx, r.OID); err != nil {
			return err
		}
		// Its serializable readers' locks go to the table (when the
		// table is being dropped too, there is nothing to move to).
		if c.env.Pred.Active() && r.Index != nil {
			if t, err := c.ByOID(tx, r.Index.RelID); err == nil && t != nil {
				c.env.Pred.RelationMoved(r.RelFileNode, t.RelFileNode)
			}
		}
	}
	if r.Kind == KindView || r.MatView {
		if err := c.dropViewRule(tx, r.OID); err != nil {
			return err
		}
	}
	if err := c.dropSequenceParts(tx, r); err != nil {
		return err
	}
	for _, ix := range r.Indexes {
		if err := c.DropRelation(tx, ix); err != nil {
			return err
		}
	}
	var tids []page.ItemPointer
	err := c.scan(tx, PgClass, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == r.OID {
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
	for _, def := range []*TableDef{PgAttribute, PgIndex, PgAttrdef} {
		col := 0
		if def == PgAttrdef {
			col = 1
		}
		var tids []page.ItemPointer
		err := c.scan(tx, def, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
			if uint32(v[col].Int()) == r.OID {
				tids = append(tids, tid)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, t := range tids {
			if err := c.delete(tx, def, t); err != nil {
				return err
			}
		}
	}
	if r.RelFileNode != 0 { // a view has no file
		tx.Dropped = append(tx.Dropped, r.RelFileNode)
	}
	tx.Heap.Cid++
	return nil
}

// setClassFields overwrites fixed-width pg_class fields in place
// (heap_inplace_update): used for statistics and flags that PostgreSQL
// also updates non-transactionally.
func (c *Catalog) setClassFields(tx *Txn, oid uint32, fields map[int]types.Datum) error {
	target, vals, err := c.classRow(tx, oid)
	if err != nil {
		return err
	}
	for k, d := range fields {
		vals[k] = d
	}
	tx.Dirty = true
	return c.inplaceUpdate(tx, PgClass, target, vals)
}

// SetStats records relpages and reltuples (ANALYZE, VACUUM).
func (c *Catalog) SetStats(tx *Txn, oid uint32, pages int32, tuples float32) error {
	err := c.setClassFields(tx, oid, map[int]types.Datum{cRelpages: iv(int64(pages)), cReltuples: types.Float(float64(tuples))})
	c.Invalidate()
	return err
}

func (c *Catalog) setAttrNotNull(tx *Txn, rel uint32, num int16) error {
	var target page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, PgAttribute, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == rel && int16(v[4].Int()) == num {
			target = tid
			vals = append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil || !target.Valid() || vals[12].Bool() {
		return err
	}
	vals[12] = bv(true)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgAttribute, target, vals)
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	return err
}

// builtinTypes are the pg_type rows initdb writes.
var builtinTypes = []types.OID{
	types.BoolOID, types.ByteaOID, types.CharOID, types.NameOID, types.Int8OID, types.Int2OID,
	types.Int2VectorOID, types.Int4OID, types.TextOID, types.OidOID, types.Float4OID, types.Float8OID,
	types.UnknownOID, types.BpcharOID, types.VarcharOID, types.TimestampOID, types.TimestamptzOID,
	types.NumericOID, types.RegtypeOID,
	types.DateOID, types.TimeOID, types.IntervalOID, types.UUIDOID, types.JSONOID, types.JSONBOID,
}

// Bootstrap writes the initial catalog contents of a new cluster (initdb),
// as the bootstrap transaction.
func (c *Catalog) Bootstrap(tx *Txn) error {
	tx.Heap.Xid = xact.BootstrapXid
	sm := c.env.Pool.Smgr()
	for _, d := range bootstrapTables() {
		if err := sm.Create(smgr.RelFileNumber(d.OID), smgr.MainFork); err != nil {
			return err
		}
	}
	for _, ns := range []struct {
		oid  uint32
		name string
	}{{PgCatalogNamespace, "pg_catalog"}, {PgToastNamespace, "pg_toast"}, {PublicNamespace, "public"}, {InfoSchemaNamespace, "information_schema"}} {
		owner := uint32(BootstrapSuperuserID)
		if ns.oid == PublicNamespace {
			owner = PgDatabaseOwnerID // as in PostgreSQL 15
		}
		if _, err := c.insert(tx, PgNamespace, []types.Datum{ov(ns.oid), types.Str(ns.name), ov(owner), types.Null()}); err != nil {
			return err
		}
	}
	for _, d := range bootstrapTables() {
		row := classRow(d.OID, d.Name, PgCatalogNamespace, KindTable, d.OID, len(d.Columns), HeapAmOID, false, nil)
		row[PgClass.ColumnIndex("relfrozenxid")] = ov(xact.FirstNormalXid)
		if _, err := c.insert(tx, PgClass, row); err != nil {
			return err
		}
		for i, col := range d.Columns {
			if _, err := c.insert(tx, PgAttribute, attrRow(d.OID, Attr{Name: col.Name, Type: col.Type, Num: int16(i + 1), NotNull: true})); err != nil {
				return err
			}
		}
	}
	for _, o := range builtinTypes {
		t, ok := types.TypeByOID(o)
		if !ok {
			continue
		}
		l := t.Layout()
		row := []types.Datum{
			ov(o), types.Str(t.TypName()), ov(PgCatalogNamespace), ov(BootstrapSuperuserID),
			iv(int64(l.Len)), bv(l.ByVal), cv('b'), cv(types.Category(t)),
			bv(types.IsPreferred(t)), bv(true), cv(','), ov(0),
			ov(0), ov(0), cv(l.Align), cv(l.Storage),
			bv(false), ov(0), iv(-1), iv(0),
			ov(0), types.Null(), types.Null(),
		}
		if _, err := c.insert(tx, PgType, row); err != nil {
			return err
		}
	}
	if LegacyBootstrap {
		return nil
	}
	if err := c.insertBootstrapRole(tx); err != nil {
		return err
	}
	if err := c.insertBootstrapLanguages(tx); err != nil {
		return err
	}
	return c.insertBootstrapMemberships(tx)
}

// SetVacuumStats records what VACUUM learnt (vac_update_relstats): pages,
// live tuples, all-visible pages, and — when the whole table was scanned —
// the new relfrozenxid and relminmxid (0 leaves either unchanged). Like PostgreSQL's, the
// update is in place.
func (c *Catalog) SetVacuumStats(tx *Txn, oid uint32, pages int32, tuples float32, allVisible int32, frozenXid, minMulti uint32) error {
	f := map[int]types.Datum{
		cRelpages:                            iv(int64(pages)),
		cReltuples:                           types.Float(float64(tuples)),
		PgClass.ColumnIndex("relallvisible"): iv(int64(allVisible)),
	}
	if frozenXid != 0 {
		f[PgClass.ColumnIndex("relfrozenxid")] = ov(frozenXid)
	}
	if minMulti != 0 {
		f[PgClass.ColumnIndex("relminmxid")] = ov(minMulti)
	}
	err := c.setClassFields(tx, oid, f)
	c.Invalidate()
	return err
}

// RelFrozenXid reads a table's relfrozenxid.
func (c *Catalog) RelFrozenXid(tx *Txn, oid uint32) (uint32, error) {
	return c.classOidField(tx, oid, "relfrozenxid")
}

// RelMinMxid reads a table's relminmxid.
func (c *Catalog) RelMinMxid(tx *Txn, oid uint32) (uint32, error) {
	return c.classOidField(tx, oid, "relminmxid")
}

func (c *Catalog) classOidField(tx *Txn, oid uint32, name string) (uint32, error) {
	var x uint32
	col := PgClass.ColumnIndex(name)
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == oid {
			x = uint32(v[col].Int())
			return false, nil
		}
		return true, nil
	})
	return x, err
}

// updateClassRow replaces fields of a relation's pg_class row with a new
// MVCC version (a transactional change, unlike setClassFields).
func (c *Catalog) updateClassRow(tx *Txn, oid uint32, fields map[int]types.Datum) error {
	target, vals, err := c.classRow(tx, oid)
	if err != nil {
		return err
	}
	for k, d := range fields {
		vals[k] = d
	}
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgClass, target, vals)
	if err == nil && oc.Result != tableam.Ok {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

// NewRelFileNode gives a relation a new, empty file (TRUNCATE): the
// pg_class row points at the new file from this transaction on; the old
// file is removed when the transaction commits, the new one if it aborts.
func (c *Catalog) NewRelFileNode(tx *Txn, r *Relation) (uint32, error) {
	node, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	if err := c.updateClassRow(tx, r.OID, map[int]types.Datum{
		cRelfilenode: ov(node),
		cRelpages:    iv(0),
		cReltuples:   types.Float(-1),
	}); err != nil {
		return 0, err
	}
	if err := c.createRelStorage(tx, node, r.Namespace); err != nil {
		return 0, err
	}
	tx.Dropped = append(tx.Dropped, r.RelFileNode)
	c.env.Pred.RelationMoved(r.RelFileNode, node)
	return node, nil
}

// classRow finds the pg_class row of relation oid visible to tx: its TID
// and a copy of its values.
func (c *Catalog) classRow(tx *Txn, oid uint32) (page.ItemPointer, []types.Datum, error) {
	var target page.ItemPointer
	var vals []types.Datum
	err := c.scan(tx, PgClass, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) == oid {
			target = tid
			vals = append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err == nil && !target.Valid() {
		err = pgerr.Errorf(pgerr.UndefinedTable, "relation with OID %d does not exist", oid)
	}
	return target, vals, err
}

// OldestMinMxid is the oldest relminmxid of any table (PostgreSQL's
// datminmxid), modulo 2^32; 0 when no table has one. Multixacts older
// than it are named by no tuple.
func (c *Catalog) OldestMinMxid(tx *Txn) (uint32, error) {
	var oldest uint32
	col := PgClass.ColumnIndex("relminmxid")
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if byte(v[cRelkind].Int()) != KindTable {
			return true, nil
		}
		m := uint32(v[col].Int())
		if m == 0 {
			return true, nil // created before multixacts existed: it has none
		}
		if oldest == 0 || xact.MultiPrecedes(m, oldest) {
			oldest = m
		}
		return true, nil
	})
	return oldest, err
}

// OldestFrozenXid is the oldest relfrozenxid of any table (PostgreSQL's
// datfrozenxid), in transaction-id order: the wraparound limits follow
// from it.
func (c *Catalog) OldestFrozenXid(tx *Txn) (uint32, error) {
	var oldest uint32
	col := PgClass.ColumnIndex("relfrozenxid")
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if byte(v[cRelkind].Int()) != KindTable {
			return true, nil
		}
		x := uint32(v[col].Int())
		if xact.IsNormal(x) && (oldest == 0 || xact.Precedes(x, oldest)) {
			oldest = x
		}
		return true, nil
	})
	return oldest, err
}

// AllTables lists every table, system catalogs included (a database-wide
// VACUUM covers them too).
func (c *Catalog) AllTables(tx *Txn) ([]*Relation, error) {
	var oids []uint32
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if byte(v[cRelkind].Int()) == KindTable {
			oids = append(oids, uint32(v[cOid].Int()))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Relation
	for _, o := range oids {
		r, err := c.ByOID(tx, o)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}
