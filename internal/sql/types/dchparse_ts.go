package types

import (
	"github.com/tidal-db/tidal/internal/pgerr"
)

// dchResult is do_to_timestamp's output: a wall-clock date and time, the
// UTC offset when the input gave one (TZH/TZM), and the FFn precision.
type dchResult struct {
	year, mon, mday, hour, min, sec, fsec int
	hasZone                               bool
	gmtoff                                int // seconds east of UTC
	fprec                                 int
}

func dchFieldOverflow(in string) error {
	return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", in)
}

// doToTimestamp combines the fields read from in by format.
func doToTimestamp(in, format string) (*dchResult, error) {
	t := &dchResult{mon: 1, mday: 1}
	if format == "" {
		return t, nil
	}
	f, err := parseDchInput(in, format)
	if err != nil {
		return nil, err
	}
	if f.ssss != 0 {
		t.hour, t.min, t.sec = f.ssss/3600, f.ssss%3600/60, f.ssss%60
	}
	if f.ss != 0 {
		t.sec = f.ss
	}
	if f.mi != 0 {
		t.min = f.mi
	}
	if f.hh != 0 {
		t.hour = f.hh
	}
	if f.clock12 {
		if t.hour < 1 || t.hour > 12 {
			e := dchFormatErr("hour \"%d\" is invalid for the 12-hour clock", t.hour)
			e.Hint = "Use the 24-hour clock, or give an hour between 1 and 12."
			return nil, e
		}
		if f.pm != 0 && t.hour < 12 {
			t.hour += 12
		} else if f.pm == 0 && t.hour == 12 {
			t.hour = 0
		}
	}
	haveYear, haveMonth, haveDay := false, false, false
	switch {
	case f.year != 0:
		if f.cc != 0 && f.yysz <= 2 {
			if f.bc != 0 {
				f.cc = -f.cc
			}
			t.year = f.year % 100
			switch {
			case t.year != 0 && f.cc >= 0:
				t.year += (f.cc - 1) * 100
			case t.year != 0:
				t.year = (f.cc+1)*100 - t.year + 1
			default:
				t.year = f.cc*100 + map[bool]int{true: 0, false: 1}[f.cc >= 0]
			}
		} else {
			t.year = f.year
			if f.bc != 0 {
				t.year = -t.year
			}
			if t.year < 0 {
				t.year++
			}
		}
		haveYear = true
	case f.cc != 0:
		if f.bc != 0 {
			f.cc = -f.cc
		}
		if f.cc >= 0 {
			t.year = (f.cc-1)*100 + 1
		} else {
			t.year = f.cc*100 + 1
		}
		haveYear = true
	}
	if f.j != 0 {
		t.year, t.mon, t.mday = j2date(f.j)
		haveYear, haveMonth, haveDay = true, true, true
	}
	if f.ww != 0 {
		if f.mode == 2 {
			jd := isoWeekToJ(t.year, f.ww)
			if f.d != 0 {
				jd += (f.d + 5) % 7 // d is 1..7 from Sunday; the ISO week starts on Monday
			}
			t.year, t.mon, t.mday = j2date(jd)
			haveYear, haveMonth, haveDay = true, true, true
		} else {
			f.ddd = (f.ww-1)*7 + 1
		}
	}
	if f.w != 0 {
		f.dd = (f.w-1)*7 + 1
	}
	if f.dd != 0 {
		t.mday, haveDay = f.dd, true
	}
	if f.mm != 0 {
		t.mon, haveMonth = f.mm, true
	}
	if f.ddd != 0 && (t.mon <= 1 || t.mday <= 1) {
		if t.year == 0 && f.bc == 0 {
			return nil, dchFormatErr("cannot calculate day of year without year information")
		}
		if f.mode == 2 {
			t.year, t.mon, t.mday = j2date(isoWeekToJ(t.year, 1) - 1 + f.ddd)
		} else {
			leap := 0
			if isLeap(t.year) {
				leap = 1
			}
			i, sum := 1, 0
			for ; i <= 12; i++ {
				if f.ddd <= sum+daysInMonth[leap][i] {
					break
				}
				sum += daysInMonth[leap][i]
			}
			if t.mon <= 1 {
				t.mon = min(i, 12)
			}
			if t.mday <= 1 {
				t.mday = f.ddd - sum
			}
		}
		haveMonth, haveDay = true, true
	}
	t.fsec = f.ms*1000 + f.us
	t.fprec = f.ff
	if haveMonth && (t.mon < 1 || t.mon > 12) || haveDay && (t.mday < 1 || t.mday > 31) {
		return nil, dchFieldOverflow(in)
	}
	if haveYear && haveMonth && haveDay {
		leap := 0
		if isLeap(t.year) {
			leap = 1
		}
		if t.mday > daysInMonth[leap][t.mon] {
			return nil, dchFieldOverflow(in)
		}
	}
	if t.hour < 0 || t.hour >= 24 || t.min < 0 || t.min >= 60 || t.sec < 0 || t.sec >= 60 ||
		t.fsec < 0 || int64(t.fsec) >= usecsPerSec {
		return nil, dchFieldOverflow(in)
	}
	if f.tzsign != 0 {
		if f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60 {
			return nil, pgerr.Errorf("22009", "time zone displacement out of range: \"%s\"", in)
		}
		t.hasZone = true
		t.gmtoff = (f.tzh*60 + f.tzm) * 60 * f.tzsign
	}
	return t, nil
}

// isoWeekToJ is isoweek2j: the Julian day of the Monday of ISO week wk.
func isoWeekToJ(year, wk int) int {
	day4 := date2j(year, 1, 4)
	day0 := j2day(day4 - 1)
	return (wk-1)*7 + (day4 - day0)
}

func (t *dchResult) localMicros() (int64, bool) {
	if t.year < -4713 || t.year > 294276 {
		return 0, false
	}
	jd := int64(date2j(t.year, t.mon, t.mday))
	us := ((int64(t.hour)*60+int64(t.min))*60+int64(t.sec))*usecsPerSec + int64(t.fsec)
	return (jd-int64(postgresEpochJDay))*usecsPerDay + us, true
}

func toTimestamp(st *Settings, in, format string) (Datum, error) {
	t, err := doToTimestamp(in, format)
	if err != nil {
		return Datum{}, err
	}
	local, ok := t.localMicros()
	if !ok {
		return Datum{}, tsOutOfRange()
	}
	var ts int64
	if t.hasZone {
		ts = local - int64(t.gmtoff)*usecsPerSec
	} else {
		ts = st.zone().ToUTC(local)
	}
	if !validTimestamp(ts) {
		return Datum{}, tsOutOfRange()
	}
	if t.fprec > 0 {
		ts = adjustTimestampTypmod(ts, int32(t.fprec))
	}
	return TimestampMicros(ts), nil
}

func toDate(in, format string) (Datum, error) {
	t, err := doToTimestamp(in, format)
	if err != nil {
		return Datum{}, err
	}
	days := int64(date2j(t.year, t.mon, t.mday) - postgresEpochJDay)
	if t.year < -4713 || t.year > 5874897 || !validDate(days) {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", in)
	}
	return DateDays(int32(days)), nil
}

func init() {
	fnWith("to_timestamp", []Type{Text, Text}, Timestamptz, func(st *Settings, a []Datum) (Datum, error) {
		return toTimestamp(st, a[0].Str(), a[1].Str())
	})
	fn("to_date", []Type{Text, Text}, Date, func(a []Datum) (Datum, error) { return toDate(a[0].Str(), a[1].Str()) })
}
