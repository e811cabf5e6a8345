// Package page is the 8 KiB slotted page shared by every relation fork:
// PostgreSQL's page header, line-pointer array, and tuple space, laid out
// byte for byte as PostgreSQL lays them out on x86-64 so that page counts,
// free space and full-page-image sizes mean the same as PostgreSQL's.
//
// See README.md for the layout and invariants.
package page

import (
	"encoding/binary"
	"fmt"
)

// Size is the page size (BLCKSZ).
const Size = 8192

// HeaderSize is sizeof(PageHeaderData).
const HeaderSize = 24

// ItemIDSize is sizeof(ItemIdData), one line pointer.
const ItemIDSize = 4

// MaxAlign is MAXIMUM_ALIGNOF on x86-64.
const MaxAlign = 8

// LayoutVersion is PG_PAGE_LAYOUT_VERSION; stored with the size in pd_pagesize_version.
const LayoutVersion = 4

// BlockNumber numbers the pages of one relation fork from 0.
type BlockNumber = uint32

// InvalidBlock is InvalidBlockNumber.
const InvalidBlock BlockNumber = 0xFFFFFFFF

// OffsetNumber numbers line pointers on a page from 1.
type OffsetNumber = uint16

// InvalidOffset is InvalidOffsetNumber.
const InvalidOffset OffsetNumber = 0

// LSN is a WAL position (XLogRecPtr).
type LSN = uint64

// Line pointer states (lp_flags).
const (
	LPUnused   = 0 // free for reuse, lp_len 0
	LPNormal   = 1 // points at a tuple
	LPRedirect = 2 // HOT redirect: lp_off holds the offset of the chain's next member
	LPDead     = 3 // dead, no storage (or storage to be reclaimed)
)

// Header field offsets.
const (
	offLSN      = 0
	offChecksum = 8
	offFlags    = 10
	offLower    = 12
	offUpper    = 14
	offSpecial  = 16
	offSizeVer  = 18
	offPruneXid = 20
)

// Page flag bits (pd_flags).
const (
	FlagHasFreeLines = 0x0001 // PD_HAS_FREE_LINES: some line pointer is LPUnused
	FlagPageFull     = 0x0002 // PD_PAGE_FULL: an UPDATE found no room
	FlagAllVisible   = 0x0004 // PD_ALL_VISIBLE: every tuple visible to everyone
)

// Page is one 8 KiB page. It aliases a buffer; callers hold the right
// content lock while reading or writing it.
type Page []byte

// MaxAlignUp rounds n up to MaxAlign.
func MaxAlignUp(n int) int { return (n + MaxAlign - 1) &^ (MaxAlign - 1) }

// Init formats p as an empty page with specialSize bytes of special space.
func Init(p Page, specialSize int, d *Delta) {
	clear(p[:Size])
	d.Init()
	special := Size - MaxAlignUp(specialSize)
	binary.LittleEndian.PutUint16(p[offLower:], HeaderSize)
	binary.LittleEndian.PutUint16(p[offUpper:], uint16(special))
	binary.LittleEndian.PutUint16(p[offSpecial:], uint16(special))
	binary.LittleEndian.PutUint16(p[offSizeVer:], Size|LayoutVersion)
	d.Mark(offLower, offSizeVer+2)
}

// IsNew reports whether the page is all zeroes (never initialized), as PageIsNew.
func (p Page) IsNew() bool { return binary.LittleEndian.Uint16(p[offUpper:]) == 0 }

// LSN returns pd_lsn (stored as xlogid, xrecoff halves as PostgreSQL does).
func (p Page) LSN() LSN {
	hi := binary.LittleEndian.Uint32(p[offLSN:])
	lo := binary.LittleEndian.Uint32(p[offLSN+4:])
	return LSN(hi)<<32 | LSN(lo)
}

// SetLSN sets pd_lsn. It is not part of any Delta: redo sets the LSN itself.
func (p Page) SetLSN(l LSN) {
	binary.LittleEndian.PutUint32(p[offLSN:], uint32(l>>32))
	binary.LittleEndian.PutUint32(p[offLSN+4:], uint32(l))
}

