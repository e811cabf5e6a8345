package catalog

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// PgRewriteRelID is pg_rewrite's OID (PostgreSQL's).
const PgRewriteRelID = 2618

// PgRewrite holds each view's "_RETURN" rule, as in PostgreSQL. ev_action
// is the view's query as SQL text (PostgreSQL stores a node tree there):
// stars expanded and column references qualified at CREATE VIEW, so the
// text names exactly the columns the view was made from.
var PgRewrite = &TableDef{PgRewriteRelID, "pg_rewrite", []Column{
	col("oid", tOid), col("rulename", tName), col("ev_class", tOid), col("ev_type", tChar),
	col("ev_enabled", tChar), col("is_instead", tBool), col("ev_qual", tText), col("ev_action", tText),
}}

// ViewDef is what CreateView stores for a view or materialized view.
type ViewDef struct {
	Namespace uint32
	Name      string
	Attrs     []Attr
	Query     string            // the normalized query text (ev_action)
	Options   map[string]string // reloptions: check_option, security_barrier, …
	Uses      []uint32          // relations the query reads (pg_depend, deptype 'n')
	// UsedColumns are the columns of those it reads, by relation.
	UsedColumns map[uint32][]int16
	// Materialized: relkind 'm', with storage and the table AM am.
	Materialized bool
	Populated    bool
	AM           tableam.AM
}

// CreateView adds a view: its pg_class row (relkind 'v'), columns, the
// _RETURN rule and the dependencies of the rule on the view (internal)
// and on every relation it reads (normal), so that dropping one of those
// needs CASCADE. A materialized view is a table with the same rule.
func (c *Catalog) CreateView(tx *Txn, d ViewDef) (uint32, error) {
	if existing, err := c.lookupIn(tx, d.Namespace, d.Name); err != nil {
		return 0, err
	} else if existing != nil {
		return 0, pgerr.Errorf(pgerr.DuplicateTable, "relation \"%s\" already exists", d.Name)
	}
	for _, a := range d.Attrs {
		// A view has no system columns: only a materialized view's names
		// may not collide with them.
		if err := checkColumnName(a.Name); err != nil && d.Materialized {
			return 0, err
		}
	}
	var oid uint32
	var err error
	if d.Materialized {
		oid, err = c.CreateTable(tx, d.Namespace, d.Name, d.Attrs, d.Options, d.AM)
		if err != nil {
			return 0, err
		}
		fields := map[int]types.Datum{cRelkind: cv(KindMatView), PgClass.ColumnIndex("relhasrules"): bv(true),
			PgClass.ColumnIndex("relispopulated"): bv(d.Populated)}
		if err := c.updateClassRow(tx, oid, fields); err != nil {
			return 0, err
		}
	} else {
		if oid, err = c.NewOid(); err != nil {
			return 0, err
		}
		row := classRow(oid, d.Name, d.Namespace, KindView, 0, len(d.Attrs), 0, false, d.Options)
		row[cRelowner] = ov(c.creatorOID(tx))
		row[cRelpersist] = cv(c.Persistence(d.Namespace))
		row[PgClass.ColumnIndex("relhasrules")] = bv(true)
		if _, err := c.insert(tx, PgClass, row); err != nil {
			return 0, err
		}
		for i := range d.Attrs {
			d.Attrs[i].Num = int16(i + 1)
			if _, err := c.insert(tx, PgAttribute, attrRow(oid, d.Attrs[i])); err != nil {
				return 0, err
			}
		}
	}
	if err := c.insertViewRule(tx, oid, d); err != nil {
		return 0, err
	}
	tx.Heap.Cid++
	return oid, nil
}

