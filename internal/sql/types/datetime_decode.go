package types

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Date/time input as PostgreSQL decodes it (datetime.c's ParseDateTime,
// DecodeDateTime and DecodeTimeOnly). The text is first cut into typed
// fields — numbers, words, dates (digits or words joined by - / .), times
// (digits joined by :), signed zone offsets — and each field is then
// claimed by the date/time part it can only be, a bit mask remembering
// which parts are set so that none is given twice. Bare numbers are the
// ambiguous case: a number of three or more digits is a year, otherwise
// DateStyle's field order (MDY, DMY, YMD) says whether the first one is a
// month, a day or a year, and the rest follow from what is already set.
// Words are month and weekday names, AD/BC, AM/PM, zone abbreviations and
// names, the special values (now, today, epoch, infinity, allballs …) and
// the ISO unit labels (y m d h mm s, j for Julian days, t before a time).

type dtFieldKind uint8

const (
	fieldNumber dtFieldKind = iota
	fieldString
	fieldDate
	fieldTime
	fieldTZ
	fieldSpecial // a sign glued to a word: -infinity
)

type dtField struct {
	kind dtFieldKind
	text string // lower-cased
}

const (
	maxDateFields = 25  // MAXDATEFIELDS
	maxDateLen    = 128 // MAXDATELEN: the fields' text with a terminator each
	tokMaxLen     = 10  // TOKMAXLEN: words compare on this many characters
)

// tokenizeDateTime is ParseDateTime: it cuts s into fields.
func tokenizeDateTime(s string) ([]dtField, dtErr) {
	var fields []dtField
	size := 0
	p := 0
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	isAlphaAt := func(i int) bool { return i < len(s) && isAlpha(s[i]) }
	for p < len(s) {
		c := s[p]
		if isSpace(c) {
			p++
			continue
		}
		start := p
		var kind dtFieldKind
		switch {
		case c >= '0' && c <= '9':
			for isDigit(p) {
				p++
			}
			switch {
			case p < len(s) && s[p] == ':':
				kind = fieldTime
				for isDigit(p) || (p < len(s) && (s[p] == ':' || s[p] == '.')) {
					p++
				}
			case p < len(s) && (s[p] == '-' || s[p] == '/' || s[p] == '.'):
				delim := s[p]
				p++
				if isDigit(p) {
					kind = fieldDate
					if delim == '.' {
						kind = fieldNumber
					}
					for isDigit(p) {
						p++
					}
					if p < len(s) && s[p] == delim {
						// three fields need matching delimiters
						kind = fieldDate
						for isDigit(p) || (p < len(s) && s[p] == delim) {
							p++
						}
					}
				} else {
					kind = fieldDate
					for p < len(s) && (isAlnum(s[p]) || s[p] == delim) {
						p++
					}
				}
			default:
				kind = fieldNumber
			}
		case c == '.':
			p++
			for isDigit(p) {
				p++
			}
			kind = fieldNumber
		case isAlpha(c):
			kind = fieldString
			for isAlphaAt(p) {
				p++
			}
			isDate := false
			if p < len(s) && (s[p] == '-' || s[p] == '/' || s[p] == '.') {
				isDate = true
			} else if p < len(s) && (s[p] == '+' || isDigit(p)) {
				// a word run into digits is a zone name (est5edt) unless
				// it is one of the keywords
				_, _, known := lookupDateToken(strings.ToLower(s[start:p]))
				isDate = !known
			}
			if isDate {
				kind = fieldDate
				for p < len(s) && (isAlnum(s[p]) || strings.IndexByte("+-/_.:", s[p]) >= 0) {
					p++
				}
			}
		case c == '+' || c == '-':
			p++
			for p < len(s) && isSpace(s[p]) {
				p++
			}
			switch {
			case isDigit(p):
				kind = fieldTZ
				for isDigit(p) || (p < len(s) && (s[p] == ':' || s[p] == '.' || s[p] == '-')) {
					p++
				}
			case isAlphaAt(p):
				kind = fieldSpecial
				for isAlphaAt(p) {
					p++
				}
			default:
				return nil, dtSyntax
			}
		case c < 0x80 && isPunct(c):
			p++
			continue
		default:
			return nil, dtSyntax
		}
		text := s[start:p]
		if kind == fieldTZ || kind == fieldSpecial {
			// blanks between the sign and the rest are dropped
			text = text[:1] + strings.TrimLeft(text[1:], " \t\n\r\f\v")
		}
		size += len(text) + 1
		if len(fields) >= maxDateFields || size > maxDateLen {
			return nil, dtSyntax
		}
		fields = append(fields, dtField{kind: kind, text: strings.ToLower(text)})
	}
	return fields, dtOK
}

func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !isAlnum(c)
}

