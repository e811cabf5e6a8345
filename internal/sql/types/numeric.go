package types

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/datum"
	"github.com/tidal-db/tidal/internal/pgerr"
)

// numeric: PostgreSQL's arbitrary-precision decimal type.
//
// A numeric Datum (kind kNum) holds in its string PostgreSQL's on-disk
// numeric payload exactly (what follows the varlena header), so storing it is
// a plain varlena copy and table sizes match PostgreSQL's:
//
//	short form  uint16 header: 0x8000 | sign 0x2000 | dscale<<7 (6 bits) |
//	            weight sign 0x0040 | weight & 0x3f; then the digits
//	long form   uint16 sign (0x0000 / 0x4000) | dscale (14 bits); int16
//	            weight; then the digits
//	special     uint16 header only: 0xC000 NaN, 0xD000 +Infinity,
//	            0xF000 -Infinity
//
// The digits are little-endian int16 base-10000 digits, the first one
// multiplied by 10000^weight, with no leading or trailing zero digits (zero
// has none, weight 0 and a positive sign). dscale is the display scale: the
// number of decimal digits shown after the point. The short form is used
// whenever dscale <= 63 and -64 <= weight <= 63, as PostgreSQL's
// make_result does.
//
// Arithmetic decodes the payload into a numVal (a math/big coefficient and
// the display scale), which keeps every result exact until PostgreSQL's
// result-scale rules round it. Comparison, hashing, text and binary output
// read the payload directly.

const (
	numBase          = 10000
	numDecDigits     = 4 // decimal digits per base-10000 digit
	numMaxPrecision  = 1000
	numMinScale      = -1000
	numMaxScale      = 1000
	numMaxDispScale  = 1000 // NUMERIC_MAX_DISPLAY_SCALE
	numMinSigDigits  = 16   // NUMERIC_MIN_SIG_DIGITS
	numMaxResultScal = 2000 // NUMERIC_MAX_RESULT_SCALE
	numDscaleMax     = 0x3FFF
	numWeightMax     = 32767
	numWeightMin     = -32768

	numHdrShort     = 0x8000
	numHdrSpecial   = 0xC000
	numHdrNaN       = 0xC000
	numHdrPInf      = 0xD000
	numHdrNInf      = 0xF000
	numSignNeg      = 0x4000
	numShortSign    = 0x2000
	numShortDscMask = 0x1F80
	numShortWSign   = 0x0040
	numShortWMask   = 0x003F
	numShortMaxDsc  = 63
	numShortMaxW    = 63
	numShortMinW    = -64
)

// numSpecial says whether a numeric is finite or one of the special values
// (the payload format is package datum's).
type numSpecial = datum.NumericSpecial

const (
	numFinite = datum.NumericFinite
	numNaN    = datum.NumericNaN
	numPInf   = datum.NumericPInf
	numNInf   = datum.NumericNInf
)

// numVar is the base-10000 form of a numeric (PostgreSQL's NumericVar).
type numVar struct {
	special numSpecial
	neg     bool
	weight  int
	dscale  int
	digits  []int16
}

// numHeader decodes a payload's header without touching its digits.
// digitsOff is where the digits start.
func numHeader(p string) (special numSpecial, neg bool, weight, dscale, digitsOff int) {
	return datum.NumericHeader(p)
}

func numDigitAt(p string, off, i int) int { return datum.NumericDigitAt(p, off, i) }

func decodeNumVar(p string) numVar {
	sp, neg, w, dsc, off := numHeader(p)
	v := numVar{special: sp, neg: neg, weight: w, dscale: dsc}
	if sp != numFinite {
		return v
	}
	n := (len(p) - off) / 2
	v.digits = make([]int16, n)
	for i := range v.digits {
		v.digits[i] = int16(numDigitAt(p, off, i))
	}
	return v
}

// encode builds the payload of v, normalizing it first (leading and
// trailing zero digits dropped; zero gets weight 0 and a positive sign).
// It fails as make_result does when the weight or dscale does not fit.
func (v numVar) encode() (string, error) {
	switch v.special {
	case numNaN:
		return datum.NumericNaNPayload, nil
	case numPInf:
		return datum.NumericPInfPayload, nil
	case numNInf:
		return datum.NumericNInfPayload, nil
	}
	d := v.digits
	w := v.weight
	for len(d) > 0 && d[0] == 0 {
		d = d[1:]
		w--
	}
	for len(d) > 0 && d[len(d)-1] == 0 {
		d = d[:len(d)-1]
	}
	neg := v.neg
	if len(d) == 0 {
		w, neg = 0, false
	}
	if w > numWeightMax || w < numWeightMin || v.dscale > numDscaleMax || v.dscale < 0 {
		return "", numOverflowErr()
	}
	return datum.NumericPayload(neg, w, v.dscale, d), nil
}

