// Package btree is tidal's B-tree index access method: a Lehman–Yao B+tree
// (right links and high keys, so readers never lock more than one page at a
// time and splits never block searches) laid out on disk exactly as
// PostgreSQL 15's nbtree lays it out, so that an index occupies the same
// number of pages, and its WAL records carry full-page images of the same
// sizes, as in PostgreSQL.
//
//   - Block 0 is the metapage (BTMetaPageData: magic 0x053162, version 4,
//     root, level, fastroot, fastlevel, ...). Every other page carries the
//     16-byte BTPageOpaqueData special space (prev/next links, level,
//     flags, cycle id). Non-rightmost pages hold their high key at offset 1.
//   - Index tuples are IndexTupleData: 6-byte heap TID, 2-byte t_info, an
//     optional 4-byte null bitmap, then the key data area (as
//     datum.FillData lays it out) from MAXALIGN of the header.
//   - The heap TID is a tiebreaker key column (PostgreSQL 12+ "heapkeyspace"),
//     so every entry is unique as (key..., TID) and duplicates are kept in TID
//     order. Pivot tuples (high keys and downlinks) are suffix-truncated.
//
// Entry points: [Builder] (CREATE INDEX: sort, then write pages bottom-up
// through smgr, one full-page-image WAL record per page), [Index.Insert]
// (with unique checking through a caller-supplied callback),
// [Index.Scan] (range and equality scans returning TIDs in key order),
// [Index.BulkDelete] (VACUUM's index pass, which also deletes empty leaves
// and finds deleted pages that splits may recycle) and [Index.Stats].
//
// Every page change is made under an exclusive content lock and covered by
// one WAL record whose page deltas cover every byte changed; redo is the WAL
// layer's generic image/delta replay, so this package has no redo code.
//
// See README.md for the layout, the algorithms, the locking rules and the
// invariants.
package btree

import (
	"encoding/binary"
	"fmt"
	"github.com/tidal-db/tidal/internal/xact/predicate"
	"math"
	"sync"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
)

// Metapage constants (nbtree.h).
const (
	MetaPageBlock     page.BlockNumber = 0 // BTREE_METAPAGE
	Magic                              = 0x053162
	Version                            = 4  // BTREE_VERSION
	DefaultFillFactor                  = 90 // BTREE_DEFAULT_FILLFACTOR
	MinFillFactor                      = 10 // BTREE_MIN_FILLFACTOR
	NonLeafFillFactor                  = 70 // BTREE_NONLEAF_FILLFACTOR
)

// PNone is P_NONE: no page (block 0 is the metapage, so it is never a link).
const PNone page.BlockNumber = 0

// Page flags (btpo_flags).
const (
	FlagLeaf            = 1 << 0 // BTP_LEAF
	FlagRoot            = 1 << 1 // BTP_ROOT
	FlagDeleted         = 1 << 2 // BTP_DELETED
	FlagMeta            = 1 << 3 // BTP_META
	FlagHalfDead        = 1 << 4 // BTP_HALF_DEAD
	FlagSplitEnd        = 1 << 5 // BTP_SPLIT_END
	FlagHasGarbage      = 1 << 6 // BTP_HAS_GARBAGE
	FlagIncompleteSplit = 1 << 7 // BTP_INCOMPLETE_SPLIT
	FlagHasFullXid      = 1 << 8 // BTP_HAS_FULLXID
)

// Line-pointer positions (P_HIKEY, P_FIRSTKEY).
const (
	PHiKey    page.OffsetNumber = 1
	PFirstKey page.OffsetNumber = 2
)

// OpaqueSize is sizeof(BTPageOpaqueData).
const OpaqueSize = 16

// special-space layout
const (
	specialOff = page.Size - OpaqueSize
	opPrev     = 0
	opNext     = 4
	opLevel    = 8
	opFlags    = 12
	opCycle    = 14
)

// metapage layout: BTMetaPageData at MAXALIGN(SizeOfPageHeaderData).
const (
	metaOff            = page.HeaderSize
	mMagic             = 0
	mVersion           = 4
	mRoot              = 8
	mLevel             = 12
	mFastRoot          = 16
	mFastLevel         = 20
	mLastCleanupDel    = 24
	mLastCleanupTuples = 32
	mAllEqualImage     = 40
	metaDataSize       = 48
	pdLowerOff         = 12 // offset of pd_lower in the page header
)

