package types

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// IntervalValue is an interval as PostgreSQL keeps it: months, days and
// microseconds, each signed and independent (a day is not always 24 hours,
// a month not always 30 days).
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// IntervalDatum returns an interval datum (16 bytes: PostgreSQL's layout).
func IntervalDatum(iv IntervalValue) Datum {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(iv.Micros))
	binary.LittleEndian.PutUint32(b[8:], uint32(iv.Days))
	binary.LittleEndian.PutUint32(b[12:], uint32(iv.Months))
	return Str(string(b[:]))
}

// IntervalOf decodes an interval datum.
func IntervalOf(d Datum) IntervalValue {
	if len(d.Str()) < 16 {
		return IntervalValue{}
	}
	return IntervalValue{
		Micros: int64(le64(d.Str()[0:8])),
		Days:   int32(le32(d.Str()[8:12])),
		Months: int32(le32(d.Str()[12:16])),
	}
}

// intervalSpan is PostgreSQL's interval_cmp_value: the interval as a
// 128-bit count of microseconds with a month of 30 days and a day of 24
// hours (so '1 mon' = '30 days' and '1 day' = '24 hours').
func intervalSpan(iv IntervalValue) (hi int64, lo int64) {
	days := int64(iv.Months)*30 + int64(iv.Days)
	// days * usecsPerDay fits: |days| < 2^37, usecsPerDay < 2^37
	dayPart := days * usecsPerDay
	l := uint64(dayPart) + uint64(iv.Micros)
	h := (dayPart >> 63) + (iv.Micros >> 63)
	if l < uint64(dayPart) {
		h++
	}
	return h, int64(l)
}

func compareIntervals(a, b IntervalValue) int {
	ah, al := intervalSpan(a)
	bh, bl := intervalSpan(b)
	if ah != bh {
		return cmpInt(ah, bh)
	}
	if al == bl {
		return 0
	}
	if uint64(al) < uint64(bl) {
		return -1
	}
	return 1
}

var _ = bits.Add64

func intervalOverflow() error {
	return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
}

// interval field mask bits of the typmod (PostgreSQL's datetime.h).
const (
	ivMonth  = 1 << 1
	ivYear   = 1 << 2
	ivDay    = 1 << 3
	ivHour   = 1 << 10
	ivMinute = 1 << 11
	ivSecond = 1 << 12
)

func intervalTypmodString(typmod int32) string {
	mask := typmod >> 16 & 0x7FFF
	prec := typmod & 0xFFFF
	var s string
	switch mask {
	case ivYear:
		s = " year"
	case ivMonth:
		s = " month"
	case ivYear | ivMonth:
		s = " year to month"
	case ivDay:
		s = " day"
	case ivHour:
		s = " hour"
	case ivMinute:
		s = " minute"
	case ivSecond:
		s = " second"
	case ivDay | ivHour:
		s = " day to hour"
	case ivDay | ivHour | ivMinute:
		s = " day to minute"
	case ivDay | ivHour | ivMinute | ivSecond:
		s = " day to second"
	case ivHour | ivMinute:
		s = " hour to minute"
	case ivHour | ivMinute | ivSecond:
		s = " hour to second"
	case ivMinute | ivSecond:
		s = " minute to second"
	}
	if prec != intervalFullPrec {
		s += "(" + strconv.Itoa(int(prec)) + ")"
	}
	return s
}

// adjustIntervalTypmod is AdjustIntervalForTypmod: drop the fields below
// the typmod's range and round seconds to its precision.
func adjustIntervalTypmod(iv IntervalValue, typmod int32) (IntervalValue, error) {
	if typmod < 0 {
		return iv, nil
	}
	mask := typmod >> 16 & 0x7FFF
	prec := typmod & 0xFFFF
	switch mask {
	case ivYear:
		iv.Months = iv.Months / 12 * 12
		iv.Days, iv.Micros = 0, 0
	case ivMonth, ivYear | ivMonth:
		iv.Days, iv.Micros = 0, 0
	case ivDay:
		iv.Micros = 0
	case ivHour, ivDay | ivHour:
		iv.Micros = iv.Micros / (3600 * usecsPerSec) * (3600 * usecsPerSec)
	case ivMinute, ivHour | ivMinute, ivDay | ivHour | ivMinute:
		iv.Micros = iv.Micros / (60 * usecsPerSec) * (60 * usecsPerSec)
	}
	if prec != intervalFullPrec && prec < 6 {
		scale := tsScales[prec]
		off := scale / 2
		if iv.Micros >= 0 {
			iv.Micros = (iv.Micros + off) / scale * scale
		} else {
			iv.Micros = -((-iv.Micros + off) / scale * scale)
		}
	}
	return iv, nil
}