func numOverflowErr() error {
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// numVal is a numeric in arithmetic form: value = ±coef / 10^dscale.
// coef is never negative; zero is never negative.
type numVal struct {
	special numSpecial
	neg     bool
	coef    *big.Int
	dscale  int
}

var bigTen = big.NewInt(10)

var pow10Cache [64]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range pow10Cache {
		pow10Cache[i] = new(big.Int).Set(p)
		p.Mul(p, bigTen)
	}
}

// pow10 returns 10^n (n >= 0); the result must not be modified.
func pow10(n int) *big.Int {
	if n < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

func (v numVar) toVal() numVal {
	if v.special != numFinite {
		return numVal{special: v.special, neg: v.special == numNInf, coef: new(big.Int)}
	}
	c := new(big.Int)
	var acc uint64
	k := 0
	for _, d := range v.digits {
		acc = acc*numBase + uint64(d)
		k++
		if k == 4 {
			c.Mul(c, pow10(16))
			c.Add(c, new(big.Int).SetUint64(acc))
			acc, k = 0, 0
		}
	}
	if k > 0 {
		c.Mul(c, pow10(4*k))
		c.Add(c, new(big.Int).SetUint64(acc))
	}
	// c is the value * 10^(4*(ndigits-1-weight)); bring it to dscale
	shift := v.dscale - numDecDigits*(len(v.digits)-1-v.weight)
	if shift > 0 {
		c.Mul(c, pow10(shift))
	} else if shift < 0 {
		c.Quo(c, pow10(-shift))
	}
	return numVal{neg: v.neg && c.Sign() != 0, coef: c, dscale: v.dscale}
}

func (n numVal) toVar() numVar {
	if n.special != numFinite {
		return numVar{special: n.special}
	}
	if n.coef.Sign() == 0 {
		return numVar{dscale: n.dscale}
	}
	ds := n.coef.Text(10)
	intLen := len(ds) - n.dscale // decimal digits before the point
	if intLen < 0 {
		ds = strings.Repeat("0", -intLen) + ds
		intLen = 0
	}
	padL := (numDecDigits - intLen%numDecDigits) % numDecDigits
	padR := (numDecDigits - n.dscale%numDecDigits) % numDecDigits
	g := strings.Repeat("0", padL) + ds + strings.Repeat("0", padR)
	v := numVar{neg: n.neg, dscale: n.dscale, weight: (intLen+padL)/numDecDigits - 1}
	v.digits = make([]int16, len(g)/numDecDigits)
	for i := range v.digits {
		x := 0
		for _, c := range g[numDecDigits*i : numDecDigits*i+numDecDigits] {
			x = x*10 + int(c-'0')
		}
		v.digits[i] = int16(x)
	}
	// normalize as make_result does, so weight is the true weight
	for len(v.digits) > 0 && v.digits[0] == 0 {
		v.digits = v.digits[1:]
		v.weight--
	}
	for len(v.digits) > 0 && v.digits[len(v.digits)-1] == 0 {
		v.digits = v.digits[:len(v.digits)-1]
	}
	return v
}

func (n numVal) datum() (Datum, error) {
	s, err := n.toVar().encode()
	if err != nil {
		return Datum{}, err
	}
	return StrOfKind(kNum, s), nil
}

func numOf(d Datum) numVal { return decodeNumVar(d.Str()).toVal() }

func numSpecialDatum(sp numSpecial) Datum {
	s, _ := numVar{special: sp}.encode()
	return StrOfKind(kNum, s)
}

// NumericFromInt returns the numeric datum for v (display scale 0).
func NumericFromInt(v int64) Datum {
	u := uint64(v)
	if v < 0 {
		u = -u // also right for math.MinInt64
	}
	var rev [5]int16 // base-10000 digits, least significant first
	n := 0
	for ; u > 0; n++ {
		rev[n] = int16(u % numBase)
		u /= numBase
	}
	nv := numVar{neg: v < 0, weight: n - 1, digits: make([]int16, n)}
	for i := range nv.digits {
		nv.digits[i] = rev[n-1-i]
	}
	s, _ := nv.encode() // an int64 always fits
	return StrOfKind(kNum, s)
}

// ParseNumeric is numeric_in without a typmod.
func ParseNumeric(s string) (Datum, error) { return parseNumeric(s, -1) }

// parseNumeric is numeric_in: optional whitespace, NaN / [+-]Infinity /
// [+-]inf (any case), or [+-]digits[.digits][e[+-]digits], optional
// whitespace; then the typmod is applied.
func parseNumeric(orig string, typmod int32) (Datum, error) {
	s := strings.TrimLeftFunc(orig, isSpaceRune)
	bad := func() error {
		return pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", orig)
	}
	for _, sp := range [...]struct {
		word string
		val  numSpecial
	}{{"NaN", numNaN}, {"Infinity", numPInf}, {"+Infinity", numPInf}, {"-Infinity", numNInf}, {"inf", numPInf}, {"+inf", numPInf}, {"-inf", numNInf}} {
		if len(s) >= len(sp.word) && strings.EqualFold(s[:len(sp.word)], sp.word) {
			if strings.TrimLeftFunc(s[len(sp.word):], isSpaceRune) != "" {
				return Datum{}, bad()
			}
			if err := applyNumTypmodSpecial(sp.val, typmod); err != nil {
				return Datum{}, err
			}
			return numSpecialDatum(sp.val), nil
		}
	}
	p := 0
	neg := false
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		neg = s[p] == '-'
		p++
	}
	var digits []byte
	fracLen, ndig := 0, 0
	seenPoint := false
	for ; p < len(s); p++ {
		c := s[p]
		if c >= '0' && c <= '9' {
			digits = append(digits, c)
			ndig++
			if seenPoint {
				fracLen++
			}
		} else if c == '.' && !seenPoint {
			seenPoint = true
		} else {
			break
		}
	}
	if ndig == 0 {
		return Datum{}, bad()
	}
	exp := 0
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		p++
		q := p
		if q < len(s) && (s[q] == '+' || s[q] == '-') {
			q++
		}
		st := q
		for q < len(s) && s[q] >= '0' && s[q] <= '9' {
			q++
		}
		if q == st {
			return Datum{}, bad()
		}
		e, err := strconv.Atoi(s[p:q])
		if err != nil || e >= 1<<30 || e <= -(1<<30) {
			return Datum{}, numOverflowErr()
		}
		exp = e
		p = q
	}
	if strings.TrimLeftFunc(s[p:], isSpaceRune) != "" {
		return Datum{}, bad()
	}
	// value = digits * 10^(exp - fracLen)
	dscale := fracLen - exp
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits)-dscale > (numWeightMax+1)*numDecDigits {
		return Datum{}, numOverflowErr() // more integer digits than any weight allows
	}
	if dscale < 0 {
		digits = append(digits, strings.Repeat("0", -dscale)...)
		dscale = 0
	}
	if dscale > numDscaleMax {
		return Datum{}, numOverflowErr()
	}
	c, _ := new(big.Int).SetString(string(digits), 10)
	n := numVal{neg: neg && c.Sign() != 0, coef: c, dscale: dscale}
	if err := n.applyTypmod(typmod); err != nil {
		return Datum{}, err
	}
	return n.datum()
}

