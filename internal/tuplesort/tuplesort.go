package tuplesort

import (
	"container/heap"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// Tuple is one sorted row.
type Tuple = []datum.Datum

// Config says how to sort and within what.
type Config struct {
	// WorkMemKB bounds the tuples held in memory (work_mem,
	// maintenance_work_mem); past it the sort spills sorted runs.
	WorkMemKB int64
	// Compare orders two tuples; the sort is stable (equal tuples come
	// out in the order they were put).
	Compare func(a, b Tuple) int
	// Abbrev, if set, gives a tuple's abbreviated key: a uint64 such that
	// Abbrev(a) < Abbrev(b) implies Compare(a, b) < 0 (and equal tuples
	// have equal keys); ok=false when the tuple has none (a NULL first
	// key). Most comparisons then stop at the integers.
	Abbrev func(t Tuple) (key uint64, ok bool)
	// Space holds the sort's temporary files; Usage (may be nil) is
	// charged with their blocks.
	Space *tempfile.Space
	Usage *stats.Usage
	// Check is CHECK_FOR_INTERRUPTS, called every few thousand tuples.
	Check func() error
}

// item is a tuple in memory with its abbreviated key.
type item struct {
	key    uint64
	hasKey bool
	t      Tuple
}

// Sorter sorts tuples, in memory while they fit in WorkMemKB and by an
// external merge of sorted runs in temporary files when they do not.
type Sorter struct {
	cfg     Config
	limit   int64
	mem     []item
	memUsed int64
	peakMem int64
	runs    []*run
	spilled bool
	// diskPeak is the most bytes the sort's files held at once.
	diskPeak, diskNow int64
	// after Done: the in-memory result, or the final merge.
	pos    int
	merger *merger
	done   bool
	puts   int
}

// New starts a sort.
func New(cfg Config) *Sorter {
	if cfg.Check == nil {
		cfg.Check = func() error { return nil }
	}
	return &Sorter{cfg: cfg, limit: max(cfg.WorkMemKB, 64) * 1024}
}

// itemOverhead is an item's own bytes beside its tuple.
const itemOverhead = 40

// Put adds a tuple; the Sorter keeps it (the caller must not change it).
func (s *Sorter) Put(t Tuple) error {
	if s.done {
		panic("tuplesort: Put after Done")
	}
	it := item{t: t}
	if s.cfg.Abbrev != nil {
		it.key, it.hasKey = s.cfg.Abbrev(t)
	}
	if len(s.mem) == cap(s.mem) {
		// Double (append grows large slices by a quarter, copying the
		// items over and over).
		grown := make([]item, len(s.mem), 2*cap(s.mem)+1024)
		copy(grown, s.mem)
		s.mem = grown
	}
	s.mem = append(s.mem, it)
	s.memUsed += datum.SpillMemSize(t) + itemOverhead
	s.peakMem = max(s.peakMem, s.memUsed)
	if s.puts++; s.puts&4095 == 0 {
		if err := s.cfg.Check(); err != nil {
			return err
		}
	}
	if s.memUsed > s.limit {
		return s.dumpRun()
	}
	return nil
}

func (s *Sorter) less(a, b *item) int {
	if a.hasKey && b.hasKey && a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	return s.cfg.Compare(a.t, b.t)
}

func (s *Sorter) sortMem() error {
	return interrupt.SortFunc(s.mem, func(a, b item) int { return s.less(&a, &b) }, s.cfg.Check)
}

// sortAllInMemory sorts a sort that never spilled with PostgreSQL's own
// quicksort (interrupt.QsortFunc), so rows that tie on the keys come out
// in the order PostgreSQL returns them. Runs of a spilled sort are sorted
// stably instead (sortMem), which keeps the merged output deterministic;
// PostgreSQL's tie order differs between its in-memory and external sorts
// too.
func (s *Sorter) sortAllInMemory() error {
	return interrupt.QsortFunc(s.mem, func(a, b item) int { return s.less(&a, &b) }, s.cfg.Check)
}

// dumpRun sorts the tuples in memory and writes them out as a run.
func (s *Sorter) dumpRun() error {
	if err := s.sortMem(); err != nil {
		return err
	}
	f, err := s.cfg.Space.Create(s.cfg.Usage)
	if err != nil {
		return err
	}
	r := &run{f: f}
	s.runs = append(s.runs, r)
	for i := range s.mem {
		if i&4095 == 4095 {
			if err := s.cfg.Check(); err != nil {
				return err
			}
		}
		if err := s.writeTuple(f, s.mem[i].t); err != nil {
			return err
		}
		s.mem[i] = item{}
	}
	if err := f.Flush(); err != nil {
		return err
	}
	s.noteDisk(f.Size())
	s.mem, s.memUsed, s.spilled = s.mem[:0], 0, true
	return nil
}

func (s *Sorter) noteDisk(delta int64) {
	s.diskNow += delta
	s.diskPeak = max(s.diskPeak, s.diskNow)
}

func (s *Sorter) writeTuple(f *tempfile.File, t Tuple) error { return f.WriteRow(t) }

// Done ends the input and sorts: in memory, or by merging the runs until
// one merge of at most the fan-in work_mem allows is left, which Next
// performs as it goes (PostgreSQL's final on-the-fly merge).
func (s *Sorter) Done() error {
	s.done = true
	if !s.spilled {
		return s.sortAllInMemory()
	}
	if len(s.mem) > 0 {
		if err := s.dumpRun(); err != nil {
			return err
		}
	}
	s.mem = nil
	fanIn := s.fanIn()
	for len(s.runs) > fanIn {
		if err := s.mergePass(fanIn); err != nil {
			return err
		}
	}
	m, err := s.newMerger(s.runs)
	if err != nil {
		return err
	}
	s.merger = m
	return nil
}

// fanIn is how many runs one merge reads at once: each needs a read
// buffer, and their buffers must fit in work_mem (at least 2 runs, at
// most the runs there are).
func (s *Sorter) fanIn() int {
	return max(2, int(s.limit/(mergeBufBlocks*tempfile.BlockSize)))
}

// mergeBufBlocks is each merged run's read buffer, in blocks.
const mergeBufBlocks = 2

// mergePass merges consecutive groups of fanIn runs into one run each;
// groups of consecutive runs keep the sort stable.
func (s *Sorter) mergePass(fanIn int) error {
	var next []*run
	for lo := 0; lo < len(s.runs); lo += fanIn {
		group := s.runs[lo:min(lo+fanIn, len(s.runs))]
		if len(group) == 1 {
			next = append(next, group[0])
			continue
		}
		out, err := s.mergeToRun(group)
		if err != nil {
			return err
		}
		next = append(next, out)
	}
	s.runs = next
	return nil
}

func (s *Sorter) mergeToRun(group []*run) (*run, error) {
	m, err := s.newMerger(group)
	if err != nil {
		return nil, err
	}
	defer m.close()
	f, err := s.cfg.Space.Create(s.cfg.Usage)
	if err != nil {
		return nil, err
	}
	out := &run{f: f}
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := s.cfg.Check(); err != nil {
				f.Close()
				return nil, err
			}
		}
		t, err := m.next()
		if err != nil {
			f.Close()
			return nil, err
		}
		if t == nil {
			break
		}
		if err := s.writeTuple(f, t); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := f.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	s.noteDisk(f.Size())
	for _, r := range group {
		s.noteDisk(-r.f.Size())
	}
	return out, nil
}

