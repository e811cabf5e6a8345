package exec

import (
	"errors"
	"github.com/tidal-db/tidal/internal/access/indexam"
	"github.com/tidal-db/tidal/internal/pgerr"

	"github.com/tidal-db/tidal/internal/access/btree"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/engine"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// IndexHandle returns the shared btree handle of an index.
func IndexHandle(e *engine.Engine, rel, ir *catalog.Relation) *btree.Index {
	return e.Catalog.IndexFor(rel, ir)
}

// ForgetIndex drops a cached handle (the index was dropped or rebuilt).
func ForgetIndex(e *engine.Engine, relfilenode uint32) { e.Catalog.ForgetHeap(relfilenode) }

func indexKey(ir *catalog.Relation, row Row) []types.Datum {
	k := make([]types.Datum, len(ir.Index.Keys))
	for i, a := range ir.Index.Keys {
		k[i] = row[a-1]
	}
	return k
}

// insertIndexEntries adds row's entries to every index of rel, checking
// uniqueness (and waiting for in-progress inserters as PostgreSQL does).
func insertIndexEntries(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer) error {
	_, err := insertIndexEntriesArbitrated(c, rel, row, tid, nil)
	return err
}

// insertIndexEntriesArbitrated is insertIndexEntries for a speculative
// insertion (INSERT … ON CONFLICT): a conflict in an index that arbiter
// accepts is not an error but stops the insertion and returns
// conflicted=true, so the caller can withdraw its row and handle the
// conflict. Conflicts in other unique indexes are errors as usual.
func insertIndexEntriesArbitrated(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer, arbiter func(ir *catalog.Relation) bool) (conflicted bool, err error) {
	return insertIndexEntriesWhere(c, rel, row, tid, arbiter, nil)
}

// updateChangedIndexEntries is the index side of an in-place update
// (tableam.UpdateInPlace): the row kept its TID, so only the indexes whose
// key changed (hint) change: each gets the new key, and its entry for the
// old key is delete-marked, for older snapshots still see that key there.
func updateChangedIndexEntries(c *Ctx, rel *catalog.Relation, old, newRow Row, tid page.ItemPointer, hint tableam.UpdateHint) error {
	for i, ir := range rel.Indexes {
		if !hint.IndexChanged(i) {
			continue
		}
		dm, ok := any(IndexHandle(c.Eng, rel, ir)).(indexam.DeleteMarker)
		if !ok {
			return pgerr.Errorf(pgerr.FeatureNotSupported, "index \"%s\" cannot delete-mark entries, which an in-place update of \"%s\" needs", ir.Name, rel.Name)
		}
		if err := dm.MarkDeleted(c.U(), c.Tx.Heap.Xid, indexKey(ir, old), tid); err != nil {
			return err
		}
	}
	// The new key's entry is marked too: if the update rolls back, VACUUM
	// finds it (btree README "Delete-marking").
	_, err := insertIndexEntriesMarked(c, rel, newRow, tid, hint.IndexChanged)
	return err
}

// insertIndexEntriesWhere inserts row's entries into the indexes for which
// want (by position in rel.Indexes; nil: all) is true.
func insertIndexEntriesWhere(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer, arbiter func(ir *catalog.Relation) bool, want func(i int) bool) (conflicted bool, err error) {
	return insertEntries(c, rel, row, tid, arbiter, want, false, nil)
}

// insertIndexEntriesUpdated is insertIndexEntries for the new version of
// a non-HOT update: the indexes whose key the update left alone get
// btree's Unchanged hint, so a full leaf first tries to delete the
// entries of dead versions of the same rows (bottom-up deletion).
func insertIndexEntriesUpdated(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer, hint tableam.UpdateHint) error {
	_, err := insertEntries(c, rel, row, tid, nil, nil, false, func(i int) bool { return !hint.IndexChanged(i) })
	return err
}

// insertIndexEntriesMarked is insertIndexEntriesWhere of delete-marked
// entries (an in-place update's new keys).
func insertIndexEntriesMarked(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer, want func(i int) bool) (conflicted bool, err error) {
	return insertEntries(c, rel, row, tid, nil, want, true, nil)
}

func insertEntries(c *Ctx, rel *catalog.Relation, row Row, tid page.ItemPointer, arbiter func(ir *catalog.Relation) bool, want func(i int) bool, marked bool, unchanged func(i int) bool) (conflicted bool, err error) {
	var hints btree.InsertHints
	if !marked {
		// Whether an entry's row versions are all dead, for deleting
		// entries instead of splitting a full leaf (IndexEntryDead at the
		// current horizon, as heap_index_delete_tuples).
		horizon := c.Eng.Xact.OldestXmin()
		hints.EntryDead = func(t page.ItemPointer) (bool, error) { return rel.Table.IndexEntryDead(c.U(), t, horizon) }
	}
	for i, ir := range rel.Indexes {
		if want != nil && !want(i) {
			continue
		}
		ix := IndexHandle(c.Eng, rel, ir)
		key := indexKey(ir, row)
		var check btree.UniqueCheck
		isArbiter := arbiter != nil && arbiter(ir)
		hit := false
		if ir.Index.Unique {
			check = func(t page.ItemPointer) (btree.UniqueVerdict, error) {
				st, xid, _, err := uniqueEntryState(c, rel, ir, key, t)
				if err != nil {
					return btree.UniqueVerdict{}, err
				}
				switch st {
				case tableam.RowLive:
					hit = true
					return btree.UniqueVerdict{Kind: btree.VerdictConflict}, nil
				case tableam.RowInFlight:
					return btree.UniqueVerdict{Kind: btree.VerdictWait, Xid: xid}, nil
				}
				return btree.UniqueVerdict{Kind: btree.VerdictDead}, nil
			}
		}
		for {
			var err error
			if marked {
				err = ix.InsertMarked(c.U(), c.Tx.Heap.SSI, c.Tx.Heap.Xid, key, tid, check)
			} else {
				hints.Unchanged = unchanged != nil && unchanged(i)
				err = ix.InsertWith(c.U(), c.Tx.Heap.SSI, c.Tx.Heap.Xid, key, tid, check, &hints)
			}
			var w *btree.WaitError
			if errors.As(err, &w) {
				if err := c.Eng.Xact.WaitForXid(c.Context, c.Tx.Heap.Proc, w.Xid); err != nil {
					return false, err
				}
				continue
			}
			if err != nil && hit && isArbiter {
				return true, nil
			}
			if err != nil {
				return false, constraintError(c, err, rel, ir.Name)
			}
			break
		}
	}
	return false, nil
}

// IndexScan reads the rows whose index keys fall in a range, in key order.
type IndexScan struct {
	nodeBase
	Rel     *catalog.Relation
	Alias   string // the table's name in the query, if not its own
	Index   *catalog.Relation
	Lower   []expr.Expr // key prefix values, nil = unbounded
	LowerIn bool
	Upper   []expr.Expr
	UpperIn bool
	Cond    string // Index Cond as EXPLAIN prints it
	Qual    expr.Expr
	Sys     []sysAttr // system columns after the table's (syscols.go)
	WithTID bool

	cur     *btree.Cursor
	ix      *btree.Index
	recheck bool          // the AM may change keys in place (tableam.InPlaceUpdates)
	keys    []types.Datum // the current entry's key, when rechecking
	def     tableam.Format
	natts   int
	lastTID page.ItemPointer // of the row returned last (WHERE CURRENT OF)
	// entries and fetched count index entries read and live rows fetched
	// through them (pg_stat_all_indexes.idx_tup_read, idx_tup_fetch).
	entries, fetched int64
}

func (s *IndexScan) Columns() []Column { return tableColumns(s.Rel, s.Sys, s.WithTID) }

func evalKeys(c *Ctx, es []expr.Expr) ([]types.Datum, bool, error) {
	out := make([]types.Datum, len(es))
	for i, e := range es {
		d, err := e.Eval(c.Env, nil)
		if err != nil {
			return nil, false, err
		}
		if d.IsNull() {
			return nil, true, nil
		}
		out[i] = d
	}
	return out, false, nil
}

// entryMatches reports whether an index entry's key is the key of row.
func entryMatches(rel, ir *catalog.Relation, key []types.Datum, row Row) bool {
	for i, k := range ir.Index.Keys {
		a, b := key[i], row[k-1]
		if a.IsNull() != b.IsNull() || (!a.IsNull() && types.Compare(rel.Attrs[k-1].Type, a, b) != 0) {
			return false
		}
	}
	return true
}

func (s *IndexScan) Open(c *Ctx) error {
	s.def = s.Rel.NewDeformerFor(c.Context, c.U())
	s.natts = len(s.Rel.Attrs)
	s.lastTID = page.ItemPointer{}
	s.entries, s.fetched = 0, 0
	ix := IndexHandle(c.Eng, s.Rel, s.Index)
	s.ix = ix
	ipu, ok := s.Rel.Table.(tableam.InPlaceUpdates)
	s.recheck = ok && ipu.UpdatesInPlace()
	var lo, hi *btree.Bound
	if s.Lower != nil {
		k, null, err := evalKeys(c, s.Lower)
		if err != nil {
			return err
		}
		if null {
			s.cur = nil
			return nil
		}
		lo = &btree.Bound{Key: k, Inclusive: s.LowerIn}
	}
	if s.Upper != nil {
		k, null, err := evalKeys(c, s.Upper)
		if err != nil {
			return err
		}
		if null {
			s.cur = nil
			return nil
		}
		hi = &btree.Bound{Key: k, Inclusive: s.UpperIn}
	}
	s.cur = ix.Scan(c.U(), lo, hi)
	s.cur.SSI = c.Tx.Heap.SSI
	return nil
}

func (s *IndexScan) Next(c *Ctx) (Row, error) {
	if s.cur == nil {
		return nil, nil
	}
	for {
		if err := c.checkCancel(); err != nil {
			return nil, err
		}
		tid, entry, ok, err := s.cur.Next()
		if err != nil || !ok {
			return nil, err
		}
		s.entries++
		t, vtid, found, err := s.fetch(c, tid)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		s.fetched++
		row, err := scanRow(s.def, s.natts, s.Sys, s.Rel, s.WithTID, t, vtid)
		if err != nil {
			return nil, err
		}
		if s.recheck {
			if s.keys, err = s.ix.Keys(entry, s.keys); err != nil {
				return nil, err
			}
			if !entryMatches(s.Rel, s.Index, s.keys, row) {
				continue
			}
		}
		if s.Qual != nil {
			ok, err := expr.IsTrue(c.Env, s.Qual, row)
			if err != nil {
				return nil, err
			}
			if !ok {
				s.instr.Filtered++
				continue
			}
		}
		s.lastTID = vtid
		return row, nil
	}
}

// fetch reads the row version tid leads to; when the table says every
// version there is dead to all snapshots, the entry is marked dead in the
// index (kill_prior_tuple; not for tables that change keys in place,
// whose entries are rechecked instead).
func (s *IndexScan) fetch(c *Ctx, tid page.ItemPointer) (tableam.Tuple, page.ItemPointer, bool, error) {
	if adf, ok := s.Rel.Table.(tableam.AllDeadFetcher); ok && !s.recheck {
		t, vtid, found, allDead, err := adf.FetchAllDead(c.U(), c.Tx.Heap, tid)
		if err == nil && !found && allDead {
			s.cur.KillPrior()
		}
		return t, vtid, found, err
	}
	return s.Rel.Table.Fetch(c.U(), c.Tx.Heap, tid)
}

func (s *IndexScan) Close(c *Ctx) {
	c.Eng.Stats.Scanned(s.Rel.OID, true, s.fetched)
	c.Eng.Stats.IndexScanned(s.Index.OID, s.entries, s.fetched)
	if s.cur != nil {
		s.cur.Close()
	}
}

// BuildIndex fills a new index from the table's rows visible to the
// transaction (CREATE INDEX): a bulk, sorted, bottom-up build, its heap
// scan and sort shared with parallel workers when the table is big enough
// (index_build.go).
func BuildIndex(c *Ctx, rel, ir *catalog.Relation) error {
	b := btree.NewBuilder(c.Eng.Catalog.BtreeEnv(), smgr.RelFileNumber(ir.RelFileNode), catalog.IndexOptions(rel, ir))
	b.Interrupts = c.Interrupts
	b.MemKB, b.Spill, b.Usage = c.settingKB("maintenance_work_mem", 64<<10), c.tempSpace(), c.U()
	defer b.Close()
	if err := scanForIndex(c, rel, ir, b); err != nil {
		return err
	}
	ix, err := b.Finish(c.U(), c.Tx.Heap.Xid)
	if err != nil {
		return constraintError(c, err, rel, ir.Name)
	}
	c.Eng.Catalog.SetIndexHandle(ir.RelFileNode, ix)
	return nil
}
