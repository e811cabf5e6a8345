// Package pglz is PostgreSQL's LZ compression (pg_lzcompress): the format
// its TOAST code stores compressed values in, and the default strategy's
// matching rules, so that a value compresses to the same bytes (and the
// same ratio) as in PostgreSQL.
//
// Format: a sequence of items, each group of eight announced by a control
// byte read from its least significant bit. A clear bit is one literal
// byte. A set bit is a 2- or 3-byte back reference: the first byte holds
// the offset's high nibble and the length minus 3 (0xF means "18 plus a
// third byte"), the second the offset's low byte. Offsets are 1..4095
// bytes back into the output, lengths 3..273.
//
// Compression keeps, for the last 4096 input positions, lists of positions
// whose next four bytes hash alike (newest first), and at each position
// looks down the list for the longest match, accepting less the further it
// has to look (the "good match" starts at 128 bytes and drops by 10 % per
// entry visited). It gives up when the output would not save 25 % of the
// input, or when the first 1 KiB of output holds no match at all.
package pglz

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Strategy is PGLZ_Strategy: when compression is attempted and when it is
// given up.
type Strategy struct {
	MinInputSize   int // inputs shorter than this are not compressed
	MaxInputSize   int // nor longer than this
	MinCompRate    int // percent the output must be smaller than the input
	FirstSuccessBy int // give up when this much output holds no match
	MatchSizeGood  int // stop looking once a match this long is found
	MatchSizeDrop  int // percent the good length drops per history entry
}

// Default is PGLZ_strategy_default, the strategy TOAST uses.
var Default = Strategy{
	MinInputSize:   32,
	MaxInputSize:   1<<31 - 1,
	MinCompRate:    25,
	FirstSuccessBy: 1024,
	MatchSizeGood:  128,
	MatchSizeDrop:  10,
}

const (
	historySize = 4096 // positions remembered (the largest offset a tag codes)
	maxMatch    = 273
	maxHashSize = 8192
)

// MaxOutput is PGLZ_MAX_OUTPUT: the room Compress may write into for an
// input of n bytes (n plus slop for the last control byte and tag).
func MaxOutput(n int) int { return n + 4 }

// OutputBound is the room Compress needs under strategy s: it gives up
// once the output reaches the size s's compression rate allows, and one
// step writes at most 4 bytes, so a large input needs less than
// MaxOutput (a quarter less with the default strategy).
func OutputBound(n int, s Strategy) int { return min(MaxOutput(n), resultMax(n, s)+4) }

// resultMax is the largest output s accepts for an input of n bytes.
func resultMax(slen int, s Strategy) int {
	needRate := min(max(s.MinCompRate, 0), 99)
	if slen > (1<<31-1)/100 {
		return (slen / 100) * (100 - needRate)
	}
	return slen * (100 - needRate) / 100
}

// histEntry is one remembered input position, linked into the list of its
// hash bucket. Index 0 of the entry table is the "no entry" sentinel.
type histEntry struct {
	next, prev int16 // entry indexes; 0 = none
	bucket     int32
	pos        int32
}

// compressor holds the history table. Only the bucket heads in use need
// clearing between inputs: an entry is reached through a head or, once
// the table has wrapped, after it was rewritten by this input.
type compressor struct {
	heads   [maxHashSize]int16
	entries [historySize + 1]histEntry
	mask    int
}

// hashAt is the bucket of the four bytes at src[i:]. PostgreSQL reads them
// as (signed) chars, so bytes ≥ 0x80 are sign-extended before shifting;
// doing the same keeps the buckets, and therefore the matches, identical.
func (c *compressor) hashAt(src []byte, i int) int {
	if len(src)-i < 4 {
		return int(int8(src[i])) & c.mask
	}
	h := int(int8(src[i]))<<6 ^ int(int8(src[i+1]))<<4 ^ int(int8(src[i+2]))<<2 ^ int(int8(src[i+3]))
	return h & c.mask
}

