package catalog

import (
	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/toast"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// TOAST tables in the catalogs: a table whose rows may outgrow
// TOAST_TUPLE_THRESHOLD gets, when it is created (or when ALTER TABLE
// first adds such a column), a TOAST table pg_toast.pg_toast_<oid> (relkind
// 't') with its unique index pg_toast_<oid>_index on (chunk_id,
// chunk_seq), both in the pg_toast schema, and pg_class.reltoastrelid
// points at it, as PostgreSQL's create_toast_table does. DROP TABLE drops
// both; TRUNCATE and table rewrites give both new files.

// KindToast is relkind 't'.
const KindToast = 't'

var cReltoastrelid = PgClass.ColumnIndex("reltoastrelid")

// typeMaximumSize is type_maximum_size: the largest stored size of a value
// of t, or -1 when unbounded (varchar(n), char(n) and numeric(p,s) are
// bounded by their typmod; UTF8's 4 bytes per character).
func typeMaximumSize(t types.Type) int {
	if t.Typmod < 0 {
		return -1
	}
	switch t.OID {
	case types.VarcharOID, types.BpcharOID:
		return (int(t.Typmod)-4)*4 + 4
	case types.NumericOID:
		if t.Typmod < 4 {
			return -1
		}
		precision := (int(t.Typmod) - 4) >> 16 & 0xffff
		return 8 + (precision+6)/4*2
	}
	return -1
}

// needsToastTable is needs_toast_table: some column is toastable and a
// row could exceed TOAST_TUPLE_THRESHOLD.
func needsToastTable(attrs []Attr) bool {
	dataLen, unbounded, toastable := 0, false, false
	for _, a := range attrs {
		if a.Dropped {
			continue
		}
		l := a.Type.Layout()
		dataLen = alignNominal(dataLen, l.Align)
		if l.Len > 0 {
			dataLen += int(l.Len)
			continue
		}
		if m := typeMaximumSize(a.Type); m < 0 {
			unbounded = true
		} else {
			dataLen += m
		}
		if a.storage() != 'p' {
			toastable = true
		}
	}
	if !toastable {
		return false
	}
	if unbounded {
		return true
	}
	return types.MaxAlign(toast.TupleHeaderSize+types.BitmapLen(len(attrs)))+types.MaxAlign(dataLen) > 2032
}

func alignNominal(off int, align byte) int {
	switch align {
	case 'i':
		return (off + 3) &^ 3
	case 'd':
		return (off + 7) &^ 7
	case 's':
		return (off + 1) &^ 1
	}
	return off
}

// storage is the column's attstorage (its type's unless SET STORAGE
// changed it).
func (a *Attr) storage() byte {
	if a.Storage != 0 {
		return a.Storage
	}
	return a.Type.Layout().Storage
}

// ToastName is the name of table oid's TOAST table.
func ToastName(tableOID uint32) string { return "pg_toast_" + strconv.FormatUint(uint64(tableOID), 10) }

// toastNamespaceFor is where the TOAST table of a table in namespace nsp
// goes: pg_toast, or a temporary namespace's sibling pg_toast_temp_N.
func (c *Catalog) toastNamespaceFor(nsp uint32) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, ok := c.temp.nsps[nsp]
	if !ok {
		return PgToastNamespace
	}
	want := tempToastPrefix + strings.TrimPrefix(name, TempNamespacePrefix)
	for oid, n := range c.temp.nsps {
		if n == want {
			return oid
		}
	}
	return PgToastNamespace
}

// createToastTable gives table oid (in namespace nsp) a TOAST table and
// index and returns the TOAST table's OID.
func (c *Catalog) createToastTable(tx *Txn, tableOID, nsp uint32) (uint32, error) {
	toid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	ioid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	name := ToastName(tableOID)
	tns := c.toastNamespaceFor(nsp)
	row := classRow(toid, name, tns, KindToast, toid, len(toast.ColumnTypes), HeapAmOID, true, nil)
	row[PgClass.ColumnIndex("relfrozenxid")] = ov(tx.newRelFrozenXid())
	row[cRelpersist] = cv(c.Persistence(tns))
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return 0, err
	}
	irow := classRow(ioid, name+"_index", tns, KindIndex, ioid, 2, BtreeAmOID, false, nil)
	irow[cRelpersist] = cv(c.Persistence(tns))
	if _, err := c.insert(tx, PgClass, irow); err != nil {
		return 0, err
	}
	for i, t := range toast.ColumnTypes {
		a := Attr{Name: toast.ColumnNames[i], Type: t, Num: int16(i + 1), Storage: 'p'}
		if _, err := c.insert(tx, PgAttribute, attrRow(toid, a)); err != nil {
			return 0, err
		}
		if i < 2 {
			if _, err := c.insert(tx, PgAttribute, attrRow(ioid, a)); err != nil {
				return 0, err
			}
		}
	}
	keys := []int16{1, 2}
	if _, err := c.insert(tx, PgIndex, indexRow(ioid, toid, keys, true, true)); err != nil {
		return 0, err
	}
	if err := c.createRelStorage(tx, toid, tns); err != nil {
		return 0, err
	}
	if err := c.createRelStorage(tx, ioid, tns); err != nil {
		return 0, err
	}
	if err := c.buildEmptyToastIndex(tx, ioid, name+"_index"); err != nil {
		return 0, err
	}
	tx.Heap.Cid++
	return toid, nil
}

