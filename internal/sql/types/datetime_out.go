package types

import (
	"strings"
	"time"
)

// Date/time output in the session's DateStyle, as PostgreSQL's
// EncodeDateOnly and EncodeDateTime:
//
//	ISO       1997-12-17 07:37:16-08
//	SQL       12/17/1997 07:37:16.00 PST   (17/12/1997 with DMY)
//	Postgres  Wed Dec 17 07:37:16 1997 PST (Wed 17 Dec … with DMY)
//	German    17.12.1997 07:37:16.00 PST
//
// BC years get " BC" at the end in every style; years print with at least
// four digits. Time of day (time) prints the same in every style.

var monthAbbrevs = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayAbbrevs = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// appendYear appends a year as PostgreSQL prints it: 1 BC is year 0
// internally, shown as 0001 with " BC" appended by the caller.
func appendYear(dst []byte, y int) []byte {
	if y <= 0 {
		y = -y + 1
	}
	if y < 10000 {
		return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	return appendInt(dst, int64(y))
}

// appendDayMonth appends the day and month in the order DateOrder asks
// for (DMY puts the day first; MDY and YMD the month), with sep between.
func appendDayMonth(dst []byte, order DateOrder, m, d int, sep byte) []byte {
	if order == DateOrderDMY {
		dst = append2(dst, d)
		dst = append(dst, sep)
		return append2(dst, m)
	}
	dst = append2(dst, m)
	dst = append(dst, sep)
	return append2(dst, d)
}

// appendDateStyled is date_out.
func appendDateStyled(st *Settings, dst []byte, days int32) []byte {
	switch days {
	case DateInfinity:
		return append(dst, "infinity"...)
	case DateNegInfinity:
		return append(dst, "-infinity"...)
	}
	y, m, d := j2date(int(days) + postgresEpochJDay)
	switch st.dateStyle() {
	case DateStyleSQL:
		dst = appendDayMonth(dst, st.dateOrder(), m, d, '/')
		dst = appendYear(append(dst, '/'), y)
	case DateStyleGerman:
		dst = appendDayMonth(dst, DateOrderDMY, m, d, '.')
		dst = appendYear(append(dst, '.'), y)
	case DateStylePostgres:
		dst = appendDayMonth(dst, st.dateOrder(), m, d, '-')
		dst = appendYear(append(dst, '-'), y)
	default:
		return appendYMD(dst, y, m, d)
	}
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendTimestampStyled is timestamp_out (z nil) and timestamptz_out (the
// wall clock in z, then z's offset or abbreviation at that instant).
func appendTimestampStyled(st *Settings, dst []byte, ts int64, z *Zone) []byte {
	style := st.dateStyle()
	if style == DateStyleISO || ts == TimestampInfinity || ts == TimestampNegInfinity {
		return appendTimestampIn(dst, ts, z)
	}
	off := 0
	if z != nil {
		off = z.OffsetAt(ts)
		ts += int64(off) * usecsPerSec
	}
	jd, t := splitTimestamp(ts)
	y, m, d := j2date(jd)
	order := st.dateOrder()
	switch style {
	case DateStyleSQL, DateStyleGerman:
		sep := byte('/')
		if style == DateStyleGerman {
			sep, order = '.', DateOrderDMY
		}
		dst = appendDayMonth(dst, order, m, d, sep)
		dst = appendYear(append(dst, sep), y)
		dst = appendTimeOfDay(append(dst, ' '), t)
		if z != nil {
			dst = appendZoneName(append(dst, ' '), z, ts-int64(off)*usecsPerSec, off)
		}
	case DateStylePostgres:
		dst = append(dst, dayAbbrevs[(jd+1)%7]...)
		dst = append(dst, ' ')
		if order == DateOrderDMY {
			dst = append2(dst, d)
			dst = append(dst, ' ')
			dst = append(dst, monthAbbrevs[m-1]...)
		} else {
			dst = append(dst, monthAbbrevs[m-1]...)
			dst = append(dst, ' ')
			dst = append2(dst, d)
		}
		dst = appendTimeOfDay(append(dst, ' '), t)
		dst = appendYear(append(dst, ' '), y)
		if z != nil {
			dst = appendZoneName(append(dst, ' '), z, ts-int64(off)*usecsPerSec, off)
		}
	}
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendZoneName appends the zone's abbreviation at the UTC instant (PST,
// CEST, +03 as the tz database names it), or the numeric offset when the
// zone has none.
func appendZoneName(dst []byte, z *Zone, utc int64, off int) []byte {
	if abbrev, ok := z.abbrevAt(utc); ok {
		return append(dst, abbrev...)
	}
	return appendZoneOffset(dst, off)
}

// abbrevAt is the zone's abbreviation in force at a UTC instant. A fixed
// offset written as a POSIX string takes its name part ("UTC+3" is UTC,
// "<+02>-02" is +02; a bare "+02:00" has an empty one), as PostgreSQL's
// tz library.
func (z *Zone) abbrevAt(utc int64) (string, bool) {
	if z.loc != nil {
		sec := floorDiv(utc, usecsPerSec) + 946684800
		name, _ := time.Unix(sec, 0).In(z.loc).Zone()
		return name, true
	}
	n := z.Name
	if strings.HasPrefix(n, "<") {
		if e := strings.IndexByte(n, '>'); e > 0 {
			return n[1:e], true
		}
	}
	i := 0
	for i < len(n) && isAlpha(n[i]) {
		i++
	}
	return n[:i], true
}

// intervalFields is an interval split as PostgreSQL's interval2itm does:
// every part truncated toward zero, so all time parts share the sign of
// the microseconds.
type intervalFields struct {
	year, mon, mday int64
	hour, min, sec  int64
	fsec            int64
}

func splitInterval(iv IntervalValue) intervalFields {
	t := iv.Micros
	return intervalFields{
		year: int64(iv.Months / 12), mon: int64(iv.Months % 12), mday: int64(iv.Days),
		hour: t / (3600 * usecsPerSec), min: t / (60 * usecsPerSec) % 60, sec: t / usecsPerSec % 60,
		fsec: t % usecsPerSec,
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendSeconds appends |sec|.|fsec| with the fraction's trailing zeros
// cut; pad2 pads the whole seconds to two digits.
func appendSeconds(dst []byte, sec, fsec int64, pad2 bool) []byte {
	s := abs64(sec)
	if pad2 && s < 10 {
		dst = append(dst, '0')
	}
	dst = appendInt(dst, s)
	return appendFraction(dst, abs64(fsec))
}

// appendIntervalStyled is interval_out in the session's IntervalStyle.
func appendIntervalStyled(st *Settings, dst []byte, iv IntervalValue) []byte {
	switch st.intervalStyle() {
	case IntervalStyleSQLStandard:
		return appendIntervalSQL(dst, splitInterval(iv))
	case IntervalStyleISO8601:
		return appendIntervalISO(dst, splitInterval(iv))
	case IntervalStylePostgresVerbose:
		return appendIntervalVerbose(dst, splitInterval(iv))
	}
	return appendInterval(dst, iv)
}

// appendIntervalSQL is IntervalStyle sql_standard: "1-2", "3 4:05:06",
// "-1-2"; a value mixing signs or year-month with day-time parts gets
// every sign written ("+1-2 -3 +4:05:06").
func appendIntervalSQL(dst []byte, f intervalFields) []byte {
	neg := f.year < 0 || f.mon < 0 || f.mday < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0
	pos := f.year > 0 || f.mon > 0 || f.mday > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.fsec > 0
	hasYM := f.year != 0 || f.mon != 0
	hasDT := f.mday != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0
	standard := !(neg && pos) && !(hasYM && hasDT)
	switch {
	case !neg && !pos:
		return append(dst, '0')
	case !standard:
		sign := func(neg bool) byte {
			if neg {
				return '-'
			}
			return '+'
		}
		dst = append(dst, sign(f.year < 0 || f.mon < 0))
		dst = appendInt(dst, abs64(f.year))
		dst = append(dst, '-')
		dst = appendInt(dst, abs64(f.mon))
		dst = append(dst, ' ', sign(f.mday < 0))
		dst = appendInt(dst, abs64(f.mday))
		dst = append(dst, ' ', sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0))
		return appendHMS(dst, abs64(f.hour), f.min, f.sec, f.fsec, false)
	}
	if neg {
		dst = append(dst, '-')
	}
	switch {
	case hasYM:
		dst = appendInt(dst, abs64(f.year))
		dst = append(dst, '-')
		return appendInt(dst, abs64(f.mon))
	case f.mday != 0:
		dst = appendInt(dst, abs64(f.mday))
		dst = append(dst, ' ')
	}
	return appendHMS(dst, abs64(f.hour), f.min, f.sec, f.fsec, false)
}

// appendHMS appends h:mm:ss[.ffffff] from absolute parts; pad2 pads the
// hours to two digits.
func appendHMS(dst []byte, hour, min, sec, fsec int64, pad2 bool) []byte {
	if pad2 && hour < 10 {
		dst = append(dst, '0')
	}
	dst = appendInt(dst, hour)
	dst = append(dst, ':')
	dst = append2(dst, int(abs64(min)))
	dst = append(dst, ':')
	return appendSeconds(dst, sec, fsec, true)
}

// appendIntervalISO is IntervalStyle iso_8601: P1Y2M3DT4H5M6.5S, PT0S
// for zero.
func appendIntervalISO(dst []byte, f intervalFields) []byte {
	if f == (intervalFields{}) {
		return append(dst, "PT0S"...)
	}
	part := func(v int64, unit byte) {
		if v != 0 {
			dst = appendInt(dst, v)
			dst = append(dst, unit)
		}
	}
	dst = append(dst, 'P')
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.mday, 'D')
	if f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0 {
		dst = append(dst, 'T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.fsec != 0 {
		if f.sec < 0 || f.fsec < 0 {
			dst = append(dst, '-')
		}
		dst = appendSeconds(dst, f.sec, f.fsec, false)
		dst = append(dst, 'S')
	}
	return dst
}

// appendIntervalVerbose is IntervalStyle postgres_verbose: "@ 1 year 2
// mons 3 days 4 hours 5 mins 6 secs", a negative value written with the
// first part's sign flipped and " ago".
func appendIntervalVerbose(dst []byte, f intervalFields) []byte {
	dst = append(dst, '@')
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			v = abs64(v)
		} else if isBefore {
			v = -v
		}
		dst = append(dst, ' ')
		dst = appendInt(dst, v)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.mday, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.fsec != 0 {
		dst = append(dst, ' ')
		if f.sec < 0 || (f.sec == 0 && f.fsec < 0) {
			if isZero {
				isBefore = true
			} else if !isBefore {
				dst = append(dst, '-')
			}
		} else if isBefore {
			dst = append(dst, '-')
		}
		dst = appendSeconds(dst, f.sec, f.fsec, false)
		dst = append(dst, " sec"...)
		if abs64(f.sec) != 1 || f.fsec != 0 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	if isZero {
		dst = append(dst, " 0"...)
	}
	if isBefore {
		dst = append(dst, " ago"...)
	}
	return dst
}
