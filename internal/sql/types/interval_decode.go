package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Interval input as PostgreSQL's interval_in: the text is cut into fields
// by the date/time tokenizer and read from right to left, so that a unit
// word is known before the number it follows ("3 days"); a number without
// a unit takes the one the typmod's range or the field to its right
// implies ('1 2:03' is a day and a time). Then the SQL-standard forms
// ('1-2' years-months, '-1 2:03:04' which IntervalStyle sql_standard
// reads as all negative) and, when that fails as a format, ISO 8601
// ('P1Y2M3DT4H5M6S', 'P0001-02-03T04:05:06').

// ivAcc accumulates an interval as PostgreSQL's pg_itm_in, each part
// checked for overflow as it is added.
type ivAcc struct {
	years, months, days int32
	usec                int64
}

func (a *ivAcc) addFractMicros(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	return addInt64(&a.usec, usec)
}

func (a *ivAcc) addFractDays(frac float64, scale int) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int(frac)
	if !addInt32p(&a.days, int64(extra)) {
		return false
	}
	return a.addFractMicros(frac-float64(extra), usecsPerDay)
}

func (a *ivAcc) addFractYears(frac float64, scale int) bool {
	return addInt32p(&a.months, int64(math.RoundToEven(frac*float64(scale)*12)))
}

func (a *ivAcc) addMicros(val int64, fval float64, scale int64) bool {
	hi, lo := bits64Mul(val, scale)
	if !hi {
		return false
	}
	return addInt64(&a.usec, lo) && a.addFractMicros(fval, scale)
}

func (a *ivAcc) addDays(val int64, scale int) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	d := val * int64(scale)
	return d >= math.MinInt32 && d <= math.MaxInt32 && addInt32p(&a.days, d)
}

func (a *ivAcc) addMonths(val int64) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	return addInt32p(&a.months, val)
}

func (a *ivAcc) addYears(val int64, scale int) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	y := val * int64(scale)
	if y < math.MinInt32 || y > math.MaxInt32 {
		return false
	}
	return addInt32p(&a.years, y)
}

// value is itmin2interval.
func (a *ivAcc) value() (IntervalValue, bool) {
	months := int64(a.years)*12 + int64(a.months)
	if months < math.MinInt32 || months > math.MaxInt32 {
		return IntervalValue{}, false
	}
	return IntervalValue{Months: int32(months), Days: a.days, Micros: a.usec}, true
}

func addInt64(p *int64, v int64) bool {
	r := *p + v
	if (v > 0 && r < *p) || (v < 0 && r > *p) {
		return false
	}
	*p = r
	return true
}

func addInt32p(p *int32, v int64) bool {
	r := int64(*p) + v
	if r < math.MinInt32 || r > math.MaxInt32 {
		return false
	}
	*p = int32(r)
	return true
}

// bits64Mul multiplies with an overflow check: ok and the product.
func bits64Mul(a, b int64) (bool, int64) {
	if a == 0 || b == 0 {
		return true, 0
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return false, 0
	}
	return true, r
}

// Interval units (DecodeUnits' table).
const (
	ivuNone = iota
	ivuMicro
	ivuMilli
	ivuSecond
	ivuMinute
	ivuHour
	ivuDay
	ivuWeek
	ivuMonth
	ivuYear
	ivuDecade
	ivuCentury
	ivuMillennium
	ivuOther // quarter, timezone: known, but no interval part
	ivuAgo
)

var intervalUnits = map[string]int{
	"ago": ivuAgo, "c": ivuCentury, "cent": ivuCentury, "centuries": ivuCentury, "century": ivuCentury,
	"d": ivuDay, "day": ivuDay, "days": ivuDay, "dec": ivuDecade, "decade": ivuDecade, "decades": ivuDecade,
	"decs": ivuDecade, "h": ivuHour, "hour": ivuHour, "hours": ivuHour, "hr": ivuHour, "hrs": ivuHour,
	"m": ivuMinute, "microsecon": ivuMicro, "mil": ivuMillennium, "millennia": ivuMillennium,
	"millennium": ivuMillennium, "millisecon": ivuMilli, "mils": ivuMillennium, "min": ivuMinute,
	"mins": ivuMinute, "minute": ivuMinute, "minutes": ivuMinute, "mon": ivuMonth, "mons": ivuMonth,
	"month": ivuMonth, "months": ivuMonth, "ms": ivuMilli, "msec": ivuMilli, "msecs": ivuMilli,
	"mseconds": ivuMilli, "qtr": ivuOther, "quarter": ivuOther, "s": ivuSecond, "sec": ivuSecond,
	"second": ivuSecond, "seconds": ivuSecond, "secs": ivuSecond, "timezone": ivuOther,
	"timezone_h": ivuOther, "timezone_m": ivuOther, "us": ivuMicro, "usec": ivuMicro, "usecs": ivuMicro,
	"useconds": ivuMicro, "microsecond": ivuMicro, "millisecond": ivuMilli, "w": ivuWeek, "week": ivuWeek,
	"weeks": ivuWeek, "y": ivuYear, "year": ivuYear, "years": ivuYear, "yr": ivuYear, "yrs": ivuYear,
}

