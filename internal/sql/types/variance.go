package types

import (
	"math"
	"math/big"
)

// VarianceKind selects one of the variance/stddev aggregates.
type VarianceKind struct {
	Sample bool // var_samp/stddev_samp (variance, stddev) rather than *_pop
	Stddev bool // square root of the variance
}

// NumericVarianceAccum is the state of var_*/stddev_* over integer and
// numeric inputs, which PostgreSQL computes exactly in numeric from the
// count, the sum and the sum of squares.
type NumericVarianceAccum struct {
	sum   NumericAccum
	sumSq big.Int // signed coefficient at scale 2*sum.dscale
	count int64
}

// AddInt adds an integer input.
func (a *NumericVarianceAccum) AddInt(v int64) {
	x := big.NewInt(v)
	a.addSquare(x.Mul(x, x), 0)
	a.sum.AddInt(v)
	a.count++
}

// AddNumeric adds a numeric input (not NULL).
func (a *NumericVarianceAccum) AddNumeric(d Datum) {
	n := numOf(d)
	if n.special == numFinite {
		c := n.signed()
		a.addSquare(c.Mul(c, c), 2*n.dscale)
	}
	a.sum.AddNumeric(d)
	a.count++
}

// addSquare adds sq, a coefficient at the given scale, to the sum of
// squares, keeping it at twice the sum's scale.
func (a *NumericVarianceAccum) addSquare(sq *big.Int, scale int) {
	have := 2 * a.sum.dscale
	switch {
	case scale > have:
		a.sumSq.Mul(&a.sumSq, pow10(scale-have))
	case scale < have:
		sq.Mul(sq, pow10(have-scale))
	}
	a.sumSq.Add(&a.sumSq, sq)
}

// Result is the aggregate's value (NULL for too few rows). As in
// PostgreSQL the numerator N*sum(x²) - sum(x)² is computed exactly, a
// non-positive one gives 0, the denominator is N*N or N*(N-1), and the division (and square root) use
// numeric division's result scale.
func (a *NumericVarianceAccum) Result(k VarianceKind) (Datum, error) {
	if a.count == 0 || (k.Sample && a.count == 1) {
		return Null(), nil
	}
	sum := a.sum.value()
	if sum.special != numFinite {
		return numNaNVal.datum()
	}
	n := numVal{coef: big.NewInt(a.count)}
	sumSq := numFromSigned(new(big.Int).Set(&a.sumSq), 2*a.sum.dscale)
	numerator := numSub(numMul(n, sumSq), numMul(sum, sum))
	if numerator.signum() <= 0 {
		return NumericFromInt(0), nil
	}
	other := a.count
	if k.Sample {
		other--
	}
	denominator := numVal{coef: new(big.Int).Mul(n.coef, big.NewInt(other))}
	rscale := divScale(numerator, denominator)
	v := quotient(numerator, denominator, rscale, true)
	if k.Stddev {
		// sqrt(coef/10^d) * 10^(rscale+1) = sqrt(coef * 10^(2*rscale+2-d))
		x := new(big.Int).Mul(v.coef, pow10(2*rscale+2-v.dscale))
		v = numVal{coef: x.Sqrt(x), dscale: rscale + 1}
		v.round(rscale)
	}
	return v.datum()
}

// FloatVarianceAccum is the state of var_*/stddev_* over float4/float8:
// count, sum and sum of squared deviations updated with the
// Youngs-Cramer method, as PostgreSQL's float8_accum.
type FloatVarianceAccum struct {
	n, sx, sxx float64
}

// Add adds one input.
func (a *FloatVarianceAccum) Add(x float64) error {
	prevN, prevSx := a.n, a.sx
	a.n++
	a.sx += x
	if prevN > 0 {
		d := x*a.n - a.sx
		a.sxx += d * d / (a.n * prevN)
		// Only finite inputs overflowing is an error; an infinite input
		// makes the result NaN.
		if math.IsInf(a.sx, 0) || math.IsInf(a.sxx, 0) {
			if !math.IsInf(prevSx, 0) && !math.IsInf(x, 0) {
				return overflowErr()
			}
			a.sxx = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		a.sxx = math.NaN()
	}
	return nil
}

// Result is the aggregate's float8 value (NULL for too few rows).
func (a *FloatVarianceAccum) Result(k VarianceKind) Datum {
	den := a.n
	if k.Sample {
		den--
	}
	if den <= 0 {
		return Null()
	}
	num := a.sxx
	if num < 0 { // rounding error; NaN stays NaN
		num = 0
	}
	v := num / den
	if k.Stddev {
		v = math.Sqrt(v)
	}
	return Float(v)
}
