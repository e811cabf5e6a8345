package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// to_char for numeric, int4, int8, float4 and float8: each type turns its
// value into the digit string formatNumber lays out (numeric_to_char,
// int4_to_char, … in formatting.c), then the template writes it.

// numTemplate parses a template, or says to return ” (an empty template).
func numTemplate(f string) ([]numNode, numDesc, bool, error) {
	if f == "" {
		return nil, numDesc{}, false, nil
	}
	nodes, d, err := parseNumFormat(f)
	return nodes, d, err == nil, err
}

// layoutDigits splits a signed decimal string and pads or overflows it
// against the template's digit positions before the point.
func layoutDigits(d *numDesc, s string) (number string, sign byte, outPreSpaces int) {
	sign = '+'
	if strings.HasPrefix(s, "-") {
		sign, s = '-', s[1:]
	}
	preLen := len(s)
	if p := strings.IndexByte(s, '.'); p >= 0 {
		preLen = p
	}
	switch {
	case preLen < d.pre:
		outPreSpaces = d.pre - preLen
	case preLen > d.pre:
		s = strings.Repeat("#", d.pre) + "." + strings.Repeat("#", d.post)
	}
	return s, sign, outPreSpaces
}

func hashesEEEE(d *numDesc) string {
	b := []byte(strings.Repeat("#", d.pre+d.post+6))
	b[0], b[d.pre+1] = ' ', '.'
	return string(b)
}

// spaceForPlus is the EEEE output's sign column: a blank for positives.
func spaceForPlus(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return " " + strings.TrimPrefix(s, "+")
}

func numValText(n numVal) string {
	d, err := n.datum()
	if err != nil {
		return "NaN"
	}
	return numericToString(d)
}