func lookupIntervalUnit(w string) (int, bool) {
	if len(w) > tokMaxLen {
		w = w[:tokMaxLen]
	}
	u, ok := intervalUnits[w]
	return u, ok
}

// defaultIntervalUnit is the unit of a bare rightmost number, from the
// typmod's range (interval day, interval hour to minute …); seconds when
// there is none.
func defaultIntervalUnit(rng int32) int {
	switch rng {
	case ivYear:
		return ivuYear
	case ivMonth, ivYear | ivMonth:
		return ivuMonth
	case ivDay:
		return ivuDay
	case ivHour, ivDay | ivHour:
		return ivuHour
	case ivMinute, ivHour | ivMinute, ivDay | ivHour | ivMinute:
		return ivuMinute
	}
	return ivuSecond
}

// decodeInterval is DecodeInterval.
func decodeInterval(st *Settings, s string, rng int32) (ivAcc, dtErr) {
	var a ivAcc
	fields, e := tokenizeDateTime(s)
	if e != dtOK {
		return a, e
	}
	forceNeg := false
	if st.intervalStyle() == IntervalStyleSQLStandard && len(fields) > 0 && fields[0].text[0] == '-' {
		forceNeg = true
		for _, f := range fields[1:] {
			if f.text[0] == '-' || f.text[0] == '+' {
				forceNeg = false
				break
			}
		}
	}
	var fmask dtMask
	unit := ivuNone
	pendingUnit := false
	ago := false
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		var tmask dtMask
		switch f.kind {
		case fieldTime, fieldTZ:
			text := f.text
			signed := f.kind == fieldTZ
			if signed {
				text = text[1:]
			}
			if f.kind == fieldTime || strings.IndexByte(text, ':') >= 0 {
				usec, e := decodeIntervalTime(text, rng)
				if e == dtOK {
					if signed && f.text[0] == '-' {
						usec = -usec
					}
					if forceNeg && usec > 0 {
						usec = -usec
					}
					a.usec = usec
					tmask = maskTime
					unit, pendingUnit = ivuDay, false
					break
				}
				if !signed {
					return a, e
				}
			}
			m, e := a.intervalNumber(f.text, &unit, rng, forceNeg)
			if e != dtOK {
				return a, e
			}
			tmask, pendingUnit = m, false
		case fieldDate, fieldNumber:
			m, e := a.intervalNumber(f.text, &unit, rng, forceNeg)
			if e != dtOK {
				return a, e
			}
			tmask, pendingUnit = m, false
		case fieldString, fieldSpecial:
			if pendingUnit {
				return a, dtSyntax
			}
			u, ok := lookupIntervalUnit(f.text)
			if !ok {
				return a, dtSyntax
			}
			if u == ivuAgo {
				ago = true
				unit = ivuNone
				continue
			}
			unit, pendingUnit = u, true
			continue
		}
		if tmask&fmask != 0 {
			return a, dtSyntax
		}
		fmask |= tmask
	}
	if fmask == 0 || pendingUnit {
		return a, dtSyntax
	}
	if ago {
		if a.usec == math.MinInt64 || a.days == math.MinInt32 || a.months == math.MinInt32 || a.years == math.MinInt32 {
			return a, dtRange
		}
		a.usec, a.days, a.months, a.years = -a.usec, -a.days, -a.months, -a.years
	}
	return a, dtOK
}

