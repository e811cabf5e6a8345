package types

import (
	"math"
	"math/big"
	"strconv"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// numeric arithmetic, functions and casts, with PostgreSQL's result scales
// and its rules for NaN and the infinities.

func (n numVal) isZero() bool { return n.special == numFinite && n.coef.Sign() == 0 }

// signum is -1, 0 or +1 (the infinities count as their sign; NaN as 0).
func (n numVal) signum() int {
	switch n.special {
	case numPInf:
		return 1
	case numNInf:
		return -1
	case numNaN:
		return 0
	}
	if n.neg {
		return -1
	}
	return n.coef.Sign()
}

func (n numVal) signed() *big.Int {
	if n.neg {
		return new(big.Int).Neg(n.coef)
	}
	return n.coef
}

func numFromSigned(c *big.Int, dscale int) numVal {
	v := numVal{coef: c, dscale: dscale}
	if c.Sign() < 0 {
		v.neg = true
		v.coef = new(big.Int).Neg(c)
	}
	return v
}

func numInf(sign int) numVal {
	if sign < 0 {
		return numVal{special: numNInf, neg: true}
	}
	return numVal{special: numPInf}
}

var numNaNVal = numVal{special: numNaN}

// aligned returns a's and b's signed coefficients at the larger scale.
func aligned(a, b numVal) (x, y *big.Int, scale int) {
	scale = max(a.dscale, b.dscale)
	x, y = a.signed(), b.signed()
	if a.dscale < scale {
		x = new(big.Int).Mul(x, pow10(scale-a.dscale))
	}
	if b.dscale < scale {
		y = new(big.Int).Mul(y, pow10(scale-b.dscale))
	}
	return x, y, scale
}

func numAdd(a, b numVal) numVal {
	if a.special != numFinite || b.special != numFinite {
		switch {
		case a.special == numNaN || b.special == numNaN:
			return numNaNVal
		case a.special == numFinite:
			return b
		case b.special == numFinite || a.special == b.special:
			return a
		}
		return numNaNVal // Infinity + -Infinity
	}
	x, y, s := aligned(a, b)
	return numFromSigned(new(big.Int).Add(x, y), s)
}

func numNeg(a numVal) numVal {
	switch a.special {
	case numPInf:
		return numInf(-1)
	case numNInf:
		return numInf(1)
	case numNaN:
		return a
	}
	if a.coef.Sign() != 0 {
		a.neg = !a.neg
	}
	return a
}

func numSub(a, b numVal) numVal { return numAdd(a, numNeg(b)) }

func numMul(a, b numVal) numVal {
	if a.special != numFinite || b.special != numFinite {
		if a.special == numNaN || b.special == numNaN {
			return numNaNVal
		}
		s := a.signum() * b.signum()
		if s == 0 {
			return numNaNVal // Infinity * 0
		}
		return numInf(s)
	}
	return numFromSigned(new(big.Int).Mul(a.signed(), b.signed()), a.dscale+b.dscale)
}

// numWeight returns the base-10000 weight and first digit of a nonzero
// finite value (as the normalized NumericVar has them).
// numMulOp is numeric_mul: the exact product, rounded when it has more
// digits after the point than a numeric can store.
func numMulOp(a, b numVal) numVal {
	r := numMul(a, b)
	if r.special == numFinite && r.dscale > numDscaleMax {
		r.round(numDscaleMax)
	}
	return r
}

func numWeight(n numVal) (weight, first int) {
	v := n.toVar()
	for i, d := range v.digits {
		if d != 0 {
			return v.weight - i, int(d)
		}
	}
	return 0, 0
}

// divScale is select_div_scale: at least 16 significant digits, and no
// fewer decimals than either input shows.
func divScale(a, b numVal) int {
	w1, f1 := numWeight(a)
	w2, f2 := numWeight(b)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	r := numMinSigDigits - qweight*numDecDigits
	r = max(r, a.dscale, b.dscale, 0)
	return min(r, numMaxDispScale)
}

// quotient returns a/b rounded (half away from zero) or truncated to scale.
func quotient(a, b numVal, scale int, round bool) numVal {
	// a/b * 10^scale = a.coef * 10^(scale + b.dscale - a.dscale) / b.coef
	num := new(big.Int).Set(a.coef)
	den := new(big.Int).Set(b.coef)
	if e := scale + b.dscale - a.dscale; e >= 0 {
		num.Mul(num, pow10(e))
	} else {
		den.Mul(den, pow10(-e))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if round && r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	res := numVal{coef: q, dscale: scale, neg: a.neg != b.neg}
	if q.Sign() == 0 {
		res.neg = false
	}
	return res
}

func numDiv(a, b numVal) (numVal, error) {
	if a.special != numFinite || b.special != numFinite {
		switch {
		case a.special == numNaN || b.special == numNaN:
			return numNaNVal, nil
		case a.special != numFinite && b.special != numFinite:
			return numNaNVal, nil // Infinity / Infinity
		case a.special != numFinite:
			if b.isZero() {
				return numVal{}, divZero()
			}
			return numInf(a.signum() * b.signum()), nil
		}
		return numVal{coef: new(big.Int)}, nil // finite / Infinity
	}
	if b.isZero() {
		return numVal{}, divZero()
	}
	return quotient(a, b, divScale(a, b), true), nil
}

// numDivTrunc is div(): the quotient truncated to an integer.
func numDivTrunc(a, b numVal) (numVal, error) {
	if a.special != numFinite || b.special != numFinite {
		switch {
		case a.special == numNaN || b.special == numNaN:
			return numNaNVal, nil
		case a.special != numFinite && b.special != numFinite:
			return numNaNVal, nil
		case a.special != numFinite:
			if b.isZero() {
				return numVal{}, divZero()
			}
			return numInf(a.signum() * b.signum()), nil
		}
		return numVal{coef: new(big.Int)}, nil
	}
	if b.isZero() {
		return numVal{}, divZero()
	}
	return quotient(a, b, 0, false), nil
}

// numMod is mod_var: a - trunc(a/b)*b, display scale max of the inputs.
func numMod(a, b numVal) (numVal, error) {
	if a.special != numFinite || b.special != numFinite {
		switch {
		case a.special == numNaN || b.special == numNaN:
			return numNaNVal, nil
		case a.special != numFinite:
			if b.isZero() {
				return numVal{}, divZero()
			}
			return numNaNVal, nil // Infinity % x
		}
		return a, nil // x % Infinity = x
	}
	if b.isZero() {
		return numVal{}, divZero()
	}
	x, y, s := aligned(a, b)
	return numFromSigned(new(big.Int).Rem(x, y), s), nil
}

func numAbs(a numVal) numVal {
	if a.special == numNInf {
		return numInf(1)
	}
	a.neg = false
	return a
}

// numCeilFloor is ceil (up) / floor (!up): display scale 0.
func numCeilFloor(a numVal, up bool) numVal {
	if a.special != numFinite {
		return a
	}
	t := a
	t.trunc(0)
	if up != a.neg { // positive ceil or negative floor moves away from zero
		frac := new(big.Int).Mul(t.coef, pow10(a.dscale))
		if frac.Cmp(a.coef) != 0 {
			t.coef = new(big.Int).Add(t.coef, big.NewInt(1))
			t.neg = a.neg
		}
	}
	if t.coef.Sign() == 0 {
		t.neg = false
	}
	return t
}

// numSqrt is numeric_sqrt: the result scale gives at least 16 significant
// digits and no fewer decimals than the input.
func numSqrt(a numVal) (numVal, error) {
	if a.special != numFinite {
		if a.special == numNInf {
			return numVal{}, pgerr.Errorf(errInvalidArgumentForPower, "cannot take square root of a negative number")
		}
		return a, nil
	}
	if a.neg {
		return numVal{}, pgerr.Errorf(errInvalidArgumentForPower, "cannot take square root of a negative number")
	}
	weight := 0
	if !a.isZero() {
		weight = a.toVar().weight
	}
	sweight := (weight+1)*numDecDigits/2 - 1
	rscale := max(numMinSigDigits-sweight, a.dscale, 0)
	rscale = min(rscale, numMaxDispScale)
	// sqrt(coef/10^d) * 10^(rscale+1) = sqrt(coef * 10^(2*rscale+2-d))
	x := new(big.Int).Mul(a.coef, pow10(2*rscale+2-a.dscale))
	r := numVal{coef: x.Sqrt(x), dscale: rscale + 1}
	r.round(rscale)
	return r, nil
}

// numPower is numeric_power (PostgreSQL 15): integral exponents are
// computed exactly and rounded to max(16, dscale(base)) decimals;
// others through ln/exp with at least 16 significant digits.
func numPower(a, b numVal) (numVal, error) {
	if a.special == numNaN || b.special == numNaN {
		if (a.special == numNaN && b.isZero()) || (b.special == numNaN && a.special == numFinite && a.coef.Cmp(pow10(a.dscale)) == 0 && !a.neg) {
			return numVal{coef: big.NewInt(1)}, nil
		}
		return numNaNVal, nil
	}
	if a.isZero() && b.signum() < 0 {
		return numVal{}, pgerr.Errorf(errInvalidArgumentForPower, "zero raised to a negative power is undefined")
	}
	bIntegral := b.special == numFinite && new(big.Int).Rem(b.coef, pow10(b.dscale)).Sign() == 0
	if a.signum() < 0 && !bIntegral && b.special == numFinite {
		return numVal{}, pgerr.Errorf(errInvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	}
	if a.special != numFinite || b.special != numFinite {
		return numPowerSpecial(a, b)
	}
	if bIntegral {
		e := new(big.Int).Quo(b.coef, pow10(b.dscale))
		if e.IsInt64() && e.Int64() <= math.MaxInt32 {
			exp := int(e.Int64())
			if b.neg {
				exp = -exp
			}
			return numPowerInt(a, exp)
		}
	}
	return numPowerReal(a, b)
}

// numPowerSpecial handles an infinite base or exponent (neither is NaN).
func numPowerSpecial(a, b numVal) (numVal, error) {
	zero := numVal{coef: new(big.Int)}
	one := numVal{coef: big.NewInt(1)}
	if b.special != numFinite {
		if a.isZero() {
			return zero, nil // 0 ^ -Infinity was rejected earlier
		}
		absVsOne := 1
		if a.special == numFinite {
			absVsOne = a.coef.Cmp(pow10(a.dscale))
		}
		switch {
		case absVsOne == 0:
			return one, nil
		case (absVsOne > 0) == (b.special == numPInf):
			return numInf(1), nil
		}
		return zero, nil
	}
	// infinite base, finite exponent
	switch b.signum() {
	case 0:
		return one, nil
	case -1:
		return zero, nil
	}
	if a.special == numNInf {
		e := new(big.Int).Quo(b.coef, pow10(b.dscale))
		if e.Bit(0) == 1 {
			return numInf(-1), nil
		}
	}
	return numInf(1), nil
}

// numPowerInt is PostgreSQL 15's power_var_int: the result scale is
// max(16, dscale(base)); an estimate of the result's decimal weight
// answers at once for results that certainly overflow (an error) or
// underflow (zero at that scale), whatever the size of the exponent.
func numPowerInt(a numVal, exp int) (numVal, error) {
	rscale := min(max(numMinSigDigits, a.dscale), numMaxDispScale)
	switch exp {
	case 0:
		return numVal{coef: pow10(rscale), dscale: rscale}, nil
	case 1:
		a.round(rscale)
		return a, nil
	case -1:
		return numDivScaled(numVal{coef: big.NewInt(1)}, a, rscale)
	case 2:
		p := numMul(a, a)
		p.round(rscale)
		return p, nil
	}
	if a.isZero() {
		if exp < 0 {
			return numVal{}, pgerr.Errorf(pgerr.DivisionByZero, "division by zero")
		}
		return numVal{coef: new(big.Int), dscale: rscale}, nil
	}
	lg := float64(exp) * numLog10Abs(a) // decimal weight of the result
	if lg > 3*math.MaxInt16*numDecDigits || lg > float64(numWeightMax+2)*numDecDigits {
		return numVal{}, numOverflowErr()
	}
	if lg+1 < float64(-rscale) {
		return numVal{coef: new(big.Int), dscale: rscale}, nil
	}
	abs := exp
	if abs < 0 {
		abs = -abs
	}
	if a.coef.BitLen()*abs > 1<<18 {
		// The exact power would be huge: compute it in floating point
		// with the precision the result scale needs instead.
		prec := scaleBits(rscale + max(int(lg), 0))
		x := bigFloatOf(a, prec)
		r := new(big.Float).SetPrec(prec).SetInt64(1)
		for e := abs; e > 0; e >>= 1 {
			if e&1 == 1 {
				r.Mul(r, x)
			}
			x.Mul(x, x)
		}
		if exp < 0 {
			r.Quo(new(big.Float).SetPrec(prec).SetInt64(1), r)
		}
		return roundBigFloat(r, rscale), nil
	}
	p := numVal{coef: new(big.Int).Exp(a.coef, big.NewInt(int64(abs)), nil), dscale: a.dscale * abs, neg: a.neg && abs%2 == 1}
	if exp < 0 {
		return numDivScaled(numVal{coef: big.NewInt(1)}, p, rscale)
	}
	p.round(rscale)
	return p, nil
}

// numDivScaled is a / b rounded to scale decimals (div_var with round).
func numDivScaled(a, b numVal, scale int) (numVal, error) {
	if b.isZero() {
		return numVal{}, pgerr.Errorf(pgerr.DivisionByZero, "division by zero")
	}
	return quotient(a, b, scale, true), nil
}

// numLog10Abs is log10|a| for a finite, non-zero a, from its leading 17
// significant digits (a numeric's range is beyond float64's).
func numLog10Abs(a numVal) float64 {
	c := a.coef
	shift := 0
	if n := c.BitLen(); n > 60 {
		shift = n - 60
		c = new(big.Int).Rsh(c, uint(shift))
	}
	f, _ := new(big.Float).SetInt(c).Float64()
	return math.Log10(f) + float64(shift)*math.Log10(2) - float64(a.dscale)
}

// numPowerReal computes a^b = exp(b*ln|a|) in binary floating point with
// enough bits for the decimal result scale (power_var). A negative base
// comes with an integral exponent too big for numPowerInt: the result's
// sign is the exponent's parity. A first estimate of b*ln|a| catches
// results that overflow or underflow, so huge exponents answer at once.
func numPowerReal(a, b numVal) (numVal, error) {
	if a.isZero() {
		return numVal{coef: new(big.Int), dscale: numMinSigDigits}, nil
	}
	negative := false
	if a.neg {
		negative = new(big.Int).Quo(b.coef, pow10(b.dscale)).Bit(0) == 1
		a = numAbs(a)
	}
	mant := new(big.Float)
	e2 := bigFloatOf(a, 64).MantExp(mant)
	m, _ := mant.Float64()
	lnA := math.Log(m) + float64(e2)*math.Ln2
	bf, _ := numToFloat(b)
	val := bf * lnA
	if math.Abs(val) > numMaxResultScal*3.01 {
		if val > 0 {
			return numVal{}, numOverflowErr()
		}
		return numVal{coef: new(big.Int), dscale: numMaxDispScale}, nil
	}
	rscale := numMinSigDigits - int(val*0.434294481903252)
	rscale = min(max(rscale, a.dscale, b.dscale, 0), numMaxDispScale)
	// b*ln|a| must be exact to rscale digits after the result's own:
	// ln|a| needs as many more digits as b has before the point.
	bDigits := max(int(numLog10Abs(b)), 0)
	prec := uint(float64(rscale+int(math.Abs(val*0.4343))+bDigits+40) * 3.33)
	x := new(big.Float).SetPrec(prec).SetInt(a.coef)
	x.Quo(x, new(big.Float).SetPrec(prec).SetInt(pow10(a.dscale)))
	y := new(big.Float).SetPrec(prec).SetInt(b.signed())
	y.Quo(y, new(big.Float).SetPrec(prec).SetInt(pow10(b.dscale)))
	r := bigExp(new(big.Float).SetPrec(prec).Mul(y, bigLn(x, prec)), prec)
	// r * 10^(rscale) rounded half away from zero
	r.Mul(r, new(big.Float).SetPrec(prec).SetInt(pow10(rscale)))
	r.Add(r, big.NewFloat(0.5).SetPrec(prec))
	c, _ := r.Int(nil)
	if c == nil {
		return numVal{}, numOverflowErr()
	}
	return numVal{coef: c, dscale: rscale, neg: negative && c.Sign() != 0}, nil
}

// bigLn is ln(x) for x > 0: halve the exponent into k*ln2, take square
// roots until the argument is close to 1, then the atanh series.
func bigLn(x *big.Float, prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec)
	exp := x.MantExp(m) // x = m * 2^exp, 0.5 <= m < 1
	roots := 0
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	eps := new(big.Float).SetPrec(prec).SetMantExp(one, -20)
	for {
		d := new(big.Float).SetPrec(prec).Sub(m, one)
		if d.Abs(d).Cmp(eps) < 0 {
			break
		}
		m.Sqrt(m)
		roots++
	}
	// ln(m) = 2 atanh(z), z = (m-1)/(m+1)
	z := new(big.Float).SetPrec(prec).Sub(m, one)
	z.Quo(z, new(big.Float).SetPrec(prec).Add(m, one))
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec).Set(z)
	limit := new(big.Float).SetPrec(prec).SetMantExp(one, -int(prec)-8)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(k))
		if new(big.Float).Abs(t).Cmp(limit) < 0 {
			break
		}
		sum.Add(sum, t)
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	sum.SetMantExp(sum, roots)
	if exp != 0 {
		ln2 := bigLn2(prec)
		sum.Add(sum, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(exp))))
	}
	return sum
}

