package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Date/time functions: now() and friends, date_part/extract, date_trunc,
// age.
//
// date_part() returns double precision, extract() numeric (PostgreSQL
// 14+): exact, with scale 3 for milliseconds and 6 for seconds and epoch.

func registerDatetimeFuncs() {
	for _, name := range []string{"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"} {
		addFunc(name, &Func{Ret: Timestamptz, Strict: true, Stable: true, NeedsTxnTime: true, Fn: txnTime})
	}
	local := func(st *Settings, a []Datum) (Datum, error) {
		return TimestampMicros(st.zone().ToLocal(a[len(a)-1].Int())), nil
	}
	addFunc("localtimestamp", &Func{Ret: Timestamp, Strict: true, Stable: true, NeedsTxnTime: true, FnWith: local,
		Fn: func(a []Datum) (Datum, error) { return local(nil, a) }})
	curDate := func(st *Settings, a []Datum) (Datum, error) {
		return DateDays(int32(floorDiv(st.zone().ToLocal(a[len(a)-1].Int()), usecsPerDay))), nil
	}
	addFunc("current_date", &Func{Ret: Date, Strict: true, Stable: true, NeedsTxnTime: true, FnWith: curDate,
		Fn: func(a []Datum) (Datum, error) { return curDate(nil, a) }})
	localTime := func(st *Settings, a []Datum) (Datum, error) {
		_, t := splitTimestamp(st.zone().ToLocal(a[len(a)-1].Int()))
		return Int(t), nil
	}
	addFunc("localtime", &Func{Ret: Time, Strict: true, Stable: true, NeedsTxnTime: true, FnWith: localTime,
		Fn: func(a []Datum) (Datum, error) { return localTime(nil, a) }})
	addFunc("clock_timestamp", &Func{Ret: Timestamptz, Strict: true, Volatile: true, Fn: func([]Datum) (Datum, error) {
		return TimestampMicros(TimestampFromTime(time.Now().UTC())), nil
	}})

	registerExtract()
	for _, name := range []string{"date_part"} {
		fn(name, []Type{Text, Timestamp}, Float8, func(a []Datum) (Datum, error) {
			return timestampPart(a[0].Str(), a[1].Int(), nil, "timestamp without time zone")
		})
		fnWith(name, []Type{Text, Timestamptz}, Float8, func(st *Settings, a []Datum) (Datum, error) {
			return timestampPart(a[0].Str(), a[1].Int(), st.zone(), "timestamp with time zone")
		})
		fn(name, []Type{Text, Date}, Float8, func(a []Datum) (Datum, error) {
			ts, err := dateToTimestamp(int32(a[1].Int()))
			if err != nil {
				return Datum{}, err
			}
			return timestampPart(a[0].Str(), ts, nil, "date")
		})
		fn(name, []Type{Text, Interval}, Float8, func(a []Datum) (Datum, error) { return intervalPart(a[0].Str(), IntervalOf(a[1])) })
		fn(name, []Type{Text, Time}, Float8, func(a []Datum) (Datum, error) { return timePart(a[0].Str(), a[1].Int()) })
	}

	fn("date_trunc", []Type{Text, Timestamp}, Timestamp, func(a []Datum) (Datum, error) {
		return truncTimestamp(a[0].Str(), a[1].Int(), nil, "timestamp without time zone")
	})
	fnWith("date_trunc", []Type{Text, Timestamptz}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		return truncTimestamp(a[0].Str(), a[1].Int(), st.zone(), "timestamp with time zone")
	})
	fn("date_trunc", []Type{Text, Timestamptz, Text}, Timestamptz, func(a []Datum) (Datum, error) {
		z, err := atTimeZone(a[2].Str())
		if err != nil {
			return Datum{}, err
		}
		return truncTimestamp(a[0].Str(), a[1].Int(), z, "timestamp with time zone")
	})
	fn("date_trunc", []Type{Text, Interval}, Interval, func(a []Datum) (Datum, error) { return truncInterval(a[0].Str(), IntervalOf(a[1])) })

	fn("age", []Type{Timestamp, Timestamp}, Interval, func(a []Datum) (Datum, error) { return ivRes(age(a[0].Int(), a[1].Int())) })
	fnWith("age", []Type{Timestamptz, Timestamptz}, Interval, func(st *Settings, a []Datum) (Datum, error) {
		z := st.zone()
		if isInfTS(a[0].Int()) || isInfTS(a[1].Int()) {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
		}
		return ivRes(ageOrdered(z.ToLocal(a[0].Int()), z.ToLocal(a[1].Int()), a[0].Int() < a[1].Int()))
	})
}

