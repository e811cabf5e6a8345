package interrupt

// SortFunc sorts xs stably by cmp, as slices.SortStableFunc does, but
// calls check every few thousand element moves and gives up with its
// error: a sort of millions of rows must still honour a cancel. On error
// the order (and multiset) of xs is unspecified; callers discard it.
func SortFunc[T any](xs []T, cmp func(a, b T) int, check func() error) error {
	const run = 24 // insertion-sorted runs merged bottom-up
	const checkEvery = 1 << 13
	n := len(xs)
	moved := 0
	for lo := 0; lo < n; lo += run {
		insertionSort(xs[lo:min(lo+run, n)], cmp)
		if moved += run; moved >= checkEvery {
			moved = 0
			if err := check(); err != nil {
				return err
			}
		}
	}
	if n <= run {
		return nil
	}
	src, dst := xs, make([]T, n)
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			merge(dst[lo:hi], src[lo:mid], src[mid:hi], cmp)
			if moved += hi - lo; moved >= checkEvery {
				moved = 0
				if err := check(); err != nil {
					return err
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
	return nil
}

func insertionSort[T any](xs []T, cmp func(a, b T) int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && cmp(xs[j], xs[j-1]) < 0; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// merge merges the sorted a and b into dst (len(a)+len(b)), taking from
// a on ties so that the merge is stable.
func merge[T any](dst, a, b []T, cmp func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