func bigLn2(prec uint) *big.Float {
	// ln 2 = 2 atanh(1/3)
	z := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), new(big.Float).SetPrec(prec).SetInt64(3))
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec).Set(z)
	limit := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec)-8)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(k))
		if t.Cmp(limit) < 0 {
			break
		}
		sum.Add(sum, t)
	}
	return sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
}

// bigExp is exp(x): divide x by 2^k until small, Taylor series, square k
// times.
func bigExp(x *big.Float, prec uint) *big.Float {
	k := 0
	y := new(big.Float).SetPrec(prec).Set(x)
	half := big.NewFloat(0.5)
	for new(big.Float).Abs(y).Cmp(half) > 0 {
		y.SetMantExp(y, -1)
		k++
	}
	k += 8
	y.SetMantExp(y, -8)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	limit := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec)-8)
	for i := int64(1); ; i++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetInt64(i))
		if new(big.Float).Abs(term).Cmp(limit) < 0 {
			break
		}
		sum.Add(sum, term)
	}
	for ; k > 0; k-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// numToFloat is numeric_float8: the decimal text parsed by strtod.
func numToFloat(n numVal) (float64, error) {
	switch n.special {
	case numNaN:
		return math.NaN(), nil
	case numPInf:
		return math.Inf(1), nil
	case numNInf:
		return math.Inf(-1), nil
	}
	d, err := n.datum()
	if err != nil {
		return 0, err
	}
	s := numericToString(d)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type double precision", s)
	}
	return f, nil
}

