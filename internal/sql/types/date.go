package types

import (
	"math"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Date infinities, as PostgreSQL's DATEVAL_NOBEGIN / DATEVAL_NOEND.
const (
	DateNegInfinity int32 = math.MinInt32
	DateInfinity    int32 = math.MaxInt32
)

const (
	dateEndJulian      = 2147483494 // DATE_END_JULIAN
	timestampEndJulian = 109203528  // TIMESTAMP_END_JULIAN
)

// DateDays returns a date datum for days since 2000-01-01.
func DateDays(days int32) Datum { return Int(int64(days)) }

func validDate(days int64) bool {
	return days >= -postgresEpochJDay && days < dateEndJulian-postgresEpochJDay
}

func dateOutOfRange() error { return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range") }

// parseDate is date_in.
func parseDate(st *Settings, orig string) (Datum, error) {
	v, e, bad := decodeDateTime(st, orig)
	if e != dtOK {
		return Datum{}, dtError(e, "date", orig, bad)
	}
	switch v.special {
	case tokLate:
		return DateDays(DateInfinity), nil
	case tokEarly:
		return DateDays(DateNegInfinity), nil
	case tokEpoch:
		return DateDays(-(postgresEpochJDay - unixEpochJDay)), nil
	}
	if !validJulian(v.year, v.mon) {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", orig)
	}
	jd := int64(date2j(v.year, v.mon, v.day))
	if !validDate(jd - postgresEpochJDay) {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", orig)
	}
	return DateDays(int32(jd - postgresEpochJDay)), nil
}

func appendYMD(dst []byte, y, m, d int) []byte {
	bc := false
	if y <= 0 {
		y = -y + 1
		bc = true
	}
	if y < 10000 {
		dst = append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	} else {
		dst = appendInt(dst, int64(y))
	}
	dst = append(dst, '-')
	dst = append2(dst, m)
	dst = append(dst, '-')
	dst = append2(dst, d)
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendDate is date_out (DateStyle ISO).
func appendDate(dst []byte, days int32) []byte {
	switch days {
	case DateInfinity:
		return append(dst, "infinity"...)
	case DateNegInfinity:
		return append(dst, "-infinity"...)
	}
	y, m, d := j2date(int(days) + postgresEpochJDay)
	return appendYMD(dst, y, m, d)
}

func dateToTimestamp(days int32) (int64, error) {
	switch days {
	case DateInfinity:
		return TimestampInfinity, nil
	case DateNegInfinity:
		return TimestampNegInfinity, nil
	}
	if int64(days) >= timestampEndJulian-postgresEpochJDay {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return int64(days) * usecsPerDay, nil
}

func dateToTimestamptz(st *Settings, days int32) (int64, error) {
	ts, err := dateToTimestamp(days)
	if err != nil || ts == TimestampInfinity || ts == TimestampNegInfinity {
		return ts, err
	}
	v := st.zone().ToUTC(ts)
	if v < minTimestamp || v >= endTimestamp {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return v, nil
}

func timestampToDate(ts int64) (int32, error) {
	switch ts {
	case TimestampInfinity:
		return DateInfinity, nil
	case TimestampNegInfinity:
		return DateNegInfinity, nil
	}
	return int32(floorDiv(ts, usecsPerDay)), nil
}

// Time of day (time without time zone): microseconds since midnight,
// 00:00:00 through 24:00:00.

func parseTime(st *Settings, orig string, typmod int32) (Datum, error) {
	v, e, bad := decodeTimeOnly(st, orig)
	if e != dtOK {
		return Datum{}, dtError(e, "time", orig, bad)
	}
	t := (int64(v.hour)*3600+int64(v.min)*60+int64(v.sec))*usecsPerSec + v.fsec
	return Int(adjustTimeTypmod(t, typmod)), nil
}

func adjustTimeTypmod(t int64, typmod int32) int64 {
	if typmod < 0 || typmod >= 6 {
		return t
	}
	scale := tsScales[typmod]
	return (t + scale/2) / scale * scale
}

func appendTimeOfDay(dst []byte, t int64) []byte {
	sec := t / usecsPerSec
	dst = append2(dst, int(sec/3600))
	dst = append(dst, ':')
	dst = append2(dst, int(sec/60%60))
	dst = append(dst, ':')
	dst = append2(dst, int(sec%60))
	return appendFraction(dst, t%usecsPerSec)
}

// Timestamp arithmetic.

func tsOutOfRange() error { return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range") }

func isInfTS(ts int64) bool { return ts == TimestampInfinity || ts == TimestampNegInfinity }

// addMonthsDays adds months then days to a wall-clock timestamp as
// timestamp_pl_interval: the day of month is clamped to the new month's
// length.
func addMonthsDays(ts int64, months, days int32) (int64, error) {
	if months != 0 {
		jd, t := splitTimestamp(ts)
		y, m, d := j2date(jd)
		mon := int64(m) - 1 + int64(months)
		y += int(floorDiv(mon, 12))
		m = int(mon-floorDiv(mon, 12)*12) + 1
		leap := 0
		if isLeap(y) {
			leap = 1
		}
		if d > daysInMonth[leap][m] {
			d = daysInMonth[leap][m]
		}
		if y < -4713 || y > 294277 {
			return 0, tsOutOfRange()
		}
		ts = int64(date2j(y, m, d)-postgresEpochJDay)*usecsPerDay + t
	}
	if days != 0 {
		jd, t := splitTimestamp(ts)
		jd += int(days)
		if jd < 0 || jd >= timestampEndJulian {
			return 0, tsOutOfRange()
		}
		ts = int64(jd-postgresEpochJDay)*usecsPerDay + t
	}
	return ts, nil
}

func timestampPlusInterval(ts int64, iv IntervalValue) (int64, error) {
	if isInfTS(ts) {
		return ts, nil
	}
	ts, err := addMonthsDays(ts, iv.Months, iv.Days)
	if err != nil {
		return 0, err
	}
	r := ts + iv.Micros
	if (ts^r)&(iv.Micros^r) < 0 || r < minTimestamp || r >= endTimestamp {
		return 0, tsOutOfRange()
	}
	return r, nil
}

// TimestamptzPlusInterval is timestamptz + interval in the session's zone.
func TimestamptzPlusInterval(st *Settings, ts int64, iv Datum) (int64, error) {
	return timestamptzPlusInterval(st, ts, IntervalOf(iv))
}

// timestamptzPlusInterval adds months and days in the session's zone (so
// '1 day' across a DST change keeps the wall-clock time) and the time part
// in UTC, as timestamptz_pl_interval.
func timestamptzPlusInterval(st *Settings, ts int64, iv IntervalValue) (int64, error) {
	if isInfTS(ts) {
		return ts, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		z := st.zone()
		local, err := addMonthsDays(z.ToLocal(ts), iv.Months, iv.Days)
		if err != nil {
			return 0, err
		}
		ts = z.ToUTC(local)
	}
	r := ts + iv.Micros
	if (ts^r)&(iv.Micros^r) < 0 || r < minTimestamp || r >= endTimestamp {
		return 0, tsOutOfRange()
	}
	return r, nil
}

func timestampMinus(a, b int64) (IntervalValue, error) {
	if isInfTS(a) || isInfTS(b) {
		return IntervalValue{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := a - b
	if (a^b)&(a^d) < 0 {
		return IntervalValue{}, intervalOverflow()
	}
	return justifyHours(IntervalValue{Micros: d})
}

func ivArg(d Datum) IntervalValue { return IntervalOf(d) }

func ivRes(iv IntervalValue, err error) (Datum, error) {
	if err != nil {
		return Datum{}, err
	}
	return IntervalDatum(iv), nil
}

func tsRes(v int64, err error) (Datum, error) {
	if err != nil {
		return Datum{}, err
	}
	return TimestampMicros(v), nil
}

// addOpWith registers an operator whose result depends on the session's
// settings (TimeZone).
func addOpWith(op string, args []Type, ret Type, f func(st *Settings, a []Datum) (Datum, error)) {
	addOp(op, &Func{Args: args, Ret: ret, FnWith: f, Fn: func(a []Datum) (Datum, error) { return f(nil, a) }})
}

func fnWith(name string, args []Type, ret Type, f func(st *Settings, a []Datum) (Datum, error)) {
	addFunc(name, &Func{Args: args, Ret: ret, Strict: true, Stable: true, FnWith: f, Fn: func(a []Datum) (Datum, error) { return f(nil, a) }})
}

func dateArith(days int64) (Datum, error) {
	if !validDate(days) {
		return Datum{}, dateOutOfRange()
	}
	return DateDays(int32(days)), nil
}

func isInfDate(d int64) bool { return d == int64(DateInfinity) || d == int64(DateNegInfinity) }

// dateAsTimestamp converts for cross-type comparisons: dates beyond the
// timestamp range compare as infinite, as PostgreSQL's date2timestamp_opt_overflow.
func dateAsTimestamp(days int64) int64 {
	ts, err := dateToTimestamp(int32(days))
	if err != nil {
		return TimestampInfinity
	}
	return ts
}

func init() {
	cmpOps(Date, Date, intCmpDatum)
	cmpOps(Time, Time, intCmpDatum)
	cmpOps(Date, Timestamp, func(a, b Datum) int { return cmpInt(dateAsTimestamp(a.Int()), b.Int()) })
	cmpOps(Timestamp, Date, func(a, b Datum) int { return cmpInt(a.Int(), dateAsTimestamp(b.Int())) })
	cmpOps(Interval, Interval, func(a, b Datum) int { return compareIntervals(IntervalOf(a), IntervalOf(b)) })
	cmpWith := func(l, r Type, cmp func(st *Settings, a, b Datum) int) {
		for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
			op := op
			addOpWith(op, []Type{l, r}, Boolean, func(st *Settings, a []Datum) (Datum, error) {
				c := cmp(st, a[0], a[1])
				var r bool
				switch op {
				case "=":
					r = c == 0
				case "<>":
					r = c != 0
				case "<":
					r = c < 0
				case "<=":
					r = c <= 0
				case ">":
					r = c > 0
				default:
					r = c >= 0
				}
				return boolRes(r), nil
			})
		}
	}
	dateTz := func(st *Settings, days int64) int64 {
		ts, err := dateToTimestamptz(st, int32(days))
		if err != nil {
			return TimestampInfinity
		}
		return ts
	}
	cmpWith(Date, Timestamptz, func(st *Settings, a, b Datum) int { return cmpInt(dateTz(st, a.Int()), b.Int()) })
	cmpWith(Timestamptz, Date, func(st *Settings, a, b Datum) int { return cmpInt(a.Int(), dateTz(st, b.Int())) })
	cmpWith(Timestamp, Timestamptz, func(st *Settings, a, b Datum) int {
		return cmpInt(convertTimestampZone(st, a.Int(), true), b.Int())
	})
	cmpWith(Timestamptz, Timestamp, func(st *Settings, a, b Datum) int {
		return cmpInt(a.Int(), convertTimestampZone(st, b.Int(), true))
	})

	// date arithmetic
	addOp("+", &Func{Args: []Type{Date, Int4}, Ret: Date, Fn: func(a []Datum) (Datum, error) {
		if isInfDate(a[0].Int()) {
			return a[0], nil
		}
		return dateArith(a[0].Int() + a[1].Int())
	}})
	addOp("+", &Func{Args: []Type{Int4, Date}, Ret: Date, Fn: func(a []Datum) (Datum, error) {
		if isInfDate(a[1].Int()) {
			return a[1], nil
		}
		return dateArith(a[0].Int() + a[1].Int())
	}})
	addOp("-", &Func{Args: []Type{Date, Int4}, Ret: Date, Fn: func(a []Datum) (Datum, error) {
		if isInfDate(a[0].Int()) {
			return a[0], nil
		}
		return dateArith(a[0].Int() - a[1].Int())
	}})
	addOp("-", &Func{Args: []Type{Date, Date}, Ret: Int4, Fn: func(a []Datum) (Datum, error) {
		if isInfDate(a[0].Int()) || isInfDate(a[1].Int()) {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return Int(a[0].Int() - a[1].Int()), nil
	}})
	dateIv := func(sign int64) func(a []Datum) (Datum, error) {
		return func(a []Datum) (Datum, error) {
			ts, err := dateToTimestamp(int32(a[0].Int()))
			if err != nil {
				return Datum{}, err
			}
			iv := IntervalOf(a[1])
			if sign < 0 {
				if iv, err = intervalNeg(iv); err != nil {
					return Datum{}, err
				}
			}
			return tsRes(timestampPlusInterval(ts, iv))
		}
	}
	addOp("+", &Func{Args: []Type{Date, Interval}, Ret: Timestamp, Fn: dateIv(1)})
	addOp("+", &Func{Args: []Type{Interval, Date}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		return dateIv(1)([]Datum{a[1], a[0]})
	}})
	addOp("-", &Func{Args: []Type{Date, Interval}, Ret: Timestamp, Fn: dateIv(-1)})
	addOp("+", &Func{Args: []Type{Date, Time}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		ts, err := dateToTimestamp(int32(a[0].Int()))
		if err != nil || isInfTS(ts) {
			return TimestampMicros(ts), err
		}
		return tsRes(ts+a[1].Int(), nil)
	}})
	addOp("+", &Func{Args: []Type{Time, Date}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		ts, err := dateToTimestamp(int32(a[1].Int()))
		if err != nil || isInfTS(ts) {
			return TimestampMicros(ts), err
		}
		return tsRes(ts+a[0].Int(), nil)
	}})

	// time arithmetic
	addOp("-", &Func{Args: []Type{Time, Time}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return IntervalDatum(IntervalValue{Micros: a[0].Int() - a[1].Int()}), nil
	}})
	timeIv := func(t int64, iv IntervalValue, sign int64) Datum {
		r := (t + sign*(iv.Micros%usecsPerDay)) % usecsPerDay
		if r < 0 {
			r += usecsPerDay
		}
		return Int(r)
	}
	addOp("+", &Func{Args: []Type{Time, Interval}, Ret: Time, Fn: func(a []Datum) (Datum, error) { return timeIv(a[0].Int(), IntervalOf(a[1]), 1), nil }})
	addOp("+", &Func{Args: []Type{Interval, Time}, Ret: Time, Fn: func(a []Datum) (Datum, error) { return timeIv(a[1].Int(), IntervalOf(a[0]), 1), nil }})
	addOp("-", &Func{Args: []Type{Time, Interval}, Ret: Time, Fn: func(a []Datum) (Datum, error) { return timeIv(a[0].Int(), IntervalOf(a[1]), -1), nil }})

	// interval arithmetic
	addOp("+", &Func{Args: []Type{Interval, Interval}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return ivRes(intervalAdd(ivArg(a[0]), ivArg(a[1])))
	}})
	addOp("-", &Func{Args: []Type{Interval, Interval}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return ivRes(intervalSub(ivArg(a[0]), ivArg(a[1])))
	}})
	addOp("-", &Func{Args: []Type{Interval}, Ret: Interval, Fn: func(a []Datum) (Datum, error) { return ivRes(intervalNeg(ivArg(a[0]))) }})
	addOp("+", &Func{Args: []Type{Interval}, Ret: Interval, Fn: func(a []Datum) (Datum, error) { return a[0], nil }})
	addOp("*", &Func{Args: []Type{Interval, Float8}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return ivRes(intervalMul(ivArg(a[0]), a[1].Float()))
	}})
	addOp("*", &Func{Args: []Type{Float8, Interval}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return ivRes(intervalMul(ivArg(a[1]), a[0].Float()))
	}})
	addOp("/", &Func{Args: []Type{Interval, Float8}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
		return ivRes(intervalDiv(ivArg(a[0]), a[1].Float()))
	}})

	// timestamp ± interval, timestamp - timestamp
	addOp("+", &Func{Args: []Type{Timestamp, Interval}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		return tsRes(timestampPlusInterval(a[0].Int(), ivArg(a[1])))
	}})
	addOp("+", &Func{Args: []Type{Interval, Timestamp}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		return tsRes(timestampPlusInterval(a[1].Int(), ivArg(a[0])))
	}})
	addOp("-", &Func{Args: []Type{Timestamp, Interval}, Ret: Timestamp, Fn: func(a []Datum) (Datum, error) {
		iv, err := intervalNeg(ivArg(a[1]))
		if err != nil {
			return Datum{}, err
		}
		return tsRes(timestampPlusInterval(a[0].Int(), iv))
	}})
	addOpWith("+", []Type{Timestamptz, Interval}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		return tsRes(timestamptzPlusInterval(st, a[0].Int(), ivArg(a[1])))
	})
	addOpWith("+", []Type{Interval, Timestamptz}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		return tsRes(timestamptzPlusInterval(st, a[1].Int(), ivArg(a[0])))
	})
	addOpWith("-", []Type{Timestamptz, Interval}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		iv, err := intervalNeg(ivArg(a[1]))
		if err != nil {
			return Datum{}, err
		}
		return tsRes(timestamptzPlusInterval(st, a[0].Int(), iv))
	})
	for _, t := range []Type{Timestamp, Timestamptz} {
		addOp("-", &Func{Args: []Type{t, t}, Ret: Interval, Fn: func(a []Datum) (Datum, error) {
			return ivRes(timestampMinus(a[0].Int(), a[1].Int()))
		}})
	}

	// functions
	fn("justify_hours", []Type{Interval}, Interval, func(a []Datum) (Datum, error) { return ivRes(justifyHours(ivArg(a[0]))) })
	fn("justify_days", []Type{Interval}, Interval, func(a []Datum) (Datum, error) { return ivRes(justifyDays(ivArg(a[0]))) })
	fn("justify_interval", []Type{Interval}, Interval, func(a []Datum) (Datum, error) { return ivRes(justifyInterval(ivArg(a[0]))) })
	fn("isfinite", []Type{Date}, Boolean, func(a []Datum) (Datum, error) { return Bool(!isInfDate(a[0].Int())), nil })
	fn("isfinite", []Type{Timestamp}, Boolean, func(a []Datum) (Datum, error) { return Bool(!isInfTS(a[0].Int())), nil })
	fn("isfinite", []Type{Timestamptz}, Boolean, func(a []Datum) (Datum, error) { return Bool(!isInfTS(a[0].Int())), nil })
	fn("isfinite", []Type{Interval}, Boolean, func(a []Datum) (Datum, error) { return Bool(true), nil })
	fn("make_date", []Type{Int4, Int4, Int4}, Date, func(a []Datum) (Datum, error) {
		y, m, d := int(a[0].Int()), int(a[1].Int()), int(a[2].Int())
		if y < 0 {
			y++ // negative years are BC
		}
		leap := 0
		if isLeap(y) {
			leap = 1
		}
		if a[0].Int() == 0 || m < 1 || m > 12 || d < 1 || d > daysInMonth[leap][m] {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", a[0].Int(), a[1].Int(), a[2].Int())
		}
		return dateArith(int64(date2j(y, m, d) - postgresEpochJDay))
	})
	fnWith("timezone", []Type{Text, Timestamptz}, Timestamp, func(st *Settings, a []Datum) (Datum, error) {
		z, err := atTimeZone(a[0].Str())
		if err != nil || isInfTS(a[1].Int()) {
			return a[1], err
		}
		return TimestampMicros(z.ToLocal(a[1].Int())), nil
	})
	fnWith("timezone", []Type{Text, Timestamp}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		z, err := atTimeZone(a[0].Str())
		if err != nil || isInfTS(a[1].Int()) {
			return a[1], err
		}
		return TimestampMicros(z.ToUTC(a[1].Int())), nil
	})
	fn("timezone", []Type{Interval, Timestamptz}, Timestamp, func(a []Datum) (Datum, error) {
		z, err := TimeZoneFromInterval(a[0])
		if err != nil || isInfTS(a[1].Int()) {
			return a[1], err
		}
		return TimestampMicros(z.ToLocal(a[1].Int())), nil
	})
	fn("timezone", []Type{Interval, Timestamp}, Timestamptz, func(a []Datum) (Datum, error) {
		z, err := TimeZoneFromInterval(a[0])
		if err != nil || isInfTS(a[1].Int()) {
			return a[1], err
		}
		return TimestampMicros(z.ToUTC(a[1].Int())), nil
	})
	registerDatetimeFuncs()
}

// atTimeZone resolves the zone of AT TIME ZONE / timezone(): a zone name,
// an abbreviation or a POSIX offset.
func atTimeZone(name string) (*Zone, error) {
	if z, ok := zoneWord(name); ok {
		return z, nil
	}
	if z, err := LookupZone(name); err == nil {
		return z, nil
	}
	return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}
