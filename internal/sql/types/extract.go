package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// extract(field FROM x) returns numeric, computed exactly: the fields that
// carry fractions (milliseconds, second, epoch) from integer microseconds
// with PostgreSQL's fixed scales, the others as integers.

// scaledNumeric is int64_div_fast_to_numeric: v / 10^scale with display
// scale scale.
func scaledNumeric(v int64, scale int) (Datum, error) { return bigScaledNumeric(big.NewInt(v), scale) }

func bigScaledNumeric(v *big.Int, scale int) (Datum, error) {
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	for len(digits) <= scale {
		digits = "0" + digits
	}
	text := digits
	if scale > 0 {
		text = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		text = "-" + text
	}
	return ParseNumeric(text)
}

func numericFromFloatField(d Datum, err error) (Datum, error) {
	if err != nil || d.IsNull() {
		return d, err
	}
	f := d.Float()
	switch {
	case math.IsInf(f, 1):
		return ParseNumeric("Infinity")
	case math.IsInf(f, -1):
		return ParseNumeric("-Infinity")
	case f == math.Trunc(f) && math.Abs(f) < 1e18:
		return scaledNumeric(int64(f), 0)
	}
	return ParseNumeric(strconv.FormatFloat(f, 'f', -1, 64))
}

func fractionalField(unit string) (int, bool) {
	switch unit {
	case "microseconds":
		return 0, true
	case "milliseconds":
		return 3, true
	case "second":
		return 6, true
	}
	return 0, false
}

func registerExtract() {
	fn("extract", []Type{Text, Timestamp}, Numeric, func(a []Datum) (Datum, error) {
		return extractTimestamp(a[0].Str(), a[1].Int(), nil, "timestamp without time zone")
	})
	fnWith("extract", []Type{Text, Timestamptz}, Numeric, func(st *Settings, a []Datum) (Datum, error) {
		return extractTimestamp(a[0].Str(), a[1].Int(), st.zone(), "timestamp with time zone")
	})
	fn("extract", []Type{Text, Date}, Numeric, func(a []Datum) (Datum, error) {
		unit, ok := unitNames[strings.ToLower(a[0].Str())]
		if !ok {
			return Datum{}, unitNotRecognized(a[0].Str(), "date")
		}
		switch unit {
		case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
			return Datum{}, unitNotSupported(a[0].Str(), "date")
		case "epoch":
			if isInfDate(a[1].Int()) {
				return extractTimestamp(a[0].Str(), dateAsTimestamp(a[1].Int()), nil, "date")
			}
			return scaledNumeric((a[1].Int()+int64(postgresEpochJDay-unixEpochJDay))*86400, 0)
		}
		ts, err := dateToTimestamp(int32(a[1].Int()))
		if err != nil {
			return Datum{}, err
		}
		return extractTimestamp(a[0].Str(), ts, nil, "date")
	})
	fn("extract", []Type{Text, Interval}, Numeric, func(a []Datum) (Datum, error) {
		unit, ok := unitNames[strings.ToLower(a[0].Str())]
		iv := IntervalOf(a[1])
		if ok {
			if scale, frac := fractionalField(unit); frac {
				return scaledNumeric(iv.Micros%(60*usecsPerSec), scale)
			}
			if unit == "epoch" {
				// secs*10^6 + micros can exceed int64: compute it exactly
				// a year is 365.25 days, a month 30 (PostgreSQL's DAYS_PER_YEAR, DAYS_PER_MONTH)
				secs := 31557600*int64(iv.Months/12) + 2592000*int64(iv.Months%12) + 86400*int64(iv.Days)
				v := new(big.Int).Mul(big.NewInt(secs), big.NewInt(usecsPerSec))
				v.Add(v, big.NewInt(iv.Micros))
				return bigScaledNumeric(v, 6)
			}
		}
		return numericFromFloatField(intervalPart(a[0].Str(), iv))
	})
	fn("extract", []Type{Text, Time}, Numeric, func(a []Datum) (Datum, error) {
		unit, ok := unitNames[strings.ToLower(a[0].Str())]
		if ok {
			if scale, frac := fractionalField(unit); frac {
				return scaledNumeric(a[1].Int()%(60*usecsPerSec), scale)
			}
			if unit == "epoch" {
				return scaledNumeric(a[1].Int(), 6)
			}
		}
		return numericFromFloatField(timePart(a[0].Str(), a[1].Int()))
	})
}

func extractTimestamp(unitText string, ts int64, z *Zone, typ string) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, typ)
	}
	if !isInfTS(ts) {
		local := ts
		if z != nil {
			local = z.ToLocal(ts)
		}
		jd, t := splitTimestamp(local)
		if scale, frac := fractionalField(unit); frac {
			return scaledNumeric(t%(60*usecsPerSec), scale)
		}
		switch unit {
		case "epoch":
			return scaledNumeric(ts+int64(postgresEpochJDay-unixEpochJDay)*usecsPerDay, 6)
		case "julian":
			// jd + microseconds of the day / microseconds per day, divided
			// with numeric's result scale as PostgreSQL does
			dayFrac, err := numDiv(numOf(NumericFromInt(t)), numOf(NumericFromInt(usecsPerDay)))
			if err != nil {
				return Datum{}, err
			}
			return numAdd(numOf(NumericFromInt(int64(jd))), dayFrac).datum()
		}
	}
	return numericFromFloatField(timestampPart(unitText, ts, z, typ))
}
