package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/xact"
)

// Tuple routing (PostgreSQL's execPartition.c): a row inserted into a
// partitioned table goes to the leaf partition its key selects, converted
// to the leaf's column order; a row inserted into a partition directly,
// or updated in one, must satisfy the partition constraint of it and of
// each partitioned ancestor.

// keyOf evaluates d's key on a row of d.rel.
func (d *partDesc) keyOf(c *Ctx, row Row) ([]types.Datum, error) {
	key := make([]types.Datum, len(d.keyExprs))
	for i, e := range d.keyExprs {
		v, err := e.Eval(c.Env, row)
		if err != nil {
			return nil, err
		}
		key[i] = v
	}
	return key, nil
}

// contains: key falls in bound b (not the default).
func (d *partDesc) contains(b *partBound, key []types.Datum) bool {
	switch d.key.Strategy {
	case 'l':
		if key[0].IsNull() {
			return b.listNull
		}
		for _, v := range b.list {
			if types.Compare(d.keyTypes[0], v, key[0]) == 0 {
				return true
			}
		}
		return false
	case 'r':
		for _, k := range key {
			if k.IsNull() {
				return false
			}
		}
		return d.cmpBoundKey(b.lower, key) <= 0 && d.cmpBoundKey(b.upper, key) > 0
	case 'h':
		return partitionHash(d.keyTypes, key)%uint64(b.modulus) == uint64(b.remainder)
	}
	return false
}

// cmpBoundKey compares range bound r with key column by column.
func (d *partDesc) cmpBoundKey(r []rangeDatum, key []types.Datum) int {
	for i, x := range r {
		if x.inf != 0 {
			return x.inf
		}
		if c := types.Compare(d.keyTypes[i], x.val, key[i]); c != 0 {
			return c
		}
	}
	return 0
}

// cmpBounds compares two range bounds.
func (d *partDesc) cmpBounds(a, b []rangeDatum) int {
	for i := range a {
		if a[i].inf != b[i].inf {
			if a[i].inf < b[i].inf {
				return -1
			}
			return 1
		}
		if a[i].inf != 0 {
			return 0
		}
		if c := types.Compare(d.keyTypes[i], a[i].val, b[i].val); c != 0 {
			return c
		}
	}
	return 0
}

// find is the partition for key: the one whose bound holds it, else the
// default, else nil.
func (d *partDesc) find(key []types.Datum) *partBound {
	for _, b := range d.parts {
		if d.contains(b, key) {
			return b
		}
	}
	return d.def
}

