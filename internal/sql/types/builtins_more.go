package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// More of PostgreSQL's builtins: gcd/lcm, factorial, hyperbolic and degree
// trigonometry, width_bucket, date_bin, make_time/make_timestamp(tz)/
// make_interval, booleq/boolne and the *send functions of the number types.

const errInvalidWidthBucket = "2201G"

func intOutOfRange(t OID) error { return intRangeErr(t) }

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// intGCD is int4gcd/int8gcd: the result is never negative, so the most
// negative value alone (or with 0 or itself) does not fit.
func intGCD(t OID) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		g := gcd64(a[0].Int(), a[1].Int())
		if g < 0 {
			if g == minOf(t) {
				return Datum{}, intOutOfRange(t)
			}
			g = -g
		}
		return checkIntRange(g, t)
	}
}

func minOf(t OID) int64 {
	if t == Int4OID {
		return math.MinInt32
	}
	return math.MinInt64
}

func intLCM(t OID) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		x, y := a[0].Int(), a[1].Int()
		if x == 0 || y == 0 {
			return Int(0), nil
		}
		g, err := intGCD(t)(a)
		if err != nil {
			return Datum{}, err
		}
		l := new(big.Int).Mul(big.NewInt(x/g.Int()), big.NewInt(y))
		l.Abs(l)
		if !l.IsInt64() {
			return Datum{}, intOutOfRange(t)
		}
		return checkIntRange(l.Int64(), t)
	}
}

// numGCDLCM is numeric gcd/lcm on the two values brought to one scale; a
// special value gives NaN and the result's scale is the larger one.
func numGCDLCM(lcm bool) func([]Datum) (Datum, error) {
	return func(a []Datum) (Datum, error) {
		x, y := numOf(a[0]), numOf(a[1])
		if x.special != numFinite || y.special != numFinite {
			return numSpecialDatum(numNaN), nil
		}
		p, q, scale := aligned(x, y)
		p, q = new(big.Int).Abs(p), new(big.Int).Abs(q)
		g := new(big.Int).GCD(nil, nil, p, q)
		if lcm {
			if p.Sign() == 0 || q.Sign() == 0 {
				g.SetInt64(0)
			} else {
				g.Mul(new(big.Int).Quo(p, g), q)
			}
		}
		return numVal{coef: g, dscale: scale}.datum()
	}
}

func factorial(a []Datum) (Datum, error) {
	n := a[0].Int()
	if n < 0 {
		return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "factorial of a negative number is undefined")
	}
	if n > 32177 { // the first n whose factorial has more digits than numeric holds
		return Datum{}, numOverflowErr()
	}
	r := big.NewInt(1)
	for i := int64(2); i <= n; i++ {
		r.Mul(r, big.NewInt(i))
	}
	return numVal{coef: r}.datum()
}

func hyperbolic(name string, f func(float64) float64, domain func(float64) bool) {
	f1(name, func(x float64) (Datum, error) {
		if !math.IsNaN(x) && !domain(x) {
			return Datum{}, rangeErr()
		}
		return Float(f(x)), nil
	})
}

// Degree-based trigonometry computes in the first quadrant and scales by
// the exact values at 30, 45 and 60 degrees, so sind(30) is exactly 0.5.
// radiansPerDegree is a variable so that x*radiansPerDegree rounds as
// PostgreSQL's one float8 multiplication does (a constant expression would
// be folded exactly).
var radiansPerDegree = 0.0174532925199432957692

var (
	sin30         = math.Sin(30 * radiansPerDegree)
	oneMinusCos60 = 1 - math.Cos(60*radiansPerDegree)
	asin05        = math.Asin(0.5)
	acos05        = math.Acos(0.5)
	atan1         = math.Atan(1)
)

func sind0to30(x float64) float64 { return math.Sin(x*radiansPerDegree) / sin30 / 2 }
func cosd0to60(x float64) float64 { return 1 - (1-math.Cos(x*radiansPerDegree))/oneMinusCos60/2 }

func sindQ1(x float64) float64 {
	if x <= 30 {
		return sind0to30(x)
	}
	return cosd0to60(90 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60 {
		return cosd0to60(x)
	}
	return sind0to30(90 - x)
}

func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return math.Asin(x) / asin05 * 30
	}
	return 90 - math.Acos(x)/acos05*60
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90 - math.Asin(x)/asin05*30
	}
	return math.Acos(x) / acos05 * 60
}

