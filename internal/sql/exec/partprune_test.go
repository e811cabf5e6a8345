package exec

import (
	"testing"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/sql/types"
)

func rangeBoundOf(lo, hi []rangeDatum) *partBound { return &partBound{lower: lo, upper: hi} }

func val(i int64) rangeDatum { return rangeDatum{val: types.Int(i)} }

// TestRangeMayMatch checks the plan-time pruning of one range partition
// against comparisons with a constant (as PostgreSQL, not knowing a
// type is discrete: a > 19 may match [10, 20)), for a one-column key
// [10, 20) and
// a two-column key from (1, 5) to (2, 0).
func TestRangeMayMatch(t *testing.T) {
	one := &partDesc{key: &catalog.PartitionKey{Strategy: 'r', Attrs: []int16{1}}, keyTypes: []types.Type{types.Int4}}
	b := rangeBoundOf([]rangeDatum{val(10)}, []rangeDatum{val(20)})
	for _, c := range []struct {
		op   string
		v    int64
		want bool
	}{
		{"=", 9, false}, {"=", 10, true}, {"=", 19, true}, {"=", 20, false},
		{"<", 10, false}, {"<", 11, true}, {"<=", 10, true}, {"<=", 9, false},
		{">", 20, false}, {">", 19, true}, {">=", 20, false}, {">=", 19, true},
	} {
		kc := keyCond{op: c.op, vals: []types.Datum{types.Int(c.v)}}
		if got := one.rangeMayMatch(b, 0, kc); got != c.want {
			t.Errorf("[10, 20) a %s %d: %v, want %v", c.op, c.v, got, c.want)
		}
	}
	two := &partDesc{key: &catalog.PartitionKey{Strategy: 'r', Attrs: []int16{1, 2}}, keyTypes: []types.Type{types.Int4, types.Int4}}
	b2 := rangeBoundOf([]rangeDatum{val(1), val(5)}, []rangeDatum{val(2), val(0)})
	// Rows (1, b>=5) and (2, b<0): a = 2 may match, a = 3 may not.
	for _, c := range []struct {
		v    int64
		want bool
	}{{0, false}, {1, true}, {2, true}, {3, false}} {
		kc := keyCond{op: "=", vals: []types.Datum{types.Int(c.v)}}
		if got := two.rangeMayMatch(b2, 0, kc); got != c.want {
			t.Errorf("from (1, 5) to (2, 0), a = %d: %v, want %v", c.v, got, c.want)
		}
	}
	if two.rangeColumnFixed(b2, 0) {
		t.Errorf("column a differs in the bounds, b is not bounded by them")
	}
}

// TestListMayMatch checks list pruning, NULL included.
func TestListMayMatch(t *testing.T) {
	d := &partDesc{key: &catalog.PartitionKey{Strategy: 'l', Attrs: []int16{1}}, keyTypes: []types.Type{types.Int4}}
	b := &partBound{list: []types.Datum{types.Int(1), types.Int(3)}, listNull: true}
	for _, c := range []struct {
		kc   keyCond
		want bool
	}{
		{keyCond{op: "=", vals: []types.Datum{types.Int(3)}}, true},
		{keyCond{op: "=", vals: []types.Datum{types.Int(2)}}, false},
		{keyCond{op: "in", vals: []types.Datum{types.Int(2), types.Int(4)}}, false},
		{keyCond{op: ">", vals: []types.Datum{types.Int(2)}}, true},
		{keyCond{op: ">", vals: []types.Datum{types.Int(3)}}, false},
		{keyCond{op: "isnull"}, true},
	} {
		if got := d.listMayMatch(b, c.kc); got != c.want {
			t.Errorf("IN (1, 3, NULL) %s %v: %v, want %v", c.kc.op, c.kc.vals, got, c.want)
		}
	}
}