// Parts of a date/time value, as bits of the masks that record which are
// set (PostgreSQL's DTK_M of its token types).
type dtPart uint8

const (
	partReserved dtPart = iota
	partMonth
	partYear
	partDay
	partJulian
	partTZ
	partDTZ
	partIgnore
	partAMPM
	partHour
	partMinute
	partSecond
	partMillisecond
	partMicrosecond
	partDOY
	partDOW
	partUnits
	partADBC
	partISOTime
	partDTZMod
)

type dtMask uint32

func maskOf(p dtPart) dtMask { return 1 << p }

const (
	maskDate    = 1<<partYear | 1<<partMonth | 1<<partDay
	maskAllSecs = 1<<partSecond | 1<<partMillisecond | 1<<partMicrosecond
	maskTime    = 1<<partHour | 1<<partMinute | maskAllSecs
)

// Values of reserved words and unit labels.
const (
	tokNow = iota + 1
	tokToday
	tokTomorrow
	tokYesterday
	tokEpoch
	tokLate
	tokEarly
	tokZulu
	tokAM
	tokPM
	tokAD
	tokBC
	// unit labels of ISO input (y2001m02d04, j2451187, t040506)
	unitYear
	unitMonth
	unitDay
	unitHour
	unitMinute
	unitSecond
	unitJulian
	unitTime
	unitOther // dow, doy, isodow, isoyear: known words no input uses
)

type dateToken struct {
	part dtPart
	val  int
}

var dateTokens = map[string]dateToken{
	"-infinity": {partReserved, tokEarly}, "infinity": {partReserved, tokLate}, "epoch": {partReserved, tokEpoch},
	"now": {partReserved, tokNow}, "today": {partReserved, tokToday}, "tomorrow": {partReserved, tokTomorrow},
	"yesterday": {partReserved, tokYesterday}, "allballs": {partReserved, tokZulu},
	"ad": {partADBC, tokAD}, "bc": {partADBC, tokBC}, "am": {partAMPM, tokAM}, "pm": {partAMPM, tokPM},
	"at": {partIgnore, 0}, "on": {partIgnore, 0}, "dst": {partDTZMod, 3600},
	"y": {partUnits, unitYear}, "m": {partUnits, unitMonth}, "d": {partUnits, unitDay}, "h": {partUnits, unitHour},
	"mm": {partUnits, unitMinute}, "s": {partUnits, unitSecond}, "j": {partUnits, unitJulian},
	"jd": {partUnits, unitJulian}, "julian": {partUnits, unitJulian}, "t": {partISOTime, unitTime},
	"dow": {partUnits, unitOther}, "doy": {partUnits, unitOther}, "isodow": {partUnits, unitOther},
	"isoyear": {partUnits, unitOther},
	"sun":     {partDOW, 0}, "sunday": {partDOW, 0}, "mon": {partDOW, 1}, "monday": {partDOW, 1},
	"tue": {partDOW, 2}, "tues": {partDOW, 2}, "tuesday": {partDOW, 2}, "wed": {partDOW, 3},
	"wednesday": {partDOW, 3}, "weds": {partDOW, 3}, "thu": {partDOW, 4}, "thur": {partDOW, 4},
	"thurs": {partDOW, 4}, "thursday": {partDOW, 4}, "fri": {partDOW, 5}, "friday": {partDOW, 5},
	"sat": {partDOW, 6}, "saturday": {partDOW, 6},
}

func init() {
	for name, m := range monthNames {
		dateTokens[name] = dateToken{partMonth, m}
	}
}

// lookupDateToken finds a keyword; words compare on their first
// tokMaxLen characters, as PostgreSQL's token table.
func lookupDateToken(w string) (dtPart, int, bool) {
	if len(w) > tokMaxLen {
		w = w[:tokMaxLen]
	}
	t, ok := dateTokens[w]
	return t.part, t.val, ok
}

// lookupZoneAbbrev finds a zone abbreviation (est, cest, z …), which takes
// precedence over the keywords.
func lookupZoneAbbrev(w string) (int, bool) {
	if len(w) > tokMaxLen {
		w = w[:tokMaxLen]
	}
	off, ok := zoneAbbrevs[w]
	return off, ok
}

// dtValue is a decoded date/time: the broken-down fields and the zone.
type dtValue struct {
	special        int // 0, or tokEpoch / tokLate / tokEarly
	year, mon, day int
	yday           int
	hour, min, sec int
	fsec           int64 // microseconds
	hasZone        bool
	offset         int   // seconds east of UTC, when zone is nil
	zone           *Zone // a named zone, resolved at the value's date
	now            bool  // "now": the transaction's start
	nowUTC         int64
}

// dtDecoder holds the state of one decode.
type dtDecoder struct {
	order     DateOrder
	v         dtValue
	fmask     dtMask
	textMonth bool
	is2digits bool
	julian    bool
	bc        bool
	ampm      int
	unit      int // the unit label the next number belongs to
	dstMod    bool
	sess      *Zone
	now       int64 // the transaction's start, UTC
}

