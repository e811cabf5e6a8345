package types

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Date/time templates of to_char(timestamp|timestamptz|interval, text), as
// PostgreSQL's formatting.c reads them: keywords (the longest of those
// sharing a first letter wins), with the prefixes FM (no padding) and TM
// (translated names: the C locale's are the English ones) and the
// suffixes TH/th (ordinal) and SP (accepted, no effect); everything else,
// and double-quoted text, is copied.

type dchKey int8

const (
	dkADdots dchKey = iota // A.D. / B.C.
	dkAMdots               // A.M. / P.M.
	dkAD
	dkAM
	dkadDots
	dkamDots
	dkad
	dkam
	dkCC
	dkDAY
	dkDay
	dkday
	dkDDD
	dkDD
	dkDY
	dkDy
	dkdy
	dkD
	dkFF1
	dkFF2
	dkFF3
	dkFF4
	dkFF5
	dkFF6
	dkFX
	dkHH24
	dkHH12
	dkIDDD
	dkID
	dkIW
	dkIYYY
	dkIYY
	dkIY
	dkI
	dkJ
	dkMI
	dkMM
	dkMONTH
	dkMonth
	dkmonth
	dkMON
	dkMon
	dkmon
	dkMS
	dkOF
	dkQ
	dkRM
	dkrm
	dkSSSS
	dkSS
	dkTZH
	dkTZM
	dkTZ
	dktz
	dkUS
	dkWW
	dkW
	dkYcomma
	dkYYYY
	dkYYY
	dkYY
	dkY
)

var dchKeywords = []struct {
	name string
	key  dchKey
}{
	{"A.D.", dkADdots}, {"A.M.", dkAMdots}, {"AD", dkAD}, {"AM", dkAM},
	{"B.C.", dkADdots}, {"BC", dkAD}, {"CC", dkCC},
	{"DAY", dkDAY}, {"DDD", dkDDD}, {"DD", dkDD}, {"DY", dkDY}, {"Day", dkDay}, {"Dy", dkDy}, {"D", dkD},
	{"FF1", dkFF1}, {"FF2", dkFF2}, {"FF3", dkFF3}, {"FF4", dkFF4}, {"FF5", dkFF5}, {"FF6", dkFF6}, {"FX", dkFX},
	{"HH24", dkHH24}, {"HH12", dkHH12}, {"HH", dkHH12},
	{"IDDD", dkIDDD}, {"ID", dkID}, {"IW", dkIW}, {"IYYY", dkIYYY}, {"IYY", dkIYY}, {"IY", dkIY}, {"I", dkI},
	{"J", dkJ}, {"MI", dkMI}, {"MM", dkMM}, {"MONTH", dkMONTH}, {"MON", dkMON}, {"MS", dkMS},
	{"Month", dkMonth}, {"Mon", dkMon}, {"OF", dkOF}, {"P.M.", dkAMdots}, {"PM", dkAM}, {"Q", dkQ}, {"RM", dkRM},
	{"SSSSS", dkSSSS}, {"SSSS", dkSSSS}, {"SS", dkSS}, {"TZH", dkTZH}, {"TZM", dkTZM}, {"TZ", dkTZ},
	{"US", dkUS}, {"WW", dkWW}, {"W", dkW},
	{"Y,YYY", dkYcomma}, {"YYYY", dkYYYY}, {"YYY", dkYYY}, {"YY", dkYY}, {"Y", dkY},
	{"a.d.", dkadDots}, {"a.m.", dkamDots}, {"ad", dkad}, {"am", dkam},
	{"b.c.", dkadDots}, {"bc", dkad}, {"cc", dkCC},
	{"day", dkday}, {"ddd", dkDDD}, {"dd", dkDD}, {"dy", dkdy}, {"d", dkD},
	{"ff1", dkFF1}, {"ff2", dkFF2}, {"ff3", dkFF3}, {"ff4", dkFF4}, {"ff5", dkFF5}, {"ff6", dkFF6}, {"fx", dkFX},
	{"hh24", dkHH24}, {"hh12", dkHH12}, {"hh", dkHH12},
	{"iddd", dkIDDD}, {"id", dkID}, {"iw", dkIW}, {"iyyy", dkIYYY}, {"iyy", dkIYY}, {"iy", dkIY}, {"i", dkI},
	{"j", dkJ}, {"mi", dkMI}, {"mm", dkMM}, {"month", dkmonth}, {"mon", dkmon}, {"ms", dkMS},
	{"of", dkOF}, {"p.m.", dkamDots}, {"pm", dkam}, {"q", dkQ}, {"rm", dkrm},
	{"sssss", dkSSSS}, {"ssss", dkSSSS}, {"ss", dkSS}, {"tzh", dkTZH}, {"tzm", dkTZM}, {"tz", dktz},
	{"us", dkUS}, {"ww", dkWW}, {"w", dkW},
	{"y,yyy", dkYcomma}, {"yyyy", dkYYYY}, {"yyy", dkYYY}, {"yy", dkYY}, {"y", dkY},
}

