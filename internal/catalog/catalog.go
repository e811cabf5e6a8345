package catalog

import (
	"context"
	"fmt"
	"github.com/tidal-db/tidal/internal/acl"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/toast"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
)

// Relation kinds (pg_class.relkind).
const (
	KindTable    = 'r'
	KindIndex    = 'i'
	KindSequence = 'S'
	KindView     = 'v'
	// KindMatView is a materialized view's relkind in pg_class; its
	// Relation has Kind KindTable (it is stored like one) and MatView.
	KindMatView = 'm'
)

// Attr is a column of a relation.
type Attr struct {
	Name       string
	Type       types.Type
	Num        int16
	NotNull    bool
	HasDefault bool
	Default    string // default expression as SQL text
	// Dropped: the column was dropped (attisdropped). It keeps its slot
	// in the row so old tuples still decode; Type is then only a
	// stand-in with the column's storage layout, and the column is
	// invisible to SQL.
	Dropped bool
	// Missing is what rows stored before the column was added read for
	// it (atthasmissing/attmissingval); NULL when it has none.
	Missing types.Datum
	// Identity is attidentity: 0, IdentityAlways or IdentityByDefault.
	// An identity column's Default is nextval of IdentitySeq.
	Identity    byte
	IdentitySeq uint32
	// Storage is attstorage ('p', 'm', 'x', 'e'; 0 = the type's) and
	// Compression attcompression ('p' pglz, 'l' lz4, 0 = the session's
	// default_toast_compression).
	Storage     byte
	Compression byte
	// InhCount is attinhcount: how many parents give the table this
	// column; InheritedOnly is !attislocal: the column exists only
	// because a parent has it (dropping it from the last parent drops it).
	InhCount      int16
	InheritedOnly bool
	// Domain is the column's domain (pg_attribute.atttypid) when its type
	// is one; Type is then the domain's base type, with its typmod.
	Domain uint32
	// ACL is attacl: the column's own privileges (nil: none).
	ACL acl.ACL
}

// IndexInfo describes an index relation.
type IndexInfo struct {
	RelID   uint32  // the indexed table
	Keys    []int16 // attribute numbers of the key columns
	Unique  bool
	Primary bool
}

// Relation is the cached description of a table or index (a relcache
// entry). It is immutable once built; DDL builds a new one.
type Relation struct {
	OID         uint32
	Name        string
	Namespace   uint32
	Kind        byte
	RelFileNode uint32
	Attrs       []Attr
	Indexes     []*Relation // a table's indexes, by OID
	Index       *IndexInfo  // for an index
	Pages       int32
	Tuples      float32
	HasIndex    bool
	Options     map[string]string
	// Constraints are a table's pg_constraint rows; ReferencedBy the
	// foreign keys of any table that reference it.
	Constraints  []*Constraint
	ReferencedBy []*Constraint
	Seq          *SequenceInfo // for a sequence: its pg_sequence row
	// Parents are the tables this one inherits from, in pg_inherits'
	// inhseqno order; HasSubclass is relhassubclass (set once a child was
	// made, as in PostgreSQL; the children are in pg_inherits).
	Parents     []uint32
	HasSubclass bool
	Persistence byte // relpersistence: PersistencePermanent or PersistenceTemp
	// ViewQuery is a view's or materialized view's stored query
	// (pg_rewrite.ev_action); MatView marks a materialized view and
	// Populated its relispopulated.
	ViewQuery string
	MatView   bool
	Populated bool
	// PartKey is a partitioned table's key (partition.go), PartBound a
	// partition's bound as pg_get_expr prints it ("" for no partition);
	// PartitionedIndex marks an index of relkind 'I'.
	PartKey          *PartitionKey
	PartBound        string
	PartitionedIndex bool
	// Owner is relowner; ACL relacl (nil while NULL: the owner's default).
	Owner uint32
	ACL   acl.ACL
	// Triggers are a table's or view's pg_trigger rows, by name.
	Triggers []*Trigger
	tid      page.ItemPointer // of its pg_class row

	// AM is the table's access method (pg_class.relam) and Table its
	// storage handle (tables, TOAST tables and sequences; nil otherwise).
	AM    tableam.AM
	Table tableam.Relation

	// ToastRelID is reltoastrelid; ToastRel the TOAST table (with its
	// index) and Toast its storage handle, nil when the table has none.
	ToastRelID uint32
	ToastRel   *Relation
	Toast      *toast.Relation
	toaster    *toast.Toaster
	layout     *types.Deformer // attribute layout with each column's storage
}

