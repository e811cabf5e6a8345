package exec

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// Queries of an inheritance parent. A table named in FROM without ONLY
// stands for itself and every table that inherits from it (PostgreSQL's
// expand_inherited_rtentry): the scan becomes an Append of one scan per
// member, the parent first, then the descendants breadth first. Each
// member is scanned in its own layout (so its own indexes serve the
// qual, translated to its column numbers) and its rows are converted to
// the parent's layout by an InhChild node: a parent column is found in
// the child by name, a column the parent dropped reads NULL, columns only
// the child has are left out; the system columns are the child's own, so
// tableoid says where a row came from.
//
// When the rows are to be changed or locked (UPDATE, DELETE, FOR UPDATE)
// the converted row also carries the member's OID as a hidden column just
// before the TID (PostgreSQL's tableoid junk column), which ModifyTable
// and LockRows route by. INSERT goes only to the named table.

// inhMember is one table of an inheritance tree as its parent's query
// sees it.
type inhMember struct {
	Rel *catalog.Relation
	// colMap[i] is the index in Rel.Attrs of the parent's column i, -1
	// for a column the parent dropped.
	colMap []int
	// name is the member's scan alias in EXPLAIN (parent alias plus _n).
	name string
}

func (m *inhMember) isParent(parent *catalog.Relation) bool { return m.Rel.OID == parent.OID }

// inheritanceMembers lists the tables a query of parent reads, each locked
// in lockMode; nil when parent has no children (a plain scan). Other
// sessions' temporary children are skipped, as PostgreSQL does.
func (p *Planner) inheritanceMembers(parent *catalog.Relation, alias string, lockMode int) ([]*inhMember, error) {
	if !parent.HasSubclass || parent.Kind != catalog.KindTable {
		return nil, nil
	}
	oids, err := p.C.Eng.Catalog.AllInheritors(p.C.Tx, parent.OID)
	if err != nil || len(oids) < 2 {
		return nil, err
	}
	var out []*inhMember
	for _, oid := range oids {
		rel := parent
		if oid != parent.OID {
			if p.C.LockRel != nil {
				if err := p.C.LockRel(oid, lockMode); err != nil {
					return nil, err
				}
			}
			if rel, err = p.C.Eng.Catalog.ByOID(p.C.Tx, oid); err != nil {
				return nil, err
			}
			if rel == nil || p.C.Tx.IsOtherTemp(rel) {
				continue
			}
			if rel.IsTemp() {
				p.C.Tx.AccessedTemp = true
			}
		}
		if rel.IsPartitioned() {
			continue // no rows of its own: its leaves have them
		}
		out = append(out, &inhMember{Rel: rel, colMap: columnMap(parent, rel), name: fmt.Sprintf("%s_%d", alias, len(out)+1)})
	}
	if parent.IsPartitioned() {
		return p.partitionMembers(parent, alias, out)
	}
	if len(out) < 2 {
		return nil, nil
	}
	return out, nil
}

// columnMap matches parent's columns to child's by name.
func columnMap(parent, child *catalog.Relation) []int {
	m := make([]int, len(parent.Attrs))
	for i, a := range parent.Attrs {
		m[i] = -1
		if !a.Dropped {
			m[i] = child.AttrByName(a.Name)
		}
	}
	return m
}

// inhJunkScopeCol is the hidden scope entry of the member OID an
// inheritance parent's scan adds before the TID.
func inhJunkScopeCol(alias string) scopeCol {
	return scopeCol{rel: alias, t: types.Oid, hidden: true, dropped: true}
}

// translate rewrites an expression over the parent's converted row
// (pnatts columns, then the rest) into one over the member's own row.
func (m *inhMember) translate(e expr.Expr, pnatts int) (expr.Expr, bool) {
	cnatts := len(m.Rel.Attrs)
	return expr.MapVars(e, func(v *expr.Var) expr.Expr {
		idx := v.Index
		switch {
		case idx < pnatts && m.colMap[idx] >= 0:
			idx = m.colMap[idx]
		case idx < pnatts:
			return &expr.Const{Val: types.Null(), T: v.T}
		default:
			idx = idx - pnatts + cnatts
		}
		return &expr.Var{Index: idx, T: v.T, Name: v.Name}
	})
}

// InhChild converts a member's scan rows into its parent's layout:
// the parent's columns, the system columns, [the member's OID and the
// TID, when WithTID]. EXPLAIN shows only its input.
type InhChild struct {
	nodeBase
	Input   Node
	Parent  *catalog.Relation
	Member  *inhMember
	Sys     []sysAttr
	WithTID bool
}

func (n *InhChild) Columns() []Column {
	cols := tableColumns(n.Parent, n.Sys, false)
	if n.WithTID {
		cols = append(cols, Column{Name: "tableoid", Type: types.Oid}, Column{Name: "ctid", Type: types.Int8})
	}
	return cols
}

func (n *InhChild) Open(c *Ctx) error { return Open(c, n.Input) }
func (n *InhChild) Close(c *Ctx)      { Close(c, n.Input) }

func (n *InhChild) Next(c *Ctx) (Row, error) {
	in, err := Next(c, n.Input)
	if err != nil || in == nil {
		return nil, err
	}
	return n.Member.toParent(in, len(n.Parent.Attrs), len(n.Sys), n.WithTID), nil
}