// decodeDateTime is DecodeDateTime: a full date (and optional time and
// zone), or one of the special values.
func decodeDateTime(st *Settings, s string) (dtValue, dtErr, string) {
	fields, e := tokenizeDateTime(s)
	if e != dtOK {
		return dtValue{}, e, ""
	}
	d := dtDecoder{order: st.dateOrder(), sess: st.zone(), now: st.now()}
	for i, f := range fields {
		var tmask dtMask
		var err dtErr
		var bad string
		switch f.kind {
		case fieldDate:
			tmask, err, bad = d.dateField(fields, i)
		case fieldTime:
			if d.unit != 0 {
				if d.unit != unitTime {
					return dtValue{}, dtSyntax, ""
				}
				d.unit = 0
			}
			tmask, err = maskTime, d.decodeTime(f.text)
			if err == dtOK && timeOverflows(d.v.hour, d.v.min, d.v.sec, d.v.fsec) {
				err = dtRange
			}
		case fieldTZ:
			off, e := decodeZoneOffset(f.text)
			tmask, err = maskOf(partTZ), e
			d.v.offset, d.v.hasZone = off, true
		case fieldNumber:
			if d.unit != 0 {
				tmask, err = d.labelledNumber(f.text, false)
			} else {
				tmask, err = d.plainNumber(f.text)
			}
		case fieldString, fieldSpecial:
			var skip bool
			tmask, skip, err = d.word(fields, i, false)
			if skip {
				continue
			}
		}
		if err != dtOK {
			return dtValue{}, err, bad
		}
		if tmask&d.fmask != 0 {
			return dtValue{}, dtSyntax, ""
		}
		d.fmask |= tmask
	}
	if e := d.validateDate(); e != dtOK {
		return dtValue{}, e, ""
	}
	if e := d.applyAMPM(); e != dtOK {
		return dtValue{}, e, ""
	}
	if d.v.special == 0 && !d.v.now {
		if d.fmask&maskDate != maskDate {
			return dtValue{}, dtSyntax, ""
		}
		if d.dstMod && (d.v.zone != nil || !d.v.hasZone) {
			return dtValue{}, dtSyntax, ""
		}
	}
	return d.v, dtOK, ""
}

// dateField decodes a date field: a date, or — once month and day are
// known, or after a "t" — a zone name or a run-together time with an
// offset (hhmmss-zz).
func (d *dtDecoder) dateField(fields []dtField, i int) (dtMask, dtErr, string) {
	text := fields[i].text
	if d.unit == unitJulian {
		d.unit = 0
		jd, ok := atoiStrict(text)
		if !ok || jd < 0 {
			return 0, dtRange, ""
		}
		d.v.year, d.v.mon, d.v.day = j2date(jd)
		d.julian = true
		return maskDate, dtOK, ""
	}
	if d.unit == 0 && d.fmask&(maskOf(partMonth)|maskOf(partDay)) != maskOf(partMonth)|maskOf(partDay) {
		m, e := d.decodeDate(text)
		return m, e, ""
	}
	if d.unit != 0 {
		if d.unit != unitTime {
			return 0, dtSyntax, ""
		}
		d.unit = 0
	} else if !isDigitByte(text[0]) {
		z := namedZone(text)
		if z == nil {
			return 0, dtBadZone, text
		}
		d.v.zone, d.v.hasZone = z, true
		return maskOf(partTZ), dtOK, ""
	}
	if d.fmask&maskTime == maskTime {
		return 0, dtSyntax, ""
	}
	dash := strings.IndexByte(text, '-')
	if dash < 0 {
		return 0, dtSyntax, ""
	}
	off, e := decodeZoneOffset(text[dash:])
	if e != dtOK {
		return 0, e, ""
	}
	d.v.offset, d.v.hasZone = off, true
	m, e := d.numberField(text[:dash], d.fmask)
	return m | maskOf(partTZ), e, ""
}

// plainNumber decodes a number without a unit label.
func (d *dtDecoder) plainNumber(text string) (dtMask, dtErr) {
	dot := strings.IndexByte(text, '.')
	switch {
	case dot >= 0 && d.fmask&maskDate == 0:
		// 1999.008, 2001.12.25-like numbers before any date part
		return d.decodeDate(text)
	case dot > 2:
		return d.numberField(text, d.fmask)
	case len(text) >= 6 && (d.fmask&maskDate == 0 || d.fmask&maskTime == 0):
		return d.numberField(text, d.fmask)
	}
	return d.decodeNumber(text, d.fmask)
}

