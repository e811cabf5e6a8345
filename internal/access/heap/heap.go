// Package heap is the MVCC heap table access method: PostgreSQL's heap
// pages and tuple headers, insert, update (HOT when no indexed column
// changes and the page has room), delete, fetch by TID following HOT
// chains, sequential scans, opportunistic pruning, the free space map and
// the visibility map.
//
// See README.md for the layout, WAL records and invariants.
package heap

import (
	"encoding/binary"

	"fmt"
	"github.com/tidal-db/tidal/internal/access/tableam"
	"sync/atomic"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/stats"
	"github.com/tidal-db/tidal/internal/storage/buffer"
	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
	"github.com/tidal-db/tidal/internal/wal"
	"github.com/tidal-db/tidal/internal/xact"
	"github.com/tidal-db/tidal/internal/xact/predicate"
)

// WAL record kinds (info bits), with PostgreSQL's values.
const (
	InfoInsert    uint8 = 0x00
	InfoDelete    uint8 = 0x10
	InfoUpdate    uint8 = 0x20
	InfoHotUpdate uint8 = 0x40
	InfoLock      uint8 = 0x60
	InfoInplace   uint8 = 0x70
	InfoInitPage  uint8 = 0x80

	Info2Prune   uint8 = 0x10
	Info2Vacuum  uint8 = 0x20
	Info2Freeze  uint8 = 0x30
	Info2Visible uint8 = 0x40
)

// Env is what the heap needs from the layers below.
type Env = tableam.Env

// Relation is one heap table's storage.
type Relation struct {
	env        *Env
	Rel        smgr.RelFileNumber
	Name       string
	Types      []datum.Type
	FillFactor int // percent, 10..100

	targetBlock atomic.Uint32 // cached insertion target (rd_targblock)
	fsm         fsm
}

// Open returns a handle on a heap relation's storage.
func Open(env *Env, rel smgr.RelFileNumber, name string, ts []datum.Type, fillFactor int) *Relation {
	if fillFactor <= 0 || fillFactor > 100 {
		fillFactor = 100
	}
	r := &Relation{env: env, Rel: rel, Name: name, Types: ts, FillFactor: fillFactor}
	r.targetBlock.Store(page.InvalidBlock)
	r.fsm = fsm{env: env, rel: rel}
	return r
}

// Env returns the relation's environment.
func (r *Relation) Env() *Env { return r.env }

// NBlocks is the main fork's size in blocks.
func (r *Relation) NBlocks() (page.BlockNumber, error) {
	return r.env.Pool.Smgr().NBlocks(r.Rel, smgr.MainFork)
}

func (r *Relation) tag(blk page.BlockNumber) buffer.Tag {
	return buffer.Tag{Rel: r.Rel, Fork: smgr.MainFork, Block: blk}
}

func (r *Relation) saveFreeSpace() int {
	return page.Size * (100 - r.FillFactor) / 100
}

// TooBig reports a tuple larger than a heap page can hold.
func tooBig(n int) error {
	max := page.Size - page.HeaderSize - page.ItemIDSize - page.MaxAlign
	if n > max {
		return pgerr.Errorf(pgerr.ProgramLimitExceeded, "row is too big: size %d, maximum size %d", n, max)
	}
	return nil
}

// pageFree is PageGetHeapFreeSpace: room for a new tuple, considering the
// line-pointer limit.
func pageFree(p page.Page) int {
	space := p.FreeSpace()
	if space > 0 {
		n := int(p.MaxOffset())
		if n >= MaxTuplesPerPage {
			if p.Flags()&page.FlagHasFreeLines == 0 {
				return 0
			}
			free := false
			for o := page.OffsetNumber(1); o <= page.OffsetNumber(n); o++ {
				if it := p.Item(o); it.Flags == page.LPUnused {
					free = true
					break
				}
			}
			if !free {
				return 0
			}
		}
	}
	return space
}

// getBufferForTuple returns an exclusively locked buffer with room for a
// tuple of length n (RelationGetBufferForTuple). When other is a valid
// buffer (the old page of an UPDATE), it is returned locked as well, and
// the locks are taken in block order, except for a freshly extended page
// that no other backend can know of yet.
func (r *Relation) getBufferForTuple(u *stats.Usage, n int, other buffer.Buffer, otherBlk page.BlockNumber, bulk *buffer.Strategy) (buffer.Buffer, page.BlockNumber, bool, error) {
	pool := r.env.Pool
	need := page.MaxAlignUp(n) + r.saveFreeSpace()
	if page.MaxAlignUp(n) > need {
		need = page.MaxAlignUp(n)
	}
	target := page.BlockNumber(r.targetBlock.Load())
	if target == page.InvalidBlock {
		target = r.fsm.search(u, need)
	}
	if target == page.InvalidBlock {
		nb, err := r.NBlocks()
		if err != nil {
			return 0, 0, false, err
		}
		if nb > 0 {
			target = nb - 1
		}
	}
	tried := 0
	for target != page.InvalidBlock && tried < 8 {
		tried++
		if other != buffer.InvalidBuffer && target == otherBlk {
			// The old page itself: the caller already found no room there.
			target = r.fsm.recordAndSearch(u, target, 0, need)
			continue
		}
		b, err := pool.Read(u, r.tag(target), bulk)
		if err != nil {
			return 0, 0, false, err
		}
		if other != buffer.InvalidBuffer && otherBlk < target {
			pool.Lock(other, buffer.Exclusive)
			pool.Lock(b, buffer.Exclusive)
		} else {
			pool.Lock(b, buffer.Exclusive)
			if other != buffer.InvalidBuffer {
				pool.Lock(other, buffer.Exclusive)
			}
		}
		p := pool.Page(b)
		if p.IsNew() {
			// An extended page someone has not initialised (crash between
			// extension and first use): take it.
			return b, target, true, nil
		}
		free := pageFree(p)
		if free >= need || (r.FillFactor == 100 && free >= page.MaxAlignUp(n)) {
			r.targetBlock.Store(target)
			return b, target, false, nil
		}
		if other != buffer.InvalidBuffer {
			pool.Unlock(other, buffer.Exclusive)
		}
		pool.UnlockRelease(b, buffer.Exclusive)
		target = r.fsm.recordAndSearch(u, target, free, need)
	}
	// Extend.
	b, blk, err := pool.Extend(u, r.Rel, smgr.MainFork, bulk)
	if err != nil {
		return 0, 0, false, err
	}
	if other != buffer.InvalidBuffer {
		pool.Lock(other, buffer.Exclusive)
	}
	r.targetBlock.Store(blk)
	return b, blk, true, nil
}

