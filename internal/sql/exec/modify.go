package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// ModifyTable runs INSERT, UPDATE or DELETE over its input's rows.
type ModifyTable struct {
	nodeBase
	Kind  string // "Insert", "Update", "Delete"
	Rel   *catalog.Relation
	Input Node
	// Update: the new row's columns computed from an input row (which is
	// the old row's columns followed by its TID).
	NewRow []expr.Expr
	// Qual is re-checked on a newer row version after a concurrent update
	// (READ COMMITTED's EvalPlanQual).
	Qual expr.Expr
	// Sys are the system columns the input's rows carry after the
	// table's (EvalPlanQual rebuilds them for a newer row version).
	Sys []sysAttr
	// TargetWidth is how much of an input row is the target table's
	// (columns, system columns, TID last); 0: all of it. Update and
	// delete with FROM / USING have the other items' columns after it.
	TargetWidth int
	Returning   []expr.Expr
	RetCols     []Column
	// Conflict is an INSERT's ON CONFLICT clause (nil: none).
	Conflict *OnConflict
	Alias    string // the target table's alias, if any (EXPLAIN)

	Count    int64
	hot      int64
	inplace  inplaceCount // of the updates, those the AM made in place
	upserted int64        // rows ON CONFLICT DO UPDATE updated
	checks   []checkConstraint
	domains  []*expr.Domain // per column: its domain, compiled (nil: none)
	// viewChecks are the WITH CHECK OPTION conditions of the views the
	// statement went through (viewupdate.go).
	viewChecks []viewCheck
	// after is the statement's after-trigger queue (AFTER triggers and
	// NO ACTION foreign key checks, triggers.go); the members of an
	// inheritance tree or partitioned table and cascaded changes use the
	// statement's (queue).
	after *afterQueue
	// SetCols marks the columns an UPDATE's SET list assigns (UPDATE OF
	// triggers); trig are the table's triggers, loaded at first use.
	SetCols    []bool
	trig       *relTriggers
	trigLoaded bool
	// afterWith are the statement's data-modifying WITH queries, the
	// unread of which run after this, the main statement (modifyingcte.go).
	afterWith []*cteDef
	done      bool
	retRows   []Row
	retI      int
	deformer  tableam.Format
	// inh: UPDATE or DELETE of an inheritance parent routes each row to
	// the ModifyTable of the member it came from (inheritmodify.go);
	// inhParent and inhMember are set on those.
	inh       *inheritTargets
	inhParent *ModifyTable
	inhMember *inhMember
	// Partitioning (partroute.go): router routes an INSERT into a
	// partitioned table; routedFrom is set on the leaves' ModifyTables;
	// partCons is the partition constraint of a partition, loaded once.
	router     *partRouter
	routedFrom *ModifyTable
	partCons   *partConstraint
	partLoaded bool
}

func (m *ModifyTable) Columns() []Column { return m.RetCols }

func (m *ModifyTable) Open(c *Ctx) error {
	if err := m.openTarget(c); err != nil {
		return err
	}
	if err := m.inh.open(c); err != nil {
		return err
	}
	xid, err := c.Eng.Xact.AssignXid(c.Tx.Heap.Proc)
	if err != nil {
		return err
	}
	c.Tx.Heap.Xid = xid
	if err := m.statementTriggers(c, catalog.TriggerTypeBefore); err != nil {
		return err
	}
	return Open(c, m.Input)
}

// openTarget resets the execution state of the table's changes.
func (m *ModifyTable) openTarget(c *Ctx) error {
	m.done, m.Count, m.hot, m.inplace, m.retRows, m.retI, m.upserted = false, 0, 0, inplaceCount{}, nil, 0, 0
	m.after, m.trig, m.trigLoaded = nil, nil, false
	m.router, m.partCons, m.partLoaded = nil, nil, false
	m.deformer = m.Rel.NewDeformerFor(c.Context, c.U())
	return m.prepareConstraints(c)
}

func (m *ModifyTable) Close(c *Ctx) { Close(c, m.Input) }

func (m *ModifyTable) Next(c *Ctx) (Row, error) {
	if !m.done {
		m.done = true
		err := m.run(c)
		if m.inh != nil {
			for _, sub := range m.inh.subs {
				sub.reportStats(c)
			}
		} else {
			m.reportStats(c)
		}
		if m.router != nil {
			_ = m.router.forEachLeaf(func(l *ModifyTable) error { l.reportStats(c); return nil })
		}
		if err == nil {
			err = runUnread(c, m.afterWith)
		}
		if err != nil {
			return nil, err
		}
	}
	if m.retI < len(m.retRows) {
		m.retI++
		return m.retRows[m.retI-1], nil
	}
	return nil, nil
}

