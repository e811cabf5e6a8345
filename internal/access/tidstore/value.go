package tidstore

import (
	"fmt"
	"math/bits"
)

// A block's value is one uint32 stored directly in its leaf-level radix tree
// slot. Zero means "no value" (every valid value is non-zero).
//
// Embedded form (bit 31 clear): up to three offsets, each at most
// maxEmbeddedOffset, in ascending order in bits 0-9, 10-19 and 20-29; unused
// fields are 0 (offset 0 is never valid). Bit 30 is unused.
//
//	 31  30  29 .. 20   19 .. 10   9 .. 0
//	[ 0 | 0 | third    | second   | first  ]
//
// Bitmap form (bit 31 set): bits 0-30 are the arena word index of the
// block's offset bitmap. The bitmap's first word carries its own length in
// its low bitmapHdrBits bits (number of words - 1); offset o is bit
// o - 1 + bitmapHdrBits of the bitmap, counted from bit 0 of the first word.
const (
	valueBitmapFlag   = 1 << 31
	embedBits         = 10
	embedMask         = 1<<embedBits - 1
	maxEmbedded       = 3
	maxEmbeddedOffset = embedMask // 1023

	bitmapHdrBits = 6
	bitmapHdrMask = 1<<bitmapHdrBits - 1
)

// bitmapWords is the number of 64-bit words of a bitmap whose largest offset
// is maxOff.
func bitmapWords(maxOff OffsetNumber) int {
	return (int(maxOff)-1+bitmapHdrBits)>>6 + 1
}

// embeddedValue returns the embedded encoding of offsets, or 0 if they do not
// fit.
func embeddedValue(offsets []OffsetNumber) uint32 {
	if len(offsets) > maxEmbedded || offsets[len(offsets)-1] > maxEmbeddedOffset {
		return 0
	}
	var v uint32
	for i, o := range offsets {
		v |= uint32(o) << (embedBits * i)
	}
	return v
}

// embeddedHas reports whether the embedded value v holds off (off != 0).
func embeddedHas(v uint32, off OffsetNumber) bool {
	o := uint32(off)
	return v&embedMask == o || (v>>embedBits)&embedMask == o || (v>>(2*embedBits))&embedMask == o
}

// embeddedCount returns the number of offsets in the embedded value v.
func embeddedCount(v uint32) int {
	n := 0
	for ; v != 0; v >>= embedBits {
		if v&embedMask != 0 {
			n++
		}
	}
	return n
}

// Arena: offset bitmaps live in a bump-allocated arena of 64-bit words,
// addressed by a 31-bit word index (chunk number << arenaChunkShift | word).
// A bitmap never straddles two chunks. The first chunk starts small and
// doubles (moving its contents) until it reaches full chunk size, so tiny
// stores stay tiny; later chunks are allocated at full size.
//
// Freed runs of words (the bitmap of a deleted block, a bitmap replaced by a
// larger one or by an embedded value, the unused tail of a bitmap rewritten
// shorter, the tail of a chunk too short for the bitmap that opened the next
// chunk) go onto one of maxBitmapWords free lists by length, unless the run
// ends at the bump pointer, which then simply moves back. alloc takes an
// exact fit from the free lists first, then the smallest longer run (and
// frees its remainder), and only then bumps. So every word of every chunk is
// always in exactly one of: a live bitmap, a free list, or the unused end of
// the last chunk. A free run's first word holds its length - 1 in the low
// bitmapHdrBits bits, like a bitmap, and the next run's index + 1 in its
// upper 32 bits (0 ends the list). Chunks are never returned individually;
// the whole arena is dropped when the store becomes empty or is Reset.
const (
	arenaChunkShift = 13
	arenaChunkWords = 1 << arenaChunkShift // 64 KiB per chunk
	arenaChunkMask  = arenaChunkWords - 1
	arenaFirstWords = 64                           // 512 B first chunk
	arenaMaxChunks  = (1 << 31) >> arenaChunkShift // 31-bit index: 16 GiB of bitmaps
	sliceHeaderSize = 24                           // unsafe.Sizeof([]uint64{}) on 64-bit

	// maxBitmapWords is the length of the longest bitmap (offset MaxOffset).
	maxBitmapWords = (MaxOffset-1+bitmapHdrBits)>>6 + 1 // 33
)

type arena struct {
	chunks [][]uint64
	used   int   // words handed out from the last chunk
	bytes  int64 // bytes of all chunks plus the chunk directory

	// freeHead[n] is the index + 1 of the first free run of n words (0: none).
	freeHead  [maxBitmapWords + 1]uint32
	freeWords int64 // words on the free lists
}

