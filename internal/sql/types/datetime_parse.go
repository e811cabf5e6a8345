package types

import (
	"strings"
	"time"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// Date/time input: a field-based reader of the formats PostgreSQL accepts
// most often (DateStyle ISO, MDY):
//
//	2020-01-31, 20200131, 1/31/2020, Jan 31 2020, 31 Jan 2020, January 31, 2020
//	[date][ |T]hh:mm[:ss[.ffffff]][ am|pm]
//	zones: Z, +hh, +hh:mm, +hhmm, -…, UTC/GMT, abbreviations (EST, CET, …),
//	       IANA names (Europe/Paris)
//	BC/AD, weekday names (ignored)
//	epoch, infinity, -infinity, now, today, tomorrow, yesterday, allballs
//
// Values that are out of range for a field give PostgreSQL's 22008
// "date/time field value out of range", text that is not a date/time gives
// 22007 "invalid input syntax for type …".

type dtSpecial uint8

const (
	dtNone dtSpecial = iota
	dtInfinity
	dtNegInfinity
	dtEpoch
	dtNow
	dtToday
	dtTomorrow
	dtYesterday
	dtAllballs
)

type dtFields struct {
	special   dtSpecial
	hasDate   bool
	year      int // astronomical after BC adjustment is applied by finish
	month     int
	day       int
	bc        bool
	hasTime   bool
	hour, min int
	sec       int
	usec      int64
	zone      *Zone // explicit zone, nil if none
	ampm      int   // 0 none, 1 am, 2 pm
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

var dayNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

type dtErr int

const (
	dtOK dtErr = iota
	dtSyntax
	dtRange
	dtZoneRange
	dtBadZone
)

// parseDateTime splits s into date/time fields.
func parseDateTime(s string) (f dtFields, e dtErr, badZone string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return f, dtSyntax, ""
	}
	switch strings.ToLower(s) {
	case "infinity", "+infinity":
		f.special = dtInfinity
		return
	case "-infinity":
		f.special = dtNegInfinity
		return
	case "epoch":
		f.special = dtEpoch
		return
	case "now":
		f.special = dtNow
		return
	case "today":
		f.special = dtToday
		return
	case "tomorrow":
		f.special = dtTomorrow
		return
	case "yesterday":
		f.special = dtYesterday
		return
	case "allballs":
		f.special = dtAllballs
		return
	}
	var nums []int // bare numbers, for textual dates
	var numLens []int
	textMonth := 0
	p := 0
	for p < len(s) {
		c := s[p]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ',':
			p++
		case c >= '0' && c <= '9':
			q := p
			for q < len(s) && s[q] >= '0' && s[q] <= '9' {
				q++
			}
			switch {
			case q < len(s) && s[q] == ':':
				// time, possibly followed directly by a zone
				if f.hasTime {
					return f, dtSyntax, ""
				}
				np, ok := f.readTime(s, p)
				if !ok {
					return f, dtSyntax, ""
				}
				p = np
			case q < len(s) && (s[q] == '-' || s[q] == '/' || s[q] == '.') && !f.hasDate && q+1 < len(s) && isAlnum(s[q+1]):
				np, e2 := f.readDate(s, p)
				if e2 != dtOK {
					return f, e2, ""
				}
				p = np
			case q-p == 8 && !f.hasDate && len(nums) == 0:
				f.hasDate = true
				f.year = atoi(s[p : p+4])
				f.month = atoi(s[p+4 : p+6])
				f.day = atoi(s[p+6 : p+8])
				p = q
			case q-p == 6 && f.hasDate && !f.hasTime && len(nums) == 0 && textMonth == 0:
				f.hasTime = true
				f.hour, f.min, f.sec = atoi(s[p:p+2]), atoi(s[p+2:p+4]), atoi(s[p+4:p+6])
				p = q
			default:
				nums = append(nums, atoi(s[p:q]))
				numLens = append(numLens, q-p)
				p = q
			}
			if p < len(s) && (s[p] == 'T' || s[p] == 't') && p+1 < len(s) && s[p+1] >= '0' && s[p+1] <= '9' {
				p++
			}
		case c == '+' || c == '-':
			// a zone offset after the time (or after the date)
			q := p + 1
			for q < len(s) && (s[q] >= '0' && s[q] <= '9' || s[q] == ':') {
				q++
			}
			if q == p+1 || f.zone != nil {
				return f, dtSyntax, ""
			}
			off, ok := parseHMSOffset(s[p:q])
			if !ok {
				if q-p > 1 && zoneOffsetTooBig(s[p:q]) {
					return f, dtZoneRange, ""
				}
				return f, dtSyntax, ""
			}
			f.zone = &Zone{Name: s[p:q], fixed: off}
			p = q
		case isAlpha(c):
			q := p
			for q < len(s) && (isAlnum(s[q]) || s[q] == '/' || s[q] == '_' || (s[q] == '.' && q > p) ||
				((s[q] == '+' || s[q] == '-') && strings.ContainsRune(s[p:q], '/'))) {
				q++
			}
			w := strings.TrimSuffix(s[p:q], ".")
			lw := strings.ToLower(w)
			switch {
			case lw == "bc":
				f.bc = true
			case lw == "ad":
			case lw == "am" || lw == "a.m":
				f.ampm = 1
			case lw == "pm" || lw == "p.m":
				f.ampm = 2
			case lw == "t" && q < len(s) && s[q] >= '0' && s[q] <= '9':
			case monthNames[lw] != 0 && textMonth == 0 && !f.hasDate:
				textMonth = monthNames[lw]
			case dayNames[lw]:
			case lw == "z" && f.zone == nil:
				f.zone = utcZone
			case lw == "allballs":
				f.hasTime = true
			default:
				if f.zone != nil {
					return f, dtSyntax, ""
				}
				z, ok := zoneWord(w)
				if !ok {
					if strings.ContainsRune(w, '/') {
						return f, dtBadZone, w
					}
					return f, dtSyntax, ""
				}
				f.zone = z
			}
			p = q
		default:
			return f, dtSyntax, ""
		}
	}
	if textMonth != 0 {
		if f.hasDate || len(nums) != 2 {
			return f, dtSyntax, ""
		}
		// "Jan 31 2020" or "31 Jan 2020": the 1–2 digit number is the day
		f.hasDate = true
		f.month = textMonth
		if numLens[0] <= 2 && numLens[1] > 2 {
			f.day, f.year = nums[0], nums[1]
		} else if numLens[1] <= 2 && numLens[0] > 2 {
			f.year, f.day = nums[0], nums[1]
		} else {
			f.day, f.year = nums[0], nums[1]
		}
		nums = nil
	}
	if len(nums) > 0 {
		return f, dtSyntax, ""
	}
	if f.ampm != 0 {
		if !f.hasTime || f.hour > 12 {
			return f, dtRange, ""
		}
		if f.ampm == 1 && f.hour == 12 {
			f.hour = 0
		} else if f.ampm == 2 && f.hour != 12 {
			f.hour += 12
		}
	}
	if f.hasDate {
		if f.bc {
			if f.year == 0 {
				return f, dtRange, ""
			}
			f.year = -(f.year - 1)
		} else if f.year == 0 {
			return f, dtRange, ""
		}
		if f.month < 1 || f.month > 12 || f.day < 1 {
			return f, dtRange, ""
		}
		leap := 0
		if isLeap(f.year) {
			leap = 1
		}
		if f.day > daysInMonth[leap][f.month] {
			return f, dtRange, ""
		}
	} else if f.bc {
		return f, dtSyntax, ""
	}
	if f.hasTime && (f.hour > 24 || f.min > 59 || f.sec > 60 || (f.hour == 24 && (f.min > 0 || f.sec > 0 || f.usec > 0))) {
		return f, dtRange, ""
	}
	return f, dtOK, ""
}

