package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidal-db/tidal/internal/access/sequence"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// PostgreSQL's OIDs of the sequence and dependency catalogs.
const (
	PgSequenceRelID = 2224
	PgDependRelID   = 2608
)

// PgSequence holds a sequence's parameters; its current value lives in the
// sequence's own page (package sequence).
var PgSequence = &TableDef{PgSequenceRelID, "pg_sequence", []Column{
	col("seqrelid", tOid), col("seqtypid", tOid), col("seqstart", types.Int8), col("seqincrement", types.Int8),
	col("seqmax", types.Int8), col("seqmin", types.Int8), col("seqcache", types.Int8), col("seqcycle", tBool),
}}

// PgDepend records dependencies between objects. tidal records the ones
// it acts on: a sequence owned by a column (deptype 'a', serial and OWNED
// BY) or belonging to an identity column (deptype 'i'); dropping the table
// drops such sequences.
var PgDepend = &TableDef{PgDependRelID, "pg_depend", []Column{
	col("classid", tOid), col("objid", tOid), col("objsubid", tInt4), col("refclassid", tOid),
	col("refobjid", tOid), col("refobjsubid", tInt4), col("deptype", tChar),
}}

// Dependency types (pg_depend.deptype).
const (
	DepNormal   = 'n' // the dependent goes first, or with CASCADE
	DepAuto     = 'a'
	DepInternal = 'i'
)

// Identity kinds (pg_attribute.attidentity).
const (
	IdentityAlways    = 'a'
	IdentityByDefault = 'd'
)

// SequenceInfo is a sequence's pg_sequence row.
type SequenceInfo struct {
	TypeOID uint32
	sequence.Options
}

// Owner is the column a sequence belongs to.
type Owner struct {
	Table   uint32
	Attnum  int16
	DepType byte
}

// SeqRel is the storage handle of sequence r.
func (c *Catalog) SeqRel(r *Relation) sequence.Rel {
	return sequence.Rel{Env: c.env, Heap: c.heapAM.(tableam.FrozenFormer), File: smgr.RelFileNumber(r.RelFileNode), Name: r.Name}
}

func seqRow(oid uint32, info SequenceInfo) []types.Datum {
	o := info.Options
	return []types.Datum{ov(oid), ov(info.TypeOID), iv(o.Start), iv(o.Increment), iv(o.Max), iv(o.Min), iv(o.Cache), bv(o.Cycle)}
}

// CreateSequence adds a sequence relation, its pg_sequence row and its
// page (holding START, not yet called).
func (c *Catalog) CreateSequence(tx *Txn, nsp uint32, name string, info SequenceInfo) (uint32, error) {
	if existing, err := c.lookupIn(tx, nsp, name); err != nil {
		return 0, err
	} else if existing != nil {
		return 0, pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	oid, err := c.NewOid()
	if err != nil {
		return 0, err
	}
	row := classRow(oid, name, nsp, KindSequence, oid, len(sequence.ColumnTypes), 0, false, nil)
	row[cRelowner] = ov(c.creatorOID(tx))
	row[cRelpersist] = cv(c.Persistence(nsp))
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return 0, err
	}
	for i, t := range sequence.ColumnTypes {
		a := Attr{Name: sequence.ColumnNames[i], Type: t, Num: int16(i + 1), NotNull: true}
		if _, err := c.insert(tx, PgAttribute, attrRow(oid, a)); err != nil {
			return 0, err
		}
	}
	if _, err := c.insert(tx, PgSequence, seqRow(oid, info)); err != nil {
		return 0, err
	}
	tx.Heap.Cid++
	if err := c.createRelStorage(tx, oid, nsp); err != nil {
		return 0, err
	}
	rel := sequence.Rel{Env: c.env, Heap: c.heapAM.(tableam.FrozenFormer), File: smgr.RelFileNumber(oid), Name: name}
	if err := sequence.Init(tx.U, rel, sequence.State{LastValue: info.Start}, tx.Heap.Xid); err != nil {
		return 0, err
	}
	return oid, nil
}