// toParent converts a member row (its columns, sys system columns, [TID],
// then whatever follows) into the parent's layout (pnatts columns, the
// system columns, [member OID, TID], the rest).
func (m *inhMember) toParent(in Row, pnatts, sys int, withTID bool) Row {
	cnatts := len(m.Rel.Attrs)
	extra := 0
	if withTID {
		extra = 1
	}
	out := make(Row, pnatts+len(in)-cnatts+extra)
	for i, ci := range m.colMap {
		if ci >= 0 {
			out[i] = in[ci]
		} else {
			out[i] = types.Null()
		}
	}
	if !withTID {
		copy(out[pnatts:], in[cnatts:])
		return out
	}
	copy(out[pnatts:], in[cnatts:cnatts+sys])
	{
		out[pnatts+sys] = types.Int(int64(m.Rel.OID))
		copy(out[pnatts+sys+1:], in[cnatts+sys:])
	}
	return out
}

// inheritScan plans the scan of an inheritance parent: an Append of each
// member's own scan for the qual q (over the parent's row).
func (p *Planner) inheritScan(fi *fromItem, q expr.Expr, withTID bool) Node {
	pnatts := len(fi.rel.Attrs)
	app := &Append{}
	members := fi.inh
	if fi.rel.IsPartitioned() {
		members = renamedMembers(fi.alias, p.pruneMembers(fi.rel, members, q))
	}
	for _, m := range members {
		mfi := &fromItem{rel: m.Rel, alias: m.name, sys: fi.sys, withTID: withTID}
		mq, ok := m.translate(q, pnatts)
		var node Node
		if ok {
			node = p.scanFor(mfi, mq, withTID)
		} else {
			node = p.scanFor(mfi, nil, withTID)
		}
		var out Node = &InhChild{Input: node, Parent: fi.rel, Member: m, Sys: fi.sys, WithTID: withTID}
		if !ok && q != nil {
			out = &Filter{Input: out, Qual: q}
		}
		app.Inputs = append(app.Inputs, out)
	}
	if len(app.Inputs) == 1 && fi.rel.IsPartitioned() {
		return app.Inputs[0] // PostgreSQL removes an Append of one partition
	}
	if len(app.Inputs) == 0 {
		return noPartitions((&InhChild{Parent: fi.rel, Sys: fi.sys, WithTID: withTID}).Columns())
	}
	app.Cols = app.Inputs[0].Columns()
	return app
}

// inheritTables plans the tables of rv: its inheritance members when rv
// reads its children too (no ONLY), noted on fi.
func (p *Planner) expandInherited(fi *fromItem, rv *pg.RangeVar, lockMode int) error {
	if !rv.Inh {
		return nil
	}
	members, err := p.inheritanceMembers(fi.rel, fi.alias, lockMode)
	fi.inh = members
	return err
}

// currentOfScan is WHERE CURRENT OF over fi: for an inheritance parent one
// TID scan per member, each returning the cursor's row only if it is that
// member's (execCurrentOf's answer for inactive scans), under an Append.
func currentOfScan(fi *fromItem, cursor string) Node {
	if fi.inh == nil {
		return &CurrentOfScan{Rel: fi.rel, Alias: fi.alias, Cursor: cursor, Sys: fi.sys}
	}
	app := &Append{}
	for _, m := range fi.inh {
		scan := &CurrentOfScan{Rel: m.Rel, Alias: m.name, Cursor: cursor, Sys: fi.sys}
		app.Inputs = append(app.Inputs, &InhChild{Input: scan, Parent: fi.rel, Member: m, Sys: fi.sys, WithTID: true})
	}
	app.Cols = app.Inputs[0].Columns()
	return app
}

// memberOf finds the member of OID oid.
func memberOf(members []*inhMember, oid uint32) *inhMember {
	for _, m := range members {
		if m.Rel.OID == oid {
			return m
		}
	}
	return nil
}

// fetchMemberRow reads the row version at tid of member m in m's own
// layout (the columns only a child has, which the converted row lacks).
func fetchMemberRow(c *Ctx, m *inhMember, tid page.ItemPointer) (Row, bool, error) {
	t, _, ok, err := m.Rel.Table.Fetch(c.U(), c.Tx.Heap, tid)
	if err != nil || !ok {
		return nil, ok, err
	}
	row := make(Row, len(m.Rel.Attrs))
	return row, true, m.Rel.NewDeformerFor(c.Context, c.U()).Deform(t, row)
}

// lockedMember is a member of an inheritance parent whose rows LockRows
// locks.
type lockedMember struct {
	*inhMember
	deformer tableam.Format
}

// memberOf is the member the query row raw holds a row of (nil when the
// marked table is no inheritance parent).
func (m *lockedTable) memberOf(raw Row) *lockedMember {
	if m.members == nil {
		return nil
	}
	oid := uint32(raw[m.TIDIndex-1].Int())
	for _, mm := range m.members {
		if mm.Rel.OID == oid {
			return mm
		}
	}
	return nil
}

// deformInto stores the columns of the newer row version t (of member,
// or of the marked table itself) in raw, in the marked table's layout.
func (m *lockedTable) deformInto(raw Row, member *lockedMember, t tableam.Tuple) error {
	dst := raw[m.Offset : m.Offset+m.natts]
	if member == nil {
		return m.deformer.Deform(t, dst)
	}
	own := make(Row, len(member.Rel.Attrs))
	if err := member.deformer.Deform(t, own); err != nil {
		return err
	}
	for i, ci := range member.colMap {
		if ci >= 0 {
			dst[i] = own[ci]
		} else {
			dst[i] = types.Null()
		}
	}
	return nil
}
