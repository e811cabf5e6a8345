package types

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// numIn is the to_number half of NUM_processor: it reads digits, a point
// and a sign out of the input where the template's positions say, into
// number (a sign byte, then digits and at most one '.').
type numIn struct {
	d                 *numDesc
	in                string
	p                 int
	number            []byte
	readDec           bool
	readPre, readPost int
}

func (r *numIn) done() bool               { return r.p >= len(r.in) }
func (r *numIn) has(n int) bool           { return r.p <= len(r.in)-n }
func (r *numIn) cur() byte                { return r.in[r.p] }
func (r *numIn) startsWith(s string) bool { return r.has(len(s)) && strings.HasPrefix(r.in[r.p:], s) }

func toNumber(in, f string) (Datum, error) {
	if f == "" {
		return Datum{}, nil
	}
	nodes, d, err := parseNumFormat(f)
	if err != nil {
		return Datum{}, err
	}
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.is(nfEEEE) {
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, `"EEEE" not supported for input`)
	}
	if d.is(nfRoman) {
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, `"RN" not supported for input`)
	}
	r := &numIn{d: &d, in: in, number: []byte{' '}}
	for _, n := range nodes {
		if r.done() {
			break
		}
		if !n.isKey {
			r.skipChar()
			continue
		}
		if r.key(n.key) {
			r.p++
		}
	}
	num := r.number
	if num[len(num)-1] == '.' {
		num = num[:len(num)-1]
	}
	scale := r.readPost
	prec := d.pre + d.multi + scale
	res, err := parseNumeric(string(num), int32(prec<<16|scale)+VarHdrSz)
	if err != nil || !d.is(nfMulti) {
		return res, err
	}
	v := numOf(res)
	return numMul(v, numVal{coef: big.NewInt(1), dscale: d.multi}).datum()
}

func (r *numIn) skipChar() {
	_, sz := utf8.DecodeRuneInString(r.in[r.p:])
	r.p += sz
}

// eatNonData skips up to n input characters that are not digits, points,
// commas or signs.
func (r *numIn) eatNonData(n int) {
	for ; n > 0 && !r.done(); n-- {
		if strings.IndexByte("0123456789.,+-", r.cur()) >= 0 {
			return
		}
		r.skipChar()
	}
}

// key handles one keyword; it returns whether the current input character
// was consumed (NUM_processor's "break" to the loop's inout_p++).
func (r *numIn) key(k numKey) bool {
	d := r.d
	switch k {
	case nk9, nk0, nkDec, nkD:
		r.digit(k)
		return true
	case nkComma:
		return !d.is(nfFill) && r.cur() == ','
	case nkG:
		return !d.is(nfFill) && r.startsWith(",")
	case nkL:
		r.eatNonData(1)
	case nkTH, nkth:
		if !d.is(nfDecimal) {
			r.eatNonData(2)
		}
	case nkMI, nkPL, nkSG:
		c := r.cur()
		if (c == '-' && k != nkPL) || (c == '+' && k != nkMI) {
			r.number[0] = c
			return true
		}
		r.eatNonData(1)
	}
	return false
}

// digit is NUM_numpart_from_char.
func (r *numIn) digit(k numKey) {
	d := r.d
	if r.done() {
		return
	}
	if r.cur() == ' ' {
		r.p++
	}
	if r.done() {
		return
	}
	if r.number[0] == ' ' && (k == nk0 || k == nk9) && r.readPre+r.readPost == 0 {
		if d.is(nfLSign) && d.lsign == lsignPre {
			if r.startsWith("-") || r.startsWith("+") {
				r.number[0] = r.cur()
				r.p++
			}
		} else if c := r.cur(); c == '-' || (d.is(nfBracket) && c == '<') {
			r.number[0] = '-'
			r.p++
		} else if c == '+' {
			r.number[0] = '+'
			r.p++
		}
	}
	if r.done() {
		return
	}
	read := false
	if c := r.cur(); isDigitByte(c) {
		if r.readDec && r.readPost == d.post {
			return
		}
		r.number = append(r.number, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		read = true
	} else if d.is(nfDecimal) && !r.readDec && r.startsWith(".") {
		r.number = append(r.number, '.')
		r.readDec, read = true, true
	}
	if r.done() || r.number[0] != ' ' || r.readPre+r.readPost == 0 {
		return
	}
	// a sign after the last digit read: S anchored to the number, or a
	// loose MI/PL/SG the template cannot place exactly
	if d.is(nfLSign) && read && r.p+1 < len(r.in) && !isDigitByte(r.in[r.p+1]) {
		if c := r.in[r.p+1]; c == '-' || c == '+' {
			r.p++
			r.number[0] = c
		}
	} else if !read && !d.is(nfLSign) && (d.is(nfPlus) || d.is(nfMinus)) {
		if c := r.cur(); c == '-' || c == '+' {
			r.number[0] = c
		}
	}
}
