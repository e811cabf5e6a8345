package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// riTxn is the transaction view a foreign key check reads with
// (ri_PerformCheck): a fresh snapshot in READ COMMITTED; in REPEATABLE
// READ the transaction's snapshot, or the latest one when the check must
// detect rows committed since (detectNewRows: the referenced side's
// checks); and, through the next command id, the current command's own
// changes (the check's CommandCounterIncrement).
func riTxn(c *Ctx, detectNewRows bool) (*tableam.Txn, error) {
	// Row locks are stamped with the transaction's xid: the check may run
	// before the statement wrote anything (ALTER TABLE … ADD FOREIGN KEY).
	xid, err := c.Eng.Xact.AssignXid(c.Tx.Heap.Proc)
	if err != nil {
		return nil, err
	}
	c.Tx.Heap.Xid = xid
	tx := *c.Tx.Heap
	if !c.repeatableRead() || detectNewRows {
		tx.Snap = c.Eng.Xact.GetSnapshot(tx.Proc)
	}
	tx.Cid++
	return &tx, nil
}

// lockKeyShare locks the row version at tid FOR KEY SHARE for a foreign
// key check, as the check's SELECT … FOR KEY SHARE does (ExecLockRows):
// READ COMMITTED follows a concurrent update to the newest version and
// re-checks it with matches; REPEATABLE READ fails on one. found=false:
// the row is gone or no longer matches.
func lockKeyShare(c *Ctx, tx *tableam.Txn, rel *catalog.Relation, tid page.ItemPointer, matches func(tableam.Tuple) (bool, error)) (bool, error) {
	if c.repeatableRead() {
		oc, err := rel.Table.Lock(c.Context, c.U(), tx, tid, tableam.LockKeyShare, tableam.WaitBlock, true)
		if err != nil {
			return false, err
		}
		switch oc.Result {
		case tableam.Ok:
			return true, nil
		case tableam.Updated, tableam.Deleted:
			return false, pgerr.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
		}
		return false, nil
	}
	oc, _, t, err := rel.Table.LockLatest(c.Context, c.U(), tx, tid, tableam.LockKeyShare, tableam.WaitBlock)
	if err != nil || oc.Result != tableam.Ok {
		return false, err
	}
	if oc.Traversed {
		return matches(t)
	}
	return true, nil
}

// keyMatcher tells whether a version of rel has key in the columns cols.
func keyMatcher(rel *catalog.Relation, cols []int16, key []types.Datum) func(tableam.Tuple) (bool, error) {
	def := rel.NewDeformer()
	return func(t tableam.Tuple) (bool, error) {
		row := make(Row, len(rel.Attrs))
		if err := def.Deform(t, row); err != nil {
			return false, err
		}
		for i, a := range cols {
			d := row[a-1]
			if d.IsNull() || !types.Equal(rel.Attrs[a-1].Type, d, key[i]) {
				return false, nil
			}
		}
		return true, nil
	}
}

// lockReferencing locks the referencing rows refs (found by
// referencingRows) FOR KEY SHARE, as the referenced side's RESTRICT and
// NO ACTION checks do, and returns those that still reference key: a row
// being deleted, or having its key changed, by a running transaction is
// waited for.
func lockReferencing(c *Ctx, child *catalog.Relation, k *catalog.Constraint, key []types.Datum, refs []Row) ([]Row, error) {
	tx, err := riTxn(c, true)
	if err != nil {
		return nil, err
	}
	matches := keyMatcher(child, k.Keys, key)
	out := refs[:0]
	for _, r := range refs {
		ok, err := lockKeyShare(c, tx, child, DatumTID(r[len(r)-1]), matches)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// cascades reports a referential action that changes the referencing rows
// (their own deletes and updates lock them).
func cascades(action byte) bool {
	return action == catalog.FKCascade || action == catalog.FKSetNull || action == catalog.FKSetDefault
}

// indexEqualTIDs are the TIDs of an index's entries equal to key.
func indexEqualTIDs(c *Ctx, rel, ir *catalog.Relation, key []types.Datum) ([]page.ItemPointer, error) {
	cur := IndexHandle(c.Eng, rel, ir).ScanEqual(c.U(), key)
	// A serializable foreign-key check reads the index like a query
	// (PostgreSQL's RI queries take SIREAD locks too).
	cur.SSI = c.Tx.Heap.SSI
	defer cur.Close()
	var tids []page.ItemPointer
	for {
		tid, _, ok, err := cur.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return tids, nil
		}
		tids = append(tids, tid)
	}
}
