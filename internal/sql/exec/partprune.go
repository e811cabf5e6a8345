package exec

import (
	"fmt"
	"sort"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// Partition pruning at plan time (PostgreSQL's partprune.c, its
// plan-time half): a partition is left out of a query's Append when a
// conjunct of the query's qual comparing a key column with a constant
// (=, <, <=, >, >=, IN (…), IS [NOT] NULL) can hold for no row of it, at
// any level of the tree. Quals with parameters, expression keys and
// other shapes prune nothing; the executor-time pruning of PostgreSQL
// (parameters, joins) is not done.

// keyCond is one prunable conjunct: key column op constant.
type keyCond struct {
	col  int    // root column index
	op   string // "=", "<", "<=", ">", ">=", "in", "isnull", "notnull"
	vals []types.Datum
	t    types.Type
	e    expr.Expr
}

// pruneMembers drops the members of partitioned table root no row
// matching q can be in.
func (p *Planner) pruneMembers(root *catalog.Relation, members []*inhMember, q expr.Expr) []*inhMember {
	if q == nil {
		return members
	}
	conds := keyConds(q)
	if len(conds) == 0 {
		return members
	}
	descs := map[uint32]*partDesc{}
	var out []*inhMember
	for _, m := range members {
		keep, err := p.memberMayMatch(root, m.Rel, conds, descs)
		if err != nil || keep {
			out = append(out, m)
		}
	}
	return out
}

func keyConds(q expr.Expr) []keyCond {
	var out []keyCond
	for _, e := range conjuncts(q) {
		if kc, ok := keyCondOf(e); ok {
			out = append(out, kc)
		}
	}
	return out
}

var flippedOp = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func keyCondOf(e expr.Expr) (keyCond, bool) {
	switch x := e.(type) {
	case *expr.Func:
		if len(x.Args) != 2 || flippedOp[x.Op] == "" {
			return keyCond{}, false
		}
		op := x.Op
		v, c := x.Args[0], x.Args[1]
		if _, ok := v.(*expr.Var); !ok {
			v, c, op = c, v, flippedOp[op]
		}
		vr, ok := v.(*expr.Var)
		d, isConst := constValue(c)
		if !ok || !isConst || !sameKeyType(vr.T, c.Type()) {
			return keyCond{}, false
		}
		return keyCond{col: vr.Index, op: op, vals: []types.Datum{d}, t: vr.T, e: e}, true
	case *expr.NullTest:
		vr, ok := x.Arg.(*expr.Var)
		if !ok || x.Of != expr.TruthNull {
			return keyCond{}, false
		}
		op := "isnull"
		if x.Not {
			op = "notnull"
		}
		return keyCond{col: vr.Index, op: op, t: vr.T, e: e}, true
	case *expr.InList:
		vr, ok := x.Arg.(*expr.Var)
		if !ok || x.Not {
			return keyCond{}, false
		}
		kc := keyCond{col: vr.Index, op: "in", t: vr.T, e: e}
		for _, eq := range x.Eqs {
			f, ok := eq.(*expr.Func)
			if !ok || f.Op != "=" || len(f.Args) != 2 {
				return keyCond{}, false
			}
			d, isConst := constValue(f.Args[1])
			if !isConst || !sameKeyType(vr.T, f.Args[1].Type()) {
				return keyCond{}, false
			}
			kc.vals = append(kc.vals, d)
		}
		return kc, true
	}
	return keyCond{}, false
}

func constValue(e expr.Expr) (types.Datum, bool) {
	switch x := e.(type) {
	case *expr.Const:
		return x.Val, true
	case *expr.Cast:
		if _, ok := x.Arg.(*expr.Const); ok {
			d, err := x.Eval(nil, nil)
			return d, err == nil
		}
	}
	return types.Datum{}, false
}

// sameKeyType: a constant of type b compares with key values of type a
// by a's comparison.
func sameKeyType(a, b types.Type) bool {
	if a.OID == b.OID {
		return true
	}
	ints := map[uint32]bool{types.Int2OID: true, types.Int4OID: true, types.Int8OID: true}
	return ints[a.OID] && ints[b.OID]
}

// memberMayMatch: some row of leaf rel could satisfy every cond, judged
// by rel's bound and its ancestors' up to root.
func (p *Planner) memberMayMatch(root, rel *catalog.Relation, conds []keyCond, descs map[uint32]*partDesc) (bool, error) {
	child := rel
	for child.OID != root.OID && child.IsPartition() && len(child.Parents) == 1 {
		parentOID := child.Parents[0]
		d, ok := descs[parentOID]
		if !ok {
			parent, err := p.C.Eng.Catalog.ByOID(p.C.Tx, parentOID)
			if err != nil || parent == nil || !parent.IsPartitioned() {
				return true, err
			}
			if d, err = loadPartDesc(p.C, parent); err != nil {
				return true, err
			}
			descs[parentOID] = d
		}
		var b *partBound
		for _, x := range append(d.parts, d.def) {
			if x != nil && x.rel.OID == child.OID {
				b = x
			}
		}
		if b == nil {
			return true, nil
		}
		if !d.boundMayMatch(b, root, conds) {
			return false, nil
		}
		child = d.rel
	}
	return true, nil
}

// rootCol is the root column of key column i of d, -1 for an expression.
func (d *partDesc) rootCol(root *catalog.Relation, i int) int {
	a := d.key.Attrs[i]
	if a == 0 {
		return -1
	}
	return root.AttrByName(d.rel.Attrs[a-1].Name)
}

func (d *partDesc) boundMayMatch(b *partBound, root *catalog.Relation, conds []keyCond) bool {
	if b.isDefault {
		return d.defaultMayMatch(root, conds)
	}
	switch d.key.Strategy {
	case 'l':
		col := d.rootCol(root, 0)
		for _, kc := range conds {
			if kc.col == col && !d.listMayMatch(b, kc) {
				return false
			}
		}
	case 'r':
		for i := range d.keyTypes {
			col := d.rootCol(root, i)
			for _, kc := range conds {
				if kc.col == col && !d.rangeMayMatch(b, i, kc) {
					return false
				}
			}
			if !d.rangeColumnFixed(b, i) {
				break // later columns are bounded only within equal prefixes
			}
		}
	case 'h':
		key := make([]types.Datum, len(d.keyTypes))
		for i := range d.keyTypes {
			col, found := d.rootCol(root, i), false
			for _, kc := range conds {
				if kc.col == col && kc.op == "=" {
					key[i], found = kc.vals[0], true
				} else if kc.col == col && kc.op == "isnull" {
					key[i], found = types.Null(), true
				}
			}
			if col < 0 || !found {
				return true
			}
		}
		return d.contains(b, key)
	}
	return true
}

// rangeColumnFixed: b's lower and upper bounds agree on column i, so
// column i+1 is bounded by them too.
func (d *partDesc) rangeColumnFixed(b *partBound, i int) bool {
	lo, hi := b.lower[i], b.upper[i]
	return lo.inf == 0 && hi.inf == 0 && types.Compare(d.keyTypes[i], lo.val, hi.val) == 0
}

func (d *partDesc) listMayMatch(b *partBound, kc keyCond) bool {
	switch kc.op {
	case "isnull":
		return b.listNull
	case "notnull":
		return len(b.list) > 0
	case "=", "in":
		for _, v := range kc.vals {
			if !v.IsNull() && d.contains(b, []types.Datum{v}) {
				return true
			}
		}
		return false
	}
	for _, v := range b.list {
		if cmpHolds(kc.op, types.Compare(d.keyTypes[0], v, kc.vals[0])) {
			return true
		}
	}
	return false
}

// rangeMayMatch judges column i of range bound b against kc, given that
// the earlier columns are fixed (equal in both bounds) or i is 0.
func (d *partDesc) rangeMayMatch(b *partBound, i int, kc keyCond) bool {
	switch kc.op {
	case "isnull":
		return false
	case "notnull":
		return true
	case "in":
		for _, v := range kc.vals {
			if !v.IsNull() && d.rangeMayMatch(b, i, keyCond{op: "=", vals: []types.Datum{v}}) {
				return true
			}
		}
		return false
	}
	v := kc.vals[0]
	if v.IsNull() {
		return false
	}
	t := d.keyTypes[i]
	lo, hi := b.lower[i], b.upper[i]
	// The upper bound excludes its value only when no later column can
	// take rows past it (a single column, or the rest MINVALUE).
	hiExclusive := i == len(b.upper)-1 || b.upper[i+1].inf == -1
	loExclusive := i < len(b.lower)-1 && b.lower[i+1].inf == 1
	cmpLo := func() int { // v against lo
		if lo.inf != 0 {
			return -lo.inf
		}
		return types.Compare(t, v, lo.val)
	}
	cmpHi := func() int { // v against hi
		if hi.inf != 0 {
			return -hi.inf
		}
		return types.Compare(t, v, hi.val)
	}
	aboveLo := func(c int) bool { return c > 0 || c == 0 && !loExclusive }
	belowHi := func(c int) bool { return c < 0 || c == 0 && !hiExclusive }
	switch kc.op {
	case "=":
		return aboveLo(cmpLo()) && belowHi(cmpHi())
	case "<": // some key < v: lo below v
		return cmpLo() > 0
	case "<=":
		return aboveLo(cmpLo())
	case ">": // some key > v: hi above v
		return cmpHi() < 0
	case ">=":
		return belowHi(cmpHi())
	}
	return true
}

// defaultMayMatch: the default partition is left out when an equality
// on the (first) key column names only values other partitions hold.
func (d *partDesc) defaultMayMatch(root *catalog.Relation, conds []keyCond) bool {
	if len(d.keyTypes) != 1 || d.key.Strategy == 'h' {
		return true
	}
	col := d.rootCol(root, 0)
	for _, kc := range conds {
		if kc.col != col || (kc.op != "=" && kc.op != "in") {
			continue
		}
		all := true
		for _, v := range kc.vals {
			if v.IsNull() {
				continue
			}
			in := false
			for _, b := range d.parts {
				if d.contains(b, []types.Datum{v}) {
					in = true
				}
			}
			all = all && in
		}
		if all {
			return false
		}
	}
	return true
}

func cmpHolds(op string, c int) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return c == 0
}

