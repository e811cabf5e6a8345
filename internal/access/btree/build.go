package btree

import (
	"cmp"
	"encoding/binary"
	"fmt"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/interrupt"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/storage/tempfile"
	"github.com/tidal-db/tidal/internal/tuplesort"
	"github.com/tidal-db/tidal/internal/wal"
)

// Builder builds an index from scratch (CREATE INDEX, REINDEX): it collects
// (key, TID) pairs in any order, sorts them by key then TID, and writes the
// pages bottom-up straight to the relation file (_bt_load), bypassing the
// buffer pool. Leaf pages are filled to the fillfactor (90% by default) and
// internal pages to 70%, exactly as PostgreSQL does, so the index has the
// same number of pages. Every page is WAL-logged as a full-page image and
// the file is fsynced at the end.
//
// The entries are sorted by tuplesort: within MemKB in memory, past it
// through temporary files in Spill (maintenance_work_mem, as PostgreSQL's
// index builds). Without Spill the sort stays in memory.
//
// A Builder is not safe for concurrent use.
type Builder struct {
	env *Env
	rel smgr.RelFileNumber
	ix  *Index // layout and comparison helpers (not usable until Finish)
	// spools[0] is the builder's own (Add); a parallel build adds one per
	// other participant (NewSpool).
	spools []*Spool
	// Interrupts, if set, is checked while Finish sorts and writes, so a
	// cancel stops a long CREATE INDEX.
	Interrupts *interrupt.State
	// MemKB bounds the sort's memory (maintenance_work_mem; 0: 64 MB);
	// Spill holds its temporary files, Usage is charged with their blocks.
	// A parallel build gives each participant's spool its share.
	MemKB int64
	Spill *tempfile.Space
	Usage *stats.Usage
}

// Spool is one participant's share of the entries of a build
// (PostgreSQL's BTSpool in a parallel CREATE INDEX): it sorts what it is
// given within its own memory, in the participant's goroutine, and Finish
// merges the spools' sorted streams. A Spool belongs to one goroutine.
type Spool struct {
	b      *Builder
	sorter *tuplesort.Sorter
	memKB  int64
	usage  *stats.Usage
	n      int
	sorted bool
	slab   []datum.Datum
}

// spoolSlabEntries is how many entries' tuples one slab holds.
const spoolSlabEntries = 4096

// A sort tuple is the entry's keys, then its TID with the recently-dead
// flag: block<<16 | offset | dead<<48, so integer order (dead masked) is
// TID order.
const sortDeadBit = 1 << 48

func sortTID(t tuplesort.Tuple, n int) int64 { return t[n].Int() &^ sortDeadBit }
func sortDead(t tuplesort.Tuple, n int) bool { return t[n].Int()&sortDeadBit != 0 }

// NewBuilder starts a build of the index described by opt into rel. The
// relation's main fork must be empty or absent (it is created).
func NewBuilder(env *Env, rel smgr.RelFileNumber, opt Options) *Builder {
	b := &Builder{env: env, rel: rel, ix: Open(env, rel, opt)}
	b.spools = []*Spool{{b: b}}
	return b
}

// NewSpool adds a participant's spool sorting within memKB (its share of
// maintenance_work_mem), its temporary files charged to u. The builder's
// own spool (Add) keeps MemKB; a parallel build sets MemKB to the leader's
// share too.
func (b *Builder) NewSpool(memKB int64, u *stats.Usage) *Spool {
	s := &Spool{b: b, memKB: memKB, usage: u}
	b.spools = append(b.spools, s)
	return s
}

// Add adds one entry. keys is copied.
func (b *Builder) Add(keys []datum.Datum, tid page.ItemPointer) error {
	return b.spools[0].add(keys, tid, false)
}

// AddRecentlyDead adds an entry for a row that is dead but may still be
// visible to some snapshot: it is indexed but takes no part in the unique
// check (PostgreSQL's spool2).
func (b *Builder) AddRecentlyDead(keys []datum.Datum, tid page.ItemPointer) error {
	return b.spools[0].add(keys, tid, true)
}