// canonical field names of date_part/extract/date_trunc units
var unitNames = map[string]string{
	"microsecond": "microseconds", "microseconds": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds", "useconds": "microseconds",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds", "mseconds": "milliseconds",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"quarter": "quarter", "qtr": "quarter",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade", "decs": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
	"dow": "dow", "isodow": "isodow", "doy": "doy", "isoyear": "isoyear", "epoch": "epoch", "julian": "julian", "j": "julian",
	"timezone": "timezone", "timezone_h": "timezone_hour", "timezone_hour": "timezone_hour",
	"timezone_m": "timezone_minute", "timezone_minute": "timezone_minute",
}

func unitNotRecognized(unit, typ string) error {
	return pgerr.Errorf(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", unit, typ)
}

func unitNotSupported(unit, typ string) error {
	return pgerr.Errorf(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, typ)
}

func j2day(jd int) int {
	d := (jd + 1) % 7
	if d < 0 {
		d += 7
	}
	return d
}

// isoWeekYear returns the ISO 8601 week number and week-numbering year.
func isoWeekYear(y, m, d int) (week, year int) {
	dayn := date2j(y, m, d)
	day4 := date2j(y, 1, 4)
	day0 := j2day(day4 - 1)
	year = y
	if dayn < day4-day0 {
		year--
		day4 = date2j(year, 1, 4)
		day0 = j2day(day4 - 1)
	}
	week = (dayn-(day4-day0))/7 + 1
	if week >= 52 {
		day4n := date2j(year+1, 1, 4)
		day0n := j2day(day4n - 1)
		if dayn >= day4n-day0n {
			week = (dayn-(day4n-day0n))/7 + 1
			year++
		}
	}
	return week, year
}

func timestampPart(unitText string, ts int64, z *Zone, typ string) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, typ)
	}
	if isInfTS(ts) {
		switch unit {
		case "epoch", "julian", "year", "isoyear", "decade", "century", "millennium":
			if ts == TimestampInfinity {
				return Float(math.Inf(1)), nil
			}
			return Float(math.Inf(-1)), nil
		}
		return Datum{}, nil
	}
	off := 0
	local := ts
	if z != nil {
		off = z.OffsetAt(ts)
		local = ts + int64(off)*usecsPerSec
	}
	jd, t := splitTimestamp(local)
	y, m, d := j2date(jd)
	sec := t / usecsPerSec
	usec := t % usecsPerSec
	var v float64
	switch unit {
	case "microseconds":
		v = float64(sec%60*usecsPerSec + usec)
	case "milliseconds":
		v = float64(sec%60)*1000 + float64(usec)/1000
	case "second":
		v = float64(sec%60) + float64(usec)/1e6
	case "minute":
		v = float64(sec / 60 % 60)
	case "hour":
		v = float64(sec / 3600)
	case "day":
		v = float64(d)
	case "month":
		v = float64(m)
	case "quarter":
		v = float64((m-1)/3 + 1)
	case "week":
		w, _ := isoWeekYear(y, m, d)
		v = float64(w)
	case "year":
		if y > 0 {
			v = float64(y)
		} else {
			v = float64(y - 1)
		}
	case "decade":
		if y >= 0 {
			v = float64(y / 10)
		} else {
			v = -float64((8 - (y - 1)) / 10)
		}
	case "century":
		if y > 0 {
			v = float64((y + 99) / 100)
		} else {
			v = -float64((99 - (y - 1)) / 100)
		}
	case "millennium":
		if y > 0 {
			v = float64((y + 999) / 1000)
		} else {
			v = -float64((999 - (y - 1)) / 1000)
		}
	case "julian":
		v = float64(jd) + float64(t)/float64(usecsPerDay)
	case "isoyear":
		_, iy := isoWeekYear(y, m, d)
		if iy <= 0 {
			iy--
		}
		v = float64(iy)
	case "dow":
		v = float64(j2day(jd))
	case "isodow":
		dw := j2day(jd)
		if dw == 0 {
			dw = 7
		}
		v = float64(dw)
	case "doy":
		v = float64(jd - date2j(y, 1, 1) + 1)
	case "epoch":
		v = float64(ts-(-int64(postgresEpochJDay-unixEpochJDay)*usecsPerDay)) / 1e6
	case "timezone", "timezone_hour", "timezone_minute":
		if z == nil {
			return Datum{}, unitNotSupported(unitText, typ)
		}
		switch unit {
		case "timezone":
			v = float64(off)
		case "timezone_hour":
			v = float64(off / 3600)
		default:
			v = float64(off / 60 % 60)
		}
	}
	return Float(v), nil
}