// labelledNumber decodes a number after a unit label (y2001m02d04,
// j2451187.5, t040506); timeOnly is DecodeTimeOnly's variant.
func (d *dtDecoder) labelledNumber(text string, timeOnly bool) (dtMask, dtErr) {
	unit := d.unit
	d.unit = 0
	digits := text
	rest := ""
	if i := strings.IndexByte(text, '.'); i >= 0 {
		digits, rest = text[:i], text[i:]
		if unit != unitJulian && unit != unitTime && unit != unitSecond {
			return 0, dtSyntax
		}
	}
	val, ok := atoiStrict(digits)
	if !ok {
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			return 0, dtSyntax
		}
		return 0, dtRange
	}
	var m dtMask
	switch unit {
	case unitYear:
		d.v.year, m = val, maskOf(partYear)
	case unitMonth:
		if d.fmask&maskOf(partMonth) != 0 && d.fmask&maskOf(partHour) != 0 {
			d.v.min, m = val, maskOf(partMinute)
		} else {
			d.v.mon, m = val, maskOf(partMonth)
		}
	case unitDay:
		d.v.day, m = val, maskOf(partDay)
	case unitHour:
		d.v.hour, m = val, maskOf(partHour)
	case unitMinute:
		d.v.min, m = val, maskOf(partMinute)
	case unitSecond:
		d.v.sec, m = val, maskOf(partSecond)
		if rest != "" {
			fs, e := parseFractionalSecond(rest)
			if e != dtOK {
				return 0, e
			}
			d.v.fsec, m = fs, maskAllSecs
		}
	case unitJulian:
		if val < 0 {
			return 0, dtRange
		}
		d.v.year, d.v.mon, d.v.day = j2date(val)
		d.julian = true
		m = maskDate
		if rest != "" {
			frac, err := strconv.ParseFloat("0"+rest, 64)
			if err != nil {
				return 0, dtSyntax
			}
			us := int64(frac * float64(usecsPerDay))
			d.v.hour, d.v.min, d.v.sec = int(us/3600e6), int(us/60e6%60), int(us/1e6%60)
			d.v.fsec = us % 1e6
			m |= maskTime
		}
	case unitTime:
		m2, e := d.numberField(text, d.fmask|maskDate)
		if e != dtOK {
			return 0, e
		}
		if m2 != maskTime {
			return 0, dtSyntax
		}
		m = m2
	default:
		return 0, dtSyntax
	}
	return m, dtOK
}

// word decodes a word field: a zone abbreviation, a keyword, or a zone
// name. skip reports a word that is ignored (at, on).
func (d *dtDecoder) word(fields []dtField, i int, timeOnly bool) (dtMask, bool, dtErr) {
	text := fields[i].text
	if off, ok := lookupZoneAbbrev(text); ok {
		d.v.offset, d.v.hasZone = off, true
		return maskOf(partTZ), false, dtOK
	}
	part, val, ok := lookupDateToken(text)
	if ok && timeOnly && (part == partMonth || part == partDOW) {
		return 0, false, dtSyntax
	}
	if !ok {
		z := namedZone(text)
		if z == nil {
			return 0, false, dtSyntax
		}
		d.v.zone, d.v.hasZone = z, true
		return maskOf(partTZ), false, dtOK
	}
	m := maskOf(part)
	switch part {
	case partIgnore:
		return 0, true, dtOK
	case partReserved:
		return d.reserved(val, timeOnly)
	case partMonth:
		if d.fmask&maskOf(partMonth) != 0 && !d.textMonth && d.fmask&maskOf(partDay) == 0 && d.v.mon >= 1 && d.v.mon <= 31 {
			// a number already read as the month was the day
			d.v.day = d.v.mon
			m = maskOf(partDay)
		}
		d.textMonth = true
		d.v.mon = val
	case partDTZMod:
		m |= maskOf(partDTZ)
		d.dstMod = true
		d.v.offset += val
	case partAMPM:
		d.ampm = val
	case partADBC:
		d.bc = val == tokBC
	case partDOW:
	case partUnits:
		d.unit = val
		return 0, false, dtOK
	case partISOTime:
		if !timeOnly && d.fmask&maskDate != maskDate {
			return 0, false, dtSyntax
		}
		if i+1 >= len(fields) || (fields[i+1].kind != fieldNumber && fields[i+1].kind != fieldTime && fields[i+1].kind != fieldDate) {
			return 0, false, dtSyntax
		}
		d.unit = unitTime
		return 0, false, dtOK
	}
	return m, false, dtOK
}