// floatToNumeric is float8_numeric / float4_numeric: the value printed
// with DBL_DIG (15) / FLT_DIG (6) significant digits, then numeric_in.
func floatToNumeric(f float64, digits int) (Datum, error) {
	switch {
	case math.IsNaN(f):
		return numSpecialDatum(numNaN), nil
	case math.IsInf(f, 1):
		return numSpecialDatum(numPInf), nil
	case math.IsInf(f, -1):
		return numSpecialDatum(numNInf), nil
	}
	return ParseNumeric(strconv.FormatFloat(f, 'g', digits, 64))
}

// numToInt is numeric_int2/4/8: round half away from zero, range check.
func numToInt(n numVal, to OID) (Datum, error) {
	name := "integer"
	switch to {
	case Int2OID:
		name = "smallint"
	case Int8OID:
		name = "bigint"
	}
	switch n.special {
	case numNaN:
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot convert NaN to %s", name)
	case numPInf, numNInf:
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "cannot convert infinity to %s", name)
	}
	n.round(0)
	v := n.signed()
	if !v.IsInt64() {
		return Datum{}, intRangeErr(to)
	}
	return checkIntRange(v.Int64(), to)
}

func numIsIntegral(n numVal) bool {
	return n.special == numFinite && new(big.Int).Rem(n.coef, pow10(n.dscale)).Sign() == 0
}

