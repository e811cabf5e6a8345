package types

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

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