func timePart(unitText string, t int64) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, "time without time zone")
	}
	sec, usec := t/usecsPerSec, t%usecsPerSec
	switch unit {
	case "microseconds":
		return Float(float64(sec%60*usecsPerSec + usec)), nil
	case "milliseconds":
		return Float(float64(sec%60)*1000 + float64(usec)/1000), nil
	case "second":
		return Float(float64(sec%60) + float64(usec)/1e6), nil
	case "minute":
		return Float(float64(sec / 60 % 60)), nil
	case "hour":
		return Float(float64(sec / 3600)), nil
	case "epoch":
		return Float(float64(t) / 1e6), nil
	}
	return Datum{}, unitNotSupported(unitText, "time without time zone")
}

func intervalPart(unitText string, iv IntervalValue) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, "interval")
	}
	year := iv.Months / 12
	mon := iv.Months % 12
	t := iv.Micros
	var v float64
	switch unit {
	case "microseconds":
		v = float64(t % (60 * usecsPerSec))
	case "milliseconds":
		v = float64(t%(60*usecsPerSec)) / 1000
	case "second":
		v = float64(t%(60*usecsPerSec)) / 1e6
	case "minute":
		v = float64(t / (60 * usecsPerSec) % 60)
	case "hour":
		v = float64(t / (3600 * usecsPerSec))
	case "day":
		v = float64(iv.Days)
	case "month":
		v = float64(mon)
	case "quarter":
		v = float64(mon/3 + 1)
	case "year":
		v = float64(year)
	case "decade":
		v = float64(year / 10)
	case "century":
		v = float64(year / 100)
	case "millennium":
		v = float64(year / 1000)
	case "epoch":
		v = float64(t)/1e6 + 365.25*86400*float64(iv.Months/12) + 30*86400*float64(iv.Months%12) + 86400*float64(iv.Days)
	default:
		return Datum{}, unitNotSupported(unitText, "interval")
	}
	return Float(v), nil
}

func truncTimestamp(unitText string, ts int64, z *Zone, typ string) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, typ)
	}
	if isInfTS(ts) {
		return TimestampMicros(ts), nil
	}
	off := int64(0)
	local := ts
	if z != nil {
		off = int64(z.OffsetAt(ts)) * usecsPerSec
		local = ts + off
	}
	jd, t := splitTimestamp(local)
	y, m, d := j2date(jd)
	dayLevel := true
	switch unit {
	case "microseconds":
		return TimestampMicros(ts), nil
	case "milliseconds", "second", "minute", "hour":
		dayLevel = false
		q := map[string]int64{"milliseconds": 1000, "second": usecsPerSec, "minute": 60 * usecsPerSec, "hour": 3600 * usecsPerSec}[unit]
		t = t / q * q
	case "day":
		t = 0
	case "week":
		dw := j2day(jd)
		if dw == 0 {
			dw = 7
		}
		jd -= dw - 1
		y, m, d = j2date(jd)
		t = 0
	case "month":
		d, t = 1, 0
	case "quarter":
		m, d, t = 3*((m-1)/3)+1, 1, 0
	case "year":
		m, d, t = 1, 1, 0
	case "decade":
		if y > 0 {
			y = y / 10 * 10
		} else {
			y = -((8 - (y - 1)) / 10 * 10)
		}
		m, d, t = 1, 1, 0
	case "century":
		if y > 0 {
			y = ((y+99)/100-1)*100 + 1
		} else {
			y = -((99-(y-1))/100)*100 + 1
		}
		m, d, t = 1, 1, 0
	case "millennium":
		if y > 0 {
			y = ((y+999)/1000-1)*1000 + 1
		} else {
			y = -((999-(y-1))/1000)*1000 + 1
		}
		m, d, t = 1, 1, 0
	default:
		return Datum{}, unitNotSupported(unitText, typ)
	}
	r := int64(date2j(y, m, d)-postgresEpochJDay)*usecsPerDay + t
	if z != nil {
		if dayLevel {
			r = z.ToUTC(r)
		} else {
			r -= off
		}
	}
	return TimestampMicros(r), nil
}

