package types

import (
	"strings"
)

// numOut is the to_char half of PostgreSQL's NUM_processor: it walks the
// template's nodes and writes the prepared digit string (number: digits and
// at most one '.', no sign; or roman numerals; or '#'s on overflow) into
// out. The state mirrors NUMProc so that the many small layout rules
// (blank padding, FM trimming, where the sign goes) come out as
// PostgreSQL's do.
type numOut struct {
	d            *numDesc
	number       string
	p            int // next character of number
	lastRelevant int // FM: last digit after the point worth printing; -1 none
	sign         byte
	signWrote    bool
	numCount     int
	numCurr      int
	numIn        bool
	outPreSpaces int
	out          []byte
}

func (o *numOut) at(i int) byte {
	if i >= 0 && i < len(o.number) {
		return o.number[i]
	}
	return 0
}

// formatNumber runs the template over a prepared number. sign is '+' or
// '-' (0 for roman numerals); outPreSpaces is how many digit positions
// before the point the number leaves empty.
func layoutNumber(nodes []numNode, d numDesc, number string, sign byte, outPreSpaces int) (string, error) {
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.is(nfEEEE) {
		return number, nil
	}
	if d.is(nfRoman) {
		d.lsign, d.preLsignNum, d.post, d.pre = 0, 0, 0, 0
		outPreSpaces, sign = 0, 0
		d.flag = d.flag&nfFill | nfRoman
	}
	o := &numOut{d: &d, number: number, sign: sign, lastRelevant: -1}
	if d.is(nfPlus) || d.is(nfMinus) {
		o.signWrote = !(d.is(nfPlus) && !d.is(nfMinus))
	} else {
		if sign != '-' && d.is(nfFill) {
			d.flag &^= nfBracket
		}
		o.signWrote = sign == '+' && d.is(nfFill) && !d.is(nfLSign)
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	o.numCount = d.post + d.pre - 1
	o.outPreSpaces = outPreSpaces
	if d.is(nfFill) && d.is(nfDecimal) {
		o.lastRelevant = lastRelevantDecimal(number)
		if o.lastRelevant >= 0 && d.zeroEnd > outPreSpaces {
			lastZero := min(len(number)-1, d.zeroEnd-outPreSpaces)
			if o.lastRelevant < lastZero {
				o.lastRelevant = lastZero
			}
		}
	}
	if !o.signWrote && outPreSpaces == 0 {
		o.numCount++
	}
	for _, n := range nodes {
		if !n.isKey {
			o.out = append(o.out, n.lit...)
			continue
		}
		if err := o.key(n.key); err != nil {
			return "", err
		}
	}
	// PostgreSQL builds a C string: a NUL written for a digit position past
	// the number's end (a float's digits cut to its precision) ends it.
	if i := strings.IndexByte(string(o.out), 0); i >= 0 {
		o.out = o.out[:i]
	}
	return string(o.out), nil
}

// lastRelevantDecimal is the index of the last nonzero digit after the
// point, or of the point itself; -1 without a point.
func lastRelevantDecimal(num string) int {
	p := strings.IndexByte(num, '.')
	if p < 0 {
		return -1
	}
	r := p
	for i := p + 1; i < len(num); i++ {
		if num[i] != '0' {
			r = i
		}
	}
	return r
}

func (o *numOut) key(k numKey) error {
	d := o.d
	fill := d.is(nfFill)
	switch k {
	case nk9, nk0, nkDec, nkD:
		o.digit(k)
	case nkComma, nkG:
		switch {
		case o.numIn:
			o.out = append(o.out, ',')
		case !fill:
			o.out = append(o.out, ' ')
		}
	case nkL:
		o.out = append(o.out, ' ') // the C locale's currency symbol
	case nkRN, nkrn:
		s := o.number[min(o.p, len(o.number)):]
		if k == nkrn {
			s = strings.ToLower(s)
		}
		if !fill && len(s) < 15 {
			o.out = append(o.out, strings.Repeat(" ", 15-len(s))...)
		}
		o.out = append(o.out, s...)
	case nkTH, nkth:
		if d.is(nfRoman) || o.at(0) == '#' || o.sign == '-' || d.is(nfDecimal) {
			return nil
		}
		s, err := ordinalSuffix(o.number, k == nkth)
		if err != nil {
			return err
		}
		o.out = append(o.out, s...)
	case nkMI:
		switch {
		case o.sign == '-':
			o.out = append(o.out, '-')
		case !fill:
			o.out = append(o.out, ' ')
		}
	case nkPL:
		switch {
		case o.sign == '+':
			o.out = append(o.out, '+')
		case !fill:
			o.out = append(o.out, ' ')
		}
	case nkSG:
		o.out = append(o.out, o.sign)
	}
	return nil
}

// predecSpace is IS_PREDEC_SPACE: the lone zero before the point of a
// number below one, printed as a blank ("9.9" formats 0.1 as "  .1").
func (o *numOut) predecSpace() bool {
	return !o.d.is(nfZero) && o.p == 0 && o.at(0) == '0' && o.d.post != 0
}

func (o *numOut) lastIsPoint() bool {
	return o.lastRelevant >= 0 && o.at(o.lastRelevant) == '.'
}

// digit is NUM_numpart_to_char: a digit position (9, 0, D or .) writes the
// sign first when the number starts here, then a blank, a zero, the
// point or the next digit, and after the last position a trailing sign.
func (o *numOut) digit(k numKey) {
	d := o.d
	fill := d.is(nfFill)
	if d.is(nfRoman) {
		return
	}
	o.numIn = false
	if !o.signWrote &&
		(o.numCurr >= o.outPreSpaces || (d.is(nfZero) && d.zeroStart == o.numCurr)) &&
		(!o.predecSpace() || o.lastIsPoint()) {
		switch {
		case d.is(nfLSign):
			if d.lsign == lsignPre {
				o.out = append(o.out, o.signChar())
				o.signWrote = true
			}
		case d.is(nfBracket):
			o.out = append(o.out, map[bool]byte{true: ' ', false: '<'}[o.sign == '+'])
			o.signWrote = true
		case o.sign == '+':
			if !fill {
				o.out = append(o.out, ' ')
			}
			o.signWrote = true
		case o.sign == '-':
			o.out = append(o.out, '-')
			o.signWrote = true
		}
	}
	switch {
	case o.numCurr < o.outPreSpaces && (d.zeroStart > o.numCurr || !d.is(nfZero)):
		if !fill {
			o.out = append(o.out, ' ')
		}
	case d.is(nfZero) && o.numCurr < o.outPreSpaces && d.zeroStart <= o.numCurr:
		o.out = append(o.out, '0')
		o.numIn = true
	default:
		if o.at(o.p) == '.' {
			if !o.lastIsPoint() || fill {
				o.out = append(o.out, '.')
			}
		} else {
			switch {
			case o.lastRelevant >= 0 && o.p > o.lastRelevant && k != nk0:
			case o.predecSpace():
				if !fill {
					o.out = append(o.out, ' ')
				} else if o.lastIsPoint() {
					o.out = append(o.out, '0')
				}
			default:
				o.out = append(o.out, o.at(o.p)) // past the end: a NUL, see layoutNumber
				o.numIn = true
			}
		}
		if o.p < len(o.number) {
			o.p++
		}
	}
	end := o.numCount
	if o.outPreSpaces > 0 {
		end++
	}
	if d.is(nfDecimal) {
		end++
	}
	if o.lastRelevant >= 0 && o.lastRelevant == o.p {
		end = o.numCurr
	}
	if o.numCurr+1 == end {
		switch {
		case o.signWrote && d.is(nfBracket):
			o.out = append(o.out, map[bool]byte{true: ' ', false: '>'}[o.sign == '+'])
		case d.is(nfLSign) && d.lsign == lsignPost:
			o.out = append(o.out, o.signChar())
		}
	}
	o.numCurr++
}

func (o *numOut) signChar() byte {
	if o.sign == '-' {
		return '-'
	}
	return '+'
}