// intervalAcc accumulates DecodeInterval's fields.
type intervalAcc struct {
	years, months, days, hours, mins, secs int64
	fsec                                   float64 // microseconds
}

func (a *intervalAcc) fractSeconds(frac float64, scale float64) {
	if frac == 0 {
		return
	}
	sec := frac * scale
	isec := math.Trunc(sec)
	a.secs += int64(isec)
	a.fsec += math.RoundToEven((sec - isec) * 1e6)
}

func (a *intervalAcc) fractDays(frac float64, scale float64) {
	if frac == 0 {
		return
	}
	extra := frac * scale
	ed := math.Trunc(extra)
	a.days += int64(ed)
	a.fractSeconds(extra-ed, 86400)
}

// addUnit adds value (integer part ival, fractional part frac, same sign)
// in unit.
func (a *intervalAcc) addUnit(unit string, ival int64, frac float64) bool {
	switch unit {
	case "microsecond", "microseconds", "us", "usec", "usecs", "useconds":
		a.fsec += math.RoundToEven(float64(ival) + frac)
	case "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds", "millisecon":
		a.secs += ival / 1000
		a.fsec += math.RoundToEven((float64(ival%1000) + frac) * 1000)
	case "second", "seconds", "s", "sec", "secs":
		a.secs += ival
		a.fsec += math.RoundToEven(frac * 1e6)
	case "minute", "minutes", "m", "min", "mins":
		a.mins += ival
		a.fractSeconds(frac, 60)
	case "hour", "hours", "h", "hr", "hrs":
		a.hours += ival
		a.fractSeconds(frac, 3600)
	case "day", "days", "d":
		a.days += ival
		a.fractSeconds(frac, 86400)
	case "week", "weeks", "w":
		a.days += ival * 7
		a.fractDays(frac, 7)
	case "month", "months", "mon", "mons":
		a.months += ival
		a.fractDays(frac, 30)
	case "year", "years", "y", "yr", "yrs":
		a.years += ival
		a.months += int64(math.RoundToEven(frac * 12))
	case "decade", "decades", "dec", "decs":
		a.years += ival * 10
		a.months += int64(math.RoundToEven(frac * 120))
	case "century", "centuries", "c", "cent":
		a.years += ival * 100
		a.months += int64(math.RoundToEven(frac * 1200))
	case "millennium", "millennia", "mil", "mils":
		a.years += ival * 1000
		a.months += int64(math.RoundToEven(frac * 12000))
	default:
		return false
	}
	return true
}

func (a *intervalAcc) value() (IntervalValue, bool) {
	months := a.years*12 + a.months
	// in float64 first: the integer fields may be large enough to overflow
	fmicros := ((float64(a.hours)*60+float64(a.mins))*60+float64(a.secs))*1e6 + a.fsec
	if fmicros >= 9.2233720368547758e18 || fmicros < -9.2233720368547758e18 || a.years > math.MaxInt32 || a.years < math.MinInt32 {
		return IntervalValue{}, false
	}
	micros := float64(((a.hours*60+a.mins)*60+a.secs))*1e6 + a.fsec
	if months > math.MaxInt32 || months < math.MinInt32 || a.days > math.MaxInt32 || a.days < math.MinInt32 ||
		micros >= 9.2233720368547758e18 || micros < -9.2233720368547758e18 {
		return IntervalValue{}, false
	}
	return IntervalValue{Months: int32(months), Days: int32(a.days), Micros: int64(micros)}, true
}

