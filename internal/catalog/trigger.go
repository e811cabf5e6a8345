package catalog

import (
	"sort"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Triggers (CREATE TRIGGER), stored as PostgreSQL 15 stores them: one
// pg_trigger row per trigger with PostgreSQL's columns and tgtype bits;
// tgqual (a node tree there) is the WHEN condition's SQL text, and tgargs
// the arguments each followed by a NUL byte, as there. A trigger depends
// on its table (pg_depend 'a': it goes with the table) and on its
// function ('n': DROP FUNCTION needs CASCADE). A table's triggers are in
// its Relation, sorted by name: the order PostgreSQL fires them in.

// PgTriggerRelID is pg_trigger's OID (PostgreSQL's).
const PgTriggerRelID = 2620

// PgTrigger is PostgreSQL 15's pg_trigger.
var PgTrigger = &TableDef{PgTriggerRelID, "pg_trigger", []Column{
	col("oid", tOid), col("tgrelid", tOid), col("tgparentid", tOid), col("tgname", tName),
	col("tgfoid", tOid), col("tgtype", tInt2), col("tgenabled", tChar), col("tgisinternal", tBool),
	col("tgconstrrelid", tOid), col("tgconstrindid", tOid), col("tgconstraint", tOid),
	col("tgdeferrable", tBool), col("tginitdeferred", tBool), col("tgnargs", tInt2),
	col("tgattr", tI2Vec), col("tgargs", types.Bytea), col("tgqual", tText),
	col("tgoldtable", tName), col("tgnewtable", tName),
}}

// tgtype bits (pg_trigger.h).
const (
	TriggerTypeRow      = 1 << 0
	TriggerTypeBefore   = 1 << 1
	TriggerTypeInsert   = 1 << 2
	TriggerTypeDelete   = 1 << 3
	TriggerTypeUpdate   = 1 << 4
	TriggerTypeTruncate = 1 << 5
	TriggerTypeInstead  = 1 << 6
)

// tgenabled values: O fires unless session_replication_role is replica,
// R only then, A always, D never.
const (
	TriggerEnabledOrigin  = 'O'
	TriggerEnabledAlways  = 'A'
	TriggerEnabledReplica = 'R'
	TriggerDisabled       = 'D'
)

// Trigger is a pg_trigger row.
type Trigger struct {
	OID, RelID, ParentID uint32
	Name                 string
	FuncOID              uint32
	Type                 int16
	Enabled              byte
	Internal             bool
	// ConstrRelID is FROM's table of a constraint trigger, Constraint its
	// pg_constraint row (0: not a constraint trigger).
	ConstrRelID, ConstrIndID, Constraint uint32
	Deferrable, InitDeferred             bool
	Args                                 []string
	Attrs                                []int16 // UPDATE OF's columns
	Qual                                 string  // WHEN condition as SQL text ("": none)
	OldTable, NewTable                   string  // transition table names ("": none)
	tid                                  page.ItemPointer
}

// Fires reports whether the trigger is of this timing (TriggerTypeBefore,
// TriggerTypeInstead or 0 for AFTER), level and event.
func (t *Trigger) Fires(timing int16, row bool, event int16) bool {
	if t.Type&(TriggerTypeBefore|TriggerTypeInstead) != timing {
		return false
	}
	if (t.Type&TriggerTypeRow != 0) != row {
		return false
	}
	return t.Type&event != 0
}

func triggerFromRow(v []types.Datum, tid page.ItemPointer) *Trigger {
	t := &Trigger{
		OID: uint32(v[0].Int()), RelID: uint32(v[1].Int()), ParentID: uint32(v[2].Int()), Name: v[3].Str(),
		FuncOID: uint32(v[4].Int()), Type: int16(v[5].Int()), Enabled: byte(v[6].Int()), Internal: v[7].Bool(),
		ConstrRelID: uint32(v[8].Int()), ConstrIndID: uint32(v[9].Int()), Constraint: uint32(v[10].Int()),
		Deferrable: v[11].Bool(), InitDeferred: v[12].Bool(), Attrs: v[14].Int2Vector(), tid: tid,
	}
	if n := int(v[13].Int()); n > 0 {
		t.Args = strings.SplitN(strings.TrimSuffix(v[15].Str(), "\x00"), "\x00", n)
	}
	if !v[16].IsNull() {
		t.Qual = v[16].Str()
	}
	if !v[17].IsNull() {
		t.OldTable = v[17].Str()
	}
	if !v[18].IsNull() {
		t.NewTable = v[18].Str()
	}
	return t
}

func (t *Trigger) row() []types.Datum {
	var args strings.Builder
	for _, a := range t.Args {
		args.WriteString(a)
		args.WriteByte(0)
	}
	opt := func(s string) types.Datum {
		if s == "" {
			return types.Null()
		}
		return types.Str(s)
	}
	attrs := t.Attrs
	if attrs == nil {
		attrs = []int16{}
	}
	return []types.Datum{
		ov(t.OID), ov(t.RelID), ov(t.ParentID), types.Str(t.Name), ov(t.FuncOID), iv(int64(t.Type)),
		cv(t.Enabled), bv(t.Internal), ov(t.ConstrRelID), ov(t.ConstrIndID), ov(t.Constraint),
		bv(t.Deferrable), bv(t.InitDeferred), iv(int64(len(t.Args))), types.Int2Vector(attrs),
		types.Str(args.String()), opt(t.Qual), opt(t.OldTable), opt(t.NewTable),
	}
}

func (c *Catalog) triggersWhere(tx *Txn, keep func(*Trigger) bool) ([]*Trigger, error) {
	var out []*Trigger
	err := c.scan(tx, PgTrigger, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if t := triggerFromRow(v, tid); keep(t) {
			out = append(out, t)
		}
		return true, nil
	})
	// By name, as PostgreSQL reads them through pg_trigger's
	// (tgrelid, tgname) index; names are bytes, compared as such.
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// loadTriggers fills a table's or view's Triggers.
func (c *Catalog) loadTriggers(tx *Txn, r *Relation) error {
	ts, err := c.triggersWhere(tx, func(t *Trigger) bool { return t.RelID == r.OID })
	r.Triggers = ts
	return err
}

// TriggerByName finds a trigger of table rel; nil if there is none.
func (c *Catalog) TriggerByName(tx *Txn, rel uint32, name string) (*Trigger, error) {
	ts, err := c.triggersWhere(tx, func(t *Trigger) bool { return t.RelID == rel && t.Name == name })
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// TriggerByOID finds a trigger; nil if there is none.
func (c *Catalog) TriggerByOID(tx *Txn, oid uint32) (*Trigger, error) {
	ts, err := c.triggersWhere(tx, func(t *Trigger) bool { return t.OID == oid })
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// AllTriggers lists every trigger.
func (c *Catalog) AllTriggers(tx *Txn) ([]*Trigger, error) {
	return c.triggersWhere(tx, func(*Trigger) bool { return true })
}

// TriggersUsingProc lists the triggers whose function is proc.
func (c *Catalog) TriggersUsingProc(tx *Txn, proc uint32) ([]*Trigger, error) {
	return c.triggersWhere(tx, func(t *Trigger) bool { return t.FuncOID == proc })
}

// CreateTrigger stores trigger t (its OID is assigned), its dependencies
// and the table's relhastriggers.
func (c *Catalog) CreateTrigger(tx *Txn, t *Trigger) error {
	if existing, err := c.TriggerByName(tx, t.RelID, t.Name); err != nil {
		return err
	} else if existing != nil {
		rel, err := c.ByOID(tx, t.RelID)
		if err != nil {
			return err
		}
		return pgerr.Errorf(pgerr.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", t.Name, rel.Name)
	}
	if t.OID == 0 {
		oid, err := c.NewOid()
		if err != nil {
			return err
		}
		t.OID = oid
	}
	if t.Enabled == 0 {
		t.Enabled = TriggerEnabledOrigin
	}
	tid, err := c.insert(tx, PgTrigger, t.row())
	if err != nil {
		return err
	}
	t.tid = tid
	if err := c.addDepend(tx, PgTriggerRelID, t.OID, PgClassRelID, t.RelID, DepAuto); err != nil {
		return err
	}
	if err := c.addDepend(tx, PgTriggerRelID, t.OID, PgProcRelID, t.FuncOID, DepNormal); err != nil {
		return err
	}
	tx.Heap.Cid++
	if err := c.updateClassRow(tx, t.RelID, map[int]types.Datum{PgClass.ColumnIndex("relhastriggers"): bv(true)}); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// ReplaceTrigger rewrites an existing trigger's row (CREATE OR REPLACE
// TRIGGER, RENAME, ENABLE / DISABLE); its OID stays.
func (c *Catalog) ReplaceTrigger(tx *Txn, old, t *Trigger) error {
	t.OID = old.OID
	if _, _, err := c.updateRow(tx, PgTrigger, old.tid, t.row()); err != nil {
		return err
	}
	if t.FuncOID != old.FuncOID {
		if err := c.deleteDepends(tx, func(v []types.Datum) bool {
			return uint32(v[0].Int()) == PgTriggerRelID && uint32(v[1].Int()) == t.OID && uint32(v[3].Int()) == PgProcRelID
		}); err != nil {
			return err
		}
		if err := c.addDepend(tx, PgTriggerRelID, t.OID, PgProcRelID, t.FuncOID, DepNormal); err != nil {
			return err
		}
	}
	tx.Dirty = true
	tx.Heap.Cid++
	return nil
}

// DropTrigger removes a trigger and its dependencies. relhastriggers
// stays set, as in PostgreSQL (VACUUM would clear it there).
func (c *Catalog) DropTrigger(tx *Txn, t *Trigger) error {
	if err := c.delete(tx, PgTrigger, t.tid); err != nil {
		return err
	}
	if err := c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[0].Int()) == PgTriggerRelID && uint32(v[1].Int()) == t.OID
	}); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// dropTriggersOf removes the triggers of relation oid (DROP TABLE / VIEW).
func (c *Catalog) dropTriggersOf(tx *Txn, oid uint32) error {
	ts, err := c.triggersWhere(tx, func(t *Trigger) bool { return t.RelID == oid })
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := c.DropTrigger(tx, t); err != nil {
			return err
		}
	}
	return nil
}
