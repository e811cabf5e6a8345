package types

import "math/big"

// NumericAccum is the exact running sum behind sum(int8), sum(numeric) and
// avg(int2/int4/int8/numeric), which PostgreSQL computes in numeric. It
// counts NaN and infinite inputs apart from the finite sum, as PostgreSQL's
// aggregate state does, so Infinity plus -Infinity gives NaN.
type NumericAccum struct {
	sum             big.Int // signed coefficient at scale dscale
	dscale          int
	nan, pinf, ninf int64
	tmp             big.Int
}

// AddInt adds an integer input.
func (a *NumericAccum) AddInt(v int64) {
	if a.dscale == 0 {
		a.sum.Add(&a.sum, a.tmp.SetInt64(v))
		return
	}
	a.tmp.SetInt64(v)
	a.sum.Add(&a.sum, a.tmp.Mul(&a.tmp, pow10(a.dscale)))
}

// AddNumeric adds a numeric input (not NULL).
func (a *NumericAccum) AddNumeric(d Datum) {
	n := numOf(d)
	switch n.special {
	case numNaN:
		a.nan++
		return
	case numPInf:
		a.pinf++
		return
	case numNInf:
		a.ninf++
		return
	}
	c := n.signed()
	switch {
	case n.dscale > a.dscale:
		a.sum.Mul(&a.sum, pow10(n.dscale-a.dscale))
		a.dscale = n.dscale
	case n.dscale < a.dscale:
		c = new(big.Int).Mul(c, pow10(a.dscale-n.dscale))
	}
	a.sum.Add(&a.sum, c)
}

func (a *NumericAccum) value() numVal {
	switch {
	case a.nan > 0 || (a.pinf > 0 && a.ninf > 0):
		return numNaNVal
	case a.pinf > 0:
		return numInf(1)
	case a.ninf > 0:
		return numInf(-1)
	}
	return numFromSigned(new(big.Int).Set(&a.sum), a.dscale)
}

// Sum returns the sum as a numeric datum.
func (a *NumericAccum) Sum() (Datum, error) { return a.value().datum() }

// Avg returns the sum divided by count (> 0) with numeric division's
// result scale, as PostgreSQL's avg final functions do.
func (a *NumericAccum) Avg(count int64) (Datum, error) {
	r, err := numDiv(a.value(), numVal{coef: big.NewInt(count)})
	if err != nil {
		return Datum{}, err
	}
	return r.datum()
}

// Combine adds the inputs o summed to a's (a parallel aggregate's combine
// step: each worker sums its share, the leader adds the sums).
func (a *NumericAccum) Combine(o *NumericAccum) {
	a.nan += o.nan
	a.pinf += o.pinf
	a.ninf += o.ninf
	c := &o.sum
	switch {
	case o.dscale > a.dscale:
		a.sum.Mul(&a.sum, pow10(o.dscale-a.dscale))
		a.dscale = o.dscale
	case o.dscale < a.dscale:
		c = new(big.Int).Mul(c, pow10(a.dscale-o.dscale))
	}
	a.sum.Add(&a.sum, c)
}