// reserved handles now, today, epoch, infinity, allballs ….
func (d *dtDecoder) reserved(val int, timeOnly bool) (dtMask, bool, dtErr) {
	if timeOnly {
		switch val {
		case tokNow:
			_, t := splitTimestamp(d.sess.ToLocal(d.now))
			d.setTimeOfDay(t)
			return maskTime, false, dtOK
		case tokZulu:
			d.v.hour, d.v.min, d.v.sec = 0, 0, 0
			return maskTime | maskOf(partTZ), false, dtOK
		}
		return 0, false, dtSyntax
	}
	switch val {
	case tokNow:
		jd, t := splitTimestamp(d.sess.ToLocal(d.now))
		d.v.year, d.v.mon, d.v.day = j2date(jd)
		d.setTimeOfDay(t)
		d.v.now, d.v.nowUTC = true, d.now
		return maskDate | maskTime | maskOf(partTZ), false, dtOK
	case tokToday, tokTomorrow, tokYesterday:
		jd, _ := splitTimestamp(d.sess.ToLocal(d.now))
		jd += map[int]int{tokToday: 0, tokTomorrow: 1, tokYesterday: -1}[val]
		d.v.year, d.v.mon, d.v.day = j2date(jd)
		return maskDate, false, dtOK
	case tokZulu:
		d.v.hour, d.v.min, d.v.sec = 0, 0, 0
		d.v.offset, d.v.hasZone = 0, true
		return maskTime | maskOf(partTZ), false, dtOK
	}
	d.v.special = val
	return maskOf(partReserved), false, dtOK
}

func (d *dtDecoder) setTimeOfDay(t int64) {
	d.v.hour, d.v.min, d.v.sec = int(t/3600e6), int(t/60e6%60), int(t/1e6%60)
	d.v.fsec = t % 1e6
}

// decodeDate is DecodeDate: a field like 1999-01-08, jan-08-1999, 1/8/1999
// or 1999.008, split at its punctuation; a month name is read first, the
// numbers then in DateStyle's order.
func (d *dtDecoder) decodeDate(text string) (dtMask, dtErr) {
	var parts []string
	p := 0
	for p < len(text) {
		for p < len(text) && !isAlnum(text[p]) {
			p++
		}
		if p == len(text) {
			return 0, dtSyntax
		}
		q := p
		if isDigitByte(text[p]) {
			for q < len(text) && isDigitByte(text[q]) {
				q++
			}
		} else {
			for q < len(text) && isAlpha(text[q]) {
				q++
			}
		}
		parts = append(parts, text[p:q])
		p = q
		if p < len(text) {
			p++ // the separator (or whatever else follows) is dropped
		}
		if len(parts) >= maxDateFields {
			break
		}
	}
	fmask := d.fmask
	var tmask dtMask
	for i, pt := range parts {
		if !isAlpha(pt[0]) {
			continue
		}
		part, val, ok := lookupDateToken(pt)
		if ok && part == partIgnore {
			parts[i] = ""
			continue
		}
		if !ok || part != partMonth {
			return 0, dtSyntax
		}
		if fmask&maskOf(partMonth) != 0 {
			return 0, dtSyntax
		}
		d.v.mon, d.textMonth = val, true
		fmask |= maskOf(partMonth)
		tmask |= maskOf(partMonth)
		parts[i] = ""
	}
	for _, pt := range parts {
		if pt == "" {
			continue
		}
		m, e := d.decodeNumber(pt, fmask)
		if e != dtOK {
			return 0, e
		}
		if fmask&m != 0 {
			return 0, dtSyntax
		}
		fmask |= m
		tmask |= m
	}
	if fmask&^(maskOf(partDOY)|maskOf(partTZ)) != maskDate {
		return 0, dtSyntax
	}
	return tmask, dtOK
}

// decodeNumber is DecodeNumber: one number whose meaning depends on the
// date parts set so far (fmask) and DateStyle's field order.
func (d *dtDecoder) decodeNumber(text string, fmask dtMask) (dtMask, dtErr) {
	digits, rest := text, ""
	if i := strings.IndexByte(text, '.'); i >= 0 {
		digits, rest = text[:i], text[i:]
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, dtSyntax
	}
	val, ok := atoiStrict(digits)
	if !ok {
		return 0, dtRange
	}
	if rest != "" {
		if len(digits) > 2 {
			// 2001.360, 040506.789: a run-together date or time
			return d.numberField(text, fmask|maskDate)
		}
		fs, e := parseFractionalSecond(rest)
		if e != dtOK {
			return 0, e
		}
		d.v.fsec = fs
	}
	flen := len(text)
	if flen == 3 && fmask&maskDate == maskOf(partYear) && val >= 1 && val <= 366 {
		// day of the year after a year: 1999.008
		d.v.yday = val
		return maskOf(partDOY) | maskOf(partMonth) | maskOf(partDay), dtOK
	}
	var m dtMask
	switch fmask & maskDate {
	case 0:
		switch {
		case flen >= 3 || d.order == DateOrderYMD:
			d.v.year, m = val, maskOf(partYear)
		case d.order == DateOrderDMY:
			d.v.day, m = val, maskOf(partDay)
		default:
			d.v.mon, m = val, maskOf(partMonth)
		}
	case maskOf(partYear):
		d.v.mon, m = val, maskOf(partMonth)
	case maskOf(partMonth):
		if d.textMonth && (flen >= 3 || d.order == DateOrderYMD) {
			d.v.year, m = val, maskOf(partYear)
		} else {
			d.v.day, m = val, maskOf(partDay)
		}
	case maskOf(partYear) | maskOf(partMonth):
		if d.textMonth && flen >= 3 && d.is2digits {
			// DD-MON-YYYY in YMD mode: the first number was the day
			d.v.day, d.v.year = d.v.year, val
			d.is2digits = false
		} else {
			d.v.day = val
		}
		m = maskOf(partDay)
	case maskOf(partDay):
		d.v.mon, m = val, maskOf(partMonth)
	case maskOf(partMonth) | maskOf(partDay):
		d.v.year, m = val, maskOf(partYear)
	case maskDate:
		return d.numberField(text, fmask)
	default:
		return 0, dtSyntax
	}
	if m == maskOf(partYear) {
		d.is2digits = flen <= 2
	}
	return m, dtOK
}