const (
	dsFM = 1 << iota
	dsTH
	dsth
	dsSP
	dsTM
)

type dchNode struct {
	isKey  bool
	key    dchKey
	name   string // the keyword as written in the template
	suffix int
	lit    string
	quoted bool // lit came from double quotes
}

func parseDchFormat(f string) []dchNode {
	var nodes []dchNode
	for i := 0; i < len(f); {
		suffix := 0
		for _, p := range [...]struct {
			s string
			v int
		}{{"FM", dsFM}, {"fm", dsFM}, {"TM", dsTM}, {"tm", dsTM}} {
			if strings.HasPrefix(f[i:], p.s) {
				suffix |= p.v
				i += 2
				break
			}
		}
		if k, n := matchDchKeyword(f[i:]); n > 0 {
			name := f[i : i+n]
			i += n
			for _, p := range [...]struct {
				s string
				v int
			}{{"TH", dsTH}, {"th", dsth}, {"SP", dsSP}} {
				if strings.HasPrefix(f[i:], p.s) {
					suffix |= p.v
					i += 2
					break
				}
			}
			nodes = append(nodes, dchNode{isKey: true, key: k, name: name, suffix: suffix})
			continue
		}
		if i >= len(f) {
			break
		}
		if f[i] == '"' {
			for i++; i < len(f); {
				if f[i] == '"' {
					i++
					break
				}
				if f[i] == '\\' && i+1 < len(f) {
					i++
				}
				_, sz := utf8.DecodeRuneInString(f[i:])
				nodes = append(nodes, dchNode{lit: f[i : i+sz], quoted: true})
				i += sz
			}
			continue
		}
		if f[i] == '\\' && i+1 < len(f) && f[i+1] == '"' {
			i++
		}
		_, sz := utf8.DecodeRuneInString(f[i:])
		nodes = append(nodes, dchNode{lit: f[i : i+sz]})
		i += sz
	}
	return nodes
}

func matchDchKeyword(s string) (dchKey, int) {
	for _, kw := range dchKeywords {
		if strings.HasPrefix(s, kw.name) {
			return kw.key, len(kw.name)
		}
	}
	return 0, 0
}

// dchTime is the broken-down value to_char formats (PostgreSQL's TmToChar):
// a timestamp's calendar fields, or an interval's parts (hour unbounded).
type dchTime struct {
	year, mon, mday, wday, yday int
	hour                        int64
	min, sec, fsec              int
	gmtoff                      int // seconds east of UTC
	zone                        string
	hasZone                     bool
	interval                    bool
}

var monthsFull = [...]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}
var daysFull = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
var romanMonths = [...]string{"XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"}

func invalidForInterval() error {
	e := pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid format specification for an interval value")
	e.Hint = "Intervals are not tied to specific calendar dates."
	return e
}

// intervalOnlyOK lists the keywords that mean something for an interval.
func (k dchKey) calendarOnly() bool {
	switch k {
	case dkADdots, dkAD, dkadDots, dkad, dkMONTH, dkMonth, dkmonth, dkMON, dkMon, dkmon,
		dkDAY, dkDay, dkday, dkDY, dkDy, dkdy, dkD, dkID, dkTZ, dktz, dkTZH, dkTZM, dkOF:
		return true
	}
	return false
}

