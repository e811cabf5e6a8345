package engine

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/xact"
)

// removeTempRelations drops, at start-up, the relations left in temporary
// namespaces by the sessions of the previous run (a crash, or a session
// that could not clean up). No session owns them any more, and their pages
// were never WAL-logged, so after a crash they may not even be readable:
// nothing may touch them but this drop. PostgreSQL removes such files at
// start-up and their catalog entries later; tidal does both here, in one
// transaction, before the first session can start.
func (e *Engine) removeTempRelations() error {
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	u := &stats.Usage{}
	tx := &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: e.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: u}
	nsps, err := e.Catalog.TempNamespaces(tx)
	if err != nil {
		e.Xact.ResetXmin(proc)
		return err
	}
	var busy []uint32
	for _, nsp := range nsps {
		empty, err := e.Catalog.NamespaceIsEmpty(tx, nsp)
		if err != nil {
			e.Xact.ResetXmin(proc)
			return err
		}
		if !empty {
			busy = append(busy, nsp)
		}
	}
	if len(busy) == 0 {
		e.Xact.ResetXmin(proc)
		return nil
	}
	xid, err := e.Xact.AssignXid(proc)
	if err != nil {
		e.Xact.Abort(proc)
		return err
	}
	tx.Heap.Xid = xid
	n := 0
	for _, nsp := range busy {
		k, err := e.Catalog.DropTempRelations(tx, nsp)
		if err != nil {
			e.Xact.Abort(proc)
			return fmt.Errorf("dropping the relations of %s: %w", e.Catalog.NamespaceName(nsp), err)
		}
		n += k
	}
	if _, err := e.Xact.Commit(u, proc, xact.CommitOptions{DropRels: tx.Dropped, Sync: true, BeforeUnlock: e.Catalog.Invalidate}); err != nil {
		return err
	}
	for _, r := range tx.Dropped {
		e.Pool.DropRelation(smgr.RelFileNumber(r), 0, 0, true)
		e.Smgr.Unlink(smgr.RelFileNumber(r))
		e.Catalog.ForgetHeap(r)
	}
	e.log.Printf("LOG:  dropped %d temporary relation(s) left by sessions of the previous run", n)
	return nil
}