// Numeric typmods: ((precision << 16) | (scale & 0x7ff)) + VARHDRSZ, the
// scale an 11-bit two's complement value (PostgreSQL 15 allows negative
// scales and scales above the precision).

// NumericTypmod returns the typmod of numeric(precision, scale), checking
// the bounds as numerictypmodin does.
func NumericTypmod(mods []int32) (int32, error) {
	if len(mods) == 0 || len(mods) > 2 {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "invalid NUMERIC type modifier")
	}
	prec := mods[0]
	if prec < 1 || prec > numMaxPrecision {
		return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and %d", prec, numMaxPrecision)
	}
	var scale int32
	if len(mods) == 2 {
		scale = mods[1]
		if scale < numMinScale || scale > numMaxScale {
			return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between %d and %d", scale, numMinScale, numMaxScale)
		}
	}
	return (prec<<16 | scale&0x7ff) + VarHdrSz, nil
}

func numTypmodPrecScale(typmod int32) (prec, scale int) {
	m := typmod - VarHdrSz
	return int(m>>16) & 0xffff, int((m&0x7ff)^1024) - 1024
}

func validNumTypmod(typmod int32) bool { return typmod >= VarHdrSz }

func applyNumTypmodSpecial(sp numSpecial, typmod int32) error {
	if sp == numNaN || !validNumTypmod(typmod) {
		return nil
	}
	p, s := numTypmodPrecScale(typmod)
	return pgerr.Errorf(pgerr.NumericValueOutOfRange, "numeric field overflow").
		WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
}