// reportStats counts the rows changed in the table's statistics.
func (m *ModifyTable) reportStats(c *Ctx) {
	switch m.Kind {
	case "Insert":
		c.Eng.Stats.Modified(m.Rel.OID, m.Count-m.upserted, m.upserted, m.hot, 0)
	case "Update":
		c.Eng.Stats.Modified(m.Rel.OID, 0, m.Count, m.hot, 0)
	case "Delete":
		c.Eng.Stats.Modified(m.Rel.OID, 0, 0, 0, m.Count)
	}
	if m.inplace.rows != 0 {
		c.Eng.Stats.UpdatedInPlace(m.Rel.OID, m.inplace.rows, m.inplace.keyChanged)
	}
}

func (m *ModifyTable) run(c *Ctx) error {
	natts := len(m.Rel.Attrs)
	for {
		if err := c.checkCancel(); err != nil {
			return err
		}
		in, err := Next(c, m.Input)
		if err != nil {
			return err
		}
		if in == nil {
			if err := m.statementTriggers(c, 0); err != nil {
				return err
			}
			return m.queue().fireAll(c)
		}
		var out Row
		switch {
		case m.Rel.Kind == catalog.KindView:
			row, ok, err := m.insteadRow(c, in)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			out = row
		case m.Kind == "Insert":
			if m.Conflict != nil {
				row, ok, err := m.beforeRow(c, catalog.TriggerTypeInsert, nil, in[:natts])
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				if err := m.checkNotNull(c, row); err != nil {
					return err
				}
				if err := m.checkRow(c, row); err != nil {
					return err
				}
				if m.Rel.IsPartitioned() {
					return pgerr.Errorf(pgerr.FeatureNotSupported, "ON CONFLICT on a partitioned table is not supported yet")
				}
				if err := m.checkPartition(c, row); err != nil {
					return err
				}
				res, ok, err := m.insertOnConflict(c, row)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				out = res
				break
			}
			row, ok, err := m.insertRow(c, in[:natts])
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			out = row
		case m.Kind == "Update":
			t, tin, err := m.route(c, in)
			if err != nil {
				return err
			}
			row, ntid, ok, err := t.update(c, tin)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			out = row
			if m.Returning != nil && len(tin) > len(t.Rel.Attrs) {
				out = t.parentRow(t.updatedRow(c, row, tin, ntid))
			}
			t.countRow(m)
		case m.Kind == "Delete":
			t, tin, err := m.route(c, in)
			if err != nil {
				return err
			}
			row, ok, err := t.delete(c, tin)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			out = row
			if t != m {
				out = in
			}
			t.countRow(m)
		}
		m.Count++
		if m.Returning != nil {
			r := make(Row, len(m.Returning))
			for i, e := range m.Returning {
				if r[i], err = e.Eval(c.Env, out); err != nil {
					return err
				}
			}
			m.retRows = append(m.retRows, r)
		}
	}
}

// insertRow inserts row (in m.Rel's layout), routed to its partition
// when m.Rel is partitioned, after the BEFORE ROW triggers of the table
// it goes in. It returns the row inserted (in m.Rel's layout when that is
// the table; as given when routed) and false when a trigger skipped it.
func (m *ModifyTable) insertRow(c *Ctx, row Row) (Row, bool, error) {
	orig := row
	t, row, err := m.insertTarget(c, row)
	if err != nil {
		return nil, false, err
	}
	row, ok, err := t.beforeRow(c, catalog.TriggerTypeInsert, nil, row)
	if err != nil || !ok {
		return nil, false, err
	}
	if t == m {
		orig = row
	}
	if err := m.insertChecked(c, t, row, orig); err != nil {
		return nil, false, err
	}
	return orig, true, nil
}

// insertChecked inserts row into t (m itself or a partition) after its
// constraint checks; orig is the row in m's layout, for errors.
func (m *ModifyTable) insertChecked(c *Ctx, t *ModifyTable, row, orig Row) error {
	if t != m {
		// The statement's columns coerce to their domains, whatever the
		// partition's columns say.
		if err := m.checkDomains(c, orig); err != nil {
			return err
		}
	}
	if err := t.checkNotNull(c, row); err != nil {
		return m.rootRowDetail(t, err, orig)
	}
	if err := t.checkRow(c, row); err != nil {
		return m.rootRowDetail(t, err, orig)
	}
	sr, err := formRow(c, t.Rel, t.deformer, row, nil)
	if err != nil {
		return err
	}
	tid, err := t.Rel.Table.Insert(c.U(), c.Tx.Heap, sr.tup, nil)
	if err != nil {
		return err
	}
	if err := insertIndexEntries(c, t.Rel, row, tid); err != nil {
		return err
	}
	if t != m {
		t.Count++
	}
	if err := t.checkForeignKeys(c, row, nil); err != nil {
		return err
	}
	return t.afterRow(c, catalog.TriggerTypeInsert, nil, row)
}

