package exec

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// OnConflict is the ON CONFLICT clause of an INSERT.
//
// Insertion is speculative, as in PostgreSQL: the arbiter indexes are first
// searched for a row with the proposed key (waiting for transactions that
// are inserting or deleting one); only when none is found is the row
// inserted, and if a concurrent inserter got there in between, the unique
// check of an arbiter index sees it (waiting for it to commit), the
// insertion withdraws its own row (a delete by the inserting transaction,
// which makes it dead to everyone) and starts over, now finding the
// committed row. So two sessions upserting one key never both insert and
// never report a unique violation.
//
// One simplification against PostgreSQL: PostgreSQL's speculative
// insertion token lets a waiter wait for just the insertion to be
// confirmed or withdrawn; tidal's waiters wait for the inserting
// transaction to end.
type OnConflict struct {
	DoUpdate bool
	// Arbiters are the unique indexes whose conflicts the clause handles.
	// With no conflict target (DO NOTHING only) every unique index is one,
	// and Inferred is false (EXPLAIN prints no arbiter list then).
	Arbiters []*catalog.Relation
	Inferred bool
	// Set computes the updated row from the existing row's columns followed
	// by the proposed row's (EXCLUDED) columns; Where filters on the same.
	Set   []expr.Expr
	Where expr.Expr
}

func (oc *OnConflict) isArbiter(ir *catalog.Relation) bool {
	for _, a := range oc.Arbiters {
		if a == ir {
			return true
		}
	}
	return false
}

// planOnConflict analyses the ON CONFLICT clause of an INSERT into rel;
// refname is the name the target table goes by (its alias, if any).
func (p *Planner) planOnConflict(rel *catalog.Relation, refname string, cl *pg.OnConflictClause) (*OnConflict, error) {
	oc := &OnConflict{DoUpdate: cl.Action == pg.OnConflictAction_ONCONFLICT_UPDATE}
	switch {
	case cl.Infer == nil:
		if oc.DoUpdate {
			e := pgerr.Errorf(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
				WithHint("For example, ON CONFLICT (column_name).")
			e.Position = cl.Location + 1
			return nil, e
		}
		for _, ir := range rel.Indexes {
			if ir.Index.Unique {
				oc.Arbiters = append(oc.Arbiters, ir)
			}
		}
	case cl.Infer.Conname != "":
		ir, err := p.constraintIndex(rel, cl.Infer.Conname)
		if err != nil {
			return nil, err
		}
		oc.Arbiters, oc.Inferred = []*catalog.Relation{ir}, true
	default:
		want := map[int16]bool{}
		for _, n := range cl.Infer.IndexElems {
			el := n.GetIndexElem()
			if el == nil || el.Name == "" {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "ON CONFLICT inference on expressions is not supported yet")
			}
			i := rel.AttrByName(el.Name)
			if i < 0 {
				return nil, pgerr.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", el.Name)
			}
			want[rel.Attrs[i].Num] = true
			p.noteColumnRead(rel.OID, rel.Attrs[i].Num) // inference reads the column
		}
		// A unique index is an arbiter when its key columns are exactly
		// the target's. (tidal has no partial indexes, so a WHERE on the
		// target never rules an index out: PostgreSQL also infers
		// non-partial indexes whatever the WHERE says.)
		for _, ir := range rel.Indexes {
			if !ir.Index.Unique || len(ir.Index.Keys) == 0 {
				continue
			}
			keys := map[int16]bool{}
			for _, k := range ir.Index.Keys {
				keys[k] = true
			}
			same := len(keys) == len(want)
			for k := range want {
				same = same && keys[k]
			}
			if same {
				oc.Arbiters = append(oc.Arbiters, ir)
			}
		}
		if len(oc.Arbiters) == 0 {
			return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
		oc.Inferred = true
	}
	if !oc.DoUpdate {
		return oc, nil
	}
	// DO UPDATE SET … WHERE …: the target table's columns, then EXCLUDED's.
	n := len(rel.Attrs)
	sc := &scope{qualify: true} // two relations: EXPLAIN qualifies names
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol(refname, a, a.Name, i))
	}
	for i, a := range rel.Attrs {
		sc.cols = append(sc.cols, tableScopeCol("excluded", a, a.Name, n+i))
	}
	comp := p.compiler(sc)
	var err error
	if oc.Set, err = p.setTargets(rel, sc, cl.TargetList); err != nil {
		return nil, err
	}
	if cl.WhereClause != nil {
		w, err := comp.Compile(cl.WhereClause)
		if err != nil {
			return nil, err
		}
		if oc.Where, err = coerceBoolArg("WHERE", w); err != nil {
			return nil, err
		}
	}
	return oc, nil
}