func (p Page) Checksum() uint16     { return binary.LittleEndian.Uint16(p[offChecksum:]) }
func (p Page) SetChecksum(c uint16) { binary.LittleEndian.PutUint16(p[offChecksum:], c) }
func (p Page) Flags() uint16        { return binary.LittleEndian.Uint16(p[offFlags:]) }
func (p Page) Lower() int           { return int(binary.LittleEndian.Uint16(p[offLower:])) }
func (p Page) Upper() int           { return int(binary.LittleEndian.Uint16(p[offUpper:])) }
func (p Page) Special() int         { return int(binary.LittleEndian.Uint16(p[offSpecial:])) }
func (p Page) PruneXid() uint32     { return binary.LittleEndian.Uint32(p[offPruneXid:]) }

// SpecialSpace returns the special area (btree opaque data, for example).
func (p Page) SpecialSpace() []byte { return p[p.Special():Size] }

// SetFlags replaces pd_flags.
func (p Page) SetFlags(f uint16, d *Delta) { d.PutUint16(p, offFlags, f) }

// SetPruneXid replaces pd_prune_xid.
func (p Page) SetPruneXid(x uint32, d *Delta) { d.PutUint32(p, offPruneXid, x) }

func (p Page) setLower(v int, d *Delta) { d.PutUint16(p, offLower, uint16(v)) }
func (p Page) setUpper(v int, d *Delta) { d.PutUint16(p, offUpper, uint16(v)) }

// MaxOffset is PageGetMaxOffsetNumber: the number of line pointers.
func (p Page) MaxOffset() OffsetNumber {
	l := p.Lower()
	if l <= HeaderSize {
		return 0
	}
	return OffsetNumber((l - HeaderSize) / ItemIDSize)
}

// ItemID is a decoded line pointer.
type ItemID struct {
	Off   int // byte offset of the tuple (or redirect target offset number)
	Flags int
	Len   int
}

func itemPos(off OffsetNumber) int { return HeaderSize + (int(off)-1)*ItemIDSize }

// Item returns line pointer off (1-based).
func (p Page) Item(off OffsetNumber) ItemID {
	v := binary.LittleEndian.Uint32(p[itemPos(off):])
	return ItemID{Off: int(v & 0x7FFF), Flags: int((v >> 15) & 3), Len: int(v >> 17)}
}

// SetItem overwrites line pointer off.
func (p Page) SetItem(off OffsetNumber, it ItemID, d *Delta) {
	v := uint32(it.Off&0x7FFF) | uint32(it.Flags&3)<<15 | uint32(it.Len&0x7FFF)<<17
	d.PutUint32(p, itemPos(off), v)
}

// ItemBytes returns the stored bytes of a normal line pointer's tuple.
func (p Page) ItemBytes(off OffsetNumber) []byte {
	it := p.Item(off)
	return p[it.Off : it.Off+it.Len]
}

// FreeSpace is PageGetFreeSpace: room for one more tuple plus its line pointer.
func (p Page) FreeSpace() int {
	s := p.Upper() - p.Lower()
	if s < ItemIDSize {
		return 0
	}
	return s - ItemIDSize
}

// ExactFreeSpace is PageGetExactFreeSpace: the gap between pd_lower and pd_upper.
func (p Page) ExactFreeSpace() int {
	s := p.Upper() - p.Lower()
	if s < 0 {
		return 0
	}
	return s
}