func (m *ModifyTable) checkNotNull(c *Ctx, row Row) error {
	if err := m.checkDomains(c, row); err != nil {
		return err
	}
	for i, a := range m.Rel.Attrs {
		if a.NotNull && row[i].IsNull() {
			return pgerr.Errorf(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", a.Name, m.Rel.Name).
				WithDetail("Failing row contains %s.", formatRow(m.Rel, row)).
				WithColumn(nspName(c.Eng.Catalog, m.Rel.Namespace), m.Rel.Name, a.Name)
		}
	}
	return nil
}

func formatRow(rel *catalog.Relation, row Row) string {
	parts := make([]string, 0, len(rel.Attrs))
	for i, a := range rel.Attrs {
		switch {
		case a.Dropped:
		case row[i].IsNull():
			parts = append(parts, "null")
		default:
			parts = append(parts, types.FormatText(a.Type, row[i]))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// targetWidth is how much of an input row is the target table's, its TID
// last.
func (m *ModifyTable) targetWidth(in Row) int {
	if m.TargetWidth > 0 {
		return m.TargetWidth
	}
	return len(in)
}

// latest follows a concurrently updated row to its newest version and
// re-checks the statement's qual on it (EvalPlanQual), with the input row
// in's other items (UPDATE … FROM, DELETE … USING) as they were. ok=false:
// the row is gone or no longer qualifies.
func (m *ModifyTable) latest(c *Ctx, tid page.ItemPointer, in Row) (Row, page.ItemPointer, bool, error) {
	t, ntid, ok, err := m.Rel.Table.FetchLatest(c.U(), c.Tx.Heap, tid)
	if err != nil || !ok {
		return nil, ntid, false, err
	}
	row, err := scanRow(m.deformer, len(m.Rel.Attrs), m.Sys, m.Rel, true, t, ntid)
	if err != nil {
		return nil, ntid, false, err
	}
	row = append(row, in[m.targetWidth(in):]...)
	if qual, qrow := m.recheck(row); qual != nil {
		ok, err := expr.IsTrue(c.Env, qual, qrow)
		if err != nil || !ok {
			return nil, ntid, false, err
		}
	}
	return row, ntid, true, nil
}

// update replaces the target row of input row in; it returns the new row
// version's columns and TID. ok=false: the row was not updated (gone, or
// already updated by this command: a row joined to several FROM rows is
// updated once).
func (m *ModifyTable) update(c *Ctx, in Row) (Row, page.ItemPointer, bool, error) {
	tid := DatumTID(in[m.targetWidth(in)-1])
	old := in
	for attempt := 0; attempt < 100; attempt++ {
		newRow, err := m.newRow(c, old)
		if err != nil {
			return nil, tid, false, err
		}
		natts := len(m.Rel.Attrs)
		newRow, ok, err := m.beforeRow(c, catalog.TriggerTypeUpdate, old[:natts], newRow)
		if err != nil || !ok {
			return nil, tid, false, err
		}
		if err := m.checkNotNull(c, newRow); err != nil {
			return nil, tid, false, err
		}
		if err := m.checkRow(c, newRow); err != nil {
			return nil, tid, false, err
		}
		if ok, err := m.partitionHolds(c, newRow); err != nil {
			return nil, tid, false, err
		} else if !ok {
			return m.moveRow(c, tid, old, newRow)
		}
		oc, ntid, err := m.replaceRow(c, tid, old, newRow)
		if err != nil {
			return nil, tid, false, err
		}
		switch oc.Result {
		case tableam.Ok:
			if err := m.afterRow(c, catalog.TriggerTypeUpdate, old[:natts], newRow); err != nil {
				return nil, tid, false, err
			}
			return newRow, ntid, true, nil
		case tableam.Deleted:
			if c.repeatableRead() {
				return nil, tid, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent delete")
			}
			return nil, tid, false, nil
		case tableam.SelfModified, tableam.Invisible:
			return nil, tid, false, nil
		case tableam.Updated:
			if err := c.serializationCheck(); err != nil {
				return nil, tid, false, err
			}
			row, ntid, ok, err := m.latest(c, oc.Ctid, in)
			if err != nil || !ok {
				return nil, tid, false, err
			}
			old, tid = row, ntid
		}
	}
	return nil, tid, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
}

// updatedRow is what RETURNING sees of an updated row: the new version's
// columns and system columns, then the rest of the input row in.
func (m *ModifyTable) updatedRow(c *Ctx, newRow, in Row, ntid page.ItemPointer) Row {
	natts := len(m.Rel.Attrs)
	out := make(Row, len(in))
	copy(out, newRow)
	copy(out[natts:], in[natts:])
	fillNewSysAttrs(out[natts:], m.Sys, m.Rel, c.Tx.Heap, ntid)
	return out
}

// replaceRow writes newRow as the new version of the row version at tid
// (whose columns are old) and makes the index entries the table's access
// method says it needs (none for a HOT update). A non-Ok outcome means
// nothing was written; otherwise it returns the new version's TID.
func (m *ModifyTable) replaceRow(c *Ctx, tid page.ItemPointer, old, newRow Row) (tableam.Outcome, page.ItemPointer, error) {
	hint := tableam.UpdateHint{KeysUpdated: keysChanged(m.Rel, old, newRow)}
	for i, ix := range m.Rel.Indexes {
		for _, k := range ix.Index.Keys {
			a, b := old[k-1], newRow[k-1]
			if a.IsNull() != b.IsNull() || (!a.IsNull() && !types.Equal(m.Rel.Attrs[k-1].Type, a, b)) {
				hint.MarkIndexChanged(i)
				break
			}
		}
	}
	sr, err := formRow(c, m.Rel, m.deformer, newRow, old)
	if err != nil {
		return tableam.Outcome{}, page.ItemPointer{}, err
	}
	res, err := m.Rel.Table.Update(c.Context, c.U(), c.Tx.Heap, tid, sr.tup, hint)
	oc, ntid := res.Outcome, res.NewTID
	if err != nil {
		return oc, ntid, err
	}
	if oc.Result != tableam.Ok {
		return oc, ntid, sr.discard(c, m.Rel)
	}
	if err := sr.afterUpdate(c, m.Rel, oc); err != nil {
		return oc, ntid, err
	}
	switch res.Kind {
	case tableam.UpdateHOT:
		m.hot++
	case tableam.UpdateInPlace:
		m.inplace.count(hint)
		if err := updateChangedIndexEntries(c, m.Rel, old, newRow, ntid, hint); err != nil {
			return oc, ntid, err
		}
	default:
		if err := insertIndexEntriesUpdated(c, m.Rel, newRow, ntid, hint); err != nil {
			return oc, ntid, err
		}
	}
	if err := m.checkForeignKeys(c, newRow, old); err != nil {
		return oc, ntid, err
	}
	return oc, ntid, m.checkReferencedBy(c, old, newRow)
}

func (m *ModifyTable) delete(c *Ctx, in Row) (Row, bool, error) {
	tid := DatumTID(in[m.targetWidth(in)-1])
	old := in
	natts := len(m.Rel.Attrs)
	for attempt := 0; attempt < 100; attempt++ {
		if _, ok, err := m.beforeRow(c, catalog.TriggerTypeDelete, old[:natts], nil); err != nil || !ok {
			return nil, false, err
		}
		oc, err := m.Rel.Table.Delete(c.Context, c.U(), c.Tx.Heap, tid)
		if err != nil {
			return nil, false, err
		}
		switch oc.Result {
		case tableam.Ok:
			if err := afterDelete(c, m.Rel, oc); err != nil {
				return nil, false, err
			}
			if err := m.checkReferencedBy(c, old, nil); err != nil {
				return nil, false, err
			}
			if err := m.afterRow(c, catalog.TriggerTypeDelete, old[:natts], nil); err != nil {
				return nil, false, err
			}
			return old, true, nil
		case tableam.Deleted:
			if c.repeatableRead() {
				return nil, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent delete")
			}
			return nil, false, nil
		case tableam.SelfModified, tableam.Invisible:
			return nil, false, nil
		case tableam.Updated:
			if err := c.serializationCheck(); err != nil {
				return nil, false, err
			}
			row, ntid, ok, err := m.latest(c, oc.Ctid, in)
			if err != nil || !ok {
				return nil, false, err
			}
			old, tid = row, ntid
		}
	}
	return nil, false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent delete")
}

// serializationCheck: REPEATABLE READ and SERIALIZABLE transactions may not
// modify a row that was concurrently updated.
func (c *Ctx) serializationCheck() error {
	if c.repeatableRead() {
		return pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	}
	return nil
}

// repeatableRead: the level reads with one transaction snapshot
// (IsolationUsesXactSnapshot): REPEATABLE READ or SERIALIZABLE.
func (c *Ctx) repeatableRead() bool {
	if c.Setting == nil {
		return false
	}
	v := c.Setting("transaction_isolation")
	return strings.HasPrefix(v, "repeatable") || v == "serializable"
}
