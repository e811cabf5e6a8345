package exec

// INSTEAD OF triggers on views: a view with an INSTEAD OF ROW trigger for
// the statement's event is not rewritten into its base table; the
// ModifyTable's target is the view itself, its input the view's rows
// (UPDATE, DELETE) or the rows to insert, and each row's change is the
// trigger's call. A trigger that returns NULL leaves the row uncounted;
// RETURNING sees the row the trigger returned (OLD for DELETE).

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// insteadView is the view rv names when it has an INSTEAD OF ROW trigger
// for event (PostgreSQL counts disabled ones too), else nil.
func (p *Planner) insteadView(rv *pg.RangeVar, event int16) (*catalog.Relation, error) {
	rel, err := p.C.Eng.Catalog.Lookup(p.C.Tx, rv.Schemaname, rv.Relname)
	if err != nil || rel == nil || rel.Kind != catalog.KindView || rel.MatView {
		return nil, err
	}
	for _, t := range rel.Triggers {
		if t.Fires(catalog.TriggerTypeInstead, true, event) {
			if p.C.LockRel != nil {
				if err := p.C.LockRel(rel.OID, lockRowExclusive); err != nil {
					return nil, err
				}
			}
			return rel, nil
		}
	}
	return nil, nil
}

// insteadFromItem is an UPDATE's or DELETE's target view as a FROM item:
// the view's rows, with a NULL where a table's rows carry their TID.
func (p *Planner) insteadFromItem(rv *pg.RangeVar, view *catalog.Relation) (*fromItem, error) {
	sel, err := ParseViewQuery(view)
	if err != nil {
		return nil, err
	}
	node, cols, _, err := p.planQuery(sel, nil, 0)
	if err != nil {
		return nil, err
	}
	alias, _ := aliasOf(rv.Alias, view.Name)
	fi := &fromItem{alias: alias}
	proj := &Project{Input: node}
	for i, c := range cols {
		name := view.Attrs[i].Name
		proj.Exprs = append(proj.Exprs, &expr.Var{Index: i, T: c.Type, Name: name})
		proj.Cols = append(proj.Cols, Column{Name: name, Type: c.Type})
		fi.cols = append(fi.cols, scopeCol{rel: alias, name: name, t: c.Type, index: i, relname: view.Name})
	}
	proj.Exprs = append(proj.Exprs, &expr.Const{Val: types.Null(), T: types.Int8})
	proj.Cols = append(proj.Cols, Column{Name: "ctid", Type: types.Int8})
	fi.node = proj
	return fi, nil
}

// insteadRow runs the INSTEAD OF triggers for input row in of a
// statement on a view: the row to return (RETURNING) and false when a
// trigger returned NULL.
func (m *ModifyTable) insteadRow(c *Ctx, in Row) (Row, bool, error) {
	rt, err := m.triggers(c)
	if err != nil {
		return nil, false, err
	}
	natts := len(m.Rel.Attrs)
	event := triggerEventBit(m.Kind)
	var old, new Row
	switch m.Kind {
	case "Insert":
		new = in[:natts]
	case "Update":
		old = in[:natts]
		if new, err = m.newRow(c, in); err != nil {
			return nil, false, err
		}
	default:
		old = in[:natts]
	}
	row, ok, err := rt.fireBeforeRow(c, catalog.TriggerTypeInstead, event, m.setCols(), old, new)
	if err != nil || !ok {
		return nil, false, err
	}
	return append(row, in[natts:]...), true, nil
}