// partitionMembers are the members a query of partitioned table parent
// reads: its leaves (nil when it has none, so the empty parent is read).
// They are in PostgreSQL's order: each level's partitions by bound, the
// default last, sub-partitions in place.
func (p *Planner) partitionMembers(parent *catalog.Relation, alias string, leaves []*inhMember) ([]*inhMember, error) {
	if len(leaves) == 0 {
		return nil, nil
	}
	var order []uint32
	if err := p.boundOrder(parent, &order); err != nil {
		return nil, err
	}
	byOID := map[uint32]*inhMember{}
	for _, m := range leaves {
		byOID[m.Rel.OID] = m
	}
	out := make([]*inhMember, 0, len(leaves))
	for _, oid := range order {
		if m := byOID[oid]; m != nil {
			out = append(out, m)
			delete(byOID, oid)
		}
	}
	for _, m := range leaves { // not reached by bound (none expected)
		if byOID[m.Rel.OID] != nil {
			out = append(out, m)
		}
	}
	for i, m := range out {
		m.name = fmt.Sprintf("%s_%d", alias, i+1)
	}
	return out, nil
}

// boundOrder appends rel's leaves in bound order.
func (p *Planner) boundOrder(rel *catalog.Relation, out *[]uint32) error {
	d, err := loadPartDesc(p.C, rel)
	if err != nil {
		return err
	}
	parts := append([]*partBound(nil), d.parts...)
	sort.SliceStable(parts, func(i, j int) bool { return d.boundLess(parts[i], parts[j]) })
	if d.def != nil {
		parts = append(parts, d.def)
	}
	for _, b := range parts {
		if b.rel.IsPartitioned() {
			if err := p.boundOrder(b.rel, out); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, b.rel.OID)
	}
	return nil
}