// FillFactor is the table's fillfactor option (default 100 for tables).
func (r *Relation) FillFactor() int {
	if v, ok := r.Options["fillfactor"]; ok {
		var n int
		fmt.Sscanf(v, "%d", &n)
		if n >= 10 && n <= 100 {
			return n
		}
	}
	if r.Kind == KindIndex {
		return 90
	}
	return 100
}

// Types returns the column types.
func (r *Relation) Types() []types.Type {
	ts := make([]types.Type, len(r.Attrs))
	for i, a := range r.Attrs {
		ts[i] = a.Type
	}
	return ts
}

// AttrByName returns the column's index in Attrs, or -1. Dropped columns
// have no name.
func (r *Relation) AttrByName(name string) int {
	for i, a := range r.Attrs {
		if a.Name == name && !a.Dropped {
			return i
		}
	}
	return -1
}

// Catalog is the set of system catalogs of one data directory.
type Catalog struct {
	env *tableam.Env
	ams *tableam.Registry
	// heapAM stores the system catalogs, TOAST tables and sequences,
	// whatever default_table_access_method says (as in PostgreSQL).
	heapAM tableam.AM

	mu      sync.Mutex
	version atomic.Uint64
	cacheV  uint64
	byName  map[relName]*Relation // committed state
	byOID   map[uint32]*Relation
	tables  map[uint32]tableHandle // storage handles by relfilenode
	sysRels map[uint32]tableam.Relation
	indexes map[uint32]*btree.Index // handles by relfilenode

	oidMu    sync.Mutex
	nextOid  uint32
	oidLimit uint32 // OIDs below this are covered by a NEXTOID WAL record

	temp tempRegistry // temporary namespaces and slots (temp.go), under mu
	// procNames: the committed pg_proc rows by name (proc.go), nil until
	// read; flushed with the relation cache.
	procNames map[string][]*Proc
	// nspNames: schema names by OID for NamespaceName (namespace.go),
	// reloaded when the catalog version moves past nspNamesV; under mu.
	nspNames  map[uint32]string
	nspNamesV uint64
}

// XLOG record kinds used by the catalog.
const (
	InfoNextOid    uint8 = 0x30
	InfoSmgrCreate uint8 = 0x10
	InfoSmgrTrunc  uint8 = 0x20
)

// Open attaches the catalog to its storage.
// ams must hold the heap access method.
func Open(env *tableam.Env, ams *tableam.Registry, nextOid uint32) *Catalog {
	if nextOid < FirstNormalObjectID {
		nextOid = FirstNormalObjectID
	}
	heapAM, ok := ams.ByName("heap")
	if !ok {
		panic("catalog: the heap access method is not registered")
	}
	c := &Catalog{env: env, ams: ams, heapAM: heapAM, tables: map[uint32]tableHandle{}, sysRels: map[uint32]tableam.Relation{}, nextOid: nextOid, oidLimit: nextOid}
	for _, d := range SystemTables {
		c.sysRels[d.OID] = heapAM.Open(env, tableam.RelSpec{File: smgr.RelFileNumber(d.OID), Name: d.Name, Types: d.Types(), FillFactor: 100})
	}
	c.flushCache()
	return c
}

// Env is the storage environment.
func (c *Catalog) Env() *tableam.Env { return c.env }

// NextOid is the next OID to hand out (for checkpoints).
func (c *Catalog) NextOid() uint32 {
	c.oidMu.Lock()
	defer c.oidMu.Unlock()
	return c.nextOid
}

// AdvanceNextOid is redo of a NEXTOID record.
func (c *Catalog) AdvanceNextOid(n uint32) {
	c.oidMu.Lock()
	if n > c.nextOid {
		c.nextOid = n
		c.oidLimit = n
	}
	c.oidMu.Unlock()
}

