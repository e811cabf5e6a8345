package exec

import (
	"hash/maphash"
	"strconv"
	"unsafe"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
)

// Hash aggregation within hash_mem (work_mem × hash_mem_multiplier), as
// PostgreSQL 13+ does it: while the groups fit, every row goes to its
// group; once the table is full, rows of groups already in it still do,
// and rows of any other group are written to one of aggPartitions
// temporary files chosen by bits of the group key's hash. When the input
// ends, the groups in memory are emitted, the table is dropped, and each
// partition is aggregated the same way in its turn (a batch), spilling to
// partitions of its own by the next bits of the hash if it is still too
// big. A group's rows all go through one batch, so aggregate states are
// never written out, only input rows.

// A full batch spills into a power of two of partitions, between 4 and
// 256 (PostgreSQL's bounds): as many as the rest of its input would need
// to fit in hash_mem, by the bytes its groups took so far, times 1.5
// (HASH_PARTITION_FACTOR); a first batch, whose input size is unknown,
// uses firstPartitions.
const (
	minPartitions   = 4
	maxPartitions   = 256
	firstPartitions = 64
)

// choosePartitions is how many partitions a batch that filled hash_mem
// after n rows, with rows in all (-1: unknown), spills into.
func (sp *aggSpill) choosePartitions(n, rows, mem int64, groups int) int {
	if rows < 0 || groups == 0 {
		return firstPartitions
	}
	want := float64(rows-n) * float64(mem) / float64(groups) * 1.5
	k := minPartitions
	for k < maxPartitions && float64(k)*float64(sp.limit) < want {
		k *= 2
	}
	return k
}

// aggSpill is a grouped Agg's spill state.
type aggSpill struct {
	limit   int64
	seed    maphash.Seed
	pending []aggPartition
	// batches counts the batches aggregated; memPeak is the most bytes a
	// batch's groups held; diskNow/diskPeak the bytes in partitions.
	batches           int
	memPeak           int64
	diskNow, diskPeak int64
}

// aggPartition is one partition's rows, to aggregate at depth.
type aggPartition struct {
	f     *tempfile.File
	rows  int64
	depth int
}

// hashMemKB is hash_mem: work_mem × hash_mem_multiplier, in kB.
func (c *Ctx) hashMemKB() int64 {
	wm := c.settingKB("work_mem", 4096)
	mult := 2.0
	if c.Setting != nil {
		if v, err := strconv.ParseFloat(c.Setting("hash_mem_multiplier"), 64); err == nil && v >= 1 {
			mult = v
		}
	}
	return int64(float64(wm) * mult)
}

// canSpill: a grouped Agg of its own (not half of a parallel
// aggregation, whose partial groups go to a Gather) with somewhere to
// spill.
func (a *Agg) canSpill(c *Ctx) bool {
	return a.split == aggSimple && a.Sets == nil && (len(a.GroupBy) > 0 || a.distinct) && c.TempFiles != nil
}

// groupMemSize is what one group costs in memory: its map entry and key
// string, the aggGroup, its key Datums and aggregate states. (States that
// grow with their rows — array_agg, string_agg, ordered aggregates — are
// counted at their start size.)
func (a *Agg) groupMemSize(key string, keys []types.Datum) int64 {
	n := int64(48+len(key)) + int64(unsafe.Sizeof(aggGroup{})) + datum.SpillMemSize(keys)
	return n + int64(len(a.Aggs))*int64(unsafe.Sizeof(aggState{}))
}

// partitionOf picks a row's partition of n at depth from its group key:
// the key's hash mixed with the depth (a murmur3 finalizer), so the rows
// of one partition spread over all partitions of the next level.
func (sp *aggSpill) partitionOf(key []byte, depth, n int) int {
	x := maphash.Bytes(sp.seed, key) ^ uint64(depth)*0x9e3779b97f4a7c15
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return int(x % uint64(n))
}