// constraintIndex is the index of rel's primary key or unique constraint
// called name (ON CONFLICT ON CONSTRAINT).
func (p *Planner) constraintIndex(rel *catalog.Relation, name string) (*catalog.Relation, error) {
	if k := rel.ConstraintByName(name); k != nil && (k.Type == catalog.ConPrimary || k.Type == catalog.ConUnique) {
		for _, ir := range rel.Indexes {
			if ir.OID == k.IndexID {
				return ir, nil
			}
		}
	}
	return nil, pgerr.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, rel.Name)
}

// explainLines are the ON CONFLICT lines of EXPLAIN under the Insert node.
func (oc *OnConflict) explainLines() []string {
	res := "NOTHING"
	if oc.DoUpdate {
		res = "UPDATE"
	}
	out := []string{"Conflict Resolution: " + res}
	if oc.Inferred {
		var names []string
		for _, a := range oc.Arbiters {
			names = append(names, a.Name)
		}
		sort.Strings(names)
		out = append(out, "Conflict Arbiter Indexes: "+strings.Join(names, ", "))
	}
	if oc.Where != nil {
		out = append(out, "Conflict Filter: "+oc.Where.String())
	}
	return out
}

// insertOnConflict inserts row or resolves its conflict. ok=false: nothing
// was inserted or updated (DO NOTHING, or DO UPDATE's WHERE said no);
// otherwise out is the inserted or updated row.
func (m *ModifyTable) insertOnConflict(c *Ctx, row Row) (out Row, ok bool, err error) {
	oc := m.Conflict
	for {
		if err := c.checkCancel(); err != nil {
			return nil, false, err
		}
		tid, found, err := m.findConflict(c, row)
		if err != nil {
			return nil, false, err
		}
		if found {
			if !oc.DoUpdate {
				return nil, false, m.checkConflictVisible(c, tid)
			}
			out, ok, retry, err := m.conflictUpdate(c, row, tid)
			if retry {
				continue
			}
			return out, ok, err
		}
		sr, err := formRow(c, m.Rel, m.deformer, row, nil)
		if err != nil {
			return nil, false, err
		}
		newTid, err := m.Rel.Table.Insert(c.U(), c.Tx.Heap, sr.tup, nil)
		if err != nil {
			return nil, false, err
		}
		conflicted, err := insertIndexEntriesArbitrated(c, m.Rel, row, newTid, oc.isArbiter)
		if err != nil {
			return nil, false, err
		}
		if !conflicted {
			if err := m.checkForeignKeys(c, row, nil); err != nil {
				return nil, false, err
			}
			return row, true, m.afterRow(c, catalog.TriggerTypeInsert, nil, row)
		}
		// A concurrent inserter won the race: withdraw our row (dead to
		// everyone once deleted by its own inserter) and look again.
		res, err := m.Rel.Table.DeleteOwn(c.Context, c.U(), c.Tx.Heap, newTid)
		if err != nil {
			return nil, false, err
		}
		if res.Result != tableam.Ok {
			return nil, false, pgerr.Errorf(pgerr.InternalError, "could not withdraw speculatively inserted row %s", newTid)
		}
		if err := afterDelete(c, m.Rel, res); err != nil {
			return nil, false, err
		}
	}
}

// findConflict searches the arbiter indexes for a live row with row's key,
// waiting for any transaction that is inserting or deleting one (a dirty
// snapshot's view, as PostgreSQL's check_exclusion_or_unique_constraint).
func (m *ModifyTable) findConflict(c *Ctx, row Row) (page.ItemPointer, bool, error) {
restart:
	for _, ir := range m.Conflict.Arbiters {
		key := indexKey(ir, row)
		hasNull := false
		for _, k := range key {
			hasNull = hasNull || k.IsNull()
		}
		if hasNull {
			continue // NULLs never conflict
		}
		cur := IndexHandle(c.Eng, m.Rel, ir).ScanEqual(c.U(), key)
		var tids []page.ItemPointer
		for {
			tid, _, ok, err := cur.Next()
			if err != nil {
				cur.Close()
				return page.ItemPointer{}, false, err
			}
			if !ok {
				break
			}
			tids = append(tids, tid)
		}
		cur.Close()
		for _, tid := range tids {
			st, xid, live, err := uniqueEntryState(c, m.Rel, ir, key, tid)
			if err != nil {
				return page.ItemPointer{}, false, err
			}
			switch st {
			case tableam.RowLive:
				return live, true, nil
			case tableam.RowInFlight:
				if err := c.Eng.Xact.WaitForXid(c.Context, c.Tx.Heap.Proc, xid); err != nil {
					return page.ItemPointer{}, false, err
				}
				goto restart
			}
		}
	}
	return page.ItemPointer{}, false, nil
}