// NewOid assigns an OID, WAL-logging a new prefetch range every 8192 OIDs
// so that no OID is reused after a crash.
func (c *Catalog) NewOid() (uint32, error) {
	c.oidMu.Lock()
	defer c.oidMu.Unlock()
	if c.nextOid >= c.oidLimit {
		limit := c.nextOid + 8192
		rec := wal.NewRecord(wal.RmXLOG, InfoNextOid, 0)
		rec.SetMain([]byte{byte(limit), byte(limit >> 8), byte(limit >> 16), byte(limit >> 24)})
		if _, err := c.env.WAL.Insert(nil, rec); err != nil {
			return 0, err
		}
		c.oidLimit = limit
	}
	o := c.nextOid
	c.nextOid++
	return o, nil
}

// Invalidate is called when a transaction that changed catalogs ends.
func (c *Catalog) Invalidate() {
	c.version.Add(1)
}

func (c *Catalog) flushCache() {
	c.byName = map[relName]*Relation{}
	c.byOID = map[uint32]*Relation{}
	c.procNames = nil
	c.cacheV = c.version.Load()
}

// Version identifies the committed catalog state.
func (c *Catalog) Version() uint64 { return c.version.Load() }

// ForgetHeap drops a storage handle (the relation's file is gone).
func (c *Catalog) ForgetHeap(relfilenode uint32) {
	c.mu.Lock()
	delete(c.tables, relfilenode)
	delete(c.indexes, relfilenode)
	c.mu.Unlock()
	if c.env.WAL != nil && c.env.WAL.IsUnlogged(relfilenode) {
		c.env.WAL.SetUnlogged(relfilenode, false)
	}
}

// Txn is the catalog's view of a transaction.
type Txn struct {
	// Heap is the transaction as every table access method sees it (the
	// name predates the AM interface; it is not heap-specific).
	Heap *tableam.Txn
	U    *stats.Usage
	// Dirty is set once the transaction changed a catalog: from then on
	// it reads the catalogs itself instead of the shared cache.
	Dirty bool
	// Created and Dropped relation files, for commit/abort handling.
	Created []uint32
	Dropped []uint32
	// TempNamespace is the session's temporary namespace (0: it has none
	// yet), searched first for unqualified relation names (temp.go).
	TempNamespace uint32
	// AccessedTemp: the transaction used a temporary relation (it cannot
	// be prepared; PostgreSQL's XACT_FLAGS_ACCESSEDTEMPNAMESPACE).
	AccessedTemp bool
	// CommandHigh is the highest command id handed out in the
	// transaction. Statements of VOLATILE routines run with command ids
	// beyond their calling statement's (and cursors with older ones), so
	// Heap.Cid is not always the newest; the next command starts past
	// this one (exec/sqlfunc.go, session's nextCommand).
	CommandHigh uint32
	// User is current_user, who owns what the transaction creates ("":
	// the bootstrap superuser).
	User string
	// PathSetting reports the search_path in force (nil: PostgreSQL's
	// default); path is its resolution (namespace.go).
	PathSetting PathSetting
	path        *searchPath
}

// newRelFrozenXid is the relfrozenxid of a relation tx creates: a bound
// below every xid its rows can ever have (PostgreSQL uses RecentXmin).
// Not the creating xid: it may be a subtransaction's, and transactions
// older than the creator that are still running may write the table once
// it commits. The statement snapshot's xmin precedes every xid running when
// it was taken, and every later xid follows it.
func (tx *Txn) newRelFrozenXid() xact.XID {
	if s := tx.Heap.Snap; s != nil && s.Xmin != xact.InvalidXid {
		return s.Xmin
	}
	if tx.Heap.Proc != nil && tx.Heap.Proc.Xid() != xact.InvalidXid {
		return tx.Heap.Proc.Xid()
	}
	return tx.Heap.Xid
}

