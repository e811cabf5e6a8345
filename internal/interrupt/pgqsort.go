package interrupt

// QsortFunc sorts xs by cmp with PostgreSQL's in-memory sort algorithm
// (src/include/lib/sort_template.h: Bentley–McIlroy quicksort with a
// presorted check, median-of-three/ninther pivots and insertion sort
// below 7 elements). It is not stable, and on purpose: given the same
// input order it leaves equal elements in the order PostgreSQL's
// tuplesort does, so rows that tie on ORDER BY come out as PostgreSQL
// returns them. check is called every few thousand comparisons; its
// error aborts the sort (xs is then a permutation in no useful order).
func QsortFunc[T any](xs []T, cmp func(a, b T) int, check func() error) error {
	q := qsorter[T]{xs: xs, cmp: cmp, check: check}
	return q.sort(0, len(xs))
}

type qsorter[T any] struct {
	xs    []T
	cmp   func(a, b T) int
	check func() error
	calls int
}

func (q *qsorter[T]) less(i, j int) int { return q.cmp(q.xs[i], q.xs[j]) }

func (q *qsorter[T]) tick() error {
	if q.calls++; q.calls&(1<<12-1) == 0 {
		return q.check()
	}
	return nil
}

func (q *qsorter[T]) swap(i, j int) { q.xs[i], q.xs[j] = q.xs[j], q.xs[i] }

func (q *qsorter[T]) swapn(i, j, n int) {
	for k := 0; k < n; k++ {
		q.swap(i+k, j+k)
	}
}

func (q *qsorter[T]) med3(a, b, c int) int {
	if q.less(a, b) < 0 {
		if q.less(b, c) < 0 {
			return b
		}
		if q.less(a, c) < 0 {
			return c
		}
		return a
	}
	if q.less(b, c) > 0 {
		return b
	}
	if q.less(a, c) < 0 {
		return a
	}
	return c
}

// sort sorts xs[a:a+n].
func (q *qsorter[T]) sort(a, n int) error {
	for {
		if err := q.tick(); err != nil {
			return err
		}
		if n < 7 {
			for pm := a + 1; pm < a+n; pm++ {
				for pl := pm; pl > a && q.less(pl-1, pl) > 0; pl-- {
					q.swap(pl, pl-1)
				}
			}
			return nil
		}
		presorted := true
		for pm := a + 1; pm < a+n; pm++ {
			if err := q.tick(); err != nil {
				return err
			}
			if q.less(pm-1, pm) > 0 {
				presorted = false
				break
			}
		}
		if presorted {
			return nil
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = q.med3(pl, pl+d, pl+2*d)
				pm = q.med3(pm-d, pm, pm+d)
				pn = q.med3(pn-2*d, pn-d, pn)
			}
			pm = q.med3(pl, pm, pn)
		}
		q.swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := q.less(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					q.swap(pa, pb)
					pa++
				}
				pb++
				if err := q.tick(); err != nil {
					return err
				}
			}
			for pb <= pc {
				r := q.less(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					q.swap(pc, pd)
					pd--
				}
				pc--
				if err := q.tick(); err != nil {
					return err
				}
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		d1 := min(pa-a, pb-pa)
		q.swapn(a, pb-d1, d1)
		d1 = min(pd-pc, pn-pd-1)
		q.swapn(pb, pn-d1, d1)
		d1, d2 := pb-pa, pd-pc
		if d1 <= d2 {
			if d1 > 1 {
				if err := q.sort(a, d1); err != nil {
					return err
				}
			}
			if d2 <= 1 {
				return nil
			}
			a, n = pn-d2, d2
		} else {
			if d2 > 1 {
				if err := q.sort(pn-d2, d2); err != nil {
					return err
				}
			}
			if d1 <= 1 {
				return nil
			}
			n = d1
		}
	}
}