// UpdateSequence replaces a sequence's pg_sequence row (ALTER SEQUENCE).
func (c *Catalog) UpdateSequence(tx *Txn, oid uint32, info SequenceInfo) error {
	var target page.ItemPointer
	err := c.scan(tx, PgSequence, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == oid {
			target = tid
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if !target.Valid() {
		return fmt.Errorf("catalog: no pg_sequence row for %d", oid)
	}
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgSequence, target, seqRow(oid, info))
	if err == nil && oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

func (c *Catalog) loadSequence(tx *Txn, r *Relation) error {
	return c.scan(tx, PgSequence, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) != r.OID {
			return true, nil
		}
		r.Seq = &SequenceInfo{TypeOID: uint32(v[1].Int()), Options: sequence.Options{
			Start: v[2].Int(), Increment: v[3].Int(), Max: v[4].Int(), Min: v[5].Int(), Cache: v[6].Int(), Cycle: v[7].Bool(),
		}}
		return false, nil
	})
}

// SetSequenceOwner makes seq belong to column attnum of table (deptype
// 'a' for serial and OWNED BY, 'i' for identity), replacing any previous
// owner; table 0 removes the ownership (OWNED BY NONE).
func (c *Catalog) SetSequenceOwner(tx *Txn, seq uint32, owner Owner) error {
	if err := c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[1].Int()) == seq && uint32(v[0].Int()) == PgClassRelID && (v[6].Int() == DepAuto || v[6].Int() == DepInternal)
	}); err != nil {
		return err
	}
	if owner.Table != 0 {
		row := []types.Datum{ov(PgClassRelID), ov(seq), iv(0), ov(PgClassRelID), ov(owner.Table), iv(int64(owner.Attnum)), cv(owner.DepType)}
		if _, err := c.insert(tx, PgDepend, row); err != nil {
			return err
		}
	}
	tx.Heap.Cid++
	return nil
}

// SequenceOwner returns the column that owns sequence seq, if any.
func (c *Catalog) SequenceOwner(tx *Txn, seq uint32) (Owner, bool, error) {
	var o Owner
	found := false
	err := c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[1].Int()) == seq && uint32(v[0].Int()) == PgClassRelID && (v[6].Int() == DepAuto || v[6].Int() == DepInternal) {
			o = Owner{Table: uint32(v[4].Int()), Attnum: int16(v[5].Int()), DepType: byte(v[6].Int())}
			found = true
			return false, nil
		}
		return true, nil
	})
	return o, found, err
}

// OwnedSequences lists the sequences owned by columns of table, with the
// owning column and dependency type.
func (c *Catalog) OwnedSequences(tx *Txn, table uint32) (map[uint32]Owner, error) {
	out := map[uint32]Owner{}
	err := c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[4].Int()) == table && uint32(v[0].Int()) == PgClassRelID && (v[6].Int() == DepAuto || v[6].Int() == DepInternal) {
			out[uint32(v[1].Int())] = Owner{Table: table, Attnum: int16(v[5].Int()), DepType: byte(v[6].Int())}
		}
		return true, nil
	})
	return out, err
}

func (c *Catalog) deleteDepends(tx *Txn, match func(v []types.Datum) bool) error {
	var tids []page.ItemPointer
	err := c.scan(tx, PgDepend, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if match(v) {
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgDepend, t); err != nil {
			return err
		}
	}
	return nil
}

// dropSequenceParts is DropRelation's share for sequences: for a table,
// the sequences its columns own go first; for any relation, its
// pg_sequence row and the dependencies naming it.
func (c *Catalog) dropSequenceParts(tx *Txn, r *Relation) error {
	if r.Kind == KindTable {
		owned, err := c.OwnedSequences(tx, r.OID)
		if err != nil {
			return err
		}
		for oid := range owned {
			seq, err := c.ByOID(tx, oid)
			if err != nil {
				return err
			}
			if seq != nil {
				if err := c.DropRelation(tx, seq); err != nil {
					return err
				}
			}
		}
	}
	if r.Kind == KindSequence {
		var tids []page.ItemPointer
		err := c.scan(tx, PgSequence, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
			if uint32(v[0].Int()) == r.OID {
				tids = append(tids, tid)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, t := range tids {
			if err := c.delete(tx, PgSequence, t); err != nil {
				return err
			}
		}
	}
	return c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[1].Int()) == r.OID || uint32(v[4].Int()) == r.OID
	})
}