// degreeArg reduces an angle to [0, 90] and says which sign the sine
// (sinSign) and cosine (cosSign) of the original angle have.
func degreeArg(x float64) (a, sinSign, cosSign float64) {
	a, sinSign, cosSign = math.Mod(x, 360), 1, 1
	if a < 0 {
		a, sinSign = -a, -1
	}
	if a > 180 {
		a, sinSign = 360-a, -sinSign
	}
	if a > 90 {
		a, cosSign = 180-a, -1
	}
	return
}

func degreeTrig(name string, noNegZero bool, f func(a, s, c float64) float64) {
	f1(name, func(x float64) (Datum, error) {
		if math.IsNaN(x) {
			return Float(x), nil
		}
		if math.IsInf(x, 0) {
			return Datum{}, rangeErr()
		}
		a, s, c := degreeArg(x)
		r := f(a, s, c)
		if r == 0 && noNegZero {
			r = 0 // tand and cotd never answer -0
		}
		return Float(r), nil
	})
}

func widthBucketErr(msg string) error { return pgerr.Errorf(errInvalidWidthBucket, "%s", msg) }

func widthBucketFloat(a []Datum) (Datum, error) {
	op, b1, b2, count := a[0].Float(), a[1].Float(), a[2].Float(), a[3].Int()
	switch {
	case count <= 0:
		return Datum{}, widthBucketErr("count must be greater than zero")
	case math.IsNaN(op) || math.IsNaN(b1) || math.IsNaN(b2):
		return Datum{}, widthBucketErr("operand, lower bound, and upper bound cannot be NaN")
	case math.IsInf(b1, 0) || math.IsInf(b2, 0):
		return Datum{}, widthBucketErr("lower and upper bounds must be finite")
	case b1 == b2:
		return Datum{}, widthBucketErr("lower bound cannot equal upper bound")
	}
	lo, hi, v := b1, b2, op
	if b1 > b2 {
		lo, hi, v = -b1, -b2, -op
	}
	switch {
	case v < lo:
		return Int(0), nil
	case v >= hi:
		return bucketPastEnd(count)
	}
	var r float64
	if !math.IsInf(hi-lo, 0) {
		r = float64(count) * ((v - lo) / (hi - lo))
	} else {
		r = float64(count) * ((v/2 - lo/2) / (hi/2 - lo/2))
	}
	return Int(int64(int32(r)) + 1), nil
}