// Add adds one entry to the spool. keys is copied.
func (s *Spool) Add(keys []datum.Datum, tid page.ItemPointer) error {
	return s.add(keys, tid, false)
}

// AddRecentlyDead is Builder.AddRecentlyDead for the spool.
func (s *Spool) AddRecentlyDead(keys []datum.Datum, tid page.ItemPointer) error {
	return s.add(keys, tid, true)
}

func (s *Spool) add(keys []datum.Datum, tid page.ItemPointer, dead bool) error {
	b := s.b
	if len(keys) != b.ix.nkeys {
		return pgerr.Errorf(pgerr.InternalError, "btree: index %q has %d key columns, got %d", b.ix.opt.Name, b.ix.nkeys, len(keys))
	}
	v := int64(tid.Block)<<16 | int64(tid.Offset)
	if dead {
		v |= sortDeadBit
	}
	// Tuples are cut from slabs: one allocation per few thousand entries.
	w := len(keys) + 1
	if len(s.slab) < w {
		s.slab = make([]datum.Datum, w*spoolSlabEntries)
	}
	t := s.slab[:w:w]
	s.slab = s.slab[w:]
	copy(t, keys)
	t[len(keys)] = datum.Int(v)
	s.n++
	return s.sort().Put(t)
}

// Sort ends the spool's input and sorts it (in memory, or its last run
// and the merges down to one pass); a participant calls it when its scan
// ends, so the spools sort at once. Finish sorts the spools not sorted.
func (s *Spool) Sort() error {
	srt := s.sort()
	if s.sorted {
		return nil
	}
	s.sorted = true
	return srt.Done()
}

// sort is the spool's sorter, started at first use (after the caller
// set MemKB and Spill).
func (s *Spool) sort() *tuplesort.Sorter {
	if s.sorter != nil {
		return s.sorter
	}
	b := s.b
	mem, u := s.memKB, s.usage
	if s == b.spools[0] {
		mem, u = b.MemKB, b.Usage
	}
	if mem <= 0 {
		mem = 64 << 10
	}
	if b.Spill == nil {
		mem = 1 << 40
	}
	cfg := tuplesort.Config{WorkMemKB: mem, Space: b.Spill, Usage: u, Check: b.Interrupts.Check, Compare: b.compareEntries}
	if b.ix.nkeys > 0 {
		cfg.Abbrev = abbreviator(b.ix.lay.cmps[0])
	}
	s.sorter = tuplesort.New(cfg)
	return s.sorter
}

// abbreviator gives the sort's abbreviated keys for a first key column
// ordered by cmp, or nil: an integer by its value (ssup_datum_signed_cmp),
// a bytewise-ordered string by its first 8 bytes (varstr_abbrev_convert in
// the C collation), so most comparisons stop at the integers.
func abbreviator(c datum.Comparator) func(tuplesort.Tuple) (uint64, bool) {
	switch {
	case c.SignedInt:
		return func(t tuplesort.Tuple) (uint64, bool) {
			if t[0].IsNull() {
				return 0, false
			}
			return uint64(t[0].Int()) ^ (1 << 63), true
		}
	case c.Bytewise:
		return func(t tuplesort.Tuple) (uint64, bool) {
			if t[0].IsNull() {
				return 0, false
			}
			var b [8]byte
			copy(b[:], t[0].Str())
			return binary.BigEndian.Uint64(b[:]), true
		}
	}
	return nil
}

// compareEntries orders sort tuples by key, then TID.
func (b *Builder) compareEntries(x, y tuplesort.Tuple) int {
	if c := b.cmpKeys(x, y); c != 0 {
		return c
	}
	n := b.ix.nkeys
	return cmp.Compare(sortTID(x, n), sortTID(y, n))
}

// Len is the number of entries added so far.
func (b *Builder) Len() int {
	n := 0
	for _, s := range b.spools {
		n += s.n
	}
	return n
}

func (b *Builder) cmpKeys(kx, ky tuplesort.Tuple) int {
	for i := 0; i < b.ix.nkeys; i++ {
		if c := b.ix.cmpCol(i, kx[i], ky[i]); c != 0 {
			return c
		}
	}
	return 0
}

