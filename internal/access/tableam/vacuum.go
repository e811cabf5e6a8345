package tableam

import (
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/readstream"
	"github.com/tidal-db/tidal/internal/xact"
)

// Vacuumer is a relation's space reclamation as the VACUUM driver
// (internal/vacuum) runs it, block by block: scan each block (the AM
// removes what it can alone and reports the items whose index entries must
// go first), bulk-delete those index entries, then reap the items, and
// finally cut empty blocks off the end. What a dead item is, and what
// scanning a block does (heap: prune, freeze, set all-visible; undo: purge
// rows whose deleter every snapshot sees), is the AM's.
type Vacuumer interface {
	// MaxItemsPerBlock bounds VacuumBlock's DeadItems per block (sizes the
	// dead-TID store).
	MaxItemsPerBlock() int
	// VisibilityBits returns blk's visibility-map bits (VMAllVisible, …);
	// a block all-visible there may be skipped by a non-aggressive scan.
	VisibilityBits(u *stats.Usage, blk page.BlockNumber) (byte, error)
	// VacuumBlock is the first pass over one block against the removal
	// horizon and freeze limits.
	VacuumBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, horizon xact.XID, limits FreezeLimits) (VacuumBlockResult, error)
	// ReapBlock makes dead, whose index entries are gone, reusable, and
	// returns the block's free space.
	ReapBlock(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy, dead []page.OffsetNumber, horizon xact.XID) (freeSpace int, err error)
	// RecordFreeSpace notes blk's free space for inserts to find.
	RecordFreeSpace(u *stats.Usage, blk page.BlockNumber, avail int)
	// BlockIsEmpty re-checks, under the AccessExclusiveLock, that blk
	// holds nothing, before a truncation.
	BlockIsEmpty(u *stats.Usage, blk page.BlockNumber, ring *buffer.Strategy) (bool, error)
	// Truncate cuts the relation to nblocks (WAL-logged first).
	Truncate(u *stats.Usage, nblocks page.BlockNumber) error
}

// Visibility-map bits VisibilityBits reports.
const (
	VMAllVisible byte = 1
	VMAllFrozen  byte = 2
)

// FreezeLimits are the cutoffs below which VACUUM freezes: xids older than
// Xid, multixacts older than Multi.
type FreezeLimits struct {
	Xid   xact.XID
	Multi xact.MultiXactID
}

// VacuumBlockResult is what VacuumBlock did and found.
type VacuumBlockResult struct {
	TuplesDeleted  int                 // versions removed now
	LiveTuples     int                 // versions that stay (live or recently dead)
	RecentlyDead   int                 // dead but still visible to some snapshot
	DeadItems      []page.OffsetNumber // items whose index entries must go before ReapBlock
	Frozen         int                 // versions frozen
	AllVisible     bool                // every remaining version is visible to everyone
	AllFrozen      bool
	FreeSpace      int
	Empty          bool // nothing at all on the block (a truncation candidate)
	SetVisibleBits bool // the block was marked all-visible now
}

// StreamingVacuumer is a Vacuumer whose block passes can be fed by a read
// stream (PostgreSQL 17's VACUUM reads both heap passes through one): the
// driver names the blocks in order, the stream reads them ahead, and the
// pinned buffers are handed to VacuumBuffer and ReapBuffer, which do what
// VacuumBlock and ReapBlock do and release the pin.
type StreamingVacuumer interface {
	VacuumStream(u *stats.Usage, next readstream.BlockFunc, ring *buffer.Strategy) *readstream.Stream
	VacuumBuffer(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, horizon xact.XID, limits FreezeLimits) (VacuumBlockResult, error)
	ReapBuffer(u *stats.Usage, b buffer.Buffer, blk page.BlockNumber, dead []page.OffsetNumber, horizon xact.XID) (freeSpace int, err error)
}