func bucketPastEnd(count int64) (Datum, error) {
	if count == math.MaxInt32 {
		return Datum{}, pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	return Int(count + 1), nil
}

func widthBucketNumeric(a []Datum) (Datum, error) {
	op, b1, b2, count := numOf(a[0]), numOf(a[1]), numOf(a[2]), a[3].Int()
	switch {
	case count <= 0:
		return Datum{}, widthBucketErr("count must be greater than zero")
	case op.special == numNaN || b1.special == numNaN || b2.special == numNaN:
		return Datum{}, widthBucketErr("operand, lower bound, and upper bound cannot be NaN")
	case b1.special != numFinite || b2.special != numFinite:
		return Datum{}, widthBucketErr("lower and upper bounds must be finite")
	}
	cmp := func(x, y numVal) int { return numericCmp(mustDatum(x), mustDatum(y)) }
	c := cmp(b1, b2)
	if c == 0 {
		return Datum{}, widthBucketErr("lower bound cannot equal upper bound")
	}
	lo, hi, v := b1, b2, op
	if c > 0 {
		lo, hi, v = numNeg(b1), numNeg(b2), numNeg(op)
	}
	switch {
	case cmp(v, lo) < 0:
		return Int(0), nil
	case cmp(v, hi) >= 0:
		return bucketPastEnd(count)
	}
	q, err := numDiv(numMul(numSub(v, lo), numOf(NumericFromInt(count))), numSub(hi, lo))
	if err != nil {
		return Datum{}, err
	}
	b := numCeilFloor(numAdd(q, numOf(NumericFromInt(1))), false)
	return numToInt(b, Int4OID)
}

func mustDatum(n numVal) Datum {
	d, _ := n.datum()
	return d
}

// dateBin is timestamp_bin / timestamptz_bin: the start of the stride-wide
// bin, counted from origin, that ts falls in.
func dateBin(a []Datum) (Datum, error) {
	stride, ts, origin := IntervalOf(a[0]), a[1].Int(), a[2].Int()
	if isInfTS(ts) {
		return a[1], nil
	}
	if isInfTS(origin) {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	s := new(big.Int).Add(new(big.Int).Mul(big.NewInt(int64(stride.Days)), big.NewInt(usecsPerDay)), big.NewInt(stride.Micros))
	if !s.IsInt64() {
		return Datum{}, intervalOverflow()
	}
	step := s.Int64()
	if step <= 0 {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "stride must be greater than zero")
	}
	diff := ts - origin
	if (ts >= origin) != (diff >= 0) {
		return Datum{}, intervalOverflow()
	}
	// round toward -infinity: a bin that starts before origin when ts does
	delta := diff - diff%step
	if diff < 0 && diff%step != 0 {
		delta -= step
	}
	r := origin + delta
	if (delta < 0) != (r < origin) || !validTimestamp(r) {
		return Datum{}, tsOutOfRange()
	}
	return TimestampMicros(r), nil
}

// cG is printf's %g: six significant digits, no trailing zeros.
func cG(x float64) string {
	s := strconv.FormatFloat(x, 'g', 6, 64)
	if i := strings.IndexAny(s, "e"); i >= 0 {
		m := s[:i]
		if strings.Contains(m, ".") {
			m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
		}
		return m + s[i:]
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func timeFieldErr(h, m int64, sec float64) error {
	s := cG(sec)
	if len(s) < 2 {
		s = "0" + s
	}
	return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, m, s)
}

// timeOfDay is float_time_overflows plus the microseconds it allows.
func timeOfDay(h, m int64, sec float64) (int64, bool) {
	if h < 0 || h > 24 || m < 0 || m >= 60 || !(sec >= 0 && sec <= 60) {
		return 0, false
	}
	us := (h*60+m)*60*usecsPerSec + int64(math.RoundToEven(sec*float64(usecsPerSec)))
	return us, us <= usecsPerDay
}

func makeTime(a []Datum) (Datum, error) {
	us, ok := timeOfDay(a[0].Int(), a[1].Int(), a[2].Float())
	if !ok {
		return Datum{}, timeFieldErr(a[0].Int(), a[1].Int(), a[2].Float())
	}
	return Int(us), nil
}

// makeTimestamp is make_timestamp_internal: negative years are BC.
func makeTimestamp(a []Datum) (int64, error) {
	y0, m, d := a[0].Int(), a[1].Int(), a[2].Int()
	y := y0
	if y < 0 {
		y++
	}
	leap := 0
	if isLeap(int(y)) {
		leap = 1
	}
	if y0 == 0 || m < 1 || m > 12 || d < 1 || d > int64(daysInMonth[leap][m]) {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y0, m, d)
	}
	if y < -4713 || y > 5874897 {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: %d-%02d-%02d", y0, m, d)
	}
	h, mi, sec := a[3].Int(), a[4].Int(), a[5].Float()
	us, ok := timeOfDay(h, mi, sec)
	if !ok {
		return 0, timeFieldErr(h, mi, sec)
	}
	ts := int64(date2j(int(y), int(m), int(d))-postgresEpochJDay)*usecsPerDay + us
	if !validTimestamp(ts) {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", y0, m, d, h, mi, cG(sec))
	}
	return ts, nil
}

// validTimestamp is IS_VALID_TIMESTAMP: 4714-11-24 BC to 294276 AD.
func validTimestamp(ts int64) bool {
	return ts >= -211813488000000000 && ts < 9223371331200000000
}

func makeInterval(a []Datum) (Datum, error) {
	secs := a[6].Float()
	if math.IsInf(secs, 0) || math.IsNaN(secs) {
		return Datum{}, intervalOverflow()
	}
	months := a[0].Int()*12 + a[1].Int()
	days := a[2].Int()*7 + a[3].Int()
	us := new(big.Int).Mul(big.NewInt(a[4].Int()), big.NewInt(3600*usecsPerSec))
	us.Add(us, new(big.Int).Mul(big.NewInt(a[5].Int()), big.NewInt(60*usecsPerSec)))
	us.Add(us, big.NewInt(int64(math.RoundToEven(secs*float64(usecsPerSec)))))
	if months != int64(int32(months)) || days != int64(int32(days)) || !us.IsInt64() {
		return Datum{}, intervalOverflow()
	}
	return IntervalDatum(IntervalValue{Months: int32(months), Days: int32(days), Micros: us.Int64()}), nil
}

func sendFunc(name string, t Type) {
	fn(name, []Type{t}, Bytea, func(a []Datum) (Datum, error) { return Str(string(AppendBinary(nil, t, a[0]))), nil })
}

func init() {
	fn("gcd", []Type{Int4, Int4}, Int4, intGCD(Int4OID))
	fn("gcd", []Type{Int8, Int8}, Int8, intGCD(Int8OID))
	fn("lcm", []Type{Int4, Int4}, Int4, intLCM(Int4OID))
	fn("lcm", []Type{Int8, Int8}, Int8, intLCM(Int8OID))
	fn("gcd", []Type{Numeric, Numeric}, Numeric, numGCDLCM(false))
	fn("lcm", []Type{Numeric, Numeric}, Numeric, numGCDLCM(true))
	fn("factorial", []Type{Int8}, Numeric, factorial)

	any := func(float64) bool { return true }
	hyperbolic("sinh", math.Sinh, any)
	hyperbolic("cosh", math.Cosh, any)
	hyperbolic("tanh", math.Tanh, any)
	hyperbolic("asinh", math.Asinh, any)
	hyperbolic("acosh", math.Acosh, func(x float64) bool { return x >= 1 })
	hyperbolic("atanh", math.Atanh, func(x float64) bool { return x >= -1 && x <= 1 })

	degreeTrig("sind", false, func(a, s, _ float64) float64 { return s * sindQ1(a) })
	degreeTrig("cosd", false, func(a, _, c float64) float64 { return c * cosdQ1(a) })
	tan45 := sindQ1(45) / cosdQ1(45)
	degreeTrig("tand", true, func(a, s, c float64) float64 { return s * c * (sindQ1(a) / cosdQ1(a) / tan45) })
	degreeTrig("cotd", true, func(a, s, c float64) float64 { return s * c * (cosdQ1(a) / sindQ1(a) / tan45) })
	inverse := func(name string, f func(float64) float64, domain bool) {
		f1(name, func(x float64) (Datum, error) {
			if math.IsNaN(x) {
				return Float(x), nil
			}
			if domain && (x < -1 || x > 1) {
				return Datum{}, rangeErr()
			}
			return Float(f(x)), nil
		})
	}
	inverse("asind", func(x float64) float64 {
		if x >= 0 {
			return asindQ1(x)
		}
		return -asindQ1(-x)
	}, true)
	inverse("acosd", func(x float64) float64 {
		if x >= 0 {
			return acosdQ1(x)
		}
		return 90 + asindQ1(-x)
	}, true)
	inverse("atand", func(x float64) float64 { return math.Atan(x) / atan1 * 45 }, false)
	fn("atan2d", []Type{Float8, Float8}, Float8, func(a []Datum) (Datum, error) {
		y, x := a[0].Float(), a[1].Float()
		if math.IsNaN(y) || math.IsNaN(x) {
			return Float(math.NaN()), nil
		}
		return Float(math.Atan2(y, x) / atan1 * 45), nil
	})

	fn("width_bucket", []Type{Float8, Float8, Float8, Int4}, Int4, widthBucketFloat)
	fn("width_bucket", []Type{Numeric, Numeric, Numeric, Int4}, Int4, widthBucketNumeric)
	fn("date_bin", []Type{Interval, Timestamp, Timestamp}, Timestamp, dateBin)
	fn("date_bin", []Type{Interval, Timestamptz, Timestamptz}, Timestamptz, dateBin)
	fn("make_time", []Type{Int4, Int4, Float8}, Time, makeTime)
	fn("make_timestamp", []Type{Int4, Int4, Int4, Int4, Int4, Float8}, Timestamp, func(a []Datum) (Datum, error) {
		ts, err := makeTimestamp(a)
		return TimestampMicros(ts), err
	})
	fnWith("make_timestamptz", []Type{Int4, Int4, Int4, Int4, Int4, Float8}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		ts, err := makeTimestamp(a)
		if err != nil {
			return Datum{}, err
		}
		return TimestampMicros(st.zone().ToUTC(ts)), nil
	})
	fn("make_timestamptz", []Type{Int4, Int4, Int4, Int4, Int4, Float8, Text}, Timestamptz, func(a []Datum) (Datum, error) {
		ts, err := makeTimestamp(a)
		if err != nil {
			return Datum{}, err
		}
		z, err := atTimeZone(a[6].Str())
		if err != nil {
			return Datum{}, err
		}
		return TimestampMicros(z.ToUTC(ts)), nil
	})
	fn("make_interval", []Type{Int4, Int4, Int4, Int4, Int4, Int4, Float8}, Interval, makeInterval)
	fn("booleq", []Type{Boolean, Boolean}, Boolean, func(a []Datum) (Datum, error) { return Bool(a[0].Bool() == a[1].Bool()), nil })
	fn("boolne", []Type{Boolean, Boolean}, Boolean, func(a []Datum) (Datum, error) { return Bool(a[0].Bool() != a[1].Bool()), nil })
	for name, t := range map[string]Type{"int2send": Int2, "int4send": Int4, "int8send": Int8,
		"float4send": Float4, "float8send": Float8, "numeric_send": Numeric, "boolsend": Boolean} {
		sendFunc(name, t)
	}
}