// MaxItemSize is BTMaxItemSize: the largest index tuple that may be stored,
// so that a page always holds three items (two plus a high key that may
// grow by a heap TID).
// (MAXALIGN_DOWN((8192 - MAXALIGN(24 + 3*4) - 16) / 3) - MAXALIGN(6) = 2704.)
const MaxItemSize = ((page.Size-(page.HeaderSize+3*page.ItemIDSize+page.MaxAlign-1)&^(page.MaxAlign-1)-OpaqueSize)/3)&^(page.MaxAlign-1) - page.MaxAlign

// usable space for line pointers and tuples on a btree page
const pageAvail = page.Size - page.HeaderSize - OpaqueSize

// Env is what an index needs from the rest of the engine.
type Env struct {
	Pool *buffer.Pool
	WAL  *wal.WAL

	// NextXid returns the next transaction id to be assigned
	// (ReadNextFullTransactionId). VACUUM stamps each page it deletes with
	// it (the page's safexid): every scan that could still hold a link to
	// the page runs under an xmin or xid at most that value. nil disables
	// page deletion (empty leaves are kept, as before).
	NextXid func() uint32
	// OldestXmin returns the removal horizon: no running transaction
	// advertises an xid or xmin older than it (GlobalVisState). A deleted
	// page is recycled (reused by a split) only once its safexid precedes
	// it. nil: deleted pages are never recycled.
	OldestXmin func() uint32
	// Pred is the engine's predicate lock manager: page splits and
	// deletions carry SIREAD locks along. nil: no serializable readers.
	Pred *predicate.Manager
}

// Options describe an index.
type Options struct {
	Name     string       // index name, for error messages
	KeyTypes []datum.Type // key column types (1..32)
	// Comparators order each key column (its operator class's support
	// function); a missing or zero entry uses the column type's default
	// (datum.DefaultComparator).
	Comparators []datum.Comparator
	ColumnNames []string // key column names, for error details
	Unique      bool
	FillFactor  int // leaf fillfactor for bulk builds and rightmost splits; 0 = 90
	// FormatKey renders key values for "Key (...)=(...)" details; nil uses a
	// simple built-in formatter.
	FormatKey func([]datum.Datum) string
	// TableName is the indexed table's name, for error details.
	TableName string
	// KeyCompression is each key column's attcompression ('p', 'l'; 0
	// = pglz), for values compressed inline.
	KeyCompression []byte
	// NoDeduplicate is deduplicate_items = off (README "Posting lists");
	// deduplication also needs every key column to be equalimage.
	NoDeduplicate bool
}

// Index is an open B-tree index. It is safe for concurrent use by any number
// of goroutines.
type Index struct {
	env   *Env
	pool  *buffer.Pool
	wal   *wal.WAL
	rel   smgr.RelFileNumber
	opt   Options
	nkeys int
	ff    int

	lay layout
	// dedup: equal keys are merged into posting lists (deduplicate_items
	// and every opclass equalimage).
	dedup bool

	meta atomic.Pointer[metaInfo] // cached copy of the metapage (rd_amcache)

	// Page deletion and recycling (pagedel.go).
	vacMu     sync.Mutex    // one bulk delete at a time
	lastCycle uint16        // the last vacuum cycle id handed out (under vacMu)
	cycle     atomic.Uint32 // the running bulk delete's cycle id, 0 when none
	extending atomic.Int32  // operations between smgr extend and locking the page
	free      freeList      // recyclable blocks
}

// metaInfo is the cached part of the metapage.
type metaInfo struct {
	root, fastRoot   page.BlockNumber
	level, fastLevel uint32
}