// intervalNumber adds one number (or SQL "years-months") in *unit, the
// unit read to its right or implied; it returns the part's mask bit.
func (a *ivAcc) intervalNumber(text string, unit *int, rng int32, forceNeg bool) (dtMask, dtErr) {
	if *unit == ivuNone {
		*unit = defaultIntervalUnit(rng)
	}
	neg := text[0] == '-'
	p := 0
	if text[0] == '+' || text[0] == '-' {
		p = 1
	}
	q := p
	for q < len(text) && isDigitByte(text[q]) {
		q++
	}
	if q == p && (p == 1 || q >= len(text) || text[q] != '.') {
		return 0, dtSyntax // a sign must be followed by digits
	}
	val := int64(0)
	if q > p {
		v, err := strconv.ParseInt(text[:q], 10, 64)
		if err != nil {
			return 0, dtRange
		}
		val = v
	}
	fval := 0.0
	rest := text[q:]
	switch {
	case strings.HasPrefix(rest, "-"):
		// SQL years-months
		r := rest[1:]
		k := 0
		for k < len(r) && isDigitByte(r[k]) {
			k++
		}
		m, ok := atoiStrict(r[:k])
		if !ok && k > 0 {
			return 0, dtRange
		}
		if m >= 12 {
			return 0, dtRange
		}
		if k < len(r) {
			return 0, dtSyntax
		}
		*unit = ivuMonth
		if neg {
			m = -m
		}
		ok1, v := bits64Mul(val, 12)
		if !ok1 || !addInt64(&v, int64(m)) {
			return 0, dtRange
		}
		val = v
	case strings.HasPrefix(rest, "."):
		if len(rest) > 1 {
			if strings.Trim(rest[1:], "0123456789") != "" {
				return 0, dtSyntax
			}
			f, err := strconv.ParseFloat("0"+rest, 64)
			if err != nil {
				return 0, dtSyntax
			}
			fval = f
		}
		if neg {
			fval = -fval
		}
	case rest != "":
		return 0, dtSyntax
	}
	if forceNeg {
		if val > 0 {
			val = -val
		}
		if fval > 0 {
			fval = -fval
		}
	}
	ok := true
	var m dtMask
	switch *unit {
	case ivuMicro:
		ok, m = a.addMicros(val, fval, 1), maskOf(partMicrosecond)
	case ivuMilli:
		ok, m = a.addMicros(val, fval, 1000), maskOf(partMillisecond)
	case ivuSecond:
		ok, m = a.addMicros(val, fval, usecsPerSec), maskOf(partSecond)
		if fval != 0 {
			m = maskAllSecs
		}
	case ivuMinute:
		ok, m = a.addMicros(val, fval, 60*usecsPerSec), maskOf(partMinute)
	case ivuHour:
		ok, m = a.addMicros(val, fval, 3600*usecsPerSec), maskOf(partHour)
		*unit = ivuDay
		return m, okErr(ok)
	case ivuDay:
		ok, m = a.addDays(val, 1) && a.addFractMicros(fval, usecsPerDay), maskOf(partDay)
	case ivuWeek:
		ok, m = a.addDays(val, 7) && a.addFractDays(fval, 7), 1<<24
	case ivuMonth:
		ok, m = a.addMonths(val) && a.addFractDays(fval, 30), maskOf(partMonth)
	case ivuYear:
		ok, m = a.addYears(val, 1) && a.addFractYears(fval, 1), maskOf(partYear)
	case ivuDecade:
		ok, m = a.addYears(val, 10) && a.addFractYears(fval, 10), 1<<25
	case ivuCentury:
		ok, m = a.addYears(val, 100) && a.addFractYears(fval, 100), 1<<26
	case ivuMillennium:
		ok, m = a.addYears(val, 1000) && a.addFractYears(fval, 1000), 1<<27
	default:
		return 0, dtSyntax
	}
	return m, okErr(ok)
}

func okErr(ok bool) dtErr {
	if ok {
		return dtOK
	}
	return dtRange
}