// alloc returns the index of n (1..maxBitmapWords) words. Their contents
// are unspecified (writeBitmap clears them).
func (a *arena) alloc(n int) uint32 {
	if a.freeWords > 0 {
		for m := n; m <= maxBitmapWords; m++ {
			if a.freeHead[m] != 0 {
				idx := a.pop(m)
				if m > n {
					a.free(idx+uint32(n), m-n)
				}
				return idx
			}
		}
	}
	if last := len(a.chunks) - 1; last >= 0 {
		c := a.chunks[last]
		if a.used+n <= len(c) {
			idx := uint32(last)<<arenaChunkShift | uint32(a.used)
			a.used += n
			return idx
		}
		if last == 0 && len(c) < arenaChunkWords {
			size := len(c)
			for size < a.used+n {
				size *= 2
			}
			nc := make([]uint64, size)
			copy(nc, c[:a.used])
			a.chunks[0] = nc
			a.bytes += int64(size-len(c)) * 8
			idx := uint32(a.used)
			a.used += n
			return idx
		}
	}
	if last := len(a.chunks) - 1; last >= 0 && a.used < len(a.chunks[last]) {
		// Keep the tail of the full chunk (shorter than n) for later.
		tail := len(a.chunks[last]) - a.used
		idx := uint32(last)<<arenaChunkShift | uint32(a.used)
		a.used = len(a.chunks[last])
		a.push(idx, tail)
	}
	if len(a.chunks) >= arenaMaxChunks {
		panic(fmt.Sprintf("tidstore: offset bitmaps exceed %d GiB; run an index pass earlier", (arenaMaxChunks*arenaChunkWords*8)>>30))
	}
	size := arenaChunkWords
	if len(a.chunks) == 0 {
		size = arenaFirstWords
		for size < n {
			size *= 2
		}
	}
	oldCap := cap(a.chunks)
	a.chunks = append(a.chunks, make([]uint64, size))
	a.bytes += int64(size)*8 + int64(cap(a.chunks)-oldCap)*sliceHeaderSize
	a.used = n
	return uint32(len(a.chunks)-1) << arenaChunkShift
}

// free returns the n (1..maxBitmapWords) words at idx to the arena.
func (a *arena) free(idx uint32, n int) {
	last := len(a.chunks) - 1
	if int(idx>>arenaChunkShift) == last && int(idx&arenaChunkMask)+n == a.used {
		a.used -= n
		return
	}
	a.push(idx, n)
}

// push puts the n words at idx on their free list.
func (a *arena) push(idx uint32, n int) {
	a.chunks[idx>>arenaChunkShift][idx&arenaChunkMask] = uint64(a.freeHead[n])<<32 | uint64(n-1)
	a.freeHead[n] = idx + 1
	a.freeWords += int64(n)
}

// pop removes and returns the first free run of n words (there must be one).
func (a *arena) pop(n int) uint32 {
	idx := a.freeHead[n] - 1
	a.freeHead[n] = uint32(a.chunks[idx>>arenaChunkShift][idx&arenaChunkMask] >> 32)
	a.freeWords -= int64(n)
	return idx
}

// words returns the bitmap starting at word index idx.
func (a *arena) words(idx uint32) []uint64 {
	c := a.chunks[idx>>arenaChunkShift]
	p := idx & arenaChunkMask
	n := uint32(c[p]&bitmapHdrMask) + 1
	return c[p : p+n : p+n]
}

// has reports whether the bitmap at idx holds off (off != 0).
func (a *arena) has(idx uint32, off OffsetNumber) bool {
	c := a.chunks[idx>>arenaChunkShift]
	p := idx & arenaChunkMask
	bit := uint32(off) - 1 + bitmapHdrBits
	w := bit >> 6
	if w > uint32(c[p]&bitmapHdrMask) {
		return false
	}
	return c[p+w]>>(bit&63)&1 != 0
}

// writeBitmap fills words (exactly bitmapWords(max offset) long) with the
// header and offsets.
func writeBitmap(words []uint64, offsets []OffsetNumber) {
	clear(words)
	words[0] = uint64(len(words) - 1)
	for _, o := range offsets {
		bit := uint(o) - 1 + bitmapHdrBits
		words[bit>>6] |= 1 << (bit & 63)
	}
}

// bitmapCount returns the number of offsets in a bitmap.
func bitmapCount(words []uint64) int {
	n := bits.OnesCount64(words[0] &^ bitmapHdrMask)
	for _, w := range words[1:] {
		n += bits.OnesCount64(w)
	}
	return n
}

// appendBitmapOffsets appends the offsets of a bitmap to buf in order.
func appendBitmapOffsets(buf []OffsetNumber, words []uint64) []OffsetNumber {
	for i, w := range words {
		if i == 0 {
			w &^= bitmapHdrMask
		}
		for w != 0 {
			b := bits.TrailingZeros64(w)
			w &= w - 1
			buf = append(buf, OffsetNumber(i*64+b-bitmapHdrBits+1))
		}
	}
	return buf
}

// appendEmbeddedOffsets appends the offsets of an embedded value to buf.
func appendEmbeddedOffsets(buf []OffsetNumber, v uint32) []OffsetNumber {
	for ; v != 0; v >>= embedBits {
		if o := v & embedMask; o != 0 {
			buf = append(buf, OffsetNumber(o))
		}
	}
	return buf
}