// identityDefaults gives a table's identity columns their implicit
// default, nextval of the sequence they own, so INSERT and COPY fill them
// like any column default. (PostgreSQL stores no pg_attrdef row for them
// either; the expression is synthesised at planning.)
func (c *Catalog) identityDefaults(tx *Txn, r *Relation) error {
	hasIdentity := false
	for _, a := range r.Attrs {
		if a.Identity != 0 {
			hasIdentity = true
		}
	}
	if !hasIdentity {
		return nil
	}
	owned, err := c.OwnedSequences(tx, r.OID)
	if err != nil {
		return err
	}
	for seq, o := range owned {
		if o.DepType != DepInternal {
			continue
		}
		for i := range r.Attrs {
			if r.Attrs[i].Num == o.Attnum && r.Attrs[i].Identity != 0 {
				r.Attrs[i].Default = fmt.Sprintf("nextval('%d'::regclass)", seq)
				r.Attrs[i].IdentitySeq = seq
			}
		}
	}
	return nil
}

// MissingSystemTables lists the catalog tables a data directory made by
// an older tidal lacks (besides pg_authid, which has its own upgrade).
func (c *Catalog) MissingSystemTables(tx *Txn) ([]*TableDef, error) {
	have := map[uint32]bool{}
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		have[uint32(v[cOid].Int())] = true
		return true, nil
	})
	var out []*TableDef
	for _, d := range []*TableDef{PgSequence, PgDepend, PgAuthMembers, PgProc, PgLanguage, PgInherits, PgEnum, PgRewrite, PgPartitionedTable, PgTrigger} {
		if !have[d.OID] {
			out = append(out, d)
		}
	}
	return out, err
}

// CreateSystemTable adds catalog table d to a data directory that lacks
// it. tx must have an xid; everything is WAL-logged.
func (c *Catalog) CreateSystemTable(tx *Txn, d *TableDef) error {
	if err := c.CreateStorage(tx, d.OID); err != nil {
		return err
	}
	row := classRow(d.OID, d.Name, PgCatalogNamespace, KindTable, d.OID, len(d.Columns), HeapAmOID, false, nil)
	row[PgClass.ColumnIndex("relfrozenxid")] = ov(tx.newRelFrozenXid())
	if _, err := c.insert(tx, PgClass, row); err != nil {
		return err
	}
	for i, col := range d.Columns {
		if _, err := c.insert(tx, PgAttribute, attrRow(d.OID, Attr{Name: col.Name, Type: col.Type, Num: int16(i + 1), NotNull: true})); err != nil {
			return err
		}
	}
	if d == PgAuthMembers {
		if err := c.insertBootstrapMemberships(tx); err != nil {
			return err
		}
	}
	if d == PgLanguage {
		if err := c.insertBootstrapLanguages(tx); err != nil {
			return err
		}
	}
	tx.Heap.Cid++
	return nil
}

