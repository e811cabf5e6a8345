package tidstore

import (
	"fmt"
	"testing"
)

// The benchmark table of the issue: 226 tuples per 8 KiB page, rows with
// id = 1..N laid out in id order, so row id sits at block (id-1)/226,
// offset (id-1)%226+1.
const tuplesPerPage = 226

type deadPattern struct {
	name string
	dead func(id int64) bool
	// pg17BytesPerTID is PostgreSQL 17's measured dead_tuple_bytes / TIDs
	// (bench/baselines/pg17-tidstore.md); the radix store must not exceed
	// goalBytesPerTID.
	pg17BytesPerTID float64
	goalBytesPerTID float64
}

var deadPatterns = []deadPattern{
	{"dense", func(id int64) bool { return id%10 != 0 }, 0.280, 0.280},
	{"forty", func(id int64) bool { return id%5 == 0 || id%5 == 1 }, 0.631, 0.631},
	{"sparse", func(id int64) bool { return id%200 == 0 }, 8.61, 6.0},
}

// patternBlocks calls fn for every block of an N-row table that has dead
// rows under dead, with the block's dead offsets (the slice is reused).
func patternBlocks(rows int64, dead func(int64) bool, fn func(blk BlockNumber, offs []OffsetNumber)) {
	offs := make([]OffsetNumber, 0, tuplesPerPage)
	for first := int64(1); first <= rows; first += tuplesPerPage {
		offs = offs[:0]
		last := min(first+tuplesPerPage-1, rows)
		for id := first; id <= last; id++ {
			if dead(id) {
				offs = append(offs, OffsetNumber(id-first+1))
			}
		}
		if len(offs) > 0 {
			fn(BlockNumber((first-1)/tuplesPerPage), offs)
		}
	}
}

// buildPattern fills s with the dead TIDs of an N-row table.
func buildPattern(s Store, rows int64, dead func(int64) bool) {
	patternBlocks(rows, dead, func(blk BlockNumber, offs []OffsetNumber) { s.SetBlockOffsets(blk, offs) })
}

func tableTIDs(rows int64) int64 {
	return (rows + tuplesPerPage - 1) / tuplesPerPage * tuplesPerPage
}

var kinds = []string{KindRadix, KindArray}

// newStore returns an empty store of the kind. The array preallocates room
// for maxTIDs TIDs (or a small default when maxTIDs <= 0) and grows past it
// if a test adds more.
func newStore(t testing.TB, kind string, maxTIDs int64) Store {
	t.Helper()
	if kind == KindArray {
		if maxTIDs <= 0 {
			maxTIDs = 4096
		}
		return NewArray(1<<30, maxTIDs)
	}
	s, err := New(kind, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tidString(blk BlockNumber, off OffsetNumber) string { return fmt.Sprintf("(%d,%d)", blk, off) }