// splitNumber parses a signed decimal number into integer and fraction.
func splitNumber(s string) (int64, float64, bool) {
	if s == "" {
		return 0, 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(s, "eEinIN_xX") {
		return 0, 0, false
	}
	ip := math.Trunc(f)
	if math.Abs(ip) > 9e18 {
		return 0, 0, false
	}
	return int64(ip), f - ip, true
}

// parseInterval is interval_in for the postgres, SQL-standard-like and ISO
// 8601 input forms.
func parseInterval(orig string, typmod int32) (Datum, error) {
	bad := func() (Datum, error) {
		return Datum{}, pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", orig)
	}
	s := strings.TrimSpace(orig)
	if s == "" {
		return bad()
	}
	var acc intervalAcc
	var ok bool
	if s[0] == 'P' || s[0] == 'p' {
		if !parseISOInterval(s[1:], &acc) {
			return bad()
		}
	} else {
		var e error
		ok, e = parsePostgresInterval(s, typmod, &acc)
		if e != nil {
			return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval field value out of range: \"%s\"", orig)
		}
		if !ok {
			return bad()
		}
	}
	iv, fits := acc.value()
	if !fits {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	iv, err := adjustIntervalTypmod(iv, typmod)
	if err != nil {
		return Datum{}, err
	}
	return IntervalDatum(iv), nil
}

var errIntervalField = pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval field value out of range")

func parsePostgresInterval(s string, typmod int32, acc *intervalAcc) (bool, error) {
	s = strings.TrimPrefix(s, "@")
	fields := strings.Fields(strings.ToLower(s))
	ago := false
	if n := len(fields); n > 0 && fields[n-1] == "ago" {
		ago = true
		fields = fields[:n-1]
	}
	if len(fields) == 0 {
		return false, nil
	}
	// the unit a bare number takes: seconds unless the typmod says otherwise
	bareUnit := "second"
	if typmod >= 0 {
		switch mask := typmod >> 16 & 0x7FFF; {
		case mask == ivYear:
			bareUnit = "year"
		case mask == ivMonth || mask == ivYear|ivMonth:
			bareUnit = "month"
		case mask == ivDay:
			bareUnit = "day"
		case mask == ivHour || mask == ivDay|ivHour:
			bareUnit = "hour"
		case mask == ivMinute || mask&ivSecond == 0 && mask&ivMinute != 0:
			bareUnit = "minute"
		}
	}
	sawUnit := false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.ContainsRune(f, ':'):
			if !parseIntervalTime(f, acc) {
				return false, nil
			}
		case isIntervalYM(f):
			neg := f[0] == '-'
			t := strings.TrimLeft(f, "+-")
			y, m, _ := strings.Cut(t, "-")
			yv, err1 := strconv.ParseInt(y, 10, 64)
			mv, err2 := strconv.ParseInt(m, 10, 64)
			if err1 != nil || err2 != nil || mv > 11 {
				return false, nil
			}
			if neg {
				yv, mv = -yv, -mv
			}
			acc.years += yv
			acc.months += mv
		default:
			// number, optionally with the unit glued on ("1day")
			j := 0
			for j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == '.' || f[j] == '-' || f[j] == '+') {
				j++
			}
			numStr, unit := f[:j], f[j:]
			if numStr == "" {
				// a unit word without a number is an error, except a
				// redundant unit already consumed
				return false, nil
			}
			ival, frac, ok := splitNumber(numStr)
			if !ok {
				return false, nil
			}
			if unit == "" && i+1 < len(fields) && !startsNumeric(fields[i+1]) {
				i++
				unit = fields[i]
			}
			if unit == "" {
				unit = bareUnit
			} else {
				sawUnit = true
			}
			if !acc.addUnit(unit, ival, frac) {
				return false, nil
			}
		}
	}
	_ = sawUnit
	if ago {
		acc.years, acc.months, acc.days = -acc.years, -acc.months, -acc.days
		acc.hours, acc.mins, acc.secs, acc.fsec = -acc.hours, -acc.mins, -acc.secs, -acc.fsec
	}
	return true, nil
}

func startsNumeric(f string) bool {
	return f != "" && (f[0] >= '0' && f[0] <= '9' || f[0] == '-' || f[0] == '+' || f[0] == '.')
}

func isIntervalYM(f string) bool {
	t := strings.TrimLeft(f, "+-")
	i := strings.IndexByte(t, '-')
	if i <= 0 || i == len(t)-1 {
		return false
	}
	for j := 0; j < len(t); j++ {
		if j != i && (t[j] < '0' || t[j] > '9') {
			return false
		}
	}
	return true
}