func (c *Catalog) insertViewRule(tx *Txn, view uint32, d ViewDef) error {
	rule, err := c.NewOid()
	if err != nil {
		return err
	}
	if _, err := c.insert(tx, PgRewrite, []types.Datum{ov(rule), types.Str("_RETURN"), ov(view), cv('1'), cv('O'), bv(true),
		types.Str("<>"), types.Str(d.Query)}); err != nil {
		return err
	}
	dep := func(ref uint32, sub int16, kind byte) []types.Datum {
		return []types.Datum{ov(PgRewriteRelID), ov(rule), iv(0), ov(PgClassRelID), ov(ref), iv(int64(sub)), cv(kind)}
	}
	deps := [][]types.Datum{dep(view, 0, DepInternal)}
	seen := map[uint32]bool{view: true}
	for _, u := range d.Uses {
		if seen[u] {
			continue
		}
		seen[u] = true
		deps = append(deps, dep(u, 0, DepNormal))
		for _, a := range d.UsedColumns[u] {
			deps = append(deps, dep(u, a, DepNormal))
		}
	}
	for _, row := range deps {
		if _, err := c.insert(tx, PgDepend, row); err != nil {
			return err
		}
	}
	return nil
}

// ReplaceView gives view new columns at the end (existing ones keep their
// rows), a new query, options and dependencies (CREATE OR REPLACE VIEW;
// the caller checked that the old columns are unchanged).
func (c *Catalog) ReplaceView(tx *Txn, view *Relation, d ViewDef) error {
	if err := c.dropViewRule(tx, view.OID); err != nil {
		return err
	}
	for i := len(view.Attrs); i < len(d.Attrs); i++ {
		d.Attrs[i].Num = int16(i + 1)
		if _, err := c.insert(tx, PgAttribute, attrRow(view.OID, d.Attrs[i])); err != nil {
			return err
		}
	}
	fields := map[int]types.Datum{cRelnatts: iv(int64(len(d.Attrs))), cReloptions: formatOptions(d.Options)}
	if err := c.updateClassRow(tx, view.OID, fields); err != nil {
		return err
	}
	if err := c.insertViewRule(tx, view.OID, d); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// SetViewQuery rewrites a view's stored query in place of the old one,
// keeping its dependencies (a rename of something it reads).
func (c *Catalog) SetViewQuery(tx *Txn, view uint32, query string) error {
	var tid page.ItemPointer
	var row []types.Datum
	err := c.scan(tx, PgRewrite, func(v []types.Datum, t page.ItemPointer) (bool, error) {
		if uint32(v[2].Int()) == view {
			tid, row = t, append([]types.Datum(nil), v...)
			return false, nil
		}
		return true, nil
	})
	if err != nil || row == nil {
		return err
	}
	if err := c.delete(tx, PgRewrite, tid); err != nil {
		return err
	}
	row[7] = types.Str(query)
	if _, err := c.insert(tx, PgRewrite, row); err != nil {
		return err
	}
	tx.Heap.Cid++
	return nil
}

// dropViewRule removes a view's _RETURN rule and its dependencies.
func (c *Catalog) dropViewRule(tx *Txn, view uint32) error {
	rules := map[uint32]bool{}
	var tids []page.ItemPointer
	err := c.scan(tx, PgRewrite, func(v []types.Datum, tid page.ItemPointer) (bool, error) {
		if uint32(v[2].Int()) == view {
			rules[uint32(v[0].Int())] = true
			tids = append(tids, tid)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, t := range tids {
		if err := c.delete(tx, PgRewrite, t); err != nil {
			return err
		}
	}
	return c.deleteDepends(tx, func(v []types.Datum) bool {
		return uint32(v[0].Int()) == PgRewriteRelID && rules[uint32(v[1].Int())]
	})
}

// viewQuery is the stored query of view oid ("" when it has none).
func (c *Catalog) viewQuery(tx *Txn, oid uint32) (string, error) {
	var q string
	err := c.scan(tx, PgRewrite, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[2].Int()) == oid {
			q = v[7].Str()
			return false, nil
		}
		return true, nil
	})
	return q, err
}

// ViewDependents lists the views and materialized views whose query
// reads relation oid (directly), by OID.
func (c *Catalog) ViewDependents(tx *Txn, oid uint32) ([]uint32, error) {
	return c.viewDependents(tx, oid, -1)
}

// ColumnViewDependents lists the views whose query reads column attnum
// of relation oid.
func (c *Catalog) ColumnViewDependents(tx *Txn, oid uint32, attnum int16) ([]uint32, error) {
	return c.viewDependents(tx, oid, int(attnum))
}

func (c *Catalog) viewDependents(tx *Txn, oid uint32, attnum int) ([]uint32, error) {
	rules := map[uint32]bool{}
	err := c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == PgRewriteRelID && uint32(v[4].Int()) == oid && byte(v[6].Int()) == DepNormal &&
			(attnum < 0 || int(v[5].Int()) == attnum) {
			rules[uint32(v[1].Int())] = true
		}
		return true, nil
	})
	if err != nil || len(rules) == 0 {
		return nil, err
	}
	var out []uint32
	err = c.scan(tx, PgRewrite, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if rules[uint32(v[0].Int())] && uint32(v[2].Int()) != oid {
			out = append(out, uint32(v[2].Int()))
		}
		return true, nil
	})
	return out, err
}