func zoneOffsetTooBig(s string) bool {
	h, _, n := num(s, 1, 2)
	return n > 0 && h > 15
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

func atoi(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
		if v > 1e9 {
			return 1e9 + 1
		}
	}
	return v
}

// readDate reads Y-M-D, M/D/Y, D.M.Y-ish dates (and Y-Mon-D) at p.
func (f *dtFields) readDate(s string, p int) (int, dtErr) {
	q := p
	for q < len(s) && (isAlnum(s[q]) || s[q] == '-' || s[q] == '/' || s[q] == '.') {
		if s[q] == '-' && q+1 < len(s) && !isAlnum(s[q+1]) {
			break
		}
		q++
	}
	tok := s[p:q]
	// a trailing time glued with T: 2020-01-01T10:00
	if i := strings.IndexAny(tok, "Tt"); i > 0 && i+1 < len(tok) && tok[i+1] >= '0' && tok[i+1] <= '9' {
		tok = tok[:i]
		q = p + i + 1
	}
	sep := tok[strings.IndexAny(tok, "-/.")]
	parts := strings.Split(tok, string(sep))
	if len(parts) != 3 {
		return q, dtSyntax
	}
	vals := [3]int{}
	lens := [3]int{}
	mon := 0
	for i, pt := range parts {
		if pt == "" {
			return q, dtSyntax
		}
		if isAlpha(pt[0]) {
			m := monthNames[strings.ToLower(pt)]
			if m == 0 || mon != 0 {
				return q, dtSyntax
			}
			mon = i + 1
			vals[i] = m
			continue
		}
		for j := 0; j < len(pt); j++ {
			if pt[j] < '0' || pt[j] > '9' {
				return q, dtSyntax
			}
		}
		vals[i], lens[i] = atoi(pt), len(pt)
	}
	f.hasDate = true
	switch {
	case mon == 2 && lens[0] > 2: // 2020-Jan-31
		f.year, f.month, f.day = vals[0], vals[1], vals[2]
	case mon == 2: // 31-Jan-2020
		f.day, f.month, f.year = vals[0], vals[1], vals[2]
	case mon == 1: // Jan-31-2020
		f.month, f.day, f.year = vals[0], vals[1], vals[2]
	case mon != 0:
		return q, dtSyntax
	case lens[0] > 2 || sep == '-': // ISO year first
		f.year, f.month, f.day = vals[0], vals[1], vals[2]
	default: // MDY
		f.month, f.day, f.year = vals[0], vals[1], vals[2]
		if lens[2] <= 2 {
			// two-digit years as PostgreSQL: 70-99 -> 19xx, else 20xx
			if f.year < 70 {
				f.year += 2000
			} else {
				f.year += 1900
			}
		}
	}
	return q, dtOK
}