// aggBatch aggregates the rows next returns into groups while they fit,
// spilling the rows of groups that do not to partitions at depth+1.
// rows is how many rows next will return (-1: unknown).
func (a *Agg) aggBatch(c *Ctx, next func() (Row, error), depth int, rows int64) ([]*aggGroup, error) {
	sp := a.spill
	groups := map[string]*aggGroup{}
	var order []*aggGroup
	var parts []aggPartition
	var mem int64
	full := false
	var kb []byte
	scratch := make([]types.Datum, len(a.GroupBy))
	defer func() {
		for _, p := range parts {
			if p.f != nil && p.rows == 0 {
				p.f.Close()
			}
		}
	}()
	for n := int64(0); ; n++ {
		if n&4095 == 4095 {
			if err := c.checkCancel(); err != nil {
				return nil, err
			}
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		if kb, err = a.groupKey(c, r, scratch, kb[:0]); err != nil {
			return nil, err
		}
		g := groups[string(kb)] // no allocation for the lookup
		if g == nil && full {
			if parts == nil {
				parts = make([]aggPartition, sp.choosePartitions(n, rows, mem, len(groups)))
			}
			if err := a.spillRow(c, parts, kb, depth, r); err != nil {
				return nil, err
			}
			continue
		}
		if g == nil {
			keys := append([]types.Datum(nil), scratch...)
			g = &aggGroup{key: string(kb), keys: keys, states: make([]aggState, len(a.Aggs))}
			groups[g.key] = g
			order = append(order, g)
			if sp != nil {
				mem += a.groupMemSize(g.key, keys)
				full = mem > sp.limit
			}
		}
		for i, ag := range a.Aggs {
			if err := ag.step(c, &g.states[i], r); err != nil {
				return nil, err
			}
		}
	}
	if sp != nil {
		sp.batches++
		sp.memPeak = max(sp.memPeak, mem)
		for _, p := range parts {
			if p.rows == 0 {
				continue
			}
			if err := p.f.Flush(); err != nil {
				return nil, err
			}
			sp.diskNow += p.f.Size()
			sp.diskPeak = max(sp.diskPeak, sp.diskNow)
			sp.pending = append(sp.pending, aggPartition{f: p.f, rows: p.rows, depth: depth + 1})
		}
		parts = nil
	}
	return order, nil
}

// groupKey evaluates a row's group keys into keys and appends their
// hashable form to kb.
func (a *Agg) groupKey(c *Ctx, r Row, keys []types.Datum, kb []byte) ([]byte, error) {
	for i, g := range a.GroupBy {
		d, err := g.Eval(c.Env, r)
		if err != nil {
			return nil, err
		}
		keys[i] = d
		if d.IsNull() {
			kb = append(kb, "\x00N"...)
		} else {
			kb = types.AppendGroupKey(kb, g.Type(), d)
		}
		kb = append(kb, 0)
	}
	return kb, nil
}

func (a *Agg) spillRow(c *Ctx, parts []aggPartition, key []byte, depth int, r Row) error {
	p := &parts[a.spill.partitionOf(key, depth, len(parts))]
	if p.f == nil {
		f, err := c.tempSpace().Create(c.U())
		if err != nil {
			return err
		}
		p.f = f
	}
	p.rows++
	return p.f.WriteRow(r)
}

// nextBatch aggregates the next pending partition into a.out; false when
// none is left.
func (a *Agg) nextBatch(c *Ctx) (bool, error) {
	sp := a.spill
	if sp == nil || len(sp.pending) == 0 {
		return false, nil
	}
	p := sp.pending[0]
	sp.pending = sp.pending[1:]
	defer func() {
		sp.diskNow -= p.f.Size()
		p.f.Close()
	}()
	rd := p.f.NewReader(0, -1, 4)
	order, err := a.aggBatch(c, rd.ReadRow, p.depth, p.rows)
	if err != nil {
		return false, err
	}
	return true, a.finalizeGroups(c, order)
}

// closeSpill removes the partitions not aggregated yet (an Agg closed
// early, or failed).
func (a *Agg) closeSpill() {
	if a.spill == nil {
		return
	}
	for _, p := range a.spill.pending {
		p.f.Close()
	}
	a.spill.pending = nil
}