// clampRoundScale clamps the scale argument of round/trunc as PostgreSQL
// 15.4 and later do: to the digits a numeric can hold after the point, and
// before it plus one (for a most significant digit that rounds up, which
// then overflows).
func clampRoundScale(s int64) int {
	return int(min(max(s, -(numWeightMax+1)*numDecDigits-1), numDscaleMax))
}

func numUnary(f func(numVal) numVal) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) { return f(numOf(a[0])).datum() }
}

func numUnaryErr(f func(numVal) (numVal, error)) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		r, err := f(numOf(a[0]))
		if err != nil {
			return Datum{}, err
		}
		return r.datum()
	}
}

func numBinary(f func(x, y numVal) (numVal, error)) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		r, err := f(numOf(a[0]), numOf(a[1]))
		if err != nil {
			return Datum{}, err
		}
		return r.datum()
	}
}

func noErr(f func(x, y numVal) numVal) func(x, y numVal) (numVal, error) {
	return func(x, y numVal) (numVal, error) { return f(x, y), nil }
}

func numericCmp(a, b Datum) int { return CompareNumeric(a.Str(), b.Str()) }

// minScale is min_scale(): the fewest decimals that represent the value.
func minScale(n numVal) int {
	s := n.dscale
	q := new(big.Int)
	r := new(big.Int)
	c := n.coef
	for s > 0 {
		q.QuoRem(c, bigTen, r)
		if r.Sign() != 0 {
			break
		}
		c = new(big.Int).Set(q)
		s--
	}
	return s
}

