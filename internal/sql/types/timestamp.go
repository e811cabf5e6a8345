package types

import (
	"time"
)

const (
	usecsPerDay       int64 = 86400000000
	usecsPerSec       int64 = 1000000
	postgresEpochJDay       = 2451545 // date2j(2000, 1, 1)
	unixEpochJDay           = 2440588 // date2j(1970, 1, 1)
	// Valid timestamp range, as PostgreSQL's MIN_TIMESTAMP / END_TIMESTAMP.
	minTimestamp int64 = -211813488000000000
	endTimestamp int64 = 9223371331200000000
)

// date2j is PostgreSQL's date2j: Julian day number of a (proleptic
// Gregorian) date; year 0 is 1 BC.
func date2j(y, m, d int) int {
	if m > 2 {
		m++
		y += 4800
	} else {
		m += 13
		y += 4799
	}
	century := y / 100
	julian := y*365 - 32167
	julian += y/4 - century + century/4
	julian += 7834*m/256 + d
	return julian
}

// j2date is PostgreSQL's j2date.
func j2date(jd int) (year, month, day int) {
	julian := uint32(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int(quad * 4)
	year = y - 4800
	q := julian * 2141 / 65536
	day = int(julian - 7834*q/256)
	month = int((q+10)%12 + 1)
	return
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var daysInMonth = [2][13]int{
	{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

// TimestampFromTime converts a Go time to timestamp microseconds (the wall
// clock reading of t in its location; use t.UTC() for UTC).
func TimestampFromTime(t time.Time) int64 {
	y, m, d := t.Date()
	days := int64(date2j(y, int(m), d) - postgresEpochJDay)
	return days*usecsPerDay + int64(t.Hour())*3600*usecsPerSec + int64(t.Minute())*60*usecsPerSec +
		int64(t.Second())*usecsPerSec + int64(t.Nanosecond()/1000)
}

// TimeFromTimestamp converts timestamp microseconds to a UTC Go time.
func TimeFromTimestamp(us int64) time.Time {
	// 946684800 = seconds from 1970-01-01 to 2000-01-01.
	sec := us / usecsPerSec
	rem := us % usecsPerSec
	if rem < 0 {
		rem += usecsPerSec
		sec--
	}
	return time.Unix(sec+946684800, rem*1000).UTC()
}

// NowMicros returns the current wall clock time as timestamp microseconds
// (UTC). The executor should take the transaction start time from here.
func NowMicros() int64 { return TimestampFromTime(time.Now().UTC()) }

func splitTimestamp(ts int64) (jd int, usec int64) {
	date := ts / usecsPerDay
	t := ts - date*usecsPerDay
	if t < 0 {
		t += usecsPerDay
		date--
	}
	return int(date) + postgresEpochJDay, t
}

func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

func appendTimestamp(dst []byte, ts int64, tz bool) []byte {
	if tz {
		return appendTimestampIn(dst, ts, utcZone)
	}
	return appendTimestampIn(dst, ts, nil)
}

// appendTimestampIn is timestamp_out (zone nil) or timestamptz_out in zone
// z: the wall clock in z followed by z's UTC offset at that instant.
func appendTimestampIn(dst []byte, ts int64, z *Zone) []byte {
	if ts == TimestampInfinity {
		return append(dst, "infinity"...)
	}
	if ts == TimestampNegInfinity {
		return append(dst, "-infinity"...)
	}
	off := 0
	if z != nil {
		off = z.OffsetAt(ts)
		ts += int64(off) * usecsPerSec
	}
	jd, t := splitTimestamp(ts)
	y, m, d := j2date(jd)
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
	dst = append(dst, ' ')
	sec := t / usecsPerSec
	frac := t % usecsPerSec
	dst = append2(dst, int(sec/3600))
	dst = append(dst, ':')
	dst = append2(dst, int(sec/60%60))
	dst = append(dst, ':')
	dst = append2(dst, int(sec%60))
	if frac != 0 {
		var b [7]byte
		b[0] = '.'
		for i := 6; i >= 1; i-- {
			b[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := 7
		for b[n-1] == '0' {
			n--
		}
		dst = append(dst, b[:n]...)
	}
	if z != nil {
		dst = appendZoneOffset(dst, off)
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// num reads up to max decimal digits at p; returns value, new position and
// digit count.
func num(s string, p, max int) (int, int, int) {
	v, n := 0, 0
	for p < len(s) && n < max && s[p] >= '0' && s[p] <= '9' {
		v = v*10 + int(s[p]-'0')
		p++
		n++
	}
	return v, p, n
}

var tsScales = [7]int64{1000000, 100000, 10000, 1000, 100, 10, 1}

// adjustTimestampTypmod rounds ts to typmod fractional digits as
// PostgreSQL's AdjustTimestampForTypmod.
func adjustTimestampTypmod(ts int64, typmod int32) int64 {
	if typmod < 0 || typmod >= 6 || ts == TimestampInfinity || ts == TimestampNegInfinity {
		return ts
	}
	scale := tsScales[typmod]
	off := scale / 2
	if ts >= 0 {
		return (ts + off) / scale * scale
	}
	return -((-ts + off) / scale * scale)
}