// readTime reads hh:mm[:ss[.frac]] at p.
func (f *dtFields) readTime(s string, p int) (int, bool) {
	var n int
	f.hasTime = true
	f.hour, p, n = num(s, p, 9)
	if n == 0 || p >= len(s) || s[p] != ':' {
		return p, false
	}
	f.min, p, n = num(s, p+1, 2)
	if n != 2 {
		return p, false
	}
	if p < len(s) && s[p] == ':' {
		f.sec, p, n = num(s, p+1, 2)
		if n != 2 {
			return p, false
		}
	}
	if p < len(s) && s[p] == '.' {
		p++
		usec, np := readFraction(s, p)
		f.usec = usec
		p = np
	}
	return p, true
}

// readFraction reads decimal digits after a point as microseconds,
// rounding half up at the seventh digit as PostgreSQL's rint on
// microseconds does for non-negative values.
func readFraction(s string, p int) (int64, int) {
	var digits int64
	k := 0
	round := false
	for p < len(s) && s[p] >= '0' && s[p] <= '9' {
		if k < 6 {
			digits = digits*10 + int64(s[p]-'0')
		} else if k == 6 {
			round = s[p] >= '5'
		}
		k++
		p++
	}
	for i := k; i < 6; i++ {
		digits *= 10
	}
	if round {
		digits++
	}
	return digits, p
}

func dtError(e dtErr, typname, s, badZone string) error {
	switch e {
	case dtRange:
		return pgerr.Errorf(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtZoneRange:
		return pgerr.Errorf(pgerr.InvalidDatetimeFormat, "time zone displacement out of range: \"%s\"", s)
	case dtBadZone:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", badZone)
	}
	return pgerr.Errorf(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typname, s)
}

// nowIn returns the current time as a local timestamp in zone z (for
// 'today', 'now', … in input).
func nowIn(z *Zone) int64 { return z.ToLocal(TimestampFromTime(time.Now().UTC())) }

// parseTimestampIn is timestamp_in / timestamptz_in: tz says which, st
// gives the session zone (timestamptz: wall clock times without a zone
// are in it).
func parseTimestampIn(st *Settings, orig string, tz bool, typmod int32) (int64, error) {
	name := "timestamp"
	if tz {
		name = "timestamp with time zone"
	}
	f, e, bad := parseDateTime(orig)
	if e != dtOK {
		return 0, dtError(e, name, orig, bad)
	}
	sess := st.zone()
	switch f.special {
	case dtInfinity:
		return TimestampInfinity, nil
	case dtNegInfinity:
		return TimestampNegInfinity, nil
	case dtEpoch:
		return -int64(postgresEpochJDay-unixEpochJDay) * usecsPerDay, nil
	case dtNow:
		if tz {
			return NowMicros(), nil
		}
		return nowIn(sess), nil
	case dtToday, dtTomorrow, dtYesterday:
		day := floorDiv(nowIn(sess), usecsPerDay)
		if f.special == dtTomorrow {
			day++
		} else if f.special == dtYesterday {
			day--
		}
		local := day * usecsPerDay
		if tz {
			return sess.ToUTC(local), nil
		}
		return local, nil
	case dtAllballs:
		return 0, dtError(dtSyntax, name, orig, "")
	}
	if !f.hasDate {
		return 0, dtError(dtSyntax, name, orig, "")
	}
	if f.year < -4713 || f.year > 294277 {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	days := int64(date2j(f.year, f.month, f.day) - postgresEpochJDay)
	ts := days*usecsPerDay + (int64(f.hour)*3600+int64(f.min)*60+int64(f.sec))*usecsPerSec + f.usec
	if tz {
		z := sess
		if f.zone != nil {
			z = f.zone
		}
		ts = z.ToUTC(ts)
	}
	ts = adjustTimestampTypmod(ts, typmod)
	if ts < minTimestamp || ts >= endTimestamp {
		return 0, pgerr.Errorf(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", orig)
	}
	return ts, nil
}