// buildEmptyToastIndex writes the metapage of a new (or truncated) TOAST
// index.
func (c *Catalog) buildEmptyToastIndex(tx *Txn, relfilenode uint32, name string) error {
	b := btree.NewBuilder(c.BtreeEnv(), smgr.RelFileNumber(relfilenode), toast.IndexOptions(name))
	ix, err := b.Finish(tx.U, uint32(tx.Heap.Xid))
	if err != nil {
		return fmt.Errorf("building %s: %w", name, err)
	}
	c.SetIndexHandle(relfilenode, ix)
	return nil
}

// EnsureToastTable creates rel's TOAST table if its columns now need one
// (ALTER TABLE ADD COLUMN, ALTER COLUMN TYPE) and it has none.
func (c *Catalog) EnsureToastTable(tx *Txn, rel *Relation) error {
	if rel.ToastRelID != 0 || rel.Kind != KindTable || !needsToastTable(rel.Attrs) {
		return nil
	}
	toid, err := c.createToastTable(tx, rel.OID, rel.Namespace)
	if err != nil {
		return err
	}
	return c.updateClassRow(tx, rel.OID, map[int]types.Datum{cReltoastrelid: ov(toid)})
}

// NewToastFiles gives rel's TOAST table and index new, empty files
// (TRUNCATE, table rewrites); the old ones go at commit. The TOAST table
// keeps its OID, so pointers written from now on name it as before.
func (c *Catalog) NewToastFiles(tx *Txn, rel *Relation) error {
	if rel.ToastRel == nil {
		return nil
	}
	if _, err := c.NewRelFileNode(tx, rel.ToastRel); err != nil {
		return err
	}
	for _, ix := range rel.ToastRel.Indexes {
		node, err := c.NewRelFileNode(tx, ix)
		if err != nil {
			return err
		}
		if err := c.buildEmptyToastIndex(tx, node, ix.Name); err != nil {
			return err
		}
	}
	return nil
}

// loadToast attaches a table's TOAST relation (built with its index).
func (c *Catalog) loadToast(tx *Txn, r *Relation, toastOID uint32) error {
	tr, err := c.build(tx, toastOID)
	if err != nil {
		return err
	}
	if tr == nil || len(tr.Indexes) != 1 {
		return fmt.Errorf("catalog: TOAST table %d of %q is missing or has no index", toastOID, r.Name)
	}
	r.ToastRelID, r.ToastRel = toastOID, tr
	r.Toast = &toast.Relation{OID: tr.OID, Name: tr.Name, Table: tr.Table, Format: tr.AM.NewFormat(tableam.FormatSpec{Layout: toast.ChunkLayout}),
		Index: c.IndexFor(tr, tr.Indexes[0]), NewOid: c.NewOid}
	return nil
}

// storageLayout is the table's attribute layout with each column's
// attstorage (which decides between 1- and 4-byte varlena headers).
func (r *Relation) storageLayout() *types.Deformer {
	st := make([]byte, len(r.Attrs))
	for i := range r.Attrs {
		st[i] = r.Attrs[i].storage()
	}
	return types.NewDeformerStorage(r.Types(), st)
}

// newToaster describes the table's columns to the toaster.
func (r *Relation) newToaster() *toast.Toaster {
	l := r.storageLayout()
	t := &toast.Toaster{Rel: r.Toast, Layout: l, Format: r.am().NewFormat(tableam.FormatSpec{Layout: l}), Cols: make([]toast.Column, len(r.Attrs))}
	for i := range r.Attrs {
		a := &r.Attrs[i]
		t.Cols[i] = toast.Column{Varlena: !a.Dropped && a.Type.Layout().Len == -1, Storage: a.storage(), Compression: a.Compression}
	}
	if v, ok := r.Options["toast_tuple_target"]; ok {
		t.Target, _ = strconv.Atoi(v)
	}
	return t
}

// Toaster is the table's toaster (every table has one: values are
// compressed even without a TOAST table).
func (r *Relation) Toaster() *toast.Toaster { return r.toaster }

// SetColumnStorage is ALTER COLUMN … SET STORAGE: it changes how future
// rows store the column; stored values stay as they are.
func (c *Catalog) SetColumnStorage(tx *Txn, rel *Relation, num int16, storage byte) error {
	if err := c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aStorage] = cv(storage) }); err != nil {
		return err
	}
	cur, err := c.ByOID(tx, rel.OID)
	if err != nil || cur == nil {
		return err
	}
	return c.EnsureToastTable(tx, cur)
}

// SetColumnCompression is ALTER COLUMN … SET COMPRESSION (0 = the
// default); values already compressed keep their method.
func (c *Catalog) SetColumnCompression(tx *Txn, rel *Relation, num int16, method byte) error {
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aCompress] = cv(method) })
}

// SetRelOptions replaces a table's reloptions (ALTER TABLE … SET/RESET).
func (c *Catalog) SetRelOptions(tx *Txn, rel *Relation, opts map[string]string) error {
	return c.updateClassRow(tx, rel.OID, map[int]types.Datum{cReloptions: formatOptions(opts)})
}

// systemTable is the definition of catalog table oid, nil for others.
func systemTable(oid uint32) *TableDef {
	for _, d := range SystemTables {
		if d.OID == oid {
			return d
		}
	}
	return nil
}
