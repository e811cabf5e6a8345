package tableam

import (
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/storage/page"
)

// ParallelScanner is implemented by relations whose sequential scan can be
// shared by the participants of a parallel query
// (table_parallelscan_initialize): ParallelScanInit fixes the blocks the
// scan covers, and each participant's BeginScan with ScanOptions.Parallel
// set to it reads only the chunks it claims (table_beginscan_parallel).
// Every participant scans under its own copy of the leader's snapshot, so
// together they return exactly the versions a serial scan would.
type ParallelScanner interface {
	ParallelScanInit() (*ParallelScan, error)
}

// ParallelScan is the state the participants of one parallel sequential
// scan share: the block count fixed at the start and the next unclaimed
// block. Chunks are claimed by an atomic add, so a fast participant takes
// more of the table and no block is read twice or skipped.
type ParallelScan struct {
	nblocks page.BlockNumber
	chunk   uint32
	next    atomic.Uint64
}

// parallelChunks is about how many chunks a table is cut into, as
// PostgreSQL's PARALLEL_SEQSCAN_NCHUNKS: chunks big enough that claiming
// costs nothing, small enough that participants finish together.
const (
	parallelChunks   = 1024
	maxParallelChunk = 8192
	// rampDownChunks: the last chunks are single blocks, so no participant
	// is left reading a long chunk alone at the end.
	rampDownChunks = 64
)

// NewParallelScan covers blocks [0, nblocks).
func NewParallelScan(nblocks page.BlockNumber) *ParallelScan {
	chunk := uint32(1)
	for chunk*2 <= uint32(nblocks)/parallelChunks && chunk < maxParallelChunk {
		chunk *= 2
	}
	return &ParallelScan{nblocks: nblocks, chunk: chunk}
}

// NBlocks is the number of blocks the scan covers.
func (p *ParallelScan) NBlocks() page.BlockNumber { return p.nblocks }

// Claim hands out the next chunk [start, end); ok=false when all blocks
// are claimed.
func (p *ParallelScan) Claim() (start, end page.BlockNumber, ok bool) {
	n := uint64(p.nblocks)
	size := uint64(p.chunk)
	if size > 1 && p.next.Load()+size*rampDownChunks >= n {
		size = 1
	}
	s := p.next.Add(size) - size
	if s >= n {
		return 0, 0, false
	}
	e := s + size
	if e > n {
		e = n
	}
	return page.BlockNumber(s), page.BlockNumber(e), true
}