// add remembers position i, recycling the oldest entry once the table is
// full (its position is then more than 4095 bytes back, out of reach).
func (c *compressor) add(src []byte, i int, next *int, recycle *bool) {
	c.addHashed(c.hashAt(src, i), i, next, recycle)
}

// addHashed is add for a position whose bucket b is known.
func (c *compressor) addHashed(b, i int, next *int, recycle *bool) {
	n := int16(*next)
	e := &c.entries[n]
	if *recycle {
		if e.prev == 0 {
			c.heads[e.bucket] = e.next
		} else {
			c.entries[e.prev].next = e.next
		}
		if e.next != 0 {
			c.entries[e.next].prev = e.prev
		}
	}
	head := c.heads[b]
	e.next, e.prev, e.bucket, e.pos = head, 0, int32(b), int32(i)
	if head != 0 {
		c.entries[head].prev = n
	}
	c.heads[b] = n
	*next++
	if *next > historySize {
		*next = 1
		*recycle = true
	}
}

// findMatch looks down position i's bucket for the best earlier match;
// it reports a match only when it is at least 3 bytes long.
func (c *compressor) findMatch(src []byte, i, bucket int, goodMatch, goodDrop int) (length, offset int) {
	best, bestOff := 0, 0
	for n := c.heads[bucket]; n != 0; {
		e := &c.entries[n]
		pos := int(e.pos)
		off := i - pos
		if off >= 0x0fff {
			break
		}
		l := 0
		if best >= 16 {
			// Only a candidate at least as long as the best can win;
			// check that prefix at once, then extend.
			if i+best <= len(src) && string(src[i:i+best]) == string(src[pos:pos+best]) {
				l = best + matchLen(src, i+best, pos+best, maxMatch-best)
			}
		} else if src[pos] == src[i] {
			l = matchLen(src, i, pos, maxMatch)
		}
		if l > best {
			best, bestOff = l, off
		}
		n = e.next
		if n != 0 {
			if best >= goodMatch {
				break
			}
			goodMatch -= goodMatch * goodDrop / 100
		}
	}
	if best > 2 {
		return best, bestOff
	}
	return 0, 0
}

// matchLen counts equal bytes at a and b (a > b), at most limit and not
// past the end of src.
func matchLen(src []byte, a, b, limit int) int {
	end := min(len(src), a+limit)
	x, y := src[a:end], src[b:]
	n := 0
	// Eight bytes at a time: the first differing byte is the lowest set
	// byte of the XOR (little-endian loads).
	for n+8 <= len(x) {
		if d := binary.LittleEndian.Uint64(x[n:]) ^ binary.LittleEndian.Uint64(y[n:]); d != 0 {
			return n + bits.TrailingZeros64(d)>>3
		}
		n += 8
	}
	for n < len(x) && x[n] == y[n] {
		n++
	}
	return n
}

// Compress compresses src into dst (which must hold OutputBound(len(src),
// s) bytes) with strategy s and returns the compressed length, or ok=false
// when the strategy refuses (too short, too long, or not compressible
// enough); dst's contents are then undefined.
func Compress(src, dst []byte, s Strategy) (n int, ok bool) {
	return new(compressor).compress(src, dst, s)
}

// Compressor is Compress with a history table kept from call to call, for
// a caller compressing many inputs (WAL full-page images): it clears the
// part of the table an input uses instead of allocating 64 KiB each time.
// A Compressor is not safe for concurrent use.
type Compressor struct{ c compressor }

// Compress is the package's Compress, with c's table.
func (c *Compressor) Compress(src, dst []byte, s Strategy) (n int, ok bool) {
	return c.c.compress(src, dst, s)
}