// Close frees the sort (its temporary files) of a build that ended
// without Finish; after Finish it does nothing.
func (b *Builder) Close() {
	for _, s := range b.spools {
		if s.sorter != nil {
			s.sorter.Close()
		}
	}
}

// Finish sorts the entries, writes the index and returns it opened. xid
// labels the WAL records; u is charged with them.
func (b *Builder) Finish(u *stats.Usage, xid uint32) (*Index, error) {
	ix := b.ix
	defer b.Close()
	for _, s := range b.spools {
		if err := s.Sort(); err != nil {
			return nil, err
		}
	}
	srt, err := b.entries()
	if err != nil {
		return nil, err
	}
	sm := b.env.Pool.Smgr()
	if !sm.Exists(b.rel, smgr.MainFork) {
		if err := sm.Create(b.rel, smgr.MainFork); err != nil {
			return nil, err
		}
	}
	if n, err := sm.NBlocks(b.rel, smgr.MainFork); err != nil {
		return nil, err
	} else if n != 0 {
		return nil, pgerr.Errorf(pgerr.ObjectNotInPrerequisiteState, "index %q already contains data", ix.opt.Name)
	}
	w := &loader{ix: ix, sm: sm, wal: b.env.WAL, u: u, xid: xid, alloc: 1, scratch: make([]datum.Datum, 2*ix.nkeys)}
	var leaf *levelState
	emit := func(tup []byte) error {
		if leaf == nil {
			leaf = w.newLevel(0)
		}
		return w.add(leaf, tup)
	}
	// Deduplicating builds (not of unique indexes) merge equal keys into
	// posting lists as they go (_bt_sort_dedup_finish_pending).
	dedup := ix.dedup && !ix.opt.Unique
	var pending []byte
	var tids []page.ItemPointer
	flush := func() error {
		if pending == nil {
			return nil
		}
		t := pending
		if len(tids) > 1 {
			t = formPosting(pending, tids)
		}
		pending, tids = nil, tids[:0]
		return emit(t)
	}
	uniq := uniqueCheck{b: b}
	var tupBufs [2][]byte
	cur := 0
	for i := 0; ; i++ {
		if i%4096 == 0 {
			if err := b.Interrupts.Check(); err != nil {
				return nil, err
			}
		}
		t, err := srt.Next()
		if err != nil {
			return nil, err
		}
		if ix.opt.Unique {
			if err := uniq.next(t); err != nil {
				return nil, err
			}
		}
		if t == nil {
			break
		}
		v := sortTID(t, ix.nkeys)
		tid := page.ItemPointer{Block: page.BlockNumber(v >> 16), Offset: page.OffsetNumber(v)}
		// Two tuple buffers in turn: the loader copies what it is given,
		// and only the pending one of a deduplicating build must stay.
		tup := ix.formTupleInto(tupBufs[cur][:0], t[:ix.nkeys], tid)
		tupBufs[cur] = tup
		if err := ix.checkTupleSize(tup); err != nil {
			return nil, err
		}
		if !dedup {
			if err := emit(tup); err != nil {
				return nil, err
			}
			continue
		}
		if pending != nil && sameKeyImage(pending, tup) && postingSizeWith(pending, len(tids)+1) <= buildMaxPostingSize {
			tids = append(tids, tid)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		pending, tids = tup, append(tids[:0], tid)
		cur ^= 1
	}
	if err := flush(); err != nil {
		return nil, err
	}
	root, level, err := w.shutdown(leaf)
	if err != nil {
		return nil, err
	}
	meta := make(page.Page, page.Size)
	initMetaPage(meta, root, level, nil)
	if allEqualImage(ix.opt) {
		meta[metaOff+mAllEqualImage] = 1 // btm_allequalimage
	}
	if err := w.write(meta, MetaPageBlock); err != nil {
		return nil, err
	}
	if err := w.flushBatch(); err != nil {
		return nil, err
	}
	if err := b.env.WAL.Flush(w.lastLSN); err != nil {
		return nil, err
	}
	// The pages bypassed shared buffers: a checkpoint would not flush them.
	if err := sm.SyncFork(b.rel, smgr.MainFork); err != nil {
		return nil, err
	}
	ix.meta.Store(&metaInfo{root: root, level: level, fastRoot: root, fastLevel: level})
	return ix, nil
}

// uniqueCheck fails a unique build when two live entries have equal keys
// without NULLs, fed the sorted entries one by one (nil at the end): the
// first such group in key order is reported, as PostgreSQL does.
type uniqueCheck struct {
	b     *Builder
	first tuplesort.Tuple // the current group's first entry
	live  int
}

func (u *uniqueCheck) next(t tuplesort.Tuple) error {
	ix := u.b.ix
	if u.first != nil && t != nil && u.b.cmpKeys(u.first, t) == 0 {
		if !sortDead(t, ix.nkeys) {
			u.live++
		}
		return nil
	}
	if u.first != nil && u.live > 1 {
		k := u.first[:ix.nkeys]
		hasNull := false
		for _, d := range k {
			if d.IsNull() {
				hasNull = true
			}
		}
		if !hasNull {
			return pgerr.Errorf(pgerr.UniqueViolation, "could not create unique index \"%s\"", ix.opt.Name).
				WithDetail("Key (%s)=(%s) is duplicated.", ix.columnList(), ix.formatKey(k))
		}
	}
	u.first, u.live = t, 0
	if t != nil && !sortDead(t, ix.nkeys) {
		u.live = 1
	}
	return nil
}

// ---- the loader (_bt_buildadd and friends) ----

type loader struct {
	ix      *Index
	sm      *smgr.Manager
	wal     *wal.WAL
	u       *stats.Usage
	xid     uint32
	alloc   page.BlockNumber // next block to hand out (btws_pages_alloced)
	written page.BlockNumber // blocks written so far (btws_pages_written)
	lastLSN page.LSN
	scratch []datum.Datum
	batch   []batchPage // pages waiting for their WAL record and write (build_batch.go)
}

// levelState is the page being filled on one level (BTPageState).
type levelState struct {
	pg      page.Page
	blk     page.BlockNumber
	lastOff page.OffsetNumber
	lowkey  []byte
	level   uint32
	full    int // free space below which the page counts as full
	next    *levelState
}

func (w *loader) newLevel(level uint32) *levelState {
	s := &levelState{pg: w.newPage(level), blk: w.alloc, lastOff: PHiKey, level: level}
	w.alloc++
	if level > 0 {
		s.full = page.Size * (100 - NonLeafFillFactor) / 100
	} else {
		s.full = page.Size * (100 - w.ix.ff) / 100
	}
	return s
}

// newPage is _bt_blnewpage: an empty page with the high-key line pointer
// already reserved.
func (w *loader) newPage(level uint32) page.Page {
	p := make(page.Page, page.Size)
	o := opaque{level: level}
	if level == 0 {
		o.flags = FlagLeaf
	}
	initBtPage(p, o, nil)
	setLower(p, p.Lower()+page.ItemIDSize, nil)
	return p
}

// sortAddTup is _bt_sortaddtup: the first data item of an internal page is
// stored as minus infinity.
func (w *loader) sortAddTup(p page.Page, tup []byte, off page.OffsetNumber, newFirstDataItem bool) error {
	if newFirstDataItem {
		tup = minusInfPivot(downlink(tup))
	}
	if p.AddItem(tup, off, false, false, 0, nil) == page.InvalidOffset {
		return fmt.Errorf("btree build: failed to add item to the index page")
	}
	return nil
}

func (w *loader) add(s *levelState, tup []byte) error {
	ix := w.ix
	pgspc := s.pg.FreeSpace()
	itupsz := page.MaxAlignUp(len(tup))
	leaf := s.level == 0
	extra := 0
	if leaf {
		extra = heapTIDTrailSize
	}
	if pgspc < itupsz+extra || (pgspc < s.full && s.lastOff > PFirstKey) {
		// Finish the current page and start a new one on this level.
		opg, oblk := s.pg, s.blk
		npg := w.newPage(s.level)
		nblk := w.alloc
		w.alloc++

		// The last item moves to the new page; on the old page its slot
		// becomes the high key.
		ii := opg.Item(s.lastOff)
		oitup := append([]byte(nil), itemAt(opg, s.lastOff)...)
		if err := w.sortAddTup(npg, oitup, PFirstKey, !leaf); err != nil {
			return err
		}
		opg.SetItem(PHiKey, ii, nil)
		opg.SetItem(s.lastOff, page.ItemID{}, nil)
		setLower(opg, opg.Lower()-page.ItemIDSize, nil)
		if leaf {
			lastleft := itemAt(opg, s.lastOff-1)
			trunc, err := ix.truncate(lastleft, oitup, w.scratch)
			if err != nil {
				return err
			}
			if err := overwriteHighKey(opg, trunc); err != nil {
				return err
			}
			oitup = append([]byte(nil), itemAt(opg, PHiKey)...)
		}

		// Link the old page into its parent using its low key.
		if s.next == nil {
			s.next = w.newLevel(s.level + 1)
		}
		setDownlink(s.lowkey, oblk)
		if err := w.add(s.next, s.lowkey); err != nil {
			return err
		}
		s.lowkey = oitup // the old page's high key is the new page's low key

		binary.LittleEndian.PutUint32(opg[specialOff+opNext:], nblk)
		binary.LittleEndian.PutUint32(npg[specialOff+opPrev:], oblk)
		if err := w.write(opg, oblk); err != nil {
			return err
		}
		s.pg, s.blk = npg, nblk
		s.lastOff = PFirstKey
	}
	if s.lastOff == PHiKey {
		// First item of the whole level: its low key is minus infinity.
		s.lowkey = minusInfPivot(PNone)
	}
	s.lastOff++
	return w.sortAddTup(s.pg, tup, s.lastOff, !leaf && s.lastOff == PFirstKey)
}

// overwriteHighKey replaces the high key, which the loader always leaves
// at the physical start of the tuple space, with a tuple of possibly
// different size (PageIndexTupleOverwrite).
func overwriteHighKey(p page.Page, t []byte) error {
	it := p.Item(PHiKey)
	upper := p.Upper()
	if it.Off != upper {
		return fmt.Errorf("btree build: high key is not at the start of the tuple space")
	}
	newUpper := upper + page.MaxAlignUp(it.Len) - page.MaxAlignUp(len(t))
	if newUpper < p.Lower() {
		return fmt.Errorf("btree build: no room for the high key")
	}
	if newUpper > upper {
		clear(p[upper:newUpper])
	}
	copy(p[newUpper:], t)
	clear(p[newUpper+len(t) : newUpper+page.MaxAlignUp(len(t))])
	p.SetItem(PHiKey, page.ItemID{Off: newUpper, Flags: page.LPNormal, Len: len(t)}, nil)
	binary.LittleEndian.PutUint16(p[14:], uint16(newUpper)) // pd_upper
	return nil
}

// slideLeft drops the reserved high-key slot of a rightmost page
// (_bt_slideleft).
func slideLeft(p page.Page) {
	max := p.MaxOffset()
	if max >= PFirstKey {
		for off := PFirstKey; off <= max; off++ {
			p.SetItem(off-1, p.Item(off), nil)
		}
		p.SetItem(max, page.ItemID{}, nil)
		setLower(p, p.Lower()-page.ItemIDSize, nil)
	}
}

// shutdown finishes the rightmost page of every level (_bt_uppershutdown)
// and returns the root.
func (w *loader) shutdown(leaf *levelState) (page.BlockNumber, uint32, error) {
	root, level := PNone, uint32(0)
	for s := leaf; s != nil; s = s.next {
		if s.next == nil {
			binary.LittleEndian.PutUint16(s.pg[specialOff+opFlags:], pageFlags(s.pg)|FlagRoot)
			root, level = s.blk, s.level
		} else {
			setDownlink(s.lowkey, s.blk)
			if err := w.add(s.next, s.lowkey); err != nil {
				return 0, 0, err
			}
			s.lowkey = nil
		}
		slideLeft(s.pg)
		if err := w.write(s.pg, s.blk); err != nil {
			return 0, 0, err
		}
	}
	return root, level, nil
}

var zeroBlock [page.Size]byte