// AddItem places item on the page, as PageAddItem. If off is InvalidOffset the
// first unused line pointer (when the page has some and reuse is allowed) or a
// new one at the end is taken; otherwise the item goes at off, shifting later
// line pointers up when shift is true (btree), or reusing an unused slot.
// maxItems caps the line-pointer count (MaxHeapTuplesPerPage for heap pages).
// It returns InvalidOffset when the item does not fit.
func (p Page) AddItem(item []byte, off OffsetNumber, shift bool, reuseUnused bool, maxItems int, d *Delta) OffsetNumber {
	lower, upper := p.Lower(), p.Upper()
	limit := p.MaxOffset()
	needShift := false
	if off == InvalidOffset {
		if reuseUnused && p.Flags()&FlagHasFreeLines != 0 {
			for o := OffsetNumber(1); o <= limit; o++ {
				it := p.Item(o)
				if it.Flags == LPUnused && it.Len == 0 {
					off = o
					break
				}
			}
			if off == InvalidOffset {
				p.SetFlags(p.Flags()&^FlagHasFreeLines, d)
			}
		}
		if off == InvalidOffset {
			off = limit + 1
		}
	} else if off <= limit {
		if shift {
			needShift = true
		} else {
			it := p.Item(off)
			if it.Flags != LPUnused || it.Len != 0 {
				panic(fmt.Sprintf("page: AddItem at used offset %d", off))
			}
		}
	} else if off > limit+1 {
		panic(fmt.Sprintf("page: AddItem offset %d beyond %d", off, limit+1))
	}
	newLower := lower
	if off == limit+1 || needShift {
		if maxItems > 0 && int(limit) >= maxItems {
			return InvalidOffset
		}
		newLower = lower + ItemIDSize
	}
	aligned := MaxAlignUp(len(item))
	newUpper := upper - aligned
	if newLower > newUpper {
		return InvalidOffset
	}
	if needShift {
		start := itemPos(off)
		end := itemPos(limit + 1)
		copy(p[start+ItemIDSize:end+ItemIDSize], p[start:end])
		d.Mark(start, end+ItemIDSize)
	}
	copy(p[newUpper:], item)
	d.Mark(newUpper, newUpper+len(item))
	p.SetItem(off, ItemID{Off: newUpper, Flags: LPNormal, Len: len(item)}, d)
	if newLower != lower {
		p.setLower(newLower, d)
	}
	p.setUpper(newUpper, d)
	return off
}

// Overwrite replaces the bytes of an existing item in place; the new item
// must have the same length.
func (p Page) Overwrite(off OffsetNumber, item []byte, d *Delta) {
	it := p.Item(off)
	if it.Len != len(item) {
		panic("page: Overwrite with different length")
	}
	d.PutBytes(p, it.Off, item)
}

// Truncate items: DeleteItems removes line pointers (btree style: later line
// pointers shift down) and compacts their storage. offs must be sorted.
func (p Page) DeleteItems(offs []OffsetNumber, d *Delta) {
	if len(offs) == 0 {
		return
	}
	max := p.MaxOffset()
	keep := make([]ItemID, 0, int(max)-len(offs))
	j := 0
	for o := OffsetNumber(1); o <= max; o++ {
		if j < len(offs) && offs[j] == o {
			j++
			continue
		}
		keep = append(keep, p.Item(o))
	}
	p.rebuild(keep, d)
}

// rebuild lays the given items out again from the special space downwards,
// in line-pointer order, as PageRepairFragmentation/PageIndexMultiDelete do.
func (p Page) rebuild(items []ItemID, d *Delta) {
	var tmp [Size]byte
	copy(tmp[:], p)
	upper := p.Special()
	for i := range items {
		it := &items[i]
		if it.Flags != LPNormal || it.Len == 0 {
			continue
		}
		upper -= MaxAlignUp(it.Len)
		copy(p[upper:upper+it.Len], tmp[it.Off:it.Off+it.Len])
		it.Off = upper
	}
	for i, it := range items {
		p.SetItem(OffsetNumber(i+1), it, d)
	}
	d.Mark(upper, p.Special())
	p.setLower(HeaderSize+len(items)*ItemIDSize, d)
	p.setUpper(upper, d)
}

// RepairFragmentation compacts tuple storage, keeping line-pointer numbers,
// as PageRepairFragmentation. Unused and dead pointers keep no storage.
// It sets or clears FlagHasFreeLines.
func (p Page) RepairFragmentation(d *Delta) {
	max := p.MaxOffset()
	items := make([]ItemID, max)
	hasFree := false
	for o := OffsetNumber(1); o <= max; o++ {
		it := p.Item(o)
		if it.Flags != LPNormal {
			if it.Flags == LPUnused {
				hasFree = true
			}
			if it.Flags != LPRedirect {
				it.Len = 0
				it.Off = 0
			}
		}
		items[o-1] = it
	}
	// Trailing unused pointers are removed entirely.
	n := len(items)
	for n > 0 && items[n-1].Flags == LPUnused {
		n--
	}
	p.rebuild(items[:n], d)
	f := p.Flags()
	if hasFree && n > 0 {
		f |= FlagHasFreeLines
	} else {
		f &^= FlagHasFreeLines
	}
	p.SetFlags(f, d)
}
