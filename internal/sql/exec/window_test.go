package exec

import (
	"math"
	"testing"
)

// in_range for integers: an offset past the type's range puts the bound
// beyond every value instead of overflowing.
func TestIntInRange(t *testing.T) {
	cases := []struct {
		val, base, off  int64
		sub, less, want bool
	}{
		{5, 3, 2, false, true, true},                                // 5 <= 3+2
		{6, 3, 2, false, true, false},                               // 6 <= 3+2
		{1, 3, 2, true, false, true},                                // 1 >= 3-2
		{0, 3, 2, true, false, false},                               // 0 >= 3-2
		{math.MaxInt64, math.MaxInt64 - 1, 10, false, true, true},   // sum overflows: +inf
		{math.MinInt64, math.MinInt64 + 1, 10, true, false, true},   // sum underflows: -inf
		{math.MaxInt64, math.MaxInt64 - 1, 10, false, false, false}, // val >= +inf
	}
	for _, c := range cases {
		if got := intInRange(c.val, c.base, c.off, c.sub, c.less); got != c.want {
			t.Errorf("intInRange(%d, %d, %d, sub=%v, less=%v) = %v, want %v", c.val, c.base, c.off, c.sub, c.less, got, c.want)
		}
	}
}

// in_range for floats: NaN sorts last, and an infinite offset from an
// infinite base of the other sign admits everything.
func TestFloatInRange(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		val, base, off  float64
		sub, less, want bool
	}{
		{nan, 1, 1, false, true, false}, // NaN <= 2: no
		{nan, nan, 1, false, true, true},
		{1, nan, 1, false, true, true}, // 1 <= NaN+1
		{5, -inf, inf, false, true, true},
		{-inf, inf, inf, true, false, true},
		{1.5, 1, 0.5, false, true, true},
		{1.6, 1, 0.5, false, true, false},
	}
	for _, c := range cases {
		if got := floatInRange(c.val, c.base, c.off, c.sub, c.less); got != c.want {
			t.Errorf("floatInRange(%v, %v, %v, sub=%v, less=%v) = %v, want %v", c.val, c.base, c.off, c.sub, c.less, got, c.want)
		}
	}
}

func TestClampPos(t *testing.T) {
	if got := clampPos(3, math.MaxInt64, false, 9); got != 9 {
		t.Errorf("following a huge offset: %d, want 9", got)
	}
	if got := clampPos(3, math.MaxInt64, true, 9); got != -1 {
		t.Errorf("preceding a huge offset: %d, want -1", got)
	}
	if got := clampPos(3, 2, true, 9); got != 1 {
		t.Errorf("3 - 2: %d", got)
	}
}

// ntile gives the first total%buckets buckets one row more.
func TestNtileBuckets(t *testing.T) {
	st := &ntileState{tile: 1, boundary: 10 / 3, remainder: 10 % 3}
	st.boundary++
	var got []int64
	for i := 0; i < 10; i++ {
		got = append(got, st.step().Int())
	}
	want := []int64{1, 1, 1, 1, 2, 2, 2, 3, 3, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ntile(3) over 10 rows = %v, want %v", got, want)
		}
	}
}

// The grouping sets of ROLLUP and CUBE, as PostgreSQL expands them, and
// the chains that sorted computation splits them into.
func TestRollupChains(t *testing.T) {
	a := &Agg{Sets: [][]int{{0, 1}, {0}, {1}, {}}}
	chains := a.rollups()
	if len(chains) != 2 || len(chains[0].sets) != 3 || chains[1].sets[0] != 2 {
		t.Fatalf("cube(a, b) chains: %+v", chains)
	}
	if k := chains[0].keys; len(k) != 2 || k[0] != 0 || k[1] != 1 {
		t.Fatalf("first chain sorts by %v", k)
	}
	if p := chains[0].prefix; p[0] != 2 || p[1] != 1 || p[2] != 0 {
		t.Fatalf("prefixes %v", p)
	}
}