// noPartitionError is ExecFindPartition's error for a row no partition
// of d.rel takes.
func (d *partDesc) noPartitionError(key []types.Datum) error {
	names := make([]string, len(key))
	vals := make([]string, len(key))
	for i := range key {
		names[i] = d.keyColName(i)
		if d.key.Attrs[i] == 0 && !strings.HasPrefix(names[i], "(") && !strings.Contains(names[i], "(") {
			names[i] = "(" + names[i] + ")"
		}
		if key[i].IsNull() {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(d.keyTypes[i], key[i])
		}
	}
	return pgerr.Errorf(pgerr.CheckViolation, "no partition of relation \"%s\" found for row", d.rel.Name).
		WithDetail("Partition key of the failing row contains (%s) = (%s).", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// partRouter routes rows of one partitioned table; routers of
// sub-partitioned partitions and ModifyTables of leaves are made on first
// use.
type partRouter struct {
	desc   *partDesc
	top    *ModifyTable
	subs   map[uint32]*partRouter
	leaves map[uint32]*ModifyTable
	maps   map[uint32][]int // parent column i -> partition column
}

func newPartRouter(c *Ctx, top *ModifyTable, rel *catalog.Relation) (*partRouter, error) {
	d, err := loadPartDesc(c, rel)
	if err != nil {
		return nil, err
	}
	return &partRouter{desc: d, top: top, subs: map[uint32]*partRouter{}, leaves: map[uint32]*ModifyTable{}, maps: map[uint32][]int{}}, nil
}

// route finds the leaf for row (in the router's table's layout) and
// converts row to the leaf's layout.
func (r *partRouter) route(c *Ctx, row Row) (*ModifyTable, Row, error) {
	key, err := r.desc.keyOf(c, row)
	if err != nil {
		return nil, nil, err
	}
	b := r.desc.find(key)
	if b == nil {
		return nil, nil, r.desc.noPartitionError(key)
	}
	cm, ok := r.maps[b.rel.OID]
	if !ok {
		cm = columnMap(r.desc.rel, b.rel)
		r.maps[b.rel.OID] = cm
	}
	crow := make(Row, len(b.rel.Attrs))
	for i := range crow {
		crow[i] = types.Null()
	}
	for i, ci := range cm {
		if ci >= 0 {
			crow[ci] = row[i]
		}
	}
	if b.rel.IsPartitioned() {
		sub, ok := r.subs[b.rel.OID]
		if !ok {
			if sub, err = newPartRouter(c, r.top, b.rel); err != nil {
				return nil, nil, err
			}
			r.subs[b.rel.OID] = sub
		}
		return sub.route(c, crow)
	}
	leaf, ok := r.leaves[b.rel.OID]
	if !ok {
		if c.LockRel != nil {
			if err := c.LockRel(b.rel.OID, int(xact.RowExclusiveLock)); err != nil {
				return nil, nil, err
			}
		}
		leaf = &ModifyTable{Kind: "Insert", Rel: b.rel, routedFrom: r.top}
		if err := leaf.openTarget(c); err != nil {
			return nil, nil, err
		}
		r.leaves[b.rel.OID] = leaf
	}
	return leaf, crow, nil
}

func (r *partRouter) forEachLeaf(fn func(*ModifyTable) error) error {
	for _, l := range r.leaves {
		if err := fn(l); err != nil {
			return err
		}
	}
	for _, s := range r.subs {
		if err := s.forEachLeaf(fn); err != nil {
			return err
		}
	}
	return nil
}

// partConstraint is a partition's constraint: its bound in its parent,
// and its parent's, up to the root.
type partConstraint struct {
	levels []partLevel
}

type partLevel struct {
	desc  *partDesc
	bound *partBound
	cmap  []int // parent column i -> column of the checked relation's row
}

// loadPartConstraint builds rel's partition constraint (nil when rel is
// no partition).
func loadPartConstraint(c *Ctx, rel *catalog.Relation) (*partConstraint, error) {
	pc := &partConstraint{}
	child := rel
	for child.IsPartition() && len(child.Parents) == 1 {
		parent, err := c.Eng.Catalog.ByOID(c.Tx, child.Parents[0])
		if err != nil {
			return nil, err
		}
		if parent == nil || !parent.IsPartitioned() {
			break
		}
		d, err := loadPartDesc(c, parent)
		if err != nil {
			return nil, err
		}
		var b *partBound
		for _, x := range append(d.parts, d.def) {
			if x != nil && x.rel.OID == child.OID {
				b = x
			}
		}
		if b == nil {
			break
		}
		pc.levels = append(pc.levels, partLevel{desc: d, bound: b, cmap: columnMap(parent, rel)})
		child = parent
	}
	if len(pc.levels) == 0 {
		return nil, nil
	}
	return pc, nil
}

// holds: row (of the partition's layout) satisfies the constraint.
func (pc *partConstraint) holds(c *Ctx, row Row) (bool, error) {
	for _, l := range pc.levels {
		prow := make(Row, len(l.desc.rel.Attrs))
		for i, ci := range l.cmap {
			if ci >= 0 {
				prow[i] = row[ci]
			} else {
				prow[i] = types.Null()
			}
		}
		key, err := l.desc.keyOf(c, prow)
		if err != nil {
			return false, err
		}
		if !l.bound.isDefault {
			if !l.desc.contains(l.bound, key) {
				return false, nil
			}
			continue
		}
		for _, b := range l.desc.parts {
			if l.desc.contains(b, key) {
				return false, nil
			}
		}
	}
	return true, nil
}

// checkPartition enforces m.Rel's partition constraint on a new row
// version.
func (m *ModifyTable) checkPartition(c *Ctx, row Row) error {
	ok, err := m.partitionHolds(c, row)
	if err != nil || ok {
		return err
	}
	return m.partitionViolation(c, row)
}

func (m *ModifyTable) partitionHolds(c *Ctx, row Row) (bool, error) {
	if !m.Rel.IsPartition() {
		return true, nil
	}
	if !m.partLoaded {
		pc, err := loadPartConstraint(c, m.Rel)
		if err != nil {
			return false, err
		}
		m.partCons, m.partLoaded = pc, true
	}
	if m.partCons == nil {
		return true, nil
	}
	return m.partCons.holds(c, row)
}

func (m *ModifyTable) partitionViolation(c *Ctx, row Row) error {
	return pgerr.Errorf(pgerr.CheckViolation, "new row for relation \"%s\" violates partition constraint", m.Rel.Name).
		WithDetail("Failing row contains %s.", formatRow(m.Rel, row))
}

// insertTarget is the ModifyTable an INSERT's row goes to, and the row
// in its layout: a leaf partition's when m.Rel is partitioned.
func (m *ModifyTable) insertTarget(c *Ctx, row Row) (*ModifyTable, Row, error) {
	if !m.Rel.IsPartitioned() {
		if m.routedFrom == nil {
			if err := m.checkPartition(c, row); err != nil {
				return nil, nil, err
			}
		}
		return m, row, nil
	}
	if m.routedFrom == nil {
		if err := m.checkPartition(c, row); err != nil {
			return nil, nil, err
		}
	}
	if m.router == nil {
		r, err := newPartRouter(c, m, m.Rel)
		if err != nil {
			return nil, nil, err
		}
		m.router = r
	}
	return m.router.route(c, row)
}

// routedDeferredChecks runs the leaves' end-of-statement checks.
// moveRow is an UPDATE whose new row version newRow leaves the partition
// m.Rel: through a partitioned table the row is deleted here and
// inserted where the table routes it (PostgreSQL 11's row movement);
// an UPDATE of the partition itself fails.
func (m *ModifyTable) moveRow(c *Ctx, tid page.ItemPointer, old, newRow Row) (Row, page.ItemPointer, bool, error) {
	top := m.inhParent
	if top == nil || !top.Rel.IsPartitioned() {
		return nil, tid, false, m.partitionViolation(c, newRow)
	}
	prow := make(Row, len(top.Rel.Attrs))
	for i, ci := range m.inhMember.colMap {
		if ci >= 0 {
			prow[i] = newRow[ci]
		} else {
			prow[i] = types.Null()
		}
	}
	// The row may move only within the partitioned table updated.
	if err := top.checkPartition(c, prow); err != nil {
		return nil, tid, false, err
	}
	oc, err := m.Rel.Table.Delete(c.Context, c.U(), c.Tx.Heap, tid)
	if err != nil {
		return nil, tid, false, err
	}
	switch oc.Result {
	case tableam.Ok:
	case tableam.SelfModified, tableam.Invisible:
		return nil, tid, false, nil
	default:
		return nil, tid, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	}
	if err := afterDelete(c, m.Rel, oc); err != nil {
		return nil, tid, false, err
	}
	if _, _, err := top.insertRow(c, prow); err != nil {
		return nil, tid, false, err
	}
	return newRow, tid, true, nil
}

// rootRowDetail shows a routed row's constraint violation with the row as
// the statement's table has it (PostgreSQL reports the root's layout).
func (m *ModifyTable) rootRowDetail(t *ModifyTable, err error, orig Row) error {
	pe, ok := err.(*pgerr.Error)
	if t == m || !ok || !strings.HasPrefix(pe.Detail, "Failing row contains") {
		return err
	}
	pe.Detail = "Failing row contains " + formatRow(m.Rel, orig) + "."
	return pe
}