// numberField is DecodeNumberField: run-together digits, yyyymmdd or
// yymmdd before the date is complete, else hhmmss or hhmm, with an
// optional fraction of a second.
func (d *dtDecoder) numberField(text string, fmask dtMask) (dtMask, dtErr) {
	if i := strings.IndexByte(text, '.'); i >= 0 {
		frac := text[i:]
		text = text[:i]
		if len(frac) > 1 {
			f, err := strconv.ParseFloat("0"+frac, 64)
			if err != nil {
				return 0, dtSyntax
			}
			d.v.fsec = int64(math.RoundToEven(f * 1e6))
		} else {
			d.v.fsec = 0
		}
	} else if fmask&maskDate != maskDate && len(text) >= 6 {
		n := len(text)
		d.v.day = atoi(text[n-2:])
		d.v.mon = atoi(text[n-4 : n-2])
		d.v.year = atoi(text[:n-4])
		if n-4 == 2 {
			d.is2digits = true
		}
		return maskDate, dtOK
	}
	if fmask&maskTime != maskTime {
		switch len(text) {
		case 6:
			d.v.hour, d.v.min, d.v.sec = atoi(text[:2]), atoi(text[2:4]), atoi(text[4:])
			return maskTime, dtOK
		case 4:
			d.v.hour, d.v.min, d.v.sec = atoi(text[:2]), atoi(text[2:]), 0
			return maskTime, dtOK
		}
	}
	return 0, dtSyntax
}

// decodeTime is DecodeTime: hh:mm, hh:mm:ss[.f], or mm:ss.f.
func (d *dtDecoder) decodeTime(text string) dtErr {
	nums := strings.SplitN(text, ":", 3)
	if len(nums) < 2 {
		return dtSyntax
	}
	h, ok1 := atoiStrict(nums[0])
	if !ok1 {
		return dtRange
	}
	minText, fracText := nums[1], ""
	if len(nums) == 2 {
		if i := strings.IndexByte(minText, '.'); i >= 0 {
			minText, fracText = minText[:i], minText[i:]
		}
	}
	mi, e := leadingInt(minText)
	if e != dtOK {
		return e
	}
	d.v.hour, d.v.min, d.v.sec, d.v.fsec = h, mi, 0, 0
	switch {
	case len(nums) == 2 && fracText != "":
		// mm:ss.fff
		fs, e := parseFractionalSecond(fracText)
		if e != dtOK {
			return e
		}
		d.v.hour, d.v.min, d.v.sec, d.v.fsec = 0, h, mi, fs
	case len(nums) == 3:
		secText, frac := nums[2], ""
		if i := strings.IndexByte(secText, '.'); i >= 0 {
			secText, frac = secText[:i], secText[i:]
		}
		sec, e := leadingInt(secText)
		if e != dtOK {
			return e
		}
		d.v.sec = sec
		if frac != "" {
			fs, e := parseFractionalSecond(frac)
			if e != dtOK {
				return e
			}
			d.v.fsec = fs
		}
	}
	if d.v.min > 59 || d.v.sec > 60 || d.v.fsec > 1e6 {
		return dtRange
	}
	return dtOK
}

// leadingInt reads a field of digits that must be all digits (strtoint
// followed by a check for the end); an empty one reads as 0, as strtol.
func leadingInt(s string) (int, dtErr) {
	if s == "" {
		return 0, dtOK
	}
	if strings.Trim(s, "0123456789") != "" {
		return 0, dtSyntax
	}
	v, ok := atoiStrict(s)
	if !ok {
		return 0, dtRange
	}
	return v, dtOK
}

