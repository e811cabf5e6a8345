package engine

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// ensurePgConstraint adds pg_constraint (with rows for the existing primary
// keys and UNIQUE constraints) to a data directory created before
// constraints were stored, in an ordinary WAL-logged transaction.
func (e *Engine) ensurePgConstraint() error {
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	u := &stats.Usage{}
	tx := &catalog.Txn{Heap: &heap.Txn{Proc: proc, Snap: e.Xact.GetSnapshot(proc), Combo: &heap.ComboCids{}}, U: u}
	ok, err := e.Catalog.HasPgConstraint(tx)
	if err != nil || ok {
		e.Xact.ResetXmin(proc)
		return err
	}
	xid, err := e.Xact.AssignXid(proc)
	if err != nil {
		e.Xact.Abort(proc)
		return err
	}
	tx.Heap.Xid = xid
	tx.Heap.Snap = e.Xact.GetSnapshot(proc)
	if err := e.Catalog.CreatePgConstraint(tx); err != nil {
		e.Xact.Abort(proc)
		return fmt.Errorf("creating pg_constraint: %w", err)
	}
	if _, err := e.Xact.Commit(u, proc, xact.CommitOptions{Sync: true}); err != nil {
		return fmt.Errorf("creating pg_constraint: %w", err)
	}
	e.Catalog.Invalidate()
	e.log.Printf("LOG:  created catalog pg_constraint")
	return nil
}