// Open returns the index stored in relation rel. The relation must have been
// created by a Builder (which writes at least the metapage).
func Open(env *Env, rel smgr.RelFileNumber, opt Options) *Index {
	if len(opt.KeyTypes) == 0 || len(opt.KeyTypes) > 32 {
		panic(fmt.Sprintf("btree: index %q must have 1..32 key columns", opt.Name))
	}
	ix := &Index{env: env, pool: env.Pool, wal: env.WAL, rel: rel, opt: opt, nkeys: len(opt.KeyTypes)}
	ix.ff = opt.FillFactor
	if ix.ff == 0 {
		ix.ff = DefaultFillFactor
	}
	if ix.ff < MinFillFactor {
		ix.ff = MinFillFactor
	}
	if ix.ff > 100 {
		ix.ff = 100
	}
	ix.lay = newLayout(opt.KeyTypes, opt.Comparators)
	ix.dedup = !opt.NoDeduplicate && allEqualImage(opt)
	return ix
}

// Name is the index name.
func (ix *Index) Name() string { return ix.opt.Name }

// Rel is the index's relation file number.
func (ix *Index) Rel() smgr.RelFileNumber { return ix.rel }

// Options returns the options the index was opened with.
func (ix *Index) Options() Options { return ix.opt }

func (ix *Index) tag(blk page.BlockNumber) buffer.Tag {
	return buffer.Tag{Rel: ix.rel, Fork: smgr.MainFork, Block: blk}
}

// ---- page accessors ----

// opaque is a decoded BTPageOpaqueData.
type opaque struct {
	prev, next page.BlockNumber
	level      uint32
	flags      uint16
	cycle      uint16
}

func getOpaque(p page.Page) opaque {
	s := p[specialOff:]
	return opaque{
		prev:  binary.LittleEndian.Uint32(s[opPrev:]),
		next:  binary.LittleEndian.Uint32(s[opNext:]),
		level: binary.LittleEndian.Uint32(s[opLevel:]),
		flags: binary.LittleEndian.Uint16(s[opFlags:]),
		cycle: binary.LittleEndian.Uint16(s[opCycle:]),
	}
}

func putOpaque(p page.Page, o opaque, d *page.Delta) {
	var b [OpaqueSize]byte
	binary.LittleEndian.PutUint32(b[opPrev:], o.prev)
	binary.LittleEndian.PutUint32(b[opNext:], o.next)
	binary.LittleEndian.PutUint32(b[opLevel:], o.level)
	binary.LittleEndian.PutUint16(b[opFlags:], o.flags)
	binary.LittleEndian.PutUint16(b[opCycle:], o.cycle)
	d.PutBytes(p, specialOff, b[:])
}

func pageFlags(p page.Page) uint16 { return binary.LittleEndian.Uint16(p[specialOff+opFlags:]) }
func pageNext(p page.Page) page.BlockNumber {
	return binary.LittleEndian.Uint32(p[specialOff+opNext:])
}
func pageLevel(p page.Page) uint32 { return binary.LittleEndian.Uint32(p[specialOff+opLevel:]) }

func setPageFlags(p page.Page, f uint16, d *page.Delta) { d.PutUint16(p, specialOff+opFlags, f) }
func setPagePrev(p page.Page, b page.BlockNumber, d *page.Delta) {
	d.PutUint32(p, specialOff+opPrev, b)
}

func (o opaque) isLeaf() bool     { return o.flags&FlagLeaf != 0 }
func (o opaque) isRoot() bool     { return o.flags&FlagRoot != 0 }
func (o opaque) rightmost() bool  { return o.next == PNone }
func (o opaque) leftmost() bool   { return o.prev == PNone }
func (o opaque) ignore() bool     { return o.flags&(FlagDeleted|FlagHalfDead) != 0 }
func (o opaque) incomplete() bool { return o.flags&FlagIncompleteSplit != 0 }
func (o opaque) firstData() page.OffsetNumber {
	if o.rightmost() {
		return PHiKey
	}
	return PFirstKey
}

// initBtPage formats p as an empty btree page (_bt_pageinit + opaque).
func initBtPage(p page.Page, o opaque, d *page.Delta) {
	page.Init(p, OpaqueSize, d)
	putOpaque(p, o, d)
}

// setLower writes pd_lower directly (the page package keeps it private;
// nbtree adjusts it for the metapage and for the bulk loader's reserved
// high-key slot just as PostgreSQL does).
func setLower(p page.Page, v int, d *page.Delta) { d.PutUint16(p, pdLowerOff, uint16(v)) }

