package exec

import (
	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/page"
)

// System columns. Every table has ctid, xmin, cmin, xmax, cmax and
// tableoid (PostgreSQL's attnums -1 … -6): selectable and usable in any
// expression, never part of *. A scan produces only those the statement
// uses, after the table's columns in the scan's row (and before the hidden
// TID of UPDATE and DELETE), so that other statements pay nothing. Which
// those are is learnt while planning: a reference to a system column name
// that is not found while a table is in scope notes the column
// (Planner.sysWanted), and the statement is planned again with it
// (Planner.statement) — only statements that use system columns pay for
// that second planning. WHERE ctid = constant becomes a TidScan
// (tidscan.go).

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

// statement runs plan, the planning of a whole statement (an exported
// Plan* entry point; nested ones just plan), again while it asked for
// system columns the table scans did not yet produce.
func (p *Planner) statement(plan func() error) error {
	if p.planning {
		return plan()
	}
	p.planning = true
	// topSelect names the statement only while it is planned: a planner
	// used again for an INSERT must not take it for a SELECT.
	defer func() { p.planning, p.topSelect = false, nil }()
	for {
		p.startAccessChecks()
		err := plan()
		if p.sysWanted&^p.sysMask == 0 {
			if err == nil {
				err = p.checkAccess()
			}
			p.acc = nil
			return err
		}
		p.sysMask |= p.sysWanted
		p.q = planState{}
	}
}

// wantSystemColumn notes, for a column reference qual.name that no scope
// of the chain from s resolves, that the statement needs system column
// name of the table it would name. It reports whether it noted anything,
// and the column's type.
func wantSystemColumn(s levelScope, qual, name string) (types.Type, bool) {
	a, ok := sysAttrByName(name)
	if !ok {
		return types.Type{}, false
	}
	p := s.planner()
	if p == nil || p.sysMask&(1<<a) != 0 {
		return types.Type{}, false
	}
	for cur := s; cur != nil; cur = cur.up() {
		sc, isScope := cur.(*scope)
		if !isScope {
			if agg, isAgg := cur.(*aggScope); isAgg {
				sc = agg.input
			} else {
				continue
			}
		}
		for _, c := range sc.cols {
			if c.relname != "" && (qual == "" || c.rel == qual) {
				p.sysWanted |= 1 << a
				return sysAttrInfo[a].t, true
			}
		}
	}
	return types.Type{}, false
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

// fillSysAttrs stores the values of sys for the row version t (in format
// f) found at tid into dst.
func fillSysAttrs(dst Row, sys []sysAttr, rel *catalog.Relation, f tableam.Format, t tableam.Tuple, tid page.ItemPointer) {
	if len(sys) == 0 {
		return
	}
	sv := f.System(t)
	for i, a := range sys {
		var d types.Datum
		switch a {
		case sysCtid:
			d = types.TidDatum(uint32(tid.Block), uint16(tid.Offset))
		case sysXmin:
			d = types.Int(int64(sv.Xmin))
		case sysXmax:
			d = types.Int(int64(sv.Xmax))
		case sysCmin, sysCmax:
			// Both read the one t_cid field (which may hold a combo
			// command id), as in PostgreSQL.
			d = types.Int(int64(sv.Cid))
		case sysTableoid:
			d = types.Int(int64(rel.OID))
		}
		dst[i] = d
	}
}

// fillNewSysAttrs stores the values of sys for the row version this
// transaction just wrote at tid (RETURNING after UPDATE).
func fillNewSysAttrs(dst Row, sys []sysAttr, rel *catalog.Relation, tx *tableam.Txn, tid page.ItemPointer) {
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