// Sequences lists every sequence visible to tx, by OID.
func (c *Catalog) Sequences(tx *Txn) ([]*Relation, error) {
	var oids []uint32
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if byte(v[cRelkind].Int()) == KindSequence {
			oids = append(oids, uint32(v[cOid].Int()))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(oids, func(i, j int) bool { return oids[i] < oids[j] })
	var out []*Relation
	for _, o := range oids {
		r, err := c.ByOID(tx, o)
		if err != nil {
			return nil, err
		}
		if r != nil && r.Seq != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// ResetSequence gives sequence r a new file holding st (ALTER SEQUENCE
// RESTART, TRUNCATE … RESTART IDENTITY): transactional, as in
// PostgreSQL — until commit other sessions keep using the old file, and
// an abort leaves it in place.
func (c *Catalog) ResetSequence(tx *Txn, r *Relation, st sequence.State) error {
	node, err := c.NewRelFileNode(tx, r)
	if err != nil {
		return err
	}
	return sequence.Init(tx.U, sequence.Rel{Env: c.env, Heap: c.heapAM.(tableam.FrozenFormer), File: smgr.RelFileNumber(node), Name: r.Name}, st, tx.Heap.Xid)
}

// DropDefault removes the default of column attnum of table rel (its
// pg_attrdef row; atthasdef becomes false).
func (c *Catalog) DropDefault(tx *Txn, rel uint32, attnum int16) error {
	if err := c.deleteAttrDefs(tx, rel, attnum); err != nil {
		return err
	}
	var target page.ItemPointer
	var vals []types.Datum
	hasDef := PgAttribute.ColumnIndex("atthasdef")
	err := c.scan(tx, PgAttribute, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == rel && int16(v[4].Int()) == attnum {
			target, vals = tid, append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil || !target.Valid() || !vals[hasDef].Bool() {
		tx.Heap.Cid++
		return err
	}
	vals[hasDef] = bv(false)
	tx.Dirty = true
	_, oc, err := c.updateRow(tx, PgAttribute, target, vals)
	if err == nil && oc.Result != tableam.Ok && oc.Result != tableam.SelfModified {
		return pgerr.Errorf(pgerr.SerializationFailure, "tuple concurrently updated")
	}
	tx.Heap.Cid++
	return err
}

// dropColumnSequences drops the sequences column num of table owns
// (serial, OWNED BY, identity): they go with the column.
func (c *Catalog) dropColumnSequences(tx *Txn, table uint32, num int16) error {
	owned, err := c.OwnedSequences(tx, table)
	if err != nil {
		return err
	}
	for oid, o := range owned {
		if o.Attnum != num {
			continue
		}
		seq, err := c.ByOID(tx, oid)
		if err != nil {
			return err
		}
		if seq != nil {
			if err := c.DropRelation(tx, seq); err != nil {
				return err
			}
		}
	}
	return nil
}

// RegclassText is how a regclass constant names relation name of
// namespace nsp inside a stored expression, quotes doubled for the SQL
// string literal. It is qualified (but for a temporary relation, which
// only its session sees), so that the expression means the same relation
// whatever the search path when it runs; pg_get_expr prints it
// unqualified where the search path finds it (exec/namespacefuncs.go).
func (c *Catalog) RegclassText(tx *Txn, nsp uint32, name string) (string, error) {
	if c.IsTempNamespace(nsp) {
		return strings.ReplaceAll(types.QuoteIdent(name), "'", "''"), nil
	}
	return c.qualifiedRegclassText(tx, nsp, name)
}

func (c *Catalog) qualifiedRegclassText(tx *Txn, nsp uint32, name string) (string, error) {
	nspName := ""
	err := c.scan(tx, PgNamespace, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == nsp {
			nspName = v[1].Str()
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(types.QuoteIdent(nspName)+"."+types.QuoteIdent(name), "'", "''"), nil
}

// RegclassLiterals are the forms in which a stored default may name
// relation name as a regclass constant: schema-qualified (as RegclassText
// and pg_dump write it) and bare (as a user may have written it, meaning
// the relation the search path found).
func (c *Catalog) RegclassLiterals(tx *Txn, nsp uint32, name string) ([]string, error) {
	long, err := c.qualifiedRegclassText(tx, nsp, name)
	if err != nil {
		return nil, err
	}
	short := strings.ReplaceAll(types.QuoteIdent(name), "'", "''")
	return []string{"'" + long + "'::regclass", "'" + short + "'::regclass"}, nil
}

// renameSequenceInDefaults keeps the column defaults that call sequence
// seq pointing at it when it is renamed. (Defaults are stored as SQL
// text, where PostgreSQL stores the sequence's OID.)
func (c *Catalog) renameSequenceInDefaults(tx *Txn, seq *Relation, newName string) error {
	oldLits, err := c.RegclassLiterals(tx, seq.Namespace, seq.Name)
	if err != nil {
		return err
	}
	newLits, err := c.RegclassLiterals(tx, seq.Namespace, newName)
	if err != nil {
		return err
	}
	tables, err := c.UserTables(tx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		for _, a := range t.Attrs {
			if a.Identity != 0 || !a.HasDefault {
				continue
			}
			text := a.Default
			for i := range oldLits {
				text = strings.ReplaceAll(text, oldLits[i], newLits[i])
			}
			if text != a.Default {
				if err := c.SetColumnDefault(tx, t, a.Num, text); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SetColumnIdentity sets a column's attidentity (0 to clear it).
func (c *Catalog) SetColumnIdentity(tx *Txn, rel *Relation, num int16, kind byte) error {
	return c.updateAttr(tx, rel.OID, num, func(v []types.Datum) { v[aIdentity] = cv(kind) })
}