// itemAt returns the bytes of the tuple at off.
func itemAt(p page.Page, off page.OffsetNumber) []byte {
	v := binary.LittleEndian.Uint32(p[page.HeaderSize+(int(off)-1)*page.ItemIDSize:])
	o := int(v & 0x7FFF)
	l := int(v >> 17)
	return p[o : o+l]
}

// ---- metapage ----

// initMetaPage formats p as a metapage (_bt_initmetapage).
func initMetaPage(p page.Page, root page.BlockNumber, level uint32, d *page.Delta) {
	initBtPage(p, opaque{flags: FlagMeta}, d)
	var b [metaDataSize]byte
	binary.LittleEndian.PutUint32(b[mMagic:], Magic)
	binary.LittleEndian.PutUint32(b[mVersion:], Version)
	binary.LittleEndian.PutUint32(b[mRoot:], root)
	binary.LittleEndian.PutUint32(b[mLevel:], level)
	binary.LittleEndian.PutUint32(b[mFastRoot:], root)
	binary.LittleEndian.PutUint32(b[mFastLevel:], level)
	binary.LittleEndian.PutUint32(b[mLastCleanupDel:], 0)
	binary.LittleEndian.PutUint64(b[mLastCleanupTuples:], math.Float64bits(-1))
	b[mAllEqualImage] = 0 // set by the builder when every opclass is equalimage
	d.PutBytes(p, metaOff, b[:])
	setLower(p, metaOff+metaDataSize, d)
}

func readMeta(p page.Page) (*metaInfo, error) {
	m := p[metaOff:]
	if pageFlags(p)&FlagMeta == 0 || binary.LittleEndian.Uint32(m[mMagic:]) != Magic {
		return nil, fmt.Errorf("not a btree metapage")
	}
	if v := binary.LittleEndian.Uint32(m[mVersion:]); v != Version {
		return nil, fmt.Errorf("btree version mismatch: %d, expected %d", v, Version)
	}
	return &metaInfo{
		root:      binary.LittleEndian.Uint32(m[mRoot:]),
		level:     binary.LittleEndian.Uint32(m[mLevel:]),
		fastRoot:  binary.LittleEndian.Uint32(m[mFastRoot:]),
		fastLevel: binary.LittleEndian.Uint32(m[mFastLevel:]),
	}, nil
}

// setMetaRoot updates root and fastroot (page deletion never lowers the
// fast root, so it is always the root).
func setMetaRoot(p page.Page, root page.BlockNumber, level uint32, d *page.Delta) {
	var b [16]byte
	binary.LittleEndian.PutUint32(b[0:], root)
	binary.LittleEndian.PutUint32(b[4:], level)
	binary.LittleEndian.PutUint32(b[8:], root)
	binary.LittleEndian.PutUint32(b[12:], level)
	d.PutBytes(p, metaOff+mRoot, b[:])
}

// getMeta returns the cached metapage, reading it when refresh is set or
// nothing is cached.
func (ix *Index) getMeta(u *stats.Usage, refresh bool) (*metaInfo, error) {
	if !refresh {
		if m := ix.meta.Load(); m != nil {
			return m, nil
		}
	}
	buf, err := ix.pool.Read(u, ix.tag(MetaPageBlock), nil)
	if err != nil {
		return nil, err
	}
	ix.pool.Lock(buf, buffer.Share)
	m, err := readMeta(ix.pool.Page(buf))
	ix.pool.UnlockRelease(buf, buffer.Share)
	if err != nil {
		return nil, ix.corrupt("%v", err)
	}
	ix.meta.Store(m)
	return m, nil
}

func (ix *Index) corrupt(format string, args ...any) error {
	return pgerr.Errorf(pgerr.DataCorrupted, "index %q: %s", ix.opt.Name, fmt.Sprintf(format, args...))
}

// IndexStats describes the index's size (pg_class.relpages/reltuples and
// pgstatindex-like counts).
type IndexStats struct {
	Pages         int // all blocks including the metapage
	LeafPages     int
	InternalPages int
	EmptyPages    int // leaf pages with no entries
	DeletedPages  int // deleted or half-dead pages (pgstatindex deleted_pages)
	Tuples        int64
	Levels        int // tree height (1 = the root is a leaf; 0 = empty)
	RootBlock     page.BlockNumber
}
