package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/access/toast"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/datum/varatt"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Rows reach the heap through the table's toaster: formRow compresses or
// moves out what does not fit, and after an UPDATE or DELETE the TOAST
// values the old version no longer shares with a live one are deleted
// by the same transaction (so they become dead together with it).

// toastEnv is what the toaster needs of the statement.
func toastEnv(c *Ctx) toast.Env {
	m := varatt.PGLZ
	if c.Setting != nil {
		if dm, ok := varatt.MethodByName(c.Setting("default_toast_compression")); ok {
			m = dm
		}
	}
	return toast.Env{Ctx: c.Context, U: c.U(), Tx: c.Tx.Heap, Default: m}
}

// storedRow is a row prepared for the heap: its tuple, the values it was
// formed from (with TOAST pointers), and the TOAST values stored for it.
type storedRow struct {
	tup    tableam.Tuple
	stored []types.Datum
	saved  []uint32
}

// formRow toasts row for rel and forms its tuple; old are the values of
// the version an UPDATE replaces (nil for an INSERT), whose unchanged
// external values are kept by reference.
func formRow(c *Ctx, rel *catalog.Relation, def tableam.Format, row, old Row) (storedRow, error) {
	t := rel.Toaster()
	if t == nil {
		return storedRow{tup: def.Form(row), stored: row}, nil
	}
	stored, saved, err := t.Prepare(toastEnv(c), row, old)
	if err != nil {
		return storedRow{}, err
	}
	return storedRow{tup: def.Form(stored), stored: stored, saved: saved}, nil
}

// discard deletes the TOAST values of a row that was not written after all
// (its UPDATE found the row concurrently changed).
func (s storedRow) discard(c *Ctx, rel *catalog.Relation) error {
	if len(s.saved) == 0 {
		return nil
	}
	return rel.Toaster().Discard(toastEnv(c), s.saved)
}

// afterUpdate deletes the TOAST values of the replaced version (oc.Old)
// that the new one does not keep.
func (s storedRow) afterUpdate(c *Ctx, rel *catalog.Relation, oc tableam.Outcome) error {
	if oc.Old == nil || rel.Toaster() == nil {
		return nil
	}
	return rel.Toaster().AfterUpdate(toastEnv(c), oc.Old, s.stored)
}

// afterDelete deletes the TOAST values of a deleted version.
func afterDelete(c *Ctx, rel *catalog.Relation, oc tableam.Outcome) error {
	if oc.Old == nil || rel.Toaster() == nil {
		return nil
	}
	return rel.Toaster().AfterDelete(toastEnv(c), oc.Old)
}
