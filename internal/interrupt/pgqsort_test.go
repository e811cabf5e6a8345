package interrupt

import (
	"errors"
	"math/rand"
	"slices"
	"testing"
)

// TestQsortSorts checks QsortFunc against the standard library on random
// inputs with many ties, presorted and reversed runs: the result is a
// sorted permutation of the input.
func TestQsortSorts(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	type item struct{ key, id int }
	for trial := 0; trial < 400; trial++ {
		n := rng.Intn(300)
		xs := make([]item, n)
		for i := range xs {
			xs[i] = item{rng.Intn(1 + rng.Intn(20)), i}
		}
		switch trial % 4 {
		case 1:
			slices.SortFunc(xs, func(a, b item) int { return a.key - b.key })
		case 2:
			slices.SortFunc(xs, func(a, b item) int { return b.key - a.key })
		}
		got := slices.Clone(xs)
		if err := QsortFunc(got, func(a, b item) int { return a.key - b.key }, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(got, func(a, b item) int { return a.key - b.key }) {
			t.Fatalf("trial %d: not sorted: %v", trial, got)
		}
		ids := make([]int, n)
		for i, x := range got {
			ids[i] = x.id
		}
		slices.Sort(ids)
		for i := range ids {
			if ids[i] != i {
				t.Fatalf("trial %d: not a permutation", trial)
			}
		}
	}
}

// TestQsortTieOrder pins the order PostgreSQL 15 returns ties in: ten
// rows (key, heap position) sorted by key alone, as
// SELECT ... FROM empsalary ORDER BY depname gives them.
func TestQsortTieOrder(t *testing.T) {
	// empsalary's rows in heap order: depname, empno
	rows := []struct {
		dep   string
		empno int
	}{{"develop", 10}, {"sales", 1}, {"personnel", 5}, {"sales", 4}, {"personnel", 2},
		{"develop", 7}, {"develop", 9}, {"sales", 3}, {"develop", 8}, {"develop", 11}}
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	cmp := func(a, b int) int {
		switch {
		case rows[a].dep < rows[b].dep:
			return -1
		case rows[a].dep > rows[b].dep:
			return 1
		}
		return 0
	}
	if err := QsortFunc(idx, cmp, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, i := range idx {
		got = append(got, rows[i].empno)
	}
	// PostgreSQL 15: SELECT empno FROM empsalary ORDER BY depname
	want := []int{11, 7, 9, 8, 10, 5, 2, 3, 1, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want PostgreSQL's %v", got, want)
	}
}

func TestQsortCheckAborts(t *testing.T) {
	xs := make([]int, 100000)
	for i := range xs {
		xs[i] = (i * 7919) % 1000
	}
	stop := errors.New("stop")
	err := QsortFunc(xs, func(a, b int) int { return a - b }, func() error { return stop })
	if err != stop {
		t.Fatalf("got %v, want the check's error", err)
	}
}