func init() {
	addOp("+", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(noErr(numAdd))})
	addOp("-", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(noErr(numSub))})
	addOp("*", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(noErr(numMulOp))})
	addOp("/", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(numDiv)})
	addOp("%", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(numMod)})
	addOp("^", &Func{Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: numBinary(numPower)})
	addOp("-", &Func{Args: []Type{Numeric}, Ret: Numeric, Fn: numUnary(numNeg)})
	addOp("+", &Func{Args: []Type{Numeric}, Ret: Numeric, Fn: func(a []Datum) (Datum, error) { return a[0], nil }})
	addOp("@", &Func{Args: []Type{Numeric}, Ret: Numeric, Fn: numUnary(numAbs)})
	cmpOps(Numeric, Numeric, numericCmp)

	fn("abs", []Type{Numeric}, Numeric, numUnary(numAbs))
	fn("mod", []Type{Numeric, Numeric}, Numeric, numBinary(numMod))
	fn("div", []Type{Numeric, Numeric}, Numeric, numBinary(numDivTrunc))
	fn("sqrt", []Type{Numeric}, Numeric, numUnaryErr(numSqrt))
	for _, name := range []string{"power", "pow"} {
		fn(name, []Type{Numeric, Numeric}, Numeric, numBinary(numPower))
	}
	fn("ceil", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal { return numCeilFloor(n, true) }))
	fn("ceiling", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal { return numCeilFloor(n, true) }))
	fn("floor", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal { return numCeilFloor(n, false) }))
	fn("round", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal { n.round(0); return n }))
	fn("trunc", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal { n.trunc(0); return n }))
	fn("round", []Type{Numeric, Int4}, Numeric, func(a []Datum) (Datum, error) {
		n := numOf(a[0])
		n.round(clampRoundScale(a[1].Int()))
		return n.datum()
	})
	fn("trunc", []Type{Numeric, Int4}, Numeric, func(a []Datum) (Datum, error) {
		n := numOf(a[0])
		n.trunc(clampRoundScale(a[1].Int()))
		return n.datum()
	})
	fn("sign", []Type{Numeric}, Numeric, func(a []Datum) (Datum, error) {
		n := numOf(a[0])
		if n.special == numNaN {
			return a[0], nil
		}
		return NumericFromInt(int64(n.signum())), nil
	})
	fn("scale", []Type{Numeric}, Int4, func(a []Datum) (Datum, error) {
		n := numOf(a[0])
		if n.special != numFinite {
			return Datum{}, nil
		}
		return Int(int64(n.dscale)), nil
	})
	fn("min_scale", []Type{Numeric}, Int4, func(a []Datum) (Datum, error) {
		n := numOf(a[0])
		if n.special != numFinite {
			return Datum{}, nil
		}
		return Int(int64(minScale(n))), nil
	})
	fn("trim_scale", []Type{Numeric}, Numeric, numUnary(func(n numVal) numVal {
		if n.special == numFinite {
			n.trunc(minScale(n))
		}
		return n
	}))
}

