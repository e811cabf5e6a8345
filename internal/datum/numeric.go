package datum

import "encoding/binary"

// The numeric payload: what follows a numeric's varlena header on disk,
// and what a numeric Datum (KindNumeric) holds in its string field.
//
//	short form  uint16 header: 0x8000 | sign 0x2000 | dscale<<7 (6 bits) |
//	            weight sign 0x0040 | weight & 0x3f; then the digits
//	long form   uint16 sign (0x0000 / 0x4000) | dscale (14 bits); int16
//	            weight; then the digits
//	special     uint16 header only: 0xC000 NaN, 0xD000 +Infinity,
//	            0xF000 -Infinity
//
// The digits are little-endian int16 base-10000 digits, the first one
// multiplied by 10000^weight. This package reads the header and orders
// payloads (the B-tree compares stored keys in place); arithmetic, text
// and binary forms are the SQL layer's (internal/sql/types).

const (
	numHdrShort     = 0x8000
	numHdrSpecial   = 0xC000
	numHdrPInf      = 0xD000
	numHdrNInf      = 0xF000
	numSignNeg      = 0x4000
	numShortSign    = 0x2000
	numShortDscMask = 0x1F80
	numShortWSign   = 0x0040
	numShortWMask   = 0x003F
	numDscaleMask   = 0x3FFF

	numShortMaxDscale = 63
	numShortMaxWeight = 63
	numShortMinWeight = -64
)

// NumericSpecial says whether a numeric is finite or a special value.
type NumericSpecial uint8

const (
	NumericFinite NumericSpecial = iota
	NumericNaN
	NumericPInf
	NumericNInf
)

// Payloads of the special values.
const (
	NumericNaNPayload  = "\x00\xC0"
	NumericPInfPayload = "\x00\xD0"
	NumericNInfPayload = "\x00\xF0"
)

// NumericHeader decodes a payload's header without touching its digits;
// digitsOff is where the digits start.
func NumericHeader(p string) (special NumericSpecial, neg bool, weight, dscale, digitsOff int) {
	if len(p) < 2 {
		return NumericFinite, false, 0, 0, len(p)
	}
	h := uint16(p[0]) | uint16(p[1])<<8
	switch {
	case h&numHdrSpecial == numHdrSpecial:
		switch h {
		case numHdrPInf:
			return NumericPInf, false, 0, 0, 2
		case numHdrNInf:
			return NumericNInf, true, 0, 0, 2
		}
		return NumericNaN, false, 0, 0, 2
	case h&numHdrShort != 0:
		weight = int(h & numShortWMask)
		if h&numShortWSign != 0 {
			weight |= ^numShortWMask
		}
		return NumericFinite, h&numShortSign != 0, weight, int(h&numShortDscMask) >> 7, 2
	}
	if len(p) < 4 {
		return NumericFinite, false, 0, 0, len(p)
	}
	w := int16(uint16(p[2]) | uint16(p[3])<<8)
	return NumericFinite, h&numSignNeg != 0, int(w), int(h & numDscaleMask), 4
}

// NumericDigitAt returns base-10000 digit i of a payload whose digits
// start at off.
func NumericDigitAt(p string, off, i int) int {
	o := off + 2*i
	return int(int16(uint16(p[o]) | uint16(p[o+1])<<8))
}

// NumericPayload builds the payload of a finite numeric from normalized
// parts (no leading or trailing zero digits; zero has no digits, weight 0
// and neg false; weight within int16 and dscale within 14 bits: the caller
// checks), in the short form whenever dscale <= 63 and -64 <= weight <= 63,
// as PostgreSQL's make_result.
func NumericPayload(neg bool, weight, dscale int, digits []int16) string {
	var b []byte
	if dscale <= numShortMaxDscale && weight <= numShortMaxWeight && weight >= numShortMinWeight {
		b = make([]byte, 2, 2+2*len(digits))
		h := uint16(numHdrShort) | uint16(dscale)<<7 | uint16(weight)&numShortWMask
		if neg {
			h |= numShortSign
		}
		if weight < 0 {
			h |= numShortWSign
		}
		binary.LittleEndian.PutUint16(b, h)
	} else {
		b = make([]byte, 4, 4+2*len(digits))
		h := uint16(dscale)
		if neg {
			h |= numSignNeg
		}
		binary.LittleEndian.PutUint16(b, h)
		binary.LittleEndian.PutUint16(b[2:], uint16(int16(weight)))
	}
	for _, x := range digits {
		b = binary.LittleEndian.AppendUint16(b, uint16(x))
	}
	return string(b)
}

// CompareNumeric orders two numeric payloads (cmp_numerics): NaN sorts
// after everything and equals itself, -Infinity < finite < +Infinity, and
// the display scale is not significant (1.5 = 1.50). It reads the payloads
// in place, so the btree can compare stored keys without decoding them.
func CompareNumeric(a, b string) int {
	spA, negA, wA, _, offA := NumericHeader(a)
	spB, negB, wB, _, offB := NumericHeader(b)
	if spA != NumericFinite || spB != NumericFinite {
		return compareInt(numericSpecialRank(spA), numericSpecialRank(spB))
	}
	ndA, ndB := (len(a)-offA)/2, (len(b)-offB)/2
	sA, sB := numericSign(ndA, negA), numericSign(ndB, negB)
	if sA != sB {
		return compareInt(sA, sB)
	}
	if sA == 0 {
		return 0
	}
	c := compareInt(int64(wA), int64(wB))
	for i := 0; c == 0 && i < min(ndA, ndB); i++ {
		c = compareInt(int64(NumericDigitAt(a, offA, i)), int64(NumericDigitAt(b, offB, i)))
	}
	if c == 0 {
		c = compareInt(int64(ndA), int64(ndB))
	}
	if sA < 0 {
		return -c
	}
	return c
}

// numericSign is -1 for a negative finite numeric with nd digits, 0 for
// zero, +1 for a positive one.
func numericSign(nd int, neg bool) int64 {
	switch {
	case nd == 0:
		return 0
	case neg:
		return -1
	}
	return 1
}

func numericSpecialRank(sp NumericSpecial) int64 {
	switch sp {
	case NumericNInf:
		return -1
	case NumericPInf:
		return 1
	case NumericNaN:
		return 2
	}
	return 0
}