// parseFractionalSecond reads ".nnn" as microseconds, rounded half to
// even; a lone "." is zero.
func parseFractionalSecond(frac string) (int64, dtErr) {
	if frac == "." {
		return 0, dtOK
	}
	if len(frac) < 2 || strings.Trim(frac[1:], "0123456789") != "" {
		return 0, dtSyntax
	}
	f, err := strconv.ParseFloat("0"+frac, 64)
	if err != nil {
		return 0, dtSyntax
	}
	return int64(math.RoundToEven(f * 1e6)), dtOK
}

// decodeZoneOffset is DecodeTimezone: +hh, +hh:mm[:ss], +hhmm; seconds
// east of UTC.
func decodeZoneOffset(s string) (int, dtErr) {
	if s == "" || (s[0] != '+' && s[0] != '-') {
		return 0, dtSyntax
	}
	body := s[1:]
	end := 0
	for end < len(body) && isDigitByte(body[end]) {
		end++
	}
	hr, ok := atoiStrict(body[:end])
	if !ok {
		return 0, dtZoneRange
	}
	rest := body[end:]
	min, sec := 0, 0
	readPart := func() (int, bool) {
		i := 1
		for i < len(rest) && isDigitByte(rest[i]) {
			i++
		}
		v, ok := atoiStrict(rest[1:i])
		if rest[1:i] == "" {
			v, ok = 0, true
		}
		rest = rest[i:]
		return v, ok
	}
	switch {
	case strings.HasPrefix(rest, ":"):
		if min, ok = readPart(); !ok {
			return 0, dtZoneRange
		}
		if strings.HasPrefix(rest, ":") {
			if sec, ok = readPart(); !ok {
				return 0, dtZoneRange
			}
		}
	case rest == "" && len(s) > 3:
		min, hr = hr%100, hr/100
	}
	if hr > 15 || min >= 60 || sec >= 60 {
		return 0, dtZoneRange
	}
	off := (hr*60+min)*60 + sec
	if s[0] == '-' {
		off = -off
	}
	if rest != "" {
		return 0, dtSyntax
	}
	return off, dtOK
}

// namedZone resolves a zone name written in the value: a tz database name
// (europe/paris) or a POSIX zone without rules (gmt+8 is UTC-8).
func namedZone(name string) *Zone {
	if loc := loadLocation(name); loc != nil {
		return &Zone{Name: loc.String(), loc: loc}
	}
	if strings.ContainsAny(name, "+-") {
		if off, ok := parsePosixOffset(name); ok {
			return FixedZone(name, off)
		}
	}
	return nil
}

// validateDate is ValidateDate: BC and two-digit years, the day of the
// year, and the ranges of month and day.
func (d *dtDecoder) validateDate() dtErr {
	v := &d.v
	if d.fmask&maskDate != 0 {
		switch {
		case d.julian:
		case d.bc:
			if v.year <= 0 {
				return dtRange
			}
			v.year = -(v.year - 1)
		case d.is2digits:
			if v.year < 70 {
				v.year += 2000
			} else if v.year < 100 {
				v.year += 1900
			}
		case v.year <= 0:
			return dtRange
		}
	}
	if d.fmask&maskOf(partDOY) != 0 {
		v.year, v.mon, v.day = j2date(date2j(v.year, 1, 1) + v.yday - 1)
	}
	if d.fmask&maskOf(partMonth) != 0 && (v.mon < 1 || v.mon > 12) {
		return dtMDRange
	}
	if d.fmask&maskOf(partDay) != 0 && (v.day < 1 || v.day > 31) {
		return dtMDRange
	}
	if d.fmask&maskDate == maskDate {
		leap := 0
		if isLeap(v.year) {
			leap = 1
		}
		if v.day > daysInMonth[leap][v.mon] {
			return dtRange
		}
	}
	return dtOK
}

func (d *dtDecoder) applyAMPM() dtErr {
	if d.ampm != 0 && d.v.hour > 12 {
		return dtRange
	}
	if d.ampm == tokAM && d.v.hour == 12 {
		d.v.hour = 0
	} else if d.ampm == tokPM && d.v.hour != 12 {
		d.v.hour += 12
	}
	return dtOK
}

func timeOverflows(h, m, s int, fsec int64) bool {
	if h < 0 || h > 24 || m < 0 || m > 59 || s < 0 || s > 60 || fsec < 0 || fsec > 1e6 {
		return true
	}
	return ((int64(h)*60+int64(m))*60+int64(s))*usecsPerSec+fsec > usecsPerDay
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// atoiStrict reads decimal digits into an int32-sized int; false on
// overflow or when there are none.
func atoiStrict(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	v := int64(0)
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
		if v > math.MaxInt32 {
			return 0, false
		}
	}
	return int(v), true
}

// validJulian is IS_VALID_JULIAN: from 4714-11-24 BC to 5874898-06-03.
func validJulian(y, m int) bool {
	return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6))
}