// scan calls fn for every row of a catalog table visible to tx.
//
// Catalog rows are read under a fresh snapshot, not the statement's (as
// PostgreSQL's catalog snapshot): a statement that waited for a lock
// behind a committed ALTER TABLE must see the table's new shape.
func (c *Catalog) scan(tx *Txn, def *TableDef, fn func(vals []types.Datum, tid page.ItemPointer) (bool, error)) error {
	h := c.sysRels[def.OID]
	s, err := h.BeginScan(tx.U, c.catalogSnapshot(tx), tableam.ScanOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	d := c.sysForm(def)
	vals := make([]types.Datum, len(def.Columns))
	for {
		t, tid, ok, err := s.Next()
		if err != nil || !ok {
			return err
		}
		if err := d.Deform(t, vals); err != nil {
			return err
		}
		more, err := fn(vals, tid)
		if err != nil || !more {
			return err
		}
	}
}

func (c *Catalog) insert(tx *Txn, def *TableDef, vals []types.Datum) (page.ItemPointer, error) {
	tx.Dirty = true
	t := c.sysForm(def).Form(vals)
	return c.sysRels[def.OID].Insert(tx.U, tx.Heap, t, nil)
}

func (c *Catalog) delete(tx *Txn, def *TableDef, tid page.ItemPointer) error {
	tx.Dirty = true
	oc, err := c.sysRels[def.OID].Delete(context.Background(), tx.U, tx.Heap, tid)
	if err != nil {
		return err
	}
	if oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	return nil
}

// NamespaceOID resolves a schema name.
func (c *Catalog) NamespaceOID(tx *Txn, name string) (uint32, error) {
	var found uint32
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if v[1].Str() == name {
			found = uint32(v[0].Int())
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	if found == 0 {
		return 0, pgerr.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	return found, nil
}

// Lookup finds a relation by (optionally schema-qualified) name. It
// returns nil, nil when there is none. The schema pg_temp is the session's
// temporary namespace.
func (c *Catalog) Lookup(tx *Txn, schema, name string) (*Relation, error) {
	nsps, err := c.lookupNamespaces(tx, schema)
	if err != nil {
		return nil, err
	}
	for _, nsp := range nsps {
		r, err := c.lookupIn(tx, nsp, name)
		if err != nil || r != nil {
			return r, err
		}
	}
	return nil, nil
}

// lookupNamespaces is where a relation or type named schema.name is
// looked for: the search path when schema is empty.
func (c *Catalog) lookupNamespaces(tx *Txn, schema string) ([]uint32, error) {
	switch schema {
	case "":
		return c.SearchNamespaces(tx, true)
	case "pg_temp":
		if tx.TempNamespace == 0 {
			return nil, nil
		}
		return []uint32{tx.TempNamespace}, nil
	}
	o, err := c.NamespaceOID(tx, schema)
	if err != nil {
		return nil, err
	}
	return []uint32{o}, nil
}

// relName keys the relation cache by name.
type relName struct {
	nsp  uint32
	name string
}

func (c *Catalog) lookupIn(tx *Txn, nsp uint32, name string) (*Relation, error) {
	key := relName{nsp, name}
	if !tx.Dirty {
		c.mu.Lock()
		if c.cacheV != c.version.Load() {
			c.flushCache()
		}
		r, ok := c.byName[key]
		c.mu.Unlock()
		if ok {
			return r, nil
		}
	}
	v := c.version.Load()
	var oid uint32
	err := c.scan(tx, PgClass, func(vals []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(vals[2].Int()) == nsp && vals[1].Str() == name {
			oid = uint32(vals[0].Int())
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if oid == 0 {
		// Remember misses too: every unqualified name is first looked
		// for in pg_catalog.
		if !tx.Dirty {
			c.mu.Lock()
			if c.version.Load() == v && c.cacheV == v {
				c.byName[key] = nil
			}
			c.mu.Unlock()
		}
		return nil, nil
	}
	r, err := c.ByOID(tx, oid)
	if err != nil || r == nil {
		return r, err
	}
	if !tx.Dirty {
		c.mu.Lock()
		if c.version.Load() == v && c.cacheV == v {
			c.byName[key] = r
		}
		c.mu.Unlock()
	}
	return r, nil
}

// ByOID builds (or finds cached) the description of relation oid.
func (c *Catalog) ByOID(tx *Txn, oid uint32) (*Relation, error) {
	if !tx.Dirty {
		c.mu.Lock()
		if c.cacheV != c.version.Load() {
			c.flushCache()
		}
		r, ok := c.byOID[oid]
		c.mu.Unlock()
		if ok {
			return r, nil
		}
	}
	v := c.version.Load()
	r, err := c.build(tx, oid)
	if err != nil || r == nil {
		return r, err
	}
	if !tx.Dirty {
		c.mu.Lock()
		if c.version.Load() == v && c.cacheV == v {
			c.byOID[oid] = r
		}
		c.mu.Unlock()
	}
	return r, nil
}

var (
	cOid            = PgClass.ColumnIndex("oid")
	cRelname        = PgClass.ColumnIndex("relname")
	cRelnsp         = PgClass.ColumnIndex("relnamespace")
	cRelkind        = PgClass.ColumnIndex("relkind")
	cRelfilenode    = PgClass.ColumnIndex("relfilenode")
	cRelam          = PgClass.ColumnIndex("relam")
	cRelpages       = PgClass.ColumnIndex("relpages")
	cReltuples      = PgClass.ColumnIndex("reltuples")
	cRelhasindex    = PgClass.ColumnIndex("relhasindex")
	cReloptions     = PgClass.ColumnIndex("reloptions")
	cRelnatts       = PgClass.ColumnIndex("relnatts")
	cRelpersist     = PgClass.ColumnIndex("relpersistence")
	cRelhassubclass = PgClass.ColumnIndex("relhassubclass")
	cRelispopulated = PgClass.ColumnIndex("relispopulated")
	cRelowner       = PgClass.ColumnIndex("relowner")
	cRelacl         = PgClass.ColumnIndex("relacl")
)

func (c *Catalog) build(tx *Txn, oid uint32) (*Relation, error) {
	var r *Relation
	var toastOID, amOID uint32
	var classVals []types.Datum
	err := c.scan(tx, PgClass, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[cOid].Int()) != oid {
			return true, nil
		}
		toastOID = uint32(v[cReltoastrelid].Int())
		r = &Relation{
			OID: oid, Name: v[cRelname].Str(), Namespace: uint32(v[cRelnsp].Int()),
			Kind: byte(v[cRelkind].Int()), RelFileNode: uint32(v[cRelfilenode].Int()),
			Pages: int32(v[cRelpages].Int()), Tuples: float32(v[cReltuples].Float()),
			HasIndex: v[cRelhasindex].Bool(), Options: parseOptions(v[cReloptions]), tid: tid,
			Persistence: byte(v[cRelpersist].Int()), HasSubclass: v[cRelhassubclass].Bool(),
			Owner: uint32(v[cRelowner].Int()), ACL: aclFromDatum(v[cRelacl]),
		}
		amOID = uint32(v[cRelam].Int())
		if r.Kind == KindMatView {
			r.Kind, r.MatView, r.Populated = KindTable, true, v[cRelispopulated].Bool()
		}
		if r.Kind == KindPartitionedIndex {
			r.Kind, r.PartitionedIndex = KindIndex, true
		}
		classVals = append([]types.Datum(nil), v...)
		return false, nil
	})
	if err != nil || r == nil {
		return nil, err
	}
	if r.Kind == KindView || r.MatView {
		if r.ViewQuery, err = c.viewQuery(tx, oid); err != nil {
			return nil, err
		}
	}
	if err := c.loadPartitioning(tx, r, classVals); err != nil {
		return nil, err
	}
	if r.AM, err = c.tableAM(r, amOID); err != nil {
		return nil, err
	}
	err = c.scan(tx, PgAttribute, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) != oid || v[4].Int() <= 0 {
			return true, nil
		}
		a, err := attrFromRow(v, func(oid uint32) (*Domain, error) { return c.userTypeAsDomain(tx, oid) })
		if err != nil {
			return false, err
		}
		r.Attrs = append(r.Attrs, a)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(r.Attrs, func(i, j int) bool { return r.Attrs[i].Num < r.Attrs[j].Num })
	if def := systemTable(oid); def != nil {
		// A catalog's shape is its definition here: a data directory
		// made before a column was added (pg_attribute.attstattarget) or
		// retyped (pg_class.reloptions) reads the older rows through it.
		r.Attrs = r.Attrs[:0]
		for i, col := range def.Columns {
			r.Attrs = append(r.Attrs, Attr{Name: col.Name, Type: col.Type, Num: int16(i + 1), NotNull: true})
		}
	}
	if r.Kind == KindIndex {
		err = c.scan(tx, PgIndex, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
			if uint32(v[0].Int()) != oid {
				return true, nil
			}
			r.Index = &IndexInfo{RelID: uint32(v[1].Int()), Unique: v[4].Bool(), Primary: v[6].Bool(), Keys: v[15].Int2Vector()}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	if r.Kind == KindSequence {
		if err := c.loadSequence(tx, r); err != nil {
			return nil, err
		}
		c.openTable(r, 100)
		return r, nil
	}
	// Defaults.
	err = c.scan(tx, PgAttrdef, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[1].Int()) != oid {
			return true, nil
		}
		for i := range r.Attrs {
			if r.Attrs[i].Num == int16(v[2].Int()) {
				r.Attrs[i].Default = v[3].Str()
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	// Indexes of a table.
	var idx []uint32
	err = c.scan(tx, PgIndex, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[1].Int()) == oid {
			idx = append(idx, uint32(v[0].Int()))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.identityDefaults(tx, r); err != nil {
		return nil, err
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for _, io := range idx {
		ir, err := c.build(tx, io)
		if err != nil {
			return nil, err
		}
		if ir != nil {
			r.Indexes = append(r.Indexes, ir)
		}
	}
	if r.Kind == KindTable && r.Namespace != PgCatalogNamespace {
		if err := c.loadConstraints(tx, r); err != nil {
			return nil, err
		}
		if r.Parents, err = c.InheritParents(tx, oid); err != nil {
			return nil, err
		}
	}
	if (r.Kind == KindTable || r.Kind == KindView) && r.Namespace != PgCatalogNamespace {
		if err := c.loadTriggers(tx, r); err != nil {
			return nil, err
		}
	}
	if r.Kind == KindTable || r.Kind == KindToast {
		c.openTable(r, r.FillFactor())
	}
	if r.Kind == KindTable {
		if toid := toastOID; toid != 0 {
			if err := c.loadToast(tx, r, toid); err != nil {
				return nil, err
			}
		}
		r.layout = r.storageLayout()
		r.toaster = r.newToaster()
	}
	return r, nil
}

func parseOptions(d types.Datum) map[string]string {
	if d.IsNull() {
		return nil
	}
	m := map[string]string{}
	for _, e := range d.Elems() {
		if k, v, ok := strings.Cut(e.Str(), "="); ok {
			m[k] = v
		}
	}
	return m
}

func formatOptions(m map[string]string) types.Datum {
	if len(m) == 0 {
		return types.Null()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]types.Datum, len(keys))
	for i, k := range keys {
		parts[i] = types.Str(k + "=" + m[k])
	}
	return types.Array(parts)
}

// Ensure xact is referenced for documentation of Txn ids.
var _ = xact.InvalidXid

// UserTables lists the tables outside pg_catalog.
func (c *Catalog) UserTables(tx *Txn) ([]*Relation, error) {
	var oids []uint32
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if k := byte(v[cRelkind].Int()); (k == KindTable || k == KindPartitioned) && uint32(v[cRelnsp].Int()) != PgCatalogNamespace {
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

// catalogSnapshot is tx with a snapshot of the latest committed catalog
// state (plus tx's own changes).
func (c *Catalog) catalogSnapshot(tx *Txn) *tableam.Txn {
	if tx.Heap == nil || tx.Heap.Proc == nil || tx.Heap.Snap == nil || c.env.Xact == nil {
		return tx.Heap
	}
	h := *tx.Heap
	h.SSI = nil // catalog reads take no part in SSI
	h.Snap = c.env.Xact.CatalogSnapshot(tx.Heap.Proc)
	h.Snap.Cid = tx.Heap.Snap.Cid
	return &h
}