// castNumeric converts to and from numeric; ok is false when neither side
// is numeric (the caller goes on with the other casts).
func castNumeric(d Datum, from, to Type, explicit bool) (res Datum, ok bool, err error) {
	switch {
	case from.OID == NumericOID && to.OID == NumericOID:
		res, err = ApplyTypmod(d, to, explicit)
		return res, true, err
	case to.OID == NumericOID:
		switch from.OID {
		case Int2OID, Int4OID, Int8OID:
			res = NumericFromInt(d.Int())
		case Float8OID:
			res, err = floatToNumeric(d.Float(), 15)
		case Float4OID:
			res, err = floatToNumeric(d.Float(), 6)
		default:
			return Datum{}, false, nil
		}
		if err == nil {
			res, err = ApplyTypmod(res, to, explicit)
		}
		return res, true, err
	case from.OID == NumericOID:
		n := numOf(d)
		switch to.OID {
		case Int2OID, Int4OID, Int8OID:
			res, err = numToInt(n, to.OID)
			return res, true, err
		case Float8OID:
			f, err := numToFloat(n)
			return Float(f), true, err
		case Float4OID:
			f, err := numToFloat(n)
			if err != nil {
				return Datum{}, true, err
			}
			// numeric_float4 parses the text as float4 directly
			if n.special == numFinite {
				f32, perr := strconv.ParseFloat(numericToString(d), 32)
				if perr != nil {
					return Datum{}, true, pgerr.Errorf(pgerr.NumericValueOutOfRange, "%q is out of range for type real", numericToString(d))
				}
				f = f32
			}
			return Float(f), true, nil
		}
	}
	return Datum{}, false, nil
}