// localMicros is the decoded wall-clock time as timestamp microseconds.
func (v *dtValue) localMicros() int64 {
	days := int64(date2j(v.year, v.mon, v.day) - postgresEpochJDay)
	return days*usecsPerDay + (int64(v.hour)*3600+int64(v.min)*60+int64(v.sec))*usecsPerSec + v.fsec
}

// toUTC converts the decoded wall clock to UTC: by the value's own offset
// or zone, else the session's zone.
func (v *dtValue) toUTC(sess *Zone) int64 {
	local := v.localMicros()
	switch {
	case v.now:
		return v.nowUTC
	case v.zone != nil:
		return v.zone.ToUTC(local)
	case v.hasZone:
		return local - int64(v.offset)*usecsPerSec
	}
	return sess.ToUTC(local)
}

// decodeTimeOnly is DecodeTimeOnly: a time of day, with an optional zone
// and, in limited forms, a date (which time input reads and drops).
func decodeTimeOnly(st *Settings, s string) (dtValue, dtErr, string) {
	fields, e := tokenizeDateTime(s)
	if e != dtOK {
		return dtValue{}, e, ""
	}
	d := dtDecoder{order: st.dateOrder(), sess: st.zone(), now: st.now()}
	nf := len(fields)
	for i, f := range fields {
		var tmask dtMask
		var err dtErr
		switch f.kind {
		case fieldDate:
			switch {
			case i == 0 && nf >= 2 && (fields[nf-1].kind == fieldDate || fields[1].kind == fieldTime):
				tmask, err = d.decodeDate(f.text)
			case isDigitByte(f.text[0]):
				if d.fmask&maskTime == maskTime {
					return dtValue{}, dtSyntax, ""
				}
				dash := strings.IndexByte(f.text, '-')
				if dash < 0 {
					return dtValue{}, dtSyntax, ""
				}
				off, e := decodeZoneOffset(f.text[dash:])
				if e != dtOK {
					return dtValue{}, e, ""
				}
				d.v.offset, d.v.hasZone = off, true
				tmask, err = d.numberField(f.text[:dash], d.fmask|maskDate)
				fields[i].kind = fieldTZ
				tmask |= maskOf(partTZ)
			default:
				z := namedZone(f.text)
				if z == nil {
					return dtValue{}, dtBadZone, f.text
				}
				d.v.zone, d.v.hasZone = z, true
				fields[i].kind = fieldTZ
				tmask = maskOf(partTZ)
			}
		case fieldTime:
			tmask, err = maskTime, d.decodeTime(f.text)
		case fieldTZ:
			off, e := decodeZoneOffset(f.text)
			tmask, err = maskOf(partTZ), e
			d.v.offset, d.v.hasZone = off, true
		case fieldNumber:
			tmask, err = d.timeOnlyNumber(fields, i)
		case fieldString, fieldSpecial:
			var skip bool
			tmask, skip, err = d.word(fields, i, true)
			if skip {
				continue
			}
		}
		if err != dtOK {
			return dtValue{}, err, ""
		}
		if tmask&d.fmask != 0 {
			return dtValue{}, dtSyntax, ""
		}
		d.fmask |= tmask
	}
	if e := d.validateDate(); e != dtOK {
		return dtValue{}, e, ""
	}
	if e := d.applyAMPM(); e != dtOK {
		return dtValue{}, e, ""
	}
	if timeOverflows(d.v.hour, d.v.min, d.v.sec, d.v.fsec) {
		return dtValue{}, dtRange, ""
	}
	if d.fmask&maskTime != maskTime {
		return dtValue{}, dtSyntax, ""
	}
	if d.v.zone != nil {
		if d.dstMod {
			return dtValue{}, dtSyntax, ""
		}
		// a zone with daylight-saving rules needs the date to give an offset
		if d.v.zone.loc != time.UTC && d.fmask&maskDate != maskDate {
			return dtValue{}, dtSyntax, ""
		}
	}
	return d.v, dtOK, ""
}

// timeOnlyNumber decodes a number field of time input.
func (d *dtDecoder) timeOnlyNumber(fields []dtField, i int) (dtMask, dtErr) {
	text := fields[i].text
	if d.unit != 0 {
		return d.labelledNumber(text, true)
	}
	if dot := strings.IndexByte(text, '.'); dot >= 0 {
		switch {
		case i == 0 && len(fields) >= 2 && fields[len(fields)-1].kind == fieldDate:
			return d.decodeDate(text)
		case dot > 2:
			return d.numberField(text, d.fmask|maskDate)
		}
		return 0, dtSyntax
	}
	if len(text) > 4 {
		return d.numberField(text, d.fmask|maskDate)
	}
	return d.decodeNumber(text, d.fmask|maskDate)
}