func (c *compressor) compress(src, dst []byte, s Strategy) (n int, ok bool) {
	slen := len(src)
	if s.MatchSizeGood <= 0 || slen < s.MinInputSize || slen > s.MaxInputSize {
		return 0, false
	}
	goodMatch := min(max(s.MatchSizeGood, 17), maxMatch)
	goodDrop := min(max(s.MatchSizeDrop, 0), 100)
	resultMax := resultMax(slen, s)
	c.mask = hashSize(slen) - 1
	clear(c.heads[:c.mask+1])
	histNext, recycle := 1, false
	out := 0
	ctrlPos := -1 // where the current control byte goes; -1 before the first
	var ctrlByte, ctrlBit byte
	foundMatch := false
	startItem := func() {
		if ctrlBit == 0 {
			if ctrlPos >= 0 {
				dst[ctrlPos] = ctrlByte
			}
			ctrlPos = out
			out++
			ctrlByte, ctrlBit = 0, 1
		}
	}
	for i := 0; i < slen; {
		if out >= resultMax {
			return 0, false
		}
		if !foundMatch && out >= s.FirstSuccessBy {
			return 0, false
		}
		h := c.hashAt(src, i)
		if l, off := c.findMatch(src, i, h, goodMatch, goodDrop); l > 0 {
			startItem()
			ctrlByte |= ctrlBit
			ctrlBit <<= 1
			if l > 17 {
				dst[out] = byte((off&0xf00)>>4 | 0x0f)
				dst[out+1] = byte(off)
				dst[out+2] = byte(l - 18)
				out += 3
			} else {
				dst[out] = byte((off&0xf00)>>4 | (l - 3))
				dst[out+1] = byte(off)
				out += 2
			}
			c.addHashed(h, i, &histNext, &recycle)
			i++
			for ; l > 1; l-- {
				c.add(src, i, &histNext, &recycle)
				i++
			}
			foundMatch = true
		} else {
			startItem()
			dst[out] = src[i]
			out++
			ctrlBit <<= 1
			c.addHashed(h, i, &histNext, &recycle)
			i++
		}
	}
	if ctrlPos >= 0 {
		dst[ctrlPos] = ctrlByte
	}
	if out >= resultMax {
		return 0, false
	}
	return out, true
}

// hashSize picks the bucket count for an input of n bytes (a larger table
// costs more to clear but collides less on long inputs).
func hashSize(n int) int {
	switch {
	case n < 128:
		return 512
	case n < 256:
		return 1024
	case n < 512:
		return 2048
	case n < 1024:
		return 4096
	}
	return maxHashSize
}

// ErrCorrupt reports compressed data that does not decode to the expected
// length.
var ErrCorrupt = errors.New("pglz: compressed data is corrupted")

// Decompress decodes src into dst, which must be exactly the raw length;
// the whole of src must be consumed and dst filled exactly.
func Decompress(src, dst []byte) error {
	sp, dp := 0, 0
	for sp < len(src) && dp < len(dst) {
		ctrl := src[sp]
		sp++
		for bit := 0; bit < 8 && sp < len(src) && dp < len(dst); bit++ {
			if ctrl&1 == 0 {
				dst[dp] = src[sp]
				dp++
				sp++
			} else {
				if sp+1 >= len(src) {
					return ErrCorrupt
				}
				l := int(src[sp]&0x0f) + 3
				off := int(src[sp]&0xf0)<<4 | int(src[sp+1])
				sp += 2
				if l == 18 {
					if sp >= len(src) {
						return ErrCorrupt
					}
					l += int(src[sp])
					sp++
				}
				if off == 0 || off > dp {
					return ErrCorrupt
				}
				l = min(l, len(dst)-dp)
				// The source may overlap the destination (a run): copy
				// forward byte by byte.
				for ; l > 0; l-- {
					dst[dp] = dst[dp-off]
					dp++
				}
			}
			ctrl >>= 1
		}
	}
	if dp != len(dst) || sp != len(src) {
		return ErrCorrupt
	}
	return nil
}