// numericCastContext is pg_cast for numeric: integers to numeric
// implicitly, floats to numeric on assignment, numeric to floats
// implicitly and to integers on assignment.
func numericCastContext(from, to OID) (CastContext, bool) {
	switch {
	case to == NumericOID:
		switch from {
		case Int2OID, Int4OID, Int8OID:
			return CastImplicit, true
		case Float4OID, Float8OID:
			return CastAssignment, true
		}
	case from == NumericOID:
		switch to {
		case Float4OID, Float8OID:
			return CastImplicit, true
		case Int2OID, Int4OID, Int8OID:
			return CastAssignment, true
		}
	}
	return 0, false
}

// applyNumericTypmod is the numeric length coercion function.
func applyNumericTypmod(d Datum, typmod int32) (Datum, error) {
	if !validNumTypmod(typmod) {
		return d, nil
	}
	if v := decodeNumVar(d.Str()); v.special == numFinite {
		prec, scale := numTypmodPrecScale(typmod)
		if v.dscale <= scale && (len(v.digits) == 0 || leadingDecimalExponent(v) <= prec-scale) {
			// Nothing to round and no overflow: only the display scale
			// grows, which changes the header and not the digits.
			v.dscale = scale
			s, err := v.encode()
			return StrOfKind(kNum, s), err
		}
	}
	n := numOf(d)
	if err := n.applyTypmod(typmod); err != nil {
		return Datum{}, err
	}
	return n.datum()
}

// generateSeriesNumeric is generate_series(numeric, numeric [, numeric]):
// the first row is the start value as given, later rows carry the larger
// display scale of start and step (add_var).
func generateSeriesNumeric(a []Datum) (func() (Datum, bool, error), error) {
	start, stop := numOf(a[0]), numOf(a[1])
	step := numVal{coef: big.NewInt(1)}
	if len(a) > 2 {
		step = numOf(a[2])
	}
	for _, arg := range []struct {
		what string
		v    numVal
	}{{"start value", start}, {"stop value", stop}, {"step size", step}} {
		switch arg.v.special {
		case numNaN:
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "%s cannot be NaN", arg.what)
		case numPInf, numNInf:
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "%s cannot be infinity", arg.what)
		}
	}
	dir := step.signum()
	if dir == 0 {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	cur := start
	return func() (Datum, bool, error) {
		x, y, _ := aligned(cur, stop)
		if c := x.Cmp(y); (dir > 0 && c > 0) || (dir < 0 && c < 0) {
			return Datum{}, false, nil
		}
		d, err := cur.datum()
		if err != nil {
			return Datum{}, false, err
		}
		cur = numAdd(cur, step)
		return d, true, nil
	}, nil
}

func init() {
	srfs["generate_series"] = append(srfs["generate_series"],
		&SRF{Name: "generate_series", Args: []Type{Numeric, Numeric}, Ret: Numeric, Fn: generateSeriesNumeric},
		&SRF{Name: "generate_series", Args: []Type{Numeric, Numeric, Numeric}, Ret: Numeric, Fn: generateSeriesNumeric})
}

// leadingDecimalExponent is the number of decimal digits before the point
// of a normalized nonzero value (negative or zero below 1): apply_typmod's
// ddigits, which must not exceed precision - scale.
func leadingDecimalExponent(v numVar) int {
	first := int(v.digits[0])
	n := 1
	for first >= 10 {
		first /= 10
		n++
	}
	return v.weight*numDecDigits + n
}