// Next returns the next tuple in order, nil after the last.
func (s *Sorter) Next() (Tuple, error) {
	if !s.done {
		panic("tuplesort: Next before Done")
	}
	if s.merger != nil {
		if s.pos++; s.pos&4095 == 0 {
			if err := s.cfg.Check(); err != nil {
				return nil, err
			}
		}
		return s.merger.next()
	}
	if s.pos >= len(s.mem) {
		return nil, nil
	}
	t := s.mem[s.pos].t
	s.mem[s.pos] = item{}
	s.pos++
	return t, nil
}

// Stats describes how the sort ran, for EXPLAIN ANALYZE.
type Stats struct {
	// Method is "quicksort" or "external merge" (PostgreSQL's names).
	Method string
	// SpaceType is "Memory" or "Disk"; SpaceKB the peak use of it.
	SpaceType string
	SpaceKB   int64
}

// Stats reports the sort's method and space.
func (s *Sorter) Stats() Stats {
	if s.spilled {
		return Stats{Method: "external merge", SpaceType: "Disk", SpaceKB: (s.diskPeak + 1023) / 1024}
	}
	return Stats{Method: "quicksort", SpaceType: "Memory", SpaceKB: (s.peakMem + 1023) / 1024}
}

// Close frees the sort's memory and removes its temporary files.
func (s *Sorter) Close() {
	if s.merger != nil {
		s.merger.close()
		s.merger = nil
	}
	for _, r := range s.runs {
		r.f.Close()
	}
	s.runs, s.mem = nil, nil
}

// run is one sorted run in its own temporary file.
type run struct {
	f *tempfile.File
}

// merger is a k-way merge of runs through a heap; ties go to the earlier
// run, which holds the earlier input, so the merge is stable.
type merger struct {
	s     *Sorter
	runs  []*run
	heads []head
}

type head struct {
	it  item
	src int
	rr  *tempfile.Reader
}

func (s *Sorter) newMerger(runs []*run) (*merger, error) {
	m := &merger{s: s, runs: runs}
	for i, r := range runs {
		rr := r.f.NewReader(0, -1, mergeBufBlocks)
		t, err := rr.ReadRow()
		if err != nil {
			return nil, err
		}
		if t != nil {
			m.heads = append(m.heads, head{it: s.itemOf(t), src: i, rr: rr})
		}
	}
	heap.Init(m)
	return m, nil
}

func (s *Sorter) itemOf(t Tuple) item {
	it := item{t: t}
	if s.cfg.Abbrev != nil {
		it.key, it.hasKey = s.cfg.Abbrev(t)
	}
	return it
}

func (m *merger) Len() int { return len(m.heads) }
func (m *merger) Less(i, j int) bool {
	if c := m.s.less(&m.heads[i].it, &m.heads[j].it); c != 0 {
		return c < 0
	}
	return m.heads[i].src < m.heads[j].src
}
func (m *merger) Swap(i, j int) { m.heads[i], m.heads[j] = m.heads[j], m.heads[i] }
func (m *merger) Push(x any)    { m.heads = append(m.heads, x.(head)) }
func (m *merger) Pop() any {
	h := m.heads[len(m.heads)-1]
	m.heads = m.heads[:len(m.heads)-1]
	return h
}

// next returns the smallest head and refills from its run.
func (m *merger) next() (Tuple, error) {
	if len(m.heads) == 0 {
		return nil, nil
	}
	top := &m.heads[0]
	t := top.it.t
	nt, err := top.rr.ReadRow()
	if err != nil {
		return nil, err
	}
	if nt == nil {
		heap.Pop(m)
	} else {
		top.it = m.s.itemOf(nt)
		heap.Fix(m, 0)
	}
	return t, nil
}

// close removes the merged runs' files: they are read once.
func (m *merger) close() {
	for _, r := range m.runs {
		r.f.Close()
	}
	m.heads = nil
}