// parseIntervalTime reads [+-]h:mm[:ss[.frac]] (or mm:ss.frac) into acc.
func parseIntervalTime(f string, acc *intervalAcc) bool {
	neg := false
	if f[0] == '-' || f[0] == '+' {
		neg = f[0] == '-'
		f = f[1:]
	}
	parts := strings.Split(f, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	var h, m int64
	var sec float64
	var err error
	if h, err = strconv.ParseInt(parts[0], 10, 64); err != nil {
		return false
	}
	last := parts[len(parts)-1]
	if len(parts) == 3 {
		if m, err = strconv.ParseInt(parts[1], 10, 64); err != nil || m > 59 {
			return false
		}
		if sec, err = strconv.ParseFloat(last, 64); err != nil || sec >= 60 || strings.ContainsAny(last, "eE+-") {
			return false
		}
	} else if strings.Contains(last, ".") {
		// mm:ss.frac
		m = h
		h = 0
		if sec, err = strconv.ParseFloat(last, 64); err != nil || sec >= 60 {
			return false
		}
	} else {
		if m, err = strconv.ParseInt(last, 10, 64); err != nil || m > 59 {
			return false
		}
	}
	isec := math.Trunc(sec)
	fs := math.RoundToEven((sec - isec) * 1e6)
	if neg {
		h, m, isec, fs = -h, -m, -isec, -fs
	}
	acc.hours += h
	acc.mins += m
	acc.secs += int64(isec)
	acc.fsec += fs
	return true
}

// parseISOInterval reads the part after P of an ISO 8601 duration
// (PnYnMnWnDTnHnMnS, fractions allowed).
func parseISOInterval(s string, acc *intervalAcc) bool {
	if s == "" {
		return false
	}
	inTime := false
	for len(s) > 0 {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return false
			}
			inTime = true
			s = s[1:]
			continue
		}
		j := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == '-' || s[j] == '+') {
			j++
		}
		if j == 0 || j >= len(s) {
			return false
		}
		ival, frac, ok := splitNumber(s[:j])
		if !ok {
			return false
		}
		var unit string
		switch c := s[j] | 0x20; {
		case c == 'y' && !inTime:
			unit = "year"
		case c == 'm' && !inTime:
			unit = "month"
		case c == 'w' && !inTime:
			unit = "week"
		case c == 'd' && !inTime:
			unit = "day"
		case c == 'h' && inTime:
			unit = "hour"
		case c == 'm' && inTime:
			unit = "minute"
		case c == 's' && inTime:
			unit = "second"
		default:
			return false
		}
		acc.addUnit(unit, ival, frac)
		s = s[j+1:]
	}
	return true
}

// appendInterval is interval_out with IntervalStyle postgres.
func appendInterval(dst []byte, iv IntervalValue) []byte {
	years := iv.Months / 12
	mons := iv.Months % 12
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if isBefore && v > 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isBefore = v < 0
		isZero = false
	}
	part(int64(years), "year")
	part(int64(mons), "mon")
	part(int64(iv.Days), "day")
	if isZero || iv.Micros != 0 {
		t := iv.Micros
		minus := t < 0
		var ut uint64
		if minus {
			ut = uint64(-t)
		} else {
			ut = uint64(t)
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if minus {
			dst = append(dst, '-')
		} else if isBefore {
			dst = append(dst, '+')
		}
		hours := ut / uint64(3600*usecsPerSec)
		rest := ut % uint64(3600*usecsPerSec)
		if hours < 10 {
			dst = append(dst, '0')
		}
		dst = strconv.AppendUint(dst, hours, 10)
		dst = append(dst, ':')
		dst = append2(dst, int(rest/uint64(60*usecsPerSec)))
		dst = append(dst, ':')
		rest %= uint64(60 * usecsPerSec)
		dst = append2(dst, int(rest/uint64(usecsPerSec)))
		dst = appendFraction(dst, int64(rest%uint64(usecsPerSec)))
	}
	return dst
}

// appendFraction appends .ffffff without trailing zeros (nothing for 0).
func appendFraction(dst []byte, frac int64) []byte {
	if frac == 0 {
		return dst
	}
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
	return append(dst, b[:n]...)
}

// Interval arithmetic (PostgreSQL's interval_pl, interval_mi, interval_um,
// interval_mul, interval_div, interval_justify_*).

func addInt32(a, b int32) (int32, bool) {
	r := int64(a) + int64(b)
	return int32(r), r >= math.MinInt32 && r <= math.MaxInt32
}

func intervalAdd(a, b IntervalValue) (IntervalValue, error) {
	m, ok1 := addInt32(a.Months, b.Months)
	d, ok2 := addInt32(a.Days, b.Days)
	t := a.Micros + b.Micros
	ok3 := !((a.Micros^t)&(b.Micros^t) < 0)
	if !ok1 || !ok2 || !ok3 {
		return IntervalValue{}, intervalOverflow()
	}
	return IntervalValue{m, d, t}, nil
}

func intervalNeg(a IntervalValue) (IntervalValue, error) {
	if a.Months == math.MinInt32 || a.Days == math.MinInt32 || a.Micros == math.MinInt64 {
		return IntervalValue{}, intervalOverflow()
	}
	return IntervalValue{-a.Months, -a.Days, -a.Micros}, nil
}