// padInt is sprintf("%0*d"): zero-padded to width counting a minus sign,
// or unpadded under FM.
func padInt(v int64, width int, fm bool) string {
	s := strconv.FormatInt(abs64(v), 10)
	w := width
	if v < 0 {
		w--
	}
	if !fm && len(s) < w {
		s = strings.Repeat("0", w-len(s)) + s
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}

// padSigned widens the field by one for a minus sign, as the fields that
// print "%0*d" with width (v >= 0 ? n : n+1) do.
func padSigned(v int64, width int, fm bool) string {
	if v < 0 {
		width++
	}
	return padInt(v, width, fm)
}

func padRight(s string, width int, fm bool) string {
	if fm || len(s) >= width {
		return s
	}
	return s + strings.Repeat(" ", width-len(s))
}

// adjustYear maps a timestamp's year 0 (1 BC) and earlier to the positive
// year count to_char prints; an interval's years print as they are.
func (t *dchTime) adjustYear(y int) int {
	if t.interval || y > 0 {
		return y
	}
	return -(y - 1)
}

func formatDch(nodes []dchNode, t *dchTime) (string, error) {
	var out []byte
	for _, n := range nodes {
		if !n.isKey {
			out = append(out, n.lit...)
			continue
		}
		if t.interval && n.key.calendarOnly() {
			return "", invalidForInterval()
		}
		s, numeric, err := t.field(n.key, n.suffix)
		if err != nil {
			return "", err
		}
		if numeric && n.suffix&(dsTH|dsth) != 0 {
			th, err := ordinalSuffix(s, n.suffix&dsth != 0)
			if err != nil {
				return "", err
			}
			s += th
		}
		out = append(out, s...)
	}
	return string(out), nil
}

// field formats one keyword; numeric says whether TH applies.
func (t *dchTime) field(k dchKey, suffix int) (string, bool, error) {
	fm := suffix&dsFM != 0
	pm := t.hour%24 >= 12
	pick := func(cond bool, a, b string) string {
		if cond {
			return a
		}
		return b
	}
	bc := t.year <= 0
	switch k {
	case dkAMdots:
		return pick(pm, "P.M.", "A.M."), false, nil
	case dkAM:
		return pick(pm, "PM", "AM"), false, nil
	case dkamDots:
		return pick(pm, "p.m.", "a.m."), false, nil
	case dkam:
		return pick(pm, "pm", "am"), false, nil
	case dkADdots:
		return pick(bc, "B.C.", "A.D."), false, nil
	case dkAD:
		return pick(bc, "BC", "AD"), false, nil
	case dkadDots:
		return pick(bc, "b.c.", "a.d."), false, nil
	case dkad:
		return pick(bc, "bc", "ad"), false, nil
	case dkHH12:
		h := t.hour % 12
		if h == 0 {
			h = 12
		}
		return padSigned(h, 2, fm), true, nil
	case dkHH24:
		return padSigned(t.hour, 2, fm), true, nil
	case dkMI:
		return padSigned(int64(t.min), 2, fm), true, nil
	case dkSS:
		return padSigned(int64(t.sec), 2, fm), true, nil
	case dkFF1, dkFF2, dkFF3, dkFF4, dkFF5, dkFF6, dkMS, dkUS:
		digits := map[dchKey]int{dkFF1: 1, dkFF2: 2, dkFF3: 3, dkFF4: 4, dkFF5: 5, dkFF6: 6, dkMS: 3, dkUS: 6}[k]
		v := int64(t.fsec)
		for i := digits; i < 6; i++ {
			v /= 10
		}
		return padInt(v, digits, false), true, nil
	case dkSSSS:
		return strconv.FormatInt(t.hour*3600+int64(t.min)*60+int64(t.sec), 10), true, nil
	case dktz:
		return strings.ToLower(pick(t.hasZone, t.zone, "")), false, nil
	case dkTZ:
		return pick(t.hasZone, t.zone, ""), false, nil
	case dkTZH:
		return pick(t.gmtoff >= 0, "+", "-") + padInt(int64(abs(t.gmtoff)/3600), 2, false), false, nil
	case dkTZM:
		return padInt(int64(abs(t.gmtoff)%3600/60), 2, false), false, nil
	case dkOF:
		s := pick(t.gmtoff >= 0, "+", "-") + padInt(int64(abs(t.gmtoff)/3600), 2, fm)
		if m := abs(t.gmtoff) % 3600; m != 0 {
			s += ":" + padInt(int64(m/60), 2, false)
		}
		return s, false, nil
	}
	return t.dateField(k, fm)
}

func (t *dchTime) dateField(k dchKey, fm bool) (string, bool, error) {
	monthName := func() string {
		if t.mon < 1 || t.mon > 12 {
			return ""
		}
		return monthsFull[t.mon-1]
	}
	switch k {
	case dkMONTH:
		return padRight(strings.ToUpper(monthName()), 9, fm || monthName() == ""), false, nil
	case dkMonth:
		return padRight(monthName(), 9, fm || monthName() == ""), false, nil
	case dkmonth:
		return padRight(strings.ToLower(monthName()), 9, fm || monthName() == ""), false, nil
	case dkMON:
		return strings.ToUpper(prefix3(monthName())), false, nil
	case dkMon:
		return prefix3(monthName()), false, nil
	case dkmon:
		return strings.ToLower(prefix3(monthName())), false, nil
	case dkMM:
		return padSigned(int64(t.mon), 2, fm), true, nil
	case dkDAY:
		return padRight(strings.ToUpper(daysFull[t.wday]), 9, fm), false, nil
	case dkDay:
		return padRight(daysFull[t.wday], 9, fm), false, nil
	case dkday:
		return padRight(strings.ToLower(daysFull[t.wday]), 9, fm), false, nil
	case dkDY:
		return strings.ToUpper(daysFull[t.wday][:3]), false, nil
	case dkDy:
		return daysFull[t.wday][:3], false, nil
	case dkdy:
		return strings.ToLower(daysFull[t.wday][:3]), false, nil
	case dkDDD:
		return padInt(int64(t.yday), 3, fm), true, nil
	case dkIDDD:
		return padInt(int64(isoYearDay(t.year, t.mon, t.mday)), 3, fm), true, nil
	case dkDD:
		return padInt(int64(t.mday), 2, fm), true, nil
	case dkD:
		return strconv.Itoa(t.wday + 1), true, nil
	case dkID:
		return strconv.Itoa(map[bool]int{true: 7, false: t.wday}[t.wday == 0]), true, nil
	case dkWW:
		return padInt(int64((t.yday-1)/7+1), 2, fm), true, nil
	case dkIW:
		w, _ := isoWeekYear(t.year, t.mon, t.mday)
		return padInt(int64(w), 2, fm), true, nil
	case dkQ:
		if t.mon == 0 {
			return "", false, nil
		}
		return strconv.Itoa((t.mon-1)/3 + 1), true, nil
	case dkCC:
		return t.century(fm), true, nil
	case dkYcomma:
		y := t.adjustYear(t.year)
		return strconv.Itoa(y/1000) + "," + padInt(int64(y-y/1000*1000), 3, false), true, nil
	case dkYYYY, dkYYY, dkYY, dkY, dkIYYY, dkIYY, dkIY, dkI:
		return t.yearField(k, fm), true, nil
	case dkRM, dkrm:
		return t.romanMonth(k == dkrm, fm), false, nil
	case dkW:
		return strconv.Itoa((t.mday-1)/7 + 1), true, nil
	case dkJ:
		return strconv.Itoa(date2j(t.year, t.mon, t.mday)), true, nil
	}
	return "", false, nil // FX
}

func prefix3(s string) string {
	if len(s) < 3 {
		return s
	}
	return s[:3]
}

func (t *dchTime) century(fm bool) string {
	var c int
	switch {
	case t.interval:
		c = t.year / 100
	case t.year > 0:
		c = (t.year-1)/100 + 1
	default:
		c = t.year/100 - 1
	}
	if c <= 99 && c >= -99 {
		return padSigned(int64(c), 2, fm)
	}
	return strconv.Itoa(c)
}

func (t *dchTime) yearField(k dchKey, fm bool) string {
	y := t.year
	switch k {
	case dkIYYY, dkIYY, dkIY, dkI:
		_, y = isoWeekYear(t.year, t.mon, t.mday)
	}
	y = t.adjustYear(y)
	switch k {
	case dkYYYY, dkIYYY:
		return padSigned(int64(y), 4, fm)
	case dkYYY, dkIYY:
		return padSigned(int64(y%1000), 3, fm)
	case dkYY, dkIY:
		return padSigned(int64(y%100), 2, fm)
	}
	return strconv.Itoa(y % 10)
}

func (t *dchTime) romanMonth(lower, fm bool) string {
	if t.mon == 0 && t.year == 0 {
		return ""
	}
	var i int
	switch {
	case t.mon == 0:
		i = map[bool]int{true: 0, false: 11}[t.year >= 0]
	case t.mon < 0:
		i = -(t.mon + 1)
	default:
		i = 12 - t.mon
	}
	s := romanMonths[i]
	if lower {
		s = strings.ToLower(s)
	}
	return padRight(s, 4, fm)
}

// isoYearDay is date2isoyearday: the day of the ISO week-numbering year.
func isoYearDay(y, m, d int) int {
	_, iy := isoWeekYear(y, m, d)
	day4 := date2j(iy, 1, 4)
	day0 := j2day(day4 - 1)
	return date2j(y, m, d) - (day4 - day0) + 1
}
