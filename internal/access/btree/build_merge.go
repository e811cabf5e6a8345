package btree

import (
	"container/heap"

	"github.com/tidal-db/tidal/internal/tuplesort"
)

// entryStream is the sorted entries of a build, one at a time (nil at the
// end).
type entryStream interface {
	Next() (tuplesort.Tuple, error)
}

// entries is the build's sorted stream: the one spool's sort, or the merge
// of the participants' sorted spools (the leader's merge of a parallel
// build, _bt_parallel_scan_and_sort's output merged by tuplesort_performsort
// on the leader). Entries are unique by TID, so the merge's tie order does
// not matter.
func (b *Builder) entries() (entryStream, error) {
	if len(b.spools) == 1 {
		return b.spools[0].sorter, nil
	}
	m := &spoolMerge{b: b}
	for _, s := range b.spools {
		t, err := s.sorter.Next()
		if err != nil {
			return nil, err
		}
		if t != nil {
			m.heads = append(m.heads, spoolHead{t: t, s: s.sorter})
		}
	}
	heap.Init(m)
	return m, nil
}

type spoolHead struct {
	t tuplesort.Tuple
	s *tuplesort.Sorter
}

// spoolMerge is a heap of the spools' next entries.
type spoolMerge struct {
	b     *Builder
	heads []spoolHead
}

func (m *spoolMerge) Len() int { return len(m.heads) }
func (m *spoolMerge) Less(i, j int) bool {
	return m.b.compareEntries(m.heads[i].t, m.heads[j].t) < 0
}
func (m *spoolMerge) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *spoolMerge) Push(x any)    { m.heads = append(m.heads, x.(spoolHead)) }
func (m *spoolMerge) Pop() any {
	h := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return h
}

func (m *spoolMerge) Next() (tuplesort.Tuple, error) {
	if len(m.heads) == 0 {
		return nil, nil
	}
	top := &m.heads[0]
	t := top.t
	next, err := top.s.Next()
	if err != nil {
		return nil, err
	}
	if next == nil {
		heap.Pop(m)
	} else {
		top.t = next
		heap.Fix(m, 0)
	}
	return t, nil
}

// Spool is the builder's own spool, which Add fills: a parallel build's
// leader sorts it when its part of the scan ends.
func (b *Builder) Spool() *Spool { return b.spools[0] }