// boundLess orders two non-default partitions as PostgreSQL's partition
// bounds do.
func (d *partDesc) boundLess(a, b *partBound) bool {
	switch d.key.Strategy {
	case 'r':
		return d.cmpBounds(a.lower, b.lower) < 0
	case 'h':
		if a.modulus != b.modulus {
			return a.modulus < b.modulus
		}
		return a.remainder < b.remainder
	}
	if len(a.list) == 0 || len(b.list) == 0 {
		return len(b.list) == 0 && len(a.list) > 0 // a NULL-only partition last
	}
	return types.Compare(d.keyTypes[0], minDatum(d.keyTypes[0], a.list), minDatum(d.keyTypes[0], b.list)) < 0
}

func minDatum(t types.Type, vs []types.Datum) types.Datum {
	m := vs[0]
	for _, v := range vs[1:] {
		if types.Compare(t, v, m) < 0 {
			m = v
		}
	}
	return m
}

// noPartitions stands for a partitioned table whose partitions were all
// pruned: PostgreSQL's Result with One-Time Filter: false.
func noPartitions(cols []Column) Node {
	r := &Result{Qual: &expr.Const{Val: types.Bool(false), T: types.Boolean}}
	for _, c := range cols {
		r.Exprs = append(r.Exprs, &expr.Const{Val: types.Null(), T: c.Type})
		r.Names = append(r.Names, c.Name)
	}
	return r
}

// renamedMembers names the partitions a query reads as PostgreSQL's
// EXPLAIN does: the table's alias alone for one, alias_n for several.
func renamedMembers(alias string, ms []*inhMember) []*inhMember {
	out := make([]*inhMember, len(ms))
	for i, m := range ms {
		cp := *m
		cp.name = alias
		if len(ms) > 1 {
			cp.name = fmt.Sprintf("%s_%d", alias, i+1)
		}
		out[i] = &cp
	}
	return out
}