func intervalSub(a, b IntervalValue) (IntervalValue, error) {
	m := int64(a.Months) - int64(b.Months)
	d := int64(a.Days) - int64(b.Days)
	t := a.Micros - b.Micros
	if m < math.MinInt32 || m > math.MaxInt32 || d < math.MinInt32 || d > math.MaxInt32 || (a.Micros^b.Micros)&(a.Micros^t) < 0 {
		return IntervalValue{}, intervalOverflow()
	}
	return IntervalValue{int32(m), int32(d), t}, nil
}

func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

func intervalMul(span IntervalValue, factor float64) (IntervalValue, error) {
	var r IntervalValue
	md := float64(span.Months) * factor
	if math.IsNaN(md) || md > math.MaxInt32 || md < math.MinInt32 {
		return r, intervalOverflow()
	}
	r.Months = int32(md)
	dd := float64(span.Days) * factor
	if math.IsNaN(dd) || dd > math.MaxInt32 || dd < math.MinInt32 {
		return r, intervalOverflow()
	}
	r.Days = int32(dd)
	monthRemDays := tsRound((float64(span.Months)*factor - float64(r.Months)) * 30)
	secRem := tsRound((float64(span.Days)*factor - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	r.Days += int32(monthRemDays)
	td := math.RoundToEven(float64(span.Micros)*factor + secRem*1e6)
	if math.IsNaN(td) || td >= 9.2233720368547758e18 || td < -9.2233720368547758e18 {
		return r, intervalOverflow()
	}
	r.Micros = int64(td)
	return r, nil
}

func intervalDiv(span IntervalValue, factor float64) (IntervalValue, error) {
	if factor == 0 {
		return IntervalValue{}, divZero()
	}
	var r IntervalValue
	md := float64(span.Months) / factor
	dd := float64(span.Days) / factor
	if math.IsNaN(md) || md > math.MaxInt32 || md < math.MinInt32 || math.IsNaN(dd) || dd > math.MaxInt32 || dd < math.MinInt32 {
		return r, intervalOverflow()
	}
	r.Months = int32(md)
	r.Days = int32(dd)
	monthRemDays := tsRound((float64(span.Months)/factor - float64(r.Months)) * 30)
	secRem := tsRound((float64(span.Days)/factor - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	r.Days += int32(monthRemDays)
	td := math.RoundToEven(float64(span.Micros)/factor + secRem*1e6)
	if math.IsNaN(td) || td >= 9.2233720368547758e18 || td < -9.2233720368547758e18 {
		return r, intervalOverflow()
	}
	r.Micros = int64(td)
	return r, nil
}

func justifyHours(iv IntervalValue) (IntervalValue, error) {
	whole := iv.Micros / usecsPerDay
	iv.Micros -= whole * usecsPerDay
	d := int64(iv.Days) + whole
	if d > math.MaxInt32 || d < math.MinInt32 {
		return iv, intervalOverflow()
	}
	iv.Days = int32(d)
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usecsPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usecsPerDay
		iv.Days++
	}
	return iv, nil
}

func justifyDays(iv IntervalValue) (IntervalValue, error) {
	whole := iv.Days / 30
	iv.Days -= whole * 30
	m := int64(iv.Months) + int64(whole)
	if m > math.MaxInt32 || m < math.MinInt32 {
		return iv, intervalOverflow()
	}
	iv.Months = int32(m)
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= 30
		iv.Months++
	}
	return iv, nil
}

func justifyInterval(iv IntervalValue) (IntervalValue, error) {
	whole := iv.Micros / usecsPerDay
	iv.Micros -= whole * usecsPerDay
	d := int64(iv.Days) + whole
	wm := d / 30
	d -= wm * 30
	m := int64(iv.Months) + wm
	if m > math.MaxInt32 || m < math.MinInt32 {
		return iv, intervalOverflow()
	}
	iv.Months, iv.Days = int32(m), int32(d)
	if iv.Months > 0 && (iv.Days < 0 || (iv.Days == 0 && iv.Micros < 0)) {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && (iv.Days > 0 || (iv.Days == 0 && iv.Micros > 0)) {
		iv.Days -= 30
		iv.Months++
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usecsPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usecsPerDay
		iv.Days++
	}
	return iv, nil
}

// IntervalSum is interval + interval (interval_pl), for sum(interval).
func IntervalSum(a, b Datum) (Datum, error) {
	return ivRes(intervalAdd(IntervalOf(a), IntervalOf(b)))
}

// IntervalDivide is interval / float8 (interval_div), for avg(interval).
func IntervalDivide(a Datum, f float64) (Datum, error) {
	return ivRes(intervalDiv(IntervalOf(a), f))
}
