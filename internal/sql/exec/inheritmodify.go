package exec

import (
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// UPDATE and DELETE of an inheritance parent (PostgreSQL 15's ModifyTable
// with one result relation per member). The input rows are in the
// parent's layout with the member's OID before the TID (inherit.go);
// each row goes to the ModifyTable of its member, which changes the row
// in the member's own layout: the columns only a child has are read from
// the row version being changed, and the statement's expressions (SET,
// WHERE re-check, RETURNING), compiled once over the parent's layout, are
// evaluated on the row converted back.

// inheritTargets are the members an UPDATE or DELETE of a parent changes.
type inheritTargets struct {
	junk int            // where an input row holds its member's OID
	subs []*ModifyTable // one per member, the parent first
}

// planInheritTargets gives mt (an UPDATE or DELETE of fi) one target per
// member when fi is an inheritance parent.
func planInheritTargets(mt *ModifyTable, fi *fromItem) {
	if fi.inh == nil {
		return
	}
	pnatts := len(fi.rel.Attrs)
	mt.inh = &inheritTargets{junk: pnatts + len(fi.sys)}
	for _, m := range fi.inh {
		width := mt.TargetWidth - pnatts - 1 + len(m.Rel.Attrs)
		mt.inh.subs = append(mt.inh.subs, &ModifyTable{Kind: mt.Kind, Rel: m.Rel, Sys: mt.Sys, TargetWidth: width,
			Alias: m.name, inhParent: mt, inhMember: m})
	}
	if mt.Kind == "Update" {
		mt.Input = &inheritUpdateResult{Input: mt.Input}
	}
}

func (it *inheritTargets) open(c *Ctx) error {
	if it == nil {
		return nil
	}
	for _, sub := range it.subs {
		if err := sub.openTarget(c); err != nil {
			return err
		}
	}
	return nil
}

// route finds the ModifyTable that changes input row in, and the row in
// its layout.
func (m *ModifyTable) route(c *Ctx, in Row) (*ModifyTable, Row, error) {
	if m.inh == nil {
		return m, in, nil
	}
	oid := uint32(in[m.inh.junk].Int())
	for _, sub := range m.inh.subs {
		if sub.Rel.OID == oid {
			row, err := sub.fromParentRow(c, in)
			return sub, row, err
		}
	}
	return nil, nil, pgerr.Errorf(pgerr.InternalError, "no result relation for a row of relation %d", oid)
}

// fromParentRow converts an input row from the parent's layout into this
// member's: its own columns, the system columns, the TID, the rest.
func (m *ModifyTable) fromParentRow(c *Ctx, in Row) (Row, error) {
	pnatts, nsys := len(m.inhParent.Rel.Attrs), len(m.Sys)
	tidAt := pnatts + nsys + 1
	var cols Row
	if m.inhMember.isParent(m.inhParent.Rel) {
		cols = in[:pnatts]
	} else {
		var ok bool
		var err error
		if cols, ok, err = fetchMemberRow(c, m.inhMember, DatumTID(in[tidAt])); err != nil {
			return nil, err
		} else if !ok {
			return nil, pgerr.Errorf(pgerr.InternalError, "row of relation \"%s\" vanished", m.Rel.Name)
		}
	}
	out := make(Row, 0, len(cols)+len(in)-pnatts-1)
	out = append(out, cols...)
	out = append(out, in[pnatts:pnatts+nsys]...)
	return append(out, in[tidAt:]...), nil
}

// parentRow converts a row of this member's layout (columns, system
// columns, TID, the rest) into the parent's, as the statement's
// expressions read it.
func (m *ModifyTable) parentRow(row Row) Row {
	if m.inhParent == nil {
		return row
	}
	return m.inhMember.toParent(row, len(m.inhParent.Rel.Attrs), len(m.Sys), true)
}

// recheck is the qual EvalPlanQual re-checks on a newer version row (in
// this table's layout), and the row to check it on.
func (m *ModifyTable) recheck(row Row) (expr.Expr, Row) {
	if m.inhParent == nil {
		return m.Qual, row
	}
	return m.inhParent.Qual, m.parentRow(row)
}

// newRow computes the new version of the row old (an input row in this
// table's layout) for UPDATE.
func (m *ModifyTable) newRow(c *Ctx, old Row) (Row, error) {
	if m.inhParent != nil {
		return m.newMemberRow(c, old)
	}
	out := make(Row, len(m.Rel.Attrs))
	for i, e := range m.NewRow {
		d, err := e.Eval(c.Env, old)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// newMemberRow is newRow of a member: the parent's SET list over the
// converted row, mapped back; a child's own columns keep their values.
func (m *ModifyTable) newMemberRow(c *Ctx, old Row) (Row, error) {
	pnew, err := m.inhParent.newRow(c, m.parentRow(old))
	if err != nil {
		return nil, err
	}
	out := make(Row, len(m.Rel.Attrs))
	for j, a := range m.Rel.Attrs {
		if a.Dropped {
			out[j] = types.Null()
		} else {
			out[j] = old[j]
		}
	}
	for i, ci := range m.inhMember.colMap {
		if ci >= 0 {
			out[ci] = pnew[i]
		}
	}
	return out, nil
}

// countRow counts a changed row for the member's statistics (the
// statement's ModifyTable top counts every row).
func (m *ModifyTable) countRow(top *ModifyTable) {
	if m != top {
		m.Count++
	}
}

// inheritUpdateResult is the Result node PostgreSQL 15 puts between an
// inherited UPDATE and its Append (it computes the new columns there);
// here it passes the rows through, and shows in EXPLAIN.
type inheritUpdateResult struct {
	nodeBase
	Input Node
}

func (r *inheritUpdateResult) Columns() []Column        { return r.Input.Columns() }
func (r *inheritUpdateResult) Open(c *Ctx) error        { return Open(c, r.Input) }
func (r *inheritUpdateResult) Next(c *Ctx) (Row, error) { return Next(c, r.Input) }
func (r *inheritUpdateResult) Close(c *Ctx)             { Close(c, r.Input) }
