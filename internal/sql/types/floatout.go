package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// appendShortestE appends f in 'e' notation with the fewest significant
// digits that read back as f, as PostgreSQL's float output (Ryu, with
// extra_float_digits = 1) chooses them. strconv's shortest formatting also
// accepts a decimal lying exactly halfway to a neighbouring float when the
// round-half-even read-back would still give f; Ryu never accepts such a
// boundary, so PostgreSQL prints one digit more there
// (41682372644697136::float8 is 4.1682372644697136e+16, not
// 4.168237264469714e+16). The correctly rounded decimal with more digits
// is the closest candidate at that length, so it is inside the interval
// whenever any decimal of that length is.
func appendShortestE(dst []byte, f float64, bits int) []byte {
	start := len(dst)
	b := strconv.AppendFloat(dst, f, 'e', -1, bits)
	maxDigits := 17
	if bits == 32 {
		maxDigits = 9
	}
	for n := significantDigits(b[start:]); n < maxDigits && onRoundingBoundary(string(b[start:]), f, bits); n++ {
		b = strconv.AppendFloat(b[:start], f, 'e', n, bits) // n digits after the point: n+1 in all
	}
	return b
}

// significantDigits counts the mantissa digits of an 'e'-notation number.
func significantDigits(b []byte) int {
	n := 0
	for _, c := range b {
		if c == 'e' {
			break
		}
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// onRoundingBoundary reports whether the decimal s is exactly halfway
// between f and a neighbouring float of the given size.
func onRoundingBoundary(s string, f float64, bits int) bool {
	// Cheap filter: a decimal strictly inside f's interval still reads
	// back as f after a nudge far below the last digit either way.
	if nudgedReadsBack(s, f, bits) {
		return false
	}
	dec, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	exact := new(big.Rat).SetFloat64(f)
	var neighbour float64
	switch dec.Cmp(exact) {
	case 0:
		return false
	case 1:
		neighbour = nextFloat(f, math.Inf(1), bits)
	default:
		neighbour = nextFloat(f, math.Inf(-1), bits)
	}
	if math.IsInf(neighbour, 0) {
		return false
	}
	mid := new(big.Rat).Add(exact, new(big.Rat).SetFloat64(neighbour))
	mid.Quo(mid, big.NewRat(2, 1))
	return dec.Cmp(mid) == 0
}

func nextFloat(f, toward float64, bits int) float64 {
	if bits == 32 {
		return float64(math.Nextafter32(float32(f), float32(toward)))
	}
	return math.Nextafter(f, toward)
}

// nudgedReadsBack: s moved up and down by one unit in its 30th digit
// after the last still parses as f.
func nudgedReadsBack(s string, f float64, bits int) bool {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(s, "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	d, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return false
	}
	e := 0
	if exp != "" {
		if e, err = strconv.Atoi(exp); err != nil {
			return false
		}
	}
	e -= len(frac) + 30
	const pad = "00000000000000000000000000000"
	sign := ""
	if neg {
		sign = "-"
	}
	up := sign + digits + pad + "1e" + strconv.Itoa(e)
	down := sign + strconv.FormatUint(d-1, 10) + strings.Repeat("9", 30) + "e" + strconv.Itoa(e)
	for _, v := range []string{up, down} {
		g, err := strconv.ParseFloat(v, bits)
		if err != nil || g != f {
			return false
		}
	}
	return true
}

// appendFloatStyled is float8out/float4out under extra_float_digits: the
// shortest exact output by default, and for extra_float_digits ≤ 0 the
// older "%.*g" output with 15 (float4: 6) + extra_float_digits
// significant digits, at least one.
func appendFloatStyled(st *Settings, dst []byte, f float64, bits int) []byte {
	if st == nil || st.RoundFloatDigits == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return appendFloat(dst, f, bits)
	}
	digits := 16 - st.RoundFloatDigits
	if bits == 32 {
		digits = 7 - st.RoundFloatDigits
	}
	if digits < 1 {
		digits = 1
	}
	return strconv.AppendFloat(dst, f, 'g', digits, 64)
}