// SetPopulated sets a materialized view's relispopulated.
func (c *Catalog) SetPopulated(tx *Txn, oid uint32, populated bool) error {
	return c.updateClassRow(tx, oid, map[int]types.Datum{PgClass.ColumnIndex("relispopulated"): bv(populated)})
}

// RuleView is the view whose rule pg_rewrite row rule is (0: none).
func (c *Catalog) RuleView(tx *Txn, rule uint32) (uint32, error) {
	var view uint32
	err := c.scan(tx, PgRewrite, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == rule {
			view = uint32(v[2].Int())
			return false, nil
		}
		return true, nil
	})
	return view, err
}

// ViewEntry is a view's or materialized view's pg_class identity.
type ViewEntry struct {
	OID, Namespace, Owner uint32
	Name                  string
	Materialized          bool
}

// Views lists the views and materialized views visible to tx.
func (c *Catalog) Views(tx *Txn) ([]ViewEntry, error) {
	var out []ViewEntry
	owner := PgClass.ColumnIndex("relowner")
	err := c.scan(tx, PgClass, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if k := byte(v[cRelkind].Int()); k == KindView || k == KindMatView {
			out = append(out, ViewEntry{OID: uint32(v[cOid].Int()), Namespace: uint32(v[cRelnsp].Int()), Owner: uint32(v[owner].Int()),
				Name: v[cRelname].Str(), Materialized: k == KindMatView})
		}
		return true, nil
	})
	return out, err
}

// SetRelOwner sets a relation's pg_class.relowner (ALTER … OWNER TO).
func (c *Catalog) SetRelOwner(tx *Txn, oid, owner uint32) error {
	return c.updateClassRow(tx, oid, map[int]types.Datum{PgClass.ColumnIndex("relowner"): ov(owner)})
}

// ViewUses lists the relations view's query reads (its rule's normal
// dependencies), by OID.
func (c *Catalog) ViewUses(tx *Txn, view uint32) ([]uint32, error) {
	var rule uint32
	err := c.scan(tx, PgRewrite, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[2].Int()) == view {
			rule = uint32(v[0].Int())
			return false, nil
		}
		return true, nil
	})
	if err != nil || rule == 0 {
		return nil, err
	}
	seen := map[uint32]bool{}
	var out []uint32
	err = c.scan(tx, PgDepend, func(v []types.Datum, _ page.ItemPointer) (bool, error) {
		if uint32(v[0].Int()) == PgRewriteRelID && uint32(v[1].Int()) == rule && byte(v[6].Int()) == DepNormal {
			if ref := uint32(v[4].Int()); !seen[ref] {
				seen[ref] = true
				out = append(out, ref)
			}
		}
		return true, nil
	})
	return out, err
}