func setXmin(t Tuple, xid xact.XID, cid uint32) {
	binary.LittleEndian.PutUint32(t[offXmin:], xid)
	binary.LittleEndian.PutUint32(t[offXmax:], 0)
	binary.LittleEndian.PutUint32(t[offCid:], cid)
}

func insertMain(off page.OffsetNumber, flags uint8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, off)
	return append(b, flags)
}

// Insert adds a tuple for the transaction and returns its TID.
func (r *Relation) Insert(u *stats.Usage, tx *Txn, t Tuple, bulk *buffer.Strategy) (page.ItemPointer, error) {
	if err := tooBig(len(t)); err != nil {
		return page.ItemPointer{}, err
	}
	if err := r.ssiConflictIn(tx, predicate.InvalidBlock, 0); err != nil {
		return page.ItemPointer{}, err
	}
	pool := r.env.Pool
	setXmin(t, tx.Xid, tx.Cid)
	b, blk, isNew, err := r.getBufferForTuple(u, len(t), buffer.InvalidBuffer, 0, bulk)
	if err != nil {
		return page.ItemPointer{}, err
	}
	defer pool.UnlockRelease(b, buffer.Exclusive)
	p := pool.Page(b)
	var d page.Delta
	info := InfoInsert
	if isNew {
		page.Init(p, 0, &d)
		info |= InfoInitPage
	}
	var ctid [6]byte
	off := p.AddItem(t, page.InvalidOffset, false, true, MaxTuplesPerPage, &d)
	if off == page.InvalidOffset {
		return page.ItemPointer{}, fmt.Errorf("heap: tuple of %d bytes did not fit on block %d", len(t), blk)
	}
	tid := page.ItemPointer{Block: blk, Offset: off}
	page.PutItemPointer(ctid[:], tid)
	it := p.Item(off)
	d.PutBytes(p, it.Off+offCtid, ctid[:])
	flags := uint8(0)
	if p.Flags()&page.FlagAllVisible != 0 {
		p.SetFlags(p.Flags()&^page.FlagAllVisible, &d)
		flags |= 1
	}
	var vmp vmPins
	defer vmp.finish(0)
	rec := wal.NewRecord(wal.RmHeap, info, tx.Xid)
	rec.AddBlock(r.tag(blk), p, wal.BlockStandard, &d)
	rec.SetMain(insertMain(off, flags))
	if flags&1 != 0 {
		if err := vmp.clear(r, u, blk, rec); err != nil {
			return page.ItemPointer{}, err
		}
	}
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return page.ItemPointer{}, err
	}
	p.SetLSN(lsn)
	vmp.finish(lsn)
	return tid, nil
}

// InheritTarget carries the cached insertion target over from an older
// handle on the same file (after a relcache rebuild).
func (r *Relation) InheritTarget(old *Relation) {
	r.targetBlock.Store(old.targetBlock.Load())
}

// ResetTarget forgets the cached insertion target (after truncation).
func (r *Relation) ResetTarget() { r.targetBlock.Store(page.InvalidBlock) }

// InplaceUpdate overwrites the data of the tuple at tid with newTup's data
// without making a new version (heap_inplace_update): used for catalog
// statistics, as PostgreSQL does. The lengths must match.
func (r *Relation) InplaceUpdate(u *stats.Usage, tx *Txn, tid page.ItemPointer, newTup Tuple) error {
	pool := r.env.Pool
	b, err := pool.Read(u, r.tag(tid.Block), nil)
	if err != nil {
		return err
	}
	pool.Lock(b, buffer.Exclusive)
	defer pool.UnlockRelease(b, buffer.Exclusive)
	p := pool.Page(b)
	it := p.Item(tid.Offset)
	if it.Flags != page.LPNormal {
		return fmt.Errorf("heap: in-place update of a missing tuple %s", tid)
	}
	old := Tuple(p.ItemBytes(tid.Offset))
	if len(old) != len(newTup) || old.Hoff() != newTup.Hoff() {
		return fmt.Errorf("heap: in-place update changes the tuple's size")
	}
	var d page.Delta
	d.PutBytes(p, it.Off+old.Hoff(), newTup[newTup.Hoff():])
	rec := wal.NewRecord(wal.RmHeap, InfoInplace, tx.Xid)
	rec.AddBlock(r.tag(tid.Block), p, wal.BlockStandard, &d)
	rec.SetMain(binary.LittleEndian.AppendUint16(nil, tid.Offset))
	pool.MarkDirty(u, b)
	lsn, err := r.env.WAL.Insert(u, rec)
	if err != nil {
		return err
	}
	p.SetLSN(lsn)
	return nil
}