// applyTypmod is apply_typmod: round to the scale, then check that the
// value has at most precision-scale digits before the point.
func (n *numVal) applyTypmod(typmod int32) error {
	if !validNumTypmod(typmod) {
		return nil
	}
	if n.special != numFinite {
		return applyNumTypmodSpecial(n.special, typmod)
	}
	prec, scale := numTypmodPrecScale(typmod)
	n.round(scale)
	if n.coef.Sign() == 0 {
		return nil
	}
	maxDigits := prec - scale
	// overflow when |value| >= 10^maxDigits, i.e. coef >= 10^(maxDigits+dscale)
	if e := maxDigits + n.dscale; e <= 0 || n.coef.Cmp(pow10(e)) >= 0 {
		prefix, shown := "10^", maxDigits
		if maxDigits == 0 {
			prefix, shown = "", 1
		}
		return pgerr.Errorf(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s%d.", prec, scale, prefix, shown)
	}
	return nil
}

// round is round_var: round half away from zero to scale decimal digits
// (negative: to tens, hundreds, ...); the display scale becomes
// max(scale, 0).
func (n *numVal) round(scale int) { n.rescale(scale, true) }

// trunc is trunc_var.
func (n *numVal) trunc(scale int) { n.rescale(scale, false) }

func (n *numVal) rescale(scale int, roundHalfUp bool) {
	if n.special != numFinite {
		return
	}
	ds := max(scale, 0)
	switch {
	case scale >= n.dscale:
		n.coef = new(big.Int).Mul(n.coef, pow10(ds-n.dscale))
	default:
		div := pow10(n.dscale - scale)
		q, r := new(big.Int).QuoRem(n.coef, div, new(big.Int))
		if roundHalfUp && r.Lsh(r, 1).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if scale < 0 {
			q.Mul(q, pow10(-scale))
		}
		n.coef = q
	}
	n.dscale = ds
	if n.coef.Sign() == 0 {
		n.neg = false
	}
}

// appendNumericText is numeric_out.
func appendNumericText(dst []byte, p string) []byte {
	sp, neg, weight, dscale, off := numHeader(p)
	switch sp {
	case numNaN:
		return append(dst, "NaN"...)
	case numPInf:
		return append(dst, "Infinity"...)
	case numNInf:
		return append(dst, "-Infinity"...)
	}
	nd := (len(p) - off) / 2
	digit := func(i int) int {
		if i < 0 || i >= nd {
			return 0
		}
		return numDigitAt(p, off, i)
	}
	if neg {
		dst = append(dst, '-')
	}
	if weight < 0 {
		dst = append(dst, '0')
	} else {
		for i := 0; i <= weight; i++ {
			d := digit(i)
			if i == 0 {
				dst = strconv.AppendInt(dst, int64(d), 10)
				continue
			}
			dst = append(dst, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
		}
	}
	if dscale > 0 {
		dst = append(dst, '.')
		for k, i := 0, weight+1; k < dscale; i++ {
			d := digit(i)
			for _, c := range [4]byte{byte('0' + d/1000), byte('0' + d/100%10), byte('0' + d/10%10), byte('0' + d%10)} {
				if k == dscale {
					break
				}
				dst = append(dst, c)
				k++
			}
		}
	}
	return dst
}

// appendNumericBinary is numeric_send: int16 ndigits, int16 weight, uint16
// sign, int16 dscale, then the base-10000 digits, all big-endian.
func appendNumericBinary(dst []byte, p string) []byte {
	sp, neg, weight, dscale, off := numHeader(p)
	sign := uint16(0)
	switch sp {
	case numNaN, numPInf, numNInf:
		// PostgreSQL reads the special header as a short one: the
		// infinities report dscale 32.
		h := uint16(p[0]) | uint16(p[1])<<8
		dst = binary.BigEndian.AppendUint16(dst, 0)
		dst = binary.BigEndian.AppendUint16(dst, 0)
		dst = binary.BigEndian.AppendUint16(dst, h)
		return binary.BigEndian.AppendUint16(dst, (h&numShortDscMask)>>7)
	}
	if neg {
		sign = numSignNeg
	}
	nd := (len(p) - off) / 2
	dst = binary.BigEndian.AppendUint16(dst, uint16(nd))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	dst = binary.BigEndian.AppendUint16(dst, uint16(dscale))
	for i := 0; i < nd; i++ {
		dst = binary.BigEndian.AppendUint16(dst, uint16(numDigitAt(p, off, i)))
	}
	return dst
}

// recvNumeric is numeric_recv.
func recvNumeric(b []byte, typmod int32) (Datum, error) {
	if len(b) < 8 {
		return Datum{}, errInsufficient()
	}
	nd := int(binary.BigEndian.Uint16(b))
	if len(b) < 8+2*nd {
		return Datum{}, errInsufficient()
	}
	if len(b) > 8+2*nd {
		return Datum{}, errBinaryFormat()
	}
	v := numVar{weight: int(int16(binary.BigEndian.Uint16(b[2:]))), dscale: int(binary.BigEndian.Uint16(b[6:]))}
	switch sign := binary.BigEndian.Uint16(b[4:]); sign {
	case 0:
	case numSignNeg:
		v.neg = true
	case numHdrNaN:
		v.special = numNaN
	case numHdrPInf:
		v.special = numPInf
	case numHdrNInf:
		v.special = numNInf
	default:
		return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid sign in external \"numeric\" value")
	}
	if v.dscale&numDscaleMax != v.dscale {
		return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid scale in external \"numeric\" value")
	}
	v.digits = make([]int16, nd)
	for i := range v.digits {
		d := int16(binary.BigEndian.Uint16(b[8+2*i:]))
		if d < 0 || d >= numBase {
			return Datum{}, pgerr.Errorf(ErrBinaryFormat, "invalid digit in external \"numeric\" value")
		}
		v.digits[i] = d
	}
	if v.special != numFinite {
		if err := applyNumTypmodSpecial(v.special, typmod); err != nil {
			return Datum{}, err
		}
		return numSpecialDatum(v.special), nil
	}
	// digits beyond dscale are dropped (trunc_var), which toVal does
	n := v.toVal()
	if err := n.applyTypmod(typmod); err != nil {
		return Datum{}, err
	}
	return n.datum()
}