// decodeIntervalTime is DecodeTimeForInterval: h:mm[:ss[.f]] or mm:ss.f
// (and mm:ss for a MINUTE TO SECOND range) as microseconds.
func decodeIntervalTime(text string, rng int32) (int64, dtErr) {
	colon := strings.IndexByte(text, ':')
	if colon <= 0 || strings.Trim(text[:colon], "0123456789") != "" {
		return 0, dtSyntax
	}
	hour, err := strconv.ParseInt(text[:colon], 10, 64)
	if err != nil {
		return 0, dtRange
	}
	rest := text[colon+1:]
	k := 0
	for k < len(rest) && isDigitByte(rest[k]) {
		k++
	}
	min, e := leadingInt(rest[:k])
	if e != dtOK {
		return 0, e
	}
	rest = rest[k:]
	sec := 0
	var fsec int64
	switch {
	case rest == "":
		if rng == ivMinute|ivSecond {
			if hour > math.MaxInt32 {
				return 0, dtRange
			}
			hour, min, sec = 0, int(hour), min
		}
	case rest[0] == '.':
		fs, e := parseFractionalSecond(rest)
		if e != dtOK {
			return 0, e
		}
		if hour > math.MaxInt32 {
			return 0, dtRange
		}
		hour, min, sec, fsec = 0, int(hour), min, fs
	case rest[0] == ':':
		r := rest[1:]
		k := 0
		for k < len(r) && isDigitByte(r[k]) {
			k++
		}
		if sec, e = leadingInt(r[:k]); e != dtOK {
			return 0, e
		}
		r = r[k:]
		if r != "" {
			if r[0] != '.' {
				return 0, dtSyntax
			}
			if fsec, e = parseFractionalSecond(r); e != dtOK {
				return 0, e
			}
		}
	default:
		return 0, dtSyntax
	}
	if min > 59 || sec > 60 || fsec > usecsPerSec {
		return 0, dtRange
	}
	ok1, h := bits64Mul(hour, 3600*usecsPerSec)
	usec := fsec
	if !ok1 || !addInt64(&usec, h) || !addInt64(&usec, int64(min)*60*usecsPerSec) || !addInt64(&usec, int64(sec)*usecsPerSec) {
		return 0, dtRange
	}
	return usec, dtOK
}

// decodeISOInterval is DecodeISO8601Interval: P[nY][nM][nW][nD][T[nH][nM][nS]]
// and the alternative forms PYYYYMMDDTHHMMSS, P0001-02-03T04:05:06.
func decodeISOInterval(s string) (ivAcc, dtErr) {
	var a ivAcc
	if len(s) < 2 || s[0] != 'P' {
		return a, dtSyntax
	}
	str := s[1:]
	datePart, haveField := true, false
	for str != "" {
		if str[0] == 'T' {
			datePart, haveField = false, false
			str = str[1:]
			continue
		}
		fieldStart := str
		val, fval, rest, e := parseISONumber(str)
		if e != dtOK {
			return a, e
		}
		str = rest
		var unit byte
		if str != "" {
			unit, str = str[0], str[1:]
		}
		var done bool
		if datePart {
			done, e = a.isoDateUnit(unit, val, fval, fieldStart, haveField, &str, &datePart, &haveField)
		} else {
			done, e = a.isoTimeUnit(unit, val, fval, fieldStart, haveField, &str)
		}
		if e != dtOK || done {
			return a, e
		}
	}
	return a, dtOK
}

// isoDateUnit handles a number of the date part and its unit letter.
// done reports the end of the input in an alternative format.
func (a *ivAcc) isoDateUnit(unit byte, val int64, fval float64, fieldStart string, haveField bool, str *string, datePart, haveFieldOut *bool) (bool, dtErr) {
	switch unit {
	case 'Y':
		return false, okErr(a.addYears(val, 1) && a.addFractYears(fval, 1))
	case 'M':
		return false, okErr(a.addMonths(val) && a.addFractDays(fval, 30))
	case 'W':
		return false, okErr(a.addDays(val, 7) && a.addFractDays(fval, 7))
	case 'D':
		return false, okErr(a.addDays(val, 1) && a.addFractMicros(fval, usecsPerDay))
	case 'T', 0, '-':
	default:
		return false, dtSyntax
	}
	toTime := func() (bool, dtErr) {
		*datePart, *haveFieldOut = false, false
		return false, dtOK
	}
	if unit != '-' && isoIntegerWidth(fieldStart) == 8 && !haveField {
		if !a.addYears(val/10000, 1) || !a.addMonths(val/100%100) || !a.addDays(val%100, 1) || !a.addFractMicros(fval, usecsPerDay) {
			return false, dtRange
		}
		if unit == 0 {
			return true, dtOK
		}
		return toTime()
	}
	if haveField {
		return false, dtSyntax
	}
	if !a.addYears(val, 1) || !a.addFractYears(fval, 1) {
		return false, dtRange
	}
	if unit == 0 {
		return true, dtOK
	}
	if unit == 'T' {
		return toTime()
	}
	v, f, rest, e := parseISONumber(*str)
	if e != dtOK {
		return false, e
	}
	*str = rest
	if !a.addMonths(v) || !a.addFractDays(f, 30) {
		return false, dtRange
	}
	switch {
	case *str == "":
		return true, dtOK
	case (*str)[0] == 'T':
		*str = (*str)[1:]
		return toTime()
	case (*str)[0] != '-':
		return false, dtSyntax
	}
	v, f, rest, e = parseISONumber((*str)[1:])
	if e != dtOK {
		return false, e
	}
	*str = rest
	if !a.addDays(v, 1) || !a.addFractMicros(f, usecsPerDay) {
		return false, dtRange
	}
	switch {
	case *str == "":
		return true, dtOK
	case (*str)[0] == 'T':
		*str = (*str)[1:]
		return toTime()
	}
	return false, dtSyntax
}

