package exec

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/access/heap"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// System columns. Every table has ctid, xmin, cmin, xmax, cmax and
// tableoid (PostgreSQL's attnums -1 … -6): selectable and usable in any
// expression, never part of *. A scan produces only those the statement
// names somewhere — the planner looks for the names in the parse tree
// before it builds the FROM clause (noteSystemColumns) — so that queries
// without them pay nothing: their values follow the table's columns in the
// scan's row (and precede the hidden TID of UPDATE and DELETE).

// sysAttr is one system column.
type sysAttr uint8

const (
	sysCtid sysAttr = iota
	sysXmin
	sysCmin
	sysXmax
	sysCmax
	sysTableoid
	numSysAttrs
)

// sysAttrInfo gives each system column its name (catalog's list, in
// attnum order) and type.
var sysAttrInfo = func() (out [numSysAttrs]struct {
	name string
	t    types.Type
}) {
	ts := [numSysAttrs]types.Type{sysCtid: types.Tid, sysXmin: types.Xid, sysCmin: types.Cid, sysXmax: types.Xid, sysCmax: types.Cid, sysTableoid: types.Oid}
	for a := range out {
		out[a].name, out[a].t = catalog.SystemColumnNames[a], ts[a]
	}
	return out
}()

// attnum is the system column's pg_attribute number.
func (a sysAttr) attnum() int16 { return -int16(a) - 1 }

func sysAttrByName(name string) (sysAttr, bool) {
	for a := sysAttr(0); a < numSysAttrs; a++ {
		if sysAttrInfo[a].name == name {
			return a, true
		}
	}
	return 0, false
}

// noteSystemColumns records which system column names the statement
// (or query) m mentions, for the table scans planned after it. A name may
// belong to something else (a subquery's output column called xmin): the
// tables then carry a column nobody reads, which is harmless.
func (p *Planner) noteSystemColumns(m proto.Message) {
	p.sysNoted = true
	parser.Walk(m, func(n proto.Message) bool {
		cr, ok := n.(*pg.ColumnRef)
		if !ok {
			return true
		}
		if last := cr.Fields[len(cr.Fields)-1].GetString_(); last != nil {
			if a, ok := sysAttrByName(last.Sval); ok {
				p.sysMask |= 1 << a
			}
		}
		return false
	})
}

// noteInsertSystemColumns is noteSystemColumns for an INSERT, whose
// VALUES lists are not looked at: they may be long, and a system column
// named in a sub-SELECT inside one is the only thing that would need it
// (such a reference is refused as an unknown column).
func (p *Planner) noteInsertSystemColumns(s *pg.InsertStmt) {
	if s.WithClause != nil {
		p.noteSystemColumns(s.WithClause)
	}
	if s.OnConflictClause != nil {
		p.noteSystemColumns(s.OnConflictClause)
	}
	for _, n := range s.ReturningList {
		p.noteSystemColumns(n)
	}
	if sel := s.SelectStmt.GetSelectStmt(); sel != nil && len(sel.ValuesLists) == 0 {
		p.noteSystemColumns(sel)
	}
	p.sysNoted = true
}

// sysAttrs lists the system columns table scans must produce, in order.
func (p *Planner) sysAttrs() []sysAttr {
	var out []sysAttr
	for a := sysAttr(0); a < numSysAttrs; a++ {
		if p.sysMask&(1<<a) != 0 {
			out = append(out, a)
		}
	}
	return out
}

// sysScopeCols are the scope entries of a table's system columns sys,
// which sit after its natts columns in the scan's row.
func sysScopeCols(alias string, rel *catalog.Relation, sys []sysAttr) []scopeCol {
	natts := len(rel.Attrs)
	out := make([]scopeCol, len(sys))
	for i, a := range sys {
		info := sysAttrInfo[a]
		out[i] = scopeCol{rel: alias, name: info.name, t: info.t, index: natts + i, system: true, table: rel.OID, attnum: a.attnum(), relname: rel.Name}
	}
	return out
}

// sysColumns are the output columns of sys.
func sysColumns(rel *catalog.Relation, sys []sysAttr) []Column {
	out := make([]Column, len(sys))
	for i, a := range sys {
		out[i] = Column{Name: sysAttrInfo[a].name, Type: sysAttrInfo[a].t, Table: rel.OID, Attr: a.attnum()}
	}
	return out
}

// fillSysAttrs stores the values of sys for the row version t found at
// tid into dst.
func fillSysAttrs(dst Row, sys []sysAttr, rel *catalog.Relation, t heap.Tuple, tid page.ItemPointer) {
	for i, a := range sys {
		var d types.Datum
		switch a {
		case sysCtid:
			d = types.TidDatum(uint32(tid.Block), uint16(tid.Offset))
		case sysXmin:
			d = types.Int(int64(t.Xmin()))
		case sysXmax:
			d = types.Int(int64(t.Xmax()))
		case sysCmin, sysCmax:
			// Both read the one t_cid field (which may hold a combo
			// command id), as in PostgreSQL.
			d = types.Int(int64(t.RawCid()))
		case sysTableoid:
			d = types.Int(int64(rel.OID))
		}
		dst[i] = d
	}
}

// fillNewSysAttrs stores the values of sys for the row version this
// transaction just wrote at tid (RETURNING after UPDATE).
func fillNewSysAttrs(dst Row, sys []sysAttr, rel *catalog.Relation, tx *heap.Txn, tid page.ItemPointer) {
	for i, a := range sys {
		var d types.Datum
		switch a {
		case sysCtid:
			d = types.TidDatum(uint32(tid.Block), uint16(tid.Offset))
		case sysXmin:
			d = types.Int(int64(tx.Xid))
		case sysXmax:
			d = types.Int(0)
		case sysCmin, sysCmax:
			d = types.Int(int64(tx.Cid))
		case sysTableoid:
			d = types.Int(int64(rel.OID))
		}
		dst[i] = d
	}
}