// checkConflictVisible: under REPEATABLE READ, a conflicting row the
// transaction's snapshot cannot see (committed after it began) is a
// serialization failure, not something to silently skip or update.
func (m *ModifyTable) checkConflictVisible(c *Ctx, tid page.ItemPointer) error {
	if !c.repeatableRead() {
		return nil
	}
	t, _, ok, err := m.Rel.Table.FetchLatest(c.U(), c.Tx.Heap, tid)
	if err != nil || !ok {
		return err
	}
	return m.checkTupleVisible(c, t)
}

func (m *ModifyTable) checkTupleVisible(c *Ctx, t tableam.Tuple) error {
	if !c.repeatableRead() || m.Rel.Table.TupleVisible(t, c.Tx.Heap) {
		return nil
	}
	if c.Tx.Heap.IsCurrent(m.deformer.System(t).Xmin) {
		return nil // our own row, inserted by this very command
	}
	return pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
}

// conflictUpdate is DO UPDATE on the conflicting row version at tid: lock
// it, re-read it, check the WHERE, update it. retry=true: the row changed
// under us (READ COMMITTED); the caller starts over from the index search.
func (m *ModifyTable) conflictUpdate(c *Ctx, proposed Row, tid page.ItemPointer) (out Row, ok, retry bool, err error) {
	oc := m.Conflict
	natts := len(m.Rel.Attrs)
	cur, _, found, err := m.Rel.Table.FetchLatest(c.U(), c.Tx.Heap, tid)
	if err != nil {
		return nil, false, false, err
	}
	if !found {
		return nil, false, true, nil
	}
	if m.Rel.Table.InsertedByCommand(cur, c.Tx.Heap) {
		return nil, false, false, pgerr.Errorf(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	res, err := m.Rel.Table.Lock(c.Context, c.U(), c.Tx.Heap, tid, m.conflictLockMode(), tableam.WaitBlock, false)
	if err != nil {
		return nil, false, false, err
	}
	switch res.Result {
	case tableam.Ok:
	case tableam.Updated, tableam.Deleted, tableam.Invisible:
		if err := c.serializationCheck(); err != nil {
			return nil, false, false, err
		}
		return nil, false, true, nil
	default:
		return nil, false, false, pgerr.Errorf(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	// Locked: this version is the latest and stays so until we end.
	cur, _, found, err = m.Rel.Table.FetchLatest(c.U(), c.Tx.Heap, tid)
	if err != nil || !found {
		return nil, false, !found, err
	}
	if err := m.checkTupleVisible(c, cur); err != nil {
		return nil, false, false, err
	}
	both := make(Row, 2*natts)
	if err := m.deformer.Deform(cur, both[:natts]); err != nil {
		return nil, false, false, err
	}
	copy(both[natts:], proposed)
	if oc.Where != nil {
		pass, err := expr.IsTrue(c.Env, oc.Where, both)
		if err != nil || !pass {
			return nil, false, false, err
		}
	}
	newRow := make(Row, natts)
	for i, e := range oc.Set {
		if newRow[i], err = e.Eval(c.Env, both); err != nil {
			return nil, false, false, err
		}
	}
	newRow, ok, err = m.beforeRow(c, catalog.TriggerTypeUpdate, both[:natts], newRow)
	if err != nil || !ok {
		return nil, false, false, err
	}
	if err := m.checkNotNull(c, newRow); err != nil {
		return nil, false, false, err
	}
	if err := m.checkRow(c, newRow); err != nil {
		return nil, false, false, err
	}
	r, _, err := m.replaceRow(c, tid, both[:natts], newRow)
	if err != nil {
		return nil, false, false, err
	}
	if r.Result != tableam.Ok {
		return nil, false, false, pgerr.Errorf(pgerr.InternalError, "locked row %s changed before its ON CONFLICT update (%d)", tid, r.Result)
	}
	m.upserted++
	return newRow, true, false, m.afterRow(c, catalog.TriggerTypeUpdate, both[:natts], newRow)
}
