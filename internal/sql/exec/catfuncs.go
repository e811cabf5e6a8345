package exec

import (
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/check"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// catalogFuncs implements expr.CatalogFuncs for a statement.
type catalogFuncs struct{ c *Ctx }

// CatalogFuncs returns the catalog-aware builtins for expressions run in c.
func (c *Ctx) CatalogFuncs() *catalogFuncs { return &catalogFuncs{c: c} }

func (f *catalogFuncs) forkSize(rel *catalog.Relation, fork smgr.ForkNumber) (int64, error) {
	sm := f.c.Eng.Smgr
	if !sm.Exists(smgr.RelFileNumber(rel.RelFileNode), fork) {
		return 0, nil
	}
	n, err := sm.NBlocks(smgr.RelFileNumber(rel.RelFileNode), fork)
	return int64(n) * page.Size, err
}

// Check runs the consistency checker on a table and its indexes.
func (f *catalogFuncs) Check(name string) (types.Datum, error) {
	rel, err := f.c.Eng.Catalog.Lookup(f.c.Tx, "", name)
	if err != nil {
		return types.Null(), err
	}
	if rel == nil || rel.Kind != catalog.KindTable {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	probs, err := check.Table(f.c.Eng.Catalog, f.c.U(), rel)
	if err != nil {
		return types.Null(), err
	}
	if err := probs.Error(); err != nil {
		return types.Null(), err
	}
	return types.Str("ok"), nil
}

// addToast adds a table's TOAST table and index (pg_table_size counts
// them as part of the table).
func (f *catalogFuncs) addToast(rel *catalog.Relation, add func(*catalog.Relation, ...smgr.ForkNumber) error, forks []smgr.ForkNumber) error {
	if rel.ToastRel == nil {
		return nil
	}
	if err := add(rel.ToastRel, forks...); err != nil {
		return err
	}
	for _, ix := range rel.ToastRel.Indexes {
		if err := add(ix, forks...); err != nil {
			return err
		}
	}
	return nil
}

func (f *catalogFuncs) RelationSize(name, kind, fork string) (types.Datum, error) {
	schema, rname := "", name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		schema, rname = name[:i], name[i+1:]
	}
	var rel *catalog.Relation
	var err error
	if oid, nerr := strconv.ParseUint(name, 10, 32); nerr == nil {
		// A number names a relation by OID, as regclass input does
		// (psql passes c.oid).
		rel, err = f.c.Eng.Catalog.ByOID(f.c.Tx, uint32(oid))
		if err == nil && rel == nil {
			return types.Null(), nil // PostgreSQL: NULL for a dropped relation's OID
		}
	} else {
		rel, err = f.c.Eng.Catalog.Lookup(f.c.Tx, schema, strings.Trim(rname, "\""))
	}
	if err != nil {
		return types.Null(), err
	}
	if rel == nil {
		return types.Null(), pgerr.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	forks := map[string]smgr.ForkNumber{"main": smgr.MainFork, "fsm": smgr.FSMFork, "vm": smgr.VMFork}
	var total int64
	add := func(r *catalog.Relation, fs ...smgr.ForkNumber) error {
		for _, fk := range fs {
			n, err := f.forkSize(r, fk)
			if err != nil {
				return err
			}
			total += n
		}
		return nil
	}
	all := []smgr.ForkNumber{smgr.MainFork, smgr.FSMFork, smgr.VMFork}
	switch kind {
	case "relation":
		fk, ok := forks[fork]
		if !ok {
			return types.Null(), pgerr.Errorf(pgerr.InvalidParameterValue, "invalid fork name").WithHint("Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\".")
		}
		err = add(rel, fk)
	case "table":
		err = add(rel, all...)
		if err == nil {
			err = f.addToast(rel, add, all)
		}
	case "indexes", "total":
		if kind == "total" {
			err = add(rel, all...)
			if err == nil {
				err = f.addToast(rel, add, all)
			}
		}
		for _, ix := range rel.Indexes {
			if err == nil {
				err = add(ix, all...)
			}
		}
	}
	return types.Int(total), err
}
