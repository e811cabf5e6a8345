package engine

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// ensureSystemTables adds the catalog tables newer than the data directory
// (pg_sequence, pg_depend, pg_auth_members) in one ordinary WAL-logged transaction.
func (e *Engine) ensureSystemTables() error {
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	u := &stats.Usage{}
	tx := &catalog.Txn{Heap: &heap.Txn{Proc: proc, Snap: e.Xact.GetSnapshot(proc), Combo: &heap.ComboCids{}}, U: u}
	missing, err := e.Catalog.MissingSystemTables(tx)
	if err != nil || len(missing) == 0 {
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
	for _, d := range missing {
		if err := e.Catalog.CreateSystemTable(tx, d); err != nil {
			e.Xact.Abort(proc)
			return fmt.Errorf("creating %s: %w", d.Name, err)
		}
	}
	if _, err := e.Xact.Commit(u, proc, xact.CommitOptions{Sync: true}); err != nil {
		return fmt.Errorf("creating system catalogs: %w", err)
	}
	e.Catalog.Invalidate()
	for _, d := range missing {
		e.log.Printf("LOG:  created catalog %s", d.Name)
	}
	return nil
}
