package engine

import (
	"fmt"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/xact"
)

// upgradeCatalogs brings the catalog of a data directory created by an
// older tidal up to date, one step per catalog generation, in order:
// roles (pg_authid), stored constraints (pg_constraint, with rows for the
// existing primary keys and UNIQUE constraints), then the tables newer
// than those (pg_sequence, pg_depend, pg_auth_members).
func (e *Engine) upgradeCatalogs() error {
	steps := []struct {
		what    string
		missing func(*catalog.Txn) ([]string, error)
		create  func(*catalog.Txn) error
	}{
		{"pg_authid", func(tx *catalog.Txn) ([]string, error) {
			ok, err := e.Catalog.HasAuthid(tx)
			return missingUnless(ok, "pg_authid"), err
		}, e.Catalog.CreateAuthid},
		{"pg_constraint", func(tx *catalog.Txn) ([]string, error) {
			ok, err := e.Catalog.HasPgConstraint(tx)
			return missingUnless(ok, "pg_constraint"), err
		}, e.Catalog.CreatePgConstraint},
	}
	for _, s := range steps {
		if err := e.upgradeCatalog(s.missing, s.create); err != nil {
			return fmt.Errorf("creating %s: %w", s.what, err)
		}
	}
	// The newer system tables share one description-driven step.
	var missing []*catalog.TableDef
	return e.upgradeCatalog(func(tx *catalog.Txn) ([]string, error) {
		var err error
		missing, err = e.Catalog.MissingSystemTables(tx)
		var names []string
		for _, d := range missing {
			names = append(names, d.Name)
		}
		return names, err
	}, func(tx *catalog.Txn) error {
		for _, d := range missing {
			if err := e.Catalog.CreateSystemTable(tx, d); err != nil {
				return fmt.Errorf("creating %s: %w", d.Name, err)
			}
		}
		return nil
	})
}

func missingUnless(present bool, name string) []string {
	if present {
		return nil
	}
	return []string{name}
}

// upgradeCatalog runs one upgrade step: missing looks (under a snapshot,
// without an xid) for what this data directory lacks; if anything, create
// adds it in an ordinary WAL-logged transaction, committed synchronously,
// so a crash leaves either the old catalog or the new one.
func (e *Engine) upgradeCatalog(missing func(*catalog.Txn) ([]string, error), create func(*catalog.Txn) error) error {
	proc := e.Xact.NewProc()
	defer e.Xact.ReleaseProc(proc)
	u := &stats.Usage{}
	tx := &catalog.Txn{Heap: &tableam.Txn{Proc: proc, Snap: e.Xact.GetSnapshot(proc), Combo: &tableam.ComboCids{}}, U: u}
	names, err := missing(tx)
	if err != nil || len(names) == 0 {
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
	if err := create(tx); err != nil {
		e.Xact.Abort(proc)
		return err
	}
	if _, err := e.Xact.Commit(u, proc, xact.CommitOptions{Sync: true}); err != nil {
		return err
	}
	e.Catalog.Invalidate()
	for _, n := range names {
		e.log.Printf("LOG:  created catalog %s", n)
	}
	return nil
}