func truncInterval(unitText string, iv IntervalValue) (Datum, error) {
	unit, ok := unitNames[strings.ToLower(unitText)]
	if !ok {
		return Datum{}, unitNotRecognized(unitText, "interval")
	}
	year, mon := iv.Months/12, iv.Months%12
	t := iv.Micros
	days := iv.Days
	switch unit {
	case "microseconds":
	case "milliseconds":
		t = t / 1000 * 1000
	case "second":
		t = t / usecsPerSec * usecsPerSec
	case "minute":
		t = t / (60 * usecsPerSec) * (60 * usecsPerSec)
	case "hour":
		t = t / (3600 * usecsPerSec) * (3600 * usecsPerSec)
	case "day":
		t = 0
	case "month":
		t, days = 0, 0
	case "quarter":
		t, days, mon = 0, 0, 3*(mon/3)
	case "year":
		t, days, mon = 0, 0, 0
	case "decade":
		t, days, mon, year = 0, 0, 0, year/10*10
	case "century":
		t, days, mon, year = 0, 0, 0, year/100*100
	case "millennium":
		t, days, mon, year = 0, 0, 0, year/1000*1000
	default:
		return Datum{}, pgerr.Errorf(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type interval", unitText)
	}
	return IntervalDatum(IntervalValue{Months: year*12 + mon, Days: days, Micros: t}), nil
}

func age(a, b int64) (IntervalValue, error) {
	if isInfTS(a) || isInfTS(b) {
		return IntervalValue{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	return ageOrdered(a, b, a < b)
}

// ageOrdered is timestamp_age on two wall-clock timestamps: a symbolic
// difference in years, months and days, borrowing from the month lengths.
func ageOrdered(a, b int64, neg bool) (IntervalValue, error) {
	j1, t1 := splitTimestamp(a)
	j2, t2 := splitTimestamp(b)
	y1, m1, d1 := j2date(j1)
	y2, m2, d2 := j2date(j2)
	fsec := t1%usecsPerSec - t2%usecsPerSec
	sec := t1/usecsPerSec%60 - t2/usecsPerSec%60
	min := t1/(60*usecsPerSec)%60 - t2/(60*usecsPerSec)%60
	hour := t1/(3600*usecsPerSec) - t2/(3600*usecsPerSec)
	mday := int64(d1 - d2)
	mon := int64(m1 - m2)
	year := int64(y1 - y2)
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	for fsec < 0 {
		fsec += usecsPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		yy, mm := y2, m2
		if neg {
			yy, mm = y1, m1
		}
		leap := 0
		if isLeap(yy) {
			leap = 1
		}
		mday += int64(daysInMonth[leap][mm])
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	months := year*12 + mon
	if months > math.MaxInt32 || months < math.MinInt32 {
		return IntervalValue{}, intervalOverflow()
	}
	return IntervalValue{Months: int32(months), Days: int32(mday), Micros: ((hour*60+min)*60+sec)*usecsPerSec + fsec}, nil
}

// generate_series(timestamp[tz], timestamp[tz], interval): the step is
// added as by the + operator (timestamptz: months and days in the
// session's zone).
func init() {
	for _, t := range []Type{Timestamp, Timestamptz} {
		t := t
		gen := func(st *Settings, a []Datum) (func() (Datum, bool, error), error) {
			step := IntervalOf(a[2])
			if compareIntervals(step, IntervalValue{}) == 0 {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "step size cannot equal zero")
			}
			up := compareIntervals(step, IntervalValue{}) > 0
			cur, stop := a[0].Int(), a[1].Int()
			done := false
			return func() (Datum, bool, error) {
				if done || (up && cur > stop) || (!up && cur < stop) {
					done = true
					return Datum{}, false, nil
				}
				v := cur
				var next int64
				var err error
				if t.OID == TimestamptzOID {
					next, err = timestamptzPlusInterval(st, cur, step)
				} else {
					next, err = timestampPlusInterval(cur, step)
				}
				if err != nil {
					return Datum{}, false, err
				}
				cur = next
				return TimestampMicros(v), true, nil
			}, nil
		}
		srfs["generate_series"] = append(srfs["generate_series"], &SRF{Name: "generate_series", Args: []Type{t, t, Interval}, Ret: t,
			FnWith: gen, Fn: func(a []Datum) (func() (Datum, bool, error), error) { return gen(nil, a) }})
	}
}

// to_timestamp(double precision): seconds since 1970-01-01 00:00:00 UTC.
func init() {
	fn("to_timestamp", []Type{Float8}, Timestamptz, func(a []Datum) (Datum, error) {
		f := a[0].Float()
		switch {
		case math.IsNaN(f):
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
		case math.IsInf(f, 1):
			return TimestampMicros(TimestampInfinity), nil
		case math.IsInf(f, -1):
			return TimestampMicros(TimestampNegInfinity), nil
		}
		const unixToPG = float64(postgresEpochJDay-unixEpochJDay) * 86400
		us := math.RoundToEven((f - unixToPG) * 1e6)
		if us < float64(minTimestamp) || us >= float64(endTimestamp) {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(f, 'g', 6, 64))
		}
		return TimestampMicros(int64(us)), nil
	})
}