// numericSci is numeric_out_sci: one digit before the point, scale digits
// after it (rounded half away from zero), then e±NN.
func numericSci(n numVal, scale int) string {
	switch n.special {
	case numNaN:
		return "NaN"
	case numPInf:
		return "Infinity"
	case numNInf:
		return "-Infinity"
	}
	exp := 0
	if n.coef.Sign() != 0 {
		exp = len(n.coef.Text(10)) - n.dscale - 1
	}
	sig := numVal{neg: n.neg, coef: new(big.Int).Set(n.coef), dscale: n.dscale + exp}
	if sig.dscale < 0 {
		sig.coef.Mul(sig.coef, pow10(-sig.dscale))
		sig.dscale = 0
	}
	sig.round(scale)
	e := strconv.Itoa(abs(exp))
	if len(e) < 2 {
		e = "0" + e
	}
	es := "+"
	if exp < 0 {
		es = "-"
	}
	return numValText(sig) + "e" + es + e
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func numericToChar(v numVal, f string) (Datum, error) {
	nodes, d, ok, err := numTemplate(f)
	if !ok {
		return Str(""), err
	}
	var number string
	var sign byte
	pre := 0
	switch {
	case d.is(nfRoman):
		r := v
		r.round(0)
		i, err := numToInt(r, Int4OID)
		if err != nil {
			return Datum{}, err
		}
		number = intToRoman(i.Int())
	case d.is(nfEEEE):
		s := numericSci(v, d.post)
		if v.special != numFinite {
			number = hashesEEEE(&d)
		} else {
			number = spaceForPlus(s)
		}
	default:
		if d.is(nfMulti) && v.special == numFinite {
			v = numMul(v, numVal{coef: new(big.Int).Set(pow10(d.multi))})
			d.pre += d.multi
		}
		v.round(d.post)
		number, sign, pre = layoutDigits(&d, numValText(v))
	}
	out, err := layoutNumber(nodes, d, number, sign, pre)
	return Str(out), err
}

// intDigits is the integer to_char digit string: the decimal value,
// "." and post zeros when the template has decimals.
func intDigits(d *numDesc, v int64) (string, byte, int) {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if d.post > 0 {
		digits += "." + strings.Repeat("0", d.post)
	}
	if neg {
		digits = "-" + digits
	}
	// the integer part decides padding and overflow, as for numeric
	number, sign, pre := layoutDigits(d, digits)
	return number, sign, pre
}

func int4ToChar(v int64, f string) (Datum, error) {
	nodes, d, ok, err := numTemplate(f)
	if !ok {
		return Str(""), err
	}
	var number string
	var sign byte
	pre := 0
	switch {
	case d.is(nfRoman):
		number = intToRoman(v)
	case d.is(nfEEEE):
		number = spaceForPlus(strconv.FormatFloat(float64(v), 'e', d.post, 64))
	default:
		if d.is(nfMulti) {
			v = int64(int32(v) * int32(math.Pow(10, float64(d.multi))))
			d.pre += d.multi
		}
		number, sign, pre = intDigits(&d, v)
	}
	out, err := layoutNumber(nodes, d, number, sign, pre)
	return Str(out), err
}

func int8ToChar(v int64, f string) (Datum, error) {
	nodes, d, ok, err := numTemplate(f)
	if !ok {
		return Str(""), err
	}
	var number string
	var sign byte
	pre := 0
	switch {
	case d.is(nfRoman):
		if v < math.MinInt32 || v > math.MaxInt32 {
			return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		number = intToRoman(v)
	case d.is(nfEEEE):
		number = spaceForPlus(numericSci(numOf(NumericFromInt(v)), d.post))
	default:
		if d.is(nfMulti) {
			m := int64(math.Pow(10, float64(d.multi)))
			p := v * m
			if m != 0 && (p/m != v || (v == -1 && m == math.MinInt64)) {
				return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
			}
			v = p
			d.pre += d.multi
		}
		number, sign, pre = intDigits(&d, v)
	}
	out, err := layoutNumber(nodes, d, number, sign, pre)
	return Str(out), err
}

// cFloat is PostgreSQL's snprintf %.*f, which spells the special values
// NaN, Infinity and -Infinity.
func cFloat(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// floatToChar is float4_to_char and float8_to_char; digits is FLT_DIG or
// DBL_DIG, the most significant digits the type prints.
func floatToChar(v float64, f string, digits int, isFloat4 bool) (Datum, error) {
	nodes, d, ok, err := numTemplate(f)
	if !ok {
		return Str(""), err
	}
	var number string
	var sign byte
	pre := 0
	switch {
	case d.is(nfRoman):
		r := math.RoundToEven(v)
		if math.IsNaN(r) || r < math.MinInt32 || r >= -float64(math.MinInt32) {
			r = math.MinInt32 // C's out-of-range conversion; prints as '#'s
		}
		number = intToRoman(int64(r))
	case d.is(nfEEEE):
		if math.IsNaN(v) || math.IsInf(v, 0) {
			number = hashesEEEE(&d)
		} else {
			number = spaceForPlus(strconv.FormatFloat(v, 'e', d.post, 64))
		}
	default:
		val := v
		if d.is(nfMulti) {
			m := math.Pow(10, float64(d.multi))
			if isFloat4 {
				val = float64(float32(v) * float32(m))
			} else {
				val = v * m
			}
			d.pre += d.multi
		}
		preLen := len(cFloat(math.Abs(val), 0))
		if preLen >= digits {
			d.post = 0
		} else if preLen+d.post > digits {
			d.post = digits - preLen
		}
		number, sign, pre = layoutDigits(&d, cFloat(val, d.post))
	}
	out, err := layoutNumber(nodes, d, number, sign, pre)
	return Str(out), err
}

func init() {
	fn("to_char", []Type{Numeric, Text}, Text, func(a []Datum) (Datum, error) { return numericToChar(numOf(a[0]), a[1].Str()) })
	fn("to_char", []Type{Int4, Text}, Text, func(a []Datum) (Datum, error) { return int4ToChar(a[0].Int(), a[1].Str()) })
	fn("to_char", []Type{Int8, Text}, Text, func(a []Datum) (Datum, error) { return int8ToChar(a[0].Int(), a[1].Str()) })
	fn("to_char", []Type{Float4, Text}, Text, func(a []Datum) (Datum, error) { return floatToChar(a[0].Float(), a[1].Str(), 6, true) })
	fn("to_char", []Type{Float8, Text}, Text, func(a []Datum) (Datum, error) { return floatToChar(a[0].Float(), a[1].Str(), 15, false) })
	fn("to_number", []Type{Text, Text}, Numeric, func(a []Datum) (Datum, error) { return toNumber(a[0].Str(), a[1].Str()) })
}