// isoTimeUnit handles a number of the time part and its unit letter.
func (a *ivAcc) isoTimeUnit(unit byte, val int64, fval float64, fieldStart string, haveField bool, str *string) (bool, dtErr) {
	switch unit {
	case 'H':
		return false, okErr(a.addMicros(val, fval, 3600*usecsPerSec))
	case 'M':
		return false, okErr(a.addMicros(val, fval, 60*usecsPerSec))
	case 'S':
		return false, okErr(a.addMicros(val, fval, usecsPerSec))
	case 0, ':':
	default:
		return false, dtSyntax
	}
	if unit == 0 && isoIntegerWidth(fieldStart) == 6 && !haveField {
		ok := a.addMicros(val/10000, 0, 3600*usecsPerSec) && a.addMicros(val/100%100, 0, 60*usecsPerSec) &&
			a.addMicros(val%100, 0, usecsPerSec) && a.addFractMicros(fval, 1)
		return true, okErr(ok)
	}
	if haveField {
		return false, dtSyntax
	}
	if !a.addMicros(val, fval, 3600*usecsPerSec) {
		return false, dtRange
	}
	if unit == 0 {
		return true, dtOK
	}
	v, f, rest, e := parseISONumber(*str)
	if e != dtOK {
		return false, e
	}
	*str = rest
	if !a.addMicros(v, f, 60*usecsPerSec) {
		return false, dtRange
	}
	if *str == "" {
		return true, dtOK
	}
	if (*str)[0] != ':' {
		return false, dtSyntax
	}
	v, f, rest, e = parseISONumber((*str)[1:])
	if e != dtOK {
		return false, e
	}
	*str = rest
	if !a.addMicros(v, f, usecsPerSec) {
		return false, dtRange
	}
	if *str == "" {
		return true, dtOK
	}
	return false, dtSyntax
}

func isoIntegerWidth(s string) int {
	s = strings.TrimPrefix(s, "-")
	n := 0
	for n < len(s) && isDigitByte(s[n]) {
		n++
	}
	return n
}

// parseISONumber is ParseISO8601Number: a decimal number (a leading minus,
// no plus) split into its integer part and fraction, both with its sign.
func parseISONumber(s string) (int64, float64, string, dtErr) {
	if s == "" || !(isDigitByte(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtSyntax
	}
	n := 0
	if s[0] == '-' {
		n = 1
	}
	digits := 0
	for n < len(s) && isDigitByte(s[n]) {
		n, digits = n+1, digits+1
	}
	if n < len(s) && s[n] == '.' {
		n++
		for n < len(s) && isDigitByte(s[n]) {
			n, digits = n+1, digits+1
		}
	}
	if digits == 0 {
		return 0, 0, s, dtSyntax
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		k := n + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigitByte(s[k]) {
			for k < len(s) && isDigitByte(s[k]) {
				k++
			}
			n = k
		}
	}
	v, err := strconv.ParseFloat(s[:n], 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, 0, s, dtSyntax
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < math.MinInt64 || v >= math.MaxInt64 {
		return 0, 0, s, dtRange
	}
	ip := math.Trunc(v)
	return int64(ip), v - ip, s[n:], dtOK
}

// parseIntervalText is interval_in: the PostgreSQL and SQL-standard forms,
// then ISO 8601.
func parseIntervalText(st *Settings, orig string, typmod int32) (Datum, error) {
	rng := int32(intervalFullRange)
	if typmod >= 0 {
		rng = typmod >> 16 & 0x7FFF
	}
	a, e := decodeInterval(st, orig, rng)
	if e == dtSyntax {
		a, e = decodeISOInterval(orig)
	}
	switch e {
	case dtOK:
	case dtRange:
		return Datum{}, pgerr.Errorf(pgerr.IntervalFieldOverflow, "interval field value out of range: \"%s\"", orig)
	default:
		return Datum{}, dtError(e, "interval", orig, "")
	}
	iv, ok := a.value()
	if !ok {
		return Datum{}, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	iv, err := adjustIntervalTypmod(iv, typmod)
	if err != nil {
		return Datum{}, err
	}
	return IntervalDatum(iv), nil
}