// CompareNumeric orders two numeric payloads (datum.CompareNumeric).
func CompareNumeric(a, b string) int { return datum.CompareNumeric(a, b) }

// hashNumeric hashes the value without its display scale, so values that
// compare equal hash alike.
func hashNumeric(p string) uint64 {
	sp, neg, w, _, off := numHeader(p)
	if sp != numFinite {
		return HashInt64(int64(sp)) ^ hashK2
	}
	if off == len(p) {
		return HashInt64(0) ^ hashK1
	}
	h := HashString(p[off:])
	if neg {
		h = ^h
	}
	return mix(h^uint64(int64(w)), hashK1)
}

// AppendGroupKey appends bytes identifying d's equality class under t: two
// values give the same bytes exactly when Equal says they are equal, and
// the bytes never contain NUL (callers join several keys with it). It is
// the output text except for numeric, whose insignificant trailing zeros
// are dropped (1.5 and 1.50 group together).
func AppendGroupKey(dst []byte, t Type, d Datum) []byte {
	if out, ok := groupKeyNewType(dst, t, d); ok {
		return out
	}
	if IsUserType(t) {
		return append(dst, d.Str()...) // an enum value's bytes are its identity
	}
	if t.OID != NumericOID {
		return AppendText(dst, t, d)
	}
	start := len(dst)
	dst = appendNumericText(dst, d.Str())
	if bytes.IndexByte(dst[start:], '.') >= 0 {
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
		if dst[len(dst)-1] == '.' {
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// numericToString returns the canonical text of a numeric datum.
func numericToString(d Datum) string { return string(appendNumericText(nil, d.Str())) }
