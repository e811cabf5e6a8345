package types

import (
	"math"
	"math/big"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// ln, log and exp of numeric, with PostgreSQL's result scales: at least 16
// significant digits and no fewer decimals than the input shows. The
// values are computed in binary floating point (math/big) with enough
// extra precision that rounding to the result scale is exact for all but
// pathological inputs.

// estimateLnDweight is estimate_ln_dweight: the decimal weight of ln(n)
// for n > 0.
func estimateLnDweight(n numVal) int {
	if n.special != numFinite || n.neg || n.coef.Sign() == 0 {
		return 0
	}
	f, _ := numToFloat(n)
	if f >= 0.9 && f <= 1.1 {
		// ln(1+x) ~ x: the weight of n-1
		d := numSub(n, numVal{coef: big.NewInt(1)})
		if d.coef.Sign() == 0 {
			return 0
		}
		v := d.toVar()
		return v.weight*numDecDigits + int(math.Log10(float64(v.digits[0])))
	}
	v := n.toVar()
	digits := float64(v.digits[0])
	dweight := v.weight * numDecDigits
	if len(v.digits) > 1 {
		digits = digits*numBase + float64(v.digits[1])
		dweight -= numDecDigits
	}
	lnv := math.Log(digits) + float64(dweight)*math.Ln10
	return int(math.Log10(math.Abs(lnv)))
}

func lnDomain(n numVal) error {
	if n.signum() < 0 {
		return pgerr.Errorf(pgerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
	}
	if n.signum() == 0 && n.special == numFinite {
		return pgerr.Errorf(pgerr.InvalidArgumentForLog, "cannot take logarithm of zero")
	}
	return nil
}

// bigFloatOf converts a finite numeric exactly, plus prec bits.
func bigFloatOf(n numVal, prec uint) *big.Float {
	prec += uint(n.coef.BitLen())
	x := new(big.Float).SetPrec(prec).SetInt(n.signed())
	return x.Quo(x, new(big.Float).SetPrec(prec).SetInt(pow10(n.dscale)))
}

// roundBigFloat rounds r half away from zero to scale decimals.
func roundBigFloat(r *big.Float, scale int) numVal {
	prec := r.Prec()
	a := new(big.Float).SetPrec(prec).Abs(r)
	a.Mul(a, new(big.Float).SetPrec(prec).SetInt(pow10(scale)))
	a.Add(a, new(big.Float).SetPrec(prec).SetFloat64(0.5))
	c, _ := a.Int(nil)
	n := numVal{coef: c, dscale: scale, neg: r.Sign() < 0 && c.Sign() != 0}
	return n
}

func scaleBits(digits int) uint { return uint(float64(digits+40) * 3.33) }

func numLn(a numVal) (numVal, error) {
	if a.special == numNaN {
		return a, nil
	}
	if err := lnDomain(a); err != nil {
		return numVal{}, err
	}
	if a.special == numPInf {
		return a, nil
	}
	dw := estimateLnDweight(a)
	rscale := min(max(numMinSigDigits-dw, a.dscale, 0), numMaxDispScale)
	prec := scaleBits(rscale + max(dw, 0))
	return roundBigFloat(bigLn(bigFloatOf(a, prec), prec), rscale), nil
}

// numLog is log(base, x) (log_var).
func numLog(base, x numVal) (numVal, error) {
	if base.special != numFinite || x.special != numFinite {
		if base.special == numNaN || x.special == numNaN {
			return numNaNVal, nil
		}
		if err := lnDomain(base); err != nil {
			return numVal{}, err
		}
		if err := lnDomain(x); err != nil {
			return numVal{}, err
		}
		if base.special == numPInf {
			if x.special == numPInf {
				return numNaNVal, nil
			}
			return numVal{coef: new(big.Int)}, nil
		}
		return numInf(1), nil
	}
	if err := lnDomain(base); err != nil {
		return numVal{}, err
	}
	if err := lnDomain(x); err != nil {
		return numVal{}, err
	}
	if base.coef.Cmp(pow10(base.dscale)) == 0 {
		return numVal{}, divZero() // ln(1) = 0
	}
	dwBase, dwX := estimateLnDweight(base), estimateLnDweight(x)
	rscale := min(max(numMinSigDigits-(dwX-dwBase), base.dscale, x.dscale, 0), numMaxDispScale)
	prec := scaleBits(rscale + max(dwX, 0) + max(-dwBase, 0))
	r := bigLn(bigFloatOf(x, prec), prec)
	r.Quo(r, bigLn(bigFloatOf(base, prec), prec))
	return roundBigFloat(r, rscale), nil
}

func numExp(a numVal) (numVal, error) {
	switch a.special {
	case numNaN, numPInf:
		return a, nil
	case numNInf:
		return numVal{coef: new(big.Int)}, nil
	}
	f, _ := numToFloat(a)
	val := min(max(f*0.434294481903252, -numMaxResultScal), numMaxResultScal)
	rscale := min(max(numMinSigDigits-int(val), a.dscale, 0), numMaxDispScale)
	if math.Abs(f) >= numMaxResultScal*3 {
		// exp_var's guard: the result would not fit (or is zero at rscale)
		if f > 0 {
			return numVal{}, numOverflowErr()
		}
		return numVal{coef: new(big.Int), dscale: rscale}, nil
	}
	prec := scaleBits(rscale + max(int(val), 0))
	return roundBigFloat(bigExp(bigFloatOf(a, prec), prec), rscale), nil
}

func init() {
	fn("ln", []Type{Numeric}, Numeric, numUnaryErr(numLn))
	fn("exp", []Type{Numeric}, Numeric, numUnaryErr(numExp))
	fn("log", []Type{Numeric}, Numeric, numUnaryErr(func(x numVal) (numVal, error) {
		return numLog(numVal{coef: big.NewInt(10)}, x)
	}))
	fn("log10", []Type{Numeric}, Numeric, numUnaryErr(func(x numVal) (numVal, error) {
		return numLog(numVal{coef: big.NewInt(10)}, x)
	}))
	fn("log", []Type{Numeric, Numeric}, Numeric, numBinary(numLog))
}
